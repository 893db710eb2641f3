// SPDX-License-Identifier: GPL-2.0
// Job placement through the C ABI, against fake module and standard sysfs trees:
// which nodes a plan takes (DRAM, usable tiers) and how much on each, refusals
// that say what is missing where, tiers left out for their blades, interleave
// weights, and the policy applied, seen through fake_mempolicy.c's
// set_mempolicy() (linked into this program, it interposes on libnuma's).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

// One node of a plan, for comparing whole plans.
struct planned {
	int node;
	std::string kind;
	std::string tier;
	std::uint64_t bytes;
	unsigned int weight;
	bool operator==(const planned &) const = default;
};

std::ostream &operator<<(std::ostream &os, const planned &p)
{
	return os << "{node " << p.node << ' ' << p.kind << " '" << p.tier << "' " << p.bytes
		  << " B weight " << p.weight << '}';
}

std::vector<planned> nodes_of(const cxltier_placement *p)
{
	std::vector<planned> out;
	for (size_t i = 0; i < cxltier_placement_get_nr_nodes(p); i++)
		out.push_back({cxltier_placement_get_node(p, i),
			       cxltier_memory_kind_name(cxltier_placement_get_node_kind(p, i)),
			       cxltier_placement_get_node_tier(p, i),
			       cxltier_placement_get_node_bytes(p, i),
			       cxltier_placement_get_node_weight(p, i)});
	return out;
}

std::vector<std::string> skipped_of(const cxltier_placement *p)
{
	std::vector<std::string> out;
	for (size_t i = 0; i < cxltier_placement_get_nr_skipped(p); i++)
		out.push_back(std::to_string(cxltier_placement_get_skipped_node(p, i)) + " " +
			      cxltier_placement_get_skipped_tier(p, i) + ": " +
			      cxltier_placement_get_skipped_reason(p, i));
	return out;
}

// The pool's region0 as a tier on node 2 (1000 MiB free, no bandwidth reported)
// and DRAM on node 0 (2 CPUs, 1 GiB free, 20000 MB/s), as tier_fake_sys.hpp has
// them; set_mempolicy() calls go to a log.
class PlacementTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		sys.add_dram_and_tier();
	}

	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		return ctx;
	}

	cxltier::placement_ptr plan(std::uint64_t fast, std::uint64_t slow,
				    cxltier_placement_policy policy)
	{
		ctx = open();
		int err = 0;
		auto p = cxltier::plan_placement(ctx.get(), fast, slow, policy, err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(ctx.get());
		return p;
	}

	// The refusal's reason, after checking it is @err and leaves no plan.
	std::string refused(std::uint64_t fast, std::uint64_t slow, cxltier_placement_policy policy,
			    int err = -ENOSPC)
	{
		ctx = open();
		cxltier_placement *p = reinterpret_cast<cxltier_placement *>(this);
		EXPECT_EQ(cxltier_placement_plan(ctx.get(), fast, slow, policy, 0, &p), err);
		EXPECT_EQ(p, nullptr);
		return cxltier_get_last_error(ctx.get());
	}

	// A second tier, region1 on node 3 (4 GiB free) behind blade mem4 in @state.
	void add_second_tier(const std::string &state)
	{
		sysfs.add_blade({.name = "mem4", .serial = "0x5", .pci_dev = "0000:11:00.0",
				 .state = state});
		add_tier(sysfs, {.name = "region1", .node = "3", .start = "0x3d0000000",
				 .size = "4294967296", .blades = "mem4"});
		sys.add_node({.id = 3, .mem_total_kib = "4194304", .mem_free_kib = "4194304"});
		sys.set_memory_tier(22, "2-3");
	}

	std::string weight_file(int node)
	{
		return sys.read("kernel/mm/mempolicy/weighted_interleave/node" + std::to_string(node));
	}

	// The set_mempolicy() calls of this process, without their " pid=N".
	std::string policy_log()
	{
		std::string text = slurp(log.path() / "mempolicy");
		std::string mine = " pid=" + std::to_string(::getpid()) + "\n";
		for (auto at = text.find(mine); at != std::string::npos; at = text.find(mine, at))
			text.replace(at, mine.size(), "\n");
		return text;
	}

	fake_sysfs sysfs;
	fake_sys sys;
	temp_dir log;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
	scoped_env policy_env{"CXLTIER_FAKE_MEMPOLICY", (log.path() / "mempolicy").string()};
	scoped_env errno_env{"CXLTIER_FAKE_MEMPOLICY_ERRNO", std::nullopt};
	cxltier::ctx_ptr ctx;
};

// --- preferred ------------------------------------------------------------------

// The fast part goes to DRAM, the slow part to the tier; the policy prefers DRAM
// and lets the rest fall back.
TEST_F(PlacementTest, PreferredFits)
{
	auto p = plan(512 * MiB, 768 * MiB, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	EXPECT_EQ(cxltier_placement_get_policy(p.get()), CXLTIER_PLACEMENT_PREFERRED);
	EXPECT_EQ(cxltier_placement_get_fast_bytes(p.get()), 512 * MiB);
	EXPECT_EQ(cxltier_placement_get_slow_bytes(p.get()), 768 * MiB);
	EXPECT_EQ(cxltier_placement_get_weights(p.get()), CXLTIER_PLACEMENT_WEIGHTS_NONE);
	EXPECT_STREQ(cxltier_placement_get_note(p.get()), "");
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 512 * MiB, 0},
						   planned{2, "cxl", "region0", 768 * MiB, 0}));
	EXPECT_EQ(cxltier_placement_get_node_free(p.get(), 0), GiB);
	EXPECT_EQ(cxltier_placement_get_node_free(p.get(), 1), 1000 * MiB);
	EXPECT_EQ(cxltier_placement_get_node_bandwidth(p.get(), 0), 20000u);
	EXPECT_EQ(cxltier_placement_get_node_bandwidth(p.get(), 1), 0u);
	EXPECT_EQ(cxltier_placement_get_nr_skipped(p.get()), 0u);

	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(policy_log(), "mode=5 nodes=0\n") << "MPOL_PREFERRED_MANY over DRAM";
}

// With no fast part the tiers are preferred, so the job lives on CXL.
TEST_F(PlacementTest, PreferredSlowOnlyPrefersTheTiers)
{
	auto p = plan(0, 256 * MiB, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{2, "cxl", "region0", 256 * MiB, 0}));
	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(policy_log(), "mode=5 nodes=2\n");
}

// Several DRAM nodes share the fast part, the one with the most room first; a
// CPU-less node in DRAM's memory tier is DRAM too.
TEST_F(PlacementTest, PreferredFillsTheNodeWithTheMostRoomFirst)
{
	sys.add_node({.id = 1, .mem_free_kib = "2097152"}); // CPU-less, 2 GiB free
	sys.set_memory_tier(4, "0-1");
	auto p = plan(2560 * MiB, 0, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 512 * MiB, 0},
						   planned{1, "dram", "", 2 * GiB, 0}));
	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0);
	EXPECT_EQ(policy_log(), "mode=5 nodes=0,1\n");
}

// A request that does not fit says how much is missing on which kind of memory
// and what each had free.
TEST_F(PlacementTest, PreferredDoesNotFit)
{
	EXPECT_EQ(refused(2 * GiB, 0, CXLTIER_PLACEMENT_PREFERRED),
		  "cannot place fast 2 GiB: DRAM is 1 GiB short (1 GiB free on node 0)");
	EXPECT_EQ(refused(0, 4 * GiB, CXLTIER_PLACEMENT_PREFERRED),
		  "cannot place slow 4 GiB: CXL is 3.0 GiB short (1000 MiB free on node 2)");
	EXPECT_EQ(refused(2 * GiB, 4 * GiB, CXLTIER_PLACEMENT_PREFERRED),
		  "cannot place fast 2 GiB and slow 4 GiB: DRAM is 1 GiB short (1 GiB free on "
		  "node 0); CXL is 3.0 GiB short (1000 MiB free on node 2)");
	EXPECT_EQ(policy_log(), "") << "nothing applied";
}

// Without tiers there is no CXL to place the slow part on.
TEST_F(PlacementTest, NoTierRegistered)
{
	sysfs.remove("tiers");
	EXPECT_EQ(refused(0, GiB, CXLTIER_PLACEMENT_PREFERRED),
		  "cannot place slow 1 GiB: CXL is 1 GiB short (no tier is registered)");
	EXPECT_EQ(refused(GiB, GiB, CXLTIER_PLACEMENT_INTERLEAVE),
		  "cannot interleave 2 GiB (fast 1 GiB and slow 1 GiB): no tier is registered");
}

// --- tiers that are not usable ---------------------------------------------------

// A tier whose blade is fenced, draining, out of service or unbound gets nothing,
// however much room its node has; the plan and a refusal say why.
TEST_F(PlacementTest, TierWithABladeOutOfServiceIsSkipped)
{
	for (const char *state : {"fenced", "draining", "out-of-service", "offline"}) {
		SCOPED_TRACE(state);
		add_second_tier(state);
		std::string why = std::string("blade mem4 is ") + state;
		auto p = plan(0, 512 * MiB, CXLTIER_PLACEMENT_PREFERRED);
		ASSERT_TRUE(p);
		EXPECT_THAT(nodes_of(p.get()),
			    ElementsAre(planned{2, "cxl", "region0", 512 * MiB, 0}));
		EXPECT_THAT(skipped_of(p.get()), ElementsAre("3 region1: " + why));
		EXPECT_EQ(refused(0, 2 * GiB, CXLTIER_PLACEMENT_PREFERRED),
			  "cannot place slow 2 GiB: CXL is 1.0 GiB short (1000 MiB free on node 2; "
			  "region1 on node 3 skipped: " + why + ")");
	}
	// Back in service, it takes its part.
	add_second_tier("online");
	auto p = plan(0, 2 * GiB, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{2, "cxl", "region0", 0, 0},
						   planned{3, "cxl", "region1", 2 * GiB, 0}));
	EXPECT_EQ(cxltier_placement_get_nr_skipped(p.get()), 0u);
}

// A fenced tier (the module's own word) is skipped whatever its blades say, and
// with no usable tier left the refusal says so.
TEST_F(PlacementTest, FencedTierIsSkipped)
{
	sysfs.write("tiers/region0/state", "fenced");
	EXPECT_EQ(refused(0, 256 * MiB, CXLTIER_PLACEMENT_PREFERRED),
		  "cannot place slow 256 MiB: CXL is 256 MiB short (no usable tier; region0 on "
		  "node 2 skipped: the tier is fenced)");
	EXPECT_EQ(refused(256 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED),
		  "cannot interleave 512 MiB (fast 256 MiB and slow 256 MiB): no usable tier "
		  "(region0 on node 2 skipped: the tier is fenced)");
	// DRAM alone still works.
	auto p = plan(256 * MiB, 0, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	EXPECT_THAT(skipped_of(p.get()), ElementsAre("2 region0: the tier is fenced"));
}

// CPU-less memory that cxltier does not manage (a region onlined by kmem, in a
// slow memory tier) and full nodes take no part.
TEST_F(PlacementTest, ForeignAndFullNodesAreSkipped)
{
	sys.add_node({.id = 1, .mem_free_kib = "0", .cpulist = "2-3"});
	sys.add_node({.id = 5, .mem_free_kib = "4194304"});
	sys.set_memory_tier(4, "0-1");
	sys.set_memory_tier(22, "2,5");
	auto p = plan(256 * MiB, 256 * MiB, CXLTIER_PLACEMENT_INTERLEAVE);
	ASSERT_TRUE(p);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 256 * MiB, 1},
						   planned{2, "cxl", "region0", 256 * MiB, 1}));
	EXPECT_THAT(skipped_of(p.get()),
		    ElementsAre("1 : no free memory", "5 : CPU-less memory that is not a cxltier tier"));

	// The same classification, node by node.
	std::vector<std::string> kinds;
	for (cxltier_node *n : cxltier::nodes(ctx.get()))
		kinds.push_back(std::to_string(cxltier_node_get_id(n)) + " " +
				cxltier_memory_kind_name(cxltier_node_get_kind(n)));
	EXPECT_THAT(kinds, ElementsAre("0 dram", "1 dram", "2 cxl", "5 unknown"));
}

// --- interleave -----------------------------------------------------------------

// Plain interleave spreads the total evenly over DRAM and the tier, whatever the
// two sizes, and leaves the kernel's weights alone.
TEST_F(PlacementTest, InterleaveSpreadsEvenly)
{
	auto p = plan(256 * MiB, 768 * MiB, CXLTIER_PLACEMENT_INTERLEAVE);
	ASSERT_TRUE(p);
	EXPECT_EQ(cxltier_placement_get_weights(p.get()), CXLTIER_PLACEMENT_WEIGHTS_EQUAL);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 512 * MiB, 1},
						   planned{2, "cxl", "region0", 512 * MiB, 1}));
	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(policy_log(), "mode=3 nodes=0,2\n") << "MPOL_INTERLEAVE";
	EXPECT_EQ(weight_file(0), "1\n");
}

// A node without room for its share is left out and the others share the total,
// unless it is the last of its kind: then the refusal names it and the shortfall.
TEST_F(PlacementTest, InterleaveLeavesOutANodeShortOfRoom)
{
	EXPECT_EQ(refused(GiB, GiB, CXLTIER_PLACEMENT_INTERLEAVE),
		  "cannot interleave 2 GiB (fast 1 GiB and slow 1 GiB) over nodes 0,2: node 2 "
		  "(cxl region0) is 24 MiB short of its 1 GiB share (1000 MiB free)");

	sys.add_node({.id = 1, .mem_free_kib = "102400", .cpulist = "2-3"}); // 100 MiB
	auto p = plan(GiB, 512 * MiB, CXLTIER_PLACEMENT_INTERLEAVE);
	ASSERT_TRUE(p);
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 768 * MiB, 1},
						   planned{2, "cxl", "region0", 768 * MiB, 1}));
	EXPECT_THAT(skipped_of(p.get()),
		    ElementsAre("1 : 412 MiB short of its 512 MiB share (100 MiB free)"));
}

// --- weighted interleave --------------------------------------------------------

// Weights follow the nodes' read bandwidths, the shares follow the weights, and
// applying writes the kernel's weights that differ before setting the policy.
TEST_F(PlacementTest, WeightedFromBandwidth)
{
	sys.write("devices/system/node/node2/access0/initiators/read_bandwidth", "10000");
	auto p = plan(512 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	EXPECT_EQ(cxltier_placement_get_weights(p.get()), CXLTIER_PLACEMENT_WEIGHTS_BANDWIDTH);
	EXPECT_STREQ(cxltier_placement_get_note(p.get()), "");
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 512 * MiB, 2},
						   planned{2, "cxl", "region0", 256 * MiB, 1}));
	EXPECT_EQ(cxltier_placement_get_node_bandwidth(p.get(), 1), 10000u);

	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(weight_file(0), "2");
	EXPECT_EQ(weight_file(2), "1\n") << "already right: not written";
	EXPECT_EQ(policy_log(), "mode=6 nodes=0,2\n") << "MPOL_WEIGHTED_INTERLEAVE";
}

// Weights already in the plan's proportions are left as they are: interleave only
// sees the ratios.
TEST_F(PlacementTest, WeightedKeepsProportionalWeights)
{
	sys.write("devices/system/node/node2/access0/initiators/read_bandwidth", "10000");
	sys.write("kernel/mm/mempolicy/weighted_interleave/node0", "4");
	sys.write("kernel/mm/mempolicy/weighted_interleave/node2", "2");
	auto p = plan(512 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0)
		<< cxltier_get_last_error(ctx.get());
	EXPECT_EQ(weight_file(0), "4\n");
	EXPECT_EQ(weight_file(2), "2\n");
	EXPECT_EQ(policy_log(), "mode=6 nodes=0,2\n");
}

// A node that reports no bandwidth cannot be compared: the kernel's weights stay
// (equal by default, an administrator's otherwise) and the plan says so.
TEST_F(PlacementTest, WeightedWithoutBandwidthUsesTheKernelsWeights)
{
	auto p = plan(512 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	EXPECT_EQ(cxltier_placement_get_weights(p.get()), CXLTIER_PLACEMENT_WEIGHTS_KERNEL);
	EXPECT_STREQ(cxltier_placement_get_note(p.get()),
		     "no read bandwidth reported for node 2: equal weights");
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 384 * MiB, 1},
						   planned{2, "cxl", "region0", 384 * MiB, 1}));

	sys.write("kernel/mm/mempolicy/weighted_interleave/node0", "3");
	p = plan(512 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	EXPECT_STREQ(cxltier_placement_get_note(p.get()),
		     "no read bandwidth reported for node 2: the weights the kernel has now");
	EXPECT_THAT(nodes_of(p.get()), ElementsAre(planned{0, "dram", "", 576 * MiB, 3},
						   planned{2, "cxl", "region0", 192 * MiB, 1}));
	ASSERT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), 0);
	EXPECT_EQ(weight_file(0), "3\n");
}

// --- apply's refusals -----------------------------------------------------------

// A kernel without weighted interleave (before 6.9) is told apart from a refusal.
TEST_F(PlacementTest, ApplyWeightedWithoutKernelSupport)
{
	auto p = plan(256 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	sys.remove("kernel/mm/mempolicy/weighted_interleave");
	EXPECT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), -EOPNOTSUPP);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    HasSubstr("this kernel has no weighted interleave"));
	EXPECT_EQ(policy_log(), "");
}

// set_mempolicy() refused (a container's seccomp filter) is an error with a reason.
TEST_F(PlacementTest, ApplyNotPermitted)
{
	auto p = plan(256 * MiB, 0, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(p);
	scoped_env fail("CXLTIER_FAKE_MEMPOLICY_ERRNO", std::to_string(EPERM));
	EXPECT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), -EPERM);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()),
		     "set_mempolicy(MPOL_PREFERRED_MANY, node 0): not permitted here (a seccomp "
		     "filter, such as a container's, forbids it)");
}

// Writing weights needs root; the reason says which weight was wanted.
TEST_F(PlacementTest, ApplyWeightsNeedRoot)
{
	if (::geteuid() == 0)
		GTEST_SKIP() << "root may write a read-only file";
	sys.write("devices/system/node/node2/access0/initiators/read_bandwidth", "10000");
	fs::permissions(sys.root() / "kernel/mm/mempolicy/weighted_interleave/node0",
			fs::perms::owner_read);
	auto p = plan(256 * MiB, 256 * MiB, CXLTIER_PLACEMENT_WEIGHTED);
	ASSERT_TRUE(p);
	EXPECT_EQ(cxltier_placement_apply(ctx.get(), p.get(), 0), -EACCES);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()),
		     "weighted interleave needs weight 2 on node 0 (it has 1); setting interleave "
		     "weights needs root");
}

// --- arguments and names --------------------------------------------------------

// Nothing to place, unknown flags or policy, and missing pointers are refused.
TEST_F(PlacementTest, BadArguments)
{
	EXPECT_THAT(refused(0, 0, CXLTIER_PLACEMENT_PREFERRED, -EINVAL), HasSubstr("nothing to place"));
	EXPECT_THAT(refused(1, 0, static_cast<cxltier_placement_policy>(3), -EINVAL),
		    HasSubstr("unknown policy 3"));
	EXPECT_THAT(refused(UINT64_MAX, 1, CXLTIER_PLACEMENT_PREFERRED, -EINVAL),
		    HasSubstr("more than 2^64"));
	cxltier_placement *p = nullptr;
	EXPECT_EQ(cxltier_placement_plan(ctx.get(), 1, 0, CXLTIER_PLACEMENT_PREFERRED, 1, &p), -EINVAL);
	EXPECT_EQ(cxltier_placement_plan(nullptr, 1, 0, CXLTIER_PLACEMENT_PREFERRED, 0, &p), -EINVAL);
	EXPECT_EQ(cxltier_placement_plan(ctx.get(), 1, 0, CXLTIER_PLACEMENT_PREFERRED, 0, nullptr),
		  -EINVAL);
	EXPECT_EQ(cxltier_placement_apply(ctx.get(), nullptr, 0), -EINVAL);
	auto plan_ok = plan(1, 0, CXLTIER_PLACEMENT_PREFERRED);
	ASSERT_TRUE(plan_ok);
	EXPECT_EQ(cxltier_placement_apply(ctx.get(), plan_ok.get(), 2), -EINVAL);
	EXPECT_EQ(policy_log(), "");
	cxltier_placement_free(nullptr);

	// Past the end.
	EXPECT_EQ(cxltier_placement_get_node(plan_ok.get(), 5), -1);
	EXPECT_EQ(cxltier_placement_get_node_kind(plan_ok.get(), 5), CXLTIER_MEMORY_UNKNOWN);
	EXPECT_STREQ(cxltier_placement_get_node_tier(plan_ok.get(), 5), "");
	EXPECT_EQ(cxltier_placement_get_node_bytes(plan_ok.get(), 5), 0u);
	EXPECT_EQ(cxltier_placement_get_skipped_node(plan_ok.get(), 0), -1);
	EXPECT_STREQ(cxltier_placement_get_skipped_reason(plan_ok.get(), 0), "");
}

// Names go both ways; unknown values read "unknown".
TEST(PlacementNames, RoundTrip)
{
	for (auto policy : {CXLTIER_PLACEMENT_PREFERRED, CXLTIER_PLACEMENT_INTERLEAVE,
			    CXLTIER_PLACEMENT_WEIGHTED}) {
		cxltier_placement_policy back{};
		ASSERT_EQ(cxltier_placement_policy_from_name(cxltier_placement_policy_name(policy),
							     &back),
			  0);
		EXPECT_EQ(back, policy);
	}
	EXPECT_STREQ(cxltier_placement_policy_name(CXLTIER_PLACEMENT_WEIGHTED), "weighted");
	EXPECT_STREQ(cxltier_placement_policy_name(static_cast<cxltier_placement_policy>(9)),
		     "unknown");
	cxltier_placement_policy policy{};
	EXPECT_EQ(cxltier_placement_policy_from_name("bind", &policy), -EINVAL);
	EXPECT_EQ(cxltier_placement_policy_from_name(nullptr, &policy), -EINVAL);
	EXPECT_STREQ(cxltier_memory_kind_name(CXLTIER_MEMORY_DRAM), "dram");
	EXPECT_STREQ(cxltier_memory_kind_name(CXLTIER_MEMORY_CXL), "cxl");
	EXPECT_STREQ(cxltier_memory_kind_name(static_cast<cxltier_memory_kind>(7)), "unknown");
	EXPECT_STREQ(cxltier_placement_weights_name(CXLTIER_PLACEMENT_WEIGHTS_KERNEL), "kernel");
	EXPECT_STREQ(cxltier_placement_weights_name(CXLTIER_PLACEMENT_WEIGHTS_BANDWIDTH),
		     "bandwidth");
}

} // namespace
