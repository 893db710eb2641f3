// SPDX-License-Identifier: GPL-2.0
// A managed process's anonymous memory: its ranges, which pages are present, on which
// node, and moving them (move_pages(2)).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cxlt_procd {

// Closes a file descriptor at the end of its scope (-1: none).
struct fd_closer {
	int fd;
	explicit fd_closer(int f) : fd(f) {}
	fd_closer(const fd_closer &) = delete;
	fd_closer &operator=(const fd_closer &) = delete;
	~fd_closer()
	{
		if (fd >= 0)
			::close(fd);
	}
};

constexpr std::uint64_t page_size = 4096;

// A private anonymous mapping the service may move pages of.  Locked (mlock),
// shared, hugetlb, I/O and pfn mappings are not eligible: they are never in it.
struct anon_range {
	std::uint64_t start, end;
	bool operator==(const anon_range &) const = default;
};

struct proc_layout {
	std::vector<anon_range> ranges;
	std::uint64_t locked_bytes = 0;	// mlocked anonymous memory, left alone
};

// From /proc/PID/smaps; nullopt when the process is gone.
std::optional<proc_layout> read_layout(pid_t pid);

// The same from smaps' text.
proc_layout parse_smaps(std::string_view smaps);

// What changes when the layout may have: the mappings (/proc/PID/maps, which the
// kernel writes without walking the pages, as it does for smaps) and the locked
// memory (VmLck: mlock(2) of a whole mapping leaves maps as it was).
struct layout_key {
	std::string maps;
	std::uint64_t locked_kb = 0;
	bool operator==(const layout_key &) const = default;
};

// nullopt when the process is gone.
std::optional<layout_key> read_layout_key(pid_t pid);

// A process's layout, with smaps read again only when it may have changed: when its
// key changed, every refresh reads, and always while the process has memory locked
// (one mapping unlocked and another of the same size locked leave the key as it was,
// and locked pages must never move).  madvise(MADV_DONTDUMP) of a whole mapping is
// the one change it can miss, for at most refresh calls.
class layout_cache {
public:
	explicit layout_cache(unsigned refresh = 30) : refresh_(refresh) {}

	// nullopt when the process is gone.
	const std::optional<proc_layout> &get(pid_t pid);
	// How many times smaps was read.
	std::uint64_t reads() const { return reads_; }

private:
	unsigned refresh_, age_ = 0;
	std::uint64_t reads_ = 0;
	layout_key key_;
	std::optional<proc_layout> layout_;
};

// The whole of a file that has no size (/proc, sysfs); nullopt when it cannot be read.
std::optional<std::string> read_whole(const std::string &path);

// Free pages and the zones' high watermarks of a node, from /proc/zoneinfo.
struct node_mem {
	std::uint64_t free = 0, high = 0;
};

// Every node's, by node number, from zoneinfo's text.
std::map<int, node_mem> parse_zoneinfo(std::string_view zoneinfo);

// For every page of the ranges, in order: -1 when not present (or swapped out),
// else the node it is on.  nullopt when the process is gone.
std::optional<std::vector<int>> page_nodes(pid_t pid, const std::vector<anon_range> &ranges,
					   std::uint64_t npages);

// Moves the pages at addrs to node; returns, for each, the node it is on afterwards
// (negative errno when it has none: -ENOENT not present, -EFAULT unmapped).  The
// status move_pages(2) writes is the target node even for a page that failed to
// move (pinned, busy), so the nodes are queried again.  nullopt: the process is gone.
std::optional<std::vector<int>> move_to(pid_t pid, const std::vector<std::uint64_t> &addrs,
					int node);

std::string process_comm(pid_t pid);

} // namespace cxlt_procd
