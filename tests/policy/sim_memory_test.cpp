// SPDX-License-Identifier: GPL-2.0
// The simulator's two-tier memory (bench/sim/placement.cpp): its two ping-pong
// counts.  pingpong is the simulator's goal's (a promotion within pp_window
// periods of the page's demotion); reversals is the module's pingpong_pages
// (kmod/migrate.c: a move either way that undoes the page's last move, made
// fewer than 16 periods before), so that a guest row and a simulated one can be
// compared on one ruler.
#include <gtest/gtest.h>

#include "placement.hpp"

using namespace cxltier::sim;

namespace {

run_config config(uint32_t fast, uint32_t pp_window)
{
	run_config c{};
	c.fast_pages = fast;
	c.budget = fast;
	c.period = 100;
	c.pp_window = pp_window;
	c.window = 100;
	return c;
}

} // namespace

TEST(SimMemory, ReversalsCountBothDirectionsWithinSixteenPeriods)
{
	memory m(4, config(4, 10));

	m.place(0, TIER_SLOW);
	m.place(1, TIER_FAST);
	m.period = 1;
	ASSERT_TRUE(m.promote(0));	// first move of page 0: nothing to undo
	m.demote(1);			// first move of page 1
	EXPECT_EQ(m.reversals, 0U);
	m.period = 16;
	m.demote(0);			// 15 periods after its promotion: a reversal
	EXPECT_EQ(m.reversals, 1U);
	EXPECT_EQ(m.pingpong, 0U);	// a demotion is never the one-way count's
	m.period = 17;
	ASSERT_TRUE(m.promote(1));	// 16 periods after its demotion: not a reversal
	EXPECT_EQ(m.reversals, 1U);
	EXPECT_EQ(m.pingpong, 0U);	// and beyond pp_window (10) too
	m.period = 20;
	ASSERT_TRUE(m.promote(0));	// 4 periods after its demotion: both counts
	EXPECT_EQ(m.reversals, 2U);
	EXPECT_EQ(m.pingpong, 1U);
	EXPECT_EQ(m.promotions, 3U);
	EXPECT_EQ(m.demotions, 2U);
}

TEST(SimMemory, PlacementIsNoMoveAndAFailedPromotionCountsNothing)
{
	memory m(3, config(1, 16));

	m.place(0, TIER_FAST);
	m.place(1, TIER_SLOW);
	m.place(2, TIER_SLOW);
	EXPECT_EQ(m.placed(), 3U);
	m.period = 1;
	EXPECT_FALSE(m.promote(1));	// the fast tier is full
	EXPECT_EQ(m.failed, 1U);
	m.demote(0);			// its first move: placement was none
	ASSERT_TRUE(m.promote(1));
	m.period = 2;
	m.demote(1);			// undoes its promotion
	EXPECT_EQ(m.reversals, 1U);
	EXPECT_EQ(m.pingpong, 0U);
	ASSERT_TRUE(m.promote(0));	// undoes its demotion, a period later
	EXPECT_EQ(m.reversals, 2U);
	EXPECT_EQ(m.pingpong, 1U);
	EXPECT_EQ(m.placed(), 3U);	// moves are not placements
}
