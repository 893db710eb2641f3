// SPDX-License-Identifier: GPL-2.0
// cxltier-slurm-gres end to end: the tests' build of it (linked with the tests'
// libcxltier) against fake module and standard sysfs trees with three tiers, two
// usable and one fenced; scontrol a script in PATH that logs its arguments; --watch
// with tests/lib/fake_dev.c LD_PRELOADed, whose event log the test appends to.
#include <signal.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_fake_sys.hpp"
#include "pool_fake_sys.hpp"
#include "run_cli.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

// DRAM on node 0; region0 (the pool's four blades) on node 2, 1 GiB; region1 (blade
// mem4) on node 3, 2 GiB; region2 (blade mem5, fenced) on node 1, 512 MiB.
class GresTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		sysfs.add_blade({.name = "mem4", .serial = "0x5", .pci_dev = "0000:20:00.0"});
		add_tier(sysfs, {.name = "region1",
				 .node = "3",
				 .start = "0x490000000",
				 .size = std::to_string(2 * GiB),
				 .blades = "mem4"});
		sysfs.add_blade({.name = "mem5", .serial = "0x6", .pci_dev = "0000:21:00.0",
				 .state = "fenced"});
		add_tier(sysfs, {.name = "region2",
				 .node = "1",
				 .state = "fenced",
				 .start = "0x590000000",
				 .size = std::to_string(512 * MiB),
				 .blades = "mem5"});
		sys.add_dram_and_tier(); // nodes 0 and 2
		sys.add_node({.id = 3, .mem_total_kib = "2097152", .mem_free_kib = "2097152"});
		sys.add_node({.id = 1, .mem_total_kib = "524288", .mem_free_kib = "524288"});
		write_scontrol("printf '%s\\n' \"$@\" >> " + (bin.path() / "scontrol.log").string());
	}

	env_overrides env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"CXLTIER_DEV", dev.dev().string()},
			{"LD_PRELOAD", std::nullopt},
			{"PATH", bin.path().string() + ":/usr/bin:/bin"}};
	}

	env_overrides env_with_events() const
	{
		env_overrides e = env();
		e.push_back({"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH});
		return e;
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

	void write_scontrol(const std::string &body) const
	{
		fs::path p = bin.path() / "scontrol";
		std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
		fs::permissions(p, fs::perms::owner_all);
	}
	std::vector<std::string> scontrol_args() const
	{
		return lines(slurp(bin.path() / "scontrol.log"));
	}

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
	temp_dir bin;  // the fake scontrol
	temp_dir conf; // --conf's directory
};

const std::string three_gib = std::to_string(3 * GiB);

} // namespace

// The usable tiers' nodes: region0's 1 GiB and region1's 2 GiB, not the fenced one.
TEST_F(GresTest, PrintsTheLine)
{
	run_result r = run({"--node", "n1"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "NodeName=n1 Name=cxlmem Count=" + three_gib + " Flags=CountOnly\n");
	EXPECT_EQ(r.err, "");
}

TEST_F(GresTest, DefaultNodeIsTheShortHostName)
{
	char host[256] = {};
	ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
	std::string name = host;
	run_result r = run({});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "NodeName=" + name.substr(0, name.find('.')) + " Name=cxlmem Count=" +
				 three_gib + " Flags=CountOnly\n");
}

TEST_F(GresTest, Json)
{
	run_result r = run({"--node", "n1", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	json doc = json::parse(r.out);
	EXPECT_EQ(doc["node_name"], "n1");
	EXPECT_EQ(doc["gres"], "cxlmem");
	EXPECT_EQ(doc["count"], 3 * GiB);
	EXPECT_EQ(doc["module"], true);
	EXPECT_EQ(doc["line"], "NodeName=n1 Name=cxlmem Count=" + three_gib + " Flags=CountOnly");
	ASSERT_EQ(doc["tiers"].size(), 3u);
	EXPECT_EQ(doc["tiers"][0], json::parse(R"({"tier": "region0", "node": 2, "bytes": 1073741824,
		"usable": true, "reason": null})"));
	EXPECT_EQ(doc["tiers"][1]["bytes"], 2 * GiB);
	EXPECT_EQ(doc["tiers"][2], json::parse(R"({"tier": "region2", "node": 1, "bytes": 536870912,
		"usable": false, "reason": "the tier is fenced"})"));
	EXPECT_EQ(doc["shared_pools"], json::array());
}

// A shared pool attached here: what slurm.conf needs for it, after the line (and in
// the JSON); this host's own pmem pools are not reported, a pool not online gets no
// license.
TEST_F(GresTest, SharedPools)
{
	add_pool(sysfs, {.name = "region5"});
	add_shared_pool(sysfs, {.pool = {.name = "region6", .size = "266338304", .free = "100000000"}});
	add_shared_pool(sysfs, {.pool = {.name = "region7", .state = "lost", .uuid = ""}});
	run_result r = run({"--node", "n1"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "NodeName=n1 Name=cxlmem Count=" + three_gib + " Flags=CountOnly\n"
			 "# shared pool region6 (uuid 3f6c1d9e-2b7a-4c1e-9a53-0d2e8f41b6a7): "
			 "slurm.conf Licenses=cxlpool:254, and Features=cxlpool for this node\n"
			 "# shared pool region7 is lost: no license for it\n");

	r = run({"--node", "n1", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	json doc = json::parse(r.out);
	ASSERT_EQ(doc["shared_pools"].size(), 2u);
	EXPECT_EQ(doc["shared_pools"][0], json::parse(R"({"pool": "region6", "state": "online",
		"uuid": "3f6c1d9e-2b7a-4c1e-9a53-0d2e8f41b6a7", "bytes": 266338304, "free": 100000000,
		"license": "cxlpool:254"})"));
	EXPECT_EQ(doc["shared_pools"][1]["license"], nullptr);

	// The file gres.conf reads has the line alone.
	fs::path f = conf.path() / "cxlmem.conf";
	ASSERT_EQ(run({"--node", "n1", "--conf", f.string()}).status, 0);
	EXPECT_EQ(lines(slurp(f)).back(), "NodeName=n1 Name=cxlmem Count=" + three_gib + " Flags=CountOnly");
	EXPECT_EQ(slurp(f).find("cxlpool"), std::string::npos);
}

// A blade out of service takes its tier out, as the planner does.
TEST_F(GresTest, BladeNotOnline)
{
	sysfs.write("blades/mem4/state", "draining");
	run_result r = run({"--node", "n1", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	json doc = json::parse(r.out);
	EXPECT_EQ(doc["count"], GiB);
	EXPECT_EQ(doc["tiers"][1]["reason"], "blade mem4 is draining");
}

// A node without cxltier offers none: 0, a warning, success.
TEST_F(GresTest, NoModule)
{
	sysfs.unload();
	run_result r = run({"--node", "n1"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "NodeName=n1 Name=cxlmem Count=0 Flags=CountOnly\n");
	EXPECT_THAT(r.err, HasSubstr("warning: this node has no cxltier module"));
}

TEST_F(GresTest, WritesTheConfFile)
{
	fs::path f = conf.path() / "cxlmem.conf";
	std::ofstream(f) << "old\n";
	run_result r = run({"--node", "n1", "--conf", f.string()});
	ASSERT_EQ(r.status, 0) << r.err;
	auto l = lines(slurp(f));
	ASSERT_EQ(l.size(), 3u);
	EXPECT_THAT(l[0], StartsWith("# Generated by cxltier-slurm-gres"));
	EXPECT_THAT(l[1], StartsWith("# "));
	EXPECT_EQ(l[2], "NodeName=n1 Name=cxlmem Count=" + three_gib + " Flags=CountOnly");
	EXPECT_FALSE(fs::exists(f.string() + ".tmp"));

	r = run({"--node", "n1", "--conf", (conf.path() / "missing/cxlmem.conf").string()});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, HasSubstr("cannot write"));
}

TEST_F(GresTest, UpdatesSlurm)
{
	run_result r = run({"--node", "n1", "--update"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(scontrol_args(), ElementsAre("update", "NodeName=n1", "Gres=cxlmem:" + three_gib));
}

TEST_F(GresTest, AFailingScontrolIsAnError)
{
	write_scontrol("echo 'slurm_update error: Invalid node name specified' >&2; exit 1");
	run_result r = run({"--node", "n9", "--update"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, HasSubstr("scontrol update NodeName=n9 Gres=cxlmem:" + three_gib +
				     " failed: exit status 1: slurm_update error: Invalid node name "
				     "specified"));
}

TEST_F(GresTest, Usage)
{
	EXPECT_EQ(run({"--node", "a b"}).status, 1);
	EXPECT_EQ(run({"--bogus"}).status, 2);
	run_result r = run({"--help"});
	EXPECT_EQ(r.status, 0);
	for (const char *opt : {"--node", "--conf", "--update", "--watch", "--interval", "--json"})
		EXPECT_THAT(r.out, HasSubstr(opt));
}

// A fence in the event log: updated at once (the tiers' state changes with it).
TEST_F(GresTest, WatchFollowsTheEventLog)
{
	running_cli cli({"--node", "n1", "--update", "--watch", "--interval", "3600"},
			env_with_events());
	ASSERT_TRUE(wait_for_output(cli, "Count=" + three_gib + " Flags=CountOnly\n"));
	sysfs.write("blades/mem4/state", "fenced");
	sysfs.write("tiers/region1/state", "fenced");
	dev.add_event("1 1767225600000000000 1 1 mem4 0 - 0 0 0 0");
	EXPECT_TRUE(wait_for_output(cli, "Count=" + std::to_string(GiB) + " Flags=CountOnly\n"));
	::kill(cli.pid(), SIGTERM);
	run_result r = cli.wait();
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.err, HasSubstr("blade mem4 fenced: cxlmem Count=" + std::to_string(GiB)));
	EXPECT_THAT(scontrol_args(), ElementsAre("update", "NodeName=n1", "Gres=cxlmem:" + three_gib,
						 "update", "NodeName=n1",
						 "Gres=cxlmem:" + std::to_string(GiB)));
}

// What the log does not report (a drain started, a tier added) is looked for every
// --interval; without an event log (the device is a plain file here, without
// fake_dev.c's ioctl) that is all there is.
TEST_F(GresTest, WatchLooksEveryInterval)
{
	running_cli cli({"--node", "n1", "--watch", "--interval", "1"}, env());
	ASSERT_TRUE(wait_for_output(cli, "Count=" + three_gib + " Flags=CountOnly\n"));
	sysfs.write("blades/mem4/state", "draining");
	EXPECT_TRUE(wait_for_output(cli, "Count=" + std::to_string(GiB) + " Flags=CountOnly\n"));
	::kill(cli.pid(), SIGINT);
	run_result r = cli.wait();
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.err, HasSubstr("note: "));
	EXPECT_EQ(lines(r.out).size(), 2u) << r.out;
}
