// SPDX-License-Identifier: GPL-2.0
// The pure part of cxltier's Slurm plugin (cxltier_spank.cpp): the option values
// (--cxl-fast/--cxl-slow sizes, --cxl-policy names) and the text of the state
// file the job prolog leaves for the job's tasks.  No Slurm here, and no I/O, so
// that host tests check it directly.
//
// State file (/run/cxltier/slurm/job.<jobid>), "key=value" lines; '#' starts a
// comment line, blank lines are ignored:
//   version=1                   first, always
//   then the plan, when the job asked for --cxl-fast or --cxl-slow:
//     policy=<preferred|interleave|weighted>
//     fast=<bytes>
//     slow=<bytes>
//     node=<id> <dram|cxl> <bytes> <weight>   one per node of the plan, ids rising
//   and the shared pool, when it asked for --cxl-pool (one of the two at least):
//     pool=<region> <bytes>                   the pool's CXL region here, the space asked
//   or, instead of both, why there is none:
//     error=<reason, one line>
// A plan is written only as the prolog got it from cxltier_placement_plan(), so a
// file that breaks these rules is corrupt (refused), never guessed at.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cxltier.h"

namespace cxltier_slurm {

// A value of an option that is not one; what() is the reason without the option's
// name ("'4X' is not a size (such as 512M or 4G)").
class option_error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// A state file that is not one; what() says which line and why.
class state_error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// A positive whole number of bytes with an optional binary suffix K, M, G or T and
// an optional "B" or "iB" after it, any case ("512M", "4G", "1t", "2GiB", "4096").
// Throws option_error for anything else, for 0 and for more than 2^64 - 1 bytes.
std::uint64_t parse_size(std::string_view text);

// "preferred", "interleave" or "weighted"; option_error lists them otherwise.
cxltier_placement_policy parse_policy(std::string_view text);

struct plan_node {
	int id = -1;
	cxltier_memory_kind kind = CXLTIER_MEMORY_UNKNOWN;
	std::uint64_t bytes = 0;  // planned on the node
	unsigned int weight = 0;  // interleave weight; 0 for preferred
	bool operator==(const plan_node &) const = default;
};

struct job_plan {
	cxltier_placement_policy policy = CXLTIER_PLACEMENT_PREFERRED;
	std::uint64_t fast = 0;
	std::uint64_t slow = 0;
	std::vector<plan_node> nodes; // id order
	bool operator==(const job_plan &) const = default;
};

// Space a job asked for on the cluster's shared pool (--cxl-pool), and the pool
// that has it on this node.
struct pool_grant {
	std::string pool;	 // the pool's CXL region on this node, "region2"
	std::uint64_t bytes = 0; // asked for
	bool operator==(const pool_grant &) const = default;
};

// What the prolog decided for the job on this node: a plan and/or a pool, or why
// there is none.
struct job_state {
	std::string error; // not empty: no plan, and this is why
	job_plan plan;	   // no nodes: the job asked for no memory to place
	std::optional<pool_grant> pool;
	bool failed() const { return !error.empty(); }
	bool placed() const { return !plan.nodes.empty(); }
	bool operator==(const job_state &) const = default;
};

// A pool's name as the module gives it (a CXL region: letters, digits, '_', '-',
// '.'; 1 to 63 of them).
bool valid_pool_name(std::string_view name);

// Node ids the state file takes: those of the C ABI's nodes (cxltier.h).
inline constexpr int max_node_id = 1023;

// The file's text; @comment (one line, without '#') heads it when not empty.
// Line breaks in the error are made blanks, so it stays one line.
std::string format_state(const job_state &state, std::string_view comment = {});

// The file's text back; throws state_error when it is not a well-formed state file
// (bad or missing values, unknown keys, a plan without the nodes its policy uses).
job_state parse_state(std::string_view text);

// The nodes a task's memory policy names (cxltier.h, cxltier_placement_policy):
// preferred, the DRAM nodes (the CXL ones when there is no fast part); interleave
// and weighted, every node of the plan.
std::vector<int> policy_nodes(const job_plan &plan);

// CXLTIER_PLACEMENT for the job's tasks: "<policy> fast=<bytes> slow=<bytes>
// nodes=<id>,<id>..." (every node of the plan).
std::string placement_env(const job_plan &plan);

// The state file's name for job @jobid, "job.<jobid>".
std::string state_file_name(std::uint32_t jobid);

} // namespace cxltier_slurm
