// SPDX-License-Identifier: GPL-2.0
// cxltierctl pool ...: pools of persistent CXL memory, where persistent regions and
// checkpoints live, and shared pools that several hosts attach: list them, show
// one with its hosts and table, format, attach, detach and check one.
#include <optional>
#include <string_view>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

std::vector<const char *> blades_of(const cxltier_pool *p)
{
	auto b = cxltier::blades_of(p);
	return {b.begin(), b.end()};
}

// "" as "-" in a table.
std::string or_dash(const char *s)
{
	return *s ? s : "-";
}

// A shared pool's host id, "-" for other pools.
std::string host_cell(const cxltier_pool *p)
{
	return cxltier_pool_is_shared(p) ? std::to_string(cxltier_pool_get_host(p)) : "-";
}

// Host ids as "1,3", "-" for none.
std::string host_list(std::span<const unsigned int> ids)
{
	if (ids.empty())
		return "-";
	std::string out;
	for (unsigned int id : ids)
		out += (out.empty() ? "" : ",") + std::to_string(id);
	return out;
}

// The pool @name of @ctx's snapshot, or fatal.
cxltier_pool *find_pool(cxltier_ctx *ctx, const std::string &name)
{
	cxltier_pool *p = cxltier_pool_get_by_name(ctx, name.c_str());
	if (!p)
		throw fatal(fmt::format("no pool {} (see cxltierctl pool list)", name));
	return p;
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

json pool_json(cxltier_pool *p);

void pool_attach(const std::string &name, unsigned int host, bool json_out)
{
	auto ctx = open_ctx();
	int rc = cxltier_pool_attach(ctx.get(), name.c_str(), host);
	if (rc)
		throw fatal(library_error(ctx.get(), rc));
	// What the module made of it: the state, and the id it used.
	cxltier_pool *p = nullptr;
	if (cxltier_refresh(ctx.get()) == 0)
		p = cxltier_pool_get_by_name(ctx.get(), name.c_str());
	if (json_out) {
		// The pool as pool list --json has it; it is attached even if unlisted.
		if (!p)
			throw fatal(fmt::format("attached {}, but it is not listed as a pool: {}", name,
						cxltier_get_last_error(ctx.get())));
		json doc = list_document(ctx.get());
		doc["pool"] = pool_json(p);
		print_json(doc);
		return;
	}
	if (!p) {
		fmt::print("Attached {} as a shared pool.\n", name);
		return;
	}
	auto state = cxltier_pool_get_state(p);
	fmt::print("Attached {} as a shared pool (host {}): {}.\n", name, cxltier_pool_get_host(p),
		   cxltier_pool_state_name(state));
	if (state == CXLTIER_POOL_STATE_UNFORMATTED)
		fmt::print("It holds no pool yet: format it on one host (cxltierctl pool format {}), "
			   "then attach it on the others.\n",
			   name);
	else if (*cxltier_pool_get_error(p))
		fmt::print("{}\n", cxltier_pool_get_error(p));
}

void pool_detach(const std::string &name)
{
	auto ctx = open_ctx();
	int rc = cxltier_pool_detach(ctx.get(), name.c_str());
	if (rc)
		throw fatal(library_error(ctx.get(), rc));
	fmt::print("Detached shared pool {} from this host; its regions stay on the device for the "
		   "other hosts.\n",
		   name);
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

json pool_json(cxltier_pool *p)
{
	return {
		{"name", cxltier_pool_get_name(p)},
		{"state", cxltier_pool_state_name(cxltier_pool_get_state(p))},
		{"size", cxltier_pool_get_size(p)},
		{"free", cxltier_pool_get_free(p)},
		{"regions", cxltier_pool_get_nr_regions(p)},
		{"blades", names_json(blades_of(p))},
		{"uuid", cxltier_pool_get_uuid(p)},
		{"format", cxltier_pool_get_format(p)},
		{"error", cxltier_pool_get_error(p)},
		{"shared", cxltier_pool_is_shared(p) != 0},
		{"host", cxltier_pool_get_host(p)},
	};
}

// The pool's lease in ms (its device's; an older module's parameter), or 0 when
// the module does not say.
unsigned int lease_of(cxltier_ctx *ctx, const cxltier_pool *p)
{
	unsigned int ms = cxltier_pool_get_lease_ms(p);
	if (ms || !cxltier_pool_is_shared(p))
		return ms;
	return cxltier_get_pool_lease_ms(ctx, &ms) == 0 ? ms : 0;
}

// What is left of a live host's lease before the others expire it; "-" otherwise.
std::string lease_left(const cxltier_pool_host *h, unsigned int lease_ms)
{
	if (!lease_ms || std::string_view(cxltier_pool_host_get_state(h)) != "live")
		return "-";
	std::uint64_t age = cxltier_pool_host_get_age_ms(h);
	return age >= lease_ms ? "0 ms" : human_ms(lease_ms - age);
}

void pool_stat(const std::string &name, bool json_out)
{
	auto ctx = open_ctx();
	cxltier_pool *p = find_pool(ctx.get(), name);
	unsigned int lease_ms = lease_of(ctx.get(), p);
	if (json_out) {
		json doc = list_document(ctx.get());
		json pool = pool_json(p);
		pool["lease_ms"] = lease_ms ? json(lease_ms) : json(nullptr);
		json hosts = json::array(), table = json::array();
		for (cxltier_pool_host *h : cxltier::hosts_of(p))
			hosts.push_back({
				{"id", cxltier_pool_host_get_id(h)},
				{"state", cxltier_pool_host_get_state(h)},
				{"name", cxltier_pool_host_get_name(h)},
				{"heartbeat", cxltier_pool_host_get_heartbeat(h)},
				{"age_ms", cxltier_pool_host_get_age_ms(h)},
				{"self", cxltier_pool_host_is_self(h) != 0},
			});
		for (cxltier_pool_entry *e : cxltier::entries_of(p)) {
			json ids = json::array();
			for (unsigned int id : cxltier::hosts_of(e))
				ids.push_back(id);
			table.push_back({
				{"entry", cxltier_pool_entry_get_number(e)},
				{"state", cxltier_pool_entry_get_state(e)},
				{"name", cxltier_pool_entry_get_name(e)},
				{"offset", cxltier_pool_entry_get_offset(e)},
				{"length", cxltier_pool_entry_get_length(e)},
				{"uid", cxltier_pool_entry_get_uid(e)},
				{"gid", cxltier_pool_entry_get_gid(e)},
				{"mode", cxltier_pool_entry_get_mode(e)},
				{"id", cxltier_pool_entry_get_id(e)},
				{"hosts", ids},
			});
		}
		pool["hosts"] = hosts;
		pool["table"] = table;
		doc["pool"] = pool;
		print_json(doc);
		return;
	}

	bool shared = cxltier_pool_is_shared(p);
	fmt::print("Pool {} ({})\n", name,
		   shared ? fmt::format("shared, host id {}", cxltier_pool_get_host(p))
			  : std::string("this host's pmem"));
	fmt::print("  state     {}\n", cxltier_pool_state_name(cxltier_pool_get_state(p)));
	if (*cxltier_pool_get_error(p))
		fmt::print("  error     {}\n", cxltier_pool_get_error(p));
	unsigned int nr = cxltier_pool_get_nr_regions(p);
	fmt::print("  size      {}, {} free, {} region{}\n", human_size(cxltier_pool_get_size(p)),
		   human_size(cxltier_pool_get_free(p)), nr, nr == 1 ? "" : "s");
	fmt::print("  uuid      {}\n", or_dash(cxltier_pool_get_uuid(p)));
	fmt::print("  format    {}\n", or_dash(cxltier_pool_get_format(p)));
	fmt::print("  blades    {}\n", join(blades_of(p), ",", "-"));
	if (shared)
		fmt::print("  lease     {}\n", lease_ms ? human_ms(lease_ms) : std::string("-"));

	if (cxltier_pool_host_get_first(p)) {
		fmt::print("\n");
		table hosts({{"ID", true},
			     {"STATE"},
			     {"NAME"},
			     {"HEARTBEAT", true},
			     {"AGE", true},
			     {"LEASE", true},
			     {"SELF"}});
		for (cxltier_pool_host *h : cxltier::hosts_of(p))
			hosts.add({
				std::to_string(cxltier_pool_host_get_id(h)),
				cxltier_pool_host_get_state(h),
				cxltier_pool_host_get_name(h),
				std::to_string(cxltier_pool_host_get_heartbeat(h)),
				human_ms(cxltier_pool_host_get_age_ms(h)),
				lease_left(h, lease_ms),
				cxltier_pool_host_is_self(h) ? "self" : "-",
			});
		hosts.print();
	}
	if (cxltier_pool_entry_get_first(p)) {
		fmt::print("\n");
		table regions({{"ENTRY", true},
			       {"NAME"},
			       {"STATE"},
			       {"SIZE", true},
			       {"OWNER"},
			       {"MODE"},
			       {"ID", true},
			       {"HOSTS"}});
		for (cxltier_pool_entry *e : cxltier::entries_of(p))
			regions.add({
				std::to_string(cxltier_pool_entry_get_number(e)),
				cxltier_pool_entry_get_name(e),
				cxltier_pool_entry_get_state(e),
				human_size(cxltier_pool_entry_get_length(e)),
				user_name(cxltier_pool_entry_get_uid(e)) + ":" +
					group_name(cxltier_pool_entry_get_gid(e)),
				fmt::format("{:04o}", cxltier_pool_entry_get_mode(e)),
				std::to_string(cxltier_pool_entry_get_id(e)),
				host_list(cxltier::hosts_of(e)),
			});
		regions.print();
	}
}

// The module's check report: the problems ("problem: " taken off) and any other
// line it has, without the count at the end.
struct check_report {
	int count = 0;
	std::vector<std::string> problems;
};

check_report run_check(cxltier_pool *p, bool repair)
{
	int rc = 0;
	auto text = cxltier::check_pool(p, repair, rc);
	if (rc < 0)
		throw fatal(library_error(cxltier_pool_get_ctx(p), rc));
	check_report r{rc, {}};
	std::string_view all = text ? text.get() : "";
	while (!all.empty()) {
		std::size_t nl = all.find('\n');
		std::string_view line = all.substr(0, nl);
		all.remove_prefix(nl == std::string_view::npos ? all.size() : nl + 1);
		if (line.empty() || all.empty())
			continue; // the count, which the library already read
		if (line.starts_with("problem: "))
			line.remove_prefix(9);
		r.problems.emplace_back(line);
	}
	return r;
}

std::string problems_text(int n)
{
	return n == 1 ? "1 problem" : fmt::format("{} problems", n);
}

// Exit status 1 when problems are left, as fsck's.
void pool_check(const std::string &name, bool repair, bool json_out)
{
	auto ctx = open_ctx();
	cxltier_pool *p = find_pool(ctx.get(), name);
	// With --repair, what was wrong before is shown as well as what is left.
	std::optional<check_report> before;
	if (repair)
		before = run_check(p, false);
	check_report now = run_check(p, repair);
	if (json_out) {
		json doc = list_document(ctx.get());
		json check = {{"pool", name}, {"problems", now.count}, {"messages", now.problems}};
		if (before) {
			check["repaired"] = true;
			check["found"] = {{"problems", before->count}, {"messages", before->problems}};
		}
		doc["check"] = check;
		print_json(doc);
	} else if (before) {
		for (const auto &m : before->problems)
			fmt::print("problem: {}\n", m);
		fmt::print("Pool {}: {} found, {} left after repair{}\n", name,
			   problems_text(before->count), problems_text(now.count),
			   now.count ? ":" : ".");
		for (const auto &m : now.problems)
			fmt::print("problem: {}\n", m);
	} else {
		for (const auto &m : now.problems)
			fmt::print("problem: {}\n", m);
		if (now.count)
			fmt::print("Pool {}: {} (cxltierctl pool check {} --repair mends what it can).\n",
				   name, problems_text(now.count), name);
		else
			fmt::print("Pool {}: no problems.\n", name);
	}
	if (now.count)
		throw already_reported();
}

} // namespace

json pools_json(cxltier_ctx *ctx)
{
	json arr = json::array();
	for (cxltier_pool *p : cxltier::pools(ctx))
		arr.push_back(pool_json(p));
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
		 {"SHARED"},
		 {"HOST", true},
		 {"BLADES"},
		 {"FORMAT"},
		 {"UUID"},
		 {"ERROR"}});
	for (cxltier_pool *p : cxltier::pools(ctx))
		t.add({
			cxltier_pool_get_name(p),
			cxltier_pool_state_name(cxltier_pool_get_state(p)),
			human_size(cxltier_pool_get_size(p)),
			human_size(cxltier_pool_get_free(p)),
			std::to_string(cxltier_pool_get_nr_regions(p)),
			cxltier_pool_is_shared(p) ? "yes" : "no",
			host_cell(p),
			join(blades_of(p), ",", "-"),
			or_dash(cxltier_pool_get_format(p)),
			or_dash(cxltier_pool_get_uuid(p)),
			or_dash(cxltier_pool_get_error(p)),
		});
	t.print();
}

void add_pool_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("pool", "Pools of persistent or shared CXL memory");
	noun->require_subcommand(0, 1);

	auto *list = noun->add_subcommand("list", "List pools: state, space, sharing, blades");
	auto list_json = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *list_json, "Print JSON instead of a table");
	list->callback([&run, list_json] { run = [list_json] { pool_list(*list_json); }; });

	auto *stat = noun->add_subcommand("stat", "Show a pool with its hosts and region table");
	auto stat_name = std::make_shared<std::string>();
	auto stat_json = std::make_shared<bool>(false);
	stat->add_option("POOL", *stat_name, "The pool's CXL region (regionN)")->required();
	stat->add_flag("-j,--json", *stat_json, "Print JSON instead of text");
	stat->callback([&run, stat_name, stat_json] {
		run = [stat_name, stat_json] { pool_stat(*stat_name, *stat_json); };
	});

	auto *format = noun->add_subcommand("format", "Format a CXL pmem region as an empty pool");
	auto name = std::make_shared<std::string>();
	auto force = std::make_shared<bool>(false);
	format->add_option("POOL", *name, "The CXL pmem region (regionN)")->required();
	format->add_flag("--force", *force,
			 "Format over a pool that is there, destroying its persistent regions");
	format->callback([&run, name, force] { run = [name, force] { pool_format(*name, *force); }; });

	auto *attach = noun->add_subcommand("attach", "Attach a CXL RAM region of a shared device "
						      "as a shared pool");
	auto attach_name = std::make_shared<std::string>();
	auto host = std::make_shared<unsigned int>(0);
	attach->add_option("REGION", *attach_name, "The CXL RAM region (regionN)")->required();
	attach->add_option("--host", *host,
			   "This host's record id in the pool (default: the module parameter host_id)")
		->check(CLI::Range(1u, 63u));
	auto attach_json = std::make_shared<bool>(false);
	attach->add_flag("-j,--json", *attach_json,
			 "Print the pool as JSON (as pool list --json has each)");
	attach->callback([&run, attach_name, host, attach_json] {
		run = [attach_name, host, attach_json] {
			pool_attach(*attach_name, *host, *attach_json);
		};
	});

	auto *detach = noun->add_subcommand("detach", "Detach a shared pool from this host");
	auto detach_name = std::make_shared<std::string>();
	detach->add_option("POOL", *detach_name, "The shared pool (regionN)")->required();
	detach->callback([&run, detach_name] { run = [detach_name] { pool_detach(*detach_name); }; });

	auto *check = noun->add_subcommand("check", "Check a pool's structures on the device "
						    "(exit 1 on problems)");
	auto check_name = std::make_shared<std::string>();
	auto repair = std::make_shared<bool>(false);
	auto check_json = std::make_shared<bool>(false);
	check->add_option("POOL", *check_name, "The pool (regionN)")->required();
	check->add_flag("--repair", *repair, "Mend what can be mended without losing a region");
	check->add_flag("-j,--json", *check_json, "Print JSON instead of text");
	check->callback([&run, check_name, repair, check_json] {
		run = [check_name, repair, check_json] {
			pool_check(*check_name, *repair, *check_json);
		};
	});
}

} // namespace cxltierctl
