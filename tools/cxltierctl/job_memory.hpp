// SPDX-License-Identifier: GPL-2.0
// Where a running job's memory lives, node by node: the pages its processes map,
// from /proc/<pid>/numa_maps of the job's process and its descendants.  For
// cxltierctl run; apart from it so the host tests can feed it a fake /proc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace cxltierctl {

// Bytes per NUMA node id.
using node_bytes = std::map<int, std::uint64_t>;

// Adds the pages of one numa_maps text to @out: every mapping's N<node>=<pages>
// times its kernelpagesize_kB.  Lines it cannot read are left out.
void add_numa_maps(std::string_view text, node_bytes &out);

// @root and every process descended from it that is alive now, @root first (from
// the parent pids in <proc>/<pid>/stat).
std::vector<pid_t> process_tree(pid_t root, const std::filesystem::path &proc = "/proc");

// The pages mapped by @root's process tree now, per node; nullopt when @root has
// no memory left to read (it has exited, or numa_maps cannot be read: no NUMA in
// the kernel, or not permitted).  Pages shared between the processes count once
// per process, as in RSS.
std::optional<node_bytes> sample_job(pid_t root, const std::filesystem::path &proc = "/proc");

std::uint64_t total_bytes(const node_bytes &nodes);

} // namespace cxltierctl
