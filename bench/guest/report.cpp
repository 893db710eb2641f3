// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-report: turns what the guest benchmark wrote (bench/guest/run-configs:
// one JSON per configuration, its setup, the guest's description; one folder seed-N
// per seed) into one results file (records and goals, as cxlt-sim writes them), a
// table on stdout and the per-interval series that bench/run-guest plots.  Over
// several seeds a configuration's record is its median run (by ops/s), whose
// numbers below are replaced by their medians over the seeds, with NAME_min and
// NAME_max beside them and each seed's in per_seed.  The real programs
// (run-configs --programs, cxlt-bench-prog; folder PROGRAM of each seed) get a
// table each, by run time (lower is better), or for a server (redis: cxlt-bench-prog
// in server mode) by its client's ops/s (higher is better), with their records in
// the same file.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr uint64_t PAGE_SIZE = 4096;

json load(const fs::path &p)
{
	std::ifstream f(p);

	if (!f)
		return nullptr;
	try {
		return json::parse(f);
	} catch (const json::exception &e) {
		throw std::runtime_error(fmt::format("{}: {}", p.string(), e.what()));
	}
}

int64_t num(const json &j, const char *key)
{
	return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<int64_t>() : 0;
}

int64_t prefixed_sum(const json &j, const std::string &prefix)
{
	int64_t s = 0;

	if (j.is_object())
		for (const auto &[k, v] : j.items())
			if (k.starts_with(prefix) && v.is_number())
				s += v.get<int64_t>();
	return s;
}

// A member of @o, or null when @o has none: operator[] on a const json with a key it
// lacks is undefined behaviour (a program's records have no ops_per_s or ftaf in
// their spans; reading them so crashed cxlt-bench-report once).
const json &field(const json &o, const char *key)
{
	static const json none;
	const auto it = o.find(key);	// end() for a non-object

	return it != o.end() ? *it : none;
}

// The record of one span (warm-up or steady state) of one configuration.
json span(const json &run, const json &s)
{
	const bool region = field(field(run, "workload"), "backend") == "region";
	const json &vm = field(s, "vmstat"), &be = field(s, "backend"), &ctr = field(s, "counters");
	json r;
	uint64_t migrated;

	// Bytes the tiering machinery copied: the module's own count for a region (it does
	// not go through the kernel's migrate_pages()), the kernel's for anonymous memory.
	if (region)
		migrated = uint64_t(std::max(num(be, "moved_bytes"), num(ctr, "moved_bytes")));
	else
		migrated = uint64_t(num(vm, "pgmigrate_success")) * PAGE_SIZE;
	double cpu = s.value("cpu_threads_pct", 0.0) + s.value("cpu_app_sys_pct", 0.0);

	r["seconds"] = field(s, "seconds");
	r["ops_per_s"] = field(s, "ops_per_s");
	r["ftaf"] = field(s, "ftaf");
	// The ruler without its carry of unmapped pages (a lower bound), and the most
	// access mass of unmapped pages that the ruler and a region's own answer put on
	// different tiers in one sample (null: no such answer); older results have neither.
	r["ftaf_mapped"] = s.value("ftaf_mapped", json(nullptr));
	r["carry_error_max"] = s.value("carry_error_max", json(nullptr));
	// The most access mass the carry decided in one sample.
	r["carried_mass_max"] = s.value("carried_mass_max", json(nullptr));
	r["migrated_bytes"] = migrated;
	r["pingpong"] = field(s, "pingpong_seen");
	r["pingpong_reported"] = region && be.is_object() && be.contains("pingpong")
				 ? be["pingpong"] : json(nullptr);
	r["moved_pages_seen"] = field(s, "moved_pages_seen");
	r["cpu_pct"] = cpu;
	r["cpu"] = { { "threads_pct", field(s, "cpu_threads_pct") }, { "app_sys_pct", field(s, "cpu_app_sys_pct") },
		     { "threads_ns", field(s, "cpu_threads_ns") } };
	if (ctr.is_object() && ctr.contains("cpu_ns")) {
		const double ns = field(s, "seconds").get<double>() * 1e9;

		r["cpu"]["daemon_pct"] = 100.0 * double(num(ctr, "cpu_ns")) / ns;
		// Where the daemon's time went, in wall time (its phases; cpu_ns is CPU
		// time): sampling and the policy, or moving pages (which the kernel's rows
		// do in kswapd and in faults).
		if (ctr.contains("move_ns")) {
			r["cpu"]["daemon_sampling_pct"] =
				100.0 * double(num(ctr, "arm_ns") + num(ctr, "harvest_ns") + num(ctr, "decide_ns")) / ns;
			r["cpu"]["daemon_move_pct"] = 100.0 * double(num(ctr, "move_ns")) / ns;
		}
	}
	r["vmstat"] = vm;
	if (const json &irq = field(s, "interrupts"); !irq.is_null())
		r["interrupts"] = irq;
	if (!be.is_null())
		r["region_stat"] = be;
	if (ctr.is_object() && !ctr.empty())
		r["daemon_stats"] = ctr;
	return r;
}

struct row {
	std::string config;
	json rec;
};

json make_record(const std::string &c, const json &run, const json &setup, const json &guest)
{
	json r;

	r["config"] = c;
	r["program"] = "zipf";
	r["seed"] = guest["seed"];
	// The hard limit on the working set's DRAM every row but dram and cxl runs with
	// (run-configs' limit_dram: --fast-mb and the kernel's room).
	r["dram_mb_limit"] = setup.is_object() && setup.value("dram_limit", "none") != "none"
				     ? json(guest.value("dram_limit_mb", guest["fast_mb"].get<int>()) +
					    setup.value("base_dram_mb", 0))
				     : json(nullptr);
	if (run.is_null()) {
		r["skipped"] = "no results from the guest";
		return r;
	}
	if (run.contains("skipped")) {
		r["skipped"] = run["skipped"];
		if (!setup.is_null())
			r["setup"] = setup;
		return r;
	}
	json st = span(run, run["steady"]), wu = span(run, run["warmup"]);
	for (const auto &[k, v] : st.items())
		r[k] = v;
	r["rel_dram"] = nullptr;	// filled once dram's is known
	r["fast_mb"] = run["steady"]["fast_mb_mean"];
	r["dram_mb_used"] = r["fast_mb"];
	r["fast_free_mb"] = run["steady"]["fast_free_mb_mean"];
	r["ftaf_opt_same_dram"] = run["ftaf_opt_same_dram"];
	r["initial_ftaf"] = run["initial"]["ftaf"];
	r["populate_s"] = run["populate_s"];
	r["warmup"] = wu;
	r["setup"] = setup;
	r["locator"] = run["workload"]["locator"];
	if (run.contains("counters_end"))
		r["daemon_stats_end"] = run["counters_end"];
	r["series"] = run["series"];
	return r;
}

// A real program's primary result: its client's ops/s for a server (cxlt-bench-prog
// in server mode) or its own for a program that measures itself (rate mode: dlrm),
// else its run time.
bool higher_is_better(const std::string &metric)
{
	return metric == "ops_per_s";
}

// A real program's run (cxlt-bench-prog): its run time is the result, or its
// client's ops/s for a server; where its pages were, dram_frac, is no access
// fraction (nothing counts its accesses).
json make_prog_record(const std::string &prog, const std::string &c, const json &run,
		      const json &setup, const json &guest)
{
	json r;

	r["config"] = c;
	r["program"] = prog;
	r["seed"] = guest["seed"];
	r["dram_mb_limit"] = setup.is_object() && setup.value("dram_limit", "none") != "none"
				     ? json(guest.value("dram_limit_mb", guest["fast_mb"].get<int>()) +
					    setup.value("base_dram_mb", 0))
				     : json(nullptr);
	if (run.is_null() || run.contains("skipped")) {
		r["skipped"] = run.is_null() ? json("no results from the guest") : run["skipped"];
		if (!setup.is_null())
			r["setup"] = setup;
		return r;
	}
	json st = span(run, run["steady"]);
	const bool server = run.value("mode", "") == "server";
	const bool rate = server || run.value("mode", "") == "rate";
	r["metric"] = rate ? "ops_per_s" : "runtime_s";
	if (rate)
		r["ops_per_s"] = run["ops_per_s"];
	r["runtime_s"] = run["runtime_s"];
	// dram's run time / this one's (a server: this one's ops/s / dram's), once dram's
	// is known: below 1 is worse than dram either way.
	r["rel_dram"] = nullptr;
	r["ftaf"] = nullptr;
	r["dram_frac"] = run["steady"]["dram_frac"];
	r["dram_mb_used"] = run["steady"]["fast_mb_mean"];
	r["resident_mb"] = run["steady"]["resident_mb_mean"];
	for (const char *k : { "migrated_bytes", "pingpong", "moved_pages_seen", "cpu_pct", "cpu",
			       "vmstat", "interrupts", "daemon_stats" })
		if (st.contains(k))
			r[k] = st[k];
	r["cpu_user_s"] = run["cpu_user_s"];
	r["cpu_sys_s"] = run["cpu_sys_s"];
	r["command"] = run["command"];
	// The measuring runner's own record: its memory, where it is, its CPU time (null
	// before it said).
	r["runner"] = run.contains("runner") ? run["runner"] : json(nullptr);
	if (server) {
		r["client_command"] = run["client_command"];
		// What the client says of the run besides its rate (its own series left out).
		json cl = json::object();
		if (run["client"].is_object())
			for (const auto &[k, v] : run["client"].items())
				if (k != "series")
					cl[k] = v;
		r["client"] = cl;
	} else if (rate && run["program_output"].is_object()) {
		r["program_output"] = run["program_output"];
	}
	r["setup"] = setup;
	r["locator"] = run["workload"]["locator"];
	if (run.contains("counters_end"))
		r["daemon_stats_end"] = run["counters_end"];
	r["series"] = run["series"];
	return r;
}

std::string mib(double bytes)
{
	return fmt::format("{:.1f}", bytes / (1 << 20));
}

// "min-max" of a summarized number over the seeds, "-" for one seed.
std::string range(const json &r, const char *key, const char *spec)
{
	std::string lo = std::string(key) + "_min", hi = std::string(key) + "_max";
	if (!r.contains(lo) || r[lo].is_null() || r["seeds"].size() < 2)
		return "-";
	return fmt::format(fmt::runtime(std::string("{:") + spec + "}-{:" + spec + "}"),
			   r[lo].get<double>(), r[hi].get<double>());
}

// Pages promoted and demoted: the module's counts for a region (its STAT, or the
// daemon's for a program's region), the kernel's for anonymous memory.
std::pair<int64_t, int64_t> moves(const json &r)
{
	if (r.contains("region_stat"))
		return { num(r["region_stat"], "promoted"), num(r["region_stat"], "demoted") };
	if (r.contains("daemon_stats"))
		return { num(r["daemon_stats"], "promoted_pages"), num(r["daemon_stats"], "demoted_pages") };
	return { num(r["vmstat"], "pgpromote_success"), prefixed_sum(r["vmstat"], "pgdemote_") };
}

// A number to three places, "-" where there is none (rel_dram before dram's run is known).
std::string cell(const json &r, const char *key)
{
	return !r.contains(key) || !r[key].is_number() ? std::string("-")
						       : fmt::format("{:.3f}", r[key].get<double>());
}

// A skipped row's line, with why; false for a row that ran.
bool print_skipped(const std::string &c, const json &r)
{
	if (!r.contains("skipped"))
		return false;
	fmt::print("{:<14} skipped: {}\n", c, r["skipped"].get<std::string>());
	return true;
}

void print_table(const std::vector<row> &rows)
{
	fmt::print("{:<14} {:>10} {:>17} {:>8} {:>6} {:>11} {:>7} {:>6} {:>9} {:>8} {:>6} {:>8} {:>8} {:>10} {:>8} {:>9}\n",
		   "config", "ops/s", "ops/s min-max", "rel_dram", "ftaf", "ftaf min-max",
		   "ftaf_wu", "DRAM", "migr_MiB", "pingpong", "cpu%", "promoted", "demoted",
		   "ops/s_wu", "ftaf_map", "carry_err");
	for (const auto &[c, r] : rows) {
		if (print_skipped(c, r))
			continue;
		auto [promoted, demoted] = moves(r);
		fmt::print("{:<14} {:>10.0f} {:>17} {:>8} {:>6.3f} {:>11} {:>7.3f} {:>6.1f} {:>9} {:>8} {:>6.1f} {:>8} {:>8} {:>10.0f} {:>8} {:>9}\n",
			   c, r["ops_per_s"].get<double>(), range(r, "ops_per_s", ".0f"),
			   cell(r, "rel_dram"),
			   r["ftaf"].get<double>(), range(r, "ftaf", ".3f"),
			   r["warmup"]["ftaf"].get<double>(),
			   r["fast_mb"].get<double>(), mib(r["migrated_bytes"].get<double>()),
			   r["pingpong"].get<uint64_t>(), r["cpu_pct"].get<double>(), promoted, demoted,
			   r["warmup"]["ops_per_s"].get<double>(), cell(r, "ftaf_mapped"),
			   cell(r, "carry_error_max"));
	}
}

void print_prog_table(const std::string &prog, const std::string &metric, const std::vector<row> &rows)
{
	const bool ops = higher_is_better(metric);
	fmt::print("{}:\n{:<14} {:>9} {:>13} {:>8} {:>9} {:>6} {:>8} {:>9} {:>8} {:>6} {:>8} {:>8}\n",
		   prog, "config", ops ? "ops/s" : "runtime_s", "min-max", "rel_dram", "dram_frac", "DRAM",
		   "resident", "migr_MiB", "pingpong", "cpu%", "promoted", "demoted");
	for (const auto &[c, r] : rows) {
		if (print_skipped(c, r))
			continue;
		auto [promoted, demoted] = moves(r);
		fmt::print("{:<14} {:>9.{}f} {:>13} {:>8} {:>9.3f} {:>6.1f} {:>8.1f} {:>9} {:>8} {:>6.1f} {:>8} {:>8}\n",
			   c, r[metric].get<double>(), ops ? 0 : 1, range(r, metric.c_str(), ops ? ".0f" : ".1f"),
			   cell(r, "rel_dram"),
			   r["dram_frac"].get<double>(), r["dram_mb_used"].get<double>(),
			   r["resident_mb"].get<double>(), mib(r["migrated_bytes"].get<double>()),
			   r["pingpong"].get<uint64_t>(), r["cpu_pct"].get<double>(), promoted, demoted);
	}
}

struct goal {
	std::string text, value;
	std::optional<bool> met;	// empty: could not be evaluated
};

const json *find(const std::vector<row> &rows, const std::string &c)
{
	for (const auto &r : rows)
		if (r.config == c && !r.rec.contains("skipped"))
			return &r.rec;
	return nullptr;
}

std::string why_missing(const std::vector<row> &rows, const std::string &c)
{
	for (const auto &r : rows)
		if (r.config == c)
			return r.rec.contains("skipped") ? fmt::format("{} skipped: {}", c,
				r.rec["skipped"].get<std::string>()) : "";
	return c + " not run";
}

// The daemon's CPU in cxltier's row of @rows, split where the record can.
goal daemon_cpu_goal(const std::string &text, const std::vector<row> &rows)
{
	const json *ours = find(rows, "cxltier");

	if (!ours)
		return { text, "n/a: " + why_missing(rows, "cxltier"), {} };
	const json &cpu = field(*ours, "cpu"), &daemon = field(cpu, "daemon_pct");
	double pct = (daemon.is_null() ? field(cpu, "threads_pct") : daemon).get<double>();
	const json &move = field(cpu, "daemon_move_pct");
	std::string split = move.is_null()
		? ""
		: fmt::format(" (in wall time: sampling and policy {:.2f}%, moving pages {:.2f}%)",
			      field(cpu, "daemon_sampling_pct").get<double>(), move.get<double>());
	return { text, fmt::format("{:.2f}%{}", pct, split), pct < 3.0 };
}

std::vector<goal> check_goals(const std::vector<row> &rows, const json &guest, double hot90_mb)
{
	std::vector<goal> g;
	const json *ours = find(rows, "cxltier");
	const std::string na = ours ? "" : "n/a: " + why_missing(rows, "cxltier");

	// "OURS beats BASE on ops_per_s and ftaf", both from the same run.
	auto beats = [&](const char *name, const char *base) {
		std::string text = fmt::format("{} beats {} on ops_per_s and ftaf", name, base);
		const json *o = find(rows, name), *b = find(rows, base);
		if (!o || !b) {
			g.push_back({ text, "n/a: " + why_missing(rows, o ? base : name), {} });
			return;
		}
		double o1 = (*o)["ops_per_s"], b1 = (*b)["ops_per_s"];
		double o2 = (*o)["ftaf"], b2 = (*b)["ftaf"];
		// Seed by seed too: a median can win where most runs lose.
		int seeds = 0, won = 0;
		for (const auto &os : (*o)["per_seed"])
			for (const auto &bs : (*b)["per_seed"])
				if (os["seed"] == bs["seed"] && !os.contains("skipped") &&
				    !bs.contains("skipped")) {
					seeds++;
					won += os["ops_per_s"].get<double>() > bs["ops_per_s"].get<double>() &&
					       os["ftaf"].get<double>() > bs["ftaf"].get<double>();
				}
		g.push_back({ text, fmt::format("median ops/s {:.0f} vs {:.0f} ({:+.1f}%), ftaf {:.3f} vs "
						"{:.3f}; ahead on both in {} of {} seeds",
						o1, b1, 100 * (o1 / b1 - 1), o2, b2, won, seeds),
			      o1 > b1 && o2 > b2 });
	};
	for (const char *base :
	     { "no-migration", "numab2", "numab2-budget", "numab2-tuned", "damon", "damon-tuned",
	       "damon-mtier" })
		beats("cxltier", base);
	// Process mode: the same policy for an ordinary process, against the kernel's tiering.
	for (const char *base : { "numab2", "numab2-tuned", "damon", "damon-tuned", "damon-mtier" })
		beats("process", base);

	double fast_mb = guest.value("fast_mb", 0.0);
	std::string text = fmt::format("cxltier within 10% of dram where the hot set fits in DRAM "
				       "(hot set: the pages of 90% of the accesses, {:.1f} MiB; DRAM {:.0f} MiB)",
				       hot90_mb, fast_mb);
	if (hot90_mb > fast_mb)
		g.push_back({ text, "n/a: the hot set does not fit in this workload", {} });
	else if (!ours || !find(rows, "dram"))
		g.push_back({ text, ours ? "n/a: " + why_missing(rows, "dram") : na, {} });
	else
		g.push_back({ text, fmt::format("rel_dram {:.3f}", (*ours)["rel_dram"].get<double>()),
			      (*ours)["rel_dram"].get<double>() >= 0.9 });

	g.push_back(daemon_cpu_goal("daemon CPU below 3% of one core", rows));

	text = "metadata below 0.3% of managed memory";
	if (!ours) {
		g.push_back({ text, na, {} });
	} else if (!ours->contains("daemon_stats_end") ||
		   !(*ours)["daemon_stats_end"].contains("metadata_bytes")) {
		g.push_back({ text, "n/a: the daemon reports no metadata_bytes", {} });
	} else {
		const json &d = (*ours)["daemon_stats_end"];
		double managed = double(num(d, "managed_pages")) * PAGE_SIZE;
		double pct = managed > 0 ? 100.0 * double(num(d, "metadata_bytes")) / managed : 0.0;
		g.push_back({ text, fmt::format("{:.3f}% ({} bytes for {} pages)", pct,
						num(d, "metadata_bytes"), num(d, "managed_pages")),
			      managed > 0 && pct < 0.3 });
	}
	return g;
}

// A real program's goals: cxltier (the preload) and process mode ahead of the
// kernel's rows on its result (@metric: run time, lower is better; a server's
// ops/s, higher is better), seed by seed too.
std::vector<goal> check_prog_goals(const std::string &prog, const std::string &metric,
				   const std::vector<row> &rows)
{
	std::vector<goal> g;
	const bool up = higher_is_better(metric);
	const char *k = metric.c_str();

	auto better = [up](double a, double b) { return up ? a > b : a < b; };
	auto beats = [&](const char *name, const char *base) {
		std::string text = fmt::format("{}: {} beats {} on {}", prog, name, base,
					       up ? "ops/s" : "run time");
		const json *o = find(rows, name), *b = find(rows, base);
		if (!o || !b) {
			g.push_back({ text, "n/a: " + why_missing(rows, o ? base : name), {} });
			return;
		}
		double o1 = (*o)[k], b1 = (*b)[k];
		int seeds = 0, won = 0;
		for (const auto &os : (*o)["per_seed"])
			for (const auto &bs : (*b)["per_seed"])
				if (os["seed"] == bs["seed"] && !os.contains("skipped") &&
				    !bs.contains("skipped")) {
					seeds++;
					won += better(os[k].get<double>(), bs[k].get<double>());
				}
		g.push_back({ text, up ? fmt::format("median {:.0f} vs {:.0f} ops/s ({:+.1f}%); ahead in {} of {} seeds",
						     o1, b1, 100 * (o1 / b1 - 1), won, seeds)
				       : fmt::format("median {:.1f} s vs {:.1f} s ({:+.1f}%); faster in {} of {} seeds",
						     o1, b1, 100 * (o1 / b1 - 1), won, seeds),
			      better(o1, b1) });
	};
	for (const char *base : { "no-migration", "numab2-budget", "numab2-tuned", "damon-tuned", "damon-mtier" })
		beats("cxltier", base);
	for (const char *base : { "numab2-budget", "numab2-tuned", "damon-tuned", "damon-mtier" })
		beats("process", base);
	g.push_back(daemon_cpu_goal(prog + ": cxltier's daemon CPU below 3% of one core", rows));
	return g;
}

// The pages that take 90% of a Zipf's accesses, in MiB.
double hot_set_mb(uint64_t pages, double s, double share)
{
	double total = 0, acc = 0;

	for (uint64_t k = 1; k <= pages; k++)
		total += std::pow(double(k), -s);
	for (uint64_t k = 1; k <= pages; k++) {
		acc += std::pow(double(k), -s);
		if (acc >= share * total)
			return double(k) * PAGE_SIZE / (1 << 20);
	}
	return double(pages) * PAGE_SIZE / (1 << 20);
}

void write_series(const fs::path &dir, const std::vector<row> &rows)
{
	fs::create_directories(dir);
	// The steady state of each configuration that ran, in table order.
	std::ofstream sum(dir / "summary.dat");
	sum << "# index config rel_dram ftaf\n";
	int i = 0;
	for (const auto &[c, r] : rows)
		if (!r.contains("skipped"))
			sum << fmt::format("{} {} {:.4f} {:.4f}\n", i++, c,
					   r["rel_dram"].is_null() ? 0.0 : r["rel_dram"].get<double>(),
					   r["ftaf"].get<double>());
	if (!sum)
		throw std::runtime_error(fmt::format("{}: cannot write", (dir / "summary.dat").string()));
	for (const auto &[c, r] : rows) {
		if (!r.contains("series"))
			continue;
		std::ofstream f(dir / (c + ".dat"));
		f << "# t_s ftaf ops_per_s fast_pages moved_seen\n";
		for (const auto &p : r["series"])
			f << fmt::format("{:.2f} {:.4f} {:.0f} {} {}\n", p["t"].get<double>(),
					 p["ftaf"].get<double>(), p["ops_per_s"].get<double>(),
					 p["fast_pages"].get<uint64_t>(), p["moved_seen"].get<uint64_t>());
		if (!f)
			throw std::runtime_error(fmt::format("{}: cannot write", (dir / c).string()));
	}
}

// One seed's rows, from the folder run-configs wrote; @guest gets the guest's
// description (and the workload's) when it has none yet.
// (@prog: a real program's rows, from its folder PROG; empty: the Zipf workload's.)
std::vector<row> seed_rows(const fs::path &dir, const std::vector<std::string> &configs, json &guest,
			   const std::string &prog = "")
{
	json g = load(dir / "guest.json");
	if (g.is_null())
		throw std::runtime_error(dir.string() + "/guest.json is missing: the guest did not get to run the configurations");
	const fs::path from = prog.empty() ? dir : dir / prog;
	std::vector<row> rows;
	for (const auto &c : configs) {
		json run = load(from / (c + ".json")), setup = load(from / (c + ".setup.json"));
		if (!prog.empty()) {
			rows.push_back({ c, make_prog_record(prog, c, run, setup, g) });
			continue;
		}
		// What every run shares (all but backend and membind), from the first.
		if (!g.contains("workload") && run.is_object() && run.contains("workload"))
			g["workload"] = run["workload"];
		rows.push_back({ c, make_record(c, run, setup, g) });
	}
	const json *dram = find(rows, "dram");
	for (auto &[c, r] : rows) {
		if (!dram || r.contains("skipped"))
			continue;
		r["rel_dram"] = prog.empty() || r.value("metric", "") == "ops_per_s"
			? r["ops_per_s"].get<double>() / (*dram)["ops_per_s"].get<double>()
			: (*dram)["runtime_s"].get<double>() / r["runtime_s"].get<double>();
	}
	if (guest.is_null())
		guest = g;
	return rows;
}

// The numbers a record summarizes over the seeds: the Zipf workload's, a program's.
const std::vector<const char *> summarized = { "ops_per_s", "ftaf", "rel_dram", "migrated_bytes",
					       "pingpong", "cpu_pct", "dram_mb_used", "ftaf_mapped",
					       "carry_error_max" };
const std::vector<const char *> prog_summarized = { "runtime_s", "rel_dram", "dram_frac",
						    "migrated_bytes", "pingpong", "cpu_pct",
						    "dram_mb_used" };
// A server's: by its client's ops/s, its run time beside.
const std::vector<const char *> server_summarized = { "ops_per_s", "rel_dram", "dram_frac",
						      "migrated_bytes", "pingpong", "cpu_pct",
						      "dram_mb_used", "runtime_s" };

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	std::size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One configuration's record over the seeds: its median run (by @keys[0]: ops/s, or
// a program's run time), the numbers of @keys as medians with their minimum and
// maximum, and each seed's.
json over_seeds(const std::vector<std::pair<int, json>> &runs,
		const std::vector<const char *> &keys = summarized)
{
	const char *by = keys.front();
	std::vector<const std::pair<int, json> *> ok;
	json per_seed = json::array(), skipped = json::array();
	for (const auto &r : runs) {
		json s = { { "seed", r.first } };
		if (r.second.contains("skipped")) {
			s["skipped"] = r.second["skipped"];
			skipped.push_back(s);
		} else {
			for (const char *k : keys)
				s[k] = r.second[k];
			ok.push_back(&r);
		}
		per_seed.push_back(s);
	}
	json rec;
	if (ok.empty()) {
		rec = runs.front().second; // skipped in every seed: the first one's reason
	} else {
		std::sort(ok.begin(), ok.end(), [by](const auto *a, const auto *b) {
			return a->second[by].template get<double>() <
			       b->second[by].template get<double>();
		});
		rec = ok[(ok.size() - 1) / 2]->second;
		rec["seed"] = ok[(ok.size() - 1) / 2]->first;
		for (const char *k : keys) {
			std::vector<double> v;
			for (const auto *r : ok)
				if (r->second[k].is_number())
					v.push_back(r->second[k].template get<double>());
			if (v.empty())
				continue;
			rec[k] = median(v);
			rec[std::string(k) + "_min"] = *std::min_element(v.begin(), v.end());
			rec[std::string(k) + "_max"] = *std::max_element(v.begin(), v.end());
		}
	}
	json seeds = json::array();
	for (const auto *r : ok)
		seeds.push_back(r->first);
	std::sort(seeds.begin(), seeds.end());
	rec["seeds"] = seeds;
	rec["per_seed"] = per_seed;
	if (!skipped.empty() && !ok.empty())
		rec["skipped_seeds"] = skipped;
	return rec;
}

// The seeds' folders (seed-N), in seed order; the folder itself when it has none
// (one run, as run-configs writes it).
std::vector<std::pair<int, fs::path>> seed_dirs(const fs::path &dir)
{
	std::vector<std::pair<int, fs::path>> out;
	if (fs::is_directory(dir))
		for (const auto &e : fs::directory_iterator(dir)) {
			std::string n = e.path().filename().string();
			if (e.is_directory() && n.starts_with("seed-") && n.size() > 5 &&
			    n.find_first_not_of("0123456789", 5) == std::string::npos)
				out.push_back({ std::stoi(n.substr(5)), e.path() });
		}
	std::sort(out.begin(), out.end());
	if (out.empty()) {
		json g = load(dir / "guest.json");
		out.push_back({ g.is_object() && g.contains("seed") ? g["seed"].get<int>() : 0, dir });
	}
	return out;
}

} // namespace

int main(int argc, char **argv)
{
	std::string results, out_json, series_dir;
	std::vector<std::string> configs{ "cxltier", "no-migration", "numab2", "numab2-budget",
					  "numab2-tuned", "damon", "damon-tuned", "damon-mtier", "process", "dram",
					  "cxl" };
	double wall = 0;
	CLI::App app{ "Collect the guest benchmark's results (bench/guest/run-configs) into one "
		      "JSON file, a table and plot series" };

	app.add_option("--results", results, "the folder run-configs wrote")->required();
	app.add_option("--json", out_json, "write the records and goals here")->required();
	app.add_option("--series-dir", series_dir, "write per-interval series here (one .dat per config)");
	app.add_option("--configs", configs, "configurations, in table order")->delimiter(',');
	std::vector<std::string> programs{ "zipf" };
	app.add_option("--programs", programs,
		       "programs, in table order (zipf: the Zipf workload; others: folder PROGRAM of each seed)")
		->delimiter(',');
	app.add_option("--wall", wall, "seconds the whole run took (recorded)");
	int boots = 1;
	app.add_option("--boots", boots, "guest boots the results come from (recorded)");
	std::string host_load;
	app.add_option("--host-load", host_load, "the host's load averages during the run (recorded)");
	CLI11_PARSE(app, argc, argv);

	try {
		json guest;
		auto dirs = seed_dirs(results);
		std::vector<std::vector<row>> by_seed;
		for (const auto &[seed, d] : dirs)
			by_seed.push_back(seed_rows(d, configs, guest));
		const bool zipf = std::find(programs.begin(), programs.end(), "zipf") != programs.end();
		std::vector<row> rows;
		for (std::size_t i = 0; zipf && i < configs.size(); i++) {
			std::vector<std::pair<int, json>> runs;
			for (std::size_t k = 0; k < dirs.size(); k++)
				runs.push_back({ dirs[k].first, by_seed[k][i].rec });
			rows.push_back({ configs[i], over_seeds(runs) });
		}
		guest.erase("seed");
		guest["seeds"] = json::array();
		for (const auto &[seed, d] : dirs)
			guest["seeds"].push_back(seed);
		double pp_window = guest.contains("workload")
				   ? guest["workload"].value("pingpong_window_s", 0.0) : 0.0;

		double hot90 = hot_set_mb(uint64_t(guest["size_mb"].get<double>() * (1 << 20)) / PAGE_SIZE,
					  guest["zipf"].get<double>(), 0.9);
		std::vector<goal> goals;
		if (zipf) {
			goals = check_goals(rows, guest, hot90);
			print_table(rows);
			fmt::print("\n(medians over {} seed{} (min-max); ftaf: fast-tier access fraction, steady state; ftaf_wu: in the warm-up "
				   "(first {} s), and ops/s_wu; DRAM: MiB of the working set on DRAM, mean of the steady state; "
				   "pingpong: pages seen moving back within {} s; cpu%: tiering threads + the "
				   "workload's system time, of one CPU; ftaf_map: ftaf without the ruler's carry of "
				   "unmapped pages, a lower bound; carry_err: the most access mass of unmapped pages the "
				   "ruler put on the other tier than the module's own answer, one sample)\n\n",
				   dirs.size(), dirs.size() == 1 ? "" : "s", guest["warmup_s"].dump(), pp_window);
		}
		// The real programs: a table each, their goals with the others.
		std::vector<std::pair<std::string, std::vector<row>>> prog_rows;
		for (const auto &p : programs) {
			if (p == "zipf")
				continue;
			std::vector<std::vector<row>> ps;
			json unused;
			for (const auto &[seed, d] : dirs)
				ps.push_back(seed_rows(d, configs, unused, p));
			// Its result: a server's ops/s when any run of it says so, else run time.
			std::string metric = "runtime_s";
			for (const auto &sr : ps)
				for (const auto &r : sr)
					if (r.rec.value("metric", "") == "ops_per_s")
						metric = "ops_per_s";
			const bool up = higher_is_better(metric);
			std::vector<row> pr;
			for (std::size_t i = 0; i < configs.size(); i++) {
				std::vector<std::pair<int, json>> runs;
				for (std::size_t k = 0; k < dirs.size(); k++)
					runs.push_back({ dirs[k].first, ps[k][i].rec });
				pr.push_back({ configs[i], over_seeds(runs, up ? server_summarized : prog_summarized) });
			}
			print_prog_table(p, metric, pr);
			fmt::print("\n(medians over {} seed{}; {}; dram_frac: share of its resident "
				   "pages on DRAM, time-weighted (no access counts: no ftaf); DRAM, resident: "
				   "MiB, time-weighted means)\n\n", dirs.size(), dirs.size() == 1 ? "" : "s",
				   up ? "ops/s: its client's (a server's) or its own (dlrm's samples/s), higher is "
					"better; rel_dram: this one's ops/s / dram's"
				      : "runtime_s: the program's run time, rel_dram: dram's run time / this one's");
			for (auto &g : check_prog_goals(p, metric, pr))
				goals.push_back(std::move(g));
			prog_rows.push_back({ p, std::move(pr) });
		}
		for (const auto &g : goals)
			fmt::print("goal {}: {} ({})\n", g.text, g.value,
				   !g.met ? "not evaluated" : *g.met ? "met" : "NOT met");

		json recs = json::array(), gj = json::array();
		for (auto &[c, r] : rows) {
			if (series_dir.empty())
				r.erase("series");
			recs.push_back(r);
		}
		for (auto &[p, pr] : prog_rows)
			for (auto &[c, r] : pr)
				recs.push_back(r);
		for (const auto &g : goals)
			gj.push_back({ { "goal", g.text }, { "value", g.value },
				       { "met", g.met ? json(*g.met) : json(nullptr) } });
		guest["hot_set_90_mb"] = hot90;
		if (wall > 0)
			guest["wall_s"] = wall;
		guest["boots"] = boots;
		if (!host_load.empty())
			guest["host_load"] = host_load;
		json doc = { { "config", guest }, { "records", recs }, { "goals", gj } };
		std::ofstream f(out_json);
		f << doc.dump(1) << "\n";
		if (!f)
			throw std::runtime_error(out_json + ": cannot write");
		if (!series_dir.empty())
			write_series(series_dir, rows);
	} catch (const std::exception &e) {
		fmt::print(stderr, "cxlt-bench-report: {}\n", e.what());
		return 1;
	}
	return 0;
}
