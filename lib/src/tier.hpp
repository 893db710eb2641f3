// SPDX-License-Identifier: GPL-2.0
// Tiers: CXL RAM regions registered as NUMA nodes, from /sys/kernel/cxltier/tiers/<region>/
// joined with the CXL region (platform.hpp), and the NUMA nodes themselves
// (tier_node.cpp).
#pragma once

#include <cerrno>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blade.hpp"
#include "cxltier.h"
#include "name_list.hpp"
#include "node_sysfs.hpp"
#include "platform.hpp"
#include "sysfs.hpp"

struct cxltier_tier {
	cxltier_ctx *ctx;
	std::string name; // the CXL region's
	int node;
	int adistance;
	cxltier_adistance_source adistance_source;
	// From the CXL region (libcxl); 0, 0 and none if the CXL core no longer has it.
	std::uint64_t start;
	std::uint64_t size;
	cxltier::internal::name_list blades; // interleave position order
	// tiers/<region>/state: "online", "fenced" or "offline" ("online" from a
	// module that predates the file); the placement planner skips all but online.
	std::string state;
};

struct cxltier_node {
	cxltier_ctx *ctx;
	int id;
	int memory_tier;	      // -1: in no memory_tier<N>/nodelist
	std::uint64_t mem_total;      // bytes, libnuma's numa_node_size64()
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

// One tiers/<region>/ directory, its start, size and blades left for join_tier();
// the error names the first file at fault.
result<cxltier_tier> load_tier(cxltier_ctx *ctx, const fs::path &dir);

// Fills @t's range and blades from its CXL region in @regions; without one (the CXL
// core removed it), the blades from the blades' tiers files, in name order.
void join_tier(cxltier_tier &t, const std::vector<cxl_region_data> &regions,
	       const std::vector<cxltier_blade> &blades);

// The nodes @found (libnuma's) with their memory tier, read bandwidth and
// interleave weight from the standard sysfs under @sys (node_sysfs.cpp).  A
// malformed value is -EBADMSG naming the file.
result<numa_nodes> load_nodes(cxltier_ctx *ctx, const fs::path &sys,
			      const std::vector<numa_node_data> &found);

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
