// SPDX-License-Identifier: GPL-2.0
// cxltierctl: list and (in later versions) manage cxltier blades, CXL regions,
// tiers and global regions.  See Documentation/cxltierctl.rst.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {
namespace {

// The top-level subcommands, one per noun (and "list" for everything at once).
// New nouns (tier, region) add a line here and a file of their own.
constexpr void (*commands[])(CLI::App &, action &) = {
	add_list_command,
	add_blade_command,
	add_cxl_region_command,
	add_tier_command,
	add_region_command,
	add_stats_command,
	add_top_command,
	add_daemon_command,
	add_events_command,
	add_pool_command,
	add_checkpoint_command,
	add_run_command,
	add_manage_command,
	add_unmanage_command,
	add_managed_command,
};

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

void report(const std::string &what)
{
	fmt::print(stderr, "cxltierctl: {}\n", what);
}

// "cxltierctl blade" for a command line that stopped at a noun.
std::string command_path(CLI::App &app)
{
	std::string path = app.get_name();
	for (CLI::App *a = &app; !a->get_subcommands().empty();) {
		a = a->get_subcommands().front();
		path += " " + a->get_name();
	}
	return path;
}

} // namespace
} // namespace cxltierctl

int main(int argc, char **argv)
{
	using namespace cxltierctl;

	CLI::App app("Inspect and manage cxltier tiered CXL memory.", "cxltierctl");
	app.set_version_flag("--version", "cxltierctl " CXLTIERCTL_VERSION);
	// At most one, checked below: with a minimum, CLI11 would answer a misspelt
	// command with "a subcommand is required" instead of naming it.
	app.require_subcommand(0, 1);
	action run;
	for (auto add : commands)
		add(app, run);

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		// --help and --version arrive as "errors" with exit code 0.
		if (e.get_exit_code() == 0)
			return app.exit(e);
		report(fmt::format("{} (see cxltierctl --help)", e.what()));
		return exit_usage;
	}
	if (!run) {
		report(fmt::format("missing command (see {} --help)", command_path(app)));
		return exit_usage;
	}

	int status = 0;
	try {
		run();
	} catch (const exit_with &e) {
		status = e.status;
	} catch (const already_reported &) {
		return exit_failure;
	} catch (const std::exception &e) { // fatal, and anything unexpected
		report(e.what());
		return exit_failure;
	}

	// Output is buffered: a full disk or closed pipe shows up only now.
	if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
		report(fmt::format("cannot write output: {}", std::strerror(errno)));
		return exit_failure;
	}
	return status;
}
