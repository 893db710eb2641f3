// SPDX-License-Identifier: GPL-2.0
// Pools: the pools/<region>/ objects of a snapshot, and formatting one through the
// module's pool_format command file.
#include "pool.hpp"

#include <algorithm>
#include <cerrno>

#include "ctx.hpp"
#include "export.hpp"
#include "tier.hpp"

namespace cxltier::internal {

namespace {

// Names in enum order, as the ABI document spells the state file's text.
constexpr const char *state_names[] = {"unknown", "unformatted", "online",   "bad",
				       "lost",    "busy",	"degraded", "uncommitted"};

cxltier_pool_state parse_state(const std::string &s)
{
	// A newer module may report states this library has no name for.
	for (std::size_t i = 1; i < std::size(state_names); i++)
		if (s == state_names[i])
			return static_cast<cxltier_pool_state>(i);
	return CXLTIER_POOL_STATE_UNKNOWN;
}

// CXLTIER_POOL_NAME_MAX with its NUL.
constexpr std::size_t max_pool_name = 23;

} // namespace

std::optional<error> check_pool_name(const char *pool)
{
	if (!pool || !*pool)
		return error{-EINVAL, "no pool name given (such as region3)"};
	std::string_view name(pool);
	if (name.size() > max_pool_name)
		return error{-EINVAL, quote_value(name) + " is not a pool name: longer than " +
					      std::to_string(max_pool_name) + " bytes"};
	for (char c : name)
		if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f || c == '/')
			return error{-EINVAL, quote_value(name) +
						      " is not a pool name: blanks, '/' or control "
						      "characters"};
	return std::nullopt;
}

namespace {

std::string format_reason(const std::string &p, int err, bool known)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return "formatting " + p + " needs root";
	case ENOENT:
	case ENODEV:
		return "no CXL pmem region " + p + " (see cxltierctl pool list)";
	case EEXIST:
		return p + " holds a pool, or data that is not one; formatting it destroys "
			   "every persistent region on it (force it: cxltierctl pool format " + p + " --force)";
	case EBUSY:
		return p + " is busy: a pool with persistent regions (destroy them first), or its "
			   "memory is claimed or not committed";
	case EINVAL:
		if (!known)
			return "no pool " + p + " (see cxltierctl pool list)";
		break;
	}
	return "formatting " + p + " failed: " + errno_text(-err) +
	       " (the kernel log says why: dmesg | grep cxltier)";
}

} // namespace

result<cxltier_pool> load_pool(cxltier_ctx *ctx, const fs::path &dir)
{
	attr_reader r(dir);
	std::uint64_t regions = 0;
	cxltier_pool p{
		.ctx = ctx,
		.name = dir.filename().string(),
		.state = parse_state(r.text("state")),
		.size = r.u64_dec("size"),
		.free = r.u64_dec("free"),
		.regions = 0,
		.blades = {},
		.uuid = r.text("uuid"),
		.format = r.text("format"),
		.error = r.text("error"),
	};
	regions = r.u64_dec("regions");
	auto blades = r.words("blades");
	if (r.failure())
		return *r.failure();
	p.blades = name_list(std::move(blades));
	p.regions = static_cast<unsigned int>(std::min<std::uint64_t>(regions, UINT32_MAX));
	return p;
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->pools.empty())
		return nullptr;
	return ctx->snap->pools.data();
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_next(cxltier_pool *pool)
{
	if (!pool)
		return nullptr;
	return snapshot_next(pool->ctx->snap->pools, pool);
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_by_name(cxltier_ctx *ctx, const char *name)
{
	if (!ctx || !name)
		return nullptr;
	return snapshot_find(ctx->snap->pools, name);
}

CXLTIER_EXPORT cxltier_ctx *cxltier_pool_get_ctx(const cxltier_pool *pool)
{
	return pool->ctx;
}

CXLTIER_EXPORT const char *cxltier_pool_get_name(const cxltier_pool *pool)
{
	return pool->name.c_str();
}

CXLTIER_EXPORT cxltier_pool_state cxltier_pool_get_state(const cxltier_pool *pool)
{
	return pool->state;
}

CXLTIER_EXPORT uint64_t cxltier_pool_get_size(const cxltier_pool *pool)
{
	return pool->size;
}

CXLTIER_EXPORT uint64_t cxltier_pool_get_free(const cxltier_pool *pool)
{
	return pool->free;
}

CXLTIER_EXPORT unsigned int cxltier_pool_get_nr_regions(const cxltier_pool *pool)
{
	return pool->regions;
}

CXLTIER_EXPORT const char *const *cxltier_pool_get_blades(const cxltier_pool *pool, size_t *count)
{
	if (count)
		*count = pool->blades.size();
	return pool->blades.c_array();
}

CXLTIER_EXPORT const char *cxltier_pool_get_uuid(const cxltier_pool *pool)
{
	return pool->uuid.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_get_format(const cxltier_pool *pool)
{
	return pool->format.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_get_error(const cxltier_pool *pool)
{
	return pool->error.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_state_name(cxltier_pool_state state)
{
	auto i = static_cast<unsigned int>(state);
	return i < std::size(state_names) ? state_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_pool_format(cxltier_ctx *ctx, const char *pool, unsigned int flags)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_pool_name(pool))
			return fail(ctx, *bad);
		if (flags & ~static_cast<unsigned int>(CXLTIER_POOL_FORMAT_FORCE))
			return fail(ctx, {-EINVAL, "unknown pool format flags " + std::to_string(flags)});
		fs::path file = fs::path(ctx->root) / "pool_format";
		std::string value = pool;
		if (flags & CXLTIER_POOL_FORMAT_FORCE)
			value += " force";
		write_result w = write_attr(file, value);
		if (w.err == 0)
			return 0;
		if (!w.opened && w.err == -ENOENT) {
			std::error_code ec;
			if (!fs::exists(ctx->root, ec))
				return fail(ctx, {-ENOENT, "cxltier module not loaded (" + ctx->root +
								   " missing)"});
			return fail(ctx, {-EOPNOTSUPP, file.string() + " missing: this cxltier module "
								       "has no pools"});
		}
		if (!w.opened && w.err != -EACCES && w.err != -EPERM)
			return fail(ctx, {w.err, file.string() + ": cannot open: " + errno_text(-w.err)});
		bool known = cxltier_pool_get_by_name(ctx, pool) != nullptr;
		return fail(ctx, {w.err, format_reason(pool, w.err, known)});
	});
}
