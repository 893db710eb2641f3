// SPDX-License-Identifier: GPL-2.0
// One consistent reading of cxltier's sysfs tree joined with the CXL topology and
// the NUMA nodes (platform.hpp).  A context swaps in a new snapshot only once it
// has been read completely, so a failed refresh leaves the old one usable.
#pragma once

#include <memory>
#include <vector>

#include "blade.hpp"
#include "cxl_region.hpp"
#include "pool.hpp"
#include "tier.hpp"

namespace cxltier::internal {

struct snapshot {
	unsigned int abi_version = 0;
	std::vector<cxltier_blade> blades;	      // natural name order
	std::vector<cxltier_cxl_region> cxl_regions; // natural name order, from libcxl
	std::vector<cxltier_tier> tiers;	      // natural name order
	std::vector<cxltier_pool> pools;	      // natural name order; none before pools
	numa_nodes numa;
};

result<std::unique_ptr<snapshot>> load_snapshot(cxltier_ctx *ctx, const fs::path &root);

// The object after @item in its snapshot vector @all, or null at the end: what
// every cxltier_*_get_next() of the C ABI does.
template <typename T> T *snapshot_next(std::vector<T> &all, T *item)
{
	auto next = static_cast<std::size_t>(item - all.data()) + 1;
	return next < all.size() ? &all[next] : nullptr;
}

// The object of @all named @name, or null: every cxltier_*_get_by_name().
template <typename T> T *snapshot_find(std::vector<T> &all, const char *name)
{
	for (auto &x : all)
		if (x.name == name)
			return &x;
	return nullptr;
}

} // namespace cxltier::internal
