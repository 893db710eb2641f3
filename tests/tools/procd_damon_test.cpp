// SPDX-License-Identifier: GPL-2.0
// cxltier-procd's reader of DAMON's damon_aggregated trace lines.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "damon.hpp"
#include "fake_sysfs.hpp"

using cxlt_procd::aggregation_reader;

namespace {

// A line as trace_pipe prints it (Linux 6.12's format).
std::string line(unsigned t, unsigned nr, unsigned long start, unsigned long end, unsigned acc)
{
	return fmt::format("       kdamond.0-412     [001] .....   123.456789: damon_aggregated: "
			   "target_id={} nr_regions={} {}-{}: {} 3", t, nr, start, end, acc);
}

} // namespace

TEST(ProcdDamon, CompleteOnlyWhenEveryTargetHasAllItsRegions)
{
	aggregation_reader r(2);
	EXPECT_TRUE(r.feed(line(0, 2, 4096, 8192, 5)));
	EXPECT_TRUE(r.feed(line(0, 2, 8192, 16384, 0)));
	EXPECT_FALSE(r.complete());
	EXPECT_TRUE(r.feed(line(1, 1, 4096, 65536, 7)));
	ASSERT_TRUE(r.complete());
	auto got = r.take();
	ASSERT_EQ(2u, got.size());
	ASSERT_EQ(2u, got[0].size());
	EXPECT_EQ(4096u, got[0][0].start);
	EXPECT_EQ(16384u, got[0][1].end);
	EXPECT_EQ(5u, got[0][0].nr_accesses);
	ASSERT_EQ(1u, got[1].size());
	EXPECT_EQ(7u, got[1][0].nr_accesses);
	EXPECT_FALSE(r.complete());
}

// Two aggregations read at once: the newer one counts.
TEST(ProcdDamon, NewestAggregationWins)
{
	aggregation_reader r(1);
	r.feed(line(0, 1, 0x1000, 0x2000, 1));
	r.feed(line(0, 1, 0x1000, 0x2000, 9));
	auto got = r.take();
	ASSERT_EQ(1u, got[0].size());
	EXPECT_EQ(9u, got[0][0].nr_accesses);
}

// Lines lost in the middle (a full trace buffer) never make a mixed aggregation.
TEST(ProcdDamon, LostLinesStartOver)
{
	aggregation_reader r(1);
	r.feed(line(0, 3, 0x1000, 0x2000, 1));
	r.feed(line(0, 3, 0x2000, 0x3000, 1));
	// The next aggregation's first region: the address went back.
	r.feed(line(0, 3, 0x1000, 0x2000, 4));
	EXPECT_FALSE(r.complete());
	r.feed(line(0, 3, 0x2000, 0x3000, 4));
	r.feed(line(0, 3, 0x3000, 0x4000, 4));
	ASSERT_TRUE(r.complete());
	auto got = r.take();
	ASSERT_EQ(3u, got[0].size());
	for (const auto &g : got[0])
		EXPECT_EQ(4u, g.nr_accesses);
	// A region count that changes mid-way starts over too.
	r.feed(line(0, 2, 0x1000, 0x2000, 1));
	r.feed(line(0, 5, 0x2000, 0x3000, 1));
	EXPECT_FALSE(r.complete());
}

TEST(ProcdDamon, OtherLinesAndTargetsIgnored)
{
	aggregation_reader r(1);
	EXPECT_FALSE(r.feed("# tracer: nop"));
	EXPECT_FALSE(r.feed("kdamond.0-1 [000] ..... 1.0: damos_before_apply: ctx_idx=0"));
	EXPECT_FALSE(r.feed(line(1, 1, 0x1000, 0x2000, 1)));	// no such target
	EXPECT_FALSE(r.feed(line(0, 1, 0x2000, 0x1000, 1)));	// empty range
	EXPECT_FALSE(r.feed(line(0, 0, 0x1000, 0x2000, 1)));	// no regions
	EXPECT_FALSE(r.complete());
}

namespace {

// A DAMON sysfs tree with @nr kdamonds, the first @on of them on, and DAMON_STAT's
// parameter (when @stat is not empty).
struct fake_damon {
	cxltier_test::fake_tree t{"sys"};

	fake_damon(int nr, int on, const std::string &stat)
	{
		t.write("kernel/mm/damon/admin/kdamonds/nr_kdamonds", std::to_string(nr));
		for (int i = 0; i < nr; i++)
			t.write(fmt::format("kernel/mm/damon/admin/kdamonds/{}/state", i), i < on ? "on" : "off");
		if (!stat.empty())
			t.write("module/damon_stat/parameters/enabled", stat);
	}
	std::string root() const { return (t.root() / "kernel/mm/damon/admin").string(); }
	std::string stat() const { return (t.root() / "module/damon_stat/parameters/enabled").string(); }
};

std::string refusal(const fake_damon &s)
{
	try {
		cxlt_procd::damon_monitor m(s.root(), s.stat());
	} catch (const std::runtime_error &e) {
		return e.what();
	}
	return "";
}

} // namespace

// Debian's 7.3 turns DAMON_STAT on at boot, and it holds DAMON for itself: the service
// says so, and how to turn it off, before it fails with EBUSY at its first process.
TEST(ProcdDamon, RefusesWhileDamonStatHoldsDamon)
{
	fake_damon on(1, 0, "Y");
	std::string why = refusal(on);
	EXPECT_NE(std::string::npos, why.find("DAMON_STAT")) << why;
	EXPECT_NE(std::string::npos, why.find("echo N > " + on.stat())) << why;
	EXPECT_NE(std::string::npos, why.find("damon_stat.enabled=N")) << why;

	fake_damon off(1, 0, "N"), none(1, 0, "");
	EXPECT_EQ("", refusal(off));
	EXPECT_EQ("", refusal(none));
}

TEST(ProcdDamon, RefusesWhileAnotherKdamondRuns)
{
	fake_damon busy(2, 1, "N");
	EXPECT_NE(std::string::npos, refusal(busy).find("kdamond 0 is on"));
}
