// SPDX-License-Identifier: GPL-2.0
// libcxltier's tiers through the C ABI, against fake module and standard sysfs
// trees: the tier objects, the NUMA node facts, what tier_add and tier_remove are
// sent, the checks made before anything is sent, and the interleave weights.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <ostream>
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
using ::testing::StartsWith;

namespace {

std::vector<std::string> tier_names(cxltier_ctx *ctx)
{
	std::vector<std::string> out;
	cxltier_tier *t;
	for_each_cxltier_tier(ctx, t)
		out.emplace_back(cxltier_tier_get_name(t));
	return out;
}

std::vector<int> node_ids(cxltier_ctx *ctx)
{
	std::vector<int> out;
	cxltier_node *n;
	for_each_cxltier_node(ctx, n)
		out.push_back(cxltier_node_get_id(n));
	return out;
}

class TierTest : public ::testing::Test {
protected:
	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		return ctx;
	}

	std::string open_fails(int err)
	{
		cxltier_ctx *ctx = nullptr;
		EXPECT_EQ(cxltier_new(&ctx), err) << cxltier_get_last_error(nullptr);
		EXPECT_EQ(ctx, nullptr);
		return cxltier_get_last_error(nullptr);
	}

	std::string written(const char *file) { return slurp(sysfs.root() / file); }

	fake_sysfs sysfs;
	fake_sys sys;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
};

// --- the snapshot ---------------------------------------------------------------

// A registered region is a tier with every attribute as written, its blades in
// interleave position order, and its CXL region reads as being in state "tier".
TEST_F(TierTest, TierHasEveryAttribute)
{
	add_pool4_tier(sysfs);
	sys.add_dram_and_tier();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	ASSERT_THAT(tier_names(ctx.get()), ElementsAre("region0"));

	cxltier_tier *t = cxltier_tier_get_first(ctx.get());
	EXPECT_EQ(cxltier_tier_get_ctx(t), ctx.get());
	EXPECT_STREQ(cxltier_tier_get_name(t), "region0");
	EXPECT_EQ(cxltier_tier_get_node(t), 2);
	EXPECT_EQ(cxltier_tier_get_adistance(t), 2880);
	EXPECT_EQ(cxltier_tier_get_adistance_source(t), CXLTIER_ADISTANCE_SOURCE_DEFAULT);
	EXPECT_EQ(cxltier_tier_get_start(t), pool_region_start);
	EXPECT_EQ(cxltier_tier_get_size(t), pool_region_size);
	std::vector<std::string> blades;
	for (const char *b : cxltier::blades_of(t))
		blades.emplace_back(b);
	EXPECT_THAT(blades, ElementsAre("mem0", "mem2", "mem1", "mem3"));
	EXPECT_EQ(cxltier_tier_get_next(t), nullptr);

	cxltier_cxl_region *r = cxltier_cxl_region_get_by_name(ctx.get(), "region0");
	EXPECT_EQ(cxltier_cxl_region_get_state(r), CXLTIER_CXL_REGION_STATE_TIER);
	EXPECT_EQ(cxltier_cxl_region_get_numa_node(r), 2) << "the tier's node";
}

// A tier whose CXL region the CXL core no longer has (its blade fenced and gone)
// keeps cxltier's facts; its range reads 0 and its blades are those whose tiers
// file names it, in name order.
TEST_F(TierTest, TierWithoutCxlRegionTakesBladesFromTheirTiersFiles)
{
	sysfs.add_pool4();
	sysfs.remove_cxl("regions/region0");
	add_tier(sysfs, {.start = "", .blades = "mem3 mem1"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_tier *t = cxltier_tier_get_by_name(ctx.get(), "region0");
	ASSERT_NE(t, nullptr);
	EXPECT_EQ(cxltier_tier_get_node(t), 2);
	EXPECT_EQ(cxltier_tier_get_start(t), 0u);
	EXPECT_EQ(cxltier_tier_get_size(t), 0u);
	std::vector<std::string> blades;
	for (const char *b : cxltier::blades_of(t))
		blades.emplace_back(b);
	EXPECT_THAT(blades, ElementsAre("mem1", "mem3"));
	EXPECT_EQ(cxltier_cxl_region_get_first(ctx.get()), nullptr);
}

// Tiers come in region number order and are found by name only when they exist.
TEST_F(TierTest, TiersAreInNumericOrderAndFoundByName)
{
	for (const char *name : {"region10", "region2", "region0"})
		add_tier(sysfs, {.name = name});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_THAT(tier_names(ctx.get()), ElementsAre("region0", "region2", "region10"));
	EXPECT_NE(cxltier_tier_get_by_name(ctx.get(), "region2"), nullptr);
	EXPECT_EQ(cxltier_tier_get_by_name(ctx.get(), "region1"), nullptr);
	EXPECT_EQ(cxltier_tier_get_by_name(ctx.get(), nullptr), nullptr);
	EXPECT_EQ(cxltier_tier_get_first(nullptr), nullptr);
	EXPECT_EQ(cxltier_tier_get_next(nullptr), nullptr);
}

// A module without tiers/ (or with none registered) has no tiers, and that is fine.
TEST_F(TierTest, NoTiersDirectoryIsNoTiers)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_get_first(ctx.get()), nullptr);
}

// Every source the ABI names is parsed; one from a newer module reads as unknown.
TEST_F(TierTest, AdistanceSources)
{
	const char *names[] = {"override", "cdat", "platform", "default", "measured-by-magic"};
	const cxltier_adistance_source want[] = {
		CXLTIER_ADISTANCE_SOURCE_OVERRIDE, CXLTIER_ADISTANCE_SOURCE_CDAT,
		CXLTIER_ADISTANCE_SOURCE_PLATFORM, CXLTIER_ADISTANCE_SOURCE_DEFAULT,
		CXLTIER_ADISTANCE_SOURCE_UNKNOWN};
	for (int i = 0; i < 5; i++)
		add_tier(sysfs, {.name = "region" + std::to_string(i), .adistance_source = names[i]});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	int i = 0;
	for (cxltier_tier *t : cxltier::tiers(ctx.get())) {
		EXPECT_EQ(cxltier_tier_get_adistance_source(t), want[i]) << names[i];
		EXPECT_STREQ(cxltier_adistance_source_name(want[i]),
			     i < 4 ? names[i] : "unknown");
		i++;
	}
	EXPECT_EQ(i, 5);
}

struct bad_tier_value {
	const char *file; // relative to the module root or, with sys, to the sys root
	const char *value;
	const char *why;
	bool sys = false;
};

void PrintTo(const bad_tier_value &v, std::ostream *os)
{
	*os << v.file << " = \"" << v.value << "\"";
}

// A malformed tier or node value fails the snapshot with -EBADMSG, naming the
// file and quoting the value, in one line; none reads as 0.
class MalformedTierValueTest : public TierTest,
			       public ::testing::WithParamInterface<bad_tier_value> {};

TEST_P(MalformedTierValueTest, NamesFileAndValue)
{
	const bad_tier_value &p = GetParam();
	add_pool4_tier(sysfs);
	sys.add_dram_and_tier();
	if (p.sys)
		sys.write(p.file, p.value);
	else
		sysfs.write(p.file, p.value);
	std::string why = open_fails(-EBADMSG);
	EXPECT_THAT(why, HasSubstr(((p.sys ? sys.root() : sysfs.root()) / p.file).string() + ": "));
	EXPECT_THAT(why, HasSubstr(p.why));
	EXPECT_EQ(why.find('\n'), std::string::npos) << "one line";
}

INSTANTIATE_TEST_SUITE_P(
	Values, MalformedTierValueTest,
	::testing::Values(
		bad_tier_value{"tiers/region0/node", "two", "expected a decimal number, got \"two\""},
		bad_tier_value{"tiers/region0/node", "-1", "-1 is out of range"},
		bad_tier_value{"tiers/region0/node", "", "got \"\""},
		bad_tier_value{"tiers/region0/adistance", "2880ns", "got \"2880ns\""},
		bad_tier_value{"devices/system/node/node0/access0/initiators/read_bandwidth", "fast",
			       "got \"fast\"", true},
		bad_tier_value{"devices/virtual/memory_tiering/memory_tier22/nodelist", "2,",
			       "expected a list such as 0-3,5, got \"2,\"", true},
		bad_tier_value{"devices/virtual/memory_tiering/memory_tier22/nodelist", "node2",
			       "got \"node2\"", true},
		bad_tier_value{"kernel/mm/mempolicy/weighted_interleave/node0", "256",
			       "256 is out of range [0, 255]", true}),
	[](const ::testing::TestParamInfo<bad_tier_value> &info) {
		std::string file = fs::path(info.param.file).filename().string();
		return file + "_" + std::to_string(info.index);
	});

// A tier directory without one of its files is malformed, not an absent tier.
TEST_F(TierTest, MissingTierFileIsMalformed)
{
	add_pool4_tier(sysfs);
	sysfs.remove("tiers/region0/adistance_source");
	EXPECT_EQ(open_fails(-EBADMSG),
		  (sysfs.root() / "tiers/region0/adistance_source").string() + ": missing");
}

// Nodes come from libnuma in id order with their memory tier (hand-read), memory,
// CPUs, reported bandwidth and weight; entries that are not node<N> are ignored.
TEST_F(TierTest, NodesHaveTheirFacts)
{
	add_pool4_tier(sysfs);
	sys.add_dram_and_tier();
	sys.add_node({.id = 10, .cpulist = "2-3,6,8-9", .weight = ""});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_STREQ(cxltier_get_sys_root(ctx.get()), sys.root().c_str());
	ASSERT_THAT(node_ids(ctx.get()), ElementsAre(0, 2, 10));

	cxltier_node *dram = cxltier_node_get_by_id(ctx.get(), 0);
	EXPECT_EQ(cxltier_node_get_ctx(dram), ctx.get());
	EXPECT_EQ(cxltier_node_get_memory_tier(dram), 4);
	EXPECT_EQ(cxltier_node_get_mem_total(dram), 2ull << 30);
	EXPECT_EQ(cxltier_node_get_mem_free(dram), 1ull << 30);
	EXPECT_EQ(cxltier_node_get_nr_cpus(dram), 2u);
	EXPECT_EQ(cxltier_node_get_read_bandwidth(dram), 20000u);
	EXPECT_EQ(cxltier_node_get_weight(dram), 1u);

	cxltier_node *cxl = cxltier_node_get_by_id(ctx.get(), 2);
	EXPECT_EQ(cxltier_node_get_memory_tier(cxl), 22);
	EXPECT_EQ(cxltier_node_get_mem_total(cxl), 1ull << 30);
	EXPECT_EQ(cxltier_node_get_mem_free(cxl), 1024000ull * 1024);
	EXPECT_EQ(cxltier_node_get_nr_cpus(cxl), 0u);
	EXPECT_EQ(cxltier_node_get_read_bandwidth(cxl), 0u) << "not reported";

	cxltier_node *other = cxltier_node_get_by_id(ctx.get(), 10);
	EXPECT_EQ(cxltier_node_get_memory_tier(other), -1) << "in no memory tier";
	EXPECT_EQ(cxltier_node_get_nr_cpus(other), 5u);
	EXPECT_EQ(cxltier_node_get_weight(other), 0u) << "no weighted interleave file";
	EXPECT_EQ(cxltier_node_get_by_id(ctx.get(), 1), nullptr);
	EXPECT_EQ(cxltier_node_get_by_id(nullptr, 0), nullptr);
}

// Node lists use the kernel's range format: "0-1,3" puts nodes 0, 1 and 3 in a tier.
TEST_F(TierTest, MemoryTierNodeListsWithRanges)
{
	for (int id : {0, 1, 2, 3, 5})
		sys.add_node({.id = id});
	sys.set_memory_tier(4, "0-1,3");
	sys.set_memory_tier(22, "5");
	sys.set_memory_tier(30, ""); // a tier whose last node is going away
	auto ctx = open();
	ASSERT_TRUE(ctx);
	std::vector<int> tiers;
	for (cxltier_node *n : cxltier::nodes(ctx.get()))
		tiers.push_back(cxltier_node_get_memory_tier(n));
	EXPECT_THAT(tiers, ElementsAre(4, 4, -1, 4, 22));
}

// A kernel without NUMA or memory tiering sysfs has no nodes, or nodes in no tier.
TEST_F(TierTest, MissingNumaDirectoriesAreEmpty)
{
	add_pool4_tier(sysfs);
	sys.remove("devices/virtual/memory_tiering");
	sys.add_node({.id = 0});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_node_get_memory_tier(cxltier_node_get_first(ctx.get())), -1);

	sys.remove("fake-libnuma"); // libnuma reports no nodes
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(cxltier_node_get_first(ctx.get()), nullptr);
	EXPECT_EQ(cxltier_tier_get_node(cxltier_tier_get_first(ctx.get())), 2);
}

// An empty CXLTIER_SYS_ROOT means /sys.
TEST_F(TierTest, EmptySysRootMeansSlashSys)
{
	scoped_env empty(CXLTIER_SYS_ENV, "");
	cxltier_ctx *raw = nullptr;
	int err = cxltier_new(&raw);
	cxltier::ctx_ptr ctx(raw);
	ASSERT_EQ(err, 0) << cxltier_get_last_error(nullptr);
	EXPECT_STREQ(cxltier_get_sys_root(ctx.get()), CXLTIER_SYS_ROOT);
}

// A refresh picks up a tier registered since the last one.
TEST_F(TierTest, RefreshSeesNewTier)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_get_first(ctx.get()), nullptr);
	add_tier(sysfs, {});
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_THAT(tier_names(ctx.get()), ElementsAre("region0"));
}

// --- tier_add and tier_remove ------------------------------------------------------

// What the module is sent: the region name, and adistance=N only when one is asked for.
TEST_F(TierTest, AddAndRemoveWriteFormat)
{
	add_pool4_tier(sysfs);
	auto ctx = open();
	ASSERT_TRUE(ctx);

	ASSERT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(written("tier_add"), "region0");
	ASSERT_EQ(cxltier_tier_add(ctx.get(), "region1", 2880), 0);
	EXPECT_EQ(written("tier_add"), "region1 adistance=2880");
	ASSERT_EQ(cxltier_tier_add(ctx.get(), "region1", CXLTIER_ADISTANCE_MAX), 0);
	EXPECT_EQ(written("tier_add"), "region1 adistance=36864");

	ASSERT_EQ(cxltier_tier_remove(ctx.get(), "region0"), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(written("tier_remove"), "region0");
	// The longest name the kernel takes (31 bytes and its NUL) goes through.
	std::string longest(31, 'r');
	ASSERT_EQ(cxltier_tier_remove(ctx.get(), longest.c_str()), 0);
	EXPECT_EQ(written("tier_remove"), longest);
}

struct bad_input {
	const char *test_name;
	const char *region; // nullptr: NULL
	int adistance;
	const char *why;
};

void PrintTo(const bad_input &v, std::ostream *os)
{
	*os << v.test_name;
}

// Bad input is refused with -EINVAL and a reason before anything is written.
class TierBadInputTest : public TierTest, public ::testing::WithParamInterface<bad_input> {};

TEST_P(TierBadInputTest, RefusedBeforeWriting)
{
	const bad_input &p = GetParam();
	add_pool4_tier(sysfs);
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_add(ctx.get(), p.region, p.adistance), -EINVAL);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()), std::string(p.why));
	EXPECT_EQ(written("tier_add"), "\n") << "nothing written";
	if (p.adistance == 0) { // tier_remove checks names the same way
		EXPECT_EQ(cxltier_tier_remove(ctx.get(), p.region), -EINVAL);
		EXPECT_EQ(cxltier_get_last_error(ctx.get()), std::string(p.why));
		EXPECT_EQ(written("tier_remove"), "\n");
	}
}

INSTANTIATE_TEST_SUITE_P(
	Inputs, TierBadInputTest,
	::testing::Values(
		bad_input{"NullName", nullptr, 0, "no CXL region name given (such as region0)"},
		bad_input{"EmptyName", "", 0, "no CXL region name given (such as region0)"},
		bad_input{"NameWithSpace", "region0 adistance=5", 0,
			  "\"region0 adistance=5\" is not a CXL region name: it contains whitespace"},
		bad_input{"NameWithNewline", "region0\n", 0,
			  "\"region0?\" is not a CXL region name: it contains whitespace"},
		bad_input{"NameWithControl", "reg\x1bion0", 0,
			  "\"reg?ion0\" is not a CXL region name: it contains control characters"},
		bad_input{"Name32Bytes", "regionregionregionregionregion01", 0,
			  "\"regionregionregionregionregion01\" is not a CXL region name: longer "
			  "than 31 bytes"},
		bad_input{"NegativeAdistance", "region0", -1,
			  "adistance -1 is out of range (1-36864, or 0 to let the module choose)"},
		bad_input{"AdistanceTooLarge", "region0", 36865,
			  "adistance 36865 is out of range (1-36864, or 0 to let the module choose)"}),
	[](const ::testing::TestParamInfo<bad_input> &info) { return info.param.test_name; });

// A module without tier_add (older than tiers) is told apart from no module at all.
TEST_F(TierTest, MissingTierAddMeansNoTierSupport)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), -EOPNOTSUPP);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  (sysfs.root() / "tier_add").string() +
			  " missing: this cxltier module cannot register tiers");
	EXPECT_EQ(cxltier_tier_remove(ctx.get(), "region0"), -EOPNOTSUPP);

	sysfs.unload();
	EXPECT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), -ENOENT);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("cxltier module not loaded"));
}

// A tier_add that cannot be opened for another reason says so with the file.
TEST_F(TierTest, UnopenableTierAddNamesTheFile)
{
	sysfs.add_pool4();
	fs::create_directories(sysfs.root() / "tier_add");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), -EISDIR);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  (sysfs.root() / "tier_add").string() + ": cannot open: Is a directory");
}

// An error of the write itself (the store method's) goes through the errno
// mapping: one this ABI gives no meaning gets the errno text and a pointer to the
// kernel log.  /dev/full fails every write with ENOSPC.
TEST_F(TierTest, WriteErrorsAreExplained)
{
	if (!fs::exists("/dev/full"))
		GTEST_SKIP() << "no /dev/full";
	add_pool4_tier(sysfs);
	sysfs.remove("tier_add");
	sysfs.remove("tier_remove");
	fs::create_symlink("/dev/full", sysfs.root() / "tier_add");
	fs::create_symlink("/dev/full", sysfs.root() / "tier_remove");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), -ENOSPC);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  std::string("registering region0 as a tier failed: No space left on device "
			      "(the kernel log says why: dmesg | grep cxltier)"));
	EXPECT_EQ(cxltier_tier_remove(ctx.get(), "region0"), -ENOSPC);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    StartsWith("removing the tier region0 failed: No space left on device"));
}

// Without write permission on tier_add (as a normal user on a real host): needs root.
TEST_F(TierTest, ReadOnlyTierAddNeedsRoot)
{
	if (::geteuid() == 0)
		GTEST_SKIP() << "root may write a read-only file";
	add_pool4_tier(sysfs);
	fs::permissions(sysfs.root() / "tier_add", fs::perms::owner_read);
	fs::permissions(sysfs.root() / "tier_remove", fs::perms::owner_read);
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_tier_add(ctx.get(), "region0", 0), -EACCES);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()), "registering region0 as a tier needs root");
	EXPECT_EQ(cxltier_tier_remove(ctx.get(), "region0"), -EACCES);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()), "removing the tier region0 needs root");
}

// --- interleave weights --------------------------------------------------------------

// A weight goes to weighted_interleave/node<N> as a plain number.
TEST_F(TierTest, SetWeightWritesTheNodeFile)
{
	sys.add_dram_and_tier();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	ASSERT_EQ(cxltier_node_set_weight(ctx.get(), 2, 3), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node2"), "3");
	ASSERT_EQ(cxltier_node_set_weight(ctx.get(), 0, 255), 0);
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "255");
}

// Weights and nodes out of range are refused before anything is written.
TEST_F(TierTest, SetWeightRefusesBadInput)
{
	sys.add_dram_and_tier();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_node_set_weight(ctx.get(), 0, 0), -EINVAL);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()), "interleave weight 0 is out of range (1-255)");
	EXPECT_EQ(cxltier_node_set_weight(ctx.get(), 0, 256), -EINVAL);
	EXPECT_EQ(cxltier_node_set_weight(ctx.get(), -1, 1), -EINVAL);
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()), "no NUMA node -1");
	EXPECT_EQ(cxltier_node_set_weight(nullptr, 0, 1), -EINVAL);
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "1\n");
}

// No such node, and a kernel without weighted interleave, are told apart.
TEST_F(TierTest, SetWeightWithoutTheFile)
{
	sys.add_dram_and_tier();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	fs::path dir = sys.root() / "kernel/mm/mempolicy/weighted_interleave";
	EXPECT_EQ(cxltier_node_set_weight(ctx.get(), 7, 1), -ENOENT);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  "no NUMA node 7 (" + (dir / "node7").string() + " missing)");
	sys.remove("kernel/mm/mempolicy/weighted_interleave");
	EXPECT_EQ(cxltier_node_set_weight(ctx.get(), 0, 1), -ENOENT);
	EXPECT_EQ(cxltier_get_last_error(ctx.get()),
		  "this kernel has no weighted interleave (" + dir.string() +
			  " missing; it came with Linux 6.9)");
}

std::vector<unsigned int> weights(std::vector<std::uint64_t> bw)
{
	std::vector<unsigned int> w(bw.size(), 999);
	EXPECT_EQ(cxltier_interleave_weights(bw.size(), bw.data(), w.data()), 0);
	return w;
}

// The weights follow the bandwidth ratios with the smallest integers that match
// them within 2%, the slowest node getting the smallest weight.
TEST(TierWeights, ProportionalToBandwidth)
{
	EXPECT_THAT(weights({20000, 10000}), ElementsAre(2u, 1u));
	EXPECT_THAT(weights({40000, 15000}), ElementsAre(8u, 3u));
	EXPECT_THAT(weights({30000, 10000, 10000}), ElementsAre(3u, 1u, 1u));
	EXPECT_THAT(weights({10000, 30000}), ElementsAre(1u, 3u)) << "order does not matter";
	EXPECT_THAT(weights({38400, 13200}), ElementsAre(20u, 7u)); // 2.909 as 2.857: 1.8% off
	EXPECT_THAT(weights({20000, 10100}), ElementsAre(2u, 1u)) << "1% off is close enough";
}

// One node, and nodes of equal bandwidth, all get weight 1.
TEST(TierWeights, OneNodeAndEqualBandwidths)
{
	EXPECT_THAT(weights({12345}), ElementsAre(1u));
	EXPECT_THAT(weights({5000, 5000, 5000}), ElementsAre(1u, 1u, 1u));
	EXPECT_THAT(weights({1, 1}), ElementsAre(1u, 1u));
}

// An unknown (zero) bandwidth gets weight 0 and does not disturb the others.
TEST(TierWeights, ZeroBandwidthIsUnknown)
{
	EXPECT_THAT(weights({20000, 0, 10000}), ElementsAre(2u, 0u, 1u));
	EXPECT_THAT(weights({0}), ElementsAre(0u));
	EXPECT_THAT(weights({0, 0}), ElementsAre(0u, 0u));
}

// Ratios beyond what a u8 holds are clamped at 255, never wrap.
TEST(TierWeights, ExtremeRatiosAreClamped)
{
	EXPECT_THAT(weights({1000000, 1}), ElementsAre(255u, 1u));
	EXPECT_THAT(weights({255, 1}), ElementsAre(255u, 1u));
	EXPECT_THAT(weights({UINT64_MAX, UINT64_MAX / 3}), ElementsAre(3u, 1u));
	// 300:200:1 cannot fit; the fastest clamps, the middle one keeps its ratio.
	EXPECT_THAT(weights({300, 200, 1}), ElementsAre(255u, 200u, 1u));
}

// No nodes or no arrays is -EINVAL.
TEST(TierWeights, BadArguments)
{
	std::uint64_t bw = 1;
	unsigned int w = 0;
	EXPECT_EQ(cxltier_interleave_weights(0, &bw, &w), -EINVAL);
	EXPECT_EQ(cxltier_interleave_weights(1, nullptr, &w), -EINVAL);
	EXPECT_EQ(cxltier_interleave_weights(1, &bw, nullptr), -EINVAL);
}

// The new region state has its name.
TEST(TierNames, TierStateHasAName)
{
	EXPECT_EQ(CXLTIER_CXL_REGION_STATE_TIER, 5);
	EXPECT_STREQ(cxltier_cxl_region_state_name(CXLTIER_CXL_REGION_STATE_TIER), "tier");
	EXPECT_STREQ(cxltier_adistance_source_name(static_cast<cxltier_adistance_source>(77)),
		     "unknown");
}

} // namespace
