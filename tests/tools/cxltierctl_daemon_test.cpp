// SPDX-License-Identifier: GPL-2.0
// cxltierctl stats, top, daemon and region hint end to end: the built binary
// against a fake module tree with daemon/, a fake standard sysfs, and the fake
// /dev/cxltier of tests/lib/fake_dev.c LD_PRELOADed into it.  Checked as scripts
// and people use them: JSON that parses with every field, frames without control
// codes, one-line errors with the documented exit status, and a live `top` that
// gives the terminal back as it found it.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_fake_sys.hpp"
#include "run_cli.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

// Two regions: kv (read-write, warm, some moves) and logs (read-only, cold, hinted).
const std::vector<std::string> fake_regions = {
	"1 kv 1073741824 0 0600 rw resident=200000 fast=50000 promoted=3000 demoted=900 "
	"pingpong=10 skipped_pinned=3 failed=1 moved_bytes=16000000 sampled=30000 accessed=9000",
	"2 logs 268435456 1 0644 r resident=60000 demoted=100 sampled=10000 accessed=100 "
	"hinted=4096",
};

// The first line of @text that starts with @prefix, or "".
std::string line_starting(const std::string &text, const std::string &prefix)
{
	for (const auto &l : lines(text))
		if (l.starts_with(prefix))
			return l;
	return "";
}

class DaemonCommandTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_daemon(sysfs);
		add_daemon_tier(sysfs);
		sys.add_dram_and_tier();
		dev.set_regions(fake_regions);
	}

	env_overrides env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"CXLTIER_DEV", dev.dev().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH},
			{"CXLTIER_FAKE_REFUSE", refuse}};
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

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

	// Exactly one line on stderr, "cxltierctl: ...", returned without its newline.
	static std::string one_error_line(const run_result &r)
	{
		EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
		return r.err.substr(0, r.err.find('\n'));
	}

	std::string tunable(const char *name) const
	{
		std::string v = sysfs.read(fs::path("daemon") / name);
		while (!v.empty() && v.back() == '\n')
			v.pop_back();
		return v;
	}

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
	std::optional<std::string> refuse;
};

// --- stats ------------------------------------------------------------------------

// stats --json: one object with the daemon's counters by name, both heat histograms,
// each tier's moves with its node, and every region's counters, numbers as numbers.
TEST_F(DaemonCommandTest, StatsJsonShape)
{
	std::string text = run_ok({"stats", "--json"});
	json doc = json::parse(text, nullptr, false);
	ASSERT_TRUE(doc.is_object()) << text;
	EXPECT_EQ(doc["abi_version"], 2);
	EXPECT_TRUE(doc["time_ns"].is_number_unsigned());

	const json &d = doc["daemon"];
	EXPECT_EQ(d["enabled"], true);
	ASSERT_TRUE(d["counters"].is_object());
	ASSERT_EQ(d["counters"].size(), default_counters.size());
	for (const auto &[name, value] : default_counters) {
		SCOPED_TRACE(name);
		ASSERT_TRUE(d["counters"][name].is_number_unsigned());
		EXPECT_EQ(std::to_string(d["counters"][name].get<std::uint64_t>()), value);
	}
	// In the documented order, for people reading the JSON too.
	EXPECT_LT(text.find("\"periods\""), text.find("\"accessed_pages\""));
	EXPECT_LT(text.find("\"accessed_pages\""), text.find("\"metadata_bytes\""));

	const json &heat = doc["heat"];
	EXPECT_EQ(heat["bucket_span"], 4096);
	ASSERT_EQ(heat["fast"].size(), 16u);
	ASSERT_EQ(heat["slow"].size(), 16u);
	EXPECT_EQ(heat["fast"][8], 4000);
	EXPECT_EQ(heat["slow"][0], 30000);

	ASSERT_EQ(doc["tiers"].size(), 1u);
	EXPECT_EQ(doc["tiers"][0], json({{"name", "region0"},
					 {"node", 2},
					 {"promoted_pages", 3000},
					 {"demoted_pages", 1000}}));

	ASSERT_EQ(doc["regions"].size(), 2u);
	const json &kv = doc["regions"][0];
	EXPECT_EQ(kv["name"], "kv");
	EXPECT_EQ(kv["id"], 1);
	EXPECT_EQ(kv["size"], 1ull << 30);
	EXPECT_EQ(kv["resident_pages"], 200000);
	EXPECT_EQ(kv["dram_pages"], 50000);
	EXPECT_EQ(kv["promoted_pages"], 3000);
	EXPECT_EQ(kv["demoted_pages"], 900);
	EXPECT_EQ(kv["pingpong_pages"], 10);
	EXPECT_EQ(kv["skipped_pinned"], 3);
	EXPECT_EQ(kv["failed_pages"], 1);
	EXPECT_EQ(kv["moved_bytes"], 16000000);
	EXPECT_EQ(kv["sampled_pages"], 30000);
	EXPECT_EQ(kv["accessed_pages"], 9000);
	EXPECT_EQ(kv["hinted_pages"], 0);
	EXPECT_EQ(doc["regions"][1]["name"], "logs");
	EXPECT_EQ(doc["regions"][1]["hinted_pages"], 4096);
}

// The tables show each section with readable units.
TEST_F(DaemonCommandTest, StatsTables)
{
	std::string out = run_ok({"stats"});
	EXPECT_THAT(out, StartsWith("Daemon: enabled, 120 periods, 0.250 s of CPU\n"));
	EXPECT_THAT(line_starting(out, "moved_bytes"), AllOf(HasSubstr("16384000"), HasSubstr("15.6 MiB")));
	// The parts of the daemon's periods, in seconds, after its CPU time.
	EXPECT_THAT(line_starting(out, "move_ns"), AllOf(HasSubstr("200000000"), HasSubstr("0.200 s")));
	EXPECT_LT(out.find("\ncpu_ns"), out.find("\narm_ns"));
	EXPECT_LT(out.find("\ndecide_ns"), out.find("\nmove_ns"));
	EXPECT_LT(out.find("\nmove_ns"), out.find("\nmanaged_pages"));
	EXPECT_THAT(line_starting(out, "32768-36863"), AllOf(HasSubstr("4000"), HasSubstr("500")));
	EXPECT_THAT(line_starting(out, "region0"), AllOf(HasSubstr("3000"), HasSubstr("1000")));
	EXPECT_THAT(line_starting(out, "kv "), AllOf(HasSubstr("25.0%"), HasSubstr("30.0%")));
	EXPECT_THAT(out, Not(HasSubstr("{")));
}

// Without access to /dev/cxltier, stats still shows the daemon's side, then says why
// the regions are missing in one line and exits 1; JSON has "regions": null.
TEST_F(DaemonCommandTest, StatsWithoutDeviceShowsTheRestAndFails)
{
	env_overrides e = env();
	e[2].second = (sysfs.root() / "no-dev").string();
	run_result r = run_cxltierctl({"stats", "--json"}, e);
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), AllOf(HasSubstr("cxltierctl: regions: "),
					     HasSubstr("is cxltier.ko loaded?")));
	json doc = json::parse(r.out, nullptr, false);
	ASSERT_FALSE(doc.is_discarded()) << r.out;
	EXPECT_TRUE(doc["regions"].is_null());
	EXPECT_EQ(doc["daemon"]["counters"]["periods"], 120);
}

// A module without the daemon: one line saying so, exit 1, nothing on stdout.
TEST_F(DaemonCommandTest, NoDaemonIsOneLine)
{
	sysfs.remove("daemon");
	for (auto args : std::vector<std::vector<std::string>>{
		     {"stats"}, {"top", "--once", "--interval", "0.1"}, {"daemon"}}) {
		SCOPED_TRACE(args[0]);
		run_result r = run(args);
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(r.out, "");
		EXPECT_THAT(one_error_line(r), HasSubstr("has no migration daemon"));
	}
}

// --- top ----------------------------------------------------------------------------

// top --once prints one plain frame: no control codes, every section, nodes with
// used and free, rates (zero here: nothing moved between the two samples) and the
// hottest region first.
TEST_F(DaemonCommandTest, TopOncePrintsOnePlainFrame)
{
	std::string out = run_ok({"top", "--once", "--interval", "0.1"});
	EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no terminal control codes";
	EXPECT_THAT(out, StartsWith("cxltier top - every 0.1 s - daemon on, period 1000 ms, budget 64 MiB/s, CPU 0.0%\n"));
	EXPECT_THAT(line_starting(out, "   0  dram"), AllOf(HasSubstr("2 GiB"), HasSubstr("1 GiB")));
	EXPECT_THAT(line_starting(out, "   2  tier region0"),
		    AllOf(HasSubstr("1 GiB"), HasSubstr("24 MiB"), HasSubstr("1000 MiB"), HasSubstr("0.0")));
	EXPECT_THAT(line_starting(out, "promoted"), AllOf(HasSubstr("0.0"), HasSubstr("3000")));
	EXPECT_THAT(out, AllOf(HasSubstr("MIGRATION"), HasSubstr("FAST (pages)"), HasSubstr("SLOW (pages)")));
	std::size_t kv = out.find("\nkv "), logs = out.find("\nlogs ");
	ASSERT_NE(kv, std::string::npos) << out;
	ASSERT_NE(logs, std::string::npos) << out;
	EXPECT_LT(kv, logs) << "kv (30% accessed) is hotter than logs (1%)";
	EXPECT_EQ(out.back(), '\n');
}

// --interval takes 0.1 to 3600 seconds; anything else is a usage error.
TEST_F(DaemonCommandTest, TopIntervalIsChecked)
{
	for (const char *bad : {"0", "-1", "abc", "4000"}) {
		SCOPED_TRACE(bad);
		run_result r = run({"top", "--once", "--interval", bad});
		EXPECT_EQ(r.status, 2);
		one_error_line(r);
	}
}

// `cxltierctl top` on a pseudo-terminal of 100x40, as a person runs it: the test
// is the terminal (the master side) and reads what top draws.
class live_top {
public:
	live_top(const env_overrides &env)
	{
		std::vector<std::string> env_strings;
		for (char **e = environ; *e; e++)
			env_strings.emplace_back(*e);
		for (const auto &[name, value] : env)
			if (value)
				env_strings.push_back(name + "=" + *value);
		std::vector<char *> envp;
		for (auto &s : env_strings)
			envp.push_back(s.data());
		envp.push_back(nullptr);

		struct winsize ws = {};
		ws.ws_row = 40;
		ws.ws_col = 100;
		pid_ = ::forkpty(&master_, nullptr, nullptr, &ws);
		if (pid_ == 0) {
			const char *argv[] = {CXLTIERCTL_PATH, "top", "--interval", "0.1", nullptr};
			::execve(CXLTIERCTL_PATH, const_cast<char **>(argv), envp.data());
			::_exit(127);
		}
		if (pid_ > 0)
			::tcgetattr(master_, &before_);
	}
	~live_top()
	{
		if (pid_ > 0 && !reaped_) {
			::kill(pid_, SIGKILL);
			::waitpid(pid_, nullptr, 0);
		}
		if (master_ >= 0)
			::close(master_);
	}
	live_top(const live_top &) = delete;
	live_top &operator=(const live_top &) = delete;

	bool started() const { return pid_ > 0; }
	int master() const { return master_; }
	pid_t pid() const { return pid_; }
	const struct termios &before() const { return before_; }
	std::string screen;

	std::size_t count(const std::string &want) const
	{
		std::size_t n = 0;
		for (std::size_t at = screen.find(want); at != std::string::npos; at = screen.find(want, at + 1))
			n++;
		return n;
	}
	// Reads what it draws until @want shows up @times times in all (or 10 s pass).
	bool read_until(const std::string &want, std::size_t times = 1)
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
		while (count(want) < times && std::chrono::steady_clock::now() < end) {
			struct pollfd p = {master_, POLLIN, 0};
			if (::poll(&p, 1, 100) <= 0)
				continue;
			char buf[4096];
			ssize_t n = ::read(master_, buf, sizeof(buf));
			if (n <= 0)
				break;
			screen.append(buf, static_cast<std::size_t>(n));
		}
		return count(want) >= times;
	}
	bool type(char key) { return ::write(master_, &key, 1) == 1; }
	// Whether top sleeps in a write(2) to its terminal (/proc/PID/syscall: the
	// number, then the arguments), seen for 100 ms on end; waits up to 10 s.
	bool blocked_in_write()
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
		int seen = 0;
		while (std::chrono::steady_clock::now() < end && seen < 10) {
			std::ifstream f("/proc/" + std::to_string(pid_) + "/syscall");
			std::string nr, fd;
			f >> nr >> fd;
			seen = nr == std::to_string(SYS_write) && fd == "0x1" ? seen + 1 : 0;
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		return seen >= 10;
	}
	// The exit status, or -1 when it did not exit within 10 s.
	int wait()
	{
		for (int i = 0; i < 1000; i++) {
			int ws = 0;
			if (::waitpid(pid_, &ws, WNOHANG) == pid_) {
				reaped_ = true;
				return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		return -1;
	}
	// "exit N" and the last thing it wrote, when it has ended; when not, the system
	// call it is in (number and arguments: "1 0x2 ..." is a write to stderr).
	std::string how_it_ended()
	{
		int ws = 0;
		if (reaped_ || ::waitpid(pid_, &ws, WNOHANG) != pid_) {
			std::ifstream f("/proc/" + std::to_string(pid_) + "/syscall");
			std::string line;
			std::getline(f, line);
			return "running, in system call " + line;
		}
		reaped_ = true;
		read_until("\n\n\n"); // what is left to read, for 10 s at most
		std::size_t from = screen.size() > 200 ? screen.size() - 200 : 0;
		return fmt_status(ws) + ", last output: " + screen.substr(from);
	}
	static std::string fmt_status(int ws)
	{
		return WIFEXITED(ws) ? "exit " + std::to_string(WEXITSTATUS(ws))
				     : "signal " + std::to_string(WTERMSIG(ws));
	}
	// The screen and the terminal modes as they were before it started.
	void expect_restored() const
	{
		EXPECT_THAT(screen, StartsWith("\x1b[?1049h\x1b[?25l"));
		EXPECT_THAT(screen, EndsWith("\x1b[?25h\x1b[?1049l"));
		struct termios after;
		ASSERT_EQ(::tcgetattr(master_, &after), 0);
		EXPECT_EQ(after.c_lflag, before_.c_lflag);
		EXPECT_EQ(after.c_cc[VMIN], before_.c_cc[VMIN]);
	}

private:
	int master_ = -1;
	pid_t pid_ = -1;
	bool reaped_ = false;
	struct termios before_ = {};
};

// The live view on a terminal: alternate screen and no cursor while it runs, the
// keyboard without echo; q, or Ctrl-C, ends it with exit status 0, and the screen,
// the cursor and the terminal modes are as they were.
class TopLiveTest : public DaemonCommandTest, public ::testing::WithParamInterface<char> {};

TEST_P(TopLiveTest, QuitsAndRestoresTheTerminal)
{
	live_top top(env());
	ASSERT_TRUE(top.started());
	// Two frames: the first, then one with rates, each drawn from the top left.
	ASSERT_TRUE(top.read_until("\x1b[Hcxltier top", 2)) << top.screen;
	struct termios during;
	ASSERT_EQ(::tcgetattr(top.master(), &during), 0);
	EXPECT_FALSE(during.c_lflag & ICANON);
	EXPECT_FALSE(during.c_lflag & ECHO);
	EXPECT_TRUE(during.c_lflag & ISIG) << "Ctrl-C must still interrupt";

	ASSERT_TRUE(top.type(GetParam()));
	ASSERT_TRUE(top.read_until("\x1b[?1049l")) << "leaves the alternate screen";
	EXPECT_EQ(top.wait(), 0);
	EXPECT_THAT(top.screen, HasSubstr("REGION"));
	top.expect_restored();
}

INSTANTIATE_TEST_SUITE_P(Keys, TopLiveTest, ::testing::Values('q', '\x03'),
			 [](const auto &info) { return info.param == 'q' ? "q" : "CtrlC"; });

// A signal that comes while top waits to write to its terminal: Ctrl-S paused the
// output (or the terminal's reader fell behind).  A resize, twice, lets it go on
// drawing at the new size once Ctrl-Q resumes the output; a Ctrl-C ends it as
// always, exit status 0, the terminal given back.  (Each signal interrupts the
// write: a handler without SA_RESTART made it fail with EINTR, and top ended with
// "cannot write to file".  A Ctrl-C while a frame was being drawn did the same.)
TEST_F(DaemonCommandTest, TopSurvivesSignalsWhileItsOutputIsPaused)
{
	live_top top(env());
	ASSERT_TRUE(top.started());
	ASSERT_TRUE(top.read_until("\x1b[Hcxltier top", 2)) << top.screen;

	ASSERT_TRUE(top.type('\x13')); // Ctrl-S
	for (int i = 0; i < 2; i++) {
		ASSERT_TRUE(top.blocked_in_write()) << "before resize " << i << ": " << top.how_it_ended();
		struct winsize ws = {};
		ws.ws_row = 30;
		ws.ws_col = 90 - i;
		ASSERT_EQ(::ioctl(top.master(), TIOCSWINSZ, &ws), 0);
	}
	ASSERT_TRUE(top.blocked_in_write()) << "after the resizes: " << top.how_it_ended();
	ASSERT_TRUE(top.type('\x11')); // Ctrl-Q
	std::size_t frames = top.count("\x1b[Hcxltier top");
	ASSERT_TRUE(top.read_until("\x1b[Hcxltier top", frames + 3)) << "draws on after Ctrl-Q";
	int ws_status = 0;
	EXPECT_EQ(::waitpid(top.pid(), &ws_status, WNOHANG), 0) << "still running";

	ASSERT_TRUE(top.type('\x13'));
	ASSERT_TRUE(top.blocked_in_write());
	ASSERT_TRUE(top.type('\x03')); // Ctrl-C: the output resumes too (IXON)
	ASSERT_TRUE(top.read_until("\x1b[?1049l")) << "leaves the alternate screen";
	EXPECT_EQ(top.wait(), 0) << top.screen.substr(top.screen.size() > 300 ? top.screen.size() - 300 : 0);
	top.expect_restored();
}

// --- daemon -------------------------------------------------------------------------

// The table lists every tunable with its value, range and meaning; JSON has the
// same with the ranges as numbers (null where the module's fast budget decides).
TEST_F(DaemonCommandTest, DaemonListsTunables)
{
	std::string out = run_ok({"daemon"});
	auto l = lines(out);
	ASSERT_EQ(l.size(), default_tunables.size() + 1) << out;
	EXPECT_THAT(l[0], AllOf(StartsWith("TUNABLE"), HasSubstr("VALUE"), HasSubstr("RANGE"),
				HasSubstr("MEANING")));
	EXPECT_THAT(line_starting(out, "period_ms"), AllOf(HasSubstr("1000"), HasSubstr("10-60000")));
	EXPECT_THAT(line_starting(out, "wmark_high_mb"), HasSubstr("0-fast_budget_mb"));

	json doc = run_json({"daemon", "--json"});
	ASSERT_EQ(doc["tunables"].size(), default_tunables.size());
	EXPECT_EQ(doc["tunables"][1], json({{"name", "period_ms"}, {"value", 1000}, {"min", 10}, {"max", 60000}}));
	EXPECT_TRUE(doc["tunables"][5]["max"].is_null());
}

// Good values are all set, and each change is reported.
TEST_F(DaemonCommandTest, DaemonSetGoodValues)
{
	std::string out = run_ok({"daemon", "set", "period_ms=500", "budget_mbps=32"});
	EXPECT_EQ(out, "period_ms: 1000 -> 500\nbudget_mbps: 64 -> 32\n");
	EXPECT_EQ(tunable("period_ms"), "500");
	EXPECT_EQ(tunable("budget_mbps"), "32");
	// Both watermarks above the old high one: works in the order given.
	run_ok({"daemon", "set", "wmark_low_mb=16", "wmark_high_mb=32"});
	EXPECT_EQ(tunable("wmark_low_mb"), "16");
	EXPECT_EQ(tunable("wmark_high_mb"), "32");
}

// A bad value, an unknown name or a disorderly pair of watermarks changes nothing
// and says why in one line, exit 1.
TEST_F(DaemonCommandTest, DaemonSetBadValuesChangeNothing)
{
	struct bad {
		std::vector<std::string> args;
		const char *why;
	};
	for (const bad &b : {
		     bad{{"budget_mbps=32", "period_ms=5"},
			 "cxltierctl: period_ms=5 is out of range (10-60000); nothing was changed"},
		     bad{{"budget_mbps=32", "enable=2"},
			 "cxltierctl: enable=2 is out of range (0-1); nothing was changed"},
		     bad{{"budget_mbps=32", "perod_ms=500"}, "no daemon tunable 'perod_ms'"},
		     bad{{"budget_mbps=32", "wmark_low_mb=9"},
			 "wmark_low_mb=9 would be above wmark_high_mb=8"},
	     }) {
		std::vector<std::string> args = {"daemon", "set"};
		args.insert(args.end(), b.args.begin(), b.args.end());
		SCOPED_TRACE(args.back());
		run_result r = run(args);
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(r.out, "");
		EXPECT_THAT(one_error_line(r), HasSubstr(b.why));
		EXPECT_EQ(tunable("budget_mbps"), "64");
	}
}

// When the module refuses a value (EINVAL), the message names the file and value
// and says what was put back; every tunable keeps its old value.
TEST_F(DaemonCommandTest, DaemonSetRefusedByTheModuleIsUndone)
{
	sysfs.write("daemon/new_knob", "1");
	refuse = (sysfs.root() / "daemon/new_knob").string();
	run_result r = run({"daemon", "set", "period_ms=500", "new_knob=7"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_THAT(one_error_line(r),
		    AllOf(HasSubstr("daemon/new_knob: cannot set 7: the module refused the value"),
			  HasSubstr("period_ms restored to 1000")));
	EXPECT_EQ(tunable("period_ms"), "1000");
}

// Assignments that are not NAME=DECIMAL are usage errors: exit 2, nothing done.
TEST_F(DaemonCommandTest, DaemonSetSyntax)
{
	for (const char *bad : {"period_ms", "period_ms=", "=5", "period_ms=-5", "period_ms=5x"}) {
		SCOPED_TRACE(bad);
		run_result r = run({"daemon", "set", "budget_mbps=32", bad});
		EXPECT_EQ(r.status, 2);
		EXPECT_EQ(r.out, "");
		one_error_line(r);
	}
	EXPECT_EQ(run({"daemon", "set"}).status, 2);
	EXPECT_EQ(tunable("budget_mbps"), "64");
}

// --- region hint --------------------------------------------------------------------

// A hint with sizes in suffixes reaches the module as bytes; the default range is
// from the offset to the end.
TEST_F(DaemonCommandTest, RegionHintSendsTheRange)
{
	EXPECT_EQ(run_ok({"region", "hint", "kv", "--offset", "64M", "--length", "1M", "hot"}),
		  "Region kv: pages 16384-16639 (1 MiB) hinted hot.\n");
	EXPECT_EQ(run_ok({"region", "hint", "kv", "pin", "--offset", "1020M"}),
		  "Region kv: pages 261120-262143 (4 MiB) hinted pin.\n");
	run_ok({"region", "hint", "kv", "none"});
	EXPECT_EQ(dev.hints(), "kv 67108864 1048576 1\nkv 1069547520 4194304 3\nkv 0 1073741824 0\n");
}

// Wrong input gets one clear line and a non-zero exit, and nothing reaches the
// module: usage errors (exit 2) for what the command line alone shows wrong, exit 1
// for what only the region can tell.
TEST_F(DaemonCommandTest, RegionHintRefusesWrongInput)
{
	struct bad {
		std::vector<std::string> args;
		int status;
		const char *why;
	};
	for (const bad &b : {
		     bad{{"kv", "warm"}, 2, "'warm' is not a hint (hot, cold, pin or none)"},
		     bad{{"kv", "hot", "--offset", "4097"}, 2,
			 "4097 is not a multiple of the page size"},
		     bad{{"kv", "hot", "--length", "1000"}, 2,
			 "1000 is not a nonzero multiple of the page size"},
		     bad{{"kv", "hot", "--length", "0"}, 2, "0 is not a nonzero multiple"},
		     bad{{"kv"}, 2, "HINT is required"},
		     bad{{"nosuch", "cold"}, 1, "cxltierctl: open region 'nosuch': no such region"},
		     bad{{"logs", "cold"}, 1, "permission denied by the region's mode (a hint needs write access)"},
		     bad{{"kv", "cold", "--offset", "2G"}, 1,
			 "cxltierctl: offset 2147483648 is past the end of region kv (1 GiB)"},
		     bad{{"kv", "cold", "--offset", "1G"}, 1, "past the end of region kv"},
		     bad{{"kv", "cold", "--offset", "1020M", "--length", "8M"}, 1,
			 "range 1069547520+8388608 is not within the region"},
	     }) {
		std::vector<std::string> args = {"region", "hint"};
		args.insert(args.end(), b.args.begin(), b.args.end());
		SCOPED_TRACE(::testing::PrintToString(args));
		run_result r = run(args);
		EXPECT_EQ(r.status, b.status);
		EXPECT_EQ(r.out, "");
		EXPECT_THAT(one_error_line(r), HasSubstr(b.why));
	}
	EXPECT_EQ(dev.hints(), "");
}

// The module's refusal of a hint is reported as such.
TEST_F(DaemonCommandTest, RegionHintModuleRefusal)
{
	dev.set_regions({"1 kv 1073741824 0 0600 rw hint_errno=22"});
	run_result r = run({"region", "hint", "kv", "hot"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(one_error_line(r), AllOf(HasSubstr("hint region 'kv'"), HasSubstr("the module refused")));
}

// region stat shows the migration counters, in text and JSON.
TEST_F(DaemonCommandTest, RegionStatHasMigrationCounters)
{
	std::string out = run_ok({"region", "stat", "kv"});
	EXPECT_THAT(out, HasSubstr("  moved     3000 promoted, 900 demoted, 10 ping-pong, 15.3 MiB copied\n"));
	EXPECT_THAT(out, HasSubstr("  not moved 3 pinned, 1 failed; 0 pages hinted\n"));
	json doc = run_json({"region", "stat", "logs", "--json"});
	EXPECT_EQ(doc["region"]["hinted_pages"], 4096);
	EXPECT_EQ(doc["region"]["accessed_pages"], 100);
}

} // namespace
