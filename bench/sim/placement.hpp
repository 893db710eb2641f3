// SPDX-License-Identifier: GPL-2.0
// The simulated two-tier memory and the placement policies that run on it:
// cxltier's policy core and the baselines it is measured against.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace.hpp"

namespace cxltier::sim {

enum : uint8_t { TIER_NONE = 0, TIER_FAST = 1, TIER_SLOW = 2 };

struct run_config {
	uint32_t fast_pages;	// fast-tier capacity (pages)
	uint32_t budget;	// migrations per period in each direction (pages)
	uint32_t wmark_low;	// free fast pages (pages)
	uint32_t wmark_high;	// free fast pages (pages)
	uint64_t period;	// accesses per period
	uint32_t pp_window;	// a promotion this soon after a demotion is ping-pong (periods)
	uint64_t window;	// accesses per window of the per-window oracle
	bool adaptive_obs;	// sampled policies see the module's adaptive window only
};

// Pages, their tier and the migration counters.  Every policy migrates
// through here, so that every policy is counted the same way.
class memory {
public:
	memory(uint32_t npages, const run_config &cfg);

	uint8_t tier(uint32_t p) const { return tier_[p]; }
	uint32_t npages() const { return static_cast<uint32_t>(tier_.size()); }
	int64_t free() const { return static_cast<int64_t>(cap_) - nr_fast_; }
	uint32_t placed() const { return nr_placed_; }
	// Placement without migration: first touch, or an oracle's start.
	void place(uint32_t p, uint8_t t);
	// False, and nothing moves, when the fast tier is full.
	bool promote(uint32_t p);
	void demote(uint32_t p);

	uint32_t period = 0;
	uint64_t promotions = 0, demotions = 0, pingpong = 0, failed = 0;
	// The module's count (pingpong_pages, kmod/migrate.c): moves either way
	// that reverse the page's last move, made fewer than 16 periods before.
	uint64_t reversals = 0;

private:
	void moved(uint32_t p, uint8_t to);

	std::vector<uint8_t> tier_;
	std::vector<uint32_t> last_move_;
	std::vector<uint8_t> last_to_;
	uint32_t cap_, nr_fast_ = 0, nr_placed_ = 0, pp_window_;
};

class policy {
public:
	virtual ~policy() = default;
	// Before the first access; oracles place every page here.
	virtual void start(memory &) {}
	// A page placed at first touch.
	virtual void placed(uint32_t, uint8_t) {}
	// Per-access hook, only for models of hardware that traps accesses
	// (hint faults); the others see only end_period()'s samples.
	virtual bool wants_accesses() const { return false; }
	virtual void access(memory &, uint32_t, uint64_t) {}
	// @sampled: the distinct pages accessed during the period, as the
	// accessed bits harvested at its end would say; @now: accesses so far.
	virtual void end_period(memory &m, const std::vector<uint32_t> &sampled, uint64_t now) = 0;
};

// "first-touch", "nb-tiering", "clock", "oracle-static", "oracle-window",
// "cxltier" or "cxltier:key=value:..." with keys decay, idle, burst, conf,
// hyst, resid, ifdr, bfdr (struct cxlt_policy_params).  Throws
// std::invalid_argument.
std::unique_ptr<policy> make_policy(const std::string &spec, const trace &tr,
				    const run_config &cfg);

// The pages the fast tier holds under the offline reference: the @cap most
// accessed pages of acc[begin, end).  Ties go to pages in @prefer (may be
// empty), so that a window oracle does not migrate for nothing.
std::vector<uint32_t> top_pages(const trace &tr, uint64_t begin, uint64_t end, uint32_t cap,
				const std::vector<uint8_t> &prefer);

} // namespace cxltier::sim
