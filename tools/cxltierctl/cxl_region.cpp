// SPDX-License-Identifier: GPL-2.0
// cxltierctl cxl-region ...: regions as the CXL core made them.  (Global regions,
// the module's own, will be "cxltierctl region ...".)
#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

std::string hpa_range(cxltier_cxl_region *r)
{
	std::uint64_t start = cxltier_cxl_region_get_start(r);
	std::uint64_t size = cxltier_cxl_region_get_size(r);
	if (size == 0) // no address range assigned yet
		return "-";
	return fmt::format("{:#x}-{:#x}", start, start + size - 1);
}

} // namespace

json cxl_regions_json(cxltier_ctx *ctx, const list_filter *f)
{
	json arr = json::array();
	for (cxltier_cxl_region *r : cxltier::cxl_regions(ctx)) {
		if (f && !f->cxl_region(r))
			continue;
		arr.push_back({
			{"name", cxltier_cxl_region_get_name(r)},
			{"mode", cxltier_cxl_region_mode_name(cxltier_cxl_region_get_mode(r))},
			{"start", cxltier_cxl_region_get_start(r)},
			{"size", cxltier_cxl_region_get_size(r)},
			{"interleave_ways", cxltier_cxl_region_get_interleave_ways(r)},
			{"interleave_granularity", cxltier_cxl_region_get_interleave_granularity(r)},
			{"blades", names_json(cxltier::blades_of(r))},
			{"numa_node", cxltier_cxl_region_get_numa_node(r)},
			{"state", cxltier_cxl_region_state_name(cxltier_cxl_region_get_state(r))},
		});
	}
	return arr;
}

void print_cxl_regions(cxltier_ctx *ctx, const list_filter *f)
{
	if (!cxltier_cxl_region_get_first(ctx)) {
		fmt::print("No CXL regions found.\n");
		return;
	}
	table t({{"CXL-REGION"},
		 {"MODE"},
		 {"HPA-RANGE"},
		 {"SIZE", true},
		 {"WAYS", true},
		 {"GRANULARITY", true},
		 {"BLADES"},
		 {"NODE", true},
		 {"STATE"}});
	for (cxltier_cxl_region *r : cxltier::cxl_regions(ctx)) {
		if (f && !f->cxl_region(r))
			continue;
		int node = cxltier_cxl_region_get_numa_node(r);
		t.add({
			cxltier_cxl_region_get_name(r),
			cxltier_cxl_region_mode_name(cxltier_cxl_region_get_mode(r)),
			hpa_range(r),
			human_size(cxltier_cxl_region_get_size(r)),
			std::to_string(cxltier_cxl_region_get_interleave_ways(r)),
			human_size(cxltier_cxl_region_get_interleave_granularity(r)),
			join(cxltier::blades_of(r), ",", "-"),
			node < 0 ? "-" : std::to_string(node),
			cxltier_cxl_region_state_name(cxltier_cxl_region_get_state(r)),
		});
	}
	if (t.size())
		t.print();
	else
		fmt::print("No CXL regions match.\n");
}

namespace {

void cxl_region_list(bool json_out)
{
	auto ctx = open_ctx();
	if (!json_out) {
		print_cxl_regions(ctx.get());
		return;
	}
	json doc = list_document(ctx.get());
	doc["cxl_regions"] = cxl_regions_json(ctx.get());
	print_json(doc);
}

} // namespace

void add_cxl_region_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("cxl-region", "CXL regions created by the CXL core");
	noun->require_subcommand(0, 1);

	auto *list = noun->add_subcommand("list", "List CXL regions");
	auto json_out = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *json_out, "Print JSON instead of a table");
	list->callback([&run, json_out] { run = [json_out] { cxl_region_list(*json_out); }; });
}

} // namespace cxltierctl
