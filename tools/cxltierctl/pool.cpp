// SPDX-License-Identifier: GPL-2.0
// cxltierctl pool ...: pools of persistent CXL memory, where persistent regions and
// checkpoints live: list them, and format one.
#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

std::vector<const char *> blades_of(const cxltier_pool *p)
{
	std::size_t n = 0;
	const char *const *b = cxltier_pool_get_blades(p, &n);
	return {b, b + n};
}

// "" as "-" in a table.
std::string or_dash(const char *s)
{
	return *s ? s : "-";
}

void pool_format(const std::string &name, bool force)
{
	auto ctx = open_ctx();
	int rc = cxltier_pool_format(ctx.get(), name.c_str(), force ? CXLTIER_POOL_FORMAT_FORCE : 0);
	if (rc)
		throw fatal(library_error(ctx.get(), rc));
	fmt::print("Formatted {} as an empty pool{}.\n", name,
		   force ? " (whatever it held before is gone)" : "");
}

void pool_list(bool json_out)
{
	auto ctx = open_ctx();
	if (json_out) {
		json doc = list_document(ctx.get());
		doc["pools"] = pools_json(ctx.get());
		print_json(doc);
		return;
	}
	print_pools(ctx.get());
}

} // namespace

json pools_json(cxltier_ctx *ctx)
{
	json arr = json::array();
	for (cxltier_pool *p = cxltier_pool_get_first(ctx); p; p = cxltier_pool_get_next(p))
		arr.push_back({
			{"name", cxltier_pool_get_name(p)},
			{"state", cxltier_pool_state_name(cxltier_pool_get_state(p))},
			{"size", cxltier_pool_get_size(p)},
			{"free", cxltier_pool_get_free(p)},
			{"regions", cxltier_pool_get_nr_regions(p)},
			{"blades", names_json(blades_of(p))},
			{"uuid", cxltier_pool_get_uuid(p)},
			{"format", cxltier_pool_get_format(p)},
			{"error", cxltier_pool_get_error(p)},
		});
	return arr;
}

void print_pools(cxltier_ctx *ctx)
{
	if (!cxltier_pool_get_first(ctx)) {
		fmt::print("No pools (no CXL pmem region, or the module predates pools).\n");
		return;
	}
	table t({{"POOL"},
		 {"STATE"},
		 {"SIZE", true},
		 {"FREE", true},
		 {"REGIONS", true},
		 {"BLADES"},
		 {"FORMAT"},
		 {"UUID"},
		 {"ERROR"}});
	for (cxltier_pool *p = cxltier_pool_get_first(ctx); p; p = cxltier_pool_get_next(p))
		t.add({
			cxltier_pool_get_name(p),
			cxltier_pool_state_name(cxltier_pool_get_state(p)),
			human_size(cxltier_pool_get_size(p)),
			human_size(cxltier_pool_get_free(p)),
			std::to_string(cxltier_pool_get_nr_regions(p)),
			join(blades_of(p), ",", "-"),
			or_dash(cxltier_pool_get_format(p)),
			or_dash(cxltier_pool_get_uuid(p)),
			or_dash(cxltier_pool_get_error(p)),
		});
	t.print();
}

void add_pool_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("pool", "Pools of persistent CXL memory");
	noun->require_subcommand(0, 1);

	auto *list = noun->add_subcommand("list", "List pools: state, space, blades");
	auto list_json = std::make_shared<bool>(false);
	list->add_flag("--json", *list_json, "Print JSON instead of a table");
	list->callback([&run, list_json] { run = [list_json] { pool_list(*list_json); }; });

	auto *format = noun->add_subcommand("format", "Format a CXL pmem region as an empty pool");
	auto name = std::make_shared<std::string>();
	auto force = std::make_shared<bool>(false);
	format->add_option("POOL", *name, "The CXL pmem region (regionN)")->required();
	format->add_flag("--force", *force,
			 "Format over a pool that is there, destroying its persistent regions");
	format->callback([&run, name, force] { run = [name, force] { pool_format(*name, *force); }; });
}

} // namespace cxltierctl
