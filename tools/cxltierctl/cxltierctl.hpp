// SPDX-License-Identifier: GPL-2.0
// cxltierctl internals shared by the command files.  One file per noun (blade,
// cxl-region, later tier and region); each adds its subcommand to the app.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cxltier.hpp"

namespace cxltierctl {

// Insertion-ordered, so "name" comes first in every object.
using json = nlohmann::ordered_json;

// A failure reported as "cxltierctl: <what>" on one line, exit status 1.
class fatal : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// Ends cxltierctl with @status (after flushing its output) once everything there is
// to say has been said: cxltierctl run passes its job's exit status on this way.
class exit_with {
public:
	explicit exit_with(int status) : status(status) {}
	int status;
};

// What the command line asked for.  A verb's parse callback sets it; main runs it
// once parsing has succeeded, so a usage error never leaves work half done.
using action = std::function<void()>;

// The command table (main.cpp) calls one of these per top-level subcommand.
void add_list_command(CLI::App &app, action &run);
void add_blade_command(CLI::App &app, action &run);
void add_cxl_region_command(CLI::App &app, action &run);
void add_region_command(CLI::App &app, action &run);
void add_stats_command(CLI::App &app, action &run);
void add_top_command(CLI::App &app, action &run);
void add_daemon_command(CLI::App &app, action &run);
void add_events_command(CLI::App &app, action &run);
void add_pool_command(CLI::App &app, action &run);
void add_checkpoint_command(CLI::App &app, action &run);
void add_run_command(CLI::App &app, action &run);
void add_manage_command(CLI::App &app, action &run);
void add_unmanage_command(CLI::App &app, action &run);
void add_managed_command(CLI::App &app, action &run);

// ctx.cpp: a library context, or fatal with the library's reason.
cxltier::ctx_ptr open_ctx();

// cxltierctl list's filters (-b, -r, -t; list.cpp), as cxl list's: an object is
// listed when it relates to every filter given (a blade to the CXL regions and tiers
// with memory on it, and back; a tier is named by its CXL region).  No filter: all.
struct list_filter {
	std::vector<std::string> blades, cxl_regions, tiers;
	bool blade(const cxltier_blade *b) const;
	bool cxl_region(const cxltier_cxl_region *r) const;
	bool tier(const cxltier_tier *t) const;
};

// blade.cpp, cxl_region.cpp: one kind of object as JSON or as a table (@f: only
// those it lets through).
json blades_json(cxltier_ctx *ctx, const list_filter *f = nullptr);
void print_blades(cxltier_ctx *ctx, const list_filter *f = nullptr);
json cxl_regions_json(cxltier_ctx *ctx, const list_filter *f = nullptr);
void print_cxl_regions(cxltier_ctx *ctx, const list_filter *f = nullptr);
// pool.cpp
json pools_json(cxltier_ctx *ctx);
void print_pools(cxltier_ctx *ctx);

// output.cpp
// {"abi_version": N}, to which each list command adds its arrays.
json list_document(cxltier_ctx *ctx);
void print_json(const json &doc);
std::string human_size(std::uint64_t bytes); // "256 MiB", "1.5 GiB"
std::uint64_t page_bytes(std::uint64_t pages); // bytes of @pages pages
std::string human_ms(std::uint64_t ms);         // "350 ms", "12.5 s", "3 min", "2 h", "5 d"
// The name of user @uid or group @gid, or the number when there is none.
std::string user_name(std::uint32_t uid);
std::string group_name(std::uint32_t gid);
// The library's reason for the failure @rc on @ctx (its errno text when none).
std::string library_error(cxltier_ctx *ctx, int rc);
// @words joined by @sep; @empty when there are none.
std::string join(std::span<const char *const> words, const char *sep, const char *empty);
json names_json(std::span<const char *const> names);

// Columns padded to their widest cell; numbers right-aligned.
class table {
public:
	struct column {
		std::string header;
		bool right = false;
	};
	explicit table(std::vector<column> columns) : columns_(std::move(columns)) {}
	void add(std::vector<std::string> row);
	std::size_t size() const { return rows_.size(); }
	// The header and the rows, without newlines.
	std::vector<std::string> lines() const;
	void print() const;

private:
	std::vector<column> columns_;
	std::vector<std::vector<std::string>> rows_;
};

// --- Tiers (tier.cpp, tier_bandwidth.cpp) -------------------------------------

void add_tier_command(CLI::App &app, action &run);
json tiers_json(cxltier_ctx *ctx, const list_filter *f = nullptr);
void print_tiers(cxltier_ctx *ctx, const list_filter *f = nullptr);

// A command that works on several objects reports each failure as it happens
// ("cxltierctl: <reason>" on stderr) and then throws this: exit status 1, nothing
// more printed.
class already_reported {};

// Best of three sequential reads of up to @size bytes bound to @node (a quarter of
// @mem_free at most), in MB/s; "measuring node N..." and the result on @progress.
// Throws fatal when the node cannot be measured.
std::uint64_t measure_read_bandwidth(int node, std::uint64_t mem_free, std::uint64_t size,
				     std::FILE *progress);

// --- Process mode (manage.cpp) -------------------------------------------------

// cxltier-procd's pid, or fatal with how to start it.
int require_procd();
// What cxltier-procd's status.json says of the target file_name() @name: its
// entry, or null when it says nothing (the service is not running, has written no
// status since it started, or does not list the target).
json procd_target_status(const std::string &name);

} // namespace cxltierctl
