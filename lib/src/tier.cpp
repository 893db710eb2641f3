// SPDX-License-Identifier: GPL-2.0
// Tiers: the tiers/<region>/ objects of a snapshot with their CXL region's range and
// blades, and registering and removing them through tier_add and tier_remove.
#include "tier.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <unistd.h>

#include "ctx.hpp"
#include "export.hpp"
#include "tier_reason.hpp"

namespace cxltier::internal {

namespace {

// The kernel's limit for names written to tier_add (CXLT_NAME_LEN, NUL included).
constexpr std::size_t max_region_name = 31;

cxltier_adistance_source parse_source(const std::string &s)
{
	// Unknown text is not an error, as for blade states: a newer module may
	// have more sources, and the distance itself is still right.
	if (s == "override")
		return CXLTIER_ADISTANCE_SOURCE_OVERRIDE;
	if (s == "cdat")
		return CXLTIER_ADISTANCE_SOURCE_CDAT;
	if (s == "platform")
		return CXLTIER_ADISTANCE_SOURCE_PLATFORM;
	if (s == "default")
		return CXLTIER_ADISTANCE_SOURCE_DEFAULT;
	return CXLTIER_ADISTANCE_SOURCE_UNKNOWN;
}

// The kernel takes the first word of a write as the name and the rest as options,
// so a name with a blank, or one it would truncate, must not reach it.
std::optional<error> check_region_name(const char *region)
{
	if (!region || !*region)
		return error{-EINVAL, "no CXL region name given (such as region0)"};
	std::string_view name(region);
	std::string why;
	if (name.find_first_of(" \t\n\r\v\f") != std::string_view::npos)
		why = "it contains whitespace";
	else if (std::any_of(name.begin(), name.end(), [](char c) {
			 return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
		 }))
		why = "it contains control characters";
	else if (name.size() > max_region_name)
		why = "longer than " + std::to_string(max_region_name) + " bytes";
	else
		return std::nullopt;
	return error{-EINVAL, quote_value(name) + " is not a CXL region name: " + why};
}

region_facts facts_of(cxltier_ctx *ctx, const char *region)
{
	region_facts f;
	for (const auto &r : ctx->snap->cxl_regions) {
		if (r.name != region)
			continue;
		f.known = true;
		f.mode = cxltier_cxl_region_mode_name(r.mode);
		f.state = r.state;
	}
	return f;
}

// tier_add or tier_remove could not be opened.  Missing, the module is not loaded
// or predates tiers; EACCES and EPERM mean "needs root", which the caller's reason
// says (0 is returned for them); anything else names the file.
int open_failure(cxltier_ctx *ctx, const fs::path &file, int err)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return 0;
	case ENOENT: {
		std::error_code ec;
		if (!fs::exists(ctx->root, ec))
			return fail(ctx, {-ENOENT, "cxltier module not loaded (" + ctx->root + " missing)"});
		return fail(ctx, {-EOPNOTSUPP, file.string() +
						       " missing: this cxltier module cannot register tiers"});
	}
	}
	return fail(ctx, {err, file.string() + ": cannot open: " + errno_text(-err)});
}

} // namespace

void set_reason(std::string &reason, const char *msg) noexcept
{
	try {
		reason = msg;
	} catch (...) {
		reason.clear();
	}
}

write_result write_attr(const fs::path &file, std::string_view value)
{
	// O_TRUNC does nothing to a sysfs attribute; on a test's plain file it leaves
	// exactly what was written.
	int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return {-errno, false};
	write_result res{0, true};
	// One write: a store method sees each write(2) as a whole command.  No retry
	// on EINTR either: the kernel has then stopped (tier_remove) and says so.
	ssize_t n = ::write(fd, value.data(), value.size());
	if (n < 0)
		res.err = -errno;
	else if (static_cast<std::size_t>(n) != value.size())
		res.err = -EIO;
	if (::close(fd) < 0 && res.err == 0)
		res.err = -errno;
	return res;
}

result<cxltier_tier> load_tier(cxltier_ctx *ctx, const fs::path &dir)
{
	attr_reader r(dir);
	cxltier_tier t{
		.ctx = ctx,
		.name = dir.filename().string(),
		.node = static_cast<int>(r.s64_dec("node", 0, INT_MAX)),
		.adistance = static_cast<int>(r.s64_dec("adistance", 0, INT_MAX)),
		.adistance_source = parse_source(r.text("adistance_source")),
		.start = 0,
		.size = 0,
		.blades = {},
		.state = {},
	};
	if (r.failure())
		return *r.failure();
	auto state = read_attr(dir / "state");
	if (state)
		t.state = std::move(*state);
	else if (state.err().code == -ENOENT) // a module older than fencing
		t.state = "online";
	else
		return std::move(state).err();
	return t;
}

void join_tier(cxltier_tier &t, const std::vector<cxl_region_data> &regions,
	       const std::vector<cxltier_blade> &blades)
{
	for (const auto &r : regions) {
		if (r.name != t.name)
			continue;
		t.start = r.start;
		t.size = r.size;
		t.blades = name_list(r.targets);
		return;
	}
	std::vector<std::string> on;
	for (const auto &b : blades)
		for (const char *const *n = b.tiers.c_array(); *n; n++)
			if (t.name == *n)
				on.push_back(b.name);
	t.blades = name_list(std::move(on));
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT cxltier_tier *cxltier_tier_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->tiers.empty())
		return nullptr;
	return ctx->snap->tiers.data();
}

CXLTIER_EXPORT cxltier_tier *cxltier_tier_get_next(cxltier_tier *tier)
{
	if (!tier)
		return nullptr;
	return snapshot_next(tier->ctx->snap->tiers, tier);
}

CXLTIER_EXPORT cxltier_tier *cxltier_tier_get_by_name(cxltier_ctx *ctx, const char *name)
{
	if (!ctx || !name)
		return nullptr;
	return snapshot_find(ctx->snap->tiers, name);
}

CXLTIER_EXPORT cxltier_ctx *cxltier_tier_get_ctx(const cxltier_tier *tier)
{
	return tier->ctx;
}

CXLTIER_EXPORT const char *cxltier_tier_get_name(const cxltier_tier *tier)
{
	return tier->name.c_str();
}

CXLTIER_EXPORT int cxltier_tier_get_node(const cxltier_tier *tier)
{
	return tier->node;
}

CXLTIER_EXPORT int cxltier_tier_get_adistance(const cxltier_tier *tier)
{
	return tier->adistance;
}

CXLTIER_EXPORT cxltier_adistance_source cxltier_tier_get_adistance_source(const cxltier_tier *tier)
{
	return tier->adistance_source;
}

CXLTIER_EXPORT uint64_t cxltier_tier_get_start(const cxltier_tier *tier)
{
	return tier->start;
}

CXLTIER_EXPORT uint64_t cxltier_tier_get_size(const cxltier_tier *tier)
{
	return tier->size;
}

CXLTIER_EXPORT const char *const *cxltier_tier_get_blades(const cxltier_tier *tier, size_t *count)
{
	if (count)
		*count = tier->blades.size();
	return tier->blades.c_array();
}

CXLTIER_EXPORT const char *cxltier_adistance_source_name(cxltier_adistance_source source)
{
	switch (source) {
	case CXLTIER_ADISTANCE_SOURCE_OVERRIDE:
		return "override";
	case CXLTIER_ADISTANCE_SOURCE_CDAT:
		return "cdat";
	case CXLTIER_ADISTANCE_SOURCE_PLATFORM:
		return "platform";
	case CXLTIER_ADISTANCE_SOURCE_DEFAULT:
		return "default";
	case CXLTIER_ADISTANCE_SOURCE_UNKNOWN:
		break;
	}
	return "unknown";
}

CXLTIER_EXPORT int cxltier_tier_add(cxltier_ctx *ctx, const char *region, int adistance)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_region_name(region))
			return fail(ctx, *bad);
		if (adistance < 0 || adistance > CXLTIER_ADISTANCE_MAX)
			return fail(ctx, {-EINVAL, "adistance " + std::to_string(adistance) +
							   " is out of range (1-" +
							   std::to_string(CXLTIER_ADISTANCE_MAX) +
							   ", or 0 to let the module choose)"});
		std::string cmd = region;
		if (adistance > 0)
			cmd += " adistance=" + std::to_string(adistance);

		fs::path file = fs::path(ctx->root) / "tier_add";
		write_result w = write_attr(file, cmd);
		if (w.err == 0)
			return 0;
		if (!w.opened)
			if (int rc = open_failure(ctx, file, w.err))
				return rc;
		return fail(ctx, {w.err, tier_add_reason(region, adistance, w.err,
							  facts_of(ctx, region))});
	});
}

CXLTIER_EXPORT int cxltier_tier_remove(cxltier_ctx *ctx, const char *region)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_region_name(region))
			return fail(ctx, *bad);
		fs::path file = fs::path(ctx->root) / "tier_remove";
		write_result w = write_attr(file, region);
		if (w.err == 0)
			return 0;
		if (!w.opened)
			if (int rc = open_failure(ctx, file, w.err))
				return rc;
		return fail(ctx, {w.err, tier_remove_reason(region, w.err)});
	});
}
