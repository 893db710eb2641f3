// SPDX-License-Identifier: GPL-2.0
#include "cxl_region.hpp"

#include "ctx.hpp"
#include "export.hpp"

namespace cxltier::internal {

cxltier_cxl_region make_cxl_region(cxltier_ctx *ctx, const cxl_region_data &data,
				   const std::vector<cxltier_tier> &tiers)
{
	cxltier_cxl_region reg{
		.ctx = ctx,
		.name = data.name,
		.mode = data.mode,
		.start = data.start,
		.size = data.size,
		.interleave_ways = data.interleave_ways,
		.interleave_granularity = data.interleave_granularity,
		.blades = name_list(data.targets),
		.numa_node = data.dax_node,
		.state = data.state,
	};
	for (const auto &t : tiers) {
		if (t.name != data.name)
			continue;
		reg.state = CXLTIER_CXL_REGION_STATE_TIER;
		reg.numa_node = t.node;
	}
	return reg;
}

} // namespace cxltier::internal

CXLTIER_EXPORT cxltier_cxl_region *cxltier_cxl_region_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->cxl_regions.empty())
		return nullptr;
	return ctx->snap->cxl_regions.data();
}

CXLTIER_EXPORT cxltier_cxl_region *cxltier_cxl_region_get_next(cxltier_cxl_region *region)
{
	if (!region)
		return nullptr;
	return cxltier::internal::snapshot_next(region->ctx->snap->cxl_regions, region);
}

CXLTIER_EXPORT cxltier_cxl_region *cxltier_cxl_region_get_by_name(cxltier_ctx *ctx,
								  const char *name)
{
	if (!ctx || !name)
		return nullptr;
	return cxltier::internal::snapshot_find(ctx->snap->cxl_regions, name);
}

CXLTIER_EXPORT cxltier_ctx *cxltier_cxl_region_get_ctx(const cxltier_cxl_region *region)
{
	return region->ctx;
}

CXLTIER_EXPORT const char *cxltier_cxl_region_get_name(const cxltier_cxl_region *region)
{
	return region->name.c_str();
}

CXLTIER_EXPORT cxltier_cxl_region_mode cxltier_cxl_region_get_mode(const cxltier_cxl_region *region)
{
	return region->mode;
}

CXLTIER_EXPORT uint64_t cxltier_cxl_region_get_start(const cxltier_cxl_region *region)
{
	return region->start;
}

CXLTIER_EXPORT uint64_t cxltier_cxl_region_get_size(const cxltier_cxl_region *region)
{
	return region->size;
}

CXLTIER_EXPORT unsigned int cxltier_cxl_region_get_interleave_ways(const cxltier_cxl_region *region)
{
	return region->interleave_ways;
}

CXLTIER_EXPORT unsigned int
cxltier_cxl_region_get_interleave_granularity(const cxltier_cxl_region *region)
{
	return region->interleave_granularity;
}

CXLTIER_EXPORT const char *const *cxltier_cxl_region_get_blades(const cxltier_cxl_region *region,
								size_t *count)
{
	if (count)
		*count = region->blades.size();
	return region->blades.c_array();
}

CXLTIER_EXPORT int cxltier_cxl_region_get_numa_node(const cxltier_cxl_region *region)
{
	return region->numa_node;
}

CXLTIER_EXPORT cxltier_cxl_region_state cxltier_cxl_region_get_state(const cxltier_cxl_region *region)
{
	return region->state;
}

CXLTIER_EXPORT const char *cxltier_cxl_region_mode_name(cxltier_cxl_region_mode mode)
{
	switch (mode) {
	case CXLTIER_CXL_REGION_MODE_RAM:
		return "ram";
	case CXLTIER_CXL_REGION_MODE_PMEM:
		return "pmem";
	case CXLTIER_CXL_REGION_MODE_UNKNOWN:
		break;
	}
	return "unknown";
}

CXLTIER_EXPORT const char *cxltier_cxl_region_state_name(cxltier_cxl_region_state state)
{
	switch (state) {
	case CXLTIER_CXL_REGION_STATE_UNCOMMITTED:
		return "uncommitted";
	case CXLTIER_CXL_REGION_STATE_COMMITTED:
		return "committed";
	case CXLTIER_CXL_REGION_STATE_DAX:
		return "dax";
	case CXLTIER_CXL_REGION_STATE_SYSTEM_RAM:
		return "system-ram";
	case CXLTIER_CXL_REGION_STATE_TIER:
		return "tier";
	case CXLTIER_CXL_REGION_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}
