// SPDX-License-Identifier: GPL-2.0
// Fakes for the tier tests: tiers/<region>/ in a fake module tree (fake_sysfs.hpp),
// and a fake standard sysfs root (CXLTIER_SYS_ROOT) with NUMA nodes (for the fake
// libnuma of fake_platform.cpp), memory tiers, reported bandwidths and
// weighted-interleave weights.  Tests must always point CXLTIER_SYS_ROOT at one
// of these: `tier weights --set` run as root would otherwise write the host's /sys.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

#include "fake_sysfs.hpp"

namespace cxltier_test {

// Defaults are the pool's interleaved region0 registered with no performance
// data: node 2, kmem's default adistance (5 x 576), memory_tier22.  start, size
// and blades are the CXL region's (libcxl's); with an empty start there is none
// (the CXL core removed it).
struct tier_spec {
	std::string name = "region0";
	std::string node = "2";
	std::string adistance = "2880";
	std::string adistance_source = "default";
	std::string state = "online";
	std::string start = "0x390000000";
	std::string size = "1073741824";
	std::string blades = "mem0 mem2 mem1 mem3";
};

// tiers/<region>/, the committed CXL region under it, and the region in the tiers
// file of each of its blades that exists.
inline void add_tier(const fake_sysfs &sysfs, const tier_spec &t)
{
	fs::path d = fs::path("tiers") / t.name;
	sysfs.write(d / "node", t.node);
	sysfs.write(d / "adistance", t.adistance);
	sysfs.write(d / "adistance_source", t.adistance_source);
	sysfs.write(d / "state", t.state);
	if (!t.start.empty()) {
		std::size_t ways = 0;
		for (std::size_t i = 0; i < t.blades.size(); i++)
			ways += t.blades[i] != ' ' && (i == 0 || t.blades[i - 1] == ' ');
		sysfs.add_cxl_region({.name = t.name,
				      .start = t.start,
				      .size = t.size,
				      .interleave_ways = std::to_string(ways),
				      .blades = t.blades,
				      .state = "committed"});
	}
	std::size_t pos = 0;
	while (pos < t.blades.size()) {
		std::size_t end = t.blades.find(' ', pos);
		std::string b = t.blades.substr(pos, end - pos);
		pos = end == std::string::npos ? t.blades.size() : end + 1;
		fs::path tiers = fs::path("blades") / b / "tiers";
		if (b.empty() || !fs::exists(sysfs.root() / tiers))
			continue;
		std::string now = sysfs.read(tiers);
		while (!now.empty() && now.back() == '\n')
			now.pop_back();
		sysfs.write(tiers, now.empty() ? t.name : now + " " + t.name);
	}
}

// The pool with region0 registered as a tier, as the module shows it afterwards:
// the region committed, with no dax device, its blades listing the tier.
inline void add_pool4_tier(const fake_sysfs &sysfs)
{
	sysfs.add_pool4();
	add_tier(sysfs, {});
	sysfs.write("tier_add", "");
	sysfs.write("tier_remove", "");
}

struct node_spec {
	int id;
	std::string mem_total_kib = "2097152";
	std::string mem_free_kib = "1048576";
	std::string cpulist{};		   // empty: CPU-less
	std::string read_bandwidth{};	   // empty: not reported (no access0/)
	std::string weight = "1";	   // empty: no weighted_interleave/node<N>
};

class fake_sys : public fake_tree {
public:
	fake_sys() : fake_tree("sys")
	{
		fs::create_directories(root() / "devices/system/node/power");
		fs::create_directories(root() / "fake-libnuma");
		fs::create_directories(root() / "devices/virtual/memory_tiering/power");
		fs::create_directories(root() / "kernel/mm/mempolicy/weighted_interleave");
		write("devices/system/node/possible", "0-3");
	}

	void add_node(const node_spec &n) const
	{
		std::string id = std::to_string(n.id);
		fs::path d = fs::path("devices/system/node") / ("node" + id);
		fs::create_directories(root() / d);
		// What libnuma would report (fake_platform.cpp).
		fs::path f = fs::path("fake-libnuma") / ("node" + id);
		write(f / "mem_total_kib", n.mem_total_kib);
		write(f / "mem_free_kib", n.mem_free_kib);
		write(f / "cpulist", n.cpulist);
		if (!n.read_bandwidth.empty())
			write(d / "access0/initiators/read_bandwidth", n.read_bandwidth);
		if (!n.weight.empty())
			write(fs::path("kernel/mm/mempolicy/weighted_interleave") / ("node" + id), n.weight);
	}

	void set_memory_tier(int tier, std::string_view nodelist) const
	{
		write(fs::path("devices/virtual/memory_tiering") / ("memory_tier" + std::to_string(tier)) /
			      "nodelist",
		      nodelist);
	}

	// DRAM on node 0 (two CPUs, 20 GB/s reported, memory_tier4) and the pool's
	// region0 as a tier on node 2 (1 GiB, 1000 MiB free, memory_tier22).
	void add_dram_and_tier() const
	{
		add_node({.id = 0, .cpulist = "0-1", .read_bandwidth = "20000"});
		add_node({.id = 2, .mem_total_kib = "1048576", .mem_free_kib = "1024000"});
		set_memory_tier(4, "0");
		set_memory_tier(22, "2");
	}
};

} // namespace cxltier_test
