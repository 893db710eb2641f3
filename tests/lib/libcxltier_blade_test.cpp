// SPDX-License-Identifier: GPL-2.0
// Blades out of service and back through the C ABI: the states and the fencing and
// draining counters read from fake trees (old modules have no counters), what
// blade_fence, blade_drain and blade_restore are sent, the checks made before
// anything is sent, and every errno the ABI document defines for them turned into
// words.  fake_dev.c is linked in: its write() fails a write to F with the errno
// in F.errno, as the module's store methods would.
#include <cerrno>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

class BladeTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		for (const char *f : {"blade_fence", "blade_drain", "blade_restore"})
			sysfs.write(f, "");
	}

	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		return ctx;
	}

	// The counters of blade @b as a module with blade drain shows them.
	void add_counters(const char *b, const std::vector<std::string> &values)
	{
		const char *files[] = {"fenced_pages", "fence_us",  "drained_pages",
				       "drain_left",   "drain_us", "poisoned_pages"};
		for (std::size_t i = 0; i < std::size(files); i++)
			sysfs.write(fs::path("blades") / b / files[i], values.at(i));
	}

	std::string written(const char *file) { return slurp(sysfs.root() / file); }

	fake_sysfs sysfs;
	fake_sys sys;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
};

using op = int (*)(cxltier_ctx *, const char *);

} // namespace

// Every state the module reports has its own value and name; other text is unknown.
TEST_F(BladeTest, StatesAndTheirNames)
{
	const std::vector<std::pair<const char *, cxltier_blade_state>> states = {
		{"online", CXLTIER_BLADE_STATE_ONLINE},
		{"offline", CXLTIER_BLADE_STATE_OFFLINE},
		{"draining", CXLTIER_BLADE_STATE_DRAINING},
		{"out-of-service", CXLTIER_BLADE_STATE_OUT_OF_SERVICE},
	};
	for (std::size_t i = 0; i < states.size(); i++)
		sysfs.write(fs::path("blades") / pool_blades[i] / "state", states[i].first);
	auto ctx = open();
	ASSERT_TRUE(ctx);
	for (std::size_t i = 0; i < states.size(); i++) {
		cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), pool_blades[i]);
		EXPECT_EQ(cxltier_blade_get_state(b), states[i].second) << states[i].first;
		EXPECT_STREQ(cxltier_blade_state_name(cxltier_blade_get_state(b)), states[i].first);
	}

	sysfs.write("blades/mem0/state", "fenced");
	sysfs.write("blades/mem1/state", "exploded");
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(cxltier_blade_get_state(cxltier_blade_get_by_name(ctx.get(), "mem0")),
		  CXLTIER_BLADE_STATE_FENCED);
	EXPECT_EQ(cxltier_blade_get_state(cxltier_blade_get_by_name(ctx.get(), "mem1")),
		  CXLTIER_BLADE_STATE_UNKNOWN);
	EXPECT_STREQ(cxltier_blade_state_name(CXLTIER_BLADE_STATE_FENCED), "fenced");
	EXPECT_STREQ(cxltier_blade_state_name(CXLTIER_BLADE_STATE_UNKNOWN), "unknown");
	EXPECT_STREQ(cxltier_blade_state_name(static_cast<cxltier_blade_state>(42)), "unknown");
}

// The counters come through at full width; a module without them reads 0 and says so.
TEST_F(BladeTest, RecoveryCounters)
{
	add_counters("mem1", {"4096", "1250", "18446744073709551615", "7", "2500000", "3"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), "mem1");
	EXPECT_TRUE(cxltier_blade_has_recovery_counters(b));
	EXPECT_EQ(cxltier_blade_get_fenced_pages(b), 4096u);
	EXPECT_EQ(cxltier_blade_get_fence_us(b), 1250u);
	EXPECT_EQ(cxltier_blade_get_drained_pages(b), UINT64_MAX);
	EXPECT_EQ(cxltier_blade_get_drain_left(b), 7u);
	EXPECT_EQ(cxltier_blade_get_drain_us(b), 2500000u);
	EXPECT_EQ(cxltier_blade_get_poisoned_pages(b), 3u);

	cxltier_blade *old = cxltier_blade_get_by_name(ctx.get(), "mem0");
	EXPECT_FALSE(cxltier_blade_has_recovery_counters(old));
	EXPECT_EQ(cxltier_blade_get_fenced_pages(old), 0u);
	EXPECT_EQ(cxltier_blade_get_drain_left(old), 0u);
	EXPECT_EQ(cxltier_blade_get_poisoned_pages(old), 0u);
}

// A counter that is there but malformed fails the snapshot, naming file and value.
TEST_F(BladeTest, MalformedCounterIsNamed)
{
	add_counters("mem2", {"1", "2", "3", "lots", "5", "6"});
	cxltier_ctx *ctx = nullptr;
	EXPECT_EQ(cxltier_new(&ctx), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(nullptr),
		    AllOf(HasSubstr("blades/mem2/drain_left"), HasSubstr("\"lots\"")));
}

// Each operation writes the blade's name, alone, to its file.
TEST_F(BladeTest, OperationsWriteTheName)
{
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_blade_fence(ctx.get(), "mem1"), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(written("blade_fence"), "mem1");
	EXPECT_EQ(cxltier_blade_drain(ctx.get(), "mem2"), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(written("blade_drain"), "mem2");
	EXPECT_EQ(cxltier_blade_restore(ctx.get(), "mem3"), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(written("blade_restore"), "mem3");
}

// Names the kernel would misread are refused before anything is written.
TEST_F(BladeTest, BadNamesAreRefusedBeforeTheModule)
{
	auto ctx = open();
	ASSERT_TRUE(ctx);
	for (op f : {cxltier_blade_fence, cxltier_blade_drain, cxltier_blade_restore}) {
		EXPECT_EQ(f(ctx.get(), nullptr), -EINVAL);
		EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("no blade name given"));
		EXPECT_EQ(f(ctx.get(), ""), -EINVAL);
		EXPECT_EQ(f(ctx.get(), "mem0 mem1"), -EINVAL);
		EXPECT_THAT(cxltier_get_last_error(ctx.get()),
			    HasSubstr("\"mem0 mem1\" is not a blade name: it contains whitespace"));
		EXPECT_EQ(f(ctx.get(), "mem\x01"), -EINVAL);
		EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("control characters"));
		EXPECT_EQ(f(ctx.get(), std::string(32, 'm').c_str()), -EINVAL);
		EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("longer than 31 bytes"));
		EXPECT_EQ(f(nullptr, "mem0"), -EINVAL);
	}
	EXPECT_EQ(written("blade_fence"), "\n");
	EXPECT_EQ(written("blade_drain"), "\n");
	EXPECT_EQ(written("blade_restore"), "\n");
}

// A module that predates an operation, and one that is not loaded.
TEST_F(BladeTest, MissingFiles)
{
	auto ctx = open();
	ASSERT_TRUE(ctx);
	sysfs.remove("blade_drain");
	EXPECT_EQ(cxltier_blade_drain(ctx.get(), "mem0"), -EOPNOTSUPP);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  (sysfs.root() / "blade_drain").string() +
			  " missing: this cxltier module predates draining blades");
	sysfs.unload();
	EXPECT_EQ(cxltier_blade_restore(ctx.get(), "mem0"), -ENOENT);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("cxltier module not loaded"));
}

namespace {

// One errno of one file and the reason expected for it.
struct refusal {
	const char *name; // test name
	const char *file;
	op f;
	const char *blade;
	int err;
	const char *reason;
};

std::ostream &operator<<(std::ostream &os, const refusal &r)
{
	return os << r.name;
}

class BladeRefusalTest : public BladeTest, public ::testing::WithParamInterface<refusal> {};

} // namespace

// Every errno the ABI document gives blade_fence, blade_drain and blade_restore comes
// back as itself, with the words that say what happened and what to do.
TEST_P(BladeRefusalTest, IsExplained)
{
	const refusal &r = GetParam();
	sysfs.write(std::string(r.file) + ".errno", std::to_string(r.err));
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(r.f(ctx.get(), r.blade), -r.err);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()), std::string(r.reason));
}

INSTANTIATE_TEST_SUITE_P(
	Errnos, BladeRefusalTest,
	::testing::Values(
		refusal{"FenceUnknown", "blade_fence", cxltier_blade_fence, "mem9", ENOENT,
			"no blade mem9 (see cxltierctl blade list)"},
		refusal{"FenceNoTier", "blade_fence", cxltier_blade_fence, "mem0", ENOENT,
			"no tier has memory on mem0: nothing to fence"},
		refusal{"FenceAgain", "blade_fence", cxltier_blade_fence, "mem0", EALREADY,
			"mem0 is fenced already"},
		refusal{"FenceNotRoot", "blade_fence", cxltier_blade_fence, "mem0", EACCES,
			"fencing mem0 needs root"},
		refusal{"DrainUnknown", "blade_drain", cxltier_blade_drain, "mem9", ENOENT,
			"no blade mem9 (see cxltierctl blade list)"},
		refusal{"DrainNoTier", "blade_drain", cxltier_blade_drain, "mem1", ENOENT,
			"no tier has memory on mem1: nothing to drain"},
		refusal{"DrainAgain", "blade_drain", cxltier_blade_drain, "mem1", EALREADY,
			"mem1 is out of service already (cxltierctl blade restore mem1 puts it back)"},
		refusal{"DrainRunning", "blade_drain", cxltier_blade_drain, "mem1", EBUSY,
			"a drain of mem1 is running already"},
		refusal{"DrainFenced", "blade_drain", cxltier_blade_drain, "mem1", EIO,
			"mem1 is fenced: its pages are lost and there is nothing to drain"},
		refusal{"DrainNoRoom", "blade_drain", cxltier_blade_drain, "mem1", ENOSPC,
			"the rest of the pool has no room for the pages of mem1; nothing was changed"},
		refusal{"DrainInterrupted", "blade_drain", cxltier_blade_drain, "mem1", EINTR,
			"draining mem1 was interrupted by a signal: mem1 is online again; the pages "
			"moved so far stay where they went"},
		refusal{"DrainNotRoot", "blade_drain", cxltier_blade_drain, "mem1", EPERM,
			"draining mem1 needs root"},
		refusal{"DrainOther", "blade_drain", cxltier_blade_drain, "mem1", ENOMEM,
			"draining mem1 failed: Cannot allocate memory (the kernel log says why: dmesg "
			"| grep cxltier)"},
		refusal{"RestoreUnknown", "blade_restore", cxltier_blade_restore, "mem9", ENOENT,
			"no blade mem9 (see cxltierctl blade list)"},
		refusal{"RestoreOnline", "blade_restore", cxltier_blade_restore, "mem2", EALREADY,
			"mem2 is in service already (online)"},
		refusal{"RestoreTierLeft", "blade_restore", cxltier_blade_restore, "mem2", EBUSY,
			"mem2 is fenced and region0 still has memory on it: remove that tier first "
			"(cxltierctl tier remove)"},
		refusal{"RestoreNotRoot", "blade_restore", cxltier_blade_restore, "mem2", EACCES,
			"restoring mem2 needs root"}),
	[](const auto &info) { return std::string(info.param.name); });

// Restoring a fenced blade names every tier still on it.
TEST_F(BladeTest, RestoreNamesEveryTierLeft)
{
	add_tier(sysfs, {.name = "region1", .node = "3", .start = "0x3d0000000", .blades = "mem1 mem3"});
	sysfs.write("blade_restore.errno", std::to_string(EBUSY));
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_blade_restore(ctx.get(), "mem3"), -EBUSY);
	EXPECT_EQ(std::string(cxltier_get_last_error(ctx.get())),
		  "mem3 is fenced and region0, region1 still have memory on it: remove those tiers "
		  "first (cxltierctl tier remove)");
}
