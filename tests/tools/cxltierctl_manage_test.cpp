// SPDX-License-Identifier: GPL-2.0
// Process mode's opt-ins: cxltierctl manage, unmanage and managed end to end, with
// CXLTIER_STATE_DIR and CXLTIER_CGROUP_ROOT pointing at temporary directories and
// a child of the test standing in for cxltier-procd (fake_procd.hpp); the targets
// are live processes the test starts (sleep), fake cgroup directories, and
// status.json as a test writes it.  Then the state directory's helpers
// (tools/procd/state.cpp) on their own.
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_procd.hpp"
#include "run_cli.hpp"
#include "state.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using json = nlohmann::json;
using cxlt_procd::target;

namespace {

// A process to manage: sleep(1), killed at scope exit.
class sleeper {
public:
	sleeper()
	{
		char arg0[] = "sleep", arg1[] = "1000";
		char *argv[] = {arg0, arg1, nullptr};
		int rc = ::posix_spawnp(&pid_, "sleep", nullptr, nullptr, argv, environ);
		if (rc != 0)
			throw std::system_error(rc, std::generic_category(), "posix_spawnp sleep");
		// Spawned is not yet exec'd: wait until it is sleep (its comm says so).
		for (int i = 0; i < 1000 && slurp(fs::path("/proc") / std::to_string(pid_) / "comm") !=
						    "sleep\n";
		     i++)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	~sleeper()
	{
		::kill(pid_, SIGKILL);
		while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR)
			;
	}
	sleeper(const sleeper &) = delete;
	sleeper &operator=(const sleeper &) = delete;
	pid_t pid() const { return pid_; }

private:
	pid_t pid_ = -1;
};

// A pid no process has: pid_max itself (pids stay below it).
pid_t unused_pid()
{
	long max = std::stol(slurp("/proc/sys/kernel/pid_max"));
	return static_cast<pid_t>(max);
}

// A kernel thread this test can see (kthreadd is pid 2 outside a pid namespace).
std::optional<pid_t> kernel_thread()
{
	constexpr unsigned long pf_kthread = 0x00200000;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator("/proc", ec)) {
		std::string name = e.path().filename();
		if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit))
			continue;
		std::string stat = slurp(e.path() / "stat");
		auto close = stat.rfind(')');
		if (close == std::string::npos)
			continue;
		std::istringstream rest(stat.substr(close + 2));
		std::string field;
		unsigned long flags = 0;
		for (int i = 3; i <= 9 && rest >> field; i++)
			if (i == 9)
				flags = std::stoul(field);
		if (flags & pf_kthread)
			return static_cast<pid_t>(std::stol(name));
	}
	return std::nullopt;
}

// Field 22 of /proc/PID/stat, read here independently of state.cpp.
std::string starttime_field(pid_t pid)
{
	std::string stat = slurp(fs::path("/proc") / std::to_string(pid) / "stat");
	std::istringstream rest(stat.substr(stat.rfind(')') + 2));
	std::string field;
	for (int i = 3; i <= 22; i++)
		rest >> field;
	return field;
}

target pid_opt_in(pid_t pid, std::uint64_t starttime)
{
	target t;
	t.pid = pid;
	t.starttime = starttime;
	return t;
}

target cgroup_opt_in(const fs::path &path)
{
	target t;
	t.what = target::kind::cgroup;
	t.cgroup = path.string();
	return t;
}

// The files in @dir/managed, by name.
std::vector<std::string> files_in(const fs::path &dir)
{
	std::vector<std::string> out;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(dir / "managed", ec))
		out.push_back(e.path().filename());
	std::sort(out.begin(), out.end());
	return out;
}

const char *const not_running =
	"cxltierctl: cxltier-procd is not running (start it: systemctl start cxltier-procd)\n";

class ManageTest : public ::testing::Test {
protected:
	env_overrides env() const
	{
		return {{"CXLTIER_STATE_DIR", state.path().string()},
			{"CXLTIER_CGROUP_ROOT", cgroups.path().string()}};
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

	fs::path managed_dir() const { return state.path() / "managed"; }

	std::vector<std::string> managed_files() const { return files_in(state.path()); }

	// A fake cgroup under the root: a directory with cgroup.procs listing @pids.
	fs::path add_cgroup(const std::string &rel, const std::string &pids)
	{
		fs::path p = cgroups.path() / rel;
		fs::create_directories(p);
		std::ofstream(p / "cgroup.procs") << pids;
		return fs::canonical(p);
	}

	// What `sh -c 'exec cxltierctl ARGS $$'` does: cxltierctl given its own pid.
	run_result run_with_own_pid(const std::string &args)
	{
		temp_dir io;
		std::vector<std::string> env;
		for (char **e = environ; *e; e++)
			env.emplace_back(*e);
		for (const auto &[name, value] : this->env())
			env.push_back(name + "=" + *value);
		std::vector<char *> envp;
		for (auto &e : env)
			envp.push_back(e.data());
		envp.push_back(nullptr);
		std::string script = "exec \"$0\" " + args + " $$";
		std::vector<std::string> argv_s = {"sh", "-c", script, CXLTIERCTL_PATH};
		std::vector<char *> argv;
		for (auto &a : argv_s)
			argv.push_back(a.data());
		argv.push_back(nullptr);
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		std::string out = (io.path() / "out").string(), err = (io.path() / "err").string();
		posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		pid_t pid;
		run_result r;
		int rc = ::posix_spawn(&pid, "/bin/sh", &fa, nullptr, argv.data(), envp.data());
		posix_spawn_file_actions_destroy(&fa);
		if (rc != 0) {
			ADD_FAILURE() << "cannot run /bin/sh: " << std::strerror(rc);
			return r;
		}
		int ws = 0;
		while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
		r.out = slurp(out);
		r.err = slurp(err);
		return r;
	}

	void write_status(const json &doc) const
	{
		std::ofstream(state.path() / "status.json") << doc.dump();
	}

	temp_dir state;
	temp_dir cgroups;
};

// --- manage -----------------------------------------------------------------------

// The opt-in of a live process names its start time, so that a later process with
// the same pid is not taken for it; a second manage changes nothing.
TEST_F(ManageTest, ManagesALiveProcess)
{
	fake_procd procd(state.path());
	sleeper job;
	std::string pid = std::to_string(job.pid());

	run_result r = run({"manage", "--pid", pid});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing pid " + pid + " (sleep)\n");
	EXPECT_EQ(r.err, "");
	EXPECT_THAT(managed_files(), ElementsAre("pid-" + pid));
	std::string opt_in = "pid " + pid + " " + starttime_field(job.pid()) + "\n";
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)), opt_in);

	r = run({"manage", "--pid", pid});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "pid " + pid + " (sleep) is already managed\n");
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)), opt_in);
}

// --fast is the target's limit on DRAM; managing it again with another one updates it.
TEST_F(ManageTest, FastLimit)
{
	fake_procd procd(state.path());
	sleeper job;
	std::string pid = std::to_string(job.pid());
	std::string opt_in = "pid " + pid + " " + starttime_field(job.pid()) + "\n";

	run_result r = run({"manage", "--pid", pid, "--fast", "6M"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)), opt_in + "fast 6291456\n");
	r = run({"manage", "--pid", pid});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing pid " + pid + " (sleep)\n");
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)), opt_in);
	r = run({"manage", "--pid", pid, "--fast", "lots"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)), opt_in);
}

// An opt-in left by an earlier process with the same pid is replaced.
TEST_F(ManageTest, ReplacesAStaleOptIn)
{
	fake_procd procd(state.path());
	sleeper job;
	std::string pid = std::to_string(job.pid());
	cxlt_procd::write_target(state.path(), pid_opt_in(job.pid(), 1));

	run_result r = run({"manage", "--pid", pid});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing pid " + pid + " (sleep)\n");
	EXPECT_EQ(slurp(managed_dir() / ("pid-" + pid)),
		  "pid " + pid + " " + starttime_field(job.pid()) + "\n");
}

// Several --pid: each checked before any is written.
TEST_F(ManageTest, SeveralPids)
{
	fake_procd procd(state.path());
	sleeper a, b;
	std::string pa = std::to_string(a.pid()), pb = std::to_string(b.pid());
	run_result r = run({"manage", "--pid", pa, "--pid", pb, "--pid", pa});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing pid " + pa + " (sleep)\nmanaging pid " + pb + " (sleep)\n");
	EXPECT_EQ(managed_files().size(), 2u);

	fs::remove_all(managed_dir());
	r = run({"manage", "--pid", pa, "--pid", std::to_string(unused_pid())});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_THAT(managed_files(), IsEmpty());
}

// A pid that is not a number above 0 is a usage error (exit 2).
TEST_F(ManageTest, MalformedPidIsAUsageError)
{
	fake_procd procd(state.path());
	for (const char *bad : {"0", "-1", "abc", "12x", "99999999999"}) {
		SCOPED_TRACE(bad);
		run_result r = run({"manage", std::string("--pid=") + bad});
		EXPECT_EQ(r.status, 2);
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, std::string("cxltierctl: --pid: '") + bad +
					 "' is not a process id (a number above 0) (see cxltierctl --help)\n");
	}
	run_result r = run({"manage", "--pid", "-1"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(run({"manage", "--pid="}).status, 2);
	r = run({"manage"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(r.err, "cxltierctl: manage: give --pid PID or --cgroup PATH (see cxltierctl --help)\n");
	sleeper job;
	r = run({"manage", "--pid", std::to_string(job.pid()), "--cgroup", "job"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(r.err, "cxltierctl: --pid excludes --cgroup (see cxltierctl --help)\n");
	EXPECT_THAT(managed_files(), IsEmpty());
}

// Processes that cannot be managed are refused in one line, exit 1.
TEST_F(ManageTest, RefusesWhatCannotBeManaged)
{
	fake_procd procd(state.path());
	std::string none = std::to_string(unused_pid());
	run_result r = run({"manage", "--pid", none});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "cxltierctl: no process " + none + "\n");

	std::string svc = std::to_string(procd.pid());
	r = run({"manage", "--pid", svc});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: pid " + svc + " is cxltier-procd itself\n");

	r = run_with_own_pid("manage --pid");
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, ::testing::MatchesRegex("cxltierctl: pid [0-9]+ is cxltierctl itself\n"));

	// A thread of this test: /proc/TID works, but an opt-in is of a process.
	std::atomic<pid_t> tid{0};
	std::atomic<bool> done{false};
	std::thread t([&] {
		tid = ::gettid();
		while (!done)
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
	});
	while (!tid)
		std::this_thread::yield();
	r = run({"manage", "--pid", std::to_string(tid.load())});
	done = true;
	t.join();
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: pid " + std::to_string(tid.load()) + " is a thread of process " +
				 std::to_string(::getpid()) + " (manage --pid " +
				 std::to_string(::getpid()) + ")\n");
	EXPECT_THAT(managed_files(), IsEmpty());

	auto kthread = kernel_thread();
	if (!kthread)
		GTEST_SKIP() << "no kernel thread visible in /proc (a pid namespace)";
	ASSERT_FALSE(cxlt_procd::process_starttime(*kthread));
	std::string k = std::to_string(*kthread);
	r = run({"manage", "--pid", k});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: pid " + k + " is a kernel thread: it has no memory to manage\n");
	EXPECT_THAT(managed_files(), IsEmpty());
}

// Without the service nothing is written, unless asked for; a pid file whose lock
// nobody holds is a service that stopped.
TEST_F(ManageTest, RefusedWithoutTheService)
{
	sleeper job;
	std::string pid = std::to_string(job.pid());
	run_result r = run({"manage", "--pid", pid});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, not_running);
	EXPECT_FALSE(fs::exists(managed_dir()));

	{
		fake_procd procd(state.path());
		procd.stop();
		ASSERT_TRUE(fs::exists(state.path() / "procd.pid"));
		r = run({"manage", "--pid", pid});
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(r.err, not_running);
		EXPECT_FALSE(fs::exists(managed_dir()));
	}

	add_cgroup("job", "1\n");
	r = run({"manage", "--cgroup", "job"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, not_running);
	EXPECT_FALSE(fs::exists(managed_dir()));

	r = run({"manage", "--no-service-check", "--pid", pid});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing pid " + pid + " (sleep)\n");
	EXPECT_EQ(r.err, "cxltierctl: cxltier-procd is not running: it takes the opt-in up when it "
			 "starts\n");
	EXPECT_THAT(managed_files(), ElementsAre("pid-" + pid));
}

// A cgroup relative to the root or absolute is stored absolute and normal.
TEST_F(ManageTest, ManagesACgroup)
{
	fake_procd procd(state.path());
	fs::path job = add_cgroup("jobs/job1", "10\n11\n12\n");
	std::string file = cgroup_opt_in(job).file_name();

	run_result r = run({"manage", "--cgroup", "jobs/job1"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing cgroup " + job.string() + " (3 processes)\n");
	EXPECT_THAT(managed_files(), ElementsAre(file));
	EXPECT_EQ(slurp(managed_dir() / file), "cgroup " + job.string() + "\n");

	for (const std::string &same : {job.string(), job.string() + "/", std::string("./jobs//job1/"),
					(cgroups.path() / "jobs/../jobs/job1").string()}) {
		r = run({"manage", "--cgroup", same});
		EXPECT_EQ(r.status, 0) << same << ": " << r.err;
		EXPECT_EQ(r.out, "cgroup " + job.string() + " is already managed\n") << same;
	}
	EXPECT_THAT(managed_files(), ElementsAre(file));

	fs::path one = add_cgroup("one", "42\n");
	r = run({"manage", "--cgroup", one.string()});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "managing cgroup " + one.string() + " (1 process)\n");
}

// Not a cgroup: no cgroup.procs, not there, not under the root, or the root itself.
TEST_F(ManageTest, RefusesWhatIsNotACgroup)
{
	fake_procd procd(state.path());
	fs::path root = fs::canonical(cgroups.path());
	fs::create_directories(root / "plain");
	struct {
		std::string path;
		std::string err;
	} cases[] = {
		{"plain", "not a cgroup v2 directory: " + (root / "plain").string()},
		{(root / "plain").string(), "not a cgroup v2 directory: " + (root / "plain").string()},
		{"missing", "not a cgroup v2 directory: " + (root / "missing").string()},
		{"/etc", "not a cgroup v2 directory: /etc (not under " + root.string() + ")"},
		{"../x", "not a cgroup v2 directory: " + (root.parent_path() / "x").string() +
				 " (not under " + root.string() + ")"},
		{".", root.string() + " is the root cgroup, which holds every process on the host: "
				      "manage a cgroup below it"},
	};
	std::ofstream(root / "cgroup.procs") << "1\n";
	for (const auto &c : cases) {
		run_result r = run({"manage", "--cgroup", c.path});
		EXPECT_EQ(r.status, 1) << c.path;
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, "cxltierctl: " + c.err + "\n");
	}
	EXPECT_THAT(managed_files(), IsEmpty());
}

// --- unmanage ---------------------------------------------------------------------

// unmanage needs no service, and no process or cgroup either: only the opt-in.
TEST_F(ManageTest, Unmanage)
{
	fs::path job = add_cgroup("job", "");
	cxlt_procd::write_target(state.path(), pid_opt_in(4242, 99));
	cxlt_procd::write_target(state.path(), cgroup_opt_in(job));

	run_result r = run({"unmanage", "--pid", "4242"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "no longer managing pid 4242\n");
	EXPECT_EQ(r.err, "");
	r = run({"unmanage", "--pid", "4242"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "cxltierctl: pid 4242 is not managed\n");

	fs::remove_all(job); // the cgroup went first
	r = run({"unmanage", "--cgroup", "job/"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "no longer managing cgroup " + job.string() + "\n");
	r = run({"unmanage", "--cgroup", job.string()});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: cgroup " + job.string() + " is not managed\n");
	EXPECT_THAT(managed_files(), IsEmpty());

	EXPECT_EQ(run({"unmanage", "--pid", "x"}).status, 2);
	EXPECT_EQ(run({"unmanage"}).status, 2);
}

// --- managed ----------------------------------------------------------------------

class ManagedTest : public ManageTest {
protected:
	void SetUp() override
	{
		procd.emplace(state.path());
		live_pid = std::to_string(live.pid());
		cxlt_procd::write_target(
			state.path(),
			pid_opt_in(live.pid(), *cxlt_procd::process_starttime(live.pid())));
		gone_pid = std::to_string(unused_pid());
		cxlt_procd::write_target(state.path(), pid_opt_in(unused_pid(), 7));
		cg = add_cgroup("job", "1\n");
		cxlt_procd::write_target(state.path(), cgroup_opt_in(cg));
	}

	// What the service would write: the live process managed with two processes
	// counted, the other one gone, the cgroup not yet taken up, and a target no
	// longer opted in.
	json status() const
	{
		std::string svc_pid = std::to_string(procd->pid());
		return json::parse(R"({"service": {"pid": )" + svc_pid + R"(, "period": 17,
				"period_ms": 1000, "budget_mbps": 64, "flush_ms": 100},
			"targets": [
			 {"target": "pid-)" + live_pid + R"(", "kind": "pid", "pid": )" + live_pid + R"(,
			  "cgroup": null, "state": "managed", "reason": "", "pages": 2560,
			  "fast_pages": 512, "slow_pages": 2048, "promoted": 300, "demoted": 1200,
			  "failed": 2, "skipped": 5,
			  "processes": [{"pid": )" + live_pid + R"(, "comm": "trainer", "pages": 2560,
				"fast_pages": 512, "slow_pages": 2048, "promoted": 300, "demoted": 1200,
				"failed": 2, "skipped": 5}]},
			 {"target": "pid-)" + gone_pid + R"(", "kind": "pid", "pid": )" + gone_pid + R"(,
			  "cgroup": null, "state": "gone", "reason": "the process exited", "pages": 0,
			  "fast_pages": 0, "slow_pages": 0, "promoted": 10, "demoted": 20, "failed": 0,
			  "skipped": 0, "processes": []},
			 {"target": "pid-1", "kind": "pid", "pid": 1, "cgroup": null, "state": "refused",
			  "reason": "init", "pages": 0, "fast_pages": 0, "slow_pages": 0, "promoted": 0,
			  "demoted": 0, "failed": 0, "skipped": 0, "processes": []}]})");
	}

	// The opt-ins' file names in the order managed lists them.
	std::vector<std::string> names() const
	{
		std::vector<std::string> n = {"pid-" + live_pid, "pid-" + gone_pid,
					      cgroup_opt_in(cg).file_name()};
		std::sort(n.begin(), n.end());
		return n;
	}

	sleeper live;
	std::optional<fake_procd> procd;
	std::string live_pid, gone_pid;
	fs::path cg;
};

TEST_F(ManagedTest, Table)
{
	write_status(status());
	run_result r = run({"managed"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 6u) << r.out;
	EXPECT_EQ(l[0], "cxltier-procd is running (pid " + std::to_string(procd->pid()) +
				", period 17)");
	EXPECT_THAT(l[1], ::testing::MatchesRegex("TARGET +STATE +PAGES +FAST +SLOW +PROMOTED +"
						  "DEMOTED +FAILED +SKIPPED"));
	std::map<std::string, std::string> rows;
	for (std::size_t i = 2; i < 5; i++)
		rows[l[i].substr(0, l[i].find("  "))] = l[i];
	std::string live_label = "pid " + live_pid + " (trainer)";
	ASSERT_TRUE(rows.count(live_label)) << r.out;
	EXPECT_THAT(rows[live_label],
		    ::testing::MatchesRegex(".* managed +10 MiB +2 MiB +8 MiB +300 +1200 +2 +5"));
	ASSERT_TRUE(rows.count("pid " + gone_pid)) << r.out;
	EXPECT_THAT(rows["pid " + gone_pid],
		    ::testing::MatchesRegex(".* gone +0 B +0 B +0 B +10 +20 +0 +0"));
	ASSERT_TRUE(rows.count("cgroup " + cg.string())) << r.out;
	EXPECT_THAT(rows["cgroup " + cg.string()],
		    ::testing::MatchesRegex(".* pending +0 B +0 B +0 B +0 +0 +0 +0"));
	EXPECT_EQ(l[5], "pid " + gone_pid + ": gone: the process exited");
	// Rows in file-name order, as the JSON has them.
	std::vector<std::string> order;
	for (std::size_t i = 2; i < 5; i++)
		order.push_back(l[i].starts_with("cgroup ") ? cgroup_opt_in(cg).file_name()
				: l[i].starts_with("pid " + live_pid + " ") ? "pid-" + live_pid
									    : "pid-" + gone_pid);
	EXPECT_EQ(order, names());
}

TEST_F(ManagedTest, Json)
{
	json st = status();
	write_status(st);
	run_result r = run({"managed", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	json doc = json::parse(r.out, nullptr, false);
	ASSERT_FALSE(doc.is_discarded()) << r.out;
	EXPECT_EQ(doc["service"], st["service"]);
	ASSERT_EQ(doc["targets"].size(), 3u) << r.out;
	std::vector<std::string> got;
	for (const auto &t : doc["targets"])
		got.push_back(t["target"]);
	EXPECT_EQ(got, names());
	for (const auto &t : doc["targets"]) {
		SCOPED_TRACE(t.dump());
		if (t["target"] == "pid-" + live_pid)
			EXPECT_EQ(t, st["targets"][0]);
		else if (t["target"] == "pid-" + gone_pid)
			EXPECT_EQ(t, st["targets"][1]);
		else
			EXPECT_EQ(t, json::parse(R"({"target": ")" + cgroup_opt_in(cg).file_name() + R"(", "kind": "cgroup",
				"pid": null, "cgroup": ")" + cg.string() + R"(", "state": "pending",
				"reason": "", "pages": 0, "fast_pages": 0, "slow_pages": 0, "promoted": 0,
				"demoted": 0, "failed": 0, "skipped": 0, "processes": []})"));
	}
}

// A status.json left by an earlier run of the service (another pid), or none yet:
// everything is pending; without the service, service is null.
TEST_F(ManagedTest, StatusOfAnotherServiceIsIgnored)
{
	json st = status();
	st["service"]["pid"] = procd->pid() + 1;
	write_status(st);
	std::string svc = std::to_string(procd->pid());
	for (int round = 0; round < 2; round++) {
		SCOPED_TRACE(round);
		run_result r = run({"managed"});
		ASSERT_EQ(r.status, 0) << r.err;
		auto l = lines(r.out);
		ASSERT_EQ(l.size(), 5u) << r.out;
		EXPECT_EQ(l[0], "cxltier-procd is running (pid " + svc + ", no status yet)");
		for (std::size_t i = 2; i < 5; i++)
			EXPECT_THAT(l[i], ::testing::HasSubstr(" pending "));
		json doc = json::parse(run({"managed", "--json"}).out);
		EXPECT_EQ(doc["service"], json::parse(R"({"pid": )" + svc + R"(, "period": null,
			"period_ms": null, "budget_mbps": null, "flush_ms": null, "cpu_ms": null})"));
		for (const auto &t : doc["targets"])
			EXPECT_EQ(t["state"], "pending");
		fs::remove(state.path() / "status.json");
	}

	write_status(status());
	procd->stop();
	run_result r = run({"managed"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(lines(r.out)[0], "cxltier-procd is not running");
	json doc = json::parse(run({"managed", "--json"}).out);
	EXPECT_TRUE(doc["service"].is_null());
	for (const auto &t : doc["targets"])
		EXPECT_EQ(t["state"], "pending");
}

TEST_F(ManageTest, ManagedWithNothing)
{
	run_result r = run({"managed"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "cxltier-procd is not running\n"
			 "No targets are managed (opt one in: cxltierctl manage --pid PID or "
			 "--cgroup PATH).\n");
	r = run({"managed", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(json::parse(r.out), json::parse(R"({"service": null, "targets": []})"));
}

// --- state.cpp --------------------------------------------------------------------

TEST(ProcdState, FileNames)
{
	target p;
	p.pid = 1234;
	EXPECT_EQ(p.file_name(), "pid-1234");
	EXPECT_EQ(cgroup_opt_in("/sys/fs/cgroup/a/b").file_name(), "cgroup-%sys%fs%cgroup%a%b");
}

TEST(ProcdState, StateDir)
{
	const char *old = std::getenv("CXLTIER_STATE_DIR");
	std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
	::unsetenv("CXLTIER_STATE_DIR");
	EXPECT_EQ(cxlt_procd::state_dir(), "/run/cxltier");
	::setenv("CXLTIER_STATE_DIR", "", 1);
	EXPECT_EQ(cxlt_procd::state_dir(), "/run/cxltier");
	::setenv("CXLTIER_STATE_DIR", "/tmp/x", 1);
	EXPECT_EQ(cxlt_procd::state_dir(), "/tmp/x");
	if (saved)
		::setenv("CXLTIER_STATE_DIR", saved->c_str(), 1);
	else
		::unsetenv("CXLTIER_STATE_DIR");
}

// Written, read back in file-name order (the fast limit too), removed once.
TEST(ProcdState, RoundTrip)
{
	temp_dir dir;
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), IsEmpty()); // no managed/ yet
	target p = pid_opt_in(77, 123456);
	p.fast_bytes = 1 << 30;
	target c = cgroup_opt_in("/sys/fs/cgroup/job one");
	cxlt_procd::write_target(dir.path(), p);
	cxlt_procd::write_target(dir.path(), c);
	EXPECT_EQ(slurp(dir.path() / "managed/pid-77"), "pid 77 123456\nfast 1073741824\n");
	EXPECT_EQ(slurp(dir.path() / "managed/cgroup-%sys%fs%cgroup%job one"),
		  "cgroup /sys/fs/cgroup/job one\n");
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), ElementsAre(c, p));

	p.starttime = 5; // rewritten in place
	p.fast_bytes = 0;
	cxlt_procd::write_target(dir.path(), p);
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), ElementsAre(c, p));

	EXPECT_TRUE(cxlt_procd::remove_target(dir.path(), p));
	EXPECT_FALSE(cxlt_procd::remove_target(dir.path(), p));
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), ElementsAre(c));
	EXPECT_TRUE(cxlt_procd::remove_target(dir.path(), c));
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), IsEmpty());
	EXPECT_THAT(files_in(dir.path()), IsEmpty());
}

// Files that do not parse, or whose name is not their target's, are skipped.
TEST(ProcdState, BadFilesAreSkipped)
{
	temp_dir dir;
	fs::create_directories(dir.path() / "managed");
	auto put = [&](const std::string &name, const std::string &text) {
		std::ofstream(dir.path() / "managed" / name) << text;
	};
	put("pid-1", "pid 1 100\n");			// the one good file
	put("pid-2", "pid two 100\n");
	put("pid-3", "pid 4 100\n");			// another pid's name
	put("pid-0", "pid 0 100\n");
	put("pid-5", "");
	put("pid-6", "process 6 100\n");
	put("cgroup-job", "cgroup job\n");		// not absolute
	put("cgroup-%a", "cgroup \n");
	put("pid-7.tmp", "pid 7 100\n");		// half written
	EXPECT_THAT(cxlt_procd::read_targets(dir.path()), ElementsAre(pid_opt_in(1, 100)));
}

// The start time is field 22 of /proc/PID/stat; none for no process or a kernel
// thread.
TEST(ProcdState, ProcessStarttime)
{
	auto self = cxlt_procd::process_starttime(::getpid());
	ASSERT_TRUE(self);
	EXPECT_GT(*self, 0u);
	EXPECT_EQ(std::to_string(*self), starttime_field(::getpid()));
	EXPECT_EQ(cxlt_procd::process_starttime(::getpid()), self);
	sleeper child;
	auto c = cxlt_procd::process_starttime(child.pid());
	ASSERT_TRUE(c);
	EXPECT_GE(*c, *self);
	EXPECT_FALSE(cxlt_procd::process_starttime(0));
	EXPECT_FALSE(cxlt_procd::process_starttime(-1));
	EXPECT_FALSE(cxlt_procd::process_starttime(unused_pid()));
	if (auto k = kernel_thread()) {
		EXPECT_FALSE(cxlt_procd::process_starttime(*k)) << "kernel thread " << *k;
	}
}

// The service runs while a process holds the lock on procd.pid; the pid is the
// file's.
TEST(ProcdState, ServicePid)
{
	temp_dir dir;
	EXPECT_FALSE(cxlt_procd::service_pid(dir.path()));
	{
		fake_procd procd(dir.path());
		EXPECT_EQ(cxlt_procd::service_pid(dir.path()), procd.pid());
		EXPECT_EQ(cxlt_procd::service_pid(dir.path()), procd.pid()); // no lock left behind
		procd.stop();
		EXPECT_FALSE(cxlt_procd::service_pid(dir.path()));
	}
	// Held by this process through another open file: still held.
	int fd = ::open((dir.path() / "procd.pid").c_str(), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(::flock(fd, LOCK_EX), 0);
	EXPECT_TRUE(cxlt_procd::service_pid(dir.path()));
	ASSERT_EQ(::ftruncate(fd, 0), 0);
	EXPECT_FALSE(cxlt_procd::service_pid(dir.path())); // no pid in it
	ASSERT_EQ(::pwrite(fd, "0\n", 2, 0), 2);
	EXPECT_FALSE(cxlt_procd::service_pid(dir.path()));
	::close(fd);
}

TEST(ProcdState, CgroupPids)
{
	temp_dir dir;
	EXPECT_FALSE(cxlt_procd::cgroup_pids(dir.path()));
	std::ofstream(dir.path() / "cgroup.procs") << "";
	EXPECT_THAT(*cxlt_procd::cgroup_pids(dir.path()), IsEmpty());
	std::ofstream(dir.path() / "cgroup.procs") << "12\n345\n";
	EXPECT_THAT(*cxlt_procd::cgroup_pids(dir.path()), ElementsAre(12, 345));
}

} // namespace
