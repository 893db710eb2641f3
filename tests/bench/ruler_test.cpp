// SPDX-License-Identifier: GPL-2.0
// The guest benchmark's ruler (bench/guest/ruler.hpp): the tier a page of
// cxlt-bench-zipf's working set counts on, from move_pages(2)'s answers.  The case that
// made it: a sample in which the kernel could place no page, because cxltier's daemon
// had unmapped them all to sample them, read ftaf 0.0 while the hot set sat in DRAM.
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <vector>

#include "ruler.hpp"

using namespace cxlt_bench;

namespace {

const std::set<int> fast = { 0 };	// node 0 DRAM, node 2 CXL
constexpr int DRAM = 0, CXL = 2, GONE = -EFAULT, NOPAGE = -ENOENT;

} // namespace

TEST(Ruler, PlacedPagesCountWhereTheKernelPutsThem)
{
	std::vector<page_history> h(3);
	reading r = read_placement(h, { DRAM, CXL, DRAM }, { 0.5, 0.3, 0.2 }, fast, 0, 2);

	EXPECT_DOUBLE_EQ(r.ftaf, 0.7);
	EXPECT_DOUBLE_EQ(r.ftaf_mapped, 0.7);
	EXPECT_EQ(r.fast_pages, 2u);
	EXPECT_EQ(r.absent_pages, 0u);
	EXPECT_EQ(r.carried_pages, 0u);
	EXPECT_EQ(r.moved, 0u);
}

// The blind spot: every page unmapped at the sample.  The reading is the last placed
// one; only ftaf_mapped, the rule without the carry, drops to 0.
TEST(Ruler, AnUnmappedPageCountsWhereTheKernelLastPlacedIt)
{
	const std::vector<double> p = { 0.6, 0.3, 0.1 };
	std::vector<page_history> h(3);

	read_placement(h, { DRAM, DRAM, CXL }, p, fast, 0, 2);
	reading r = read_placement(h, { GONE, NOPAGE, GONE }, p, fast, 1, 2);

	EXPECT_DOUBLE_EQ(r.ftaf, 0.9);
	EXPECT_DOUBLE_EQ(r.ftaf_mapped, 0.0);
	EXPECT_EQ(r.fast_pages, 2u);
	EXPECT_EQ(r.absent_pages, 3u);
	EXPECT_EQ(r.carried_pages, 3u);
	EXPECT_DOUBLE_EQ(r.carried_mass, 1.0);
	EXPECT_EQ(r.moved, 0u);
}

TEST(Ruler, APageNeverPlacedCountsOffDram)
{
	std::vector<page_history> h(2);
	reading r = read_placement(h, { NOPAGE, DRAM }, { 0.75, 0.25 }, fast, 0, 2);

	EXPECT_DOUBLE_EQ(r.ftaf, 0.25);
	EXPECT_EQ(r.fast_pages, 1u);
	EXPECT_EQ(r.absent_pages, 1u);
	EXPECT_EQ(r.carried_pages, 0u);
	EXPECT_EQ(h[0].tier(), -1);
}

// Moves are changes between placed answers: a gap without an answer is no move, and a
// page that comes back on the other tier moved then.
TEST(Ruler, MovesAndPingPongAreSeenBetweenPlacedAnswers)
{
	page_history h;

	EXPECT_FALSE(h.observe(DRAM, fast, 0, 2).moved);
	page_history::seen s = h.observe(GONE, fast, 1, 2);
	EXPECT_TRUE(s.carried);
	EXPECT_EQ(s.tier, 1);
	EXPECT_FALSE(s.moved);
	s = h.observe(CXL, fast, 2, 2);
	EXPECT_TRUE(s.moved);
	EXPECT_FALSE(s.pingpong);	// its first move
	EXPECT_EQ(s.tier, 0);
	s = h.observe(DRAM, fast, 4, 2);	// back within 2 samples
	EXPECT_TRUE(s.moved);
	EXPECT_TRUE(s.pingpong);
	s = h.observe(CXL, fast, 7, 2);	// back after 3
	EXPECT_TRUE(s.moved);
	EXPECT_FALSE(s.pingpong);
	EXPECT_FALSE(h.observe(CXL, fast, 8, 2).moved);
}

// The ruler's error against another answer of the same moment: only pages the kernel
// could not place, only where that answer places them, weighted by their access
// probability.
TEST(Ruler, CarriedDisagreementIsTheMassTheRulerGotWrong)
{
	const std::vector<double> p = { 0.35, 0.25, 0.2, 0.1, 0.06, 0.04 };
	std::vector<page_history> h(6);

	read_placement(h, { DRAM, DRAM, CXL, DRAM, NOPAGE, NOPAGE }, p, fast, 0, 2);
	const std::vector<int> now = { GONE, GONE, GONE, CXL, GONE, GONE };
	read_placement(h, now, p, fast, 1, 2);
	// Page 0 was demoted while unmapped, page 1 stayed, the module does not place
	// page 2, page 3 is placed by the kernel (so the module's answer is not asked),
	// and of the two the kernel never placed (counted off DRAM) page 4 is on DRAM.
	const std::vector<int> own = { CXL, DRAM, -1, DRAM, DRAM, CXL };

	EXPECT_DOUBLE_EQ(carried_disagreement(h, now, own, p, fast), 0.35 + 0.06);
}
