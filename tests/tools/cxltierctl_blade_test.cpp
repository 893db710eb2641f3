// SPDX-License-Identifier: GPL-2.0
// cxltierctl blade list, fence, drain and restore end to end: the built binary
// against a fake module tree, with the fake_dev.c LD_PRELOADed into it making the
// write to blade_drain block (while F.block exists) and fail (with the errno in
// F.errno) as the module's would.  The drain's progress is watched while the test
// plays the module, changing drain_left and drained_pages under it.
#include <csignal>
#include <chrono>
#include <string>
#include <thread>
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

class BladeCommandTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_pool4_tier(sysfs);
		sys.add_dram_and_tier();
		for (const char *f : {"blade_fence", "blade_drain", "blade_restore"})
			sysfs.write(f, "");
		for (const char *b : {"mem0", "mem1", "mem2"})
			set_counters(b, {"0", "0", "0", "0", "0", "0"});
	}

	// fenced_pages, fence_us, drained_pages, drain_left, drain_us, poisoned_pages.
	void set_counters(const char *b, const std::vector<std::string> &v)
	{
		const char *files[] = {"fenced_pages", "fence_us",  "drained_pages",
				       "drain_left",   "drain_us", "poisoned_pages"};
		for (std::size_t i = 0; i < std::size(files); i++)
			set(b, files[i], v.at(i));
	}

	void set(const char *b, const char *file, const std::string &v)
	{
		sysfs.write(fs::path("blades") / b / file, v);
	}

	env_overrides env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH}};
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

	// Exactly one line on stderr, "cxltierctl: ...", returned without its newline.
	static std::string one_error_line(const run_result &r)
	{
		EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
		return r.err.substr(0, r.err.find('\n'));
	}

	// Waits until @cli has printed @text: 120 s at most, since a loaded CI machine
	// was seen to take over 10 s before the command's first line.
	std::string written(const char *file) { return slurp(sysfs.root() / file); }

	// Waits (120 s at most: loaded machines) until @cli opened blade_drain (O_TRUNC empties it) and
	// blocks in its write: it has read its snapshots by then, so the test may
	// change the counters without a half-written file failing its start.
	bool wait_for_drain_write(running_cli &cli)
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
		while (std::chrono::steady_clock::now() < end) {
			if (written("blade_drain").empty())
				return true;
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		ADD_FAILURE() << "no write to blade_drain; stderr: " << cli.wait().err;
		return false;
	}

	fake_sysfs sysfs;
	fake_sys sys;
};

} // namespace

// The table shows each blade's state and its fenced and drained pages; "-" for a
// module that has no such counters (mem3 here).
TEST_F(BladeCommandTest, ListShowsStatesAndCounters)
{
	set("mem1", "state", "fenced");
	set("mem1", "fenced_pages", "4096");
	set("mem2", "state", "out-of-service");
	set("mem2", "drained_pages", "65536");
	run_result r = run({"blade", "list"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 5u) << r.out;
	EXPECT_THAT(l[0], AllOf(StartsWith("BLADE"), HasSubstr("STATE"), HasSubstr("FENCED"),
				HasSubstr("DRAINED"), HasSubstr("CXL-REGIONS")));
	EXPECT_THAT(l[1], ContainsRegex("^mem0 .* online +0 +0  region0$"));
	EXPECT_THAT(l[2], ContainsRegex("^mem1 .* fenced +4096 +0  region0$"));
	EXPECT_THAT(l[3], ContainsRegex("^mem2 .* out-of-service +0 +65536  region0$"));
	EXPECT_THAT(l[4], ContainsRegex("^mem3 .* online +- +-  region0$"));
}

// A fenced blade whose memdev the CXL core removed stays listed with cxltier's
// state and counters; what only the memdev knew reads as nothing ("-", 0, "").
TEST_F(BladeCommandTest, ListShowsAFencedBladeWhoseMemdevIsGone)
{
	sysfs.add_blade({.name = "mem4", .state = "fenced", .memdev = false});
	set("mem4", "fenced_pages", "512");
	run_result r = run({"blade", "list"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 6u) << r.out;
	EXPECT_THAT(l[5], ContainsRegex("^mem4 +0x0 +0 B +0 B +- +fenced +512 +0 +-$"));
	json b = json::parse(run({"blade", "list", "--json"}).out)["blades"][4];
	EXPECT_EQ(b["name"], "mem4");
	EXPECT_EQ(b["serial"], 0);
	EXPECT_EQ(b["pci_dev"], "");
	EXPECT_EQ(b["state"], "fenced");
	EXPECT_EQ(b["cxl_regions"], json::array());
}

// JSON has every counter as a number, or null from a module without them.
TEST_F(BladeCommandTest, ListJsonHasTheCounters)
{
	set_counters("mem1", {"4096", "1250", "7", "0", "2500", "3"});
	run_result r = run({"blade", "list", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	json doc = json::parse(r.out);
	const json &b = doc["blades"][1];
	EXPECT_EQ(b["name"], "mem1");
	EXPECT_EQ(b["fenced_pages"], 4096);
	EXPECT_EQ(b["fence_us"], 1250);
	EXPECT_EQ(b["drained_pages"], 7);
	EXPECT_EQ(b["drain_left"], 0);
	EXPECT_EQ(b["drain_us"], 2500);
	EXPECT_EQ(b["poisoned_pages"], 3);
	const json &old = doc["blades"][3];
	for (const char *k : {"fenced_pages", "fence_us", "drained_pages", "drain_left", "drain_us",
			      "poisoned_pages"})
		EXPECT_TRUE(old[k].is_null()) << k;
}

// While the write to blade_drain blocks, a line per interval says how many pages
// are left and how fast they move; when it returns, one line sums the drain up.
TEST_F(BladeCommandTest, DrainShowsProgressThenASummary)
{
	set_counters("mem0", {"0", "0", "77", "0", "0", "0"}); // a drain of long ago
	sysfs.write("blade_drain.block", "");
	running_cli cli({"blade", "drain", "mem0", "--interval", "0.05"}, env());
	ASSERT_TRUE(wait_for_drain_write(cli));

	// The module starts: the state says so and the count starts again.
	set_counters("mem0", {"0", "0", "0", "300", "0", "0"});
	set("mem0", "state", "draining");
	ASSERT_TRUE(wait_for_output(cli, "draining mem0: 300 pages (1.2 MiB) left, 0 moved"));
	set("mem0", "drained_pages", "100");
	set("mem0", "drain_left", "200");
	ASSERT_TRUE(wait_for_output(cli, "draining mem0: 200 pages (800 KiB) left, 100 moved"));
	set_counters("mem0", {"0", "0", "300", "0", "500000", "0"});
	set("mem0", "state", "out-of-service");
	sysfs.remove("blade_drain.block");

	run_result r = cli.wait();
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(written("blade_drain"), "mem0");
	auto l = lines(r.out);
	ASSERT_GE(l.size(), 3u) << r.out;
	for (std::size_t i = 0; i + 1 < l.size(); i++)
		EXPECT_THAT(l[i], ContainsRegex("^draining mem0: [0-9]+ pages \\(.*\\) left, [0-9]+ moved, "
						"[0-9]+ pages/s$"));
	EXPECT_EQ(l.back(), "mem0 drained: 300 pages (1.2 MiB) moved in 500.0 ms, 600 pages/s; state "
			    "out-of-service");
}

// The module's refusals come back in words, one line, exit status 1.
TEST_F(BladeCommandTest, DrainRefusalsAreExplained)
{
	const std::vector<std::pair<int, std::string>> cases = {
		{ENOSPC, "the rest of the pool has no room for the pages of mem1; nothing was changed"},
		{EIO, "mem1 is fenced: its pages are lost and there is nothing to drain"},
		{EBUSY, "a drain of mem1 is running already"},
		{EALREADY, "mem1 is out of service already (cxltierctl blade restore mem1 puts it back)"},
		{ENOENT, "no tier has memory on mem1: nothing to drain"},
		{EACCES, "draining mem1 needs root"},
	};
	for (const auto &[err, reason] : cases) {
		SCOPED_TRACE(reason);
		sysfs.write("blade_drain.errno", std::to_string(err));
		run_result r = run({"blade", "drain", "mem1"});
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(one_error_line(r), "cxltierctl: " + reason);
		EXPECT_EQ(r.out, "");
	}
}

// A blade that does not exist is named before anything is written.
TEST_F(BladeCommandTest, DrainUnknownBlade)
{
	run_result r = run({"blade", "drain", "mem9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(one_error_line(r), "cxltierctl: no blade mem9 (see cxltierctl blade list)");
	EXPECT_EQ(written("blade_drain"), "\n");
}

// Ctrl-C interrupts the drain's write (the module then puts the blade back online):
// the command says so and exits 1 instead of dying of the signal.
TEST_F(BladeCommandTest, DrainInterrupted)
{
	sysfs.write("blade_drain.block", "");
	running_cli cli({"blade", "drain", "mem2", "--interval", "0.05"}, env());
	ASSERT_TRUE(wait_for_drain_write(cli));
	set_counters("mem2", {"0", "0", "10", "90", "0", "0"});
	set("mem2", "state", "draining");
	ASSERT_TRUE(wait_for_output(cli, "draining mem2: 90 pages"));
	ASSERT_EQ(::kill(cli.pid(), SIGINT), 0);
	run_result r = cli.wait();
	EXPECT_EQ(cli.signal(), 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(one_error_line(r), "cxltierctl: draining mem2 was interrupted by a signal: mem2 is "
				     "online again; the pages moved so far stay where they went");
}

// A module that cannot drain says so.
TEST_F(BladeCommandTest, DrainWithoutModuleSupport)
{
	sysfs.remove("blade_drain");
	run_result r = run({"blade", "drain", "mem0"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), HasSubstr("blade_drain missing: this cxltier module predates "
						 "draining blades"));
}

// restore writes the name and says so; its refusals are words too.
TEST_F(BladeCommandTest, Restore)
{
	run_result r = run({"blade", "restore", "mem1"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "mem1 is back in service\n");
	EXPECT_EQ(written("blade_restore"), "mem1");

	sysfs.write("blade_restore.errno", std::to_string(EBUSY));
	r = run({"blade", "restore", "mem1"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(one_error_line(r), "cxltierctl: mem1 is fenced and region0 still has memory on it: "
				     "remove that tier first (cxltierctl tier remove)");
	sysfs.write("blade_restore.errno", std::to_string(EALREADY));
	r = run({"blade", "restore", "mem1"});
	EXPECT_EQ(one_error_line(r), "cxltierctl: mem1 is in service already (online)");
}

// fence loses data: it needs --force, and then reports what the module did.
TEST_F(BladeCommandTest, FenceNeedsForce)
{
	run_result r = run({"blade", "fence", "mem1"});
	EXPECT_EQ(r.status, 2);
	EXPECT_THAT(one_error_line(r), HasSubstr("add --force to fence it"));
	EXPECT_EQ(written("blade_fence"), "\n");

	set_counters("mem1", {"4096", "1250", "0", "0", "0", "0"});
	r = run({"blade", "fence", "mem1", "--force"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "fencing mem1... done: 4096 pages (16 MiB) fenced in 1.2 ms\n");
	EXPECT_EQ(written("blade_fence"), "mem1");

	sysfs.write("blade_fence.errno", std::to_string(EALREADY));
	r = run({"blade", "fence", "mem1", "--force"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "fencing mem1... failed\n");
	EXPECT_EQ(one_error_line(r), "cxltierctl: mem1 is fenced already");
}

// fence -j prints the blade as blade list --json has it, nothing else; a refusal
// prints nothing on stdout.
TEST_F(BladeCommandTest, FenceJsonPrintsTheBlade)
{
	set_counters("mem1", {"4096", "1250", "0", "0", "0", "0"});
	run_result f = run({"blade", "fence", "mem1", "--force", "-j"});
	ASSERT_EQ(f.status, 0) << f.err;
	EXPECT_EQ(f.err, "");
	json doc = json::parse(f.out);
	json list = json::parse(run({"blade", "list", "--json"}).out);
	ASSERT_EQ(doc["blades"].size(), 1u);
	EXPECT_EQ(doc["blades"][0], list["blades"][1]);
	EXPECT_EQ(doc["blades"][0]["fenced_pages"], 4096);
	EXPECT_EQ(doc["abi_version"], list["abi_version"]);
	sysfs.write("blade_fence.errno", std::to_string(EALREADY));
	run_result r = run({"blade", "fence", "mem1", "--force", "--json"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(one_error_line(r), "cxltierctl: mem1 is fenced already");
}

// Names the kernel would misread are usage errors: exit 2, nothing written.
TEST_F(BladeCommandTest, BadNamesAreUsageErrors)
{
	for (auto args : std::vector<std::vector<std::string>>{
		     {"blade", "drain", "mem0 mem1"},
		     {"blade", "restore", std::string(32, 'm')},
		     {"blade", "fence", "", "--force"},
		     {"blade", "drain"},
		     {"blade", "drain", "mem0", "--interval", "0"}}) {
		SCOPED_TRACE(args[1]);
		run_result r = run(args);
		EXPECT_EQ(r.status, 2);
		one_error_line(r);
	}
	EXPECT_EQ(written("blade_drain"), "\n");
	EXPECT_EQ(written("blade_restore"), "\n");
	EXPECT_EQ(written("blade_fence"), "\n");
}
