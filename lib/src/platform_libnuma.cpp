// SPDX-License-Identifier: GPL-2.0
// NUMA nodes through libnuma: which nodes there are, their total and free memory
// and their CPUs.
#include "platform.hpp"

#include <algorithm>
#include <memory>
#include <new>

#include <numa.h>

namespace cxltier::internal {

namespace {

struct bitmask_free {
	void operator()(bitmask *b) const noexcept { numa_bitmask_free(b); }
};
using bitmask_ptr = std::unique_ptr<bitmask, bitmask_free>;

} // namespace

result<std::vector<numa_node_data>> read_nodes_libnuma(const std::vector<int> &known)
{
	std::vector<numa_node_data> nodes;
	if (numa_available() < 0)
		return nodes; // a kernel without NUMA: no nodes, as without node directories

	// libnuma takes its set of nodes once, when the process starts; a tier added
	// since has a node it does not list, so the caller's known nodes are asked
	// about too.  numa_node_size64() reads the node's meminfo every time, and
	// fails for a node that is not (or no longer) online.
	std::vector<int> ids = known;
	for (int id = 0; id <= numa_max_node(); id++)
		if (numa_bitmask_isbitset(numa_nodes_ptr, static_cast<unsigned int>(id)))
			ids.push_back(id);
	std::sort(ids.begin(), ids.end());
	ids.erase(std::unique(ids.begin(), ids.end()), ids.end());

	bitmask_ptr cpus(numa_allocate_cpumask());
	if (!cpus)
		throw std::bad_alloc();
	for (int id : ids) {
		if (id < 0)
			continue;
		long long free = 0;
		long long total = numa_node_size64(id, &free);
		if (total < 0)
			continue;
		numa_node_data n{.id = id,
				 .mem_total = static_cast<std::uint64_t>(total),
				 .mem_free = static_cast<std::uint64_t>(std::max(free, 0LL))};
		if (numa_node_to_cpus(id, cpus.get()) == 0)
			n.nr_cpus = numa_bitmask_weight(cpus.get());
		nodes.push_back(n);
	}
	return nodes;
}

} // namespace cxltier::internal
