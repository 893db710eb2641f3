// SPDX-License-Identifier: GPL-2.0
// One look at everything that moves: the daemon's reading (counters, tunables,
// heat, per-tier promotions), the NUMA nodes' use and every region's migration
// counters.  `stats` prints one sample; `top` draws frames from two, the rates
// being their differences over the time between them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cxltier.hpp"

namespace cxltierctl {

struct node_usage {
	int node;
	std::string kind; // "dram", "tier region0", "cpu-less"
	std::uint64_t total; // bytes
	std::uint64_t free;  // bytes
};

// STAT of one region (CXLTIER_IOC_STAT), counters in pages unless named _bytes.
struct region_counters {
	std::string name;
	std::uint32_t id = 0;
	std::uint64_t size = 0; // bytes
	std::uint64_t resident = 0;
	std::uint64_t fast = 0;
	std::uint64_t promoted = 0;
	std::uint64_t demoted = 0;
	std::uint64_t pingpong = 0;
	std::uint64_t skipped_pinned = 0;
	std::uint64_t failed = 0;
	std::uint64_t moved_bytes = 0;
	std::uint64_t sampled = 0;
	std::uint64_t accessed = 0;
	std::uint64_t hinted = 0;
};

region_counters counters_of(const cxltier_region_info *info);

struct sample {
	double time = 0; // seconds, CLOCK_MONOTONIC, when the daemon was read
	cxltier::daemon_ptr daemon;
	std::vector<node_usage> nodes; // nodes with memory, by id
	std::vector<region_counters> regions; // by id
	std::string regions_error;	      // why regions is empty, "" when listed
};

// A sample now; throws fatal when the daemon cannot be read.  Regions that cannot
// be listed (no access to /dev/cxltier) leave @regions_error set instead.
sample take_sample(cxltier_ctx *ctx);

// A daemon counter (daemon/stats/<name>) of @s, or nullopt when the module has none.
std::optional<std::uint64_t> counter(const sample &s, const char *name);
std::optional<std::uint64_t> tunable(const sample &s, const char *name);

// The migration counters of a region as JSON members, named as the daemon's
// counters are (promoted_pages, ...), for `stats` and `region stat`.
nlohmann::ordered_json migration_json(const region_counters &c);

// How a frame is laid out: terminal columns and lines (0: no limit).
struct frame_size {
	unsigned int width = 0;
	unsigned int height = 0;
};

// The lines of one `top` frame: @prev is the sample before @cur (nullptr for the
// first frame, whose rates show as "-"), @interval the refresh period, seconds.
// No terminal control codes; no line is longer than @size.width.
std::vector<std::string> top_frame(const sample *prev, const sample &cur, double interval,
				   frame_size size);

} // namespace cxltierctl
