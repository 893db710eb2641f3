// SPDX-License-Identifier: GPL-2.0
// cxlt-sim: replays access traces through cxltier's placement policy core and
// through the baselines, against upper bounds and references computed from
// the trace with hindsight, on both halves of the trace corpus (tuning and
// held-out).  See the "Placement policy" part of Documentation/design.rst.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "placement.hpp"
#include "trace.hpp"

namespace cxltier::sim {
namespace {

constexpr uint64_t PAGE_SIZE = 4096;

// The held-out half of the corpus runs at these fast-tier sizes, with these
// policies: the core's defaults against the kernel's NUMA balancing.
const std::vector<double> HELDOUT_RATIOS{ 0.125, 0.25, 0.5 };
const std::vector<std::string> HELDOUT_POLICIES{ "cxltier", "nb-tiering" };
// cxltier more than this below the baseline's ftaf on a held-out trace and
// size is a regression.
constexpr double REGRESSION = 0.005;
// The per-window oracle's window on a held-out program trace, in periods: as
// on the synthetic held-out traces without phases, whatever --phase says.
constexpr uint64_t HELDOUT_WINDOW_PERIODS = 64;

struct options {
	uint32_t pages = 32768;
	uint64_t periods = 1024;
	uint64_t period = 0;		// 0: pages / 4
	uint64_t phase_periods = 64;
	uint64_t seed = 1;
	uint32_t budget_div = 16;
	uint32_t pp_window = 16;
	std::string observe = "period";
	unsigned jobs = 0;
	std::vector<double> ratios{ 0.25, 0.5 };
	std::vector<std::string> traces;
	std::vector<std::string> files;
	std::string file_format = "auto";
	std::vector<std::string> policies{ "first-touch", "nb-tiering", "clock", "cxltier",
					   "oracle-static", "oracle-window" };
	std::string heldout = "auto";
	std::string baseline, write_baseline, baseline_label = "unlabelled";
	std::string json;
	std::string series_dir;
	std::string corpus;
};

// Each window of @window accesses in turn: @f(begin, end, touched, cnt,
// fresh) gets its distinct pages (which it may reorder), their counts in it
// (indexed by page) and how many pages it touches first in the trace.
template <class F> void for_windows(const trace &tr, uint64_t window, F &&f)
{
	const uint64_t n = tr.acc.size();
	std::vector<uint32_t> cnt(tr.npages, 0), touched;
	std::vector<uint8_t> seen(tr.npages, 0);

	for (uint64_t w = 0; w < n; w += window) {
		const uint64_t e = std::min(w + window, n);
		uint64_t fresh = 0;

		touched.clear();
		for (uint64_t i = w; i < e; i++) {
			uint32_t p = tr.acc[i];

			fresh += !seen[p];
			seen[p] = 1;
			if (!cnt[p]++)
				touched.push_back(p);
		}
		f(w, e, touched, cnt, fresh);
		for (uint32_t p : touched)
			cnt[p] = 0;
	}
}

// The accesses of the @keep most accessed pages of @touched, which it
// reorders to put them first.  Which of equally counted pages are taken
// changes no sum.
uint64_t top_sum(std::vector<uint32_t> &touched, const std::vector<uint32_t> &cnt, uint64_t keep)
{
	auto end = touched.end();
	uint64_t sum = 0;

	if (touched.size() > keep) {
		end = touched.begin() + static_cast<std::ptrdiff_t>(keep);
		std::nth_element(touched.begin(), end, touched.end(),
				 [&](uint32_t a, uint32_t b) { return cnt[a] > cnt[b]; });
	}
	for (auto it = touched.begin(); it != end; ++it)
		sum += cnt[*it];
	return sum;
}

// A placement with hindsight: its hits, and its fast-tier access fraction
// per period where it is drawn or judged per period.
struct hindsight {
	uint64_t hits = 0;
	std::vector<float> series;
};

// The offline references of a trace at one fast-tier size C, each computed
// from the trace with hindsight.
//
// The bounds.  bound-period, the C pages each period accesses most, moved
// there at the period's start without a budget, is an upper bound for every
// policy that changes the placement only at period ends, whatever it moves
// there (first-touch, clock, cxltier, the oracles): inside a period such a
// policy's fast tier only gains pages, at first touch, and never holds more
// than C, so it serves at most the accesses of the period's C most accessed
// pages.  It does not bound a policy that migrates inside a period:
// nb-tiering promotes on the hint fault.
//
// bound-budget is an upper bound for every policy that promotes at most B
// pages per period, whenever it migrates (nb-tiering included, the oracles
// not).  Cut the trace into windows of W periods: the pages on the fast tier
// at some access of a window are those there at its start (at most C), those
// promoted during it (at most W x B) and those placed at their first touch
// in it, so the window's hits are at most the accesses of its C + W x B +
// (pages it touches first) most accessed pages.  Every W gives a bound: the
// least over W = 2, 4 .. 32 is kept (1 is never less than bound-period on
// our traces, longer windows let the budget refill the tier several times).
//
// A run is measured against the least bound that holds for it, judged from
// what it did (migrations inside periods, promotions per period), and the
// simulator checks that it is not above it.
//
// The static oracle (the C pages the whole trace accesses most) and the
// window oracle (each window's, moved at its start) are references, not
// bounds: period-end policies beat the window oracle where the hot set moves
// within its window.
struct reference {
	uint64_t accesses = 0;
	hindsight stat, window, period;
	uint64_t budget_hits = UINT64_MAX, budget_window = 0;

	double ftaf(uint64_t hits) const { return double(hits) / double(accesses); }
};

// The references at each of @cfgs, which differ only in the fast-tier size
// and budget: one pass over the trace per kind of window serves them all.
std::vector<std::shared_ptr<const reference>> offline(const trace &tr,
						      const std::vector<run_config> &cfgs)
{
	const uint64_t n = tr.acc.size(), period = cfgs[0].period;
	const size_t nr = cfgs.size();
	std::vector<std::shared_ptr<reference>> refs;
	std::vector<std::vector<uint64_t>> whits(nr, std::vector<uint64_t>((n + period - 1) / period));
	std::vector<uint8_t> in(tr.npages, 0);

	for (size_t k = 0; k < nr; k++) {
		refs.push_back(std::make_shared<reference>());
		refs[k]->accesses = n;
	}
	for_windows(tr, n, [&](uint64_t, uint64_t, auto &touched, auto &cnt, uint64_t) {
		for (size_t k = 0; k < nr; k++)
			refs[k]->stat.hits = top_sum(touched, cnt, cfgs[k].fast_pages);
	});
	for_windows(tr, period, [&](uint64_t w, uint64_t e, auto &touched, auto &cnt, uint64_t) {
		for (size_t k = 0; k < nr; k++) {
			uint64_t h = top_sum(touched, cnt, cfgs[k].fast_pages);

			refs[k]->period.hits += h;
			refs[k]->period.series.push_back(static_cast<float>(double(h) / double(e - w)));
		}
	});
	// Windows need not be whole periods: hits go to the period of the access.
	for_windows(tr, cfgs[0].window, [&](uint64_t w, uint64_t e, auto &touched, auto &cnt, uint64_t) {
		for (size_t k = 0; k < nr; k++) {
			uint64_t keep = std::min<uint64_t>(cfgs[k].fast_pages, touched.size());

			refs[k]->window.hits += top_sum(touched, cnt, keep);
			for (uint64_t j = 0; j < keep; j++)
				in[touched[j]] = 1;
			for (uint64_t i = w; i < e; i++)
				whits[k][i / period] += in[tr.acc[i]];
			for (uint64_t j = 0; j < keep; j++)
				in[touched[j]] = 0;
		}
	});
	for (size_t k = 0; k < nr; k++)
		for (uint64_t p = 0; p < whits[k].size(); p++)
			refs[k]->window.series.push_back(static_cast<float>(
				double(whits[k][p]) / double(std::min(period, n - p * period))));
	for (uint64_t wp = 2; wp <= 32; wp *= 2) {
		std::vector<uint64_t> hits(nr, 0);

		for_windows(tr, wp * period, [&](uint64_t, uint64_t, auto &touched, auto &cnt, uint64_t fresh) {
			for (size_t k = 0; k < nr; k++)
				hits[k] += top_sum(touched, cnt,
						   cfgs[k].fast_pages + wp * cfgs[k].budget + fresh);
		});
		for (size_t k = 0; k < nr; k++) {
			if (hits[k] < refs[k]->budget_hits) {
				refs[k]->budget_hits = hits[k];
				refs[k]->budget_window = wp;
			}
		}
	}
	return { refs.begin(), refs.end() };
}

struct result {
	std::string trace, policy;
	std::string source;		// "synthetic", "file" (--trace-file) or "corpus"
	double ratio = 0;
	bool heldout = false;
	run_config cfg{};
	uint32_t npages = 0;
	uint64_t accesses = 0, hits = 0;
	uint64_t promotions = 0, demotions = 0, pingpong = 0, failed = 0;
	uint64_t reversals = 0;		// as the module counts ping-pong (memory::reversals)
	uint64_t mid_moves = 0;		// migrations made inside a period
	uint64_t max_promoted = 0;	// most promotions from one period end to the next
	std::shared_ptr<const reference> ref;
	int64_t recovery = -1;		// periods, worst shift; -1 if no shift
	std::vector<float> series;	// fast-tier access fraction per period
	std::vector<uint32_t> moves;	// migrations per period

	double ftaf() const { return accesses ? double(hits) / double(accesses) : 0.0; }
	// Which bounds hold for this run, from what it did.
	bool by_period() const { return mid_moves == 0; }
	bool by_budget() const { return max_promoted <= cfg.budget; }
	// The least bound that holds; all accesses if none does.
	uint64_t bound_hits() const
	{
		uint64_t b = accesses;

		if (by_period())
			b = std::min(b, ref->period.hits);
		if (by_budget())
			b = std::min(b, ref->budget_hits);
		return b;
	}
	bool bounded() const { return by_period() || by_budget(); }
	double bound() const { return ref->ftaf(bound_hits()); }
	double to_bound() const { return bound_hits() ? double(hits) / double(bound_hits()) : 0.0; }
	double pp_share() const { return promotions ? double(pingpong) / double(promotions) : 0.0; }
	std::string at() const;
};

std::string ratio_name(double r)
{
	double inv = 1.0 / r;

	if (std::fabs(inv - std::round(inv)) < 1e-9)
		return fmt::format("1/{}", std::llround(inv));
	return fmt::format("{:.3g}", r);
}

std::string result::at() const
{
	return fmt::format("{} @ {}", trace, ratio_name(ratio));
}

run_config make_config(const trace &tr, double ratio, const options &o, uint64_t period)
{
	run_config c{};

	c.fast_pages = static_cast<uint32_t>(std::llround(tr.npages * ratio));
	c.budget = std::max(c.fast_pages / o.budget_div, 1U);
	c.wmark_low = c.fast_pages >> 8;
	c.wmark_high = c.fast_pages >> 7;
	c.period = period;
	c.pp_window = o.pp_window;
	c.adaptive_obs = o.observe == "adaptive";
	c.window = tr.window ? tr.window : o.phase_periods * period;
	return c;
}

// cxlt_adapt_window() of kmod/daemon.c, in accesses rather than time: the window
// starts at 100 ms of the 1 s period, halves while more than half the armed pages
// (here: every placed page) were accessed in it, doubles while fewer than a tenth
// were, and stays within 10 ms and the whole period.
constexpr uint64_t OBS_START_DIV = 10, OBS_MIN_DIV = 100;

uint64_t adapt_obs(uint64_t obs, uint64_t period, uint64_t accessed, uint64_t armed)
{
	if (armed < 64)
		return obs;
	if (accessed * 2 > armed)
		obs /= 2;
	else if (accessed * 10 < armed)
		obs *= 2;
	return std::clamp<uint64_t>(obs, std::max<uint64_t>(period / OBS_MIN_DIV, 1), period);
}

result simulate(const trace &tr, const run_config &cfg, const std::string &spec)
{
	memory m(tr.npages, cfg);
	auto pol = make_policy(spec, tr, cfg);
	std::vector<uint8_t> seen(tr.npages, 0);
	std::vector<uint32_t> sampled;
	const bool per_access = pol->wants_accesses();
	const uint64_t n = tr.acc.size();
	uint64_t phits = 0, pacc = 0, moved = 0, promoted = 0;
	// The accesses of a period that the sampled policies see (--observe).
	uint64_t obs = cfg.adaptive_obs ? std::max<uint64_t>(cfg.period / OBS_START_DIV, 1) : cfg.period;
	result r;

	r.series.reserve(n / cfg.period + 1);
	pol->start(m);
	for (uint64_t t = 0; t < n; t++) {
		uint32_t p = tr.acc[t];
		uint8_t tier = m.tier(p);

		if (tier == TIER_NONE) {
			// First touch: the local (fast) node while it has room.
			tier = m.free() > 0 ? TIER_FAST : TIER_SLOW;
			m.place(p, tier);
			pol->placed(p, tier);
		}
		phits += tier == TIER_FAST;
		if (pacc < obs && !seen[p]) {
			seen[p] = 1;
			sampled.push_back(p);
		}
		if (per_access) {
			uint64_t before = m.promotions + m.demotions;

			pol->access(m, p, t);
			r.mid_moves += m.promotions + m.demotions - before;
		}
		if (++pacc == cfg.period || t + 1 == n) {
			r.series.push_back(static_cast<float>(double(phits) / double(pacc)));
			r.hits += phits;
			phits = 0;
			pacc = 0;
			for (uint32_t s : sampled)
				seen[s] = 0;
			if (cfg.adaptive_obs)
				obs = adapt_obs(obs, cfg.period, sampled.size(), m.placed());
			pol->end_period(m, sampled, t + 1);
			sampled.clear();
			m.period++;
			r.moves.push_back(static_cast<uint32_t>(m.promotions + m.demotions - moved));
			moved = m.promotions + m.demotions;
			r.max_promoted = std::max(r.max_promoted, m.promotions - promoted);
			promoted = m.promotions;
		}
	}
	r.accesses = n;
	r.promotions = m.promotions;
	r.demotions = m.demotions;
	r.pingpong = m.pingpong;
	r.reversals = m.reversals;
	r.failed = m.failed;
	return r;
}

// Worst number of periods, over the shifts, from a shift until the policy's
// per-period fast-tier access fraction first reaches 90% of the window oracle's.
int64_t recovery(const result &r, uint64_t phase_periods)
{
	const auto &w = r.ref->window.series;
	int64_t worst = 0;

	for (uint64_t s = phase_periods; s < r.series.size(); s += phase_periods) {
		uint64_t end = std::min<uint64_t>(s + phase_periods, r.series.size()), p = s;

		while (p < end && r.series[p] < 0.9 * w[p])
			p++;
		worst = std::max<int64_t>(worst, static_cast<int64_t>(p - s + 1));
	}
	return worst;
}

void run_trace(const trace &tr, const std::vector<double> &ratios,
	       const std::vector<std::string> &policies, bool heldout, const std::string &source,
	       const options &o, uint64_t period, std::vector<result> &out)
{
	struct job {
		size_t ratio;		// index in @ratios
		std::string policy;
	};
	// Job 0 computes the offline references, the others simulate.
	std::vector<job> jobs{ { 0, "" } };
	std::vector<run_config> cfgs;
	std::vector<std::shared_ptr<const reference>> refs;
	std::vector<result> res;
	std::atomic<size_t> next{ 0 };
	std::mutex err_lock;
	std::string err;

	for (size_t k = 0; k < ratios.size(); k++) {
		cfgs.push_back(make_config(tr, ratios[k], o, period));
		for (auto &p : policies)
			jobs.push_back({ k, p });
	}
	res.resize(jobs.size());
	auto worker = [&] {
		for (size_t i; (i = next++) < jobs.size();) {
			try {
				if (i == 0) {
					refs = offline(tr, cfgs);
					continue;
				}
				res[i] = simulate(tr, cfgs[jobs[i].ratio], jobs[i].policy);
				res[i].cfg = cfgs[jobs[i].ratio];
			} catch (const std::exception &e) {
				std::lock_guard g(err_lock);
				err = e.what();
			}
		}
	};
	unsigned nthreads = o.jobs ? o.jobs : std::max(std::thread::hardware_concurrency(), 1U);
	std::vector<std::thread> pool;

	for (unsigned i = 0; i < nthreads; i++)
		pool.emplace_back(worker);
	for (auto &t : pool)
		t.join();
	if (!err.empty())
		throw std::runtime_error(err);
	for (size_t i = 1; i < jobs.size(); i++) {
		result &r = res[i];

		r.trace = tr.name;
		r.policy = jobs[i].policy;
		r.source = source;
		r.ratio = ratios[jobs[i].ratio];
		r.heldout = heldout;
		r.npages = tr.npages;
		r.ref = refs[jobs[i].ratio];
		if (tr.phase)
			r.recovery = recovery(r, tr.phase / period);
		// A run above a bound that holds for it is a bug in the simulator.
		if (r.hits > r.bound_hits())
			throw std::logic_error(fmt::format("{} on {}: ftaf {} above its bound {}", r.policy,
							   r.at(), r.ftaf(), r.bound()));
		out.push_back(std::move(r));
	}
}

// A --trace-file may share a held-out trace's name: the halves are kept apart.
const result *find(const std::vector<result> &rs, bool heldout, const std::string &trace,
		   double ratio, const std::string &policy)
{
	for (auto &r : rs)
		if (r.heldout == heldout && r.trace == trace && r.ratio == ratio && r.policy == policy)
			return &r;
	return nullptr;
}

// A bound's ftaf, in parentheses when it does not hold for the run.
std::string bound_cell(const result &r, uint64_t hits, bool holds)
{
	auto v = fmt::format("{:.3f}", r.ref->ftaf(hits));

	return holds ? v + " " : "(" + v + ")";
}

void print_table(const std::vector<result> &rs)
{
	std::string last;

	fmt::print("{:<12} {:>4} {:<16} {:>6} {:>6} {:>6} {:>8} {:>8} {:>6} {:>6} {:>10} {:>8} {:>8} "
		   "{:>8} {:>9} {:>6}\n",
		   "trace", "fast", "policy", "ftaf", "bound", "ratio", "b-period", "b-budget", "static",
		   "window", "migr_MiB", "promoted", "demoted", "pingpong", "reversals", "recov");
	for (auto &r : rs) {
		if (r.heldout)
			continue;
		if (!last.empty() && last != r.trace)
			fmt::print("\n");
		last = r.trace;
		fmt::print("{:<12} {:>4} {:<16} {:>6.3f} {:>6} {:>6} {:>8} {:>8} {:>6.3f} {:>6.3f} {:>10.1f} "
			   "{:>8} {:>8} {:>8} {:>9} {:>6}\n",
			   r.trace, ratio_name(r.ratio), r.policy, r.ftaf(),
			   r.bounded() ? fmt::format("{:.3f}", r.bound()) : "-",
			   r.bounded() ? fmt::format("{:.3f}", r.to_bound()) : "-",
			   bound_cell(r, r.ref->period.hits, r.by_period()),
			   bound_cell(r, r.ref->budget_hits, r.by_budget()),
			   r.ref->ftaf(r.ref->stat.hits), r.ref->ftaf(r.ref->window.hits),
			   double((r.promotions + r.demotions) * PAGE_SIZE) / (1 << 20),
			   r.promotions, r.demotions, r.pingpong, r.reversals,
			   r.recovery < 0 ? std::string("-") : std::to_string(r.recovery));
	}
	fmt::print("\nbound: the least upper bound that holds for the run, ratio = ftaf / bound.  "
		   "b-period: the C pages each\nperiod accesses most, with hindsight: holds for "
		   "policies that migrate only at period ends.  b-budget: holds\nfor policies that "
		   "promote at most the budget per period.  (x): does not hold for the run (nb-tiering\n"
		   "migrates inside periods; the oracles move without a budget).  static, window: "
		   "the oracles, references,\nnot bounds.\n");
}

// A trace of the held-out half as this run made it, and what a baseline entry
// must match for the two to be compared: a synthetic trace's size, length and
// seed; a program trace's size, length and content (a trace recorded again
// under the same name is another trace).
struct heldout_id {
	std::string name;
	std::string source;	// "synthetic" or "corpus"
	uint32_t npages;
	uint64_t periods;
	nlohmann::json key;
};

heldout_id synthetic_id(const heldout_trace &ht)
{
	return { ht.name, "synthetic", ht.npages, ht.periods,
		 { { "pages", ht.npages }, { "periods", ht.periods }, { "seed", ht.seed } } };
}

heldout_id program_id(const trace &tr, uint64_t period)
{
	return { tr.name, "corpus", tr.npages, (tr.acc.size() + period - 1) / period,
		 { { "pages", tr.npages }, { "accesses", tr.acc.size() },
		   { "digest", fmt::format("fnv1a64:{:016x}", trace_digest(tr)) } } };
}

// The held-out results of the last release: cxltier's ftaf per trace and size.
struct baseline {
	std::string path, label;
	std::string why_not;	// set when this run cannot be compared with it
	// Its entries by trace and size: "ftaf" and the trace's key fields.
	std::map<std::pair<std::string, double>, nlohmann::json> entry;
};

baseline read_baseline(const std::string &path, const options &o)
{
	std::ifstream f(path);
	baseline b;

	if (!f)
		throw std::runtime_error(fmt::format("{}: cannot open", path));
	b.path = path;
	try {
		auto j = nlohmann::json::parse(f);

		b.label = j.at("label").get<std::string>();
		auto div = j.at("budget_div").get<uint32_t>(), ppw = j.at("pingpong_window").get<uint32_t>();
		// Baselines from before --observe saw whole periods.
		auto obs = j.value("observe", std::string("period"));
		if (div != o.budget_div || ppw != o.pp_window || obs != o.observe) {
			b.why_not = fmt::format("made with --budget-div {} --pingpong-window {} --observe {}",
						div, ppw, obs);
			return b;
		}
		for (auto &e : j.at("traces")) {
			// A malformed entry is an error here, not when compared.
			e.at("ftaf").get<double>();
			b.entry[{ e.at("trace").get<std::string>(), e.at("fast_ratio").get<double>() }] = e;
		}
	} catch (const nlohmann::json::exception &e) {
		throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
	}
	return b;
}

// A held-out row against the baseline: none given (or not comparable as a
// whole), compared, no entry for the trace and size (a trace added since:
// "new"), or an entry whose key differs (a trace since resized, reseeded or
// recorded again: "changed").  Only a compared row can be a regression.
enum class vs_base { none, compared, fresh, changed };

const char *vs_name(vs_base v)
{
	switch (v) {
	case vs_base::compared: return "compared";
	case vs_base::fresh: return "new";
	case vs_base::changed: return "changed";
	default: return "none";
	}
}

struct heldout_row {
	const heldout_id *id;
	double ratio;
	const result *ours, *nb;
	vs_base vs = vs_base::none;
	std::optional<double> base;

	bool regression() const { return base && *base - ours->ftaf() > REGRESSION; }
};

std::vector<heldout_row> heldout_rows(const std::vector<result> &rs,
				      const std::vector<heldout_id> &ids, const baseline &b)
{
	std::vector<heldout_row> rows;

	for (auto &id : ids) {
		for (double ratio : HELDOUT_RATIOS) {
			heldout_row row{ &id, ratio, find(rs, true, id.name, ratio, HELDOUT_POLICIES[0]),
					 find(rs, true, id.name, ratio, HELDOUT_POLICIES[1]), vs_base::none,
					 std::nullopt };

			if (!row.ours || !row.nb)
				throw std::logic_error(fmt::format("held-out {} not run", id.name));
			if (!b.path.empty() && b.why_not.empty()) {
				auto it = b.entry.find({ id.name, ratio });

				row.vs = it == b.entry.end() ? vs_base::fresh : vs_base::compared;
				if (it != b.entry.end())
					for (auto &[k, v] : id.key.items())
						if (!it->second.contains(k) || it->second.at(k) != v)
							row.vs = vs_base::changed;
				if (row.vs == vs_base::compared)
					row.base = it->second.at("ftaf").get<double>();
			}
			rows.push_back(row);
		}
	}
	return rows;
}

void print_heldout(const std::vector<heldout_row> &rows, const baseline &b)
{
	std::string last;
	unsigned regressions = 0;

	fmt::print("\nheld-out half (never tuned on): cxltier against nb-tiering; release: cxltier's "
		   "ftaf at {}\n",
		   b.path.empty() ? "(no --baseline)" : fmt::format("{} ({})", b.label, b.path));
	if (!b.why_not.empty())
		fmt::print("baseline not compared: {}\n", b.why_not);
	fmt::print("{:<12} {:>4} {:>7} {:>11} {:>8} {:>8} {:>6} {:>6} {:>22} {:>7} {:>7}\n", "trace",
		   "fast", "cxltier", "nb-tiering", "b-period", "b-budget", "cxl/bd", "nb/bd",
		   "pingpong (cxltier)", "release", "delta");
	for (auto &row : rows) {
		const result &c = *row.ours, &n = *row.nb;
		std::string vs;

		if (!last.empty() && last != c.trace)
			fmt::print("\n");
		last = c.trace;
		regressions += row.regression();
		if (row.vs == vs_base::compared)
			vs = fmt::format("{:>7.3f} {:>+7.4f}{}", *row.base, c.ftaf() - *row.base,
					 row.regression() ? "  REGRESSION" : "");
		else if (row.vs == vs_base::fresh)
			vs = "new (no baseline)";
		else if (row.vs == vs_base::changed)
			vs = "changed (not compared)";
		else
			vs = fmt::format("{:>7} {:>7}", "-", "-");
		fmt::print("{:<12} {:>4} {:>7.3f} {:>10.3f}{:1} {:>8.3f} {:>8.3f} {:>6} {:>6} {:>22} {}\n",
			   c.trace, ratio_name(c.ratio), c.ftaf(), n.ftaf(),
			   n.hits > n.ref->period.hits ? "^" : "", c.ref->ftaf(c.ref->period.hits),
			   c.ref->ftaf(c.ref->budget_hits),
			   c.bounded() ? fmt::format("{:.3f}", c.to_bound()) : "-",
			   n.bounded() ? fmt::format("{:.3f}", n.to_bound()) : "-",
			   fmt::format("{:.1f}% ({} of {})", 100 * c.pp_share(), c.pingpong, c.promotions),
			   vs);
	}
	fmt::print("\ncxl/bd, nb/bd: ftaf over the least bound that holds for the run (b-period does "
		   "not hold for nb-tiering,\nwhich migrates inside periods; ^: nb-tiering above "
		   "b-period).  release: cxltier's ftaf at the last\nrelease; REGRESSION: more than "
		   "{} below it; new: no entry for the trace and size; changed: the\nentry is for "
		   "another size, length, seed or recording of the trace.  Regressions: {}.\n",
		   REGRESSION, regressions);
}

struct goal {
	std::string text;
	std::string value;
	bool met;
};

std::vector<goal> check_goals(const std::vector<result> &rs, const std::vector<heldout_row> &rows)
{
	std::vector<goal> g;
	const std::string ours = "cxltier";
	std::vector<std::string> over;
	const result *worst = nullptr;
	unsigned runs = 0;

	for (auto &r : rs) {
		if (r.policy != ours)
			continue;
		runs++;
		if (!worst || r.pp_share() > worst->pp_share())
			worst = &r;
		if (r.pp_share() > 0.05)
			over.push_back(fmt::format("{}{} {:.1f}%", r.at(), r.heldout ? " (held-out)" : "",
						   100 * r.pp_share()));
		if (r.heldout)
			continue;
		// These goals are about a synthetic family, not whatever file
		// happens to share its name.
		const bool synthetic = r.source == "synthetic";

		if (synthetic && r.trace.starts_with("zipf-")) {
			double rel = double(r.hits) / double(r.ref->stat.hits);

			g.push_back({ fmt::format("ftaf >= 0.95 x static oracle on {}", r.at()),
				      fmt::format("{:.3f}", rel), rel >= 0.95 });
		}
		if (r.recovery >= 0) {
			uint64_t refill = (r.cfg.fast_pages + r.cfg.budget - 1) / r.cfg.budget;
			g.push_back({ fmt::format("back to 0.9 x window oracle within 2 refills ({} periods) on {}",
						  2 * refill, r.at()),
				      fmt::format("{} periods", r.recovery),
				      uint64_t(r.recovery) <= 2 * refill });
		}
		if (synthetic && r.trace == "uniform") {
			uint64_t moved = r.promotions + r.demotions;
			double frac = double(moved) / r.npages;

			g.push_back({ fmt::format("near-zero migrations (<= 1% of the working set) on {}", r.at()),
				      fmt::format("{:.2f}% ({} pages)", 100 * frac, moved), frac <= 0.01 });
		}
		if (auto nb = find(rs, false, r.trace, r.ratio, "nb-tiering"))
			g.push_back({ fmt::format("ftaf ahead of nb-tiering on {}", r.at()),
				      fmt::format("{:.4f} vs {:.4f}", r.ftaf(), nb->ftaf()),
				      r.ftaf() > nb->ftaf() });
	}
	if (!rows.empty()) {
		std::vector<std::string> behind;

		for (auto &row : rows)
			if (row.ours->ftaf() <= row.nb->ftaf())
				behind.push_back(fmt::format("{} {:+.4f}", row.ours->at(),
							     row.ours->ftaf() - row.nb->ftaf()));
		g.push_back({ "ftaf ahead of nb-tiering on every held-out trace at 1/8, 1/4 and 1/2",
			      fmt::format("{} of {}{}{}", rows.size() - behind.size(), rows.size(),
					  behind.empty() ? "" : "; behind on ", fmt::join(behind, ", ")),
			      behind.empty() });
	}
	if (worst)
		g.push_back({ "pingpong <= 5% of promotions on every trace, both halves",
			      fmt::format("{} of {}; worst {:.1f}% on {}{}{}", runs - over.size(), runs,
					  100 * worst->pp_share(), worst->at(),
					  over.empty() ? "" : "; over 5% on ", fmt::join(over, ", ")),
			      over.empty() });
	return g;
}

nlohmann::json record_json(const result &r)
{
	nlohmann::json j = {
		{ "trace", r.trace },
		{ "fast_ratio", r.ratio },
		{ "policy", r.policy },
		{ "source", r.source },
		{ "ftaf", r.ftaf() },
		{ "bound_ftaf", r.bounded() ? nlohmann::json(r.bound()) : nlohmann::json() },
		{ "ratio_to_bound", r.bounded() ? nlohmann::json(r.to_bound()) : nlohmann::json() },
		{ "bound_period_ftaf", r.ref->ftaf(r.ref->period.hits) },
		{ "bound_period_holds", r.by_period() },
		{ "bound_budget_ftaf", r.ref->ftaf(r.ref->budget_hits) },
		{ "bound_budget_window_periods", r.ref->budget_window },
		{ "bound_budget_holds", r.by_budget() },
		{ "mid_period_migrations", r.mid_moves },
		{ "max_promotions_per_period", r.max_promoted },
		{ "migrated_bytes", (r.promotions + r.demotions) * PAGE_SIZE },
		{ "pingpong", r.pingpong },
		{ "reversals", r.reversals },
		{ "promotions", r.promotions },
		{ "demotions", r.demotions },
		{ "failed_migrations", r.failed },
		{ "oracle_static_ftaf", r.ref->ftaf(r.ref->stat.hits) },
		{ "oracle_window_ftaf", r.ref->ftaf(r.ref->window.hits) },
		{ "pages", r.npages },
		{ "fast_pages", r.cfg.fast_pages },
		{ "budget_pages", r.cfg.budget },
		{ "period_accesses", r.cfg.period },
		{ "accesses", r.accesses },
		{ "periods", r.series.size() },
	};
	if (r.recovery >= 0)
		j["recovery_periods"] = r.recovery;
	return j;
}

nlohmann::json heldout_json(const std::vector<result> &rs, const std::vector<heldout_row> &rows,
			    const baseline &b)
{
	nlohmann::json jr = nlohmann::json::array(), recs = nlohmann::json::array();

	for (auto &row : rows) {
		const result &c = *row.ours, &n = *row.nb;
		nlohmann::json j = {
			{ "trace", c.trace },
			{ "source", row.id->source },
			{ "fast_ratio", c.ratio },
			{ "pages", row.id->npages },
			{ "periods", row.id->periods },
			{ "cxltier_ftaf", c.ftaf() },
			{ "nb_tiering_ftaf", n.ftaf() },
			{ "bound_period_ftaf", c.ref->ftaf(c.ref->period.hits) },
			{ "bound_budget_ftaf", c.ref->ftaf(c.ref->budget_hits) },
			{ "cxltier_to_bound", c.to_bound() },
			{ "nb_tiering_to_bound", n.to_bound() },
			{ "nb_tiering_above_bound_period", n.hits > n.ref->period.hits },
			{ "pingpong", c.pingpong },
			{ "promotions", c.promotions },
			{ "pingpong_share", c.pp_share() },
			{ "baseline_ftaf", row.base ? nlohmann::json(*row.base) : nlohmann::json() },
			{ "delta", row.base ? nlohmann::json(c.ftaf() - *row.base) : nlohmann::json() },
			{ "baseline_status", vs_name(row.vs) },
			{ "regression", row.regression() },
		};

		// seed, or accesses and digest: what the baseline is matched on.
		j.update(row.id->key);
		jr.push_back(j);
	}
	for (auto &r : rs)
		if (r.heldout)
			recs.push_back(record_json(r));
	return {
		{ "ratios", HELDOUT_RATIOS },
		{ "regression_threshold", REGRESSION },
		{ "baseline", { { "path", b.path }, { "label", b.label },
				{ "compared", !b.path.empty() && b.why_not.empty() },
				{ "why_not", b.why_not } } },
		{ "rows", jr },
		{ "records", recs },
	};
}

void write_file(const std::string &path, const nlohmann::json &doc)
{
	std::ofstream f(path);

	f << doc.dump(1) << "\n";
	if (!f)
		throw std::runtime_error(fmt::format("{}: cannot write", path));
}

void write_json(const std::string &path, const options &o, uint64_t period,
		const std::vector<result> &rs, const std::vector<goal> &goals,
		const std::vector<heldout_row> &rows, const baseline &b)
{
	nlohmann::json recs = nlohmann::json::array(), gj = nlohmann::json::array();

	for (auto &r : rs)
		if (!r.heldout)
			recs.push_back(record_json(r));
	for (auto &g : goals)
		gj.push_back({ { "goal", g.text }, { "value", g.value }, { "met", g.met } });
	nlohmann::json doc = {
		{ "config",
		  { { "pages", o.pages }, { "period_accesses", period }, { "periods", o.periods },
		    { "phase_periods", o.phase_periods }, { "seed", o.seed },
		    { "budget", fmt::format("fast_pages / {} per period", o.budget_div) },
		    { "pingpong_window_periods", o.pp_window }, { "page_size", PAGE_SIZE },
		    { "sampling", o.observe == "adaptive"
					  ? "accessed bits of the adaptive observation window, harvested once per period"
					  : "accessed bits harvested once per period" },
		    { "corpus", o.corpus.empty() ? nlohmann::json() : nlohmann::json(o.corpus) } } },
		{ "records", recs },
		{ "goals", gj },
	};
	if (!rows.empty())
		doc["heldout"] = heldout_json(rs, rows, b);
	write_file(path, doc);
}

// The baseline a later run compares its held-out results with: this run's.
void write_baseline(const std::string &path, const options &o, const std::vector<heldout_row> &rows)
{
	nlohmann::json tr = nlohmann::json::array();

	for (auto &row : rows) {
		nlohmann::json e = { { "trace", row.id->name }, { "fast_ratio", row.ratio },
				     { "ftaf", row.ours->ftaf() } };

		e.update(row.id->key);
		tr.push_back(e);
	}
	write_file(path, {
		{ "about", "cxltier's fast-tier access fraction on the held-out traces (synthetic, and "
			   "the program traces of --corpus) at the last release; make bench-sim flags "
			   "a held-out trace and size more than 0.005 below it.  Regenerate it when a "
			   "release is cut: bench/run-sim BUILD -- --heldout only --write-baseline "
			   "bench/sim/heldout-baseline.json --baseline-label RELEASE" },
		{ "label", o.baseline_label },
		{ "budget_div", o.budget_div },
		{ "pingpong_window", o.pp_window },
		{ "observe", o.observe },
		{ "traces", tr },
	});
}

// One file per trace and fast-tier size: period, then one column per policy
// and one for bound-period, of fast-tier access fraction (.dat), or one per
// policy of pages migrated (.mig).
void write_series(const std::string &dir, const std::vector<result> &rs)
{
	std::map<std::pair<std::string, double>, std::vector<const result *>> groups;

	for (auto &r : rs)
		groups[{ r.trace, r.ratio }].push_back(&r);
	std::filesystem::create_directories(dir);
	for (auto &[key, v] : groups) {
		std::string base = fmt::format("{}/{}@{}", dir, key.first,
					       ratio_name(key.second).replace(1, 1, "of"));
		std::ofstream f(base + ".dat"), g(base + ".mig");
		const auto &bound = v[0]->ref->period.series;

		f << "period";
		g << "period";
		for (auto *r : v) {
			f << " " << r->policy;
			g << " " << r->policy;
		}
		f << " bound-period\n";
		g << "\n";
		for (size_t p = 0; p < v[0]->series.size(); p++) {
			f << p;
			g << p;
			for (auto *r : v) {
				f << fmt::format(" {:.4f}", p < r->series.size() ? r->series[p] : 0.0f);
				g << " " << (p < r->moves.size() ? r->moves[p] : 0);
			}
			f << fmt::format(" {:.4f}\n", p < bound.size() ? bound[p] : 0.0f);
			g << "\n";
		}
		if (!f || !g)
			throw std::runtime_error(fmt::format("{}: cannot write", base));
	}
}

// A program trace of --corpus DIR: DIR/tuning/NAME.txt or DIR/heldout/NAME.txt.
struct corpus_trace {
	std::string name, path;
};

struct corpus {
	std::vector<corpus_trace> tuning, heldout;
};

template <class V> bool has_name(const V &v, const std::string &name)
{
	return std::any_of(v.begin(), v.end(), [&](auto &t) { return t.name == name; });
}

// Every entry of @dir must be a trace, NAME.txt: a stray file (a trace left
// compressed, a typo) is an error, not a trace silently left out.
std::vector<corpus_trace> list_half(const std::filesystem::path &dir)
{
	namespace fs = std::filesystem;
	std::vector<corpus_trace> v;

	if (!fs::is_directory(dir))
		throw std::runtime_error(fmt::format("{}: no such directory (--corpus DIR needs "
						     "DIR/tuning and DIR/heldout, either may be empty)",
						     dir.string()));
	for (auto &e : fs::directory_iterator(dir)) {
		const fs::path &p = e.path();

		if (p.extension() != ".txt" || p.stem().empty())
			throw std::runtime_error(fmt::format(
				"{}: not a trace, NAME.txt{}", p.string(),
				p.extension() == ".xz" ? " (bench/run-sim decompresses the .txt.xz)" : ""));
		if (!e.is_regular_file())
			throw std::runtime_error(fmt::format("{}: not a regular file", p.string()));
		v.push_back({ p.stem().string(), p.string() });
	}
	std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.name < b.name; });
	return v;
}

corpus list_corpus(const std::string &dir)
{
	corpus c;

	if (!std::filesystem::is_directory(dir))
		throw std::runtime_error(fmt::format("{}: --corpus: no such directory", dir));
	c.tuning = list_half(std::filesystem::path(dir) / "tuning");
	c.heldout = list_half(std::filesystem::path(dir) / "heldout");
	// Results are found by trace name: a name must say which trace it is.
	for (auto *half : { &c.tuning, &c.heldout }) {
		for (auto &t : *half) {
			if (std::ranges::count(tuning_traces(), t.name) || has_name(heldout_traces(), t.name))
				throw std::runtime_error(fmt::format(
					"{}: '{}' is the name of a synthetic trace", t.path, t.name));
		}
	}
	for (auto &t : c.tuning)
		if (has_name(c.heldout, t.name))
			throw std::runtime_error(fmt::format("{}: '{}' is in both halves of {}", t.path,
							     t.name, dir));
	return c;
}

trace load_program(const corpus_trace &ct)
{
	trace tr = read_trace_file(ct.path, "text");

	// As for a synthetic trace: the smallest fast tier must hold a page.
	if (tr.npages < 8)
		throw std::runtime_error(fmt::format("{}: {} distinct pages, a trace needs 8 or more",
						     ct.path, tr.npages));
	tr.name = ct.name;
	return tr;
}

} // namespace
} // namespace cxltier::sim

int main(int argc, char **argv)
{
	using namespace cxltier::sim;
	options o;
	CLI::App app{ "Replay memory access traces through cxltier's placement policy core and the "
		      "baselines, on a fast tier (DRAM) and a slow tier (CXL), against an upper bound "
		      "and offline references.\n\n"
		      "Sampling: the policies other than nb-tiering see, once per period, the set of "
		      "distinct pages accessed in it (accessed bits harvested and cleared), never "
		      "counts or the trace; nb-tiering sees hint faults (first access after its "
		      "scan, with the time since the scan).\n\n"
		      "Bounds: bound-period, the C pages each period accesses most, placed with "
		      "hindsight and without a budget: no policy that migrates only at period ends "
		      "can beat it (nb-tiering migrates inside periods); bound-budget: no policy that "
		      "promotes at most the budget per period can beat it.  The ratio (ratio, "
		      "ratio_to_bound, cxl/bd, nb/bd) is ftaf over the least bound that holds for the "
		      "run, on every trace alike (synthetic, --trace-file, --corpus); the oracles "
		      "(static, window) are references shown beside it, not what it is taken "
		      "against.\n\n"
		      "Corpus: the tuning half (--traces, sized by --pages, --periods, --period, "
		      "--phase, --seed, at --ratios, with --policies) and the held-out half "
		      "(train-mix, turnover, zipf-0.9, phase-24, seq-heavy: fixed sizes and seeds, "
		      "cxltier and nb-tiering at 1/8, 1/4 and 1/2), compared with --baseline.  "
		      "--corpus DIR adds program traces to both: DIR/tuning/NAME.txt to the tuning "
		      "half (at --ratios, with --policies, --period or its working set / 4 per "
		      "period), DIR/heldout/NAME.txt to the held-out half (as the synthetic ones: "
		      "period its working set / 4, its whole length; compared with --baseline by "
		      "name, size and content, and shown as new without an entry there).  The "
		      "tuning half runs the synthetic tuning traces and DIR/tuning's, unless "
		      "--traces (those named: synthetic or DIR/tuning's), --trace-file (the files, "
		      "and those --traces names) or --heldout only (none but those --traces names) "
		      "is given.\n\n"
		      "Trace files: text, one page number per line (decimal or 0x hex), '#' starts a "
		      "comment, blank lines ignored; or binary, little-endian unsigned 64-bit page "
		      "numbers back to back (--trace-format u64le, or a name ending in .bin or .u64). "
		      "Page numbers are renumbered densely; the working set is the distinct pages." };

	app.add_option("--pages", o.pages, "working set of the tuning traces (pages)")
		->capture_default_str()->check(CLI::Range(8U, 1U << 28));
	app.add_option("--periods", o.periods, "length of the tuning traces (periods)")
		->capture_default_str()->check(CLI::Range(uint64_t(1), uint64_t(1) << 20));
	app.add_option("--period", o.period,
		       "accesses per period (default: working set / 4; the held-out half: always that)");
	app.add_option("--phase", o.phase_periods,
		       "periods between hot-set shifts (drift: for the window to slide by its width); "
		       "also the window of the per-window oracle (drift: a quarter of it)")
		->capture_default_str()->check(CLI::PositiveNumber);
	app.add_option("--seed", o.seed, "seed of the tuning traces")->capture_default_str();
	app.add_option("--ratios", o.ratios, "fast-tier sizes as fractions of the working set")
		->capture_default_str()->delimiter(',')->check(CLI::Range(0.0, 1.0));
	app.add_option("--traces", o.traces,
		       "tuning traces: zipf-0.8,zipf-0.99,zipf-1.2,shift,drift,scan,zipf-sweep,"
		       "uniform, or a --corpus tuning trace's NAME (default: all, or none with "
		       "--trace-file or --heldout only)")
		->delimiter(',');
	app.add_option("--trace-file", o.files, "replay a trace file (repeatable)");
	app.add_option("--trace-format", o.file_format, "trace file format")
		->capture_default_str()->check(CLI::IsMember({ "auto", "text", "u64le" }));
	app.add_option("--corpus", o.corpus,
		       "program traces: DIR/tuning/*.txt join the tuning half, DIR/heldout/*.txt the "
		       "held-out half (text trace files; both folders must exist, either may be "
		       "empty; any other entry, a missing DIR or a bad trace is an error)");
	app.add_option("--policies", o.policies,
		       "first-touch, nb-tiering, clock, cxltier, cxltier:key=value:... (keys: decay, "
		       "idle, burst, conf, hyst, resid, ifdr, bfdr), oracle-static, oracle-window")
		->capture_default_str()->delimiter(',');
	app.add_option("--heldout", o.heldout,
		       "run the held-out half: on, off, only, or auto (on unless --traces or "
		       "--trace-file is given)")
		->capture_default_str()->check(CLI::IsMember({ "auto", "on", "off", "only" }));
	app.add_option("--baseline", o.baseline,
		       "the last release's held-out results (bench/sim/heldout-baseline.json): a "
		       "held-out trace and size where cxltier is more than 0.005 below is flagged "
		       "REGRESSION (the last one given counts)")
		->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
	app.add_option("--write-baseline", o.write_baseline,
		       "write this run's held-out results here, as the baseline of later runs "
		       "(when a release is cut)");
	app.add_option("--baseline-label", o.baseline_label, "the release --write-baseline names")
		->capture_default_str();
	app.add_option("--budget-div", o.budget_div,
		       "migration budget: fast-tier pages / this, per period and direction")
		->capture_default_str()->check(CLI::PositiveNumber);
	app.add_option("--pingpong-window", o.pp_window,
		       "a promotion of a page demoted at most this many periods before is ping-pong")
		->capture_default_str();
	app.add_option("--observe", o.observe,
		       "what the sampled policies (all but nb-tiering) see of each period: the pages "
		       "accessed in all of it (period), or in the daemon's adaptive observation window "
		       "only (adaptive: kmod/daemon.c's cxlt_adapt_window, from a tenth of the period, "
		       "halved while more than half the pages were accessed in it, doubled while fewer "
		       "than a tenth were, between a hundredth of the period and all of it)")
		->capture_default_str()->check(CLI::IsMember({ "period", "adaptive" }));
	app.add_option("--jobs", o.jobs, "threads (default: CPUs)");
	app.add_option("--json", o.json, "write the records and goals as JSON here");
	app.add_option("--series-dir", o.series_dir,
		       "write per-period fast-tier access fractions here, one .dat per trace and size");
	CLI11_PARSE(app, argc, argv);

	try {
		std::vector<result> rs;
		uint64_t period = 0;
		bool synthetic_ran = false;
		const bool picked = !o.traces.empty() || !o.files.empty();
		const bool heldout = o.heldout == "on" || o.heldout == "only" ||
				     (o.heldout == "auto" && !picked);
		corpus cp;
		std::map<std::string, trace> programs;
		std::vector<heldout_id> ids;
		baseline base;

		if (!heldout && !o.write_baseline.empty())
			throw std::invalid_argument("--write-baseline needs the held-out half");
		if (!o.corpus.empty())
			cp = list_corpus(o.corpus);
		if (heldout && !o.baseline.empty())
			base = read_baseline(o.baseline, o);
		if (o.heldout != "only" && !picked) {
			o.traces = tuning_traces();
			for (auto &t : cp.tuning)
				o.traces.push_back(t.name);
		}
		// Every program trace is read before the first run: a bad file
		// stops the run at once, not after the rest of the corpus.
		for (auto &name : o.traces) {
			// Tuning on the held-out half would make it a second tuning half.
			if (has_name(heldout_traces(), name) || has_name(cp.heldout, name))
				throw std::invalid_argument(fmt::format(
					"'{}' is in the held-out half (--heldout runs it)", name));
			if (!std::ranges::count(tuning_traces(), name) && !has_name(cp.tuning, name))
				throw std::invalid_argument(fmt::format(
					"unknown tuning trace '{}'{}", name,
					o.corpus.empty() ? ""
							 : fmt::format(" (not in {}/tuning either)", o.corpus)));
			for (auto &t : cp.tuning)
				if (t.name == name && !programs.count(name))
					programs.emplace(name, load_program(t));
		}
		if (heldout)
			for (auto &t : cp.heldout)
				programs.emplace(t.name, load_program(t));

		// The config's period is the synthetic tuning traces' when they run.
		for (auto &name : o.traces) {
			if (has_name(cp.tuning, name)) {
				const trace &tr = programs.at(name);
				uint64_t p = o.period ? o.period : std::max<uint64_t>(tr.npages / 4, 1);

				period = synthetic_ran ? period : p;
				run_trace(tr, o.ratios, o.policies, false, "corpus", o, p, rs);
				continue;
			}
			period = o.period ? o.period : std::max<uint64_t>(o.pages / 4, 1);
			synthetic_ran = true;
			trace_params tp{ o.pages, o.periods * period, o.phase_periods * period, o.seed };
			run_trace(make_trace(name, tp), o.ratios, o.policies, false, "synthetic", o, period,
				  rs);
		}
		for (auto &f : o.files) {
			trace tr = read_trace_file(f, o.file_format);
			uint64_t p = o.period ? o.period : std::max<uint64_t>(tr.npages / 4, 1);

			period = synthetic_ran ? period : p;
			run_trace(tr, o.ratios, o.policies, false, "file", o, p, rs);
		}
		if (heldout) {
			for (auto &ht : heldout_traces()) {
				uint64_t hp = std::max<uint64_t>(ht.npages / 4, 1);
				trace tr = make_trace(ht.name, { ht.npages, ht.periods * hp,
								 ht.phase_periods * hp, ht.seed });

				if (!tr.window)
					tr.window = ht.phase_periods * hp;
				run_trace(tr, HELDOUT_RATIOS, HELDOUT_POLICIES, true, "synthetic", o, hp, rs);
				ids.push_back(synthetic_id(ht));
			}
			for (auto &t : cp.heldout) {
				trace &tr = programs.at(t.name);
				uint64_t hp = std::max<uint64_t>(tr.npages / 4, 1);

				tr.window = HELDOUT_WINDOW_PERIODS * hp;
				run_trace(tr, HELDOUT_RATIOS, HELDOUT_POLICIES, true, "corpus", o, hp, rs);
				ids.push_back(program_id(tr, hp));
			}
		}
		auto rows = heldout_rows(rs, ids, base);
		auto goals = check_goals(rs, rows);

		if (o.heldout != "only")
			print_table(rs);
		if (!rows.empty())
			print_heldout(rows, base);
		fmt::print("\n");
		for (auto &g : goals)
			fmt::print("goal {}: {} ({})\n", g.text, g.value, g.met ? "met" : "NOT met");
		if (!o.json.empty())
			write_json(o.json, o, period, rs, goals, rows, base);
		if (!o.write_baseline.empty())
			write_baseline(o.write_baseline, o, rows);
		if (!o.series_dir.empty())
			write_series(o.series_dir, rs);
	} catch (const std::exception &e) {
		fmt::print(stderr, "cxlt-sim: {}\n", e.what());
		return 1;
	}
	return 0;
}
