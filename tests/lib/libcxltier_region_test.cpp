// SPDX-License-Identifier: GPL-2.0
// Global regions through the exported C ABI, without a kernel: handle encoding,
// policy names, and every argument check, which must answer before the library
// touches /dev/cxltier (pointed at a missing file or at /dev/null here).
#include <cerrno>
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "fake_sysfs.hpp"

using namespace cxltier_test;
using ::testing::HasSubstr;

namespace {

class RegionTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	std::string why() const { return cxltier_get_last_error(ctx.get()); }

	fake_sysfs sysfs;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	temp_dir dir;
	// No device: an argument that passes the checks meets -ENOENT.
	scoped_env dev_env{CXLTIER_DEV_ENV, (dir.path() / "no-cxltier").string()};
	cxltier::ctx_ptr ctx;
};

constexpr std::uint64_t mib = 1 << 20;

} // namespace

// A handle packs the id above bit 48 and the offset below, and unpacks exactly.
TEST(RegionHandle, RoundTrips)
{
	std::uint64_t h = 0;
	ASSERT_EQ(cxltier_handle_make(1, 0, &h), 0);
	EXPECT_EQ(h, std::uint64_t{1} << 48);
	ASSERT_EQ(cxltier_handle_make(65535, (std::uint64_t{1} << 48) - 1, &h), 0);
	EXPECT_EQ(h, ~std::uint64_t{0});
	ASSERT_EQ(cxltier_handle_make(513, 0x123456789a, &h), 0);
	EXPECT_EQ(cxltier_handle_get_id(h), 513u);
	EXPECT_EQ(cxltier_handle_get_offset(h), 0x123456789aull);
	EXPECT_NE(h, CXLTIER_HANDLE_NULL);
}

// Id 0 (never a region), ids above 16 bits and offsets above 48 bits are refused.
TEST(RegionHandle, RejectsWhatDoesNotFit)
{
	std::uint64_t h = 42;
	EXPECT_EQ(cxltier_handle_make(0, 0, &h), -EINVAL);
	EXPECT_EQ(cxltier_handle_make(65536, 0, &h), -EINVAL);
	EXPECT_EQ(cxltier_handle_make(1, std::uint64_t{1} << 48, &h), -EINVAL);
	EXPECT_EQ(cxltier_handle_make(1, 0, nullptr), -EINVAL);
	EXPECT_EQ(h, 42u) << "a refused handle must leave the output alone";
	EXPECT_EQ(cxltier_handle_get_id(CXLTIER_HANDLE_NULL), 0u);
}

// Policy names round-trip; anything else is unknown.
TEST(RegionPolicy, NamesRoundTrip)
{
	for (int p = CXLTIER_REGION_POLICY_FAST_FIRST; p <= CXLTIER_REGION_POLICY_PINNED_FAST; p++) {
		auto policy = static_cast<cxltier_region_policy>(p);
		cxltier_region_policy back;
		const char *name = cxltier_region_policy_name(policy);
		ASSERT_EQ(cxltier_region_policy_from_name(name, &back), 0) << name;
		EXPECT_EQ(back, policy);
	}
	cxltier_region_policy p;
	EXPECT_STREQ(cxltier_region_policy_name(static_cast<cxltier_region_policy>(9)), "unknown");
	EXPECT_EQ(cxltier_region_policy_from_name("fastest", &p), -EINVAL);
	EXPECT_EQ(cxltier_region_policy_from_name("", &p), -EINVAL);
	EXPECT_EQ(cxltier_region_policy_from_name(nullptr, &p), -EINVAL);
}

// Names that the module would refuse are refused here, each with its reason.
TEST_F(RegionTest, CreateRejectsBadNames)
{
	const std::pair<const char *, const char *> bad[] = {
		{"", "empty"},
		{"a/b", "byte 47"},
		{"a b", "byte 32"},
		{"tab\tname", "byte 9"},
		{"\x7f", "byte 127"},
		{"caf\xc3\xa9", "byte 195"},
	};
	for (auto [name, reason] : bad) {
		SCOPED_TRACE(name);
		EXPECT_EQ(cxltier_region_create(ctx.get(), name, mib, CXLTIER_REGION_POLICY_FAST_FIRST,
						0, nullptr, 0, nullptr),
			  -EINVAL);
		EXPECT_THAT(why(), HasSubstr(reason));
	}
	std::string longest(63, 'x'), too_long(64, 'x');
	EXPECT_EQ(cxltier_region_create(ctx.get(), too_long.c_str(), mib,
					CXLTIER_REGION_POLICY_FAST_FIRST, 0, nullptr, 0, nullptr),
		  -EINVAL);
	EXPECT_THAT(why(), HasSubstr("64 bytes, at most 63"));
	// 63 bytes pass the checks and reach the (missing) device.
	EXPECT_EQ(cxltier_region_create(ctx.get(), longest.c_str(), mib,
					CXLTIER_REGION_POLICY_FAST_FIRST, 0, nullptr, 0, nullptr),
		  -ENOENT);
	EXPECT_EQ(cxltier_region_create(ctx.get(), nullptr, mib, CXLTIER_REGION_POLICY_FAST_FIRST,
					0, nullptr, 0, nullptr),
		  -EINVAL);
}

// Sizes: zero, not page-aligned, beyond what a handle addresses.
TEST_F(RegionTest, CreateRejectsBadSizes)
{
	for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{100}, mib + 1,
				   CXLTIER_REGION_SIZE_MAX + 4096, ~std::uint64_t{4095}}) {
		SCOPED_TRACE(size);
		EXPECT_EQ(cxltier_region_create(ctx.get(), "r", size, CXLTIER_REGION_POLICY_FAST_FIRST,
						0, nullptr, 0, nullptr),
			  -EINVAL);
		EXPECT_THAT(why(), HasSubstr("region size"));
	}
	EXPECT_EQ(cxltier_region_create(ctx.get(), "r", CXLTIER_REGION_SIZE_MAX,
					CXLTIER_REGION_POLICY_FAST_FIRST, 0, nullptr, 0, nullptr),
		  -ENOENT);
}

// Policies, modes and node lists out of range are refused.
TEST_F(RegionTest, CreateRejectsBadPolicyModeNodes)
{
	EXPECT_EQ(cxltier_region_create(ctx.get(), "r", mib, static_cast<cxltier_region_policy>(4),
					0, nullptr, 0, nullptr),
		  -EINVAL);
	EXPECT_THAT(why(), HasSubstr("policy 4"));
	EXPECT_EQ(cxltier_region_create(ctx.get(), "r", mib, CXLTIER_REGION_POLICY_FAST_FIRST,
					01777, nullptr, 0, nullptr),
		  -EINVAL);
	EXPECT_THAT(why(), HasSubstr("mode"));
	const int bad_nodes[][1] = {{-1}, {1024}};
	for (const auto &n : bad_nodes) {
		EXPECT_EQ(cxltier_region_create(ctx.get(), "r", mib, CXLTIER_REGION_POLICY_INTERLEAVE,
						0, n, 1, nullptr),
			  -EINVAL);
		EXPECT_THAT(why(), HasSubstr("out of range"));
	}
	EXPECT_EQ(cxltier_region_create(ctx.get(), "r", mib, CXLTIER_REGION_POLICY_INTERLEAVE, 0,
					nullptr, 2, nullptr),
		  -EINVAL);
	const int good[] = {0, 1023};
	EXPECT_EQ(cxltier_region_create(ctx.get(), "r", mib, CXLTIER_REGION_POLICY_INTERLEAVE, 0640,
					good, 2, nullptr),
		  -ENOENT);
}

// Open checks the name, the id range and the access bits (read is required).
TEST_F(RegionTest, OpenRejectsBadArguments)
{
	cxltier_region *r = reinterpret_cast<cxltier_region *>(1);
	EXPECT_EQ(cxltier_region_open(ctx.get(), "r", 0, &r), -EINVAL);
	EXPECT_EQ(r, nullptr) << "a failed open must clear *region";
	EXPECT_EQ(cxltier_region_open(ctx.get(), "r", 4, &r), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("access 4"));
	// Write-only: a region is always mapped with read access.
	EXPECT_EQ(cxltier_region_open(ctx.get(), "r", CXLTIER_REGION_WRITE, &r), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("mapping needs read access"));
	EXPECT_EQ(cxltier_region_open(ctx.get(), "", CXLTIER_REGION_READ, &r), -EINVAL);
	EXPECT_EQ(cxltier_region_open_id(ctx.get(), 0, CXLTIER_REGION_READ, &r), -EINVAL);
	EXPECT_EQ(cxltier_region_open_id(ctx.get(), 65536, CXLTIER_REGION_READ, &r), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("out of range"));
	EXPECT_EQ(cxltier_region_open(ctx.get(), "r", CXLTIER_REGION_RDWR, nullptr), -EINVAL);
	EXPECT_EQ(cxltier_region_open(nullptr, "r", CXLTIER_REGION_RDWR, &r), -EINVAL);
	EXPECT_EQ(cxltier_region_open(ctx.get(), "r", CXLTIER_REGION_RDWR, &r), -ENOENT);
	EXPECT_EQ(r, nullptr);
}

// Every verb reports a missing device as the module not being loaded.
TEST_F(RegionTest, MissingDeviceSaysLoadTheModule)
{
	cxltier_region_info *info = nullptr;
	cxltier_region_list *list = nullptr;
	EXPECT_EQ(cxltier_region_destroy(ctx.get(), "r"), -ENOENT);
	EXPECT_THAT(why(), HasSubstr("is cxltier.ko loaded?"));
	EXPECT_EQ(cxltier_region_set_policy(ctx.get(), "r", CXLTIER_REGION_POLICY_SLOW_ONLY,
					    nullptr, 0),
		  -ENOENT);
	EXPECT_EQ(cxltier_region_stat(ctx.get(), "r", &info), -ENOENT);
	EXPECT_EQ(info, nullptr);
	EXPECT_EQ(cxltier_region_list_new(ctx.get(), &list), -ENOENT);
	EXPECT_EQ(list, nullptr);
	EXPECT_THAT(why(), HasSubstr("no-cxltier"));
}

// A device that does not answer the version ioctl is not taken for /dev/cxltier.
TEST_F(RegionTest, WrongDeviceIsNotCxltier)
{
	scoped_env null_dev{CXLTIER_DEV_ENV, "/dev/null"};
	EXPECT_EQ(cxltier_region_destroy(ctx.get(), "r"), -ENOTTY);
	EXPECT_THAT(why(), HasSubstr("not the cxltier device"));
}

// Handles of addresses no region covers, and of regions that do not exist, fail
// with ENOENT and say so; a null handle never resolves.
TEST_F(RegionTest, UnknownHandlesAndAddresses)
{
	int local = 0;
	std::uint64_t h = 0;
	void *p = nullptr;
	EXPECT_EQ(cxltier_handle_from_addr(ctx.get(), &local, &h), -ENOENT);
	EXPECT_THAT(why(), HasSubstr("no region mapped"));
	EXPECT_EQ(cxltier_handle_resolve(ctx.get(), CXLTIER_HANDLE_NULL, &p), -ENOENT);
	ASSERT_EQ(cxltier_handle_make(7, 64, &h), 0);
	EXPECT_EQ(cxltier_handle_resolve(ctx.get(), h, &p), -ENOENT);
	EXPECT_EQ(p, nullptr);
	EXPECT_EQ(cxltier_handle_resolve(ctx.get(), h, nullptr), -EINVAL);
	cxltier_handle_cache_clear(); // nothing cached: a no-op
}

// The C++ wrappers return null pointers with the errno on failure.
TEST_F(RegionTest, CxxWrappersReportErrors)
{
	int err = 0;
	EXPECT_FALSE(cxltier::open_region(ctx.get(), "r", CXLTIER_REGION_RDWR, err));
	EXPECT_EQ(err, -ENOENT);
	EXPECT_FALSE(cxltier::stat_region(ctx.get(), "", err));
	EXPECT_EQ(err, -EINVAL);
	EXPECT_FALSE(cxltier::list_regions(ctx.get(), err));
	EXPECT_EQ(err, -ENOENT);
	EXPECT_EQ(cxltier::resolve<int>(ctx.get(), CXLTIER_HANDLE_NULL, err), nullptr);
	EXPECT_EQ(err, -ENOENT);
}
