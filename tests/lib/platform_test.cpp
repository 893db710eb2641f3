// SPDX-License-Identifier: GPL-2.0
// The library's real platform sources, libcxl with libdaxctl and libnuma, run on
// the host as they are: a host without CXL is an empty topology, not an error, and
// libnuma's nodes agree with what the kernel shows.  The guest's selftests cover
// them with CXL devices present.
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "platform.hpp"

using namespace cxltier::internal;

namespace {

// Whatever the host has, libcxl answers, with consistent data.
TEST(PlatformLibcxl, ReadsTheHost)
{
	auto topo = read_cxl_libcxl();
	ASSERT_TRUE(topo) << topo.err().msg;
	if (!std::filesystem::exists("/sys/bus/cxl/devices")) {
		EXPECT_TRUE(topo->memdevs.empty() && topo->regions.empty());
	}
	std::set<std::string> memdevs;
	for (const auto &m : topo->memdevs)
		memdevs.insert(m.name);
	for (const auto &r : topo->regions) {
		EXPECT_LE(r.targets.size(), r.interleave_ways) << r.name;
		for (const auto &t : r.targets)
			EXPECT_TRUE(memdevs.count(t)) << r.name << " targets " << t;
	}
}

// libnuma's nodes are in id order; one it does not know of is left out, not an
// error; with NUMA there is a node with CPUs.
TEST(PlatformLibnuma, ReadsTheHost)
{
	auto nodes = read_nodes_libnuma({100000});
	ASSERT_TRUE(nodes) << nodes.err().msg;
	if (!std::filesystem::exists("/sys/devices/system/node/node0"))
		GTEST_SKIP() << "no NUMA on this host";
	ASSERT_FALSE(nodes->empty());
	unsigned int cpus = 0;
	for (std::size_t i = 0; i < nodes->size(); i++) {
		const auto &n = (*nodes)[i];
		EXPECT_NE(n.id, 100000);
		if (i) {
			EXPECT_LT((*nodes)[i - 1].id, n.id);
		}
		EXPECT_LE(n.mem_free, n.mem_total) << "node " << n.id;
		cpus += n.nr_cpus;
	}
	EXPECT_GT(cpus, 0u);
}

} // namespace
