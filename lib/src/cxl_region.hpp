// SPDX-License-Identifier: GPL-2.0
// A CXL region as the CXL core made it, from /sys/kernel/cxltier/cxl_regions/<region>/.
// (Global regions, the module's own, are a different object.)
#pragma once

#include <cstdint>
#include <string>

#include "cxltier.h"
#include "name_list.hpp"
#include "sysfs.hpp"

struct cxltier_cxl_region {
	cxltier_ctx *ctx;
	std::string name;
	cxltier_cxl_region_mode mode;
	std::uint64_t start;
	std::uint64_t size;
	unsigned int interleave_ways;
	unsigned int interleave_granularity;
	cxltier::internal::name_list blades; // interleave position order
	int numa_node;
	cxltier_cxl_region_state state;
};

namespace cxltier::internal {

result<cxltier_cxl_region> load_cxl_region(cxltier_ctx *ctx, const fs::path &dir);

} // namespace cxltier::internal
