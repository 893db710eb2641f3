// SPDX-License-Identifier: GPL-2.0
// The pure part of the Slurm plugin (tools/slurm/slurm_opts.cpp): sizes and
// policies as sbatch's --cxl-* take them, and the state file the job prolog writes
// for the job's tasks, round trip and refusals.
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "slurm_opts.hpp"

using namespace cxltier_slurm;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

constexpr std::uint64_t KiB = 1ull << 10;
constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;
constexpr std::uint64_t TiB = 1ull << 40;

// The reason parse_size() gives for @text, "" when it takes it.
std::string size_refusal(const std::string &text)
{
	try {
		parse_size(text);
		return "";
	} catch (const option_error &e) {
		return e.what();
	}
}

std::string state_refusal(const std::string &text)
{
	try {
		parse_state(text);
		return "";
	} catch (const state_error &e) {
		return e.what();
	}
}

job_plan preferred_plan()
{
	return {CXLTIER_PLACEMENT_PREFERRED,
		512 * MiB,
		256 * MiB,
		{{0, CXLTIER_MEMORY_DRAM, 512 * MiB, 0}, {2, CXLTIER_MEMORY_CXL, 256 * MiB, 0}}};
}

} // namespace

TEST(SlurmSize, Suffixes)
{
	EXPECT_EQ(parse_size("512M"), 512 * MiB);
	EXPECT_EQ(parse_size("4G"), 4 * GiB);
	EXPECT_EQ(parse_size("1t"), TiB);
	EXPECT_EQ(parse_size("8k"), 8 * KiB);
	EXPECT_EQ(parse_size("4096"), 4096u);
	EXPECT_EQ(parse_size("4096b"), 4096u);
	EXPECT_EQ(parse_size("2GB"), 2 * GiB);
	EXPECT_EQ(parse_size("2GiB"), 2 * GiB);
	EXPECT_EQ(parse_size("2gib"), 2 * GiB);
	EXPECT_EQ(parse_size("16777215T"), 16777215 * TiB); // the largest in T
	EXPECT_EQ(parse_size("18446744073709551615"), UINT64_MAX);
}

TEST(SlurmSize, Refusals)
{
	const std::string not_a_size = " is not a size (such as 512M or 4G)";
	EXPECT_EQ(size_refusal(""), "''" + not_a_size);
	EXPECT_EQ(size_refusal("-1G"), "'-1G'" + not_a_size);
	EXPECT_EQ(size_refusal("4X"), "'4X'" + not_a_size);
	EXPECT_EQ(size_refusal("G"), "'G'" + not_a_size);
	EXPECT_EQ(size_refusal("1.5G"), "'1.5G'" + not_a_size);
	EXPECT_EQ(size_refusal(" 4G"), "' 4G'" + not_a_size);
	EXPECT_EQ(size_refusal("4G "), "'4G '" + not_a_size);
	EXPECT_EQ(size_refusal("4iB"), "'4iB'" + not_a_size);
	EXPECT_EQ(size_refusal("4GG"), "'4GG'" + not_a_size);
	EXPECT_EQ(size_refusal("4P"), "'4P'" + not_a_size);
	EXPECT_EQ(size_refusal("0"), "'0' is not a size: it must be more than 0 (such as 512M or 4G)");
	EXPECT_THAT(size_refusal("0G"), HasSubstr("more than 0"));
	EXPECT_EQ(size_refusal("99999999999T"), "'99999999999T' is too large (at most 2^64 - 1 bytes)");
	EXPECT_THAT(size_refusal("16777216T"), HasSubstr("too large"));
	EXPECT_THAT(size_refusal("18446744073709551616"), HasSubstr("too large"));
	EXPECT_THAT(size_refusal("999999999999999999999999G"), HasSubstr("too large"));
}

TEST(SlurmPolicy, Names)
{
	EXPECT_EQ(parse_policy("preferred"), CXLTIER_PLACEMENT_PREFERRED);
	EXPECT_EQ(parse_policy("interleave"), CXLTIER_PLACEMENT_INTERLEAVE);
	EXPECT_EQ(parse_policy("weighted"), CXLTIER_PLACEMENT_WEIGHTED);
	for (const char *bad : {"", "Preferred", "fast", "weighted "}) {
		try {
			parse_policy(bad);
			ADD_FAILURE() << "took '" << bad << "'";
		} catch (const option_error &e) {
			EXPECT_EQ(std::string(e.what()),
				  "'" + std::string(bad) + "' is not a policy: preferred, interleave or weighted");
		}
	}
}

// --- the state file ---------------------------------------------------------------

TEST(SlurmState, PlanText)
{
	job_state st;
	st.plan = preferred_plan();
	EXPECT_EQ(format_state(st, "job 42 on n1"), "# job 42 on n1\n"
						    "version=1\n"
						    "policy=preferred\n"
						    "fast=536870912\n"
						    "slow=268435456\n"
						    "node=0 dram 536870912 0\n"
						    "node=2 cxl 268435456 0\n");
}

TEST(SlurmState, RoundTrip)
{
	job_state st;
	st.plan = preferred_plan();
	EXPECT_EQ(parse_state(format_state(st, "a comment")), st);

	st.plan = {CXLTIER_PLACEMENT_WEIGHTED,
		   GiB,
		   GiB,
		   {{0, CXLTIER_MEMORY_DRAM, 1365 * MiB, 2},
		    {1, CXLTIER_MEMORY_DRAM, 0, 2},
		    {3, CXLTIER_MEMORY_CXL, 683 * MiB, 1},
		    {1023, CXLTIER_MEMORY_CXL, 1, 255}}};
	EXPECT_EQ(parse_state(format_state(st)), st);

	st.plan = {CXLTIER_PLACEMENT_PREFERRED, 0, 4 * GiB, {{2, CXLTIER_MEMORY_CXL, 4 * GiB, 0}}};
	EXPECT_EQ(parse_state(format_state(st)), st);
}

// An error file: the reason, one line whatever it held.
TEST(SlurmState, Error)
{
	job_state st;
	st.error = "cannot place slow 4 GiB: CXL is 3.0 GiB short\n(1000 MiB free on node 2)";
	std::string text = format_state(st);
	EXPECT_EQ(text, "version=1\n"
			"error=cannot place slow 4 GiB: CXL is 3.0 GiB short (1000 MiB free on node 2)\n");
	job_state back = parse_state(text);
	EXPECT_TRUE(back.failed());
	EXPECT_EQ(back.error, "cannot place slow 4 GiB: CXL is 3.0 GiB short (1000 MiB free on node 2)");
	EXPECT_EQ(back.plan, job_plan{});
	// '=' in the reason is its own.
	EXPECT_EQ(parse_state("version=1\nerror=a=b\n").error, "a=b");
}

TEST(SlurmState, CommentsAndBlankLines)
{
	job_state st = parse_state("# cxltier\n\nversion=1\n# plan\npolicy=interleave\nfast=2\nslow=2\n"
				   "node=0 dram 2 1\n\nnode=2 cxl 2 1\n");
	EXPECT_EQ(st.plan.policy, CXLTIER_PLACEMENT_INTERLEAVE);
	EXPECT_EQ(st.plan.nodes.size(), 2u);
}

TEST(SlurmState, CorruptFilesAreRefused)
{
	const std::string head = "version=1\npolicy=preferred\nfast=1024\nslow=1024\n";
	const std::string nodes = "node=0 dram 1024 0\nnode=2 cxl 1024 0\n";
	EXPECT_EQ(state_refusal(head + nodes), "");

	EXPECT_EQ(state_refusal(""), "empty");
	EXPECT_EQ(state_refusal(head + "node=0 dram 1024 0"), "the last line is cut short");
	EXPECT_EQ(state_refusal("policy=preferred\n"), "line 1: version=1 must come first");
	EXPECT_EQ(state_refusal("version=2\n"), "line 1: version '2' is not 1");
	EXPECT_EQ(state_refusal("version=1\nversion=1\n"), "line 2: version given twice");
	EXPECT_EQ(state_refusal("# only a comment\n"), "no version");
	EXPECT_EQ(state_refusal("version=1\n"), "neither a plan nor a pool");
	EXPECT_EQ(state_refusal("version=1\nfast=1\n"), "no policy");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nfast=1\n" + nodes), "no slow");
	EXPECT_EQ(state_refusal(head + "garbage\n"), "line 5: not key=value: 'garbage'");
	EXPECT_EQ(state_refusal(head + "colour=blue\n" + nodes), "line 5: unknown key 'colour'");
	EXPECT_EQ(state_refusal("version=1\npolicy=sideways\n"), "line 2: unknown policy 'sideways'");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nfast=12x\n"),
		  "line 3: fast '12x' is not a number of bytes");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nfast=-1\n"),
		  "line 3: fast '-1' is not a number of bytes");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nslow=18446744073709551616\n"),
		  "line 3: slow '18446744073709551616' is not a number of bytes");
	for (const char *bad : {"node=0 hbm 1024 0", "node=0 dram 1024", "node=0 dram 1024 0 7",
				"node=0  dram 1024 0", "node=-1 dram 1024 0", "node=1024 dram 1024 0",
				"node=0 dram 1024 256", "node=x dram 1024 0", "node=0 dram 1024 0 "})
		EXPECT_THAT(state_refusal(head + bad + "\n"), HasSubstr("line 5: not a node")) << bad;
	EXPECT_EQ(state_refusal(head + "node=2 cxl 1024 0\nnode=0 dram 1024 0\n"),
		  "line 6: node 0 out of order");
	EXPECT_EQ(state_refusal(head + "node=2 cxl 1024 0\nnode=2 cxl 1024 0\n"),
		  "line 6: node 2 out of order");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nfast=0\nslow=0\nnode=0 dram 0 0\n"),
		  "a plan for no memory (fast and slow are 0)");
	EXPECT_EQ(state_refusal("version=1\npolicy=preferred\nfast=18446744073709551615\nslow=1\n"
				"node=0 dram 1 0\n"),
		  "fast and slow add up to more than 2^64 bytes");
	// Preferred with a fast part names the DRAM nodes: a plan without any is not one.
	EXPECT_EQ(state_refusal(head + "node=2 cxl 1024 0\n"), "no node for the preferred policy");
	EXPECT_EQ(state_refusal("version=1\npolicy=interleave\nfast=1\nslow=1\n"),
		  "no node for the interleave policy");
	EXPECT_EQ(state_refusal("version=1\nerror=\n"), "line 2: an empty error");
	EXPECT_EQ(state_refusal("version=1\nerror=x\npolicy=preferred\n"), "both an error and a plan");
	EXPECT_EQ(state_refusal("version=1\nerror=x\nerror=y\n"), "line 3: error given twice");
}

// --cxl-pool: the pool's line, alone or with a plan; refused when it is not one.
TEST(SlurmState, Pool)
{
	job_state st;
	st.pool = pool_grant{"region2", 160 * MiB};
	EXPECT_EQ(format_state(st), "version=1\npool=region2 167772160\n");
	job_state back = parse_state(format_state(st));
	EXPECT_EQ(back, st);
	EXPECT_FALSE(back.placed());
	EXPECT_FALSE(back.failed());

	st.plan = preferred_plan();
	EXPECT_THAT(format_state(st), HasSubstr("node=2 cxl 268435456 0\npool=region2 167772160\n"));
	back = parse_state(format_state(st));
	EXPECT_EQ(back, st);
	EXPECT_TRUE(back.placed());

	const std::string head = "version=1\n";
	for (const char *bad : {"pool=region2", "pool=region2 ", "pool= 1024", "pool=region2 0",
				"pool=region2 12x", "pool=region 2 1024", "pool=reg/ion2 1024",
				"pool=../x 1024x", "pool=region2 -1"})
		EXPECT_THAT(state_refusal(head + bad + "\n"), HasSubstr("line 2: not a pool")) << bad;
	EXPECT_EQ(state_refusal(head + "pool=a 1\npool=b 1\n"), "line 3: pool given twice");
	EXPECT_EQ(state_refusal(head + "error=x\npool=region2 1024\n"), "both an error and a pool");
	// A pool does not make a half plan whole.
	EXPECT_EQ(state_refusal(head + "pool=region2 1024\nfast=1\n"), "no policy");

	EXPECT_TRUE(valid_pool_name("region12"));
	EXPECT_TRUE(valid_pool_name(std::string(63, 'r')));
	EXPECT_FALSE(valid_pool_name(std::string(64, 'r')));
	EXPECT_FALSE(valid_pool_name(""));
	EXPECT_FALSE(valid_pool_name("region 2"));
	EXPECT_FALSE(valid_pool_name("region/2"));
}

TEST(SlurmState, PolicyNodes)
{
	job_plan p = preferred_plan();
	EXPECT_THAT(policy_nodes(p), ElementsAre(0));
	p.fast = 0;
	EXPECT_THAT(policy_nodes(p), ElementsAre(2)); // no fast part: the CXL nodes
	p.policy = CXLTIER_PLACEMENT_INTERLEAVE;
	EXPECT_THAT(policy_nodes(p), ElementsAre(0, 2));
	p.policy = CXLTIER_PLACEMENT_WEIGHTED;
	EXPECT_THAT(policy_nodes(p), ElementsAre(0, 2));
}

TEST(SlurmState, PlacementEnvAndFileName)
{
	EXPECT_EQ(placement_env(preferred_plan()), "preferred fast=536870912 slow=268435456 nodes=0,2");
	EXPECT_EQ(state_file_name(4294967295u), "job.4294967295");
}
