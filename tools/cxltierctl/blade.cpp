// SPDX-License-Identifier: GPL-2.0
// cxltierctl blade ...: CXL memory devices (later: fence, drain).
#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

json blades_json(cxltier_ctx *ctx)
{
	json arr = json::array();
	for (cxltier_blade *b : cxltier::blades(ctx))
		arr.push_back({
			{"name", cxltier_blade_get_name(b)},
			{"serial", cxltier_blade_get_serial(b)},
			{"ram_size", cxltier_blade_get_ram_size(b)},
			{"pmem_size", cxltier_blade_get_pmem_size(b)},
			{"pci_dev", cxltier_blade_get_pci_dev(b)},
			{"state", cxltier_blade_state_name(cxltier_blade_get_state(b))},
			{"cxl_regions", names_json(cxltier::cxl_regions_of(b))},
		});
	return arr;
}

void print_blades(cxltier_ctx *ctx)
{
	if (!cxltier_blade_get_first(ctx)) {
		fmt::print("No blades found.\n");
		return;
	}
	table t({{"BLADE"},
		 {"SERIAL"},
		 {"RAM", true},
		 {"PMEM", true},
		 {"PCI-DEV"},
		 {"STATE"},
		 {"CXL-REGIONS"}});
	for (cxltier_blade *b : cxltier::blades(ctx))
		t.add({
			cxltier_blade_get_name(b),
			fmt::format("{:#x}", cxltier_blade_get_serial(b)),
			human_size(cxltier_blade_get_ram_size(b)),
			human_size(cxltier_blade_get_pmem_size(b)),
			cxltier_blade_get_pci_dev(b),
			cxltier_blade_state_name(cxltier_blade_get_state(b)),
			join(cxltier::cxl_regions_of(b), ",", "-"),
		});
	t.print();
}

namespace {

void blade_list(bool json_out)
{
	auto ctx = open_ctx();
	if (!json_out) {
		print_blades(ctx.get());
		return;
	}
	json doc = list_document(ctx.get());
	doc["blades"] = blades_json(ctx.get());
	print_json(doc);
}

} // namespace

void add_blade_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("blade", "CXL memory devices (blades)");
	noun->require_subcommand(0, 1);

	auto *list = noun->add_subcommand("list", "List blades");
	auto json_out = std::make_shared<bool>(false);
	list->add_flag("--json", *json_out, "Print JSON instead of a table");
	list->callback([&run, json_out] { run = [json_out] { blade_list(*json_out); }; });
}

} // namespace cxltierctl
