// SPDX-License-Identifier: GPL-2.0
// Why a tier_add or tier_remove write failed, in one line: the errno as the ABI
// document (Documentation/ABI/testing/sysfs-kernel-cxltier) defines it for that
// file, with the fix where there is one.  Pure functions, so every errno can be
// tested without a kernel.
#pragma once

#include <string>
#include <string_view>

#include "cxltier.h"

namespace cxltier::internal {

// What is known about the CXL region a write named: an EBUSY or EINVAL from
// tier_add means different things for a dax region and a pmem one.
struct region_facts {
	bool known = false; // false: the region is not in the tree (or not readable)
	std::string mode;   // "ram", "pmem", ...
	cxltier_cxl_region_state state = CXLTIER_CXL_REGION_STATE_UNKNOWN;
};

// @err is the negative errno of the write; @adistance what was asked (0: automatic).
std::string tier_add_reason(std::string_view region, int adistance, int err,
			    const region_facts &facts);
std::string tier_remove_reason(std::string_view region, int err);

} // namespace cxltier::internal
