// SPDX-License-Identifier: GPL-2.0
// cxlt-sim: replays access traces through cxltier's placement policy core and
// through the baselines, against the offline optimum.  See the "Placement
// policy" part of Documentation/design.rst.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "placement.hpp"
#include "trace.hpp"

namespace cxltier::sim {
namespace {

constexpr uint64_t PAGE_SIZE = 4096;

struct options {
	uint32_t pages = 32768;
	uint64_t periods = 1024;
	uint64_t period = 0;		// 0: pages / 4
	uint64_t phase_periods = 64;
	uint64_t seed = 1;
	uint32_t budget_div = 16;
	uint32_t pp_window = 16;
	unsigned jobs = 0;
	std::vector<double> ratios{ 0.25, 0.5 };
	std::vector<std::string> traces;
	std::vector<std::string> files;
	std::string file_format = "auto";
	std::vector<std::string> policies{ "first-touch", "nb-tiering", "clock", "cxltier",
					   "oracle-static", "oracle-window" };
	std::string json;
	std::string series_dir;
};

struct result {
	std::string trace, policy;
	double ratio = 0;
	run_config cfg{};
	uint32_t npages = 0;
	uint64_t accesses = 0, hits = 0;
	uint64_t promotions = 0, demotions = 0, pingpong = 0, failed = 0;
	double oracle_static = 0, oracle_window = 0;
	bool shifting = false;		// hot set redrawn every phase
	bool changing = false;		// hot set changes: judged by the window oracle
	int64_t recovery = -1;		// periods, worst shift; -1 if no shift
	std::vector<float> series;	// fast-tier access fraction per period
	std::vector<uint32_t> moves;	// migrations per period

	double ftaf() const { return accesses ? double(hits) / double(accesses) : 0.0; }
	double oracle() const { return changing ? oracle_window : oracle_static; }
};

run_config make_config(const trace &tr, double ratio, const options &o, uint64_t period)
{
	run_config c{};

	c.fast_pages = static_cast<uint32_t>(std::llround(tr.npages * ratio));
	c.budget = std::max(c.fast_pages / o.budget_div, 1U);
	c.wmark_low = c.fast_pages >> 8;
	c.wmark_high = c.fast_pages >> 7;
	c.period = period;
	c.pp_window = o.pp_window;
	c.window = tr.window ? tr.window : o.phase_periods * period;
	return c;
}

result simulate(const trace &tr, const run_config &cfg, const std::string &spec)
{
	memory m(tr.npages, cfg);
	auto pol = make_policy(spec, tr, cfg);
	std::vector<uint8_t> seen(tr.npages, 0);
	std::vector<uint32_t> sampled;
	const bool per_access = pol->wants_accesses();
	const uint64_t n = tr.acc.size();
	uint64_t phits = 0, pacc = 0, moved = 0;
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
		if (!seen[p]) {
			seen[p] = 1;
			sampled.push_back(p);
		}
		if (per_access)
			pol->access(m, p, t);
		if (++pacc == cfg.period || t + 1 == n) {
			r.series.push_back(static_cast<float>(double(phits) / double(pacc)));
			r.hits += phits;
			phits = 0;
			pacc = 0;
			for (uint32_t s : sampled)
				seen[s] = 0;
			pol->end_period(m, sampled, t + 1);
			sampled.clear();
			m.period++;
			r.moves.push_back(static_cast<uint32_t>(m.promotions + m.demotions - moved));
			moved = m.promotions + m.demotions;
		}
	}
	r.accesses = n;
	r.promotions = m.promotions;
	r.demotions = m.demotions;
	r.pingpong = m.pingpong;
	r.failed = m.failed;
	return r;
}

// The offline reference, computed from the trace: the static top-C and, per
// window, the window's top-C, with that oracle's fast-tier access fraction
// per period (for the recovery goal).
struct oracle {
	double stat = 0, window = 0;
	std::vector<float> window_series;
};

oracle offline(const trace &tr, const run_config &cfg)
{
	const uint64_t n = tr.acc.size();
	std::vector<uint8_t> in(tr.npages);
	uint64_t hits = 0, whits = 0;
	oracle o;

	for (uint32_t p : top_pages(tr, 0, n, cfg.fast_pages, {}))
		in[p] = 1;
	for (uint32_t p : tr.acc)
		hits += in[p];
	o.stat = double(hits) / double(n);
	for (uint64_t w = 0; w < n; w += cfg.window) {
		std::fill(in.begin(), in.end(), 0);
		for (uint32_t p : top_pages(tr, w, w + cfg.window, cfg.fast_pages, {}))
			in[p] = 1;
		for (uint64_t s = w; s < std::min(w + cfg.window, n); s += cfg.period) {
			uint64_t e = std::min({ s + cfg.period, w + cfg.window, n }), h = 0;

			for (uint64_t i = s; i < e; i++)
				h += in[tr.acc[i]];
			whits += h;
			o.window_series.push_back(static_cast<float>(double(h) / double(e - s)));
		}
	}
	o.window = double(whits) / double(n);
	return o;
}

// Worst number of periods, over the shifts, from a shift until the policy's
// per-period fast-tier access fraction first reaches 90% of the window oracle's.
int64_t recovery(const result &r, const oracle &o, uint64_t phase_periods)
{
	int64_t worst = 0;

	for (uint64_t s = phase_periods; s < r.series.size(); s += phase_periods) {
		uint64_t end = std::min<uint64_t>(s + phase_periods, r.series.size()), p = s;

		while (p < end && r.series[p] < 0.9 * o.window_series[p])
			p++;
		worst = std::max<int64_t>(worst, static_cast<int64_t>(p - s + 1));
	}
	return worst;
}

std::string ratio_name(double r)
{
	double inv = 1.0 / r;

	if (std::fabs(inv - std::round(inv)) < 1e-9)
		return fmt::format("1/{}", std::llround(inv));
	return fmt::format("{:.3g}", r);
}

void run_trace(const trace &tr, const options &o, uint64_t period, std::vector<result> &out)
{
	struct job {
		double ratio;
		std::string policy;
	};
	std::vector<job> jobs;
	std::map<double, oracle> oracles;
	std::vector<result> res;
	std::atomic<size_t> next{ 0 };
	std::mutex err_lock;
	std::string err;

	for (double ratio : o.ratios) {
		oracles[ratio] = offline(tr, make_config(tr, ratio, o, period));
		for (auto &p : o.policies)
			jobs.push_back({ ratio, p });
	}
	res.resize(jobs.size());
	auto worker = [&] {
		for (size_t i; (i = next++) < jobs.size();) {
			try {
				auto cfg = make_config(tr, jobs[i].ratio, o, period);
				res[i] = simulate(tr, cfg, jobs[i].policy);
				res[i].cfg = cfg;
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
	for (size_t i = 0; i < jobs.size(); i++) {
		result &r = res[i];
		const oracle &orc = oracles[jobs[i].ratio];

		r.trace = tr.name;
		r.policy = jobs[i].policy;
		r.ratio = jobs[i].ratio;
		r.npages = tr.npages;
		r.oracle_static = orc.stat;
		r.oracle_window = orc.window;
		r.shifting = tr.phase != 0;
		r.changing = tr.window != 0;
		if (r.shifting)
			r.recovery = recovery(r, orc, tr.phase / period);
		out.push_back(std::move(r));
	}
}

const result *find(const std::vector<result> &rs, const std::string &trace, double ratio,
		   const std::string &policy)
{
	for (auto &r : rs)
		if (r.trace == trace && r.ratio == ratio && r.policy == policy)
			return &r;
	return nullptr;
}

void print_table(const std::vector<result> &rs)
{
	fmt::print("{:<12} {:>4} {:<16} {:>6} {:>6} {:>6} {:>10} {:>8} {:>8} {:>8} {:>6}\n",
		   "trace", "fast", "policy", "ftaf", "oracle", "ratio", "migr_MiB", "promoted",
		   "demoted", "pingpong", "recov");
	std::string last;
	for (auto &r : rs) {
		if (!last.empty() && last != r.trace)
			fmt::print("\n");
		last = r.trace;
		fmt::print("{:<12} {:>4} {:<16} {:>6.3f} {:>6.3f} {:>6.3f} {:>10.1f} {:>8} {:>8} {:>8} {:>6}\n",
			   r.trace, ratio_name(r.ratio), r.policy, r.ftaf(), r.oracle(),
			   r.oracle() > 0 ? r.ftaf() / r.oracle() : 0.0,
			   double((r.promotions + r.demotions) * PAGE_SIZE) / (1 << 20),
			   r.promotions, r.demotions, r.pingpong,
			   r.recovery < 0 ? std::string("-") : std::to_string(r.recovery));
	}
}

struct goal {
	std::string text;
	std::string value;
	bool met;
};

std::vector<goal> check_goals(const std::vector<result> &rs)
{
	std::vector<goal> g;
	const std::string ours = "cxltier";

	for (auto &r : rs) {
		if (r.policy != ours)
			continue;
		std::string at = fmt::format("{} @ {}", r.trace, ratio_name(r.ratio));
		double rel = r.oracle() > 0 ? r.ftaf() / r.oracle() : 0.0;

		if (r.trace.starts_with("zipf-"))
			g.push_back({ fmt::format("ftaf >= 0.95 x oracle on {}", at),
				      fmt::format("{:.3f}", rel), rel >= 0.95 });
		if (r.shifting) {
			uint64_t refill = (r.cfg.fast_pages + r.cfg.budget - 1) / r.cfg.budget;
			g.push_back({ fmt::format("back to 0.9 x window oracle within 2 refills ({} periods) on {}",
						  2 * refill, at),
				      fmt::format("{} periods", r.recovery),
				      r.recovery >= 0 && uint64_t(r.recovery) <= 2 * refill });
		}
		double pp = r.promotions ? double(r.pingpong) / double(r.promotions) : 0.0;
		g.push_back({ fmt::format("pingpong <= 5% of promotions on {}", at),
			      fmt::format("{:.1f}% ({} of {})", 100 * pp, r.pingpong, r.promotions),
			      pp <= 0.05 });
		if (r.trace == "uniform") {
			uint64_t moved = r.promotions + r.demotions;
			double frac = double(moved) / r.npages;

			g.push_back({ fmt::format("near-zero migrations (<= 1% of the working set) on {}", at),
				      fmt::format("{:.2f}% ({} pages)", 100 * frac, moved), frac <= 0.01 });
		}
		if (auto nb = find(rs, r.trace, r.ratio, "nb-tiering"))
			g.push_back({ fmt::format("ftaf ahead of nb-tiering on {}", at),
				      fmt::format("{:.4f} vs {:.4f}", r.ftaf(), nb->ftaf()),
				      r.ftaf() > nb->ftaf() });
	}
	return g;
}

void write_json(const std::string &path, const options &o, uint64_t period,
		const std::vector<result> &rs, const std::vector<goal> &goals)
{
	nlohmann::json recs = nlohmann::json::array(), gj = nlohmann::json::array();

	for (auto &r : rs) {
		nlohmann::json j = {
			{ "trace", r.trace },
			{ "fast_ratio", r.ratio },
			{ "policy", r.policy },
			{ "ftaf", r.ftaf() },
			{ "oracle_ftaf", r.oracle() },
			{ "migrated_bytes", (r.promotions + r.demotions) * PAGE_SIZE },
			{ "pingpong", r.pingpong },
			{ "promotions", r.promotions },
			{ "demotions", r.demotions },
			{ "failed_migrations", r.failed },
			{ "oracle_static_ftaf", r.oracle_static },
			{ "oracle_window_ftaf", r.oracle_window },
			{ "pages", r.npages },
			{ "fast_pages", r.cfg.fast_pages },
			{ "budget_pages", r.cfg.budget },
			{ "accesses", r.accesses },
			{ "periods", r.series.size() },
		};
		if (r.recovery >= 0)
			j["recovery_periods"] = r.recovery;
		recs.push_back(j);
	}
	for (auto &g : goals)
		gj.push_back({ { "goal", g.text }, { "value", g.value }, { "met", g.met } });
	nlohmann::json doc = {
		{ "config",
		  { { "pages", o.pages }, { "period_accesses", period }, { "periods", o.periods },
		    { "phase_periods", o.phase_periods }, { "seed", o.seed },
		    { "budget", fmt::format("fast_pages / {} per period", o.budget_div) },
		    { "pingpong_window_periods", o.pp_window }, { "page_size", PAGE_SIZE },
		    { "sampling", "accessed bits harvested once per period" } } },
		{ "records", recs },
		{ "goals", gj },
	};
	std::ofstream f(path);
	f << doc.dump(1) << "\n";
	if (!f)
		throw std::runtime_error(fmt::format("{}: cannot write", path));
}

// One file per trace and fast-tier size: period, then one column per policy
// of fast-tier access fraction (.dat) or of pages migrated (.mig).
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

		f << "period";
		g << "period";
		for (auto *r : v) {
			f << " " << r->policy;
			g << " " << r->policy;
		}
		f << "\n";
		g << "\n";
		for (size_t p = 0; p < v[0]->series.size(); p++) {
			f << p;
			g << p;
			for (auto *r : v) {
				f << fmt::format(" {:.4f}", p < r->series.size() ? r->series[p] : 0.0f);
				g << " " << (p < r->moves.size() ? r->moves[p] : 0);
			}
			f << "\n";
			g << "\n";
		}
		if (!f || !g)
			throw std::runtime_error(fmt::format("{}: cannot write", base));
	}
}

} // namespace
} // namespace cxltier::sim

int main(int argc, char **argv)
{
	using namespace cxltier::sim;
	options o;
	CLI::App app{ "Replay memory access traces through cxltier's placement policy core and the "
		      "baselines, on a fast tier (DRAM) and a slow tier (CXL), against the offline "
		      "optimum.\n\n"
		      "Sampling: the policies other than nb-tiering see, once per period, the set of "
		      "distinct pages accessed in it (accessed bits harvested and cleared), never "
		      "counts or the trace; nb-tiering sees hint faults (first access after its "
		      "scan, with the time since the scan).\n\n"
		      "Trace files: text, one page number per line (decimal or 0x hex), '#' starts a "
		      "comment, blank lines ignored; or binary, little-endian unsigned 64-bit page "
		      "numbers back to back (--trace-format u64le, or a name ending in .bin or .u64). "
		      "Page numbers are renumbered densely; the working set is the distinct pages." };

	app.add_option("--pages", o.pages, "working set of the synthetic traces (pages)")
		->capture_default_str()->check(CLI::Range(8U, 1U << 28));
	app.add_option("--periods", o.periods, "length of the synthetic traces (periods)")
		->capture_default_str()->check(CLI::Range(uint64_t(1), uint64_t(1) << 20));
	app.add_option("--period", o.period, "accesses per period (default: working set / 4)");
	app.add_option("--phase", o.phase_periods,
		       "periods between hot-set shifts (drift: for the window to slide by its width); "
		       "also the window of the per-window oracle (drift: a quarter of it)")
		->capture_default_str()->check(CLI::PositiveNumber);
	app.add_option("--seed", o.seed, "seed of the synthetic traces")->capture_default_str();
	app.add_option("--ratios", o.ratios, "fast-tier sizes as fractions of the working set")
		->capture_default_str()->delimiter(',')->check(CLI::Range(0.0, 1.0));
	app.add_option("--traces", o.traces,
		       "synthetic traces: zipf-0.8,zipf-0.99,zipf-1.2,shift,drift,scan,zipf-sweep,"
		       "uniform "
		       "(default: all, or none with --trace-file)")->delimiter(',');
	app.add_option("--trace-file", o.files, "replay a trace file (repeatable)");
	app.add_option("--trace-format", o.file_format, "trace file format")
		->capture_default_str()->check(CLI::IsMember({ "auto", "text", "u64le" }));
	app.add_option("--policies", o.policies,
		       "first-touch, nb-tiering, clock, cxltier, cxltier:key=value:... (keys: decay, "
		       "idle, burst, conf, hyst, resid, ifdr, bfdr), oracle-static, oracle-window")
		->capture_default_str()->delimiter(',');
	app.add_option("--budget-div", o.budget_div,
		       "migration budget: fast-tier pages / this, per period and direction")
		->capture_default_str()->check(CLI::PositiveNumber);
	app.add_option("--pingpong-window", o.pp_window,
		       "a promotion of a page demoted at most this many periods before is ping-pong")
		->capture_default_str();
	app.add_option("--jobs", o.jobs, "threads (default: CPUs)");
	app.add_option("--json", o.json, "write the records and goals as JSON here");
	app.add_option("--series-dir", o.series_dir,
		       "write per-period fast-tier access fractions here, one .dat per trace and size");
	CLI11_PARSE(app, argc, argv);

	try {
		std::vector<result> rs;
		uint64_t period = 0;

		if (o.traces.empty() && o.files.empty())
			o.traces = builtin_traces();
		for (auto &name : o.traces) {
			period = o.period ? o.period : std::max<uint64_t>(o.pages / 4, 1);
			trace_params tp{ o.pages, o.periods * period, o.phase_periods * period, o.seed };
			run_trace(make_trace(name, tp), o, period, rs);
		}
		for (auto &f : o.files) {
			trace tr = read_trace_file(f, o.file_format);

			period = o.period ? o.period : std::max<uint64_t>(tr.npages / 4, 1);
			run_trace(tr, o, period, rs);
		}
		auto goals = check_goals(rs);

		print_table(rs);
		fmt::print("\n");
		for (auto &g : goals)
			fmt::print("goal {}: {} ({})\n", g.text, g.value, g.met ? "met" : "NOT met");
		if (!o.json.empty())
			write_json(o.json, o, period, rs, goals);
		if (!o.series_dir.empty())
			write_series(o.series_dir, rs);
	} catch (const std::exception &e) {
		fmt::print(stderr, "cxlt-sim: {}\n", e.what());
		return 1;
	}
	return 0;
}
