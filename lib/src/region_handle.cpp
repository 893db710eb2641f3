// SPDX-License-Identifier: GPL-2.0
// Global handles: the encoding, and the process-wide registry of mapped regions
// that turns handles into addresses and back.  The registry is read under a shared
// lock, so resolving handles from many threads does not serialize; it is written
// when a region is mapped or unmapped.
#include <cerrno>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include <linux/cxltier.h>

#include "ctx.hpp"
#include "export.hpp"
#include "recovery.hpp"
#include "region.hpp"

namespace cxltier::internal {

namespace {

struct registry {
	std::shared_mutex lock;
	// Mapped regions by start address, for cxltier_handle_from_addr().
	std::map<std::uintptr_t, cxltier_region *> by_addr;
	// Mapped regions by id; the first is the one handles resolve to.
	std::unordered_map<std::uint32_t, std::vector<cxltier_region *>> by_id;
	// Regions cxltier_handle_resolve() opened and mapped itself.
	std::vector<cxltier_region *> cached;
};

// Never destroyed: regions may be unmapped from other static destructors at exit.
registry &reg()
{
	static registry *r = new registry;
	return *r;
}

} // namespace

void registry_add(cxltier_region *region)
{
	registry &r = reg();
	std::unique_lock guard(r.lock);
	r.by_addr.emplace(reinterpret_cast<std::uintptr_t>(region->addr), region);
	try {
		r.by_id[region->id].push_back(region);
	} catch (...) {
		r.by_addr.erase(reinterpret_cast<std::uintptr_t>(region->addr));
		throw;
	}
	fence_table_add(region);
}

void registry_remove(cxltier_region *region)
{
	fence_table_remove(region);
	registry &r = reg();
	std::unique_lock guard(r.lock);
	r.by_addr.erase(reinterpret_cast<std::uintptr_t>(region->addr));
	auto it = r.by_id.find(region->id);
	if (it == r.by_id.end())
		return;
	std::erase(it->second, region);
	if (it->second.empty())
		r.by_id.erase(it);
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_handle_make(uint32_t id, uint64_t offset, uint64_t *handle)
{
	if (!handle || !id || id > CXLTIER_REGION_ID_MAX || offset > CXLTIER_HANDLE_OFFSET_MASK)
		return -EINVAL;
	*handle = static_cast<uint64_t>(id) << CXLTIER_HANDLE_ID_SHIFT | offset;
	return 0;
}

CXLTIER_EXPORT uint32_t cxltier_handle_get_id(uint64_t handle)
{
	return static_cast<uint32_t>(handle >> CXLTIER_HANDLE_ID_SHIFT);
}

CXLTIER_EXPORT uint64_t cxltier_handle_get_offset(uint64_t handle)
{
	return handle & CXLTIER_HANDLE_OFFSET_MASK;
}

CXLTIER_EXPORT int cxltier_handle_from_addr(cxltier_ctx *ctx, const void *addr, uint64_t *handle)
{
	if (!ctx || !handle)
		return -EINVAL;
	auto a = reinterpret_cast<std::uintptr_t>(addr);
	registry &r = reg();
	{
		std::shared_lock guard(r.lock);
		auto it = r.by_addr.upper_bound(a);
		if (it != r.by_addr.begin()) {
			--it;
			cxltier_region *region = it->second;
			if (a - it->first < region->size)
				return cxltier_handle_make(region->id, a - it->first, handle);
		}
	}
	try {
		ctx->last_error = "handle of " + std::to_string(a) +
				  ": the address is in no region mapped through libcxltier";
	} catch (...) {
	}
	return -ENOENT;
}

namespace {

// The address of @handle in a mapped region, or nullptr; -EINVAL past its end.
int lookup(std::uint64_t handle, void **addr)
{
	registry &r = reg();
	std::shared_lock guard(r.lock);
	auto it = r.by_id.find(cxltier_handle_get_id(handle));
	if (it == r.by_id.end())
		return -ENOENT;
	cxltier_region *region = it->second.front();
	std::uint64_t off = cxltier_handle_get_offset(handle);
	if (off >= region->size)
		return -EINVAL;
	*addr = static_cast<char *>(region->addr) + off;
	return 0;
}

} // namespace

CXLTIER_EXPORT int cxltier_handle_resolve(cxltier_ctx *ctx, uint64_t handle, void **addr)
{
	if (!ctx || !addr)
		return -EINVAL;
	try {
		std::uint32_t id = cxltier_handle_get_id(handle);
		int rc = lookup(handle, addr);
		if (rc == -ENOENT && id) {
			// Not mapped here yet: open it by id, read-write if the mode allows.
			auto opened = open_region_by_id(ctx, id, CXLTIER_REGION_RDWR);
			if (!opened && opened.err().code == -EACCES)
				opened = open_region_by_id(ctx, id, CXLTIER_REGION_READ);
			if (!opened)
				return fail(ctx, std::move(opened).err());
			cxltier_region *region = *opened;
			void *base;
			rc = cxltier_region_map(region, &base);
			if (rc) {
				ctx->last_error = region->ctx->last_error;
				cxltier_region_close(region);
				return rc;
			}
			region->cached = true;
			{
				registry &r = reg();
				std::unique_lock guard(r.lock);
				r.cached.push_back(region);
			}
			rc = lookup(handle, addr);
		}
		if (rc == -ENOENT)
			return fail(ctx, error{-ENOENT, "handle " + std::to_string(handle) +
							       ": no region has id " +
							       std::to_string(id)});
		if (rc == -EINVAL)
			return fail(ctx, error{-EINVAL, "handle " + std::to_string(handle) +
								": offset " +
								std::to_string(cxltier_handle_get_offset(handle)) +
								" is past the end of region id " +
								std::to_string(id)});
		return rc;
	} catch (...) {
		return -ENOMEM;
	}
}

CXLTIER_EXPORT void cxltier_handle_cache_clear(void)
{
	std::vector<cxltier_region *> cached;
	{
		registry &r = reg();
		std::unique_lock guard(r.lock);
		cached.swap(r.cached);
	}
	for (cxltier_region *region : cached)
		cxltier_region_close(region);
}
