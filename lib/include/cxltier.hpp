// SPDX-License-Identifier: GPL-2.0
// C++20 conveniences over the C ABI in cxltier.h: an owning context pointer and
// ranges over blades, CXL regions and pools, RAII wrappers for global regions,
// placement plans and the other objects the library hands out, and an STL
// allocator over cxltier_alloc.  Header-only; the ABI stays the C one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <span>

#include "cxltier.h"

namespace cxltier {

struct ctx_unref {
	void operator()(cxltier_ctx *ctx) const noexcept { cxltier_unref(ctx); }
};

// Owns one reference to a context.
using ctx_ptr = std::unique_ptr<cxltier_ctx, ctx_unref>;

// cxltier_new() into an owning pointer: null on failure, with the negative errno
// in @err and the reason in cxltier_get_last_error(nullptr).
inline ctx_ptr make_ctx(int &err) noexcept
{
	cxltier_ctx *raw = nullptr;
	err = cxltier_new(&raw);
	return ctx_ptr(raw);
}

// A forward range over a first/next iteration pair of the objects of @P (a
// context's blades, a pool's host records).
template <class P, class T, T *(*First)(P *), T *(*Next)(T *)> class child_range {
public:
	class iterator {
	public:
		using value_type = T *;
		using difference_type = std::ptrdiff_t;

		iterator() = default;
		explicit iterator(T *obj) noexcept : obj_(obj) {}
		T *operator*() const noexcept { return obj_; }
		iterator &operator++() noexcept
		{
			obj_ = Next(obj_);
			return *this;
		}
		iterator operator++(int) noexcept
		{
			iterator old = *this;
			++*this;
			return old;
		}
		bool operator==(const iterator &) const = default;

	private:
		T *obj_ = nullptr;
	};

	explicit child_range(P *parent) noexcept : parent_(parent) {}
	iterator begin() const noexcept { return iterator(First(parent_)); }
	iterator end() const noexcept { return iterator(); }

private:
	P *parent_;
};

// The objects of a context's snapshot.
template <class T, T *(*First)(cxltier_ctx *), T *(*Next)(T *)>
class object_range : public child_range<cxltier_ctx, T, First, Next> {
public:
	using child_range<cxltier_ctx, T, First, Next>::child_range;
};

using blade_range = object_range<cxltier_blade, cxltier_blade_get_first, cxltier_blade_get_next>;
using cxl_region_range = object_range<cxltier_cxl_region, cxltier_cxl_region_get_first,
				      cxltier_cxl_region_get_next>;

// for (cxltier_blade *b : cxltier::blades(ctx)) ...
inline blade_range blades(cxltier_ctx *ctx) noexcept
{
	return blade_range(ctx);
}

inline cxl_region_range cxl_regions(cxltier_ctx *ctx) noexcept
{
	return cxl_region_range(ctx);
}

// The name lists of the C ABI as spans.
inline std::span<const char *const> cxl_regions_of(const cxltier_blade *blade) noexcept
{
	std::size_t n = 0;
	const char *const *names = cxltier_blade_get_cxl_regions(blade, &n);
	return {names, n};
}

inline std::span<const char *const> blades_of(const cxltier_cxl_region *region) noexcept
{
	std::size_t n = 0;
	const char *const *names = cxltier_cxl_region_get_blades(region, &n);
	return {names, n};
}

// --- Tiers -------------------------------------------------------------------

using tier_range = object_range<cxltier_tier, cxltier_tier_get_first, cxltier_tier_get_next>;
using node_range = object_range<cxltier_node, cxltier_node_get_first, cxltier_node_get_next>;

// for (cxltier_tier *t : cxltier::tiers(ctx)) ...
inline tier_range tiers(cxltier_ctx *ctx) noexcept
{
	return tier_range(ctx);
}

inline node_range nodes(cxltier_ctx *ctx) noexcept
{
	return node_range(ctx);
}

inline std::span<const char *const> blades_of(const cxltier_tier *tier) noexcept
{
	std::size_t n = 0;
	const char *const *names = cxltier_tier_get_blades(tier, &n);
	return {names, n};
}

// --- Pools -------------------------------------------------------------------

using pool_range = object_range<cxltier_pool, cxltier_pool_get_first, cxltier_pool_get_next>;
using pool_host_range = child_range<cxltier_pool, cxltier_pool_host, cxltier_pool_host_get_first,
				    cxltier_pool_host_get_next>;
using pool_entry_range = child_range<cxltier_pool, cxltier_pool_entry, cxltier_pool_entry_get_first,
				     cxltier_pool_entry_get_next>;

inline pool_range pools(cxltier_ctx *ctx) noexcept
{
	return pool_range(ctx);
}

// for (cxltier_pool_host *h : cxltier::hosts_of(pool)) ...
inline pool_host_range hosts_of(cxltier_pool *pool) noexcept
{
	return pool_host_range(pool);
}

inline pool_entry_range entries_of(cxltier_pool *pool) noexcept
{
	return pool_entry_range(pool);
}

inline std::span<const char *const> blades_of(const cxltier_pool *pool) noexcept
{
	std::size_t n = 0;
	const char *const *names = cxltier_pool_get_blades(pool, &n);
	return {names, n};
}

// The hosts that have the entry's region open.
inline std::span<const unsigned int> hosts_of(const cxltier_pool_entry *entry) noexcept
{
	std::size_t n = 0;
	const unsigned int *ids = cxltier_pool_entry_get_hosts(entry, &n);
	return {ids, n};
}

struct c_free {
	void operator()(void *p) const noexcept { std::free(p); }
};
// A string the library allocated with malloc() (cxltier_pool_check()'s report).
using c_string_ptr = std::unique_ptr<char, c_free>;

// cxltier_pool_check() with the report owned; its result (problems, or a negative
// errno) in @rc.
inline c_string_ptr check_pool(cxltier_pool *pool, bool repair, int &rc) noexcept
{
	char *report = nullptr;
	rc = cxltier_pool_check(pool, repair, &report);
	return c_string_ptr(report);
}

// --- Global regions ----------------------------------------------------------

struct region_close {
	void operator()(cxltier_region *r) const noexcept { cxltier_region_close(r); }
};
struct region_info_free {
	void operator()(cxltier_region_info *i) const noexcept { cxltier_region_info_free(i); }
};
struct region_list_free {
	void operator()(cxltier_region_list *l) const noexcept { cxltier_region_list_free(l); }
};
struct alloc_destroy {
	void operator()(cxltier_alloc *a) const noexcept { cxltier_alloc_destroy(a); }
};

// Owning pointers: an open region (closed and unmapped at the end), a stat or list
// snapshot, an allocator.
using region_ptr = std::unique_ptr<cxltier_region, region_close>;
using region_info_ptr = std::unique_ptr<cxltier_region_info, region_info_free>;
using region_list_ptr = std::unique_ptr<cxltier_region_list, region_list_free>;
using alloc_ptr = std::unique_ptr<cxltier_alloc, alloc_destroy>;

// The C calls into owning pointers: null on failure, with the negative errno in
// @err and the reason in cxltier_get_last_error(ctx).
inline region_ptr open_region(cxltier_ctx *ctx, const char *name, int access, int &err) noexcept
{
	cxltier_region *raw = nullptr;
	err = cxltier_region_open(ctx, name, access, &raw);
	return region_ptr(raw);
}

inline region_info_ptr stat_region(cxltier_ctx *ctx, const char *name, int &err) noexcept
{
	cxltier_region_info *raw = nullptr;
	err = cxltier_region_stat(ctx, name, &raw);
	return region_info_ptr(raw);
}

inline region_list_ptr list_regions(cxltier_ctx *ctx, int &err) noexcept
{
	cxltier_region_list *raw = nullptr;
	err = cxltier_region_list_new(ctx, &raw);
	return region_list_ptr(raw);
}

inline alloc_ptr make_alloc(cxltier_region *region, std::uint64_t offset, std::uint64_t size,
			    int &err) noexcept
{
	cxltier_alloc *raw = nullptr;
	err = cxltier_alloc_create(region, offset, size, &raw);
	return alloc_ptr(raw);
}

// --- Job placement -------------------------------------------------------------

struct placement_free {
	void operator()(cxltier_placement *p) const noexcept { cxltier_placement_free(p); }
};

// Owns a placement plan.
using placement_ptr = std::unique_ptr<cxltier_placement, placement_free>;

// cxltier_placement_plan() into an owning pointer: null on failure, with the
// negative errno in @err and the reason in cxltier_get_last_error(ctx).
inline placement_ptr plan_placement(cxltier_ctx *ctx, std::uint64_t fast_bytes,
				    std::uint64_t slow_bytes, cxltier_placement_policy policy,
				    int &err) noexcept
{
	cxltier_placement *raw = nullptr;
	err = cxltier_placement_plan(ctx, fast_bytes, slow_bytes, policy, 0, &raw);
	return placement_ptr(raw);
}

// --- The migration daemon ------------------------------------------------------

struct daemon_free {
	void operator()(cxltier_daemon *d) const noexcept { cxltier_daemon_free(d); }
};

// Owns one reading of the daemon's files.
using daemon_ptr = std::unique_ptr<cxltier_daemon, daemon_free>;

// cxltier_daemon_read() into an owning pointer: null on failure, with the negative
// errno in @err and the reason in cxltier_get_last_error(ctx).
inline daemon_ptr read_daemon(cxltier_ctx *ctx, int &err) noexcept
{
	cxltier_daemon *raw = nullptr;
	err = cxltier_daemon_read(ctx, &raw);
	return daemon_ptr(raw);
}

// The heat histogram of @tier ("fast", "slow") as a span; empty when there is none.
inline std::span<const std::uint64_t> heat_of(const cxltier_daemon *d, const char *tier) noexcept
{
	const std::uint64_t *b = cxltier_daemon_get_heat(d, tier);
	return b ? std::span<const std::uint64_t>(b, CXLTIER_HEAT_BUCKETS)
		 : std::span<const std::uint64_t>();
}

// --- The event log -----------------------------------------------------------

struct event_list_free {
	void operator()(cxltier_event_list *l) const noexcept { cxltier_event_list_free(l); }
};

// Owns records read from the event log.
using event_list_ptr = std::unique_ptr<cxltier_event_list, event_list_free>;

// cxltier_event_list_read() into an owning pointer: null on failure, with the
// negative errno in @err and the reason in cxltier_get_last_error(ctx).
inline event_list_ptr read_events(cxltier_ctx *ctx, std::uint64_t seq, unsigned int flags,
				  int &err) noexcept
{
	cxltier_event_list *raw = nullptr;
	err = cxltier_event_list_read(ctx, seq, flags, &raw);
	return event_list_ptr(raw);
}

// The object a handle names, in this process (mapping its region if needed).
template <class T> T *resolve(cxltier_ctx *ctx, std::uint64_t handle, int &err) noexcept
{
	void *p = nullptr;
	err = cxltier_handle_resolve(ctx, handle, &p);
	return static_cast<T *>(p);
}

// A standard allocator over a cxltier_alloc, for containers whose elements live in
// a region: std::vector<int, cxltier::region_allocator<int>> v{region_allocator<int>(a)}.
template <class T> class region_allocator {
public:
	using value_type = T;

	explicit region_allocator(cxltier_alloc *alloc) noexcept : alloc_(alloc) {}
	template <class U>
	region_allocator(const region_allocator<U> &other) noexcept : alloc_(other.get())
	{
	}

	T *allocate(std::size_t n)
	{
		constexpr std::size_t align = alignof(T) < sizeof(void *) ? sizeof(void *) : alignof(T);
		void *p = nullptr;
		if (n > std::numeric_limits<std::size_t>::max() / sizeof(T) ||
		    cxltier_alloc_aligned(alloc_, align, n * sizeof(T), &p))
			throw std::bad_alloc();
		return static_cast<T *>(p);
	}
	void deallocate(T *p, std::size_t) noexcept { cxltier_alloc_free(alloc_, p); }
	cxltier_alloc *get() const noexcept { return alloc_; }

	template <class U> bool operator==(const region_allocator<U> &other) const noexcept
	{
		return alloc_ == other.get();
	}

private:
	cxltier_alloc *alloc_;
};

} // namespace cxltier
