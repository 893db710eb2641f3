// SPDX-License-Identifier: GPL-2.0
#include "blade.hpp"

#include "ctx.hpp"
#include "export.hpp"

namespace cxltier::internal {

namespace {

cxltier_blade_state parse_state(const std::string &s)
{
	// Unknown text is not an error: a newer module may report states this
	// library has no name for, and everything else about the blade is still valid.
	if (s == "online")
		return CXLTIER_BLADE_STATE_ONLINE;
	if (s == "offline")
		return CXLTIER_BLADE_STATE_OFFLINE;
	return CXLTIER_BLADE_STATE_UNKNOWN;
}

} // namespace

result<cxltier_blade> load_blade(cxltier_ctx *ctx, const fs::path &dir)
{
	attr_reader r(dir);
	cxltier_blade b{
		.ctx = ctx,
		.name = dir.filename().string(),
		.serial = r.u64_hex("serial"),
		.ram_size = r.u64_dec("ram_size"),
		.pmem_size = r.u64_dec("pmem_size"),
		.pci_dev = r.text("pci_dev"),
		.state = parse_state(r.text("state")),
		.cxl_regions = name_list(r.words("cxl_regions")),
	};
	if (r.failure())
		return *r.failure();
	return b;
}

} // namespace cxltier::internal

CXLTIER_EXPORT cxltier_blade *cxltier_blade_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->blades.empty())
		return nullptr;
	return ctx->snap->blades.data();
}

CXLTIER_EXPORT cxltier_blade *cxltier_blade_get_next(cxltier_blade *blade)
{
	if (!blade)
		return nullptr;
	auto &all = blade->ctx->snap->blades;
	auto next = static_cast<std::size_t>(blade - all.data()) + 1;
	return next < all.size() ? &all[next] : nullptr;
}

CXLTIER_EXPORT cxltier_blade *cxltier_blade_get_by_name(cxltier_ctx *ctx, const char *name)
{
	if (!ctx || !name)
		return nullptr;
	for (auto &b : ctx->snap->blades)
		if (b.name == name)
			return &b;
	return nullptr;
}

CXLTIER_EXPORT cxltier_ctx *cxltier_blade_get_ctx(const cxltier_blade *blade)
{
	return blade->ctx;
}

CXLTIER_EXPORT const char *cxltier_blade_get_name(const cxltier_blade *blade)
{
	return blade->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_serial(const cxltier_blade *blade)
{
	return blade->serial;
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_ram_size(const cxltier_blade *blade)
{
	return blade->ram_size;
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_pmem_size(const cxltier_blade *blade)
{
	return blade->pmem_size;
}

CXLTIER_EXPORT const char *cxltier_blade_get_pci_dev(const cxltier_blade *blade)
{
	return blade->pci_dev.c_str();
}

CXLTIER_EXPORT cxltier_blade_state cxltier_blade_get_state(const cxltier_blade *blade)
{
	return blade->state;
}

CXLTIER_EXPORT const char *const *cxltier_blade_get_cxl_regions(const cxltier_blade *blade,
								size_t *count)
{
	if (count)
		*count = blade->cxl_regions.size();
	return blade->cxl_regions.c_array();
}

CXLTIER_EXPORT const char *cxltier_blade_state_name(cxltier_blade_state state)
{
	switch (state) {
	case CXLTIER_BLADE_STATE_ONLINE:
		return "online";
	case CXLTIER_BLADE_STATE_OFFLINE:
		return "offline";
	case CXLTIER_BLADE_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}
