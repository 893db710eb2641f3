// SPDX-License-Identifier: GPL-2.0
// cxltierctl run end to end: the built binary against fake module and standard
// sysfs trees, with tests/lib/fake_mempolicy.c LD_PRELOADed so that the policy the
// job's process sets is logged instead of set (the fake trees' nodes are not the
// host's); jobs are trivial commands (true, false, sh, sleep).  --manage against a
// temporary state directory, with a child of the test holding procd.pid's lock as
// cxltier-procd does.  Then the sampler of the job's memory (job_memory.cpp, linked
// in) on a fake /proc.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_procd.hpp"
#include "job_memory.hpp"
#include "run_cli.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

// DRAM on node 0 (1 GiB free, 20000 MB/s) and the pool's region0 as a tier on
// node 2 (1000 MiB free), as tier_fake_sys.hpp has them.
class RunCommandTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		sys.add_dram_and_tier();
	}

	env_overrides env() const
	{
		return {{"CXLTIER_STATE_DIR", state.path().string()},
			{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_MEMPOLICY_PATH},
			{"CXLTIER_FAKE_MEMPOLICY", log_file().string()},
			{"CXLTIER_FAKE_MEMPOLICY_ERRNO", std::nullopt}};
	}

	run_result run(const std::vector<std::string> &args)
	{
		return run_cxltierctl(args, env());
	}

	json run_json(const std::vector<std::string> &args, int status = 0)
	{
		run_result r = run(args);
		EXPECT_EQ(r.status, status) << r.err;
		json doc = json::parse(r.out, nullptr, false);
		EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << r.out;
		return doc;
	}

	// What process @pid passed to set_mempolicy(), one line per call.
	std::vector<std::string> policies_of(long pid) const
	{
		std::vector<std::string> out;
		std::string tag = " pid=" + std::to_string(pid);
		for (const auto &l : lines(slurp(log_file())))
			if (l.size() > tag.size() && l.ends_with(tag))
				out.push_back(l.substr(0, l.size() - tag.size()));
		return out;
	}

	fs::path log_file() const { return log.path() / "mempolicy"; }

	fake_sysfs sysfs;
	fake_sys sys;
	temp_dir log;
	temp_dir state; // process mode's (--manage)
};

// --- the plan and the report ------------------------------------------------------

// The plan goes to stderr before the job runs, the report after it, and the job
// keeps stdout to itself.
TEST_F(RunCommandTest, PrintsThePlanAndTheReport)
{
	run_result r = run({"run", "--fast", "512M", "--slow", "256M", "--", "sh", "-c",
			    "echo job output"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "job output\n");
	auto l = lines(r.err);
	ASSERT_GE(l.size(), 5u) << r.err;
	EXPECT_EQ(l[0], "Plan: preferred, fast 512 MiB, slow 256 MiB");
	EXPECT_THAT(l[1], AllOf(StartsWith("NODE"), HasSubstr("KIND"), HasSubstr("TIER"),
				HasSubstr("FREE"), HasSubstr("PLANNED"), HasSubstr("WEIGHT"),
				HasSubstr("READ-BW")));
	EXPECT_THAT(l[2], AllOf(StartsWith("   0  dram  -"), HasSubstr("1 GiB"),
				HasSubstr("512 MiB"), HasSubstr("20000 MB/s")));
	EXPECT_THAT(l[3], AllOf(StartsWith("   2  cxl   region0"), HasSubstr("1000 MiB"),
				HasSubstr("256 MiB")));
	EXPECT_THAT(l[4], StartsWith("Job: exited with status 0 after "));
}

// --dry-run prints the plan on stdout and runs nothing; interleave shows shares
// and weights, and a note when bandwidth is missing for weighted interleave.
TEST_F(RunCommandTest, DryRun)
{
	run_result r = run({"run", "--fast", "1G", "--slow", "512M", "--policy", "weighted",
			    "--dry-run"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 5u) << r.out;
	EXPECT_EQ(l[0], "Plan: weighted (weights: kernel), fast 1 GiB, slow 512 MiB");
	EXPECT_THAT(l[1], HasSubstr("SHARE"));
	EXPECT_THAT(l[2], AllOf(StartsWith("   0  dram"), HasSubstr("768 MiB")));
	EXPECT_THAT(l[3], AllOf(StartsWith("   2  cxl   region0"), HasSubstr("768 MiB")));
	EXPECT_EQ(l[4], "Note: no read bandwidth reported for node 2: equal weights");
}

// The plan and the job, as JSON after the job, with numbers as numbers.
TEST_F(RunCommandTest, JsonShape)
{
	json doc = run_json({"run", "--json", "--fast", "256M", "--slow", "256M", "--policy",
			     "interleave", "--", "sh", "-c", "exit 3"},
			    3);
	EXPECT_EQ(doc["abi_version"], 2);
	const json &plan = doc["plan"];
	EXPECT_EQ(plan["policy"], "interleave");
	EXPECT_EQ(plan["fast"], 256ull << 20);
	EXPECT_EQ(plan["slow"], 256ull << 20);
	EXPECT_EQ(plan["weights"], "equal");
	EXPECT_EQ(plan["note"], "");
	ASSERT_EQ(plan["nodes"].size(), 2u);
	EXPECT_EQ(plan["nodes"][0], json::parse(R"({"node": 0, "kind": "dram", "tier": null,
		"free": 1073741824, "planned": 268435456, "read_bandwidth": 20000, "weight": 1})"));
	EXPECT_EQ(plan["nodes"][1]["tier"], "region0");
	EXPECT_EQ(plan["skipped"], json::array());

	const json &job = doc["job"];
	EXPECT_EQ(job["command"], json::parse(R"(["sh", "-c", "exit 3"])"));
	EXPECT_TRUE(job["pid"].is_number_integer());
	EXPECT_EQ(job["exit_status"], 3);
	EXPECT_TRUE(job["signal"].is_null());
	EXPECT_EQ(job["status"], 3);
	EXPECT_TRUE(job["duration_ms"].is_number_integer());
	EXPECT_TRUE(job["samples"].is_number_unsigned());
	EXPECT_TRUE(job["process_mode"].is_null()); // without --manage
	for (const char *s : {"peak", "last"}) {
		SCOPED_TRACE(s);
		if (job[s].is_null()) // the job ended before a sample
			continue;
		for (const char *k : {"total", "dram", "cxl", "other"})
			EXPECT_TRUE(job[s][k].is_number_unsigned()) << k;
		EXPECT_TRUE(job[s]["nodes"].is_array());
	}

	// --dry-run --json: the plan alone.
	doc = run_json({"run", "--json", "--dry-run", "--fast", "1M"});
	EXPECT_EQ(doc["plan"]["policy"], "preferred");
	EXPECT_FALSE(doc.contains("job"));
}

// While the job runs its memory is sampled from /proc/PID/numa_maps of its process
// tree; node 0 (the host's) is DRAM in the fake trees.
TEST_F(RunCommandTest, SamplesTheJobsMemory)
{
	if (!fs::exists("/proc/self/numa_maps"))
		GTEST_SKIP() << "this kernel has no /proc/PID/numa_maps (no NUMA)";
	json doc = run_json({"run", "--json", "--fast", "1M", "--", "sh", "-c", "sleep 0.3; true"});
	const json &job = doc["job"];
	ASSERT_GE(job["samples"], 1u) << job.dump();
	EXPECT_GT(job["peak"]["total"], 0u);
	EXPECT_EQ(job["peak"]["total"],
		  job["peak"]["dram"].get<std::uint64_t>() + job["peak"]["cxl"].get<std::uint64_t>() +
			  job["peak"]["other"].get<std::uint64_t>());
	EXPECT_GE(job["peak"]["total"], job["last"]["total"]);
	EXPECT_EQ(job["peak"]["nodes"][0]["kind"], "dram");
}

// --output puts the report in a file, keeping stdout and stderr the job's.
TEST_F(RunCommandTest, OutputFile)
{
	fs::path file = log.path() / "report.json";
	run_result r = run({"run", "--json", "-o", file.string(), "--fast", "1M", "--", "true"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "");
	json doc = json::parse(slurp(file), nullptr, false);
	ASSERT_FALSE(doc.is_discarded());
	EXPECT_EQ(doc["job"]["status"], 0);
}

// --- the policy the job starts with ----------------------------------------------

// The job's process sets the plan's policy before exec: preferred over DRAM, or
// weighted interleave with the weights from bandwidth written first.
TEST_F(RunCommandTest, TheJobGetsThePlansPolicy)
{
	json doc = run_json({"run", "--json", "--fast", "1M", "--", "true"});
	EXPECT_THAT(policies_of(doc["job"]["pid"].get<long>()), ElementsAre("mode=5 nodes=0"));

	sys.write("devices/system/node/node2/access0/initiators/read_bandwidth", "10000");
	doc = run_json({"run", "--json", "--fast", "1M", "--slow", "1M", "--policy", "weighted",
			"--", "true"});
	EXPECT_THAT(policies_of(doc["job"]["pid"].get<long>()), ElementsAre("mode=6 nodes=0,2"));
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "2");
}

// A policy the kernel refuses stops the job before it starts.
TEST_F(RunCommandTest, PolicyRefused)
{
	auto over = env();
	over.back() = {"CXLTIER_FAKE_MEMPOLICY_ERRNO", std::to_string(EPERM)};
	fs::path marker = log.path() / "ran";
	run_result r = run_cxltierctl({"run", "--fast", "1M", "--", "touch", marker.string()}, over);
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, HasSubstr("cxltierctl: cannot set the job's memory policy: "
				     "set_mempolicy(MPOL_PREFERRED_MANY, node 0): not permitted"));
	EXPECT_FALSE(fs::exists(marker));
}

// --- exit status --------------------------------------------------------------------

// cxltierctl exits with the job's status, and 128 + N for a job killed by signal N.
TEST_F(RunCommandTest, ExitStatusIsTheJobs)
{
	EXPECT_EQ(run({"run", "--fast", "1M", "--", "true"}).status, 0);
	EXPECT_EQ(run({"run", "--fast", "1M", "--", "false"}).status, 1);
	run_result r = run({"run", "--fast", "1M", "--", "sh", "-c", "exit 7"});
	EXPECT_EQ(r.status, 7);
	EXPECT_THAT(r.err, HasSubstr("Job: exited with status 7 after "));
	r = run({"run", "--fast", "1M", "--", "sh", "-c", "kill -9 $$"});
	EXPECT_EQ(r.status, 128 + SIGKILL);
	EXPECT_THAT(r.err, HasSubstr("Job: was killed by SIGKILL after "));
}

// A command that cannot be run exits 127 (not found), as env(1) does.
TEST_F(RunCommandTest, CommandNotFound)
{
	run_result r = run({"run", "--fast", "1M", "--", "/nonexistent/job"});
	EXPECT_EQ(r.status, 127);
	EXPECT_THAT(r.err,
		    HasSubstr("cxltierctl: cannot run /nonexistent/job: No such file or directory\n"));
	EXPECT_THAT(r.err, Not(HasSubstr("Job:")));
}

// SIGTERM to cxltierctl (a scheduler ending the job) goes on to the job, which is
// then reported as killed by it.
TEST_F(RunCommandTest, ForwardsSigterm)
{
	running_cli cli({"run", "--fast", "1M", "--", "sleep", "10"}, env());
	// The job's own set_mempolicy() comes after the handlers are in place.
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	auto job_started = [&] {
		for (const auto &l : lines(slurp(log_file())))
			if (l.starts_with("mode=5 nodes=0 ") &&
			    !l.ends_with(" pid=" + std::to_string(cli.pid())))
				return true;
		return false;
	};
	while (!job_started() && std::chrono::steady_clock::now() < deadline)
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	ASSERT_TRUE(job_started());
	ASSERT_EQ(::kill(cli.pid(), SIGTERM), 0);
	run_result r = cli.wait();
	EXPECT_EQ(cli.signal(), 0) << "cxltierctl itself must not die of it";
	EXPECT_EQ(r.status, 128 + SIGTERM);
	EXPECT_THAT(r.err, HasSubstr("Job: was killed by SIGTERM after "));
}

// --- refusals -----------------------------------------------------------------------

// A request that does not fit is one line on stderr, exit 1, and no job.
TEST_F(RunCommandTest, RefusesWhatDoesNotFit)
{
	fs::path marker = log.path() / "ran";
	run_result r = run({"run", "--slow", "4G", "--", "touch", marker.string()});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "cxltierctl: cannot place slow 4 GiB: CXL is 3.0 GiB short (1000 MiB "
			 "free on node 2)\n");
	EXPECT_FALSE(fs::exists(marker));

	r = run({"run", "--json", "--fast", "1G", "--slow", "1G", "--policy", "interleave", "--",
		 "true"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "cxltierctl: cannot interleave 2 GiB (fast 1 GiB and slow 1 GiB) over "
			 "nodes 0,2: node 2 (cxl region0) is 24 MiB short of its 1 GiB share "
			 "(1000 MiB free)\n");
}

// A tier on a fenced blade takes no part; without another the slow part is refused.
TEST_F(RunCommandTest, FencedBladeIsSkipped)
{
	sysfs.write("blades/mem1/state", "fenced");
	run_result r = run({"run", "--slow", "256M", "--", "true"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: cannot place slow 256 MiB: CXL is 256 MiB short (no usable "
			 "tier; region0 on node 2 skipped: blade mem1 is fenced)\n");

	r = run({"run", "--fast", "256M", "--dry-run"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.out, HasSubstr("Skipped: node 2 (region0): blade mem1 is fenced\n"));
}

// A missing command or size is refused in one line (exit 1).
TEST_F(RunCommandTest, RefusesIncompleteCommands)
{
	struct {
		std::vector<std::string> args;
		const char *err;
	} cases[] = {
		{{"run", "--fast", "1G"},
		 "cxltierctl: run: no command given (cxltierctl run [options] -- CMD [ARG...])\n"},
		{{"run", "--", "true"},
		 "cxltierctl: run: nothing to place: give --fast SIZE, --slow SIZE or both (or "
		 "--regions)\n"},
		{{"run", "--region-min", "1M", "--", "true"},
		 "cxltierctl: run: --region-min and --region-size go with --regions\n"},
	};
	for (const auto &c : cases) {
		run_result r = run(c.args);
		EXPECT_EQ(r.status, 1) << c.err;
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, c.err);
	}
	// A bad policy or size is a usage error.
	EXPECT_EQ(run({"run", "--policy", "bind", "--fast", "1G", "--", "true"}).status, 2);
	EXPECT_EQ(run({"run", "--fast", "lots", "--", "true"}).status, 2);
}

// --- --regions ----------------------------------------------------------------------

// The job runs with the preload first in LD_PRELOAD and its settings; alone, cxltierctl
// becomes the job (no plan, no report).
TEST_F(RunCommandTest, RegionsPutThePreloadInTheJobsEnvironment)
{
	env_overrides e = env();
	e.push_back({"CXLTIER_PRELOAD_LIB", CXLTIER_PRELOAD_PATH});
	e.push_back({"CXLTIER_PRELOAD_MIN", std::nullopt});
	e.push_back({"CXLTIER_PRELOAD_SIZE", std::nullopt});
	const std::string show =
		"echo \"$LD_PRELOAD|${CXLTIER_PRELOAD_MIN:-}|${CXLTIER_PRELOAD_SIZE:-}\"";
	run_result r = run_cxltierctl({"run", "--regions", "--", "sh", "-c", show}, e);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, std::string(CXLTIER_PRELOAD_PATH) + " " + CXLTIER_FAKE_MEMPOLICY_PATH + "||\n");
	EXPECT_EQ(r.err, "");

	r = run_cxltierctl({"run", "--regions", "--region-min", "64K", "--region-size", "2G", "--",
			    "sh", "-c", show},
			   e);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.out, HasSubstr("|65536|2147483648\n"));

	// With a plan: the report too, and the job's environment the same.
	r = run_cxltierctl({"run", "--regions", "--fast", "64M", "--", "sh", "-c", show}, e);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.out, HasSubstr(std::string(CXLTIER_PRELOAD_PATH) + " "));
	EXPECT_THAT(r.err, HasSubstr("Job: exited with status 0"));

	// The job's status is cxltierctl's; a job not found is 127, as env(1) says.
	EXPECT_EQ(run_cxltierctl({"run", "--regions", "--", "sh", "-c", "exit 3"}, e).status, 3);
	r = run_cxltierctl({"run", "--regions", "--", "/nonexistent/job"}, e);
	EXPECT_EQ(r.status, 127);
	EXPECT_EQ(r.err, "cxltierctl: cannot run /nonexistent/job: No such file or directory\n");
}

TEST_F(RunCommandTest, RegionsWithoutThePreload)
{
	env_overrides e = env();
	e.push_back({"CXLTIER_PRELOAD_LIB", "/nonexistent/libcxltier-preload.so"});
	run_result r = run_cxltierctl({"run", "--regions", "--", "true"}, e);
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: run: --regions: CXLTIER_PRELOAD_LIB=/nonexistent/"
			 "libcxltier-preload.so: No such file or directory\n");
	// The build tree's cxltierctl has none installed beside it.
	e.back().second = std::nullopt;
	r = run_cxltierctl({"run", "--regions", "--", "true"}, e);
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, HasSubstr("cxltierctl: run: --regions: the preload allocator is not "
				     "installed ("));
}

// --- process mode (--manage) -------------------------------------------------------

const char *const procd_not_running =
	"cxltierctl: cxltier-procd is not running (start it: systemctl start cxltier-procd)\n";

// Without the service, --manage is refused before anything runs (--dry-run too).
TEST_F(RunCommandTest, ManageRefusedWithoutTheService)
{
	fs::path marker = log.path() / "ran";
	for (auto args : {std::vector<std::string>{"run", "--manage", "--fast", "1M", "--", "touch",
						   marker.string()},
			  std::vector<std::string>{"run", "--manage", "--fast", "1M", "--dry-run"}}) {
		run_result r = run(args);
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, procd_not_running);
	}
	EXPECT_FALSE(fs::exists(marker));
	EXPECT_FALSE(fs::exists(state.path() / "managed"));
}

// The job is opted in before it runs (it finds its own opt-in), out again when it
// has ended, and the report says what cxltier-procd's status said of it (here the
// job writes that status itself).
TEST_F(RunCommandTest, ManageOptsTheJobIn)
{
	fake_procd procd(state.path());
	fs::path seen = log.path() / "opt-in";
	// sh -c SCRIPT STATE SEEN PROCD: $$ is the job's pid.
	std::string script = R"(cat "$0/managed/pid-$$" > "$1"
printf '{"service": {"pid": %s, "period": 3}, "targets": [{"target": "pid-%s", "kind": "pid",
 "pid": %s, "state": "managed", "reason": "", "promoted": 5, "demoted": 3}]}' "$2" $$ $$ \
 > "$0/status.json")";
	std::vector<std::string> job = {"--", "sh", "-c", script, state.path().string(),
					seen.string(), std::to_string(procd.pid())};

	std::vector<std::string> args = {"run", "--manage", "--json", "--fast", "1M"};
	args.insert(args.end(), job.begin(), job.end());
	json doc = run_json(args);
	long pid = doc["job"]["pid"];
	// The job's --fast is its limit on DRAM in process mode.
	EXPECT_THAT(slurp(seen), ::testing::MatchesRegex("pid " + std::to_string(pid) +
							 " [0-9]+\nfast 1048576\n"));
	EXPECT_TRUE(fs::is_empty(state.path() / "managed"));
	EXPECT_EQ(doc["job"]["process_mode"],
		  json::parse(R"({"target": "pid-)" + std::to_string(pid) +
			      R"(", "state": "managed", "reason": "", "promoted": 5, "demoted": 3})"));

	args = {"run", "--manage", "--fast", "1M"};
	args.insert(args.end(), job.begin(), job.end());
	run_result r = run(args);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_THAT(r.err, HasSubstr("\nProcess mode: managed, 5 pages promoted (20 KiB), 3 demoted "
				     "(12 KiB)\n"));
	EXPECT_TRUE(fs::is_empty(state.path() / "managed"));
}

// A job that cannot run is out of process mode again; one that cannot be opted in
// does not run.
TEST_F(RunCommandTest, ManageCleansUp)
{
	fake_procd procd(state.path());
	run_result r = run({"run", "--manage", "--fast", "1M", "--", "/nonexistent/job"});
	EXPECT_EQ(r.status, 127);
	EXPECT_TRUE(fs::is_empty(state.path() / "managed"));

	fs::remove_all(state.path() / "managed");
	std::ofstream(state.path() / "managed") << "not a directory\n";
	fs::path marker = log.path() / "ran";
	r = run({"run", "--manage", "--fast", "1M", "--", "touch", marker.string()});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, ::testing::ContainsRegex("\ncxltierctl: cannot write " + state.path().string() +
						    "/managed/pid-[0-9]+: .+\n$"));
	EXPECT_THAT(r.err, Not(HasSubstr("Job:")));
	EXPECT_FALSE(fs::exists(marker));
}

// --- the sampler, on a fake /proc ---------------------------------------------------

// Each mapping's pages per node count in its page size (huge pages for hugetlbfs).
TEST(JobMemory, AddsNumaMaps)
{
	cxltierctl::node_bytes b;
	cxltierctl::add_numa_maps(
		"55b1a7a2b000 default file=/usr/bin/cat mapped=2 N0=2 kernelpagesize_kB=4\n"
		"7f0c5c000000 interleave:0,2 anon=5 dirty=5 N0=3 N2=2 kernelpagesize_kB=4\n"
		"7f0c60000000 default file=/huge/a\\040b huge dirty=1 N2=1 kernelpagesize_kB=2048\n"
		"7ffd1e5f5000 default stack\n"
		"garbage N1=x kernelpagesize_kB=4",
		b);
	EXPECT_THAT(b, ElementsAre(Pair(0, 5 * 4096u), Pair(2, 2 * 4096u + (2u << 20))));
	EXPECT_EQ(cxltierctl::total_bytes(b), 7 * 4096u + (2u << 20));
}

class FakeProc : public ::testing::Test {
protected:
	void add(int pid, const std::string &stat, const char *numa_maps)
	{
		proc.write(std::to_string(pid) + "/stat", stat);
		if (numa_maps)
			proc.write(std::to_string(pid) + "/numa_maps", numa_maps);
	}
	fake_tree proc{"proc"};
};

// The tree is the job and its descendants, found through the parent pids (a
// command name may hold blanks and parentheses).
TEST_F(FakeProc, ProcessTree)
{
	add(100, "100 (job) S 1 100 100 0", "");
	add(101, "101 (a) b (c) S 100 100 100 0", "");
	add(102, "102 (sleep) S 101 100 100 0", "");
	add(200, "200 (other) S 1 200 200 0", "");
	proc.write("self/stat", "1 (init) S 0");
	EXPECT_THAT(cxltierctl::process_tree(100, proc.root()), ElementsAre(100, 101, 102));
	EXPECT_THAT(cxltierctl::process_tree(300, proc.root()), ElementsAre(300));
}

// A sample adds up the tree's processes; one whose numa_maps is gone is left out,
// and a job whose own memory is gone (a zombie) gives no sample.
TEST_F(FakeProc, SampleJob)
{
	add(100, "100 (job) S 1", "1000 default anon=1 N0=1 kernelpagesize_kB=4");
	add(101, "101 (child) S 100", nullptr);
	add(102, "102 (grandchild) S 101", "2000 default anon=2 N2=2 kernelpagesize_kB=4");
	auto s = cxltierctl::sample_job(100, proc.root());
	ASSERT_TRUE(s);
	EXPECT_THAT(*s, ElementsAre(Pair(0, 4096u), Pair(2, 8192u)));

	std::ofstream(proc.root() / "100/numa_maps", std::ios::trunc); // empty, as a zombie's
	EXPECT_FALSE(cxltierctl::sample_job(100, proc.root()));
	EXPECT_FALSE(cxltierctl::sample_job(555, proc.root()));
}

} // namespace
