// SPDX-License-Identifier: GPL-2.0
// libcxltier-preload.so, end to end on the host: preload_worker (a program that knows
// nothing of cxltier) runs with the preload and tests/lib/fake_dev.c LD_PRELOADed,
// the fake's directory (regions, hints, region files) standing in for the module.
#include <signal.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_cli.hpp"

using namespace cxltier_test;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

class PreloadTest : public ::testing::Test {
protected:
	void SetUp() override { std::ofstream(dev()) << ""; }

	fs::path dev() const { return dir.path() / "cxltier"; }

	env_overrides env(const std::string &extra_min = "1M") const
	{
		return {{"LD_PRELOAD", std::string(CXLTIER_PRELOAD_PATH) + " " + CXLTIER_FAKE_DEV_PATH},
			{"CXLTIER_DEV", dev().string()},
			{"CXLTIER_PRELOAD_SIZE", "64M"},
			{"CXLTIER_PRELOAD_MIN", extra_min},
			{"CXLTIER_PRELOAD_NAME", std::nullopt},
			{"CXLTIER_PRELOAD_POLICY", std::nullopt},
			{"CXLTIER_PRELOAD_VERBOSE", "1"},
			{"CXLTIER_FAKE_PAGES_FROM_DATA", "1"}};
	}

	// @e with @name set to @value (replaced, not added a second time).
	static env_overrides with(env_overrides e, const std::string &name, const std::string &value)
	{
		for (auto &[n, v] : e)
			if (n == name) {
				v = value;
				return e;
			}
		e.push_back({name, value});
		return e;
	}

	run_result run(const std::vector<std::string> &args, const env_overrides &e) const
	{
		return run_cxltierctl(args, e);
	}
	run_result run(const std::vector<std::string> &args) const { return run(args, env()); }

	// "NAME WHERE" lines of the worker, as a map.
	static std::map<std::string, std::string> placed(const run_result &r)
	{
		std::map<std::string, std::string> m;
		for (const auto &l : lines(r.out)) {
			auto sp = l.find(' ');
			if (sp != std::string::npos)
				m[l.substr(0, sp)] = l.substr(sp + 1);
		}
		return m;
	}

	std::string regions() const { return slurp(dir.path() / "regions"); }
	std::vector<std::string> hints() const { return lines(slurp(dir.path() / "hints")); }

	temp_dir dir;
};

} // namespace

// Large allocations of every kind land in the region, small ones in the heap; the
// region is made on the first, with the program's pid, and gone when it exits.
TEST_F(PreloadTest, LargeAllocationsGoToTheRegion)
{
	run_result r = run({"basic"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto m = placed(r);
	for (const char *big : {"malloc-4M", "calloc-2M", "posix_memalign-2M", "aligned_alloc-3M",
				"realloc-small-to-3M", "realloc-3M-to-9M"})
		EXPECT_EQ(m[big], "region") << big;
	EXPECT_EQ(m["malloc-100"], "heap");
	EXPECT_EQ(lines(r.out).back(), "ok");
	EXPECT_THAT(r.err, HasSubstr("cxltier-preload: region preload."));
	EXPECT_THAT(r.err, HasSubstr(", 64 MiB, for allocations of 1048576 bytes or more"));
	EXPECT_THAT(r.err, HasSubstr("allocations, at most"));
	// Destroyed at exit: no region left in the fake.
	EXPECT_THAT(regions(), Not(HasSubstr("preload.")));
}

// A freed block is reused, reads zero through calloc(), and was hinted cold.
TEST_F(PreloadTest, FreedBlocksAreReusedZeroedAndHintedCold)
{
	run_result r = run({"reuse"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(placed(r)["calloc-after-free"], "region");
	EXPECT_THAT(r.out, Not(HasSubstr("not the same block")));
	// "<name> <offset> <length> <hint>": cold (2) on free, none (0) when handed out again.
	auto h = hints();
	ASSERT_GE(h.size(), 2u);
	EXPECT_THAT(h[0], ::testing::MatchesRegex("preload\\.[0-9]+ 0 [0-9]+ 2"));
	EXPECT_THAT(h[1], ::testing::MatchesRegex("preload\\.[0-9]+ 0 [0-9]+ 0"));
}

TEST_F(PreloadTest, ThreadsDoNotShareBlocks)
{
	run_result r = run({"threads", "8"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_THAT(r.out, Not(HasSubstr("FAIL")));
}

// fork: the child gets a private copy; nothing it writes reaches the parent.
TEST_F(PreloadTest, ForkGivesTheChildACopy)
{
	run_result r = run({"fork"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto m = placed(r);
	EXPECT_EQ(m["parent-block"], "region");
	EXPECT_EQ(m["parent-after"], "region");
	EXPECT_EQ(m["child-block"], "heap"); // private anonymous memory now
	EXPECT_EQ(m["child-new"], "heap");
	EXPECT_THAT(regions(), Not(HasSubstr("preload.")));
}

// More than the region holds: the rest comes from the heap, nothing fails.
TEST_F(PreloadTest, AFullRegionFallsBackToTheHeap)
{
	run_result r = run({"full"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_THAT(r.out, HasSubstr("full region=7 heap=33"));
}

// exec: the new program takes the name of the region the old one left.
TEST_F(PreloadTest, ExecTakesTheNameOver)
{
	run_result r = run({"exec"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto m = placed(r);
	EXPECT_EQ(m["before-exec"], "region");
	EXPECT_EQ(m["malloc-4M"], "region");
	EXPECT_THAT(r.err, Not(HasSubstr("cannot create")));
}

// A process killed by a signal leaves its region named, as documented.
TEST_F(PreloadTest, AKilledProcessLeavesItsRegion)
{
	running_cli cli({"hold", "60"}, env());
	ASSERT_TRUE(wait_for_output(cli, "holding"));
	EXPECT_THAT(regions(), HasSubstr(" preload."));
	::kill(cli.pid(), SIGKILL);
	cli.wait();
	EXPECT_THAT(regions(), HasSubstr(" preload."));
}

TEST_F(PreloadTest, ADoubleFreeAborts)
{
	running_cli cli({"doublefree"}, env());
	run_result r = cli.wait();
	EXPECT_EQ(cli.signal(), SIGABRT);
	EXPECT_THAT(r.err, HasSubstr("is not an allocation of it (freed twice, or never allocated)"));
}

// No module: one line saying so, and the program runs on the heap.
TEST_F(PreloadTest, WithoutTheModuleTheHeapServes)
{
	run_result r = run({"basic"}, with(env(), "CXLTIER_DEV", (dir.path() / "missing").string()));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(placed(r)["malloc-4M"], "heap");
	EXPECT_THAT(r.err, HasSubstr("cxltier-preload: cannot open " + (dir.path() / "missing").string()));
	EXPECT_THAT(r.err, HasSubstr("large allocations stay in the heap"));
}

TEST_F(PreloadTest, BadSettingsAreRefusedWithTheReason)
{
	struct {
		const char *var, *value, *why;
	} cases[] = {
		{"CXLTIER_PRELOAD_MIN", "lots", "CXLTIER_PRELOAD_MIN='lots' is not a size"},
		{"CXLTIER_PRELOAD_SIZE", "0", "CXLTIER_PRELOAD_SIZE='0' is not a size"},
		{"CXLTIER_PRELOAD_POLICY", "fastest", "is not fast-first, slow-only or interleave"},
		{"CXLTIER_PRELOAD_NAME", "a/b", "is not a region name"},
	};
	for (const auto &c : cases) {
		run_result r = run({"basic"}, with(env(), c.var, c.value));
		EXPECT_EQ(r.status, 0) << c.var << r.out << r.err;
		EXPECT_THAT(r.err, HasSubstr(c.why)) << c.var;
		EXPECT_EQ(placed(r)["malloc-4M"], "heap") << c.var;
	}
}

// Settings: a lower threshold, a name, a policy.
TEST_F(PreloadTest, Settings)
{
	running_cli cli({"hold", "60"}, with(with(env("64K"), "CXLTIER_PRELOAD_NAME", "my-job"),
					       "CXLTIER_PRELOAD_POLICY", "slow-only"));
	ASSERT_TRUE(wait_for_output(cli, "holding"));
	// "<id> <name> <length> <policy> <mode> <access>"
	EXPECT_THAT(lines(regions()), Contains(::testing::MatchesRegex("[0-9]+ my-job 67108864 1 600 rw")));
	::kill(cli.pid(), SIGTERM);
	cli.wait();
}
