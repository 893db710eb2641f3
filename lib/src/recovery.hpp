// SPDX-License-Identifier: GPL-2.0
// The table of mapped regions that the SIGBUS handler reads (recovery.cpp): the
// registry of region_handle.cpp keeps it up to date as regions are mapped and
// unmapped.
#pragma once

#include "region.hpp"

namespace cxltier::internal {

// Enter @region's mapping (region->addr, region->size) in the table; nothing when
// the table is full (the mapping then gets the previous SIGBUS action).
void fence_table_add(const cxltier_region *region) noexcept;
// Forget the mapping at region->addr; before it is unmapped.
void fence_table_remove(const cxltier_region *region) noexcept;

} // namespace cxltier::internal
