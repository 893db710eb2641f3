// SPDX-License-Identifier: GPL-2.0
// cxltierctl region ...: global regions, the named memory the module places on the
// tiers itself (/dev/cxltier): create, destroy, set the policy, list, stat, and touch
// pages so that they are placed now, and hint ranges to the migration daemon.
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "sample.hpp"

namespace cxltierctl {

namespace {

struct create_options {
	std::string name;
	std::uint64_t size = 0;
	std::string policy = "fast-first";
	std::string mode;
	std::string nodes;
	bool persistent = false;
	std::string pool;
	bool json_out = false; // print the region as region stat --json has it
};

struct touch_options {
	std::string name;
	std::uint64_t offset = 0;
	std::uint64_t length = 0;
};

struct hint_options {
	std::string name;
	std::uint64_t offset = 0;
	std::uint64_t length = 0; // 0: to the end
	std::string hint;
};

std::string reason(cxltier_ctx *ctx, int rc)
{
	return library_error(ctx, rc);
}

// "1,3-5" into node ids; an error message when it is not such a list.
std::string parse_nodes(const std::string &s, std::vector<int> *out)
{
	std::vector<int> nodes;
	std::size_t pos = 0;
	if (s.empty())
		return "an empty node list";
	while (pos <= s.size()) {
		std::size_t end = s.find(',', pos);
		std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
		int a = 0, b = 0;
		auto dash = item.find('-');
		std::string first = item.substr(0, dash);
		auto r1 = std::from_chars(first.data(), first.data() + first.size(), a);
		if (r1.ec != std::errc() || r1.ptr != first.data() + first.size())
			return fmt::format("'{}' is not a node list such as 1,3-5", s);
		b = a;
		if (dash != std::string::npos) {
			std::string last = item.substr(dash + 1);
			auto r2 = std::from_chars(last.data(), last.data() + last.size(), b);
			if (r2.ec != std::errc() || r2.ptr != last.data() + last.size() || b < a)
				return fmt::format("'{}' is not a node list such as 1,3-5", s);
		}
		if (b > 1023)
			return fmt::format("node {} is out of range (0-1023)", b);
		for (int n = a; n <= b; n++)
			nodes.push_back(n);
		if (end == std::string::npos)
			break;
		pos = end + 1;
	}
	if (out)
		*out = std::move(nodes);
	return "";
}

std::string check_policy(const std::string &s)
{
	cxltier_region_policy p;
	return cxltier_region_policy_from_name(s.c_str(), &p)
		       ? fmt::format("'{}' is not a policy (fast-first, slow-only, interleave, pinned-fast)", s)
		       : "";
}

std::string check_mode(const std::string &s)
{
	unsigned int mode = 0;
	auto r = std::from_chars(s.data(), s.data() + s.size(), mode, 8);
	if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || mode > 0777)
		return fmt::format("'{}' is not an octal mode such as 0640", s);
	return "";
}

// Node ids as "1,2,5"; "any" when there are none.
std::string node_list(const int *nodes, std::size_t n)
{
	if (!n)
		return "any";
	std::string out;
	for (std::size_t i = 0; i < n; i++)
		out += (i ? "," : "") + std::to_string(nodes[i]);
	return out;
}

cxltier::region_info_ptr stat_or_fail(cxltier_ctx *ctx, const std::string &name)
{
	int rc = 0;
	auto info = cxltier::stat_region(ctx, name.c_str(), rc);
	if (!info)
		throw fatal(reason(ctx, rc));
	return info;
}

json region_json(const cxltier_region_info *i)
{
	std::size_t n_allowed = 0;
	const int *allowed = cxltier_region_info_get_allowed_nodes(i, &n_allowed);
	json nodes = json::array(), blades = json::array(), allowed_json = json::array();
	for (std::size_t k = 0; k < n_allowed; k++)
		allowed_json.push_back(allowed[k]);
	for (std::size_t k = 0; k < cxltier_region_info_get_nr_nodes(i); k++) {
		int node;
		std::uint64_t pages;
		cxltier_region_info_get_node(i, k, &node, &pages);
		nodes.push_back({{"node", node}, {"pages", pages}});
	}
	for (std::size_t k = 0; k < cxltier_region_info_get_nr_blades(i); k++) {
		const char *name;
		std::uint64_t pages;
		cxltier_region_info_get_blade(i, k, &name, &pages);
		blades.push_back({{"blade", name}, {"pages", pages}});
	}
	json out = {
		{"name", cxltier_region_info_get_name(i)},
		{"id", cxltier_region_info_get_id(i)},
		{"size", cxltier_region_info_get_size(i)},
		{"policy", cxltier_region_policy_name(cxltier_region_info_get_policy(i))},
		{"allowed_nodes", allowed_json},
		{"mode", fmt::format("{:04o}", cxltier_region_info_get_mode(i))},
		{"uid", cxltier_region_info_get_uid(i)},
		{"gid", cxltier_region_info_get_gid(i)},
		{"destroyed", cxltier_region_info_is_destroyed(i) != 0},
		{"persistent", cxltier_region_info_is_persistent(i) != 0},
		{"lost", cxltier_region_info_is_lost(i) != 0},
		{"shared", cxltier_region_info_is_shared(i) != 0},
		{"pool", cxltier_region_info_get_pool(i)},
		{"pool_offset", cxltier_region_info_get_pool_offset(i)},
		{"resident_pages", cxltier_region_info_get_resident(i)},
		{"dram_pages", cxltier_region_info_get_fast(i)},
		{"fenced_pages", cxltier_region_info_get_fenced(i)},
		{"maps", cxltier_region_info_get_maps(i)},
		{"files", cxltier_region_info_get_files(i)},
		{"nodes", nodes},
		{"blades", blades},
	};
	out.update(migration_json(counters_of(i)));
	return out;
}

// "volatile", "persistent", "shared" (persistent, on a shared pool) or "lost" (a
// persistent region whose pool failed).
std::string kind_of(const cxltier_region_info *i)
{
	if (cxltier_region_info_is_lost(i))
		return "lost";
	if (cxltier_region_info_is_shared(i))
		return "shared";
	return cxltier_region_info_is_persistent(i) ? "persistent" : "volatile";
}

// On a pool (persistent or shared): no policy, a pool and an offset instead.
bool on_pool(const cxltier_region_info *i)
{
	return cxltier_region_info_is_persistent(i) || cxltier_region_info_is_shared(i);
}

// region create --json: the region as region stat --json shows it.  It exists once
// created: a failed stat says so on stderr and fails, but does not undo it.
void print_created(cxltier_ctx *ctx, const std::string &name)
{
	int err = 0;
	auto info = cxltier::stat_region(ctx, name.c_str(), err);
	if (!info)
		throw fatal(fmt::format("created region {}, but could not read it back: {}", name,
					reason(ctx, err)));
	json doc = list_document(ctx);
	doc["region"] = region_json(info.get());
	print_json(doc);
}

void region_create_persistent(const create_options &o)
{
	auto ctx = open_ctx();
	unsigned int mode = 0;
	std::uint32_t id = 0;
	if (!o.mode.empty())
		std::from_chars(o.mode.data(), o.mode.data() + o.mode.size(), mode, 8);
	int rc = cxltier_region_create_persistent(ctx.get(), o.name.c_str(), o.size, mode,
						  o.pool.c_str(), &id);
	if (rc)
		throw fatal(reason(ctx.get(), rc));
	if (o.json_out)
		return print_created(ctx.get(), o.name);
	int err = 0;
	auto info = cxltier::stat_region(ctx.get(), o.name.c_str(), err);
	std::string pool = info ? cxltier_region_info_get_pool(info.get()) : o.pool;
	fmt::print("Created persistent region {} (id {}, {}, on pool {}, mode {:04o}).\n", o.name, id,
		   human_size(o.size), pool.empty() ? "?" : pool, mode ? mode : 0600);
}

void region_create(const create_options &o)
{
	if (o.persistent)
		return region_create_persistent(o);
	auto ctx = open_ctx();
	cxltier_region_policy policy;
	std::vector<int> nodes;
	unsigned int mode = 0;
	std::uint32_t id = 0;

	cxltier_region_policy_from_name(o.policy.c_str(), &policy);
	if (!o.nodes.empty())
		parse_nodes(o.nodes, &nodes);
	if (!o.mode.empty())
		std::from_chars(o.mode.data(), o.mode.data() + o.mode.size(), mode, 8);
	int rc = cxltier_region_create(ctx.get(), o.name.c_str(), o.size, policy, mode,
				       nodes.data(), nodes.size(), &id);
	if (rc)
		throw fatal(reason(ctx.get(), rc));
	if (o.json_out)
		return print_created(ctx.get(), o.name);
	fmt::print("Created region {} (id {}, {}, {}, mode {:04o}).\n", o.name, id,
		   human_size(o.size), o.policy, mode ? mode : 0600);
}

void region_destroy(const std::vector<std::string> &names)
{
	auto ctx = open_ctx();
	for (const auto &name : names) {
		int rc = cxltier_region_destroy(ctx.get(), name.c_str());
		if (rc)
			throw fatal(reason(ctx.get(), rc));
		fmt::print("Destroyed region {}; its memory goes when its last user unmaps it.\n",
			   name);
	}
}

void region_set_policy(const std::string &name, const std::string &policy_name,
		       const std::string &nodes_text)
{
	auto ctx = open_ctx();
	cxltier_region_policy policy;
	std::vector<int> nodes;

	cxltier_region_policy_from_name(policy_name.c_str(), &policy);
	if (!nodes_text.empty())
		parse_nodes(nodes_text, &nodes);
	int rc = cxltier_region_set_policy(ctx.get(), name.c_str(), policy, nodes.data(),
					   nodes.size());
	if (rc)
		throw fatal(reason(ctx.get(), rc));
	fmt::print("Region {}: new pages go {} (nodes: {}).\n", name, policy_name,
		   node_list(nodes.data(), nodes.size()));
}

// Stats of every listed region; one destroyed meanwhile is left out.
std::vector<cxltier::region_info_ptr> all_regions(cxltier_ctx *ctx)
{
	int rc = 0;
	auto list = cxltier::list_regions(ctx, rc);
	if (!list)
		throw fatal(reason(ctx, rc));
	std::vector<cxltier::region_info_ptr> out;
	for (std::size_t i = 0; i < cxltier_region_list_get_count(list.get()); i++) {
		auto info = cxltier::stat_region(ctx, cxltier_region_list_get_name(list.get(), i), rc);
		if (info)
			out.push_back(std::move(info));
		else if (rc != -ENOENT)
			throw fatal(reason(ctx, rc));
	}
	return out;
}

void region_list(bool json_out)
{
	auto ctx = open_ctx();
	auto regions = all_regions(ctx.get());
	if (json_out) {
		json doc = list_document(ctx.get());
		json arr = json::array();
		for (const auto &r : regions)
			arr.push_back(region_json(r.get()));
		doc["regions"] = arr;
		print_json(doc);
		return;
	}
	if (regions.empty()) {
		fmt::print("No global regions.\n");
		return;
	}
	table t({{"REGION"},
		 {"ID", true},
		 {"SIZE", true},
		 {"POLICY"},
		 {"KIND"},
		 {"POOL"},
		 {"OWNER"},
		 {"MODE"},
		 {"RESIDENT", true},
		 {"DRAM", true},
		 {"MAPS", true}});
	for (const auto &r : regions) {
		const cxltier_region_info *i = r.get();
		t.add({
			cxltier_region_info_get_name(i),
			std::to_string(cxltier_region_info_get_id(i)),
			human_size(cxltier_region_info_get_size(i)),
			on_pool(i) ? "-" : cxltier_region_policy_name(cxltier_region_info_get_policy(i)),
			kind_of(i),
			*cxltier_region_info_get_pool(i) ? cxltier_region_info_get_pool(i) : "-",
			user_name(cxltier_region_info_get_uid(i)),
			fmt::format("{:04o}", cxltier_region_info_get_mode(i)),
			human_size(page_bytes(cxltier_region_info_get_resident(i))),
			human_size(page_bytes(cxltier_region_info_get_fast(i))),
			std::to_string(cxltier_region_info_get_maps(i)),
		});
	}
	t.print();
}

void region_stat(const std::string &name, bool json_out)
{
	auto ctx = open_ctx();
	auto info = stat_or_fail(ctx.get(), name);
	const cxltier_region_info *i = info.get();
	if (json_out) {
		json doc = list_document(ctx.get());
		doc["region"] = region_json(i);
		print_json(doc);
		return;
	}
	std::size_t n_allowed = 0;
	const int *allowed = cxltier_region_info_get_allowed_nodes(i, &n_allowed);
	std::uint64_t resident = cxltier_region_info_get_resident(i);
	fmt::print("Region {} (id {})\n", cxltier_region_info_get_name(i),
		   cxltier_region_info_get_id(i));
	fmt::print("  size      {}\n", human_size(cxltier_region_info_get_size(i)));
	if (on_pool(i))
		fmt::print("  pool      {} at offset {:#x} ({}{})\n", cxltier_region_info_get_pool(i),
			   cxltier_region_info_get_pool_offset(i), kind_of(i),
			   cxltier_region_info_is_lost(i) ? ": its pool's device failed, access gets SIGBUS"
							  : "");
	else
		fmt::print("  policy    {} (nodes: {})\n",
			   cxltier_region_policy_name(cxltier_region_info_get_policy(i)),
			   node_list(allowed, n_allowed));
	fmt::print("  owner     {}:{}, mode {:04o}\n", user_name(cxltier_region_info_get_uid(i)),
		   group_name(cxltier_region_info_get_gid(i)), cxltier_region_info_get_mode(i));
	fmt::print("  resident  {} ({} pages, {} on DRAM, {} fenced)\n", human_size(page_bytes(resident)),
		   resident, cxltier_region_info_get_fast(i), cxltier_region_info_get_fenced(i));
	fmt::print("  users     {} mappings, {} open files{}\n", cxltier_region_info_get_maps(i),
		   cxltier_region_info_get_files(i),
		   cxltier_region_info_is_destroyed(i) ? "; destroyed, freed when they go" : "");
	region_counters c = counters_of(i);
	fmt::print("  moved     {} promoted, {} demoted, {} ping-pong, {} copied\n", c.promoted,
		   c.demoted, c.pingpong, human_size(c.moved_bytes));
	fmt::print("  not moved {} pinned, {} failed; {} pages hinted\n", c.skipped_pinned, c.failed,
		   c.hinted);
	if (!resident)
		return;
	fmt::print("\n");
	table nodes({{"NODE", true}, {"PAGES", true}, {"SIZE", true}});
	for (std::size_t k = 0; k < cxltier_region_info_get_nr_nodes(i); k++) {
		int node;
		std::uint64_t pages;
		cxltier_region_info_get_node(i, k, &node, &pages);
		nodes.add({std::to_string(node), std::to_string(pages), human_size(page_bytes(pages))});
	}
	nodes.print();
	if (!cxltier_region_info_get_nr_blades(i))
		return;
	fmt::print("\n");
	table blades({{"BLADE"}, {"PAGES", true}, {"SIZE", true}});
	for (std::size_t k = 0; k < cxltier_region_info_get_nr_blades(i); k++) {
		const char *blade;
		std::uint64_t pages;
		cxltier_region_info_get_blade(i, k, &blade, &pages);
		blades.add({blade, std::to_string(pages), human_size(page_bytes(pages))});
	}
	blades.print();
}

void region_touch(const touch_options &o)
{
	auto ctx = open_ctx();
	int rc = 0;
	auto region = cxltier::open_region(ctx.get(), o.name.c_str(), CXLTIER_REGION_READ, rc);
	if (!region)
		throw fatal(reason(ctx.get(), rc));
	void *addr;
	rc = cxltier_region_map(region.get(), &addr);
	if (rc)
		throw fatal(reason(ctx.get(), rc));
	std::uint64_t size = cxltier_region_get_size(region.get());
	std::uint64_t end = o.length ? o.offset + o.length : size;
	if (o.offset >= size || end > size || end < o.offset)
		throw fatal(fmt::format("range {}+{} is outside region {} ({} bytes)", o.offset,
					o.length, o.name, size));
	// A read is a first touch too: the module allocates the page where the policy
	// says (a page it cannot place raises SIGBUS, which ends the command).
	const volatile char *p = static_cast<const char *>(addr);
	std::uint64_t page = page_bytes(1), pages = 0;
	for (std::uint64_t off = o.offset - o.offset % page; off < end; off += page, pages++)
		(void)p[off];
	fmt::print("Touched {} pages of region {}.\n", pages, o.name);
}

void region_hint(const hint_options &o)
{
	auto ctx = open_ctx();
	cxltier_region_hint hint;
	cxltier_region_hint_from_name(o.hint.c_str(), &hint); // checked at parse time
	int rc = 0;
	auto region = cxltier::open_region(ctx.get(), o.name.c_str(), CXLTIER_REGION_RDWR, rc);
	if (!region) {
		std::string why = reason(ctx.get(), rc);
		if (rc == -EACCES)
			why += " (a hint needs write access)";
		throw fatal(why);
	}
	std::uint64_t size = cxltier_region_get_size(region.get());
	if (o.offset >= size)
		throw fatal(fmt::format("offset {} is past the end of region {} ({})", o.offset, o.name,
					human_size(size)));
	std::uint64_t length = o.length ? o.length : size - o.offset;
	rc = cxltier_region_set_hint(region.get(), o.offset, length, hint);
	if (rc)
		throw fatal(reason(ctx.get(), rc));
	std::uint64_t page = page_bytes(1);
	fmt::print("Region {}: pages {}-{} ({}) hinted {}.\n", o.name, o.offset / page,
		   (o.offset + length) / page - 1, human_size(length), o.hint);
}

// Parse-time checks of hint arguments (after the size suffix was applied).
std::string check_hint_word(const std::string &s)
{
	cxltier_region_hint h;
	return cxltier_region_hint_from_name(s.c_str(), &h)
		       ? fmt::format("'{}' is not a hint (hot, cold, pin or none)", s)
		       : "";
}

std::string check_page_multiple(const std::string &s, bool nonzero)
{
	std::uint64_t v = 0;
	auto r = std::from_chars(s.data(), s.data() + s.size(), v);
	if (r.ec != std::errc() || r.ptr != s.data() + s.size())
		return fmt::format("'{}' is not a size", s);
	std::uint64_t page = page_bytes(1);
	if (v % page || (nonzero && !v))
		return fmt::format("{} is not a{} multiple of the page size ({})", v,
				   nonzero ? " nonzero" : "", page);
	return "";
}

} // namespace

void add_region_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("region", "Global regions: named memory placed on the tiers");
	noun->require_subcommand(0, 1);
	CLI::Validator policy(check_policy, "POLICY", "policy");
	CLI::Validator nodes([](const std::string &s) { return parse_nodes(s, nullptr); }, "NODES",
			     "node list");

	auto *create = noun->add_subcommand("create", "Create a region");
	auto co = std::make_shared<create_options>();
	create->add_option("NAME", co->name, "Region name (1-63 printable bytes, no '/')")->required();
	create->add_option("SIZE", co->size, "Size in bytes, or with a suffix: 64M, 1G")
		->required()
		->transform(CLI::AsSizeValue(false));
	create->add_option("--policy", co->policy,
			   "fast-first (default), slow-only, interleave or pinned-fast")
		->check(policy);
	create->add_option("--mode", co->mode, "Permission bits in octal (default 0600)")
		->check(CLI::Validator(check_mode, "MODE", "mode"));
	auto *nodes_opt = create->add_option("--nodes", co->nodes,
					     "NUMA nodes pages may go to, such as 1,3-4")
				  ->check(nodes);
	auto *persistent = create->add_flag(
		"--persistent", co->persistent,
		"A persistent region, on a pool: it survives crashes and reboots");
	create->add_option("--pool", co->pool,
			   "With --persistent: the pool (regionN; default: the one with most free space)")
		->needs(persistent);
	persistent->excludes(nodes_opt);
	create->add_flag("-j,--json", co->json_out,
			 "Print the region it made as JSON (as region stat --json)");
	create->callback([&run, co, create] {
		if (co->persistent && create->count("--policy"))
			throw CLI::ValidationError("--policy", "a persistent region has no placement policy");
		run = [co] { region_create(*co); };
	});

	auto *destroy = noun->add_subcommand(
		"destroy", "Destroy regions (the memory goes when their last user unmaps them)");
	auto names = std::make_shared<std::vector<std::string>>();
	destroy->add_option("NAME", *names, "Region names")->required();
	destroy->callback([&run, names] { run = [names] { region_destroy(*names); }; });

	auto *set = noun->add_subcommand("set-policy", "Change where new pages of a region go");
	auto so = std::make_shared<create_options>();
	set->add_option("NAME", so->name, "Region name")->required();
	set->add_option("POLICY", so->policy, "fast-first, slow-only, interleave or pinned-fast")
		->required()
		->check(policy);
	set->add_option("--nodes", so->nodes, "NUMA nodes pages may go to (default: any)")
		->check(nodes);
	set->callback([&run, so] { run = [so] { region_set_policy(so->name, so->policy, so->nodes); }; });

	auto *list = noun->add_subcommand("list", "List regions with their placement");
	auto list_json = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *list_json, "Print JSON instead of a table");
	list->callback([&run, list_json] { run = [list_json] { region_list(*list_json); }; });

	auto *stat = noun->add_subcommand("stat", "Where a region's pages live, per node and per blade");
	auto stat_name = std::make_shared<std::string>();
	auto stat_json = std::make_shared<bool>(false);
	stat->add_option("NAME", *stat_name, "Region name")->required();
	stat->add_flag("-j,--json", *stat_json, "Print JSON instead of text");
	stat->callback([&run, stat_name, stat_json] {
		run = [stat_name, stat_json] { region_stat(*stat_name, *stat_json); };
	});

	auto *touch = noun->add_subcommand(
		"touch", "Touch the pages of a region (or of a range) so that they are placed now");
	auto to = std::make_shared<touch_options>();
	touch->add_option("NAME", to->name, "Region name")->required();
	touch->add_option("--offset", to->offset, "First byte (default 0)")
		->transform(CLI::AsSizeValue(false));
	touch->add_option("--length", to->length, "Bytes (default: to the end)")
		->transform(CLI::AsSizeValue(false));
	touch->callback([&run, to] { run = [to] { region_touch(*to); }; });

	auto *hint = noun->add_subcommand(
		"hint", "Tell the migration daemon about a range: hot, cold, pin or none");
	auto ho = std::make_shared<hint_options>();
	hint->add_option("NAME", ho->name, "Region name")->required();
	hint->add_option("HINT", ho->hint,
			 "hot (to DRAM first, never demoted), cold (to CXL first, never promoted), "
			 "pin (never moved) or none (forget hints)")
		->required()
		->check(CLI::Validator(check_hint_word, "HINT", "hint"));
	hint->add_option("--offset", ho->offset, "First byte, a multiple of the page size (default 0)")
		->transform(CLI::AsSizeValue(false))
		->check(CLI::Validator([](const std::string &s) { return check_page_multiple(s, false); },
				       "OFFSET", "page multiple"));
	hint->add_option("--length", ho->length,
			 "Bytes, a multiple of the page size (default: to the end)")
		->transform(CLI::AsSizeValue(false))
		->check(CLI::Validator([](const std::string &s) { return check_page_multiple(s, true); },
				       "LENGTH", "page multiple"));
	hint->callback([&run, ho] { run = [ho] { region_hint(*ho); }; });
}

} // namespace cxltierctl
