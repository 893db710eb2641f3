// SPDX-License-Identifier: GPL-2.0
// cxltierctl checkpoint ...: the checkpoints jobs keep with libcxltier on persistent
// regions: list them with their newest generation and copies, verify every copy's
// data, drop one.
#include <ctime>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

struct ckpt_close {
	void operator()(cxltier_ckpt *ck) const noexcept { cxltier_ckpt_close(ck); }
};
struct info_free {
	void operator()(cxltier_ckpt_info *i) const noexcept { cxltier_ckpt_info_free(i); }
};
using info_ptr = std::unique_ptr<cxltier_ckpt_info, info_free>;

// "2025-01-31 12:00:05" (UTC), "-" for 0.
std::string utc_time(std::uint64_t ns)
{
	if (!ns)
		return "-";
	std::time_t t = static_cast<std::time_t>(ns / 1000000000u);
	std::tm tm{};
	::gmtime_r(&t, &tm);
	char buf[32];
	std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

// What one checkpoint is: from its records (stat) or every copy's data (verify).
struct checked {
	std::string name;
	int rc = 0;	      // of stat or verify
	std::string reason;   // the library's, when rc or a copy is not ok
	std::uint64_t capacity = 0;
	info_ptr info;
};

checked check_one(cxltier_ctx *ctx, const std::string &name, bool verify)
{
	checked c;
	c.name = name;
	cxltier_ckpt *raw = nullptr;
	c.rc = cxltier_ckpt_open(ctx, name.c_str(), CXLTIER_REGION_READ, &raw);
	if (c.rc) {
		c.reason = library_error(ctx, c.rc);
		return c;
	}
	std::unique_ptr<cxltier_ckpt, ckpt_close> ck(raw);
	c.capacity = cxltier_ckpt_get_capacity(raw);
	cxltier_ckpt_info *info = nullptr;
	c.rc = verify ? cxltier_ckpt_verify(raw, &info) : cxltier_ckpt_stat(raw, &info);
	c.info.reset(info);
	c.reason = cxltier_get_last_error(ctx);
	return c;
}

json copies_json(const cxltier_ckpt_info *i)
{
	json arr = json::array();
	for (unsigned int k = 0; k < cxltier_ckpt_info_get_nr_copies(i); k++)
		arr.push_back({
			{"copy", k},
			{"region", cxltier_ckpt_info_get_copy_region(i, k)},
			{"pool", cxltier_ckpt_info_get_copy_pool(i, k)},
			{"state", cxltier_ckpt_copy_state_name(cxltier_ckpt_info_get_copy_state(i, k))},
			{"generation", cxltier_ckpt_info_get_copy_generation(i, k)},
			{"message", cxltier_ckpt_info_get_copy_message(i, k)},
		});
	return arr;
}

json checked_json(const checked &c)
{
	json out = {{"name", c.name}, {"capacity", c.capacity}};
	const cxltier_ckpt_info *i = c.info.get();
	out["generation"] = i ? cxltier_ckpt_info_get_generation(i) : 0;
	out["size"] = i ? cxltier_ckpt_info_get_size(i) : 0;
	out["time_ns"] = i ? cxltier_ckpt_info_get_time_ns(i) : 0;
	out["copies"] = i ? copies_json(i) : json::array();
	out["error"] = c.rc ? c.reason : "";
	return out;
}

// "ok,stale" for the COPIES column; "-" when unknown.
std::string copy_states(const cxltier_ckpt_info *i)
{
	if (!i)
		return "-";
	std::string out;
	for (unsigned int k = 0; k < cxltier_ckpt_info_get_nr_copies(i); k++)
		out += (k ? "," : "") +
		       std::string(cxltier_ckpt_copy_state_name(cxltier_ckpt_info_get_copy_state(i, k)));
	return out;
}

void print_checked(const std::vector<checked> &all)
{
	table t({{"CHECKPOINT"},
		 {"GENERATION", true},
		 {"SIZE", true},
		 {"CAPACITY", true},
		 {"COMMITTED (UTC)"},
		 {"COPIES"},
		 {"POOLS"}});
	for (const auto &c : all) {
		const cxltier_ckpt_info *i = c.info.get();
		std::uint64_t gen = i ? cxltier_ckpt_info_get_generation(i) : 0;
		std::string pools;
		for (unsigned int k = 0; i && k < cxltier_ckpt_info_get_nr_copies(i); k++) {
			const char *p = cxltier_ckpt_info_get_copy_pool(i, k);
			pools += (k ? "," : "") + std::string(*p ? p : "-");
		}
		t.add({c.name, gen ? std::to_string(gen) : "-",
		       gen ? human_size(cxltier_ckpt_info_get_size(i)) : "-",
		       c.capacity ? human_size(c.capacity) : "-",
		       utc_time(i ? cxltier_ckpt_info_get_time_ns(i) : 0), copy_states(i),
		       pools.empty() ? "-" : pools});
	}
	t.print();
}

std::vector<std::string> all_names(cxltier_ctx *ctx)
{
	cxltier_ckpt_list *list = nullptr;
	int rc = cxltier_ckpt_list_new(ctx, &list);
	if (rc)
		throw fatal(library_error(ctx, rc));
	std::vector<std::string> out;
	for (std::size_t i = 0; i < cxltier_ckpt_list_get_count(list); i++)
		out.emplace_back(cxltier_ckpt_list_get_name(list, i));
	cxltier_ckpt_list_free(list);
	return out;
}

// Problems worth a line on stderr: the checkpoint could not be read, or a copy is
// not ok.  -ENODATA with no copy in trouble is an empty checkpoint, not a problem.
bool troubled(const checked &c)
{
	if (c.rc && c.rc != -ENODATA)
		return true;
	const cxltier_ckpt_info *i = c.info.get();
	for (unsigned int k = 0; i && k < cxltier_ckpt_info_get_nr_copies(i); k++) {
		auto s = cxltier_ckpt_info_get_copy_state(i, k);
		if (s == CXLTIER_CKPT_COPY_BAD || s == CXLTIER_CKPT_COPY_MISSING ||
		    s == CXLTIER_CKPT_COPY_NEWER_FORMAT || s == CXLTIER_CKPT_COPY_DIVERGED)
			return true;
	}
	return c.rc == -ENODATA && !c.reason.empty() &&
	       c.reason.find("nothing committed yet") == std::string::npos;
}

// list (records only) and verify (all data): the same output; verify fails (exit 1)
// when any checkpoint or copy has a problem, after printing everything.
void ckpt_show(const std::vector<std::string> &names, bool verify, bool json_out)
{
	auto ctx = open_ctx();
	std::vector<std::string> todo = names.empty() ? all_names(ctx.get()) : names;
	std::vector<checked> all;
	for (const auto &n : todo)
		all.push_back(check_one(ctx.get(), n, verify));
	bool trouble = false;
	for (const auto &c : all)
		trouble |= troubled(c);
	if (json_out) {
		json doc = list_document(ctx.get());
		json arr = json::array();
		for (const auto &c : all)
			arr.push_back(checked_json(c));
		doc["checkpoints"] = arr;
		print_json(doc);
	} else if (all.empty()) {
		fmt::print("No checkpoints.\n");
	} else {
		print_checked(all);
	}
	for (const auto &c : all)
		if (troubled(c) && !c.reason.empty())
			fmt::print(stderr, "cxltierctl: {}\n", c.reason);
	if (verify && trouble)
		throw already_reported();
	// Names asked for that do not exist are errors for list too.
	for (const auto &c : all)
		if (c.rc == -ENOENT)
			throw already_reported();
}

void ckpt_drop(const std::vector<std::string> &names)
{
	auto ctx = open_ctx();
	for (const auto &n : names) {
		int rc = cxltier_ckpt_drop(ctx.get(), n.c_str());
		if (rc)
			throw fatal(library_error(ctx.get(), rc));
		fmt::print("Dropped checkpoint {}: every generation is gone.\n", n);
	}
}

} // namespace

void add_checkpoint_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("checkpoint", "Checkpoints on persistent regions");
	noun->require_subcommand(0, 1);

	for (bool verify : {false, true}) {
		auto *cmd = noun->add_subcommand(
			verify ? "verify" : "list",
			verify ? "Check every copy's data against its checksums (exit 1 on trouble)"
			       : "List checkpoints: newest generation, size, time and copies");
		auto names = std::make_shared<std::vector<std::string>>();
		auto json_out = std::make_shared<bool>(false);
		cmd->add_option("NAME", *names, "Checkpoints (default: all)");
		cmd->add_flag("-j,--json", *json_out, "Print JSON instead of a table");
		cmd->callback([&run, names, json_out, verify] {
			run = [names, json_out, verify] { ckpt_show(*names, verify, *json_out); };
		});
	}

	auto *drop = noun->add_subcommand("drop", "Drop checkpoints: their regions are destroyed");
	auto names = std::make_shared<std::vector<std::string>>();
	drop->add_option("NAME", *names, "Checkpoint names")->required();
	drop->callback([&run, names] { run = [names] { ckpt_drop(*names); }; });
}

} // namespace cxltierctl
