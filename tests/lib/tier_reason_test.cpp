// SPDX-License-Identifier: GPL-2.0
// The reasons libcxltier gives for each errno tier_add and tier_remove can return,
// as the ABI document defines them.  The kernel's errors cannot be produced on a
// host, so this tests the library's internal mapping functions directly (linked
// from its objects); the tier tests check that the C entry points use them.
#include <cerrno>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tier.hpp"
#include "tier_reason.hpp"

using namespace cxltier::internal;
using ::testing::HasSubstr;

namespace {

region_facts facts(const char *mode, cxltier_cxl_region_state state)
{
	return {.known = true, .mode = mode, .state = state};
}

const region_facts unknown{};

// EBUSY on add depends on who holds the region; each holder gets its own fix.
TEST(TierAddReason, BusyNamesTheHolderAndTheFix)
{
	EXPECT_EQ(tier_add_reason("region0", 0, -EBUSY, facts("ram", CXLTIER_CXL_REGION_STATE_DAX)),
		  "region0 is held by device_dax: free it with: "
		  "echo dax_region0 > /sys/bus/cxl/drivers/cxl_dax_region/unbind");
	EXPECT_EQ(tier_add_reason("region3", 0, -EBUSY,
				  facts("ram", CXLTIER_CXL_REGION_STATE_SYSTEM_RAM)),
		  "region3 is onlined as System RAM by kmem: free it with: daxctl offline-memory "
		  "all && echo dax_region3 > /sys/bus/cxl/drivers/cxl_dax_region/unbind");
	EXPECT_EQ(tier_add_reason("region0", 0, -EBUSY,
				  facts("ram", CXLTIER_CXL_REGION_STATE_COMMITTED)),
		  "the address range of region0 is claimed by another driver (see /proc/iomem)");
	EXPECT_THAT(tier_add_reason("region0", 0, -EBUSY, unknown),
		    HasSubstr("held by device_dax or kmem, or its address range by another driver"));
}

// Each other errno of tier_add, as the ABI document gives it.
TEST(TierAddReason, EveryDocumentedErrno)
{
	auto ram = facts("ram", CXLTIER_CXL_REGION_STATE_COMMITTED);
	EXPECT_EQ(tier_add_reason("region7", 0, -ENOENT, unknown),
		  "no CXL region region7 (see cxltierctl list)");
	EXPECT_EQ(tier_add_reason("region0", 0, -EEXIST, ram),
		  "region0 is already a tier (see cxltierctl tier list)");
	EXPECT_EQ(tier_add_reason("region0", 0, -ENXIO,
				  facts("ram", CXLTIER_CXL_REGION_STATE_UNCOMMITTED)),
		  "region0 is not committed: commit it with: "
		  "echo 1 > /sys/bus/cxl/devices/region0/commit");
	EXPECT_EQ(tier_add_reason("region0", 0, -ENODEV, ram),
		  "the platform assigns no NUMA node to the address range of region0");
	EXPECT_EQ(tier_add_reason("region0", 0, -EACCES, ram),
		  "registering region0 as a tier needs root");
	EXPECT_EQ(tier_add_reason("region0", 0, -EPERM, ram),
		  "registering region0 as a tier needs root");
	EXPECT_THAT(tier_add_reason("region0", 0, -ENOMEM, ram), HasSubstr("not enough memory"));
}

// EINVAL from the module: a pmem region is named as such; otherwise the reasons
// that remain after the library's own checks, with where to look.
TEST(TierAddReason, InvalidSaysWhatTheModuleObjectedTo)
{
	EXPECT_EQ(tier_add_reason("region1", 0, -EINVAL,
				  facts("pmem", CXLTIER_CXL_REGION_STATE_COMMITTED)),
		  "region1 is a pmem region; only ram regions can be tiers");
	auto ram = facts("ram", CXLTIER_CXL_REGION_STATE_COMMITTED);
	EXPECT_THAT(tier_add_reason("region0", 0, -EINVAL, ram),
		    HasSubstr("not aligned to memory blocks (dmesg | grep cxltier says which)"));
	EXPECT_THAT(tier_add_reason("region0", 9000, -EINVAL, ram),
		    HasSubstr("refused region0 with adistance 9000"));
}

// An errno the ABI gives no meaning to keeps its text and points at the kernel log.
TEST(TierAddReason, OtherErrnosPointAtTheKernelLog)
{
	EXPECT_EQ(tier_add_reason("region0", 0, -EIO, unknown),
		  "registering region0 as a tier failed: Input/output error "
		  "(the kernel log says why: dmesg | grep cxltier)");
}

// tier_remove's errnos: not a tier, pages that would not move (nothing lost),
// interrupted, needs root, anything else.
TEST(TierRemoveReason, EveryDocumentedErrno)
{
	EXPECT_EQ(tier_remove_reason("region0", -ENOENT),
		  "region0 is not a tier (see cxltierctl tier list)");
	EXPECT_EQ(tier_remove_reason("region0", -EBUSY),
		  "some pages of region0 cannot be moved; the tier stays online, nothing was lost");
	EXPECT_EQ(tier_remove_reason("region0", -EINTR),
		  "removing region0 was interrupted by a signal; the tier stays online, nothing "
		  "was lost");
	EXPECT_EQ(tier_remove_reason("region0", -EACCES), "removing the tier region0 needs root");
	EXPECT_EQ(tier_remove_reason("region0", -EPERM), "removing the tier region0 needs root");
	EXPECT_THAT(tier_remove_reason("region0", -ENOMEM),
		    HasSubstr("removing the tier region0 failed: Cannot allocate memory"));
}

// The kernel's node and CPU list format, as parse_id_ranges reads it.
TEST(IdRanges, KernelListFormat)
{
	using R = std::vector<id_range>;
	auto ok = [](const char *s) {
		auto r = parse_id_ranges("f", s);
		EXPECT_TRUE(r.ok()) << s;
		return r.ok() ? r.value() : R{};
	};
	EXPECT_EQ(ok(""), R{});
	EXPECT_EQ(ok("0"), (R{{0, 0}}));
	EXPECT_EQ(ok("1-3,5"), (R{{1, 3}, {5, 5}}));
	EXPECT_EQ(ok("0-1,4-7,9,1023"), (R{{0, 1}, {4, 7}, {9, 9}, {1023, 1023}}));
	for (const char *bad : {",", "1,", ",1", "1-", "-1", "3-1", "1--2", "a", "1 2", "1-2-3",
				"99999999999"}) {
		auto r = parse_id_ranges("f", bad);
		ASSERT_FALSE(r.ok()) << bad;
		EXPECT_EQ(r.err().code, -EBADMSG);
		EXPECT_THAT(r.err().msg, HasSubstr("f: expected a list such as 0-3,5"));
	}
}

} // namespace
