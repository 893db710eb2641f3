// SPDX-License-Identifier: GPL-2.0
// cxltierctl list: everything cxltier knows about, one section per kind.
#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

void list_all(bool json_out)
{
	auto ctx = open_ctx();
	if (!json_out) {
		print_blades(ctx.get());
		fmt::print("\n");
		print_cxl_regions(ctx.get());
		fmt::print("\n");
		print_tiers(ctx.get());
		return;
	}
	json doc = list_document(ctx.get());
	doc["blades"] = blades_json(ctx.get());
	doc["cxl_regions"] = cxl_regions_json(ctx.get());
	doc["tiers"] = tiers_json(ctx.get());
	print_json(doc);
}

} // namespace

void add_list_command(CLI::App &app, action &run)
{
	auto *list = app.add_subcommand("list", "List blades, CXL regions and tiers");
	auto json_out = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *json_out, "Print one JSON object instead of tables");
	list->callback([&run, json_out] { run = [json_out] { list_all(*json_out); }; });
}

} // namespace cxltierctl
