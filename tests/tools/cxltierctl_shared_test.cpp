// SPDX-License-Identifier: GPL-2.0
// cxltierctl pool attach, detach, stat and check, and the shared pools in pool
// list, end to end: the built tool against a fake module tree with a shared pool,
// a fake standard sysfs with the CXL region's dax devices and the module's
// parameters, and tests/lib/fake_dev.c LD_PRELOADed into it (failing the command
// files with the errno a test asks for, and making check answer a repair).
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_fake_sys.hpp"
#include "pool_fake_sys.hpp"
#include "run_cli.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

class SharedCommandTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_two_pools(sysfs);
		add_shared_pool(sysfs, {.pool = {.name = "region5", .blades = "mem2 mem3"}});
		sysfs.write("pool_attach", "");
		sysfs.write("pool_detach", "");
		set_pool_params(sys, "0", "10000");
	}

	env_overrides env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"CXLTIER_DEV", dev.dev().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH}};
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

	std::string run_ok(const std::vector<std::string> &args)
	{
		run_result r = run(args);
		EXPECT_EQ(r.status, 0) << r.err;
		EXPECT_EQ(r.err, "");
		return r.out;
	}

	json run_json(const std::vector<std::string> &args, int status = 0)
	{
		run_result r = run(args);
		EXPECT_EQ(r.status, status) << r.err;
		json doc = json::parse(r.out, nullptr, false);
		EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << r.out;
		return doc;
	}

	// The one line on stderr of a failed command, without its newline.
	static std::string one_error_line(const run_result &r)
	{
		EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
		return r.err.substr(0, r.err.find('\n'));
	}

	void set_check(const std::string &text) const { sysfs.write("pools/region5/check", text); }

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
};

} // namespace

// pool list: SHARED and HOST columns, "shared" and "host" in JSON.
TEST_F(SharedCommandTest, PoolList)
{
	std::string out = run_ok({"pool", "list"});
	EXPECT_THAT(out, HasSubstr("REGIONS  SHARED  HOST  BLADES"));
	EXPECT_THAT(out, HasSubstr("0  no         -  mem0 "));
	EXPECT_THAT(out, HasSubstr("0  yes        2  mem2,mem3 "));
	json doc = run_json({"pool", "list", "--json"});
	ASSERT_EQ(doc["pools"].size(), 3u);
	EXPECT_EQ(doc["pools"][0]["shared"], false);
	EXPECT_EQ(doc["pools"][0]["host"], 0);
	EXPECT_EQ(doc["pools"][2]["name"], "region5");
	EXPECT_EQ(doc["pools"][2]["shared"], true);
	EXPECT_EQ(doc["pools"][2]["host"], 2);
}

// pool stat: the pool, then its hosts and its table as aligned tables, the lease
// left of live hosts from the pool's lease (its device's, 5 s here; the module's
// pool_lease_ms, 10 s, is only what a format here would write).
TEST_F(SharedCommandTest, PoolStat)
{
	std::string out = run_ok({"pool", "stat", "region5"});
	EXPECT_THAT(out, StartsWith("Pool region5 (shared, host id 2)\n"
				    "  state     online\n"
				    "  size      256 MiB, 256 MiB free, 0 regions\n"));
	EXPECT_THAT(out, HasSubstr("  blades    mem2,mem3\n  lease     5.0 s\n"));
	EXPECT_THAT(out, HasSubstr("\nID  STATE    NAME    HEARTBEAT     AGE  LEASE  SELF\n"
				   " 1  live     node-a       4711  120 ms  4.9 s  -\n"
				   " 2  live     node-b        815   20 ms  5.0 s  self\n"
				   " 3  expired  node-c         99  15.0 s      -  -\n"));
	EXPECT_THAT(out, HasSubstr("\nENTRY  NAME  STATE   SIZE  OWNER "));
	EXPECT_THAT(out, HasSubstr("    0  kv    used   4 MiB  root:root"));
	EXPECT_THAT(out, HasSubstr("0640  32768  1,2\n"));
	EXPECT_THAT(out, HasSubstr("0600  32769  -\n"));

	// A pool of this host's pmem has neither table (no such files).
	out = run_ok({"pool", "stat", "region1"});
	EXPECT_THAT(out, StartsWith("Pool region1 (this host's pmem)\n"));
	EXPECT_THAT(out, AllOf(Not(HasSubstr("HEARTBEAT")), Not(HasSubstr("ENTRY")),
			       Not(HasSubstr("lease"))));

	run_result r = run({"pool", "stat", "region9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("no pool region9"));
	EXPECT_EQ(r.out, "");
}

// pool stat --json: the pool's fields, lease_ms, hosts and table with every field.
TEST_F(SharedCommandTest, PoolStatJson)
{
	json doc = run_json({"pool", "stat", "region5", "--json"});
	const json &p = doc["pool"];
	EXPECT_EQ(p["name"], "region5");
	EXPECT_EQ(p["shared"], true);
	EXPECT_EQ(p["host"], 2);
	EXPECT_EQ(p["lease_ms"], 5000);
	ASSERT_EQ(p["hosts"].size(), 3u);
	EXPECT_EQ(p["hosts"][1], json({{"id", 2},
				       {"state", "live"},
				       {"name", "node-b"},
				       {"heartbeat", 815},
				       {"age_ms", 20},
				       {"self", true}}));
	ASSERT_EQ(p["table"].size(), 2u);
	EXPECT_EQ(p["table"][0], json({{"entry", 0},
				       {"state", "used"},
				       {"name", "kv"},
				       {"offset", 2097152},
				       {"length", 4194304},
				       {"uid", 0},
				       {"gid", 0},
				       {"mode", 0640},
				       {"id", 32768},
				       {"hosts", {1, 2}}}));
	EXPECT_EQ(p["table"][1]["hosts"], json::array());
	sys.remove("module");
	doc = run_json({"pool", "stat", "region1", "--json"});
	EXPECT_EQ(doc["pool"]["lease_ms"], nullptr);
	EXPECT_EQ(doc["pool"]["hosts"], json::array());
}

// pool check: exit 0 without problems, 1 with them (each printed), as fsck.
TEST_F(SharedCommandTest, PoolCheck)
{
	set_check("0 problems");
	EXPECT_EQ(run_ok({"pool", "check", "region5"}), "Pool region5: no problems.\n");

	set_check("problem: expired host 3 still holds entry 1\nproblem: entry 4 half updated\n"
		  "2 problems");
	run_result r = run({"pool", "check", "region5"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(r.out, "problem: expired host 3 still holds entry 1\n"
			 "problem: entry 4 half updated\n"
			 "Pool region5: 2 problems (cxltierctl pool check region5 --repair mends what "
			 "it can).\n");

	json doc = run_json({"pool", "check", "region5", "--json"}, 1);
	EXPECT_EQ(doc["check"], json({{"pool", "region5"},
				      {"problems", 2},
				      {"messages", {"expired host 3 still holds entry 1",
						    "entry 4 half updated"}}}));
}

// pool check --repair: writes "repair", shows what was found and what is left;
// exit 0 once nothing is left.
TEST_F(SharedCommandTest, PoolCheckRepair)
{
	set_check("problem: expired host 3 still holds entry 1\nproblem: entry 4 half updated\n"
		  "2 problems");
	sysfs.write("pools/region5/check.reply", "problem: entry 4 half updated\n1 problem");
	run_result r = run({"pool", "check", "region5", "--repair"});
	EXPECT_EQ(r.status, 1) << r.err;
	EXPECT_EQ(r.out, "problem: expired host 3 still holds entry 1\n"
			 "problem: entry 4 half updated\n"
			 "Pool region5: 2 problems found, 1 problem left after repair:\n"
			 "problem: entry 4 half updated\n");

	sysfs.remove("pools/region5/check.reply");
	set_check("problem: entry 4 half updated\n1 problem");
	sysfs.write("pools/region5/check.reply", "0 problems");
	json doc = run_json({"pool", "check", "region5", "--repair", "--json"});
	EXPECT_EQ(doc["check"]["problems"], 0);
	EXPECT_EQ(doc["check"]["repaired"], true);
	EXPECT_EQ(doc["check"]["found"]["problems"], 1);
	EXPECT_EQ(sysfs.read("pools/region5/check"), "0 problems\n");
}

// A check that cannot run says why on stderr in one line, prints nothing, exit 1.
TEST_F(SharedCommandTest, PoolCheckErrors)
{
	run_result r = run({"pool", "check", "region5"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("cannot check pools"));
	EXPECT_EQ(r.out, "");

	set_check("0 problems");
	sysfs.write("pools/region5/check.errno", std::to_string(ENODEV));
	r = run({"pool", "check", "region5", "--repair"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("pool region5 is not online"));
	EXPECT_EQ(r.out, "");

	EXPECT_EQ(run({"pool", "check"}).status, 2);
	EXPECT_EQ(run({"pool", "check", "region9"}).status, 1);
}

// pool attach: the command file gets the region and --host; device_dax lets go
// of the region's dax device first; the module parameter needs an id.
TEST_F(SharedCommandTest, PoolAttach)
{
	add_dax_device(sys, "region7", "dax7.0", "device_dax");
	EXPECT_THAT(run_ok({"pool", "attach", "region7", "--host", "3"}),
		    HasSubstr("Attached region7 as a shared pool"));
	EXPECT_EQ(sysfs.read("pool_attach"), "region7 host=3");
	EXPECT_EQ(sys.read("bus/dax/drivers/device_dax/unbind"), "dax7.0");

	// Once the module shows the pool, its state and the id it used.
	add_pool(sysfs, {.name = "region7", .state = "unformatted", .uuid = "", .format = ""});
	sysfs.write("pools/region7/shared", "1");
	sysfs.write("pools/region7/host", "3");
	EXPECT_THAT(run_ok({"pool", "attach", "region7", "--host", "3"}),
		    AllOf(HasSubstr("Attached region7 as a shared pool (host 3): unformatted."),
			  HasSubstr("cxltierctl pool format region7")));

	run_result r = run({"pool", "attach", "region7"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("no host id for region7"));
	EXPECT_EQ(run({"pool", "attach", "region7", "--host", "64"}).status, 2);
	EXPECT_EQ(run({"pool", "attach"}).status, 2);
}

// pool attach -j prints the pool as pool list --json has it, nothing else.
TEST_F(SharedCommandTest, PoolAttachJson)
{
	add_pool(sysfs, {.name = "region7", .state = "unformatted", .uuid = "", .format = ""});
	sysfs.write("pools/region7/shared", "1");
	sysfs.write("pools/region7/host", "3");
	json doc = json::parse(run_ok({"pool", "attach", "region7", "--host", "3", "-j"}));
	json list = json::parse(run_ok({"pool", "list", "--json"}));
	ASSERT_TRUE(doc.contains("pool")) << doc;
	EXPECT_EQ(doc["pool"]["name"], "region7");
	EXPECT_EQ(doc["pool"]["host"], 3);
	bool listed = false;
	for (const auto &p : list["pools"])
		listed |= p == doc["pool"];
	EXPECT_TRUE(listed) << doc << "\n" << list;
}

// System RAM is refused with the way out; the module's refusals come out in one line.
TEST_F(SharedCommandTest, PoolAttachRefused)
{
	add_dax_device(sys, "region7", "dax7.0", "kmem");
	run_result r = run({"pool", "attach", "region7", "--host", "1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), AllOf(HasSubstr("region7 is System RAM on this host"),
					     HasSubstr("daxctl reconfigure-device")));
	sysfs.write("pool_attach.errno", std::to_string(EEXIST));
	r = run({"pool", "attach", "region5", "--host", "1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("region5 is attached already"));
}

// pool detach: the command file gets the name; a busy pool is refused in one line.
TEST_F(SharedCommandTest, PoolDetach)
{
	EXPECT_THAT(run_ok({"pool", "detach", "region5"}),
		    HasSubstr("Detached shared pool region5 from this host"));
	EXPECT_EQ(sysfs.read("pool_detach"), "region5");
	sysfs.write("pool_detach.errno", std::to_string(EBUSY));
	run_result r = run({"pool", "detach", "region5"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("a region of region5 is open or mapped"));
}

// region list and stat: a region of a shared pool is of kind "shared", with its pool.
TEST_F(SharedCommandTest, SharedRegion)
{
	dev.set_regions({"32768 kv 4194304 0 640 rw persistent=1 shared=1 pool=region5 "
			 "pool_offset=2097152"});
	EXPECT_THAT(run_ok({"region", "list"}), HasSubstr("kv      32768  4 MiB  -       shared  region5"));
	json doc = run_json({"region", "list", "--json"});
	ASSERT_EQ(doc["regions"].size(), 1u);
	EXPECT_EQ(doc["regions"][0]["shared"], true);
	EXPECT_THAT(run_ok({"region", "stat", "kv"}), HasSubstr("pool      region5 at offset 0x200000 (shared"));
}
