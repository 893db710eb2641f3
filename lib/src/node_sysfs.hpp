// SPDX-License-Identifier: GPL-2.0
// The NUMA facts neither libnuma nor libcxl offers, read from the kernel's sysfs by
// hand (node_sysfs.cpp says why).  Everything else about nodes comes from libnuma.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "sysfs.hpp"

namespace cxltier::internal {

// CXLTIER_SYS_ROOT when set and not empty, else /sys.
fs::path std_sysfs_root();

// The kernel stores weighted-interleave weights as u8.
constexpr unsigned int max_interleave_weight = 255;

// "1-3,5" (the kernel's %*pbl format for node and CPU lists; empty is none) as
// inclusive ranges, {{1, 3}, {5, 5}}.
using id_range = std::pair<int, int>;
result<std::vector<id_range>> parse_id_ranges(const fs::path &file, std::string_view text);

// memory_tier<N> and the nodes its nodelist holds.
struct memory_tier_nodes {
	int tier;
	std::vector<id_range> nodes;
};

// Every memory tier under <sys>/devices/virtual/memory_tiering; none without tiering.
result<std::vector<memory_tier_nodes>> load_memory_tiers(const fs::path &sys);

// N of the memory tier holding @node, -1 for none.
int memory_tier_of(const std::vector<memory_tier_nodes> &tiers, int node);

// The node facts read by hand; 0 when the kernel or firmware has none.
struct node_sysfs_facts {
	unsigned int read_bandwidth = 0; // MB/s from the nearest initiators
	unsigned int weight = 0;	 // weighted-interleave weight
};

// For node @id; a node whose directory went away reads -ENOENT or -ENODEV.
result<node_sysfs_facts> load_node_facts(const fs::path &sys, int id);

// <sys>/kernel/mm/mempolicy/weighted_interleave, and the file of node @id in it.
fs::path interleave_weights_dir(const fs::path &sys);
fs::path interleave_weight_file(const fs::path &sys, int id);

} // namespace cxltier::internal
