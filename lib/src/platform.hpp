// SPDX-License-Identifier: GPL-2.0
// What the library takes from outside cxltier's own sysfs tree, as plain data: the
// CXL topology (memdevs, regions and their targets, as libcxl and libdaxctl see
// them) and the NUMA nodes (as libnuma sees them).  A snapshot joins these with
// cxltier's state.  libcxl and libnuma read the real /sys and honour no root
// override, so the source is an interface: platform_libcxl.cpp and
// platform_libnuma.cpp fill it on a real system, a fake fills it in host tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cxltier.h"
#include "result.hpp"

namespace cxltier::internal {

// A CXL memory device (a blade, when cxltier lists it).
struct cxl_memdev_data {
	std::string name;	     // "mem0"
	std::uint64_t serial = 0;    // 0 when the device reports none
	std::uint64_t ram_size = 0;  // bytes
	std::uint64_t pmem_size = 0; // bytes
	std::string host;	     // the PCI device, "0000:0d:00.0"
};

// A CXL region as the CXL core made it.
struct cxl_region_data {
	std::string name; // "region0"
	cxltier_cxl_region_mode mode = CXLTIER_CXL_REGION_MODE_UNKNOWN;
	std::uint64_t start = 0; // host physical address; 0 with size 0 until assigned
	std::uint64_t size = 0;
	unsigned int interleave_ways = 0;
	unsigned int interleave_granularity = 0;
	std::vector<std::string> targets; // memdev names, interleave position order
	// UNCOMMITTED, COMMITTED, DAX or SYSTEM_RAM: what the CXL core and the dax
	// driver say.  TIER is cxltier's word, joined in by the snapshot.
	cxltier_cxl_region_state state = CXLTIER_CXL_REGION_STATE_UNKNOWN;
	int dax_node = -1; // target node of the region's dax device, -1 without one
};

struct cxl_topology {
	std::vector<cxl_memdev_data> memdevs;
	std::vector<cxl_region_data> regions;
};

// A NUMA node, as libnuma reports it.
struct numa_node_data {
	int id = -1;
	std::uint64_t mem_total = 0; // bytes
	std::uint64_t mem_free = 0;  // bytes
	unsigned int nr_cpus = 0;
};

class platform_source {
public:
	virtual ~platform_source() = default;

	// Every CXL memdev and region on the system.  No CXL (no cxl_bus) is empty,
	// not an error.
	virtual result<cxl_topology> read_cxl() = 0;

	// Every NUMA node that is online now, in id order.  @known: node ids the
	// caller learnt elsewhere (cxltier's tiers), looked at even if the source
	// saw no such node when it started (a tier added since).
	virtual result<std::vector<numa_node_data>> read_nodes(const std::vector<int> &known) = 0;
};

// The source a new context reads: libcxl, libdaxctl and libnuma in the library
// (platform_default.cpp); the host tests link a fake in its place.
std::unique_ptr<platform_source> make_platform_source();

// The real sources, for make_platform_source().
result<cxl_topology> read_cxl_libcxl();
result<std::vector<numa_node_data>> read_nodes_libnuma(const std::vector<int> &known);

} // namespace cxltier::internal
