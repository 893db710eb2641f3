// SPDX-License-Identifier: GPL-2.0
// cxltierctl tier ...: register CXL RAM regions as tiers (CPU-less NUMA nodes in a
// lower memory tier), remove them, list them, and set weighted-interleave weights
// for the nodes from their bandwidth.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "progress.hpp"

namespace cxltierctl {

namespace {

constexpr int adistance_per_tier = CXLTIER_ADISTANCE_PER_MEMORY_TIER;
// --tier ID asks for the middle of memory_tier<ID>'s adistance range.
constexpr int tier_adistance_offset = adistance_per_tier / 2;
constexpr int max_memory_tier = (CXLTIER_ADISTANCE_MAX - tier_adistance_offset) / adistance_per_tier;
// Large enough to defeat any CPU cache; tier weights --measure-size changes it.
constexpr std::uint64_t default_measure_size = 64ull << 20;

std::string memory_tier_name(int tier)
{
	return tier < 0 ? "-" : fmt::format("memory_tier{}", tier);
}

cxltier_node *node_of(cxltier_tier *t)
{
	return cxltier_node_get_by_id(cxltier_tier_get_ctx(t), cxltier_tier_get_node(t));
}

// One "cxltierctl: <reason>" line now, after what stdout already holds.
void report_now(const std::string &reason)
{
	std::fflush(stdout);
	fmt::print(stderr, "cxltierctl: {}\n", reason);
}

std::string last_error(cxltier_ctx *ctx, int rc)
{
	std::string why = cxltier_get_last_error(ctx);
	return why.empty() ? cxltier_strerror(rc) : why;
}

// Parse-time check of REGION arguments, so that one bad name among several stops
// the command before any region is touched (the library checks again).
std::string check_region_name(const std::string &s)
{
	if (s.empty())
		return "a CXL region name such as region0 is expected";
	if (s.find_first_of(" \t\n\r\v\f") != std::string::npos)
		return fmt::format("'{}' is not a CXL region name: it contains whitespace", s);
	if (s.size() > 31)
		return fmt::format("'{}' is not a CXL region name: longer than 31 bytes", s);
	return "";
}

// --- tier add / remove ------------------------------------------------------------

struct add_options {
	std::vector<std::string> regions;
	int adistance = 0; // 0: the module chooses
	int tier = -1;	   // memory tier id, or -1
	bool json_out = false;
};

// "done: node 2, memory_tier22, 1 GiB (adistance 2880, default)" from a fresh snapshot.
std::string describe_added(cxltier_ctx *ctx, const std::string &region)
{
	if (cxltier_refresh(ctx) != 0)
		return "done";
	cxltier_tier *t = cxltier_tier_get_by_name(ctx, region.c_str());
	if (!t)
		return "done";
	cxltier_node *n = node_of(t);
	return fmt::format("done: node {}, {}, {} (adistance {}, {})", cxltier_tier_get_node(t),
			   memory_tier_name(n ? cxltier_node_get_memory_tier(n) : -1),
			   human_size(cxltier_tier_get_size(t)), cxltier_tier_get_adistance(t),
			   cxltier_adistance_source_name(cxltier_tier_get_adistance_source(t)));
}

void tier_add(const add_options &o)
{
	auto ctx = open_ctx();
	int adistance = o.tier >= 0 ? o.tier * adistance_per_tier + tier_adistance_offset : o.adistance;
	bool failed = false;
	list_filter added; // with --json: the tiers it registered, printed at the end
	for (const auto &region : o.regions) {
		// Onlining a large region takes seconds: say what is going on first.
		if (!o.json_out) {
			fmt::print("registering {}... ", region);
			std::fflush(stdout);
		}
		if (int rc = cxltier_tier_add(ctx.get(), region.c_str(), adistance); rc != 0) {
			if (!o.json_out)
				fmt::print("failed\n");
			report_now(last_error(ctx.get(), rc));
			failed = true;
			continue;
		}
		if (o.json_out)
			added.tiers.push_back(region);
		else
			fmt::print("{}\n", describe_added(ctx.get(), region));
	}
	if (o.json_out) {
		// What the module shows of them now; a failed one is on stderr, not here.
		json doc = list_document(ctx.get());
		doc["tiers"] = added.tiers.empty() || cxltier_refresh(ctx.get()) != 0 ?
				       json::array() :
				       tiers_json(ctx.get(), &added);
		print_json(doc);
	}
	if (failed)
		throw already_reported();
}

struct remove_options {
	std::vector<std::string> regions;
	double interval = 1.0; // seconds between progress lines
};

// Pages in use on @node now (its memory less what is free), from a new snapshot of
// @ctx; nothing when the node is gone or unreadable.
std::optional<std::uint64_t> node_used_pages(cxltier_ctx *ctx, int node)
{
	if (node < 0 || cxltier_refresh(ctx) != 0)
		return std::nullopt;
	cxltier_node *n = cxltier_node_get_by_id(ctx, node);
	if (!n)
		return std::nullopt;
	std::uint64_t total = cxltier_node_get_mem_total(n), free = cxltier_node_get_mem_free(n);
	return (total > free ? total - free : 0) / page_bytes(1);
}

// One tier: the blocking write in a thread, a progress line per interval from the
// node's used pages (the kernel moves them off before the memory goes), then one
// line.  Ctrl-C ends the write with EINTR, and the kernel keeps the tier.
bool remove_one(cxltier_ctx *ctx, const std::string &region, double interval)
{
	cxltier_tier *t = cxltier_tier_get_by_name(ctx, region.c_str());
	int node = t ? cxltier_tier_get_node(t) : -1;
	std::optional<std::uint64_t> start = node_used_pages(ctx, node);
	auto t0 = steady::now(), last_time = t0;
	std::uint64_t last_left = start.value_or(0);
	progress_output out;
	int rc;
	std::string reason;
	{
		interrupt_signals signals;
		blocking_write writer(
			[&region](cxltier_ctx *c) { return cxltier_tier_remove(c, region.c_str()); },
			fmt::format("removing {} was interrupted before it began; nothing was changed",
				    region));
		while (!writer.wait_for(std::chrono::duration<double>(interval))) {
			if (interrupt_signal)
				writer.interrupt();
			auto left = node_used_pages(ctx, node);
			if (!left || !start)
				continue;
			auto now = steady::now();
			double since = std::chrono::duration<double>(now - last_time).count();
			double rate = since > 0 && last_left > *left ?
					      static_cast<double>(last_left - *left) / since :
					      0;
			out.show(fmt::format("removing {}: {} left, {} moved, {:.0f} pages/s", region,
					     pages_text(*left), *start > *left ? *start - *left : 0,
					     rate));
			last_time = now;
			last_left = *left;
		}
		rc = writer.result();
		reason = writer.reason();
	}
	out.end();
	if (rc) {
		report_now(reason);
		return false;
	}
	auto us = std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - t0).count();
	if (start)
		fmt::print("removed {}: {} moved off in {}\n", region, pages_text(*start),
			   duration_text(static_cast<std::uint64_t>(us)));
	else
		fmt::print("removed {} in {}\n", region, duration_text(static_cast<std::uint64_t>(us)));
	return true;
}

void tier_remove(const remove_options &o)
{
	auto ctx = open_ctx();
	bool failed = false;
	for (const auto &region : o.regions) {
		if (!remove_one(ctx.get(), region, o.interval)) {
			failed = true;
			// Interrupted: the user wants to stop, not to go on with the next.
			if (interrupt_signal)
				break;
		}
	}
	if (failed)
		throw already_reported();
}

void tier_list(bool json_out)
{
	auto ctx = open_ctx();
	if (!json_out) {
		print_tiers(ctx.get());
		return;
	}
	json doc = list_document(ctx.get());
	doc["tiers"] = tiers_json(ctx.get());
	print_json(doc);
}

// --- tier weights -------------------------------------------------------------------

struct weights_options {
	bool json_out = false;
	bool set = false;
	bool measure = false; // measure every node the user gave no bandwidth for
	std::vector<std::string> bandwidth; // NODE=MBps
	std::uint64_t measure_size = default_measure_size;
};

std::optional<std::pair<int, std::uint64_t>> parse_bandwidth(const std::string &s)
{
	auto eq = s.find('=');
	if (eq == std::string::npos)
		return std::nullopt;
	int node = -1;
	std::uint64_t mbps = 0;
	const char *b = s.data(), *e = s.data() + s.size();
	auto r1 = std::from_chars(b, b + eq, node);
	auto r2 = std::from_chars(b + eq + 1, e, mbps);
	if (eq == 0 || r1.ec != std::errc() || r1.ptr != b + eq || node < 0 || r2.ec != std::errc() ||
	    r2.ptr != e || eq + 1 == s.size() || mbps == 0)
		return std::nullopt;
	return std::pair{node, mbps};
}

struct node_weight {
	int node;
	std::string kind;   // "dram", "tier", "cpu-less"
	std::string region; // the tier's CXL region, or ""
	int memory_tier;
	std::uint64_t bandwidth; // MB/s
	std::string source;	 // "user", "reported", "measured"
	unsigned int weight;
	unsigned int current;	 // 0: no weighted interleave in this kernel
};

std::vector<node_weight> memory_nodes(cxltier_ctx *ctx)
{
	std::map<int, std::string> tier_regions;
	for (cxltier_tier *t : cxltier::tiers(ctx))
		tier_regions[cxltier_tier_get_node(t)] = cxltier_tier_get_name(t);
	std::vector<node_weight> out;
	for (cxltier_node *n : cxltier::nodes(ctx)) {
		if (cxltier_node_get_mem_total(n) == 0) // interleave never lands there
			continue;
		int id = cxltier_node_get_id(n);
		auto it = tier_regions.find(id);
		out.push_back({
			.node = id,
			.kind = it != tier_regions.end() ? "tier"
				: cxltier_node_get_nr_cpus(n) ? "dram"
							      : "cpu-less",
			.region = it != tier_regions.end() ? it->second : "",
			.memory_tier = cxltier_node_get_memory_tier(n),
			.bandwidth = 0,
			.source = "",
			.weight = 0,
			.current = cxltier_node_get_weight(n),
		});
	}
	return out;
}

void tier_weights(const weights_options &o)
{
	auto ctx = open_ctx();
	std::map<int, std::uint64_t> given;
	for (const auto &s : o.bandwidth)
		given.insert(*parse_bandwidth(s)); // checked at parse time

	auto nodes = memory_nodes(ctx.get());
	if (nodes.empty())
		throw fatal("libnuma reports no NUMA node with memory");
	for (auto [id, mbps] : given)
		if (std::none_of(nodes.begin(), nodes.end(), [id](auto &n) { return n.node == id; }))
			throw fatal(fmt::format("--bandwidth {}={}: node {} has no memory", id, mbps, id));

	// Progress goes where it does not spoil JSON.
	std::FILE *progress = o.json_out ? stderr : stdout;
	for (auto &n : nodes) {
		cxltier_node *cn = cxltier_node_get_by_id(ctx.get(), n.node);
		if (auto it = given.find(n.node); it != given.end()) {
			n.bandwidth = it->second;
			n.source = "user";
		} else if (!o.measure && cxltier_node_get_read_bandwidth(cn)) {
			n.bandwidth = cxltier_node_get_read_bandwidth(cn);
			n.source = "reported";
		} else {
			n.bandwidth = measure_read_bandwidth(n.node, cxltier_node_get_mem_free(cn),
							     o.measure_size, progress);
			n.source = "measured";
		}
	}
	auto uses = [&](const char *src) {
		return std::any_of(nodes.begin(), nodes.end(), [&](auto &n) { return n.source == src; });
	};
	if (uses("reported") && uses("measured"))
		fmt::print(progress, "note: firmware's figures are peaks and one core's measurement "
				     "is not; use --measure to measure every node alike\n");

	std::vector<std::uint64_t> bw;
	for (const auto &n : nodes)
		bw.push_back(n.bandwidth);
	std::vector<unsigned int> w(nodes.size());
	if (int rc = cxltier_interleave_weights(bw.size(), bw.data(), w.data()); rc != 0)
		throw fatal(cxltier_strerror(rc));
	for (std::size_t i = 0; i < nodes.size(); i++)
		nodes[i].weight = w[i];

	std::vector<std::string> set_failures;
	if (o.set)
		for (const auto &n : nodes)
			if (int rc = cxltier_node_set_weight(ctx.get(), n.node, n.weight); rc != 0) {
				set_failures.push_back(last_error(ctx.get(), rc));
				if (rc == -EACCES || rc == -EPERM || rc == -ENOENT)
					break; // the same for every node
			}
	bool all_set = o.set && set_failures.empty();

	if (o.json_out) {
		json doc = list_document(ctx.get());
		json arr = json::array();
		for (const auto &n : nodes)
			arr.push_back({
				{"node", n.node},
				{"kind", n.kind},
				{"region", n.region.empty() ? json(nullptr) : json(n.region)},
				{"memory_tier", n.memory_tier},
				{"read_bandwidth", n.bandwidth},
				{"bandwidth_source", n.source},
				{"weight", n.weight},
				{"current_weight", n.current},
			});
		doc["weights"] = arr;
		doc["set"] = all_set;
		print_json(doc);
	} else {
		table t({{"NODE", true},
			 {"KIND"},
			 {"MEMORY-TIER"},
			 {"READ-BW", true},
			 {"SOURCE"},
			 {"WEIGHT", true},
			 {"CURRENT", true}});
		for (const auto &n : nodes)
			t.add({std::to_string(n.node),
			       n.region.empty() ? n.kind : n.kind + " " + n.region,
			       memory_tier_name(n.memory_tier), fmt::format("{} MB/s", n.bandwidth),
			       n.source, std::to_string(n.weight),
			       n.current ? std::to_string(n.current) : "-"});
		t.print();
		if (all_set)
			fmt::print("Weights set.\n");
		else if (!o.set)
			fmt::print("Not set; add --set to write them (needs root).\n");
	}
	if (!set_failures.empty()) {
		for (const auto &why : set_failures)
			report_now(why);
		throw already_reported();
	}
}

} // namespace

// --- shared with cxltierctl list ----------------------------------------------------

json tiers_json(cxltier_ctx *ctx, const list_filter *f)
{
	json arr = json::array();
	for (cxltier_tier *t : cxltier::tiers(ctx)) {
		if (f && !f->tier(t))
			continue;
		cxltier_node *n = node_of(t);
		arr.push_back({
			{"name", cxltier_tier_get_name(t)},
			{"node", cxltier_tier_get_node(t)},
			{"memory_tier", n ? cxltier_node_get_memory_tier(n) : -1},
			{"start", cxltier_tier_get_start(t)},
			{"size", cxltier_tier_get_size(t)},
			{"mem_total", n ? cxltier_node_get_mem_total(n) : 0},
			{"mem_free", n ? cxltier_node_get_mem_free(n) : 0},
			{"adistance", cxltier_tier_get_adistance(t)},
			{"adistance_source",
			 cxltier_adistance_source_name(cxltier_tier_get_adistance_source(t))},
			{"blades", names_json(cxltier::blades_of(t))},
		});
	}
	return arr;
}

void print_tiers(cxltier_ctx *ctx, const list_filter *f)
{
	if (!cxltier_tier_get_first(ctx)) {
		fmt::print("No tiers registered.\n");
		return;
	}
	table tab({{"TIER"},
		   {"NODE", true},
		   {"MEMORY-TIER"},
		   {"CAPACITY", true},
		   {"FREE", true},
		   {"ADISTANCE"},
		   {"BLADES"}});
	for (cxltier_tier *t : cxltier::tiers(ctx)) {
		if (f && !f->tier(t))
			continue;
		cxltier_node *n = node_of(t);
		tab.add({
			cxltier_tier_get_name(t),
			std::to_string(cxltier_tier_get_node(t)),
			memory_tier_name(n ? cxltier_node_get_memory_tier(n) : -1),
			human_size(cxltier_tier_get_size(t)),
			n ? human_size(cxltier_node_get_mem_free(n)) : "-",
			fmt::format("{} ({})", cxltier_tier_get_adistance(t),
				    cxltier_adistance_source_name(cxltier_tier_get_adistance_source(t))),
			join(cxltier::blades_of(t), ",", "-"),
		});
	}
	if (tab.size())
		tab.print();
	else
		fmt::print("No tiers match.\n");
}

void add_tier_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("tier", "CXL RAM regions as NUMA nodes in a lower memory tier");
	noun->require_subcommand(0, 1);
	CLI::Validator region_name(check_region_name, "REGION", "region name");

	auto *add = noun->add_subcommand("add", "Register CXL RAM regions as tiers (needs root)");
	auto ao = std::make_shared<add_options>();
	add->add_option("REGION", ao->regions, "CXL region names, such as region0")
		->required()
		->check(region_name);
	auto *adist = add->add_option("--adistance", ao->adistance,
				      "Abstract distance (DRAM is 576; memory_tier<N> holds N*128 to N*128+127)")
			      ->check(CLI::Range(1, CXLTIER_ADISTANCE_MAX));
	auto *tier = add->add_option("--tier", ao->tier,
				     "Put the node in memory_tier<ID> (adistance ID*128+64)")
			     ->check(CLI::Range(0, max_memory_tier));
	adist->excludes(tier);
	add->add_flag("-j,--json", ao->json_out,
		      "Print the tiers it registered as JSON (as tier list --json) instead of progress");
	add->callback([&run, ao] { run = [ao] { tier_add(*ao); }; });

	auto *remove = noun->add_subcommand(
		"remove", "Migrate every page off tiers and remove them (needs root)");
	auto ro = std::make_shared<remove_options>();
	remove->add_option("REGION", ro->regions, "Tier (CXL region) names")
		->required()
		->check(region_name);
	remove->add_option("--interval", ro->interval, "Seconds between progress lines (default 1)")
		->check(CLI::Range(0.05, 3600.0));
	remove->callback([&run, ro] { run = [ro] { tier_remove(*ro); }; });

	auto *list = noun->add_subcommand("list", "List tiers with their nodes and memory tiers");
	auto json_out = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *json_out, "Print JSON instead of a table");
	list->callback([&run, json_out] { run = [json_out] { tier_list(*json_out); }; });

	auto *weights = noun->add_subcommand(
		"weights", "Weighted-interleave weights for the memory nodes from their read bandwidth");
	auto wo = std::make_shared<weights_options>();
	weights->add_flag("-j,--json", wo->json_out, "Print JSON instead of a table");
	weights->add_flag("--set", wo->set,
			  "Write the weights to /sys/kernel/mm/mempolicy/weighted_interleave (needs root)");
	weights->add_flag("--measure", wo->measure,
			  "Measure every node not given with --bandwidth, even where firmware reports one");
	weights->add_option("--bandwidth", wo->bandwidth, "A node's read bandwidth, NODE=MBps")
		->check(CLI::Validator(
			[](const std::string &s) -> std::string {
				return parse_bandwidth(s) ? "" : "expected NODE=MBps, such as 0=20000";
			},
			"NODE=MBps"));
	weights->add_option("--measure-size", wo->measure_size,
			    "Bytes read per pass when measuring (default 64 MiB)")
		->transform(CLI::AsSizeValue(false))
		->check(CLI::Range(std::uint64_t{4} << 20, std::uint64_t{1} << 40));
	weights->callback([&run, wo] { run = [wo] { tier_weights(*wo); }; });
}

} // namespace cxltierctl
