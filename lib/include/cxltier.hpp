// SPDX-License-Identifier: GPL-2.0
// C++20 conveniences over the C ABI in cxltier.h: an owning context pointer and
// ranges over blades and CXL regions.  Header-only; the ABI stays the C one.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
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

// A forward range over a first/next iteration pair.
template <class T, T *(*First)(cxltier_ctx *), T *(*Next)(T *)> class object_range {
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

	explicit object_range(cxltier_ctx *ctx) noexcept : ctx_(ctx) {}
	iterator begin() const noexcept { return iterator(First(ctx_)); }
	iterator end() const noexcept { return iterator(); }

private:
	cxltier_ctx *ctx_;
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

} // namespace cxltier
