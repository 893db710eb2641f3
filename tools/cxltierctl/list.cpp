// SPDX-License-Identifier: GPL-2.0
// cxltierctl list: everything cxltier knows about, one section per kind; -b, -r and -t
// narrow it to what relates to the blades, CXL regions or tiers named.
#include <algorithm>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

bool named(const std::vector<std::string> &names, const char *name)
{
	return std::find(names.begin(), names.end(), name) != names.end();
}

bool any_named(const std::vector<std::string> &names, std::span<const char *const> of)
{
	return std::any_of(of.begin(), of.end(), [&](const char *n) { return named(names, n); });
}

} // namespace

bool list_filter::blade(const cxltier_blade *b) const
{
	// Tiers are named by their CXL region: a blade's regions name its tiers too.
	auto regions = cxltier::cxl_regions_of(b);
	return (blades.empty() || named(blades, cxltier_blade_get_name(b))) &&
	       (cxl_regions.empty() || any_named(cxl_regions, regions)) &&
	       (tiers.empty() || any_named(tiers, regions));
}

bool list_filter::cxl_region(const cxltier_cxl_region *r) const
{
	const char *name = cxltier_cxl_region_get_name(r);
	return (blades.empty() || any_named(blades, cxltier::blades_of(r))) &&
	       (cxl_regions.empty() || named(cxl_regions, name)) &&
	       (tiers.empty() || named(tiers, name));
}

bool list_filter::tier(const cxltier_tier *t) const
{
	const char *name = cxltier_tier_get_name(t);
	return (blades.empty() || any_named(blades, cxltier::blades_of(t))) &&
	       (cxl_regions.empty() || named(cxl_regions, name)) &&
	       (tiers.empty() || named(tiers, name));
}

namespace {

// Every name given must name something: a typo lists nothing and says why.
void check_names(cxltier_ctx *ctx, const list_filter &f)
{
	for (const auto &b : f.blades)
		if (!cxltier_blade_get_by_name(ctx, b.c_str()))
			throw fatal(fmt::format("no blade {} (see cxltierctl blade list)", b));
	for (const auto &r : f.cxl_regions)
		if (!cxltier_cxl_region_get_by_name(ctx, r.c_str()))
			throw fatal(fmt::format("no CXL region {} (see cxltierctl cxl-region list)", r));
	for (const auto &t : f.tiers)
		if (!cxltier_tier_get_by_name(ctx, t.c_str()))
			throw fatal(fmt::format("no tier {} (see cxltierctl tier list)", t));
}

void list_all(bool json_out, const list_filter &f)
{
	auto ctx = open_ctx();
	check_names(ctx.get(), f);
	if (!json_out) {
		print_blades(ctx.get(), &f);
		fmt::print("\n");
		print_cxl_regions(ctx.get(), &f);
		fmt::print("\n");
		print_tiers(ctx.get(), &f);
		return;
	}
	json doc = list_document(ctx.get());
	doc["blades"] = blades_json(ctx.get(), &f);
	doc["cxl_regions"] = cxl_regions_json(ctx.get(), &f);
	doc["tiers"] = tiers_json(ctx.get(), &f);
	print_json(doc);
}

} // namespace

void add_list_command(CLI::App &app, action &run)
{
	auto *list = app.add_subcommand("list", "List blades, CXL regions and tiers");
	auto json_out = std::make_shared<bool>(false);
	auto f = std::make_shared<list_filter>();
	list->add_flag("-j,--json", *json_out, "Print one JSON object instead of tables");
	list->add_option("-b,--blade", f->blades,
			 "Only this blade and the CXL regions and tiers with memory on it (repeatable)");
	list->add_option("-r,--cxl-region", f->cxl_regions,
			 "Only this CXL region, its blades and its tier (repeatable)");
	list->add_option("-t,--tier", f->tiers, "Only this tier, its blades and its CXL region (repeatable)");
	list->callback([&run, json_out, f] { run = [json_out, f] { list_all(*json_out, *f); }; });
}

} // namespace cxltierctl
