// SPDX-License-Identifier: GPL-2.0
#include "placement.hpp"

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>

#include "cxlt_policy.h"

namespace cxltier::sim {

// CXLT_PINGPONG_PERIODS of kmod/migrate.h.
constexpr uint32_t REVERSAL_PERIODS = 16;

memory::memory(uint32_t npages, const run_config &cfg)
	: tier_(npages, TIER_NONE), last_move_(npages, UINT32_MAX), last_to_(npages, TIER_NONE),
	  cap_(cfg.fast_pages), pp_window_(cfg.pp_window)
{
}

void memory::place(uint32_t p, uint8_t t)
{
	if (tier_[p] == TIER_NONE && t != TIER_NONE)
		nr_placed_++;
	if (tier_[p] == TIER_FAST)
		nr_fast_--;
	if (t == TIER_FAST)
		nr_fast_++;
	tier_[p] = t;
}

void memory::moved(uint32_t p, uint8_t to)
{
	// A promotion undoes the page's last migration, a demotion (there are
	// two tiers): ping-pong when that demotion was recent.
	if (to == TIER_FAST && last_move_[p] != UINT32_MAX &&
	    period - last_move_[p] <= pp_window_)
		pingpong++;
	if (last_move_[p] != UINT32_MAX && last_to_[p] != to &&
	    period - last_move_[p] < REVERSAL_PERIODS)
		reversals++;
	last_move_[p] = period;
	last_to_[p] = to;
	place(p, to);
}

bool memory::promote(uint32_t p)
{
	if (tier_[p] != TIER_SLOW)
		throw std::logic_error("promotion of a page not on the slow tier");
	if (nr_fast_ >= cap_) {
		failed++;
		return false;
	}
	promotions++;
	moved(p, TIER_FAST);
	return true;
}

void memory::demote(uint32_t p)
{
	if (tier_[p] != TIER_FAST)
		throw std::logic_error("demotion of a page not on the fast tier");
	demotions++;
	moved(p, TIER_SLOW);
}

std::vector<uint32_t> top_pages(const trace &tr, uint64_t begin, uint64_t end, uint32_t cap,
				const std::vector<uint8_t> &prefer)
{
	std::vector<uint32_t> cnt(tr.npages, 0), pages;

	for (uint64_t i = begin; i < end && i < tr.acc.size(); i++)
		cnt[tr.acc[i]]++;
	for (uint32_t p = 0; p < tr.npages; p++)
		if (cnt[p])
			pages.push_back(p);
	auto better = [&](uint32_t a, uint32_t b) {
		if (cnt[a] != cnt[b])
			return cnt[a] > cnt[b];
		bool pa = !prefer.empty() && prefer[a] == TIER_FAST;
		bool pb = !prefer.empty() && prefer[b] == TIER_FAST;
		if (pa != pb)
			return pa;
		return a < b;
	};
	if (pages.size() > cap) {
		std::nth_element(pages.begin(), pages.begin() + cap, pages.end(), better);
		pages.resize(cap);
	}
	return pages;
}

namespace {

// The kernel's LRU reduced to what reclaim sees: a CLOCK over the fast-tier
// pages with the accessed bit as the reference bit.
class fast_clock {
public:
	explicit fast_clock(uint32_t npages) : ref_(npages, 0) {}

	void ref(uint32_t p) { ref_[p] = 1; }

	// The next fast page whose bit is clear, clearing bits on the way;
	// -1 if the fast tier is empty.
	int64_t victim(const memory &m)
	{
		const uint32_t n = m.npages();

		for (uint64_t step = 0; step < 2ULL * n + 1; step++) {
			uint32_t p = hand_;

			hand_ = hand_ + 1 < n ? hand_ + 1 : 0;
			if (m.tier(p) != TIER_FAST)
				continue;
			if (ref_[p]) {
				ref_[p] = 0;
				continue;
			}
			return p;
		}
		return -1;
	}

private:
	std::vector<uint8_t> ref_;
	uint32_t hand_ = 0;
};

class first_touch : public policy {
public:
	void end_period(memory &, const std::vector<uint32_t> &, uint64_t) override {}
};

// NUMA balancing in memory-tiering mode (numa_balancing=2), as in
// kernel/sched/fair.c and mm/migrate.c of Linux 6.12:
//  - the scanner makes slow-tier pages PROT_NONE and stamps the time; top-tier
//    pages are not scanned; a page still PROT_NONE keeps its old stamp;
//  - the first access after that faults; the page is a promotion candidate if
//    the fault latency (fault time - stamp) is below the hot threshold;
//  - candidates beyond the promotion rate limit are not promoted;
//  - the threshold starts at the default (one scan period) and moves by 1/8
//    of it per adjustment window to bring candidates to the rate limit;
//  - promotion needs free fast pages above the high watermark, otherwise it
//    fails and kswapd demotes the LRU-coldest fast pages up to the promo
//    watermark (high + the low-high gap).
// The scan covers the whole slow tier every period (the scan period is one
// period) and the rate limit is the same budget every policy gets.
class nb_tiering : public policy {
public:
	nb_tiering(uint32_t npages, const run_config &cfg)
		: cfg_(cfg), stamp_(npages, UNMARKED), lru_(npages),
		  ref_th_(cfg.period), th_(cfg.period), unit_th_(cfg.period * 2 / 16)
	{
	}

	bool wants_accesses() const override { return true; }

	void access(memory &m, uint32_t p, uint64_t now) override
	{
		lru_.ref(p);
		if (stamp_[p] == UNMARKED)
			return;
		uint64_t latency = now - stamp_[p];

		stamp_[p] = UNMARKED;
		if (m.tier(p) != TIER_SLOW || latency >= th_)
			return;
		cand_++;
		if (rl_cand_ >= cfg_.budget)
			return;
		rl_cand_++;
		if (m.free() > static_cast<int64_t>(cfg_.wmark_high)) {
			m.promote(p);
			return;
		}
		// The kernel wakes kswapd and fails this promotion.
		m.failed++;
		int64_t promo = 2LL * cfg_.wmark_high - cfg_.wmark_low;

		while (m.free() < std::max<int64_t>(promo, 1)) {
			int64_t v = lru_.victim(m);

			if (v < 0)
				break;
			m.demote(static_cast<uint32_t>(v));
		}
	}

	void end_period(memory &m, const std::vector<uint32_t> &, uint64_t now) override
	{
		for (uint32_t p = 0; p < m.npages(); p++)
			if (m.tier(p) == TIER_SLOW && stamp_[p] == UNMARKED)
				stamp_[p] = now;
		rl_cand_ = 0;
		if (++periods_ % ADJUST_PERIODS)
			return;
		// numa_promotion_adjust_threshold()
		uint64_t ref_cand = static_cast<uint64_t>(cfg_.budget) * ADJUST_PERIODS;

		if (cand_ > ref_cand * 11 / 10)
			th_ = std::max(th_ - unit_th_, unit_th_);
		else if (cand_ < ref_cand * 9 / 10)
			th_ = std::min(th_ + unit_th_, ref_th_ * 2);
		cand_ = 0;
	}

private:
	static constexpr uint64_t UNMARKED = UINT64_MAX;
	// The kernel adjusts once per 60 scan periods; 16 keeps it responsive
	// within our shorter runs.
	static constexpr uint32_t ADJUST_PERIODS = 16;

	run_config cfg_;
	std::vector<uint64_t> stamp_;
	fast_clock lru_;
	uint64_t ref_th_, th_, unit_th_;
	uint64_t cand_ = 0;
	uint32_t rl_cand_ = 0, periods_ = 0;
};

// LRU-style tiering: every sampled slow page is promoted (up to the budget,
// in the order the period first touched them), and CLOCK picks the victims.
class clock_policy : public policy {
public:
	clock_policy(uint32_t npages, const run_config &cfg) : cfg_(cfg), lru_(npages) {}

	void end_period(memory &m, const std::vector<uint32_t> &sampled, uint64_t) override
	{
		uint32_t n = 0;

		for (uint32_t p : sampled)
			lru_.ref(p);
		for (uint32_t p : sampled) {
			if (n >= cfg_.budget)
				break;
			if (m.tier(p) != TIER_SLOW)
				continue;
			while (m.free() <= static_cast<int64_t>(cfg_.wmark_high)) {
				int64_t v = lru_.victim(m);

				if (v < 0)
					break;
				m.demote(static_cast<uint32_t>(v));
			}
			if (m.promote(p))
				n++;
		}
	}

private:
	run_config cfg_;
	fast_clock lru_;
};

// The C most-accessed pages of the whole trace on the fast tier, from the
// start: the best static placement.
class oracle_static : public policy {
public:
	oracle_static(const trace &tr, const run_config &cfg) : tr_(tr), cfg_(cfg) {}

	void start(memory &m) override
	{
		for (uint32_t p = 0; p < m.npages(); p++)
			m.place(p, TIER_SLOW);
		for (uint32_t p : top_pages(tr_, 0, tr_.acc.size(), cfg_.fast_pages, {}))
			m.place(p, TIER_FAST);
	}

	void end_period(memory &, const std::vector<uint32_t> &, uint64_t) override {}

private:
	const trace &tr_;
	run_config cfg_;
};

// At the start of every window, the C most-accessed pages of that window,
// migrated there instantly and without a budget.
class oracle_window : public policy {
public:
	oracle_window(const trace &tr, const run_config &cfg) : tr_(tr), cfg_(cfg) {}

	void start(memory &m) override
	{
		for (uint32_t p = 0; p < m.npages(); p++)
			m.place(p, TIER_SLOW);
		for (uint32_t p : top_pages(tr_, 0, cfg_.window, cfg_.fast_pages, {}))
			m.place(p, TIER_FAST);
	}

	void end_period(memory &m, const std::vector<uint32_t> &, uint64_t now) override
	{
		if (now % cfg_.window || now >= tr_.acc.size())
			return;
		std::vector<uint8_t> cur(m.npages()), want(m.npages(), 0);

		for (uint32_t p = 0; p < m.npages(); p++)
			cur[p] = m.tier(p);
		for (uint32_t p : top_pages(tr_, now, now + cfg_.window, cfg_.fast_pages, cur))
			want[p] = 1;
		for (uint32_t p = 0; p < m.npages(); p++)
			if (m.tier(p) == TIER_FAST && !want[p])
				m.demote(p);
		for (uint32_t p = 0; p < m.npages(); p++)
			if (m.tier(p) == TIER_SLOW && want[p])
				m.promote(p);
	}

private:
	const trace &tr_;
	run_config cfg_;
};

// The policy core, fed exactly what the module will feed it.
class cxltier_policy : public policy {
public:
	cxltier_policy(uint32_t npages, const run_config &cfg, const std::string &opts)
		: mem_((cxlt_policy_size(npages) + 7) / 8), promote_(cfg.budget), demote_(cfg.budget)
	{
		cxlt_policy_params p;

		cxlt_policy_default_params(&p, npages, cfg.fast_pages);
		p.budget = cfg.budget;
		p.wmark_low = cfg.wmark_low;
		p.wmark_high = cfg.wmark_high;
		parse(opts, p);
		if (cxlt_policy_init(&pol_, mem_.data(), mem_.size() * 8, npages, &p))
			throw std::invalid_argument(fmt::format("cxltier: invalid parameters '{}'", opts));
	}

	void placed(uint32_t page, uint8_t tier) override
	{
		cxlt_policy_set_tier(pol_, page, static_cast<cxlt_tier_class>(tier));
	}

	void end_period(memory &m, const std::vector<uint32_t> &sampled, uint64_t) override
	{
		cxlt_policy_plan plan{ promote_.data(), static_cast<uint32_t>(promote_.size()),
				       demote_.data(), static_cast<uint32_t>(demote_.size()), 0, 0 };

		for (uint32_t p : sampled)
			cxlt_policy_record_access(pol_, p, 1);
		cxlt_policy_end_period(pol_);
		cxlt_policy_select(pol_, &plan);
		for (uint32_t i = 0; i < plan.nr_demote; i++) {
			m.demote(demote_[i]);
			cxlt_policy_migrated(pol_, demote_[i], CXLT_TIER_SLOW, 0);
		}
		for (uint32_t i = 0; i < plan.nr_promote; i++) {
			bool ok = m.promote(promote_[i]);

			cxlt_policy_migrated(pol_, promote_[i], CXLT_TIER_FAST, ok ? 0 : -ENOMEM);
		}
	}

private:
	static void parse(const std::string &opts, cxlt_policy_params &p)
	{
		size_t pos = 0;

		while (pos < opts.size()) {
			size_t comma = opts.find(':', pos);
			std::string kv = opts.substr(pos, comma == std::string::npos ? comma : comma - pos);
			size_t eq = kv.find('=');

			pos = comma == std::string::npos ? opts.size() : comma + 1;
			if (eq == std::string::npos)
				throw std::invalid_argument(fmt::format("cxltier: '{}' is not key=value", kv));
			std::string k = kv.substr(0, eq);
			unsigned long v;

			try {
				v = std::stoul(kv.substr(eq + 1));
			} catch (const std::exception &) {
				throw std::invalid_argument(fmt::format("cxltier: bad value in '{}'", kv));
			}
			if (v > 255)
				throw std::invalid_argument(fmt::format("cxltier: '{}' out of range", kv));
			auto u8v = static_cast<uint8_t>(v);
			if (k == "decay")
				p.decay_shift = u8v;
			else if (k == "idle")
				p.idle_bits = u8v;
			else if (k == "burst")
				p.burst_bits = u8v;
			else if (k == "conf")
				p.confidence = u8v;
			else if (k == "hyst")
				p.hyst_steps = u8v;
			else if (k == "resid")
				p.min_resid = u8v;
			else if (k == "ifdr")
				p.idle_fdr = u8v;
			else if (k == "bfdr")
				p.burst_fdr = u8v;
			else
				throw std::invalid_argument(fmt::format("cxltier: unknown key '{}'", k));
		}
	}

	std::vector<uint64_t> mem_;
	cxlt_policy *pol_ = nullptr;
	std::vector<uint32_t> promote_, demote_;
};

} // namespace

std::unique_ptr<policy> make_policy(const std::string &spec, const trace &tr,
				    const run_config &cfg)
{
	if (spec == "first-touch")
		return std::make_unique<first_touch>();
	if (spec == "nb-tiering")
		return std::make_unique<nb_tiering>(tr.npages, cfg);
	if (spec == "clock")
		return std::make_unique<clock_policy>(tr.npages, cfg);
	if (spec == "oracle-static")
		return std::make_unique<oracle_static>(tr, cfg);
	if (spec == "oracle-window")
		return std::make_unique<oracle_window>(tr, cfg);
	if (spec == "cxltier")
		return std::make_unique<cxltier_policy>(tr.npages, cfg, "");
	if (spec.starts_with("cxltier:"))
		return std::make_unique<cxltier_policy>(tr.npages, cfg, spec.substr(8));
	throw std::invalid_argument(fmt::format("unknown policy '{}'", spec));
}

} // namespace cxltier::sim
