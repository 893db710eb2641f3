// SPDX-License-Identifier: GPL-2.0
// A managed process's anonymous memory: its ranges, which pages are present, on which
// node, and moving them (move_pages(2)).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
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
