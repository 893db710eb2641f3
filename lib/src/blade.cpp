// SPDX-License-Identifier: GPL-2.0
// Blades: the blades/<memdev>/ objects of a snapshot, and taking a blade out of
// service and back through blade_fence, blade_drain and blade_restore.
#include "blade.hpp"

#include <algorithm>
#include <cerrno>

#include "ctx.hpp"
#include "export.hpp"
#include "tier.hpp"

namespace cxltier::internal {

namespace {

// The kernel's limit for blade names (CXLTIER_BLADE_NAME_MAX, NUL included).
constexpr std::size_t max_blade_name = 31;

// Names in enum order, as the ABI document spells the state file's text.
constexpr const char *state_names[] = {"unknown",	 "online", "offline", "draining",
				       "out-of-service", "fenced"};

cxltier_blade_state parse_state(const std::string &s)
{
	// Unknown text is not an error: a newer module may report states this
	// library has no name for, and everything else about the blade is still valid.
	for (std::size_t i = 1; i < std::size(state_names); i++)
		if (s == state_names[i])
			return static_cast<cxltier_blade_state>(i);
	return CXLTIER_BLADE_STATE_UNKNOWN;
}

// The kernel takes the first word of a write as the name, so a name with a blank,
// or one it would truncate, must not reach it.
std::optional<error> check_blade_name(const char *blade)
{
	if (!blade || !*blade)
		return error{-EINVAL, "no blade name given (such as mem0)"};
	std::string_view name(blade);
	std::string why;
	if (name.find_first_of(" \t\n\r\v\f") != std::string_view::npos)
		why = "it contains whitespace";
	else if (std::any_of(name.begin(), name.end(), [](char c) {
			 return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
		 }))
		why = "it contains control characters";
	else if (name.size() > max_blade_name)
		why = "longer than " + std::to_string(max_blade_name) + " bytes";
	else
		return std::nullopt;
	return error{-EINVAL, quote_value(name) + " is not a blade name: " + why};
}

// The tiers with memory on @blade as the module listed them, "region0, region2".
std::string tiers_on(cxltier_ctx *ctx, const char *blade)
{
	std::string out;
	if (const cxltier_blade *b = cxltier_blade_get_by_name(ctx, blade))
		for (const char *const *t = b->tiers.c_array(); *t; t++)
			out += (out.empty() ? "" : ", ") + std::string(*t);
	return out;
}

struct blade_verb {
	const char *file; // under the sysfs root
	const char *ing;  // "fencing"
};

constexpr blade_verb fence_verb{"blade_fence", "fencing"};
constexpr blade_verb drain_verb{"blade_drain", "draining"};
constexpr blade_verb restore_verb{"blade_restore", "restoring"};

// Why a write of @blade for @verb failed with @err, in one line: the errno as the
// ABI document defines it for that file.  @known: the blade is in the snapshot;
// @tiers: the tiers of the snapshot with memory on it.
std::string write_reason(const blade_verb &verb, const std::string &b, int err, bool known,
			 const std::string &tiers)
{
	const std::string unknown = "no blade " + b + " (see cxltierctl blade list)";
	switch (-err) {
	case EACCES:
	case EPERM:
		return std::string(verb.ing) + " " + b + " needs root";
	case ENOENT:
		if (!known)
			return unknown;
		if (&verb == &restore_verb)
			return "the module has nothing of " + b + " to restore (no tier has memory on it)";
		return "no tier has memory on " + b + ": nothing to " +
		       (&verb == &fence_verb ? "fence" : "drain");
	}
	if (&verb == &fence_verb) {
		if (err == -EALREADY)
			return b + " is fenced already";
	} else if (&verb == &drain_verb) {
		switch (-err) {
		case EALREADY:
			return b + " is out of service already (cxltierctl blade restore " + b +
			       " puts it back)";
		case EBUSY:
			return "a drain of " + b + " is running already";
		case EIO:
			return b + " is fenced: its pages are lost and there is nothing to drain";
		case ENOSPC:
			return "the rest of the pool has no room for the pages of " + b +
			       "; nothing was changed";
		case EINTR:
			return "draining " + b + " was interrupted by a signal: " + b +
			       " is online again; the pages moved so far stay where they went";
		}
	} else {
		switch (-err) {
		case EALREADY:
			return b + " is in service already (online)";
		case EBUSY: {
			const bool several = tiers.find(',') != std::string::npos;
			if (tiers.empty())
				return b + " is fenced and a tier still has memory on it: remove the tier "
					   "first (cxltierctl tier remove)";
			return b + " is fenced and " + tiers + (several ? " still have" : " still has") +
			       " memory on it: remove " + (several ? "those tiers" : "that tier") +
			       " first (cxltierctl tier remove)";
		}
		}
	}
	return std::string(verb.ing) + " " + b + " failed: " + errno_text(-err) +
	       " (the kernel log says why: dmesg | grep cxltier)";
}

int blade_write(cxltier_ctx *ctx, const blade_verb &verb, const char *blade)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_blade_name(blade))
			return fail(ctx, *bad);
		fs::path file = fs::path(ctx->root) / verb.file;
		write_result w = write_attr(file, blade);
		if (w.err == 0)
			return 0;
		// EACCES and EPERM from open() mean "needs root", which the reason says.
		if (!w.opened && w.err == -ENOENT) {
			std::error_code ec;
			if (!fs::exists(ctx->root, ec))
				return fail(ctx, {-ENOENT, "cxltier module not loaded (" + ctx->root +
								   " missing)"});
			return fail(ctx, {-EOPNOTSUPP, file.string() + " missing: this cxltier module "
								       "predates " +
								       verb.ing + " blades"});
		}
		if (!w.opened && w.err != -EACCES && w.err != -EPERM)
			return fail(ctx, {w.err, file.string() + ": cannot open: " + errno_text(-w.err)});
		bool known = cxltier_blade_get_by_name(ctx, blade) != nullptr;
		return fail(ctx, {w.err, write_reason(verb, blade, w.err, known, tiers_on(ctx, blade))});
	});
}

} // namespace

result<cxltier_blade> load_blade(cxltier_ctx *ctx, const fs::path &dir)
{
	attr_reader r(dir);
	cxltier_blade b{
		.ctx = ctx,
		.name = dir.filename().string(),
		.serial = 0,
		.ram_size = 0,
		.pmem_size = 0,
		.pci_dev = {},
		.cxl_regions = {},
		.state = parse_state(r.text("state")),
		.tiers = name_list(r.words("tiers")),
		.fenced_pages = r.optional_u64_dec("fenced_pages"),
		.fence_us = r.optional_u64_dec("fence_us"),
		.drained_pages = r.optional_u64_dec("drained_pages"),
		.drain_left = r.optional_u64_dec("drain_left"),
		.drain_us = r.optional_u64_dec("drain_us"),
		.poisoned_pages = r.optional_u64_dec("poisoned_pages"),
	};
	if (r.failure())
		return *r.failure();
	return b;
}

void join_blade(cxltier_blade &b, const cxl_topology &topo)
{
	for (const auto &m : topo.memdevs) {
		if (m.name != b.name)
			continue;
		b.serial = m.serial;
		b.ram_size = m.ram_size;
		b.pmem_size = m.pmem_size;
		b.pci_dev = m.host;
		break;
	}
	std::vector<std::string> regions; // topo's order: natural name order
	for (const auto &r : topo.regions)
		if (std::find(r.targets.begin(), r.targets.end(), b.name) != r.targets.end())
			regions.push_back(r.name);
	b.cxl_regions = name_list(std::move(regions));
}

} // namespace cxltier::internal

using namespace cxltier::internal;

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
	return snapshot_next(blade->ctx->snap->blades, blade);
}

CXLTIER_EXPORT cxltier_blade *cxltier_blade_get_by_name(cxltier_ctx *ctx, const char *name)
{
	if (!ctx || !name)
		return nullptr;
	return snapshot_find(ctx->snap->blades, name);
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
	auto i = static_cast<unsigned int>(state);
	return i < std::size(state_names) ? state_names[i] : "unknown";
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_fenced_pages(const cxltier_blade *blade)
{
	return blade->fenced_pages.value_or(0);
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_fence_us(const cxltier_blade *blade)
{
	return blade->fence_us.value_or(0);
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_drained_pages(const cxltier_blade *blade)
{
	return blade->drained_pages.value_or(0);
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_drain_left(const cxltier_blade *blade)
{
	return blade->drain_left.value_or(0);
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_drain_us(const cxltier_blade *blade)
{
	return blade->drain_us.value_or(0);
}

CXLTIER_EXPORT uint64_t cxltier_blade_get_poisoned_pages(const cxltier_blade *blade)
{
	return blade->poisoned_pages.value_or(0);
}

CXLTIER_EXPORT int cxltier_blade_has_recovery_counters(const cxltier_blade *blade)
{
	return blade->fenced_pages || blade->fence_us || blade->drained_pages ||
	       blade->drain_left || blade->drain_us || blade->poisoned_pages;
}

CXLTIER_EXPORT int cxltier_blade_fence(cxltier_ctx *ctx, const char *blade)
{
	return blade_write(ctx, fence_verb, blade);
}

CXLTIER_EXPORT int cxltier_blade_drain(cxltier_ctx *ctx, const char *blade)
{
	return blade_write(ctx, drain_verb, blade);
}

CXLTIER_EXPORT int cxltier_blade_restore(cxltier_ctx *ctx, const char *blade)
{
	return blade_write(ctx, restore_verb, blade);
}
