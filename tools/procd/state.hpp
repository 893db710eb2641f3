// SPDX-License-Identifier: GPL-2.0
// Process mode's state directory, shared by cxltier-procd (the service) and
// cxltierctl manage/unmanage/managed.
//
// DIR (default /run/cxltier, or $CXLTIER_STATE_DIR) holds:
//   procd.pid      the service's pid, locked (flock) while it runs
//   managed/       one file per opted-in target, written by cxltierctl:
//                    pid-<PID>        "pid <PID> <starttime>\n" (starttime: field 22 of
//                                     /proc/PID/stat, so a reused pid is not taken)
//                    cgroup-<NAME>    "cgroup <PATH>\n", NAME the path with '/' as '%'
//                  and optionally a second line "fast <BYTES>": the target's own limit
//                  on DRAM (0 or absent: what is free)
//   status.json    written by the service after every period (renamed into place)
// Files, not a socket: the opt-ins outlive a restart of the service, and an operator
// can read them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cxlt_procd {

struct target {
	enum class kind { pid, cgroup } what = kind::pid;
	pid_t pid = 0;
	std::uint64_t starttime = 0;	// kind::pid
	std::string cgroup;		// kind::cgroup: absolute path under the cgroup2 mount
	std::uint64_t fast_bytes = 0;	// limit on DRAM (0: none of its own)

	std::string file_name() const;
	bool operator==(const target &) const = default;
};

// The state directory ($CXLTIER_STATE_DIR or /run/cxltier).
std::string state_dir();

// The running service's pid, if DIR/procd.pid names a process that holds its lock.
std::optional<pid_t> service_pid(const std::string &dir);

// Field 22 of /proc/PID/stat, or nullopt if there is no such process (or it is a
// kernel thread: no memory to manage).
std::optional<std::uint64_t> process_starttime(pid_t pid);

// The opt-ins, in file-name order; files that do not parse are skipped.
std::vector<target> read_targets(const std::string &dir);
// Writes DIR/managed/<file> atomically; throws std::system_error.
void write_target(const std::string &dir, const target &t);
// Removes it; false if it was not there.
bool remove_target(const std::string &dir, const target &t);

// The pids of a cgroup2 directory (cgroup.procs); nullopt if it is not one.
std::optional<std::vector<pid_t>> cgroup_pids(const std::string &path);

} // namespace cxlt_procd
