// SPDX-License-Identifier: GPL-2.0
// cxltierctl tier ... end to end: the built binary against a fake module tree and
// a fake standard sysfs (CXLTIER_SYS_ROOT, always set here so that nothing can
// write the host's /sys), checked as scripts and people use it.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

// Runs cxltierctl with CXLTIER_SYSFS=@root and CXLTIER_SYS_ROOT=@sys.
run_result run(const std::vector<std::string> &args, const fs::path &root, const fs::path &sys)
{
	return run_cxltierctl(args, {{"CXLTIER_SYSFS", root.string()},
				     {"CXLTIER_SYS_ROOT", sys.string()}});
}

class TierCommandTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		sys.add_dram_and_tier();
	}

	run_result run(const std::vector<std::string> &args)
	{
		return ::run(args, sysfs.root(), sys.root());
	}

	std::string run_ok(const std::vector<std::string> &args)
	{
		run_result r = run(args);
		EXPECT_EQ(r.status, 0) << r.err;
		EXPECT_EQ(r.err, "");
		return r.out;
	}

	json run_json(const std::vector<std::string> &args)
	{
		std::string out = run_ok(args);
		json doc = json::parse(out, nullptr, false);
		EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << out;
		return doc;
	}

	std::string written(const char *file) { return slurp(sysfs.root() / file); }

	// A write to F waits while F.block exists (fake_dev.c).
	env_overrides blocking_env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH}};
	}

	fake_sysfs sysfs;
	fake_sys sys;
};

// --- list -b/-r/-t -----------------------------------------------------------------

// The names of one section of `list -j`.
std::vector<std::string> names_in(const json &doc, const char *section)
{
	std::vector<std::string> v;
	for (const auto &o : doc[section])
		v.push_back(o["name"]);
	return v;
}

// The pool's 4-way region0 (a tier), region1 on mem1 alone (a tier), region2 on
// mem3 alone (not a tier): each filter keeps what relates to what it names, several
// filters keep what relates to all of them.
TEST_F(TierCommandTest, ListFilters)
{
	add_tier(sysfs, {.name = "region1", .node = "3", .start = "0x400000000",
			 .size = "268435456", .blades = "mem1"});
	sysfs.add_cxl_region({.name = "region2", .start = "0x500000000", .size = "268435456",
			      .blades = "mem3"});
	using V = std::vector<std::string>;
	struct {
		std::vector<std::string> args;
		V blades, cxl_regions, tiers;
	} cases[] = {
		{{"-b", "mem1"}, {"mem1"}, {"region0", "region1"}, {"region0", "region1"}},
		{{"-b", "mem3"}, {"mem3"}, {"region0", "region2"}, {"region0"}},
		{{"--blade", "mem1", "--blade", "mem3"}, {"mem1", "mem3"},
		 {"region0", "region1", "region2"}, {"region0", "region1"}},
		{{"-t", "region1"}, {"mem1"}, {"region1"}, {"region1"}},
		{{"-r", "region2"}, {"mem3"}, {"region2"}, {}},
		{{"-r", "region0"}, {"mem0", "mem1", "mem2", "mem3"}, {"region0"}, {"region0"}},
		{{"-b", "mem0", "-t", "region1"}, {}, {}, {}},
		{{"-b", "mem1", "-t", "region1"}, {"mem1"}, {"region1"}, {"region1"}},
	};
	for (const auto &c : cases) {
		std::vector<std::string> args{"list", "-j"};
		args.insert(args.end(), c.args.begin(), c.args.end());
		SCOPED_TRACE(::testing::PrintToString(c.args));
		json doc = run_json(args);
		EXPECT_EQ(names_in(doc, "blades"), c.blades);
		EXPECT_EQ(names_in(doc, "cxl_regions"), c.cxl_regions);
		EXPECT_EQ(names_in(doc, "tiers"), c.tiers);
	}
	// The tables say when a section has nothing left.
	std::string out = run_ok({"list", "-b", "mem0", "-t", "region1"});
	EXPECT_THAT(out, AllOf(HasSubstr("No blades match."), HasSubstr("No CXL regions match."),
			       HasSubstr("No tiers match.")));
	EXPECT_THAT(run_ok({"list", "-t", "region1"}), AllOf(HasSubstr("mem1"), Not(HasSubstr("mem3"))));
}

// A name that names nothing fails in one line and lists nothing.
TEST_F(TierCommandTest, ListFilterOfNothing)
{
	for (auto [args, what] : std::vector<std::pair<std::vector<std::string>, std::string>>{
		     {{"list", "-b", "mem9"}, "no blade mem9"},
		     {{"list", "-r", "region9", "-j"}, "no CXL region region9"},
		     {{"list", "-t", "mem0"}, "no tier mem0"}}) {
		run_result r = run(args);
		EXPECT_EQ(r.status, 1) << what;
		EXPECT_EQ(r.out, "");
		EXPECT_THAT(r.err, StartsWith("cxltierctl: " + what + " (see cxltierctl "));
	}
}

// --- tier list ------------------------------------------------------------------

// The table shows which node is in which memory tier, capacity, free, adistance
// with its source, and the blades in interleave order.
TEST_F(TierCommandTest, ListTable)
{
	std::string out = run_ok({"tier", "list"});
	auto l = lines(out);
	ASSERT_EQ(l.size(), 2u) << out;
	EXPECT_THAT(l[0], AllOf(StartsWith("TIER"), HasSubstr("NODE"), HasSubstr("MEMORY-TIER"),
				HasSubstr("CAPACITY"), HasSubstr("FREE"), HasSubstr("ADISTANCE"),
				HasSubstr("BLADES")));
	EXPECT_THAT(l[1], AllOf(StartsWith("region0"), HasSubstr(" 2 "), HasSubstr("memory_tier22"),
				HasSubstr("1 GiB"), HasSubstr("1000 MiB"), HasSubstr("2880 (default)"),
				HasSubstr("mem0,mem2,mem1,mem3")));
}

// JSON has every field with numbers as numbers.
TEST_F(TierCommandTest, ListJson)
{
	json doc = run_json({"tier", "list", "--json"});
	EXPECT_EQ(doc["abi_version"], 2);
	ASSERT_EQ(doc["tiers"].size(), 1u);
	const json &t = doc["tiers"][0];
	EXPECT_EQ(t["name"], "region0");
	EXPECT_TRUE(t["node"].is_number_integer());
	EXPECT_EQ(t["node"], 2);
	EXPECT_EQ(t["memory_tier"], 22);
	EXPECT_TRUE(t["start"].is_number_unsigned());
	EXPECT_EQ(t["start"], pool_region_start);
	EXPECT_EQ(t["size"], pool_region_size);
	EXPECT_EQ(t["mem_total"], 1ull << 30);
	EXPECT_EQ(t["mem_free"], 1024000ull * 1024);
	EXPECT_EQ(t["adistance"], 2880);
	EXPECT_EQ(t["adistance_source"], "default");
	EXPECT_EQ(t["blades"], json::array({"mem0", "mem2", "mem1", "mem3"}));
	EXPECT_FALSE(doc.contains("blades"));
}

// A tier whose node libnuma does not report shows no memory tier or free memory.
TEST_F(TierCommandTest, ListWithoutNodeFacts)
{
	sys.remove("fake-libnuma/node2");
	json doc = run_json({"tier", "list", "--json"});
	EXPECT_EQ(doc["tiers"][0]["memory_tier"], -1);
	EXPECT_EQ(doc["tiers"][0]["mem_free"], 0);
	std::string row = lines(run_ok({"tier", "list"}))[1];
	EXPECT_THAT(row, AllOf(HasSubstr("  -  "), HasSubstr("1 GiB")));
}

// No tiers is not an error.
TEST_F(TierCommandTest, ListEmpty)
{
	sysfs.remove("tiers");
	EXPECT_EQ(run_ok({"tier", "list"}), "No tiers registered.\n");
	EXPECT_EQ(run_json({"tier", "list", "--json"})["tiers"], json::array());
}

// cxltierctl list has the tiers too, as a third table and a third array.
TEST_F(TierCommandTest, ListAllHasTiers)
{
	std::string out = run_ok({"list"});
	EXPECT_THAT(out, AllOf(HasSubstr("BLADE"), HasSubstr("CXL-REGION"), HasSubstr("TIER"),
			       HasSubstr("memory_tier22")));
	EXPECT_THAT(out, HasSubstr("  tier\n")) << "region0's state";
	json doc = run_json({"list", "--json"});
	EXPECT_EQ(doc["tiers"], run_json({"tier", "list", "--json"})["tiers"]);
	EXPECT_EQ(doc["cxl_regions"][0]["state"], "tier");
}

// --- tier add / remove ------------------------------------------------------------

// add writes the region name, with adistance from --adistance or --tier, and
// reports progress, then the new tier from a fresh snapshot.
TEST_F(TierCommandTest, AddWritesAndReports)
{
	EXPECT_EQ(run_ok({"tier", "add", "region0"}),
		  "registering region0... done: node 2, memory_tier22, 1 GiB (adistance 2880, "
		  "default)\n");
	EXPECT_EQ(written("tier_add"), "region0");
	run_ok({"tier", "add", "region0", "--adistance", "1000"});
	EXPECT_EQ(written("tier_add"), "region0 adistance=1000");
	run_ok({"tier", "add", "region0", "--tier", "22"});
	EXPECT_EQ(written("tier_add"), "region0 adistance=2880");
	// Not (yet) in the tree: just "done".
	EXPECT_EQ(run_ok({"tier", "add", "region5"}), "registering region5... done\n");
}

// With -j, tier add prints the tiers it registered as tier list --json has them, and
// nothing else on stdout; a failure is on stderr only, the others still printed.
TEST_F(TierCommandTest, AddJsonPrintsTheTiers)
{
	json doc = run_json({"tier", "add", "-j", "region0"});
	json list = run_json({"tier", "list", "-j"});
	EXPECT_EQ(doc["tiers"], list["tiers"]);
	EXPECT_EQ(doc["abi_version"], list["abi_version"]);
	ASSERT_EQ(doc["tiers"].size(), 1u);
	EXPECT_EQ(doc["tiers"][0]["name"], "region0");
	EXPECT_EQ(doc["tiers"][0]["node"], 2);
	sysfs.remove("tier_add");
	run_result r = run({"tier", "add", "--json", "region0"});
	EXPECT_EQ(r.status, 1);
	json failed = json::parse(r.out, nullptr, false);
	ASSERT_FALSE(failed.is_discarded()) << r.out;
	EXPECT_EQ(failed["tiers"], json::array());
	EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
}

// Several regions are handled in turn, each reported: what its node had in use
// (region0's node 2: 1 GiB less 1000 MiB free), or only the time for a tier whose
// node is unknown (region1 is not a tier here).
TEST_F(TierCommandTest, RemoveSeveral)
{
	auto l = lines(run_ok({"tier", "remove", "region0", "region1"}));
	ASSERT_EQ(l.size(), 2u);
	EXPECT_THAT(l[0], ContainsRegex("^removed region0: 6144 pages \\(24 MiB\\) moved off in "
					"[0-9.]+ (s|ms|us)$"));
	EXPECT_THAT(l[1], ContainsRegex("^removed region1 in [0-9.]+ (s|ms|us)$"));
	EXPECT_EQ(written("tier_remove"), "region1");
}

// Every region that fails is reported on its own line and the command exits 1;
// the others are still tried.
TEST_F(TierCommandTest, FailuresAreReportedPerRegion)
{
	sysfs.remove("tier_remove");
	fs::create_symlink("/dev/full", sysfs.root() / "tier_remove");
	run_result r = run({"tier", "remove", "region0", "region1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	auto err = lines(r.err);
	ASSERT_EQ(err.size(), 2u) << r.err;
	EXPECT_THAT(err[0], StartsWith("cxltierctl: removing the tier region0 failed: No space left"));
	EXPECT_THAT(err[1], StartsWith("cxltierctl: removing the tier region1 failed: No space left"));
}

// While the write to tier_remove blocks (the kernel moves the node's pages off), a
// line per interval says how many pages are left and how fast they go; then one
// line sums it up.
TEST_F(TierCommandTest, RemoveShowsProgressThenASummary)
{
	sysfs.write("tier_remove.block", "");
	running_cli cli({"tier", "remove", "region0", "--interval", "0.05"}, blocking_env());
	ASSERT_TRUE(wait_for_output(cli, "removing region0: 6144 pages (24 MiB) left, 0 moved"));
	sys.write("fake-libnuma/node2/mem_free_kib", "1040384"); // 8 MiB in use
	ASSERT_TRUE(wait_for_output(cli, "removing region0: 2048 pages (8 MiB) left, 4096 moved"));
	sysfs.remove("tier_remove.block");
	run_result r = cli.wait();
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(written("tier_remove"), "region0");
	auto l = lines(r.out);
	ASSERT_GE(l.size(), 3u) << r.out;
	for (std::size_t i = 0; i + 1 < l.size(); i++)
		EXPECT_THAT(l[i], ContainsRegex("^removing region0: [0-9]+ pages \\(.*\\) left, [0-9]+ "
						"moved, [0-9]+ pages/s$"));
	EXPECT_THAT(l.back(), ContainsRegex("^removed region0: 6144 pages \\(24 MiB\\) moved off in "));
}

// Ctrl-C interrupts the write (the kernel keeps the tier): the command says so,
// exits 1 instead of dying of the signal, and does not go on with the next tier.
TEST_F(TierCommandTest, RemoveInterrupted)
{
	sysfs.write("tier_remove.block", "");
	running_cli cli({"tier", "remove", "region0", "region1", "--interval", "0.05"},
			blocking_env());
	ASSERT_TRUE(wait_for_output(cli, "removing region0: 6144 pages"));
	ASSERT_EQ(::kill(cli.pid(), SIGINT), 0);
	run_result r = cli.wait();
	EXPECT_EQ(cli.signal(), 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: removing region0 was interrupted by a signal; the tier stays "
			 "online, nothing was lost\n");
	EXPECT_EQ(written("tier_remove"), "");	// region1 was not tried
}

// A module without tier support fails add with one line, exit 1.
TEST_F(TierCommandTest, AddWithoutTierSupport)
{
	sysfs.remove("tier_add");
	run_result r = run({"tier", "add", "region0"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "registering region0... failed\n");
	EXPECT_EQ(r.err, "cxltierctl: " + (sysfs.root() / "tier_add").string() +
				 " missing: this cxltier module cannot register tiers\n");
}

// Usage errors exit 2, one line, and nothing is written.
TEST_F(TierCommandTest, UsageErrors)
{
	for (auto args : std::vector<std::vector<std::string>>{
		     {"tier"},
		     {"tier", "add"},
		     {"tier", "add", "region0", "--adistance", "100", "--tier", "2"},
		     {"tier", "add", "region0", "--adistance", "0"},
		     {"tier", "add", "region0", "--adistance", "36865"},
		     {"tier", "add", "region0", "--tier", "288"},
		     {"tier", "add", "region0", "region 1"},
		     {"tier", "add", "region0", "r23456789012345678901234567890123"},
		     {"tier", "remove"},
		     {"tier", "list", "extra"},
		     {"tier", "weights", "--bandwidth", "0"},
		     {"tier", "weights", "--bandwidth", "0=fast"},
		     {"tier", "weights", "--bandwidth", "x=1"},
		     {"tier", "weights", "--bandwidth", "0=0"},
		     {"tier", "weights", "--measure-size", "1K"}}) {
		SCOPED_TRACE(::testing::PrintToString(args));
		run_result r = run(args);
		EXPECT_EQ(r.status, 2);
		EXPECT_EQ(r.out, "");
		EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
	}
	EXPECT_EQ(written("tier_add"), "\n");
	EXPECT_THAT(run({"tier", "add", "a", "--adistance", "1", "--tier", "2"}).err,
		    HasSubstr("excludes"));
}

// --- tier weights -------------------------------------------------------------------

// Bandwidths given by the user are used as they are; weights follow their ratio.
TEST_F(TierCommandTest, WeightsFromUserBandwidth)
{
	json doc = run_json({"tier", "weights", "--json", "--bandwidth", "0=40000", "2=15000"});
	ASSERT_EQ(doc["weights"].size(), 2u);
	const json &dram = doc["weights"][0], &cxl = doc["weights"][1];
	EXPECT_EQ(dram["node"], 0);
	EXPECT_EQ(dram["kind"], "dram");
	EXPECT_TRUE(dram["region"].is_null());
	EXPECT_EQ(dram["memory_tier"], 4);
	EXPECT_EQ(dram["read_bandwidth"], 40000);
	EXPECT_EQ(dram["bandwidth_source"], "user");
	EXPECT_EQ(dram["weight"], 8);
	EXPECT_EQ(dram["current_weight"], 1);
	EXPECT_EQ(cxl["node"], 2);
	EXPECT_EQ(cxl["kind"], "tier");
	EXPECT_EQ(cxl["region"], "region0");
	EXPECT_EQ(cxl["memory_tier"], 22);
	EXPECT_EQ(cxl["weight"], 3);
	EXPECT_EQ(doc["set"], false);
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "1\n") << "not set";
}

// Firmware's figure is used where the user gave none; the table says where each
// number came from.
TEST_F(TierCommandTest, WeightsTableWithReportedBandwidth)
{
	std::string out = run_ok({"tier", "weights", "--bandwidth", "2=5000"});
	auto l = lines(out);
	ASSERT_EQ(l.size(), 4u) << out;
	EXPECT_THAT(l[0], AllOf(HasSubstr("NODE"), HasSubstr("KIND"), HasSubstr("MEMORY-TIER"),
				HasSubstr("READ-BW"), HasSubstr("SOURCE"), HasSubstr("WEIGHT"),
				HasSubstr("CURRENT")));
	EXPECT_THAT(l[1], AllOf(HasSubstr("dram"), HasSubstr("memory_tier4"),
				HasSubstr("20000 MB/s"), HasSubstr("reported"), HasSubstr(" 4 ")));
	EXPECT_THAT(l[2], AllOf(HasSubstr("tier region0"), HasSubstr("memory_tier22"),
				HasSubstr("5000 MB/s"), HasSubstr("user"), HasSubstr(" 1 ")));
	EXPECT_EQ(l[3], "Not set; add --set to write them (needs root).");
}

// --set writes every node's weight to weighted_interleave/node<N>.
TEST_F(TierCommandTest, WeightsSet)
{
	json doc = run_json({"tier", "weights", "--json", "--set", "--bandwidth", "2=10000"});
	EXPECT_EQ(doc["set"], true);
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "2");
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node2"), "1");
	EXPECT_THAT(run_ok({"tier", "weights", "--set", "--bandwidth", "2=20000"}),
		    HasSubstr("Weights set."));
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "1");
}

// Without weighted interleave in the kernel, --set fails in one line after the table.
TEST_F(TierCommandTest, WeightsSetWithoutKernelSupport)
{
	sys.remove("kernel/mm/mempolicy/weighted_interleave");
	run_result r = run({"tier", "weights", "--set", "--bandwidth", "2=10000"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.out, HasSubstr("tier region0"));
	EXPECT_THAT(r.err, AllOf(StartsWith("cxltierctl: this kernel has no weighted interleave"),
				 Not(HasSubstr("\ncxltierctl"))));
}

// A bandwidth for a node without memory is refused; nodes without memory are left out.
TEST_F(TierCommandTest, WeightsOnlyForNodesWithMemory)
{
	sys.add_node({.id = 3, .mem_total_kib = "0", .mem_free_kib = "0", .cpulist = "2"});
	json doc = run_json({"tier", "weights", "--json", "--bandwidth", "2=10000"});
	EXPECT_EQ(doc["weights"].size(), 2u);
	run_result r = run({"tier", "weights", "--bandwidth", "3=10000", "2=1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: --bandwidth 3=10000: node 3 has no memory\n");
}

// With no bandwidth known, cxltierctl measures the node itself (here the host's
// real node 0, bound with mbind) and says so, progress on stdout, or on stderr
// with --json so that the JSON stays clean.
TEST_F(TierCommandTest, WeightsMeasureWhatIsNotKnown)
{
	if (!fs::exists("/sys/devices/system/node/node0"))
		GTEST_SKIP() << "the host has no NUMA node 0 to measure";
	run_result r = run({"tier", "weights", "--measure", "--measure-size", "4M", "--bandwidth",
			    "2=1000"});
	if (r.status == 1 && r.err.find("cannot bind memory") != std::string::npos)
		GTEST_SKIP() << "mbind is not allowed here: " << r.err;
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.out, StartsWith("measuring node 0 (4 MiB, best of 3)... "));
	EXPECT_THAT(r.out, HasSubstr("measured"));

	r = run({"tier", "weights", "--json", "--measure", "--measure-size", "4M", "--bandwidth",
		 "2=1000"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.err, StartsWith("measuring node 0"));
	json doc = json::parse(r.out);
	EXPECT_EQ(doc["weights"][0]["bandwidth_source"], "measured");
	EXPECT_GT(doc["weights"][0]["read_bandwidth"].get<std::uint64_t>(), 0u);
}

// A node with too little free memory is not measured (MPOL_BIND could OOM it).
TEST_F(TierCommandTest, WeightsRefuseToMeasureAFullNode)
{
	sys.add_node({.id = 2, .mem_total_kib = "1048576", .mem_free_kib = "8192"});
	run_result r = run({"tier", "weights", "--bandwidth", "0=1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: node 2 has too little free memory (8 MiB) to measure; give "
			 "its bandwidth with --bandwidth 2=MBps\n");
}

} // namespace
