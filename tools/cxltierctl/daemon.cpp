// SPDX-License-Identifier: GPL-2.0
// cxltierctl daemon: show the migration daemon's tunables, and set several of them
// as one change (the library checks them all before writing any, and puts back
// what it wrote if the module refuses one).
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

struct tunable_doc {
	const char *name;
	const char *meaning;
};

// Documentation/ABI/testing/sysfs-kernel-cxltier, one line each.
constexpr tunable_doc tunable_docs[] = {
	{"enable", "1: sample and migrate every period; 0: pages stay put"},
	{"period_ms", "length of one decision period (ms)"},
	{"budget_mbps", "migrated at most, each direction (MiB/s; 0 stops migration)"},
	{"sample_mb", "resident region memory sampled per period at most (MiB)"},
	{"wmark_low_mb", "demote the coldest when less of the fast budget is free (MiB)"},
	{"wmark_high_mb", "...until this much is free; promotions leave it free (MiB)"},
	{"decay_shift", "heat averages over about 2^N periods"},
	{"idle_bits", "idle runs less likely than 2^-N reset a page's heat (0: off)"},
	{"burst_bits", "the same for runs of accessed periods (0: off)"},
	{"confidence", "a slow page must beat a fast one by N/4 sigma of noise"},
	{"hyst_steps", "...and by more than N steps of 1/8 octave"},
	{"min_resid", "periods a page stays where it was moved"},
	{"idle_fdr", "act on falls of heat only if at most 1/N are chance"},
	{"burst_fdr", "the same for rises of heat"},
};

const char *meaning_of(const std::string &name)
{
	for (const auto &d : tunable_docs)
		if (name == d.name)
			return d.meaning;
	return "";
}

// "NAME=VALUE" into its parts; false when it is not that.
bool parse_assignment(const std::string &s, std::string *name, std::uint64_t *value)
{
	auto eq = s.find('=');
	if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
		return false;
	std::uint64_t v = 0;
	const char *b = s.data() + eq + 1, *e = s.data() + s.size();
	auto [ptr, ec] = std::from_chars(b, e, v);
	if (ec != std::errc() || ptr != e)
		return false;
	if (name)
		*name = s.substr(0, eq);
	if (value)
		*value = v;
	return true;
}

std::string range_text(const char *name)
{
	std::uint64_t min, max;
	if (cxltier_daemon_tunable_range(name, &min, &max))
		return "-";
	if (max == UINT64_MAX)
		return fmt::format("{}-fast_budget_mb", min);
	return fmt::format("{}-{}", min, max);
}

cxltier::daemon_ptr read_or_fail(cxltier_ctx *ctx)
{
	int rc = 0;
	auto d = cxltier::read_daemon(ctx, rc);
	if (!d)
		throw fatal(library_error(ctx, rc));
	return d;
}

void daemon_show(bool json_out)
{
	auto ctx = open_ctx();
	auto d = read_or_fail(ctx.get());
	std::size_t n = cxltier_daemon_get_nr_tunables(d.get());
	if (json_out) {
		json doc = list_document(ctx.get());
		json arr = json::array();
		for (std::size_t i = 0; i < n; i++) {
			const char *name;
			std::uint64_t v, min, max;
			cxltier_daemon_get_tunable_at(d.get(), i, &name, &v);
			bool known = !cxltier_daemon_tunable_range(name, &min, &max);
			arr.push_back({{"name", name},
				       {"value", v},
				       {"min", known ? json(min) : json(nullptr)},
				       {"max", known && max != UINT64_MAX ? json(max) : json(nullptr)}});
		}
		doc["tunables"] = arr;
		print_json(doc);
		return;
	}
	table t({{"TUNABLE"}, {"VALUE", true}, {"RANGE"}, {"MEANING"}});
	for (std::size_t i = 0; i < n; i++) {
		const char *name;
		std::uint64_t v;
		cxltier_daemon_get_tunable_at(d.get(), i, &name, &v);
		t.add({name, std::to_string(v), range_text(name), meaning_of(name)});
	}
	t.print();
}

void daemon_set(const std::vector<std::string> &assignments)
{
	auto ctx = open_ctx();
	std::vector<std::string> names;
	std::vector<std::uint64_t> values;
	for (const auto &a : assignments) {
		std::string name;
		std::uint64_t v = 0;
		parse_assignment(a, &name, &v); // checked at parse time
		names.push_back(std::move(name));
		values.push_back(v);
	}
	auto before = read_or_fail(ctx.get());
	std::vector<const char *> cnames;
	for (const auto &n : names)
		cnames.push_back(n.c_str());
	int rc = cxltier_daemon_set_tunables(ctx.get(), names.size(), cnames.data(), values.data());
	if (rc)
		throw fatal(library_error(ctx.get(), rc));
	for (std::size_t i = 0; i < names.size(); i++) {
		std::uint64_t old = 0;
		cxltier_daemon_get_tunable(before.get(), cnames[i], &old);
		fmt::print("{}: {} -> {}\n", names[i], old, values[i]);
	}
}

} // namespace

void add_daemon_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("daemon", "Show or set the migration daemon's tunables");
	noun->require_subcommand(0, 1);
	auto json_out = std::make_shared<bool>(false);
	noun->add_flag("-j,--json", *json_out, "Print JSON instead of a table");

	auto *set = noun->add_subcommand(
		"set", "Set tunables, all or none (needs root): daemon set period_ms=500 budget_mbps=32");
	auto assignments = std::make_shared<std::vector<std::string>>();
	set->add_option("NAME=VALUE", *assignments, "Tunable and its new value (a decimal integer)")
		->required()
		->check(CLI::Validator(
			[](const std::string &s) -> std::string {
				return parse_assignment(s, nullptr, nullptr)
					       ? ""
					       : fmt::format("'{}' is not NAME=VALUE with a decimal value, "
							     "such as period_ms=500", s);
			},
			"NAME=VALUE"));
	set->callback([&run, assignments] { run = [assignments] { daemon_set(*assignments); }; });

	noun->callback([&run, noun, json_out] {
		if (noun->get_subcommands().empty())
			run = [json_out] { daemon_show(*json_out); };
	});
}

} // namespace cxltierctl
