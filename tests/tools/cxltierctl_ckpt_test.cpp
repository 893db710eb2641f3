// SPDX-License-Identifier: GPL-2.0
// cxltierctl pool, region create --persistent and checkpoint, end to end: the built
// tool against fake pools in a fake module tree and the fake /dev/cxltier of
// tests/lib/fake_dev.c (LD_PRELOADed into it).  The test makes its checkpoints
// itself through the tests' libcxltier with the same fake linked in, so the tool
// reads stores the library really wrote, then damages them as a failing device
// would.
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"
#include "pool_fake_sys.hpp"
#include "run_cli.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

class CkptCommandTest : public ::testing::Test {
protected:
	void SetUp() override { add_two_pools(sysfs); }

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

	// The line of @text that starts with @prefix, "" if none.
	static std::string line_of(const std::string &text, const std::string &prefix)
	{
		std::size_t pos = 0;
		while (pos < text.size()) {
			std::size_t nl = text.find('\n', pos);
			std::string l = text.substr(pos, nl - pos);
			if (l.starts_with(prefix))
				return l;
			pos = nl == std::string::npos ? text.size() : nl + 1;
		}
		return "";
	}

	static std::string one_error_line(const run_result &r)
	{
		EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
		return r.err.substr(0, r.err.find('\n'));
	}

	// A checkpoint made by the library in this process, with @gens generations
	// committed; the last one's data is @last.
	void make_ckpt(const char *name, unsigned int copies, int gens, std::string last = "state")
	{
		scoped_env e1{CXLTIER_SYSFS_ENV, sysfs.root().string()};
		scoped_env e2{CXLTIER_SYS_ENV, sys.root().string()};
		scoped_env e3{CXLTIER_DEV_ENV, dev.dev().string()};
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		ASSERT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		cxltier_ckpt_params *p = nullptr;
		ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
		ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, 1 << 20), 0);
		ASSERT_EQ(cxltier_ckpt_params_set_copies(p, copies), 0);
		cxltier_ckpt *ck = nullptr;
		ASSERT_EQ(cxltier_ckpt_create(ctx.get(), name, p, &ck), 0)
			<< cxltier_get_last_error(ctx.get());
		cxltier_ckpt_params_free(p);
		for (int g = 1; g <= gens; g++) {
			std::string data = g == gens ? last : "generation " + std::to_string(g);
			void *staging = nullptr;
			ASSERT_EQ(cxltier_ckpt_begin(ck, data.size(), &staging), 0);
			std::memcpy(staging, data.data(), data.size());
			ASSERT_EQ(cxltier_ckpt_commit(ck, nullptr), 0);
		}
		cxltier_ckpt_close(ck);
	}

	// Flips a byte of the newest generation's data in region @name (slot @slot).
	void damage(const std::string &name, int slot)
	{
		std::string regions = slurp(dev.dev().parent_path() / "regions");
		auto at = regions.find(" " + name + " ");
		ASSERT_NE(at, std::string::npos);
		auto line = regions.rfind('\n', at);
		std::string id = regions.substr(line == std::string::npos ? 0 : line + 1);
		id = id.substr(0, id.find(' '));
		std::fstream f(dev.dev().parent_path() / ("region." + id + ".data"),
			       std::ios::in | std::ios::out | std::ios::binary);
		// Capacity 1 MiB: slot k's data at 4096 + k * (4096 + 1 MiB) + 4096.
		std::streamoff off = 4096 + slot * (4096 + (1 << 20)) + 4096;
		f.seekp(off);
		f.write("X", 1);
	}

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
};

} // namespace

// --- pools --------------------------------------------------------------------------

// pool list: one row per pool with readable sizes; JSON with every field.
TEST_F(CkptCommandTest, PoolList)
{
	add_pool(sysfs, {.name = "region3", .state = "unformatted", .free = "0", .blades = "mem2",
			 .uuid = "", .format = ""});
	std::string out = run_ok({"pool", "list"});
	EXPECT_THAT(out, StartsWith("POOL     STATE"));
	EXPECT_THAT(out, HasSubstr("region1  online       256 MiB  190.7 MiB"));
	EXPECT_THAT(out, HasSubstr("region3  unformatted  256 MiB        0 B"));
	json doc = run_json({"pool", "list", "--json"});
	ASSERT_EQ(doc["pools"].size(), 3u);
	const json &p = doc["pools"][1];
	EXPECT_EQ(p["name"], "region2");
	EXPECT_EQ(p["state"], "online");
	EXPECT_EQ(p["size"], 268435456);
	EXPECT_EQ(p["free"], 268435456);
	EXPECT_EQ(p["regions"], 0);
	EXPECT_EQ(p["blades"], json::array({"mem1"}));
	EXPECT_EQ(p["uuid"], "9d0b7a55-61c2-4f0e-8e4b-51a7c2d9e013");
	EXPECT_EQ(p["format"], "1.0");
	EXPECT_EQ(p["error"], "");
}

// pool format writes the command file; a pool that is there needs --force, and the
// refusal says so in one line.
TEST_F(CkptCommandTest, PoolFormat)
{
	EXPECT_THAT(run_ok({"pool", "format", "region1"}), HasSubstr("Formatted region1"));
	EXPECT_EQ(sysfs.read("pool_format"), "region1");
	run_ok({"pool", "format", "region1", "--force"});
	EXPECT_EQ(sysfs.read("pool_format"), "region1 force");
	sysfs.write("pool_format.errno", std::to_string(EEXIST));
	run_result r = run({"pool", "format", "region1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("cxltierctl pool format region1 --force"));
	EXPECT_EQ(run({"pool", "format"}).status, 2);
}

// --- persistent regions ---------------------------------------------------------------

// region create --persistent goes to the pool asked for; region list and stat show
// the kind and the pool, and a lost region as lost.
TEST_F(CkptCommandTest, PersistentRegion)
{
	EXPECT_THAT(run_ok({"region", "create", "p", "1M", "--persistent", "--pool", "region1"}),
		    HasSubstr("Created persistent region p (id 1, 1 MiB, on pool region1, mode 0600)"));
	run_ok({"region", "create", "v", "1M"});
	std::string out = run_ok({"region", "list"});
	EXPECT_THAT(out, HasSubstr("KIND"));
	EXPECT_THAT(out, AllOf(HasSubstr("persistent  region1"), HasSubstr("fast-first  volatile    -")));
	json doc = run_json({"region", "list", "--json"});
	ASSERT_EQ(doc["regions"].size(), 2u);
	EXPECT_EQ(doc["regions"][0]["persistent"], true);
	EXPECT_EQ(doc["regions"][0]["lost"], false);
	EXPECT_EQ(doc["regions"][0]["pool"], "region1");
	EXPECT_GT(doc["regions"][0]["pool_offset"].get<std::uint64_t>(), 0u);
	EXPECT_EQ(doc["regions"][1]["persistent"], false);
	EXPECT_THAT(run_ok({"region", "stat", "p"}), HasSubstr("pool      region1 at offset"));

	std::string regions = slurp(dev.dev().parent_path() / "regions");
	regions.insert(regions.find('\n'), " lost=1");
	std::ofstream(dev.dev().parent_path() / "regions", std::ios::trunc) << regions;
	EXPECT_THAT(run_ok({"region", "list"}), HasSubstr("lost      region1"));
	EXPECT_THAT(run_ok({"region", "stat", "p"}), HasSubstr("its pool's device failed"));
}

// region create -j prints the region it made as region stat --json has it, and
// nothing else; a refusal prints nothing on stdout.
TEST_F(CkptCommandTest, CreateJsonPrintsTheRegion)
{
	json made = run_json({"region", "create", "v", "2M", "-j", "--policy", "slow-only"});
	json stat = run_json({"region", "stat", "v", "--json"});
	EXPECT_EQ(made, stat);
	EXPECT_EQ(made["region"]["name"], "v");
	EXPECT_EQ(made["region"]["size"], 2u << 20);
	EXPECT_EQ(made["region"]["policy"], "slow-only");
	json p = run_json({"region", "create", "p", "1M", "--persistent", "--pool", "region1", "--json"});
	EXPECT_EQ(p["region"]["persistent"], true);
	EXPECT_EQ(p["region"]["pool"], "region1");
	run_result r = run({"region", "create", "v", "1M", "-j"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
}

// --pool needs --persistent; a persistent region takes no policy or nodes; the
// module's refusal names the pool.
TEST_F(CkptCommandTest, PersistentRegionUsage)
{
	EXPECT_EQ(run({"region", "create", "p", "1M", "--pool", "region1"}).status, 2);
	EXPECT_EQ(run({"region", "create", "p", "1M", "--persistent", "--policy", "slow-only"}).status, 2);
	EXPECT_EQ(run({"region", "create", "p", "1M", "--persistent", "--nodes", "1"}).status, 2);
	run_result r = run({"region", "create", "p", "1M", "--persistent", "--pool", "region9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("no pool region9 online"));
}

// --- checkpoints ----------------------------------------------------------------------

// checkpoint list: one row per checkpoint with its newest generation, size, time,
// copies and pools; an empty checkpoint shows dashes; JSON has every field.
TEST_F(CkptCommandTest, CheckpointList)
{
	make_ckpt("job", 2, 3, "twelve bytes");
	make_ckpt("fresh", 1, 0);
	std::string out = run_ok({"checkpoint", "list"});
	EXPECT_THAT(out, StartsWith("CHECKPOINT  GENERATION  SIZE  CAPACITY  COMMITTED (UTC)"));
	EXPECT_THAT(out, HasSubstr("fresh                -     -     1 MiB  -  "));
	EXPECT_THAT(line_of(out, "fresh"), HasSubstr("  stale   region2"));
	EXPECT_THAT(out, AllOf(HasSubstr("job                  3  12 B     1 MiB  20"),
			       HasSubstr("ok,ok   region2,region1")));
	json doc = run_json({"checkpoint", "list", "--json"});
	ASSERT_EQ(doc["checkpoints"].size(), 2u);
	const json &job = doc["checkpoints"][1];
	EXPECT_EQ(job["name"], "job");
	EXPECT_EQ(job["capacity"], 1 << 20);
	EXPECT_EQ(job["generation"], 3);
	EXPECT_EQ(job["size"], 12);
	EXPECT_GT(job["time_ns"].get<std::uint64_t>(), 1600000000ull * 1000000000ull);
	EXPECT_EQ(job["error"], "");
	ASSERT_EQ(job["copies"].size(), 2u);
	EXPECT_EQ(job["copies"][1], json({{"copy", 1},
					  {"region", "job@1"},
					  {"pool", "region1"},
					  {"state", "ok"},
					  {"generation", 3},
					  {"message", ""}}));
	EXPECT_EQ(doc["checkpoints"][0]["generation"], 0);
	EXPECT_EQ(doc["checkpoints"][0]["copies"][0]["state"], "stale");
	EXPECT_EQ(run_ok({"checkpoint", "list", "job"}).find("fresh"), std::string::npos);
}

// checkpoint verify reads every copy's data: a damaged copy is shown bad, the
// reason goes to stderr and the exit status is 1; list (records only) does not see
// it.  A healthy checkpoint verifies with status 0.
TEST_F(CkptCommandTest, CheckpointVerify)
{
	make_ckpt("job", 2, 1);
	make_ckpt("other", 1, 2);
	EXPECT_THAT(run_ok({"checkpoint", "verify"}), HasSubstr("ok,ok"));
	damage("job@1", 0);
	EXPECT_THAT(run_ok({"checkpoint", "list", "job"}), HasSubstr("ok,ok"));
	run_result r = run({"checkpoint", "verify"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.out, AllOf(HasSubstr("ok,bad"), HasSubstr("other")));
	EXPECT_THAT(one_error_line(r), AllOf(HasSubstr("checkpoint 'job' copy 1 bad: slot 0 "
						       "(generation 1): data checksum"),
					     HasSubstr("read from copy 0")));
	json doc = run_json({"checkpoint", "verify", "job", "--json"}, 1);
	EXPECT_EQ(doc["checkpoints"][0]["copies"][1]["state"], "bad");
	EXPECT_THAT(doc["checkpoints"][0]["copies"][1]["message"].get<std::string>(),
		    HasSubstr("data checksum"));
	EXPECT_EQ(run({"checkpoint", "verify", "other"}).status, 0);
}

// A missing copy is a problem verify reports; a checkpoint that does not exist is
// an error for list and verify alike.
TEST_F(CkptCommandTest, CheckpointMissingCopyAndNoCheckpoint)
{
	make_ckpt("job", 2, 2);
	run_ok({"region", "destroy", "job@0"});
	run_result r = run({"checkpoint", "verify", "job"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.out, HasSubstr("missing,ok"));
	EXPECT_THAT(one_error_line(r), HasSubstr("copy 0 missing: region 'job@0' does not exist"));
	r = run({"checkpoint", "list", "nope"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("no checkpoint 'nope'"));
}

// checkpoint drop destroys the copies; dropping what is not there fails in one line.
TEST_F(CkptCommandTest, CheckpointDrop)
{
	make_ckpt("job", 2, 1);
	EXPECT_THAT(run_ok({"checkpoint", "drop", "job"}), HasSubstr("Dropped checkpoint job"));
	EXPECT_EQ(run_ok({"checkpoint", "list"}), "No checkpoints.\n");
	run_result r = run({"checkpoint", "drop", "job"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(one_error_line(r), "cxltierctl: no checkpoint 'job'");
	EXPECT_EQ(run({"checkpoint", "drop"}).status, 2);
}
