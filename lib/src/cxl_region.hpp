// SPDX-License-Identifier: GPL-2.0
// A CXL region as the CXL core made it (libcxl, platform.hpp), with what cxltier
// adds: whether it is a tier, and then its node.  (Global regions, the module's
// own, are a different object.)
#pragma once

#include <cstdint>
#include <string>

#include "cxltier.h"
#include "name_list.hpp"
#include "platform.hpp"
#include "tier.hpp"

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

// @data joined with @tiers: a region that is a tier reads TIER and the tier's node;
// any other the node of its dax device, if it has one.
cxltier_cxl_region make_cxl_region(cxltier_ctx *ctx, const cxl_region_data &data,
				   const std::vector<cxltier_tier> &tiers);

} // namespace cxltier::internal
