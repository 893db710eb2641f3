// SPDX-License-Identifier: GPL-2.0
// What an application tells the migration daemon about a range of an open region
// (CXLTIER_IOC_HINT), and where each page of a range is now (CXLTIER_IOC_PAGES).
// Both go through the region's own file descriptor, so they work for whoever
// holds it, also after the region was destroyed.  Arguments are checked here
// first, so that a mistake gets the library's message naming the value at fault.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <linux/cxltier.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ctx.hpp"
#include "export.hpp"
#include "region.hpp"
#include "sysfs.hpp"

// The C enum and the ABI's numbers are one and the same.
static_assert(CXLTIER_REGION_HINT_NONE == CXLTIER_HINT_NONE);
static_assert(CXLTIER_REGION_HINT_HOT == CXLTIER_HINT_HOT);
static_assert(CXLTIER_REGION_HINT_COLD == CXLTIER_HINT_COLD);
static_assert(CXLTIER_REGION_HINT_PIN == CXLTIER_HINT_PIN);
static_assert(CXLTIER_REGION_PAGE_NONE == CXLTIER_PAGE_NONE);
static_assert(CXLTIER_REGION_PAGE_FENCED == CXLTIER_PAGE_FENCED);
// The caller's int array is the ABI's __s32 array.
static_assert(sizeof(int) == sizeof(__s32));

namespace cxltier::internal {

namespace {

constexpr const char *hint_names[] = {"none", "hot", "cold", "pin"};

std::uint64_t page_size()
{
	return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string quoted(const cxltier_region *region)
{
	return "region '" + region->name + "'";
}

// The reason for an errno of HINT or PAGES on a region file.
error ioctl_error(const cxltier_region *region, const char *verb, int e)
{
	std::string what = std::string(verb) + " " + quoted(region) + ": ";
	switch (e) {
	case ENOTTY:
		return {-EOPNOTSUPP, what + "this cxltier module has no migration daemon (it "
					    "predates hints and page locations)"};
	case EACCES:
	case EPERM:
	case EBADF:
		return {-e, what + "the region file does not allow it (a hint needs a region "
				   "opened for writing)"};
	case EINVAL:
		return {-e, what + "the module refused the request (dynamic debug of cxltier "
				   "logs why)"};
	}
	return {-e, what + errno_text(e)};
}

} // namespace

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_region_set_hint(cxltier_region *region, uint64_t offset, uint64_t length,
					   cxltier_region_hint hint)
{
	if (!region)
		return -EINVAL;
	cxltier_ctx *ctx = region->ctx;
	return guarded(ctx->last_error, [&] {
		std::uint64_t page = page_size();
		std::string what = "hint " + quoted(region) + ": ";
		auto h = static_cast<unsigned int>(hint);
		if (h >= std::size(hint_names))
			return fail(ctx, {-EINVAL, what + "unknown hint " + std::to_string(h) +
							   " (none, hot, cold or pin)"});
		if (offset % page)
			return fail(ctx, {-EINVAL, what + "offset " + std::to_string(offset) +
							   " is not a multiple of the page size (" +
							   std::to_string(page) + ")"});
		if (!length || length % page)
			return fail(ctx, {-EINVAL, what + "length " + std::to_string(length) +
							   " is not a nonzero multiple of the page size (" +
							   std::to_string(page) + ")"});
		if (offset >= region->size || length > region->size - offset)
			return fail(ctx, {-EINVAL, what + "range " + std::to_string(offset) + "+" +
							   std::to_string(length) +
							   " is not within the region (" +
							   std::to_string(region->size) + " bytes)"});
		if (!(region->access & CXLTIER_REGION_WRITE))
			return fail(ctx, {-EACCES, what + "opened read-only; a hint needs a region "
							  "opened for writing (CXLTIER_REGION_RDWR)"});

		struct cxltier_hint arg = {};
		arg.size = sizeof(arg);
		arg.hint = h;
		arg.offset = offset;
		arg.length = length;
		if (::ioctl(region->fd, CXLTIER_IOC_HINT, &arg) < 0)
			return fail(ctx, ioctl_error(region, "hint", errno));
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_region_get_page_nodes(cxltier_region *region, uint64_t offset,
						 size_t count, int *nodes, size_t *reported)
{
	if (!region || !reported)
		return -EINVAL;
	*reported = 0;
	cxltier_ctx *ctx = region->ctx;
	return guarded(ctx->last_error, [&] {
		std::uint64_t page = page_size();
		std::string what = "page nodes of " + quoted(region) + ": ";
		if (count && !nodes)
			return fail(ctx, {-EINVAL, what + "the node array is NULL"});
		if (offset % page)
			return fail(ctx, {-EINVAL, what + "offset " + std::to_string(offset) +
							   " is not a multiple of the page size (" +
							   std::to_string(page) + ")"});
		if (offset >= region->size)
			return fail(ctx, {-EINVAL, what + "offset " + std::to_string(offset) +
							   " is past the end of the region (" +
							   std::to_string(region->size) + " bytes)"});
		// The range is cut at the region's end, as the module cuts it.
		std::uint64_t left = std::min<std::uint64_t>(count, (region->size - offset) / page);
		std::size_t done = 0;
		while (left) {
			struct cxltier_pages arg = {};
			auto chunk = static_cast<__u32>(std::min<std::uint64_t>(left, CXLTIER_PAGES_MAX));
			arg.size = sizeof(arg);
			arg.offset = offset + done * page;
			arg.count = chunk;
			arg.nodes = reinterpret_cast<std::uintptr_t>(nodes + done);
			if (::ioctl(region->fd, CXLTIER_IOC_PAGES, &arg) < 0)
				return fail(ctx, ioctl_error(region, "page nodes of", errno));
			done += std::min(arg.count, chunk);
			left -= std::min(arg.count, chunk);
			if (arg.count < chunk) // the region ends earlier than its size said
				break;
		}
		*reported = done;
		return 0;
	});
}

CXLTIER_EXPORT const char *cxltier_region_hint_name(cxltier_region_hint hint)
{
	auto i = static_cast<unsigned int>(hint);
	return i < std::size(hint_names) ? hint_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_region_hint_from_name(const char *name, cxltier_region_hint *hint)
{
	if (!name || !hint)
		return -EINVAL;
	for (std::size_t i = 0; i < std::size(hint_names); i++) {
		if (!std::strcmp(name, hint_names[i])) {
			*hint = static_cast<cxltier_region_hint>(i);
			return 0;
		}
	}
	return -EINVAL;
}
