// SPDX-License-Identifier: GPL-2.0
// Context life cycle, refresh and error reporting: the C entry points that are not
// about one kind of object.
#include "ctx.hpp"

#include <cerrno>
#include <new>

#include "export.hpp"

namespace cxltier::internal {

namespace {

// Why the calling thread's last cxltier_new() failed; there is no context to hold it.
thread_local std::string new_error;

// Storing a message can itself run out of memory; the message is then left empty.
void set_message(std::string &dst, const char *msg) noexcept
{
	try {
		dst = msg;
	} catch (...) {
		dst.clear();
	}
}

// No exception may cross the C ABI.  The library's own failures are results, so
// what is left is allocation failure (or a bug), reported in @msg.
template <class F> int guarded(std::string &msg, F &&f) noexcept
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		set_message(msg, "out of memory");
		return -ENOMEM;
	} catch (...) {
		set_message(msg, "internal error in libcxltier");
		return -EIO;
	}
}

} // namespace

int fail(cxltier_ctx *ctx, error err)
{
	ctx->last_error = std::move(err.msg);
	return err.code;
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_new(cxltier_ctx **out)
{
	if (!out)
		return -EINVAL;
	*out = nullptr;
	return guarded(new_error, [&] {
		auto ctx = std::make_unique<cxltier_ctx>();
		ctx->root = sysfs_root().string();
		ctx->platform = make_platform_source();
		auto snap = load_snapshot(ctx.get(), ctx->root);
		if (!snap) {
			new_error = snap.err().msg;
			return snap.err().code;
		}
		ctx->snap = std::move(snap).value();
		*out = ctx.release();
		return 0;
	});
}

CXLTIER_EXPORT cxltier_ctx *cxltier_ref(cxltier_ctx *ctx)
{
	if (ctx)
		ctx->refs.fetch_add(1, std::memory_order_relaxed);
	return ctx;
}

CXLTIER_EXPORT void cxltier_unref(cxltier_ctx *ctx)
{
	if (!ctx)
		return;
	// acq_rel: the thread that frees must see every other owner's writes.
	if (ctx->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
		std::unique_ptr<cxltier_ctx> last(ctx); // adopts what cxltier_new() released
}

CXLTIER_EXPORT int cxltier_refresh(cxltier_ctx *ctx)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		auto snap = load_snapshot(ctx, ctx->root);
		if (!snap)
			return fail(ctx, std::move(snap).err());
		ctx->snap = std::move(snap).value();
		return 0;
	});
}

CXLTIER_EXPORT const char *cxltier_get_sysfs_root(const cxltier_ctx *ctx)
{
	return ctx->root.c_str();
}

CXLTIER_EXPORT unsigned int cxltier_get_abi_version(const cxltier_ctx *ctx)
{
	return ctx->snap->abi_version;
}

CXLTIER_EXPORT const char *cxltier_get_last_error(const cxltier_ctx *ctx)
{
	return ctx ? ctx->last_error.c_str() : new_error.c_str();
}

CXLTIER_EXPORT const char *cxltier_strerror(int err)
{
	int e = err < 0 ? -err : err;
	// Errors whose generic text would mislead here get the library's meaning.
	switch (e) {
	case 0:
		return "Success";
	case EBADMSG:
		return "Malformed data in the cxltier sysfs tree";
	case EPROTONOSUPPORT:
		return "Unsupported cxltier sysfs ABI version";
	}
	return errno_text(e);
}
