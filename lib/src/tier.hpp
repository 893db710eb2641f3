// SPDX-License-Identifier: GPL-2.0
// Tiers: CXL RAM regions registered as NUMA nodes, from /sys/kernel/cxltier/tiers/<region>/,
// and the NUMA nodes themselves as the kernel's standard sysfs shows them (tier_node.cpp).
#pragma once

#include <cerrno>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cxltier.h"
#include "name_list.hpp"
#include "sysfs.hpp"

struct cxltier_tier {
	cxltier_ctx *ctx;
	std::string name; // the CXL region's
	int node;
	int adistance;
	cxltier_adistance_source adistance_source;
	std::uint64_t start;
	std::uint64_t size;
	cxltier::internal::name_list blades; // interleave position order
};

struct cxltier_node {
	cxltier_ctx *ctx;
	int id;
	int memory_tier;	      // -1: in no memory_tier<N>/nodelist
	std::uint64_t mem_total;      // bytes
	std::uint64_t mem_free;	      // bytes
	unsigned int nr_cpus;
	unsigned int read_bandwidth;  // MB/s, 0 when firmware reports none
	unsigned int weight;	      // 0 when the kernel has no weighted interleave
};

namespace cxltier::internal {

// The NUMA nodes of a snapshot and where they were read from.
struct numa_nodes {
	std::string sys_root; // as given by CXLTIER_SYS_ROOT or "/sys", for messages and writes
	std::vector<cxltier_node> nodes; // id order
};

// One tiers/<region>/ directory; the error names the first file at fault.
result<cxltier_tier> load_tier(cxltier_ctx *ctx, const fs::path &dir);

// CXLTIER_SYS_ROOT when set and not empty, else /sys.
fs::path std_sysfs_root();

// Every node under <sys>/devices/system/node with its memory tier, meminfo, CPUs,
// reported bandwidth and interleave weight.  Nodes that go away while being read
// are left out; a malformed value is -EBADMSG naming the file.
result<numa_nodes> load_nodes(cxltier_ctx *ctx, const fs::path &sys);

// "1-3,5" (the kernel's %*pbl format for node and CPU lists; empty is none) as
// inclusive ranges, {{1, 3}, {5, 5}}.
using id_range = std::pair<int, int>;
result<std::vector<id_range>> parse_id_ranges(const fs::path &file, std::string_view text);

// Writes @value to an existing attribute file in one write(2).  A sysfs store
// method's error comes back from write(2), so it is told apart from a file that
// could not be opened (missing, not writable).
struct write_result {
	int err = 0;	     // 0 or -errno
	bool opened = false; // the file was opened; @err, if any, is the write's
};
write_result write_attr(const fs::path &file, std::string_view value);


// Stores @msg as a context's reason; if that runs out of memory, leaves it empty.
void set_reason(std::string &reason, const char *msg) noexcept;

// Runs @f, which returns 0 or -errno, so that no exception crosses the C ABI: an
// allocation failure becomes -ENOMEM with @reason (a context's last_error) saying
// so, as in ctx.cpp.
template <class F> int tier_guarded(std::string &reason, F &&f) noexcept
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		set_reason(reason, "out of memory");
		return -ENOMEM;
	} catch (...) {
		set_reason(reason, "internal error in libcxltier");
		return -EIO;
	}
}

} // namespace cxltier::internal
