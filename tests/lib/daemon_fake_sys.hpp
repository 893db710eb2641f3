// SPDX-License-Identifier: GPL-2.0
// Fakes for the migration daemon's tests: daemon/ (tunables, stats/, heat) and the
// tiers' promoted_pages and demoted_pages in a fake module tree (fake_sysfs.hpp),
// and a fake /dev/cxltier (fake_dev.c) whose regions a test writes as text.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fake_sysfs.hpp"
#include "tier_fake_sys.hpp"

namespace cxltier_test {

// The documented tunables at their defaults, in the ABI document's order.
inline const std::vector<std::pair<std::string, std::string>> default_tunables = {
	{"enable", "1"},      {"period_ms", "1000"},  {"budget_mbps", "64"},
	{"sample_mb", "256"}, {"wmark_low_mb", "4"},  {"wmark_high_mb", "8"},
	{"decay_shift", "3"}, {"idle_bits", "10"},    {"burst_bits", "10"},
	{"confidence", "8"},  {"hyst_steps", "4"},    {"min_resid", "2"},
};

// A daemon some periods into a run.
inline const std::vector<std::pair<std::string, std::string>> default_counters = {
	{"periods", "120"},	     {"sampled_pages", "40000"}, {"accessed_pages", "10000"},
	{"promoted_pages", "3000"},  {"demoted_pages", "1000"},	 {"pingpong_pages", "12"},
	{"skipped_pinned", "3"},     {"skipped_busy", "1"},	 {"failed_pages", "2"},
	{"moved_bytes", "16384000"}, {"batches", "90"},		 {"cpu_ns", "250000000"},
	{"arm_ns", "20000000"},	     {"harvest_ns", "5000000"},	 {"decide_ns", "15000000"},
	{"move_ns", "200000000"},    {"managed_pages", "65536"}, {"fast_pages", "16384"},
	{"metadata_bytes", "1048576"},
};

inline constexpr const char *default_heat = "fast 100 0 0 0 0 0 0 200 4000 0 0 0 0 0 0 0\n"
					    "slow 30000 2000 1000 0 0 0 0 0 500 0 0 0 0 0 0 0";

inline void add_daemon(const fake_sysfs &sysfs)
{
	for (const auto &[name, value] : default_tunables)
		sysfs.write(fs::path("daemon") / name, value);
	for (const auto &[name, value] : default_counters)
		sysfs.write(fs::path("daemon/stats") / name, value);
	sysfs.write("daemon/heat", default_heat);
}

inline void set_counter(const fake_sysfs &sysfs, const std::string &name, std::uint64_t v)
{
	sysfs.write(fs::path("daemon/stats") / name, std::to_string(v));
}

// The pool's region0 as a tier, with its migration counters.
inline void add_daemon_tier(const fake_sysfs &sysfs, std::uint64_t promoted = 3000,
			    std::uint64_t demoted = 1000)
{
	add_pool4_tier(sysfs);
	sysfs.write("tiers/region0/promoted_pages", std::to_string(promoted));
	sysfs.write("tiers/region0/demoted_pages", std::to_string(demoted));
}

// The device file and the regions file of fake_dev.c, in a temporary directory.
class fake_dev {
public:
	fake_dev() { write("cxltier", ""); }

	fs::path dev() const { return dir_.path() / "cxltier"; }

	// One line per region, as fake_dev.c documents: "<id> <name> <length> <policy>
	// <mode> <access> [key=value ...]".
	void set_regions(const std::vector<std::string> &lines) const
	{
		std::string text;
		for (const auto &l : lines)
			text += l + "\n";
		write("regions", text);
	}

	// The HINT calls the fake received, one "<name> <offset> <length> <hint>" line each.
	std::string hints() const { return slurp(dir_.path() / "hints"); }

	// The REPLACE calls the fake received, one "<name> <offset> <length>" line each.
	std::string replaced() const { return slurp(dir_.path() / "replaced"); }

	// The event log, one record per line as fake_dev.c documents: "<seq> <time_ns>
	// <type> <cause> <blade> <region_id> <region> <offset> <pages> <ram_pages>
	// <duration_ns>".  add_event() appends one (atomically: a reader that polls
	// sees it whole or not at all).
	void set_events(const std::vector<std::string> &lines) const
	{
		std::string text;
		for (const auto &l : lines)
			text += l + "\n";
		replace("events", text);
	}
	void add_event(const std::string &line) const
	{
		replace("events", slurp(dir_.path() / "events") + line + "\n");
	}

	// A module that predates EVENTS, FENCED and REPLACE (they fail with ENOTTY).
	void make_old() const { write("old", ""); }

private:
	void write(const char *name, const std::string &text) const
	{
		std::ofstream f(dir_.path() / name, std::ios::trunc);
		f << text;
	}

	// Written aside and renamed over @name.
	void replace(const char *name, const std::string &text) const
	{
		fs::path tmp = dir_.path() / (std::string(name) + ".new");
		{
			std::ofstream f(tmp, std::ios::trunc);
			f << text;
		}
		fs::rename(tmp, dir_.path() / name);
	}

	temp_dir dir_;
};

} // namespace cxltier_test
