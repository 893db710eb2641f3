// SPDX-License-Identifier: GPL-2.0
// The parts of global regions that need no kernel, on a stand-in region: a region
// object over a memfd (which mmap()s MAP_SHARED just like a region file), built
// with the library's internals.  Covers mapping, the registry that handles resolve
// through, and cxltier_alloc on memkind.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ctx.hpp"
#include "cxltier.h"
#include "cxltier.hpp"
#include "fake_sysfs.hpp"
#include "region.hpp"

using namespace cxltier_test;
using ::testing::HasSubstr;

namespace {

constexpr std::uint64_t mib = 1 << 20;

class StandInRegion : public ::testing::Test {
protected:
	void SetUp() override
	{
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	// A region object as cxltier_region_open() makes it, over a memfd.
	cxltier::region_ptr make(std::uint32_t id, std::uint64_t size,
				 int access = CXLTIER_REGION_RDWR)
	{
		int fd = ::memfd_create("stand-in", MFD_CLOEXEC);
		EXPECT_GE(fd, 0);
		EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
		auto *r = new cxltier_region;
		r->ctx = cxltier_ref(ctx.get());
		r->fd = fd;
		r->id = id;
		r->name = "stand-in-" + std::to_string(id);
		r->size = size;
		r->access = access;
		return cxltier::region_ptr(r);
	}

	std::string why() const { return cxltier_get_last_error(ctx.get()); }

	fake_sysfs sysfs;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// Mapping gives the whole region, the same address when asked again, and
// registers it so that addresses turn into handles and handles into addresses.
TEST_F(StandInRegion, HandlesRoundTripThroughTheMapping)
{
	auto r = make(42, 4 * mib);
	void *a = nullptr, *b = nullptr, *p = nullptr;
	ASSERT_EQ(cxltier_region_map(r.get(), &a), 0) << why();
	ASSERT_EQ(cxltier_region_map(r.get(), &b), 0);
	EXPECT_EQ(a, b);
	EXPECT_EQ(cxltier_region_get_addr(r.get()), a);

	char *base = static_cast<char *>(a);
	std::strcpy(base + 3 * mib + 5, "hello");
	std::uint64_t h = 0;
	ASSERT_EQ(cxltier_handle_from_addr(ctx.get(), base + 3 * mib + 5, &h), 0);
	EXPECT_EQ(cxltier_handle_get_id(h), 42u);
	EXPECT_EQ(cxltier_handle_get_offset(h), 3 * mib + 5);
	ASSERT_EQ(cxltier_handle_resolve(ctx.get(), h, &p), 0) << why();
	EXPECT_STREQ(static_cast<char *>(p), "hello");

	// One past the end belongs to nobody; an offset past the end does not resolve.
	EXPECT_EQ(cxltier_handle_from_addr(ctx.get(), base + 4 * mib, &h), -ENOENT);
	ASSERT_EQ(cxltier_handle_make(42, 4 * mib, &h), 0);
	EXPECT_EQ(cxltier_handle_resolve(ctx.get(), h, &p), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("past the end"));

	// Unmapped, it is gone from the registry.
	ASSERT_EQ(cxltier_region_unmap(r.get()), 0);
	EXPECT_EQ(cxltier_region_get_addr(r.get()), nullptr);
	EXPECT_EQ(cxltier_handle_from_addr(ctx.get(), base, &h), -ENOENT);
	EXPECT_EQ(cxltier_region_unmap(r.get()), 0);
}

// Two mapped regions resolve independently, from many threads at once.
TEST_F(StandInRegion, ResolvesFromManyThreads)
{
	auto r1 = make(1, mib), r2 = make(2, 2 * mib);
	void *a1, *a2;
	ASSERT_EQ(cxltier_region_map(r1.get(), &a1), 0);
	ASSERT_EQ(cxltier_region_map(r2.get(), &a2), 0);
	static_cast<char *>(a1)[100] = 'a';
	static_cast<char *>(a2)[mib + 100] = 'b';

	std::vector<std::thread> threads;
	std::atomic<int> bad{0};
	for (int t = 0; t < 4; t++) {
		threads.emplace_back([&] {
			int err = 0;
			auto c = cxltier::make_ctx(err); // a context per thread
			for (int i = 0; i < 10000; i++) {
				std::uint64_t h1, h2;
				void *p1, *p2;
				cxltier_handle_make(1, 100, &h1);
				cxltier_handle_make(2, mib + 100, &h2);
				if (cxltier_handle_resolve(c.get(), h1, &p1) ||
				    cxltier_handle_resolve(c.get(), h2, &p2) ||
				    *static_cast<char *>(p1) != 'a' || *static_cast<char *>(p2) != 'b')
					bad++;
			}
		});
	}
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(bad.load(), 0);
}

// A write-only region cannot be mapped; a read-only one maps read-only.
TEST_F(StandInRegion, MapFollowsAccess)
{
	auto wo = make(3, mib, CXLTIER_REGION_WRITE);
	void *p = nullptr;
	EXPECT_EQ(cxltier_region_map(wo.get(), &p), -EACCES);
	EXPECT_THAT(why(), HasSubstr("write-only"));

	auto ro = make(4, mib, CXLTIER_REGION_READ);
	ASSERT_EQ(cxltier_region_map(ro.get(), &p), 0);
	cxltier_alloc *a = nullptr;
	EXPECT_EQ(cxltier_alloc_create(ro.get(), 0, 0, &a), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("read-only"));
}

// The allocator hands out distinct, aligned objects inside its range only, reuses
// freed ones, zeroes calloc memory even over dirty pages, and says when it is full.
TEST_F(StandInRegion, AllocatorStaysInItsRange)
{
	auto r = make(5, 16 * mib);
	void *base;
	ASSERT_EQ(cxltier_region_map(r.get(), &base), 0);
	std::memset(base, 0xa5, 16 * mib); // dirty, as a reused region would be

	cxltier_alloc *a = nullptr;
	ASSERT_EQ(cxltier_alloc_create(r.get(), 4 * mib, 8 * mib, &a), 0) << why();
	EXPECT_EQ(cxltier_alloc_get_region(a), r.get());
	auto *lo = static_cast<char *>(base) + 4 * mib, *hi = lo + 8 * mib;

	std::set<void *> seen;
	std::vector<void *> objs;
	for (int i = 0; i < 20000; i++) {
		std::size_t sz = 16 + (i * 37) % 300;
		char *p = static_cast<char *>(cxltier_alloc_malloc(a, sz));
		ASSERT_NE(p, nullptr) << "object " << i;
		ASSERT_TRUE(p >= lo && p + sz <= hi) << "object " << i << " outside the range";
		ASSERT_TRUE(seen.insert(p).second);
		ASSERT_GE(cxltier_alloc_usable_size(a, p), sz);
		std::memset(p, i & 0xff, sz);
		objs.push_back(p);
	}
	for (void *p : objs)
		cxltier_alloc_free(a, p);

	auto *z = static_cast<unsigned char *>(cxltier_alloc_calloc(a, 1000, 24));
	ASSERT_NE(z, nullptr);
	for (int i = 0; i < 24000; i++)
		ASSERT_EQ(z[i], 0) << "byte " << i;
	cxltier_alloc_free(a, z);

	void *al = nullptr;
	ASSERT_EQ(cxltier_alloc_aligned(a, 4096, 100, &al), 0);
	EXPECT_EQ(reinterpret_cast<std::uintptr_t>(al) % 4096, 0u);
	cxltier_alloc_free(a, al);
	EXPECT_EQ(cxltier_alloc_aligned(a, 24, 100, &al), -EINVAL);
	EXPECT_EQ(cxltier_alloc_calloc(a, SIZE_MAX / 2, 4), nullptr);

	// Filling the range ends in NULL/ENOMEM, never in memory outside it.
	int n = 0;
	for (;; n++) {
		errno = 0;
		char *p = static_cast<char *>(cxltier_alloc_malloc(a, 256 * 1024));
		if (!p) {
			EXPECT_EQ(errno, ENOMEM);
			break;
		}
		ASSERT_TRUE(p >= lo && p + 256 * 1024 <= hi);
	}
	EXPECT_GT(n, 16);
	cxltier_alloc_destroy(a);
	// The region and its mapping outlive the allocator.
	EXPECT_EQ(static_cast<unsigned char *>(base)[0], 0xa5);
}

// Ranges that are not page-aligned or leave the region are refused.
TEST_F(StandInRegion, AllocatorRangeChecks)
{
	auto r = make(6, 4 * mib);
	cxltier_alloc *a = nullptr;
	EXPECT_EQ(cxltier_alloc_create(r.get(), 100, mib, &a), -EINVAL);
	EXPECT_EQ(cxltier_alloc_create(r.get(), 0, mib + 1, &a), -EINVAL);
	EXPECT_EQ(cxltier_alloc_create(r.get(), 2 * mib, 4 * mib, &a), -EINVAL);
	EXPECT_EQ(cxltier_alloc_create(r.get(), 4 * mib, 0, &a), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("not page-aligned within"));
	EXPECT_EQ(a, nullptr);
	EXPECT_EQ(cxltier_region_get_addr(r.get()), nullptr) << "a refused range maps nothing";
}

// Standard containers can keep their elements in a region.
TEST_F(StandInRegion, StlAllocator)
{
	auto r = make(7, 8 * mib);
	int err = 0;
	auto a = cxltier::make_alloc(r.get(), 0, 0, err);
	ASSERT_TRUE(a) << why();
	auto *lo = static_cast<char *>(cxltier_region_get_addr(r.get())), *hi = lo + 8 * mib;
	std::vector<std::uint64_t, cxltier::region_allocator<std::uint64_t>> v{
		cxltier::region_allocator<std::uint64_t>(a.get())};
	for (std::uint64_t i = 0; i < 100000; i++)
		v.push_back(i * i);
	auto *data = reinterpret_cast<char *>(v.data());
	EXPECT_TRUE(data >= lo && data < hi);
	EXPECT_EQ(v[777], 777u * 777u);
	EXPECT_THROW(v.reserve(100 * mib), std::bad_alloc);
}
