// SPDX-License-Identifier: GPL-2.0
// cxltierctl top's frames from two samples taken here, with the time between them
// set by the test, so every rate is exact: the daemon's counters and each tier's
// and region's change between the samples (fake module tree, fake /dev/cxltier
// linked into this program).
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon_fake_sys.hpp"
#include "sample.hpp"

using namespace cxltier_test;
using namespace cxltierctl;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace {

class TopFrameTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (::sysconf(_SC_PAGESIZE) != 4096)
			GTEST_SKIP() << "the expected MiB/s assume 4 KiB pages";
		add_daemon(sysfs);
		add_daemon_tier(sysfs);
		sys.add_dram_and_tier();
		dev.set_regions(regions_before);
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	// What the daemon did in 2 seconds: 1000 pages promoted and 400 demoted (800
	// and 200 of them off and onto region0), 20 ms of CPU, two periods.
	void two_seconds_of_work()
	{
		set_counter(sysfs, "promoted_pages", 4000);
		set_counter(sysfs, "demoted_pages", 1400);
		set_counter(sysfs, "moved_bytes", 16384000 + 1400 * 4096);
		set_counter(sysfs, "cpu_ns", 270000000);
		set_counter(sysfs, "periods", 122);
		sysfs.write("tiers/region0/promoted_pages", "3800");
		sysfs.write("tiers/region0/demoted_pages", "1200");
		dev.set_regions(regions_after);
	}

	// Two samples 2 s apart by their clocks.
	std::pair<sample, sample> samples()
	{
		sample a = take_sample(ctx.get());
		two_seconds_of_work();
		sample b = take_sample(ctx.get());
		a.time = 100.0;
		b.time = 102.0;
		return {std::move(a), std::move(b)};
	}

	static std::string line_starting(const std::vector<std::string> &lines, const std::string &p)
	{
		for (const auto &l : lines)
			if (l.starts_with(p))
				return l;
		return "";
	}

	static std::size_t index_of(const std::vector<std::string> &lines, const std::string &p)
	{
		for (std::size_t i = 0; i < lines.size(); i++)
			if (lines[i].starts_with(p))
				return i;
		return lines.size();
	}

	// kv was hot since the start but is cooling; logs was cold and is heating up:
	// over this interval logs is the hotter one.
	std::vector<std::string> regions_before = {
		"1 kv 1073741824 0 0600 rw resident=1000 fast=500 promoted=300 sampled=5000 accessed=4000",
		"2 logs 268435456 0 0600 rw resident=100 sampled=1000 accessed=10",
	};
	std::vector<std::string> regions_after = {
		"1 kv 1073741824 0 0600 rw resident=1000 fast=700 promoted=500 demoted=20 sampled=6000 "
		"accessed=4100",
		"2 logs 268435456 0 0600 rw resident=100 sampled=2000 accessed=900 hinted=8",
	};

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// Process mode's line: only once cxltier-procd has reported a period.
TEST_F(TopFrameTest, ProcessModeOnceItReported)
{
	auto [a, b] = samples();
	auto f = top_frame(&a, b, 2.0, {});
	EXPECT_EQ(index_of(f, "process mode"), f.size());

	set_counter(sysfs, "process_periods", 7);
	set_counter(sysfs, "process_processes", 2);
	set_counter(sysfs, "process_managed_pages", 4096);
	set_counter(sysfs, "process_fast_pages", 1024);
	set_counter(sysfs, "process_promoted_pages", 300);
	set_counter(sysfs, "process_demoted_pages", 40);
	sample c = take_sample(ctx.get());
	c.time = 104.0;
	f = top_frame(&b, c, 2.0, {});
	ASSERT_LT(index_of(f, "process mode"), f.size());
	EXPECT_EQ(f[index_of(f, "process mode")],
		  "process mode: 2 processes, 16 MiB (4 MiB on the fast tier), 300 pages promoted, 40 demoted");
}

// Every rate is the difference of two samples over the 2 s between them: the
// daemon's CPU share, pages and MiB per second each way, each tier's, and each
// region's; the region hottest over the interval comes first.
TEST_F(TopFrameTest, RatesFromTwoSamples)
{
	auto [a, b] = samples();
	auto f = top_frame(&a, b, 2.0, {});
	ASSERT_GE(f.size(), 2u);
	EXPECT_EQ(f[0], "cxltier top - every 2.0 s - daemon on, period 1000 ms, budget 64 MiB/s, CPU 1.0%");
	EXPECT_EQ(f[1], "managed 256 MiB (64 MiB on the fast tier), 122 periods (+2), metadata 1 MiB");
	EXPECT_THAT(line_starting(f, "   2  tier region0"), ContainsRegex("400\\.0 +100\\.0$"));
	EXPECT_THAT(line_starting(f, "   0  dram"), ContainsRegex("- +-$"));
	EXPECT_THAT(line_starting(f, "promoted "), ContainsRegex("500\\.0 +1\\.95 +4000$"));
	EXPECT_THAT(line_starting(f, "demoted "), ContainsRegex("200\\.0 +0\\.78 +1400$"));
	EXPECT_THAT(line_starting(f, "copied "), ContainsRegex("2\\.73 +21\\.1 MiB$"));
	EXPECT_THAT(line_starting(f, "ping-pong "), ContainsRegex("0\\.0 +12$"));

	std::size_t logs = index_of(f, "logs "), kv = index_of(f, "kv ");
	ASSERT_LT(logs, f.size());
	ASSERT_LT(kv, f.size());
	EXPECT_LT(logs, kv) << "89% accessed over the interval beats kv's 10%";
	EXPECT_THAT(f[logs], ContainsRegex("89\\.0% +0\\.0 +0\\.0 +0 +8$"));
	EXPECT_THAT(f[kv], ContainsRegex("70% +10\\.0% +100\\.0 +10\\.0 +0 +0$"));
	for (const auto &l : f)
		EXPECT_EQ(l.find('\x1b'), std::string::npos) << l;
}

// The first frame of the live view has no previous sample: rates show as "-".
TEST_F(TopFrameTest, FirstFrameHasNoRates)
{
	sample s = take_sample(ctx.get());
	auto f = top_frame(nullptr, s, 2.0, {});
	EXPECT_THAT(f[0], HasSubstr("CPU -"));
	EXPECT_THAT(f[1], HasSubstr("120 periods,"));
	EXPECT_THAT(line_starting(f, "promoted "), ContainsRegex("- +- +3000$"));
	// Without an interval the hottest region is by accessed / sampled since the start.
	EXPECT_LT(index_of(f, "kv "), index_of(f, "logs "));
}

// A counter that went back (the module was reloaded) has no rate, not a huge one.
TEST_F(TopFrameTest, CounterGoingBackHasNoRate)
{
	sample a = take_sample(ctx.get());
	set_counter(sysfs, "promoted_pages", 10);
	sample b = take_sample(ctx.get());
	a.time = 1;
	b.time = 3;
	auto f = top_frame(&a, b, 2.0, {});
	EXPECT_THAT(line_starting(f, "promoted "), ContainsRegex("- +- +10$"));
}

// Heat: buckets up to where a page touched every period settles (bucket 8) always,
// hotter ones only when they hold pages; the fullest bucket of either tier gets the
// whole bar, so the two tiers compare.
TEST_F(TopFrameTest, HeatHistogram)
{
	sample s = take_sample(ctx.get());
	auto f = top_frame(nullptr, s, 2.0, {});
	std::size_t head = index_of(f, "       HEAT");
	ASSERT_LT(head, f.size());
	EXPECT_THAT(f[head], AllOf(HasSubstr("FAST (pages)"), HasSubstr("SLOW (pages)")));
	EXPECT_THAT(f[head + 1], StartsWith("     0-4095  #  "));
	EXPECT_THAT(f[head + 1], HasSubstr(std::string(20, '#') + "     30000"));
	EXPECT_THAT(f[head + 9], StartsWith("32768-36863"));
	EXPECT_EQ(f[head + 10], "") << "buckets 9-15 are empty";

	sysfs.write("daemon/heat", "fast 0 0 0 0 0 0 0 0 0 0 0 0 7 0 0 0\nslow 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
	s = take_sample(ctx.get());
	f = top_frame(nullptr, s, 2.0, {});
	head = index_of(f, "       HEAT");
	EXPECT_THAT(f[head + 13], AllOf(StartsWith("49152-53247  " + std::string(20, '#')), HasSubstr(" 7")));
	EXPECT_EQ(f[head + 14], "");
}

// On a small terminal no line is wider than it, and the regions that do not fit
// are counted instead.
TEST_F(TopFrameTest, FitsTheTerminal)
{
	std::vector<std::string> many;
	for (int i = 1; i <= 8; i++)
		many.push_back(std::to_string(i) + " region-with-a-long-name-" + std::to_string(i) +
			       " 1073741824 0 0600 rw resident=10 sampled=100 accessed=" +
			       std::to_string(i));
	dev.set_regions(many);
	sample s = take_sample(ctx.get());
	auto f = top_frame(nullptr, s, 2.0, {60, 30});
	for (const auto &l : f)
		EXPECT_LE(l.size(), 60u) << l;
	EXPECT_EQ(f.back(), "(+5 more regions)");
	EXPECT_THAT(f[f.size() - 4], StartsWith("region-with-a-long-name-8"));
	// Without a size (top --once), every region.
	f = top_frame(nullptr, s, 2.0, {});
	EXPECT_THAT(f.back(), StartsWith("region-with-a-long-name-1 "));
}

// Without access to /dev/cxltier the frame says why there are no regions.
TEST_F(TopFrameTest, RegionsUnavailable)
{
	scoped_env no_dev(CXLTIER_DEV_ENV, (sysfs.root() / "missing").string());
	sample s = take_sample(ctx.get());
	auto f = top_frame(nullptr, s, 2.0, {});
	EXPECT_THAT(f.back(), AllOf(StartsWith("Regions: "), HasSubstr("is cxltier.ko loaded?")));
}
