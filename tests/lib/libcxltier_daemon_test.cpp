// SPDX-License-Identifier: GPL-2.0
// The migration daemon's side of the C ABI: readings of daemon/ and the tiers'
// counters from fake trees, setting tunables as one change (checked first, undone
// when the module refuses one), and the region calls that go through a region file
// (hints, page nodes, migration counters in STAT) against fake_dev.c, which this
// program links so that its ioctl() and write() stand in for the module's.
#include <cerrno>
#include <cstdint>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

class DaemonTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_daemon(sysfs);
		add_daemon_tier(sysfs);
		sys.add_dram_and_tier();
	}

	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		EXPECT_TRUE(ctx) << cxltier_get_last_error(nullptr);
		return ctx;
	}

	cxltier::daemon_ptr read(cxltier_ctx *ctx)
	{
		int err = 0;
		auto d = cxltier::read_daemon(ctx, err);
		EXPECT_TRUE(d) << cxltier_get_last_error(ctx);
		return d;
	}

	std::vector<std::string> tunable_names(const cxltier_daemon *d)
	{
		std::vector<std::string> out;
		for (std::size_t i = 0; i < cxltier_daemon_get_nr_tunables(d); i++) {
			const char *name;
			EXPECT_EQ(cxltier_daemon_get_tunable_at(d, i, &name, nullptr), 0);
			out.push_back(name);
		}
		return out;
	}

	int set(cxltier_ctx *ctx, std::vector<const char *> names, std::vector<std::uint64_t> values)
	{
		return cxltier_daemon_set_tunables(ctx, names.size(), names.data(), values.data());
	}

	std::string value(const char *tunable) const
	{
		return sysfs.read(fs::path("daemon") / tunable);
	}

	fake_sysfs sysfs;
	fake_sys sys;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
	scoped_env refuse_env{"CXLTIER_FAKE_REFUSE", std::nullopt};
};

} // namespace

// --- readings ---------------------------------------------------------------------

// A reading has every tunable and counter with its value, in the documented order,
// both heat histograms and each tier's promotions and demotions.
TEST_F(DaemonTest, ReadsTunablesCountersHeatAndTiers)
{
	auto ctx = open();
	auto d = read(ctx.get());
	ASSERT_TRUE(d);
	EXPECT_GT(cxltier_daemon_get_time_ns(d.get()), 0u);

	ASSERT_EQ(cxltier_daemon_get_nr_tunables(d.get()), default_tunables.size());
	for (std::size_t i = 0; i < default_tunables.size(); i++) {
		const char *name;
		std::uint64_t v;
		ASSERT_EQ(cxltier_daemon_get_tunable_at(d.get(), i, &name, &v), 0);
		EXPECT_EQ(name, default_tunables[i].first);
		EXPECT_EQ(std::to_string(v), default_tunables[i].second);
	}
	ASSERT_EQ(cxltier_daemon_get_nr_counters(d.get()), default_counters.size());
	for (std::size_t i = 0; i < default_counters.size(); i++) {
		const char *name;
		std::uint64_t v;
		ASSERT_EQ(cxltier_daemon_get_counter_at(d.get(), i, &name, &v), 0);
		EXPECT_EQ(name, default_counters[i].first);
		EXPECT_EQ(std::to_string(v), default_counters[i].second);
	}
	std::uint64_t v = 0;
	EXPECT_EQ(cxltier_daemon_get_tunable(d.get(), "period_ms", &v), 0);
	EXPECT_EQ(v, 1000u);
	EXPECT_EQ(cxltier_daemon_get_counter(d.get(), "moved_bytes", &v), 0);
	EXPECT_EQ(v, 16384000u);
	EXPECT_EQ(cxltier_daemon_get_tunable(d.get(), "no_such", &v), -ENOENT);
	EXPECT_EQ(cxltier_daemon_get_counter(d.get(), "no_such", &v), -ENOENT);
	EXPECT_EQ(cxltier_daemon_get_tunable_at(d.get(), 99, nullptr, nullptr), -ERANGE);

	auto fast = cxltier::heat_of(d.get(), "fast");
	auto slow = cxltier::heat_of(d.get(), "slow");
	ASSERT_EQ(fast.size(), 16u);
	ASSERT_EQ(slow.size(), 16u);
	EXPECT_EQ(fast[0], 100u);
	EXPECT_EQ(fast[8], 4000u);
	EXPECT_EQ(slow[0], 30000u);
	EXPECT_EQ(slow[15], 0u);
	EXPECT_EQ(cxltier_daemon_get_heat(d.get(), "medium"), nullptr);

	ASSERT_EQ(cxltier_daemon_get_nr_tiers(d.get()), 1u);
	const char *tier;
	std::uint64_t promoted, demoted;
	ASSERT_EQ(cxltier_daemon_get_tier(d.get(), 0, &tier, &promoted, &demoted), 0);
	EXPECT_STREQ(tier, "region0");
	EXPECT_EQ(promoted, 3000u);
	EXPECT_EQ(demoted, 1000u);
	EXPECT_EQ(cxltier_daemon_get_tier(d.get(), 1, &tier, &promoted, &demoted), -ERANGE);
}

// Files the library does not know come after the documented ones, by name; a
// write-only file is a command, not a tunable.
TEST_F(DaemonTest, UndocumentedFilesComeLastAndWriteOnlyOnesNot)
{
	sysfs.write("daemon/zeta_ms", "5");
	sysfs.write("daemon/alpha_pct", "7");
	sysfs.write("daemon/reset", "");
	fs::permissions(sysfs.root() / "daemon/reset", fs::perms::owner_write);
	sysfs.write("daemon/stats/new_events", "9");
	auto ctx = open();
	auto d = read(ctx.get());
	ASSERT_TRUE(d);
	auto names = tunable_names(d.get());
	ASSERT_EQ(names.size(), default_tunables.size() + 2);
	EXPECT_EQ(names.front(), "enable");
	EXPECT_EQ(names[names.size() - 2], "alpha_pct");
	EXPECT_EQ(names.back(), "zeta_ms");
	const char *last;
	std::uint64_t v;
	ASSERT_EQ(cxltier_daemon_get_counter_at(d.get(), default_counters.size(), &last, &v), 0);
	EXPECT_STREQ(last, "new_events");
	EXPECT_EQ(v, 9u);
}

// A module without daemon/ says so (-EOPNOTSUPP); without the module, -ENOENT.
TEST_F(DaemonTest, NoDaemonAndNoModule)
{
	auto ctx = open();
	sysfs.remove("daemon");
	cxltier_daemon *d = reinterpret_cast<cxltier_daemon *>(1);
	EXPECT_EQ(cxltier_daemon_read(ctx.get(), &d), -EOPNOTSUPP);
	EXPECT_EQ(d, nullptr);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("has no migration daemon"));
	sysfs.unload();
	EXPECT_EQ(cxltier_daemon_read(ctx.get(), &d), -ENOENT);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("not loaded"));
}

// Malformed values, heat lines and missing tier counters are -EBADMSG naming the file.
TEST_F(DaemonTest, MalformedFilesAreNamed)
{
	auto ctx = open();
	cxltier_daemon *d = nullptr;

	sysfs.write("daemon/stats/cpu_ns", "12ms");
	EXPECT_EQ(cxltier_daemon_read(ctx.get(), &d), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    AllOf(HasSubstr("daemon/stats/cpu_ns"), HasSubstr("\"12ms\"")));
	set_counter(sysfs, "cpu_ns", 1);

	sysfs.write("daemon/heat", "fast 1 2 3\nslow 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
	EXPECT_EQ(cxltier_daemon_read(ctx.get(), &d), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    AllOf(HasSubstr("daemon/heat"), HasSubstr("fast 1 2 3")));
	sysfs.write("daemon/heat", default_heat);

	sysfs.remove("tiers/region0/demoted_pages");
	EXPECT_EQ(cxltier_daemon_read(ctx.get(), &d), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("tiers/region0/demoted_pages"));
	EXPECT_EQ(d, nullptr);
}

// The documented ranges are what the library checks against.
TEST(DaemonRange, DocumentedRanges)
{
	std::uint64_t min = 1, max = 1;
	ASSERT_EQ(cxltier_daemon_tunable_range("period_ms", &min, &max), 0);
	EXPECT_EQ(min, 10u);
	EXPECT_EQ(max, 60000u);
	ASSERT_EQ(cxltier_daemon_tunable_range("decay_shift", &min, &max), 0);
	EXPECT_EQ(min, 1u);
	EXPECT_EQ(max, 8u);
	ASSERT_EQ(cxltier_daemon_tunable_range("wmark_high_mb", &min, &max), 0);
	EXPECT_EQ(max, UINT64_MAX) << "bounded by the module's fast budget";
	EXPECT_EQ(cxltier_daemon_tunable_range("no_such", &min, &max), -ENOENT);
	EXPECT_EQ(cxltier_daemon_tunable_range(nullptr, &min, &max), -ENOENT);
}

// --- setting tunables -------------------------------------------------------------

// Several good values are all written.
TEST_F(DaemonTest, SetWritesEveryValue)
{
	auto ctx = open();
	ASSERT_EQ(set(ctx.get(), {"period_ms", "budget_mbps", "enable"}, {500, 32, 0}), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(value("period_ms"), "500");
	EXPECT_EQ(value("budget_mbps"), "32");
	EXPECT_EQ(value("enable"), "0");
	EXPECT_EQ(value("sample_mb"), "256\n") << "untouched";
	EXPECT_EQ(set(ctx.get(), {}, {}), 0) << "nothing to do";
}

// One value out of its documented range refuses the whole change before any write.
TEST_F(DaemonTest, OutOfRangeValueWritesNothing)
{
	auto ctx = open();
	EXPECT_EQ(set(ctx.get(), {"budget_mbps", "period_ms"}, {32, 5}), -EINVAL);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()),
		     "period_ms=5 is out of range (10-60000); nothing was changed");
	EXPECT_EQ(value("budget_mbps"), "64\n");
	EXPECT_EQ(set(ctx.get(), {"decay_shift"}, {9}), -EINVAL);
	EXPECT_EQ(set(ctx.get(), {"enable"}, {2}), -EINVAL);
	EXPECT_EQ(value("enable"), "1\n");
}

// Unknown, repeated and path-like names are refused before any write.
TEST_F(DaemonTest, BadNamesWriteNothing)
{
	auto ctx = open();
	EXPECT_EQ(set(ctx.get(), {"period_ms", "period"}, {500, 1}), -EINVAL);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    AllOf(HasSubstr("no daemon tunable 'period'"), HasSubstr("period_ms, budget_mbps"),
			  HasSubstr("nothing was changed")));
	EXPECT_EQ(set(ctx.get(), {"period_ms", "period_ms"}, {500, 600}), -EINVAL);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("given twice"));
	EXPECT_EQ(set(ctx.get(), {"period_ms", "../abi_version"}, {500, 7}), -EINVAL);
	EXPECT_EQ(set(ctx.get(), {"period_ms", "heat"}, {500, 2}), -EINVAL);
	EXPECT_EQ(set(ctx.get(), {"period_ms", nullptr}, {500, 2}), -EINVAL);
	EXPECT_EQ(value("period_ms"), "1000\n");
	EXPECT_EQ(sysfs.read("abi_version"), "2\n");
}

// The watermarks must stay ordered (low <= high) and within the fast budget.
TEST_F(DaemonTest, WatermarksAreCheckedTogether)
{
	auto ctx = open();
	EXPECT_EQ(set(ctx.get(), {"wmark_low_mb"}, {16}), -EINVAL);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()),
		     "wmark_low_mb=16 would be above wmark_high_mb=8 (low <= high); nothing was changed");
	sys.write("module/cxltier/parameters/fast_budget_mb", "64");
	EXPECT_EQ(set(ctx.get(), {"wmark_high_mb"}, {128}), -EINVAL);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("fast_budget_mb=64"));
	EXPECT_EQ(value("wmark_low_mb"), "4\n");
	EXPECT_EQ(value("wmark_high_mb"), "8\n");
}

// Raising both watermarks past the old high one, and lowering both below the old
// low one, work whichever order they are given in: the library writes them in the
// order that keeps them ordered, which the fake module enforces as the real one does.
TEST_F(DaemonTest, WatermarksAreWrittenInAWorkingOrder)
{
	auto ctx = open();
	ASSERT_EQ(set(ctx.get(), {"wmark_low_mb", "wmark_high_mb"}, {16, 32}), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(value("wmark_low_mb"), "16");
	EXPECT_EQ(value("wmark_high_mb"), "32");
	ASSERT_EQ(set(ctx.get(), {"wmark_high_mb", "wmark_low_mb"}, {8, 2}), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(value("wmark_low_mb"), "2");
	EXPECT_EQ(value("wmark_high_mb"), "8");
}

// When the module refuses a value the library could not check, what was written
// before gets its old value back and the message says so.
TEST_F(DaemonTest, RefusedValueUndoesEarlierWrites)
{
	sysfs.write("daemon/new_knob", "1");
	scoped_env refuse("CXLTIER_FAKE_REFUSE", (sysfs.root() / "daemon/new_knob").string());
	auto ctx = open();
	EXPECT_EQ(set(ctx.get(), {"period_ms", "budget_mbps", "new_knob"}, {500, 32, 7}), -EINVAL);
	std::string why = cxltier_get_last_error(ctx.get());
	EXPECT_THAT(why, AllOf(HasSubstr("daemon/new_knob: cannot set 7: the module refused"),
			       HasSubstr("budget_mbps restored to 64"),
			       HasSubstr("period_ms restored to 1000")));
	EXPECT_EQ(value("period_ms"), "1000");
	EXPECT_EQ(value("budget_mbps"), "64");
}

// Without daemon/ or the module, setting says which.
TEST_F(DaemonTest, SetWithoutDaemon)
{
	auto ctx = open();
	sysfs.remove("daemon");
	EXPECT_EQ(set(ctx.get(), {"period_ms"}, {500}), -EOPNOTSUPP);
	sysfs.unload();
	EXPECT_EQ(set(ctx.get(), {"period_ms"}, {500}), -ENOENT);
}

// --- region hints, page nodes and migration counters (fake /dev/cxltier) ----------

namespace {

constexpr std::uint64_t mib = 1 << 20;

class RegionDaemonTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		dev.set_regions({
			"1 kv 16777216 0 0600 rw resident=1024 fast=256 promoted=300 demoted=40 "
			"pingpong=2 skipped_pinned=3 failed=1 moved_bytes=1392640 sampled=5000 "
			"accessed=1250 hinted=64 nodes=0:256,2:768 pages=0,0,2,-1,-2",
			"2 ro 8388608 1 0644 r",
		});
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	cxltier::region_ptr open(const char *name, int access)
	{
		int err = 0;
		auto r = cxltier::open_region(ctx.get(), name, access, err);
		EXPECT_TRUE(r) << cxltier_get_last_error(ctx.get());
		return r;
	}

	std::string why() const { return cxltier_get_last_error(ctx.get()); }

	fake_sysfs sysfs;
	fake_dev dev;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// STAT's migration counters reach the region info, by name and through a region file.
TEST_F(RegionDaemonTest, StatHasMigrationCounters)
{
	int err = 0;
	auto info = cxltier::stat_region(ctx.get(), "kv", err);
	ASSERT_TRUE(info) << why();
	const cxltier_region_info *i = info.get();
	EXPECT_EQ(cxltier_region_info_get_resident(i), 1024u);
	EXPECT_EQ(cxltier_region_info_get_promoted(i), 300u);
	EXPECT_EQ(cxltier_region_info_get_demoted(i), 40u);
	EXPECT_EQ(cxltier_region_info_get_pingpong(i), 2u);
	EXPECT_EQ(cxltier_region_info_get_skipped_pinned(i), 3u);
	EXPECT_EQ(cxltier_region_info_get_failed(i), 1u);
	EXPECT_EQ(cxltier_region_info_get_moved_bytes(i), 1392640u);
	EXPECT_EQ(cxltier_region_info_get_sampled(i), 5000u);
	EXPECT_EQ(cxltier_region_info_get_accessed(i), 1250u);
	EXPECT_EQ(cxltier_region_info_get_hinted(i), 64u);

	auto r = open("kv", CXLTIER_REGION_READ);
	ASSERT_TRUE(r);
	cxltier_region_info *raw = nullptr;
	ASSERT_EQ(cxltier_region_stat_open(r.get(), &raw), 0) << why();
	cxltier::region_info_ptr by_fd(raw);
	EXPECT_EQ(cxltier_region_info_get_promoted(raw), 300u);
	EXPECT_EQ(cxltier_region_info_get_hinted(raw), 64u);
}

// A hint on a region open for writing reaches the module as given.
TEST_F(RegionDaemonTest, HintReachesTheModule)
{
	auto r = open("kv", CXLTIER_REGION_RDWR);
	ASSERT_TRUE(r);
	ASSERT_EQ(cxltier_region_set_hint(r.get(), 0, 4 * mib, CXLTIER_REGION_HINT_HOT), 0) << why();
	ASSERT_EQ(cxltier_region_set_hint(r.get(), 12 * mib, 4 * mib, CXLTIER_REGION_HINT_PIN), 0)
		<< why();
	ASSERT_EQ(cxltier_region_set_hint(r.get(), 0, 16 * mib, CXLTIER_REGION_HINT_NONE), 0) << why();
	EXPECT_EQ(dev.hints(), "kv 0 4194304 1\nkv 12582912 4194304 3\nkv 0 16777216 0\n");
}

// Bad hints are refused here, each naming the value at fault, and never sent.
TEST_F(RegionDaemonTest, BadHintsAreRefusedBeforeTheModule)
{
	auto r = open("kv", CXLTIER_REGION_RDWR);
	ASSERT_TRUE(r);
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 0, mib, static_cast<cxltier_region_hint>(4)),
		  -EINVAL);
	EXPECT_THAT(why(), HasSubstr("unknown hint 4"));
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 100, mib, CXLTIER_REGION_HINT_HOT), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("offset 100 is not a multiple of the page size"));
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 0, 0, CXLTIER_REGION_HINT_HOT), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("length 0 is not a nonzero multiple"));
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 0, 5000, CXLTIER_REGION_HINT_HOT), -EINVAL);
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 12 * mib, 8 * mib, CXLTIER_REGION_HINT_COLD),
		  -EINVAL);
	EXPECT_THAT(why(), HasSubstr("range 12582912+8388608 is not within the region (16777216 bytes)"));
	EXPECT_EQ(cxltier_region_set_hint(r.get(), UINT64_MAX - 4095, 4096, CXLTIER_REGION_HINT_COLD),
		  -EINVAL)
		<< "no overflow";
	EXPECT_EQ(cxltier_region_set_hint(nullptr, 0, mib, CXLTIER_REGION_HINT_HOT), -EINVAL);

	auto ro = open("ro", CXLTIER_REGION_READ);
	ASSERT_TRUE(ro);
	EXPECT_EQ(cxltier_region_set_hint(ro.get(), 0, mib, CXLTIER_REGION_HINT_COLD), -EACCES);
	EXPECT_THAT(why(), HasSubstr("opened read-only"));
	EXPECT_EQ(dev.hints(), "") << "nothing reached the module";
}

// The module's own refusals come back with the library's words.
TEST_F(RegionDaemonTest, ModuleRefusalsAreExplained)
{
	dev.set_regions({"1 kv 16777216 0 0600 rw hint_errno=22", "2 old 16777216 0 0600 rw hint_errno=25"});
	auto r = open("kv", CXLTIER_REGION_RDWR);
	ASSERT_TRUE(r);
	EXPECT_EQ(cxltier_region_set_hint(r.get(), 0, mib, CXLTIER_REGION_HINT_HOT), -EINVAL);
	EXPECT_THAT(why(), AllOf(HasSubstr("hint region 'kv'"), HasSubstr("the module refused")));
	auto old = open("old", CXLTIER_REGION_RDWR);
	ASSERT_TRUE(old);
	EXPECT_EQ(cxltier_region_set_hint(old.get(), 0, mib, CXLTIER_REGION_HINT_HOT), -EOPNOTSUPP);
	EXPECT_THAT(why(), HasSubstr("no migration daemon"));
}

// Hint names round-trip; anything else is unknown.
TEST(RegionHint, NamesRoundTrip)
{
	for (int h = CXLTIER_REGION_HINT_NONE; h <= CXLTIER_REGION_HINT_PIN; h++) {
		auto hint = static_cast<cxltier_region_hint>(h);
		cxltier_region_hint back;
		ASSERT_EQ(cxltier_region_hint_from_name(cxltier_region_hint_name(hint), &back), 0);
		EXPECT_EQ(back, hint);
	}
	cxltier_region_hint h;
	EXPECT_EQ(cxltier_region_hint_from_name("warm", &h), -EINVAL);
	EXPECT_EQ(cxltier_region_hint_from_name(nullptr, &h), -EINVAL);
	EXPECT_STREQ(cxltier_region_hint_name(static_cast<cxltier_region_hint>(9)), "unknown");
	EXPECT_STREQ(cxltier_region_hint_name(CXLTIER_REGION_HINT_COLD), "cold");
}

// Page nodes: node ids, not-yet-allocated and fenced pages, cut at the region's end.
TEST_F(RegionDaemonTest, PageNodes)
{
	auto r = open("kv", CXLTIER_REGION_READ);
	ASSERT_TRUE(r);
	std::vector<int> nodes(6, 99);
	std::size_t n = 0;
	ASSERT_EQ(cxltier_region_get_page_nodes(r.get(), 0, nodes.size(), nodes.data(), &n), 0)
		<< why();
	EXPECT_EQ(n, 6u);
	EXPECT_THAT(nodes, ElementsAre(0, 0, 2, CXLTIER_REGION_PAGE_NONE, CXLTIER_REGION_PAGE_FENCED,
				       CXLTIER_REGION_PAGE_NONE));
	ASSERT_EQ(cxltier_region_get_page_nodes(r.get(), 8192, 2, nodes.data(), &n), 0);
	EXPECT_EQ(n, 2u);
	EXPECT_EQ(nodes[0], 2);

	// 4096 pages in 16 MiB: asking for more from the last page gets one.
	ASSERT_EQ(cxltier_region_get_page_nodes(r.get(), 16 * mib - 4096, 10, nodes.data(), &n), 0);
	EXPECT_EQ(n, 1u);

	EXPECT_EQ(cxltier_region_get_page_nodes(r.get(), 100, 1, nodes.data(), &n), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("offset 100"));
	EXPECT_EQ(cxltier_region_get_page_nodes(r.get(), 16 * mib, 1, nodes.data(), &n), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("past the end"));
	EXPECT_EQ(cxltier_region_get_page_nodes(r.get(), 0, 1, nullptr, &n), -EINVAL);
	EXPECT_EQ(cxltier_region_get_page_nodes(r.get(), 0, 0, nullptr, &n), 0);
	EXPECT_EQ(n, 0u);
}
