// SPDX-License-Identifier: GPL-2.0
// cxltierctl stats: the migration daemon's counters and heat histogram, each tier's
// promotions and demotions, and every region's migration counters, at one moment.
#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "sample.hpp"

namespace cxltierctl {

namespace {

// The histograms the ABI documents, in the order shown.
constexpr const char *heat_tiers[] = {"fast", "slow"};

std::string heat_range(std::size_t k)
{
	return fmt::format("{}-{}", k * CXLTIER_HEAT_BUCKET_SPAN,
			   (k + 1) * CXLTIER_HEAT_BUCKET_SPAN - 1);
}

// "62.5%" of @part in @whole; "-" when @whole is 0.
std::string percent(std::uint64_t part, std::uint64_t whole)
{
	if (!whole)
		return "-";
	return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

int tier_node(cxltier_ctx *ctx, const char *name)
{
	cxltier_tier *t = cxltier_tier_get_by_name(ctx, name);
	return t ? cxltier_tier_get_node(t) : -1;
}

json stats_json(cxltier_ctx *ctx, const sample &s)
{
	const cxltier_daemon *d = s.daemon.get();
	json doc = list_document(ctx);
	doc["time_ns"] = cxltier_daemon_get_time_ns(d);

	json counters = json::object();
	for (std::size_t i = 0; i < cxltier_daemon_get_nr_counters(d); i++) {
		const char *name;
		std::uint64_t v;
		cxltier_daemon_get_counter_at(d, i, &name, &v);
		counters[name] = v;
	}
	auto enable = tunable(s, "enable");
	doc["daemon"] = {{"enabled", enable ? json(*enable != 0) : json(nullptr)},
			 {"counters", counters}};

	json heat = {{"bucket_span", CXLTIER_HEAT_BUCKET_SPAN}};
	for (const char *t : heat_tiers)
		if (auto b = cxltier::heat_of(d, t); !b.empty())
			heat[t] = json(std::vector<std::uint64_t>(b.begin(), b.end()));
	doc["heat"] = heat;

	json tiers = json::array();
	for (std::size_t i = 0; i < cxltier_daemon_get_nr_tiers(d); i++) {
		const char *name;
		std::uint64_t promoted, demoted;
		cxltier_daemon_get_tier(d, i, &name, &promoted, &demoted);
		tiers.push_back({{"name", name},
				 {"node", tier_node(ctx, name)},
				 {"promoted_pages", promoted},
				 {"demoted_pages", demoted}});
	}
	doc["tiers"] = tiers;

	if (!s.regions_error.empty()) {
		doc["regions"] = nullptr;
		return doc;
	}
	json regions = json::array();
	for (const auto &r : s.regions) {
		json o = {{"name", r.name},
			  {"id", r.id},
			  {"size", r.size},
			  {"resident_pages", r.resident},
			  {"dram_pages", r.fast}};
		o.update(migration_json(r));
		regions.push_back(o);
	}
	doc["regions"] = regions;
	return doc;
}

// A counter's value in a unit people read, where its name gives one ("" if none).
std::string counter_unit(const std::string &name, std::uint64_t v)
{
	if (name.ends_with("_bytes"))
		return human_size(v);
	if (name.ends_with("_ns"))
		return fmt::format("{:.3f} s", static_cast<double>(v) / 1e9);
	// Pages that are memory now or moved, not observations of pages.
	if (name.ends_with("_pages") && name != "sampled_pages" && name != "accessed_pages")
		return human_size(page_bytes(v));
	return "";
}

void print_stats(cxltier_ctx *ctx, const sample &s)
{
	const cxltier_daemon *d = s.daemon.get();
	auto enable = tunable(s, "enable");
	fmt::print("Daemon: {}, {} periods, {:.3f} s of CPU\n",
		   !enable ? "state unknown" : *enable ? "enabled" : "disabled",
		   counter(s, "periods").value_or(0),
		   static_cast<double>(counter(s, "cpu_ns").value_or(0)) / 1e9);
	fmt::print("\n");
	table counters({{"COUNTER"}, {"VALUE", true}, {""}});
	for (std::size_t i = 0; i < cxltier_daemon_get_nr_counters(d); i++) {
		const char *name;
		std::uint64_t v;
		cxltier_daemon_get_counter_at(d, i, &name, &v);
		counters.add({name, std::to_string(v), counter_unit(name, v)});
	}
	counters.print();

	auto fast = cxltier::heat_of(d, "fast"), slow = cxltier::heat_of(d, "slow");
	fmt::print("\n");
	if (fast.empty() && slow.empty()) {
		fmt::print("No heat histogram.\n");
	} else {
		table heat({{"HEAT", true}, {"FAST", true}, {"SLOW", true}});
		for (std::size_t k = 0; k < CXLTIER_HEAT_BUCKETS; k++)
			heat.add({heat_range(k), fast.empty() ? "-" : std::to_string(fast[k]),
				  slow.empty() ? "-" : std::to_string(slow[k])});
		heat.print();
	}

	fmt::print("\n");
	if (!cxltier_daemon_get_nr_tiers(d)) {
		fmt::print("No tiers registered.\n");
	} else {
		table tiers({{"TIER"}, {"NODE", true}, {"PROMOTED", true}, {"DEMOTED", true}});
		for (std::size_t i = 0; i < cxltier_daemon_get_nr_tiers(d); i++) {
			const char *name;
			std::uint64_t promoted, demoted;
			cxltier_daemon_get_tier(d, i, &name, &promoted, &demoted);
			int node = tier_node(ctx, name);
			tiers.add({name, node < 0 ? "-" : std::to_string(node),
				   std::to_string(promoted), std::to_string(demoted)});
		}
		tiers.print();
	}

	if (!s.regions_error.empty())
		return;
	fmt::print("\n");
	if (s.regions.empty()) {
		fmt::print("No global regions.\n");
		return;
	}
	table regions({{"REGION"},
		       {"RESIDENT", true},
		       {"DRAM", true},
		       {"PROMOTED", true},
		       {"DEMOTED", true},
		       {"PINGPONG", true},
		       {"PINNED", true},
		       {"FAILED", true},
		       {"MOVED", true},
		       {"ACCESSED", true},
		       {"HINTED", true}});
	for (const auto &r : s.regions)
		regions.add({r.name, human_size(page_bytes(r.resident)), percent(r.fast, r.resident),
			     std::to_string(r.promoted), std::to_string(r.demoted),
			     std::to_string(r.pingpong), std::to_string(r.skipped_pinned),
			     std::to_string(r.failed), human_size(r.moved_bytes),
			     percent(r.accessed, r.sampled), std::to_string(r.hinted)});
	regions.print();
}

void stats(bool json_out)
{
	auto ctx = open_ctx();
	sample s = take_sample(ctx.get());
	if (json_out)
		print_json(stats_json(ctx.get(), s));
	else
		print_stats(ctx.get(), s);
	if (!s.regions_error.empty()) {
		// After what could be shown: the daemon's side needs no device access.
		std::fflush(stdout);
		fmt::print(stderr, "cxltierctl: regions: {}\n", s.regions_error);
		throw already_reported();
	}
}

} // namespace

nlohmann::ordered_json migration_json(const region_counters &c)
{
	return {
		{"promoted_pages", c.promoted},
		{"demoted_pages", c.demoted},
		{"pingpong_pages", c.pingpong},
		{"skipped_pinned", c.skipped_pinned},
		{"failed_pages", c.failed},
		{"moved_bytes", c.moved_bytes},
		{"sampled_pages", c.sampled},
		{"accessed_pages", c.accessed},
		{"hinted_pages", c.hinted},
	};
}

void add_stats_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"stats", "Migration counters: the daemon's, per tier and per region, and page heat");
	auto json_out = std::make_shared<bool>(false);
	cmd->add_flag("-j,--json", *json_out, "Print one JSON object instead of tables");
	cmd->callback([&run, json_out] { run = [json_out] { stats(*json_out); }; });
}

} // namespace cxltierctl
