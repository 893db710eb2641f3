// SPDX-License-Identifier: GPL-2.0
// One frame of `cxltierctl top` as lines of text, from two samples: what the
// daemon does (rates over the interval), where memory is, how hot the pages on
// each tier are, and the hottest regions.  Pure: no I/O, no terminal codes, so
// `top --once` and the tests print exactly what the live view draws.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "sample.hpp"

namespace cxltierctl {

namespace {

constexpr double mib = 1024.0 * 1024.0;
// Heat buckets always shown: up to heat 36863, where a page touched in every
// period settles (bucket 8); hotter ones only when they hold pages.
constexpr std::size_t heat_rows_min = 9;
constexpr unsigned int heat_bar_default = 20;
constexpr unsigned int heat_bar_min = 5;
constexpr unsigned int heat_bar_max = 40;
// Region rows kept even on a short terminal.
constexpr unsigned int region_rows_min = 3;

// (b - a) / dt, or nullopt when either is unknown, time did not pass or the
// counter went back (the module was reloaded).
std::optional<double> rate(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b, double dt)
{
	if (!a || !b || *b < *a || dt <= 0)
		return std::nullopt;
	return static_cast<double>(*b - *a) / dt;
}

std::string rate_text(std::optional<double> r)
{
	return r ? fmt::format("{:.1f}", *r) : "-";
}

std::string mib_rate_text(std::optional<double> bytes_per_s)
{
	return bytes_per_s ? fmt::format("{:.2f}", *bytes_per_s / mib) : "-";
}

std::optional<std::uint64_t> opt(std::uint64_t v)
{
	return v;
}

// The tier counters of a reading, by tier name.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> tier_counters(const sample &s)
{
	std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;
	const cxltier_daemon *d = s.daemon.get();
	for (std::size_t i = 0; d && i < cxltier_daemon_get_nr_tiers(d); i++) {
		const char *name;
		std::uint64_t p, dm;
		cxltier_daemon_get_tier(d, i, &name, &p, &dm);
		out[name] = {p, dm};
	}
	return out;
}

void blank(std::vector<std::string> &out)
{
	out.emplace_back();
}

void append(std::vector<std::string> &out, const table &t)
{
	for (auto &l : t.lines())
		out.push_back(std::move(l));
}

void header(std::vector<std::string> &out, const sample *prev, const sample &cur, double interval)
{
	double dt = prev ? cur.time - prev->time : 0;
	auto enable = tunable(cur, "enable");
	auto period = tunable(cur, "period_ms");
	auto budget = tunable(cur, "budget_mbps");
	auto cpu = prev ? rate(counter(*prev, "cpu_ns"), counter(cur, "cpu_ns"), dt) : std::nullopt;
	out.push_back(fmt::format(
		"cxltier top - every {:.1f} s - daemon {}, period {} ms, budget {} MiB/s, CPU {}",
		interval, !enable ? "?" : *enable ? "on" : "off",
		period ? std::to_string(*period) : "?", budget ? std::to_string(*budget) : "?",
		cpu ? fmt::format("{:.1f}%", *cpu / 1e9 * 100) : "-"));
	auto managed = counter(cur, "managed_pages"), fast = counter(cur, "fast_pages");
	auto periods = counter(cur, "periods");
	auto meta = counter(cur, "metadata_bytes");
	out.push_back(fmt::format(
		"managed {} ({} on the fast tier), {} periods{}, metadata {}",
		managed ? human_size(page_bytes(*managed)) : "?", fast ? human_size(page_bytes(*fast)) : "?",
		periods ? std::to_string(*periods) : "?",
		prev && periods && counter(*prev, "periods")
			? fmt::format(" (+{})", *periods - std::min(*periods, *counter(*prev, "periods")))
			: "",
		meta ? human_size(*meta) : "?"));
	// Process mode (cxltier-procd), once it has reported.
	if (counter(cur, "process_periods").value_or(0)) {
		auto mp = counter(cur, "process_managed_pages").value_or(0);
		auto fp = counter(cur, "process_fast_pages").value_or(0);
		out.push_back(fmt::format(
			"process mode: {} processes, {} ({} on the fast tier), {} pages promoted, {} demoted",
			counter(cur, "process_processes").value_or(0), human_size(page_bytes(mp)),
			human_size(page_bytes(fp)), counter(cur, "process_promoted_pages").value_or(0),
			counter(cur, "process_demoted_pages").value_or(0)));
	}
}

void nodes(std::vector<std::string> &out, const sample *prev, const sample &cur)
{
	if (cur.nodes.empty()) {
		out.push_back("No NUMA nodes with memory.");
		return;
	}
	double dt = prev ? cur.time - prev->time : 0;
	auto now = tier_counters(cur);
	auto before = prev ? tier_counters(*prev) : decltype(now){};
	table t({{"NODE", true},
		 {"KIND"},
		 {"TOTAL", true},
		 {"USED", true},
		 {"FREE", true},
		 {"PROMOTED/S", true},
		 {"DEMOTED/S", true}});
	for (const auto &n : cur.nodes) {
		std::string promoted = "-", demoted = "-";
		if (n.kind.starts_with("tier ")) {
			std::string name = n.kind.substr(5);
			auto a = before.find(name), b = now.find(name);
			if (a != before.end() && b != now.end()) {
				promoted = rate_text(rate(a->second.first, b->second.first, dt));
				demoted = rate_text(rate(a->second.second, b->second.second, dt));
			}
		}
		t.add({std::to_string(n.node), n.kind, human_size(n.total),
		       human_size(n.total - std::min(n.free, n.total)), human_size(n.free), promoted,
		       demoted});
	}
	append(out, t);
}

void migration(std::vector<std::string> &out, const sample *prev, const sample &cur)
{
	double dt = prev ? cur.time - prev->time : 0;
	double page = static_cast<double>(page_bytes(1));
	table t({{"MIGRATION"}, {"PAGES/S", true}, {"MiB/S", true}, {"TOTAL", true}});
	struct row {
		const char *label;
		const char *counter;
		bool moves; // pages that were copied: a MiB/s makes sense
	};
	for (const row &r : {row{"promoted", "promoted_pages", true},
			     row{"demoted", "demoted_pages", true},
			     row{"ping-pong", "pingpong_pages", false},
			     row{"skipped (pinned)", "skipped_pinned", false},
			     row{"skipped (busy)", "skipped_busy", false},
			     row{"failed", "failed_pages", false}}) {
		auto v = counter(cur, r.counter);
		if (!v)
			continue;
		auto pr = prev ? rate(counter(*prev, r.counter), v, dt) : std::nullopt;
		t.add({r.label, rate_text(pr),
		       r.moves ? mib_rate_text(pr ? std::optional<double>(*pr * page) : std::nullopt)
			       : "",
		       std::to_string(*v)});
	}
	if (auto v = counter(cur, "moved_bytes"))
		t.add({"copied", "",
		       mib_rate_text(prev ? rate(counter(*prev, "moved_bytes"), v, dt) : std::nullopt),
		       human_size(*v)});
	append(out, t);
}

void heat(std::vector<std::string> &out, const sample &cur, unsigned int width)
{
	auto fast = cxltier::heat_of(cur.daemon.get(), "fast");
	auto slow = cxltier::heat_of(cur.daemon.get(), "slow");
	if (fast.empty() && slow.empty()) {
		out.push_back("No heat histogram.");
		return;
	}
	// "61440-65535  <bar> 123456789  <bar> 123456789"
	constexpr unsigned int label_w = 11, count_w = 9, fixed = label_w + 2 + 1 + count_w + 2 + 1 + count_w;
	unsigned int bar_w = width ? std::clamp(width > fixed ? (width - fixed) / 2 : 0u, heat_bar_min,
						 heat_bar_max)
				   : heat_bar_default;
	std::uint64_t max = 1;
	std::size_t rows = heat_rows_min;
	for (std::size_t k = 0; k < CXLTIER_HEAT_BUCKETS; k++) {
		std::uint64_t f = fast.empty() ? 0 : fast[k], s = slow.empty() ? 0 : slow[k];
		max = std::max({max, f, s});
		if (f || s)
			rows = std::max(rows, k + 1);
	}
	auto bar = [&](std::span<const std::uint64_t> h, std::size_t k) {
		if (h.empty())
			return std::string(bar_w, ' ');
		auto n = static_cast<unsigned int>(
			std::ceil(static_cast<double>(h[k]) * bar_w / static_cast<double>(max)));
		return std::string(n, '#') + std::string(bar_w - n, ' ');
	};
	auto count = [&](std::span<const std::uint64_t> h, std::size_t k) {
		return h.empty() ? std::string("-") : std::to_string(h[k]);
	};
	auto trimmed = [](std::string line) {
		while (!line.empty() && line.back() == ' ')
			line.pop_back();
		return line;
	};
	out.push_back(trimmed(fmt::format("{:>{}}  {:<{}} {:>{}}  {:<{}} {:>{}}", "HEAT", label_w,
					  "FAST (pages)", bar_w, "", count_w, "SLOW (pages)", bar_w,
					  "", count_w)));
	for (std::size_t k = 0; k < rows; k++) {
		std::string label = fmt::format("{}-{}", k * CXLTIER_HEAT_BUCKET_SPAN,
						(k + 1) * CXLTIER_HEAT_BUCKET_SPAN - 1);
		out.push_back(trimmed(fmt::format("{:>{}}  {} {:>{}}  {} {:>{}}", label, label_w,
						  bar(fast, k), count(fast, k), count_w,
						  bar(slow, k), count(slow, k), count_w)));
	}
}

// How hot a region was over the interval: accessed / sampled of the pages the
// daemon looked at meanwhile, or since the start when it looked at none.
std::optional<double> access_ratio(const region_counters *before, const region_counters &now)
{
	if (before && now.sampled > before->sampled && now.accessed >= before->accessed)
		return static_cast<double>(now.accessed - before->accessed) /
		       static_cast<double>(now.sampled - before->sampled);
	if (now.sampled)
		return static_cast<double>(now.accessed) / static_cast<double>(now.sampled);
	return std::nullopt;
}

void regions(std::vector<std::string> &out, const sample *prev, const sample &cur,
	     unsigned int max_rows)
{
	if (!cur.regions_error.empty()) {
		out.push_back("Regions: " + cur.regions_error);
		return;
	}
	if (cur.regions.empty()) {
		out.push_back("No global regions.");
		return;
	}
	double dt = prev ? cur.time - prev->time : 0;
	struct row {
		const region_counters *now;
		const region_counters *before;
		std::optional<double> ratio;
		std::optional<double> promoted;
	};
	std::vector<row> rows;
	for (const auto &r : cur.regions) {
		const region_counters *b = nullptr;
		if (prev)
			for (const auto &p : prev->regions)
				if (p.id == r.id && p.name == r.name)
					b = &p;
		rows.push_back({&r, b, access_ratio(b, r),
				b ? rate(b->promoted, opt(r.promoted), dt) : std::nullopt});
	}
	std::stable_sort(rows.begin(), rows.end(), [](const row &a, const row &b) {
		if (a.ratio.value_or(-1) != b.ratio.value_or(-1))
			return a.ratio.value_or(-1) > b.ratio.value_or(-1);
		return a.promoted.value_or(-1) > b.promoted.value_or(-1);
	});
	table t({{"REGION"},
		 {"SIZE", true},
		 {"RESIDENT", true},
		 {"DRAM", true},
		 {"ACCESSED", true},
		 {"PROMOTED/S", true},
		 {"DEMOTED/S", true},
		 {"PINGPONG", true},
		 {"HINTED", true}});
	std::size_t shown = max_rows ? std::min<std::size_t>(rows.size(), max_rows) : rows.size();
	for (std::size_t i = 0; i < shown; i++) {
		const region_counters &r = *rows[i].now;
		const region_counters *b = rows[i].before;
		t.add({r.name, human_size(r.size), human_size(page_bytes(r.resident)),
		       r.resident ? fmt::format("{:.0f}%", 100.0 * static_cast<double>(r.fast) /
							       static_cast<double>(r.resident))
				  : "-",
		       rows[i].ratio ? fmt::format("{:.1f}%", *rows[i].ratio * 100) : "-",
		       rate_text(rows[i].promoted),
		       rate_text(b ? rate(b->demoted, opt(r.demoted), dt) : std::nullopt),
		       std::to_string(r.pingpong), std::to_string(r.hinted)});
	}
	append(out, t);
	if (shown < rows.size())
		out.push_back(fmt::format("(+{} more regions)", rows.size() - shown));
}

} // namespace

std::vector<std::string> top_frame(const sample *prev, const sample &cur, double interval,
				   frame_size size)
{
	std::vector<std::string> out;
	header(out, prev, cur, interval);
	blank(out);
	nodes(out, prev, cur);
	blank(out);
	migration(out, prev, cur);
	blank(out);
	heat(out, cur, size.width);
	blank(out);
	// The regions get what is left of the screen: a header line, and one line to
	// say how many did not fit.
	unsigned int rows = 0;
	if (size.height) {
		auto used = static_cast<unsigned int>(out.size());
		rows = size.height > used + 2 ? size.height - used - 2 : 0;
		rows = std::max(rows, region_rows_min);
	}
	regions(out, prev, cur, rows);
	if (size.width)
		for (auto &l : out)
			if (l.size() > size.width)
				l.resize(size.width);
	return out;
}

} // namespace cxltierctl
