// SPDX-License-Identifier: GPL-2.0
// The SPANK plugin's hooks, as Slurm calls them: the tests' build of
// cxltier_spank.so (linked with the tests' libcxltier, whose nodes and tiers come
// from fake trees) loaded with dlopen(RTLD_NOW | RTLD_LOCAL) into this program,
// which plays Slurm: it defines the SPANK functions the plugin calls (exported,
// so the plugin binds to them), with a fake handle per hook call.  set_mempolicy()
// is tests/lib/fake_mempolicy.c's (linked in: the policy a task sets is logged),
// get_mempolicy() answers the nodes CXLTIER_FAKE_MEMS_ALLOWED lists ("0,2") when set.
// scontrol is a script that logs its arguments.
#include <dlfcn.h>
#include <numaif.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

extern "C" {
#include <slurm/spank.h>
}

#include "slurm_opts.hpp"
#include "pool_fake_sys.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// --- Slurm, as far as the plugin sees it -------------------------------------------

// What a hook is called with: the job, its options as Slurm found them, and the
// task's environment it sets.
struct spank_handle {
	std::uint32_t jobid = 42;
	std::map<std::string, std::string> options; // by option name, for spank_option_getopt()
	std::map<std::string, std::string> env;	    // spank_setenv()
};

namespace fake {
// ESPANK_SUCCESS is a plain 0, not of the enum.
constexpr spank_err_t success = static_cast<spank_err_t>(ESPANK_SUCCESS);
spank_context_t context = S_CTX_ERROR;
std::vector<spank_option *> registered;
std::vector<std::string> errors, infos, logs;

std::string format(const char *fmt, va_list ap)
{
	char buf[4096];
	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	return buf;
}
} // namespace fake

extern "C" {

spank_context_t spank_context(void)
{
	return fake::context;
}

spank_err_t spank_option_register(spank_t, struct spank_option *opt)
{
	fake::registered.push_back(opt);
	return fake::success;
}

spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **arg)
{
	auto it = sp->options.find(opt->name);
	if (it == sp->options.end())
		return ESPANK_ERROR;
	*arg = it->second.data();
	return fake::success;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	if (item != S_JOB_ID)
		return ESPANK_BAD_ARG;
	va_list ap;
	va_start(ap, item);
	*va_arg(ap, std::uint32_t *) = sp->jobid;
	va_end(ap);
	return fake::success;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	if (!overwrite && sp->env.count(var))
		return ESPANK_ENV_EXISTS;
	sp->env[var] = val;
	return fake::success;
}

const char *spank_strerror(spank_err_t)
{
	return "fake error";
}

#define FAKE_LOG(name, into)                                                                  \
	void name(const char *fmt, ...)                                                       \
	{                                                                                     \
		va_list ap;                                                                   \
		va_start(ap, fmt);                                                            \
		fake::into.push_back(fake::format(fmt, ap));                                  \
		va_end(ap);                                                                   \
	}
FAKE_LOG(slurm_error, errors)
FAKE_LOG(slurm_info, infos)
FAKE_LOG(slurm_spank_log, logs)

// The cpuset's nodes (CXLTIER_FAKE_MEMS_ALLOWED="0,2"), else the real call.
long get_mempolicy(int *mode, unsigned long *nmask, unsigned long maxnode, void *addr,
		   unsigned flags)
{
	const char *allowed = std::getenv("CXLTIER_FAKE_MEMS_ALLOWED");
	if (!allowed || flags != MPOL_F_MEMS_ALLOWED) {
		using fn = long (*)(int *, unsigned long *, unsigned long, void *, unsigned);
		auto real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "get_mempolicy"));
		return real ? real(mode, nmask, maxnode, addr, flags) : -1;
	}
	constexpr unsigned long bits = CHAR_BIT * sizeof(unsigned long);
	std::memset(nmask, 0, (maxnode - 1 + bits - 1) / bits * sizeof(unsigned long));
	for (const char *p = allowed; *p;) {
		char *end = nullptr;
		unsigned long id = std::strtoul(p, &end, 10);
		nmask[id / bits] |= 1ul << (id % bits);
		p = *end ? end + 1 : end;
	}
	return 0;
}
}

namespace {

using hook_fn = int (*)(spank_t, int, char **);

// The plugin, loaded once: its hooks reset what they keep (init does).
class plugin {
public:
	static plugin &get()
	{
		static plugin p;
		return p;
	}
	void *handle() const { return h_; }
	hook_fn hook(const char *name) const
	{
		return reinterpret_cast<hook_fn>(dlsym(h_, name));
	}
	int call(const char *name, spank_handle &sp, const std::vector<std::string> &args) const
	{
		std::vector<char *> av;
		for (const auto &a : args)
			av.push_back(const_cast<char *>(a.c_str()));
		av.push_back(nullptr);
		hook_fn f = hook(name);
		if (!f) {
			ADD_FAILURE() << name << " is not exported";
			return INT_MIN;
		}
		return f(&sp, static_cast<int>(args.size()), av.data());
	}

private:
	plugin() : h_(dlopen(CXLTIER_SPANK_PATH, RTLD_NOW | RTLD_LOCAL))
	{
		if (!h_)
			ADD_FAILURE() << "dlopen " << CXLTIER_SPANK_PATH << ": " << dlerror();
	}
	void *h_;
};

constexpr std::uint64_t MiB = 1ull << 20;

class SpankTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_NE(plugin::get().handle(), nullptr);
		fake::context = S_CTX_ERROR;
		fake::registered.clear();
		fake::errors.clear();
		fake::infos.clear();
		fake::logs.clear();
		add_pool4_tier(sysfs);
		sys.add_dram_and_tier();
		write_script(scontrol(), "printf '%s\\n' \"$@\" > " + (tmp.path() / "scontrol.log").string());
	}

	// plugstack.conf's arguments: the state directory and scontrol in the test's.
	std::vector<std::string> args() const
	{
		return {"state_dir=" + state_dir().string(), "scontrol=" + scontrol().string()};
	}
	fs::path state_dir() const { return tmp.path() / "run/slurm"; }
	fs::path state_file() const { return state_dir() / "job.42"; }
	fs::path scontrol() const { return tmp.path() / "scontrol"; }
	std::vector<std::string> scontrol_args() const
	{
		return lines(slurp(tmp.path() / "scontrol.log"));
	}

	static void write_script(const fs::path &p, const std::string &body)
	{
		std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
		fs::permissions(p, fs::perms::owner_all);
	}

	static std::vector<std::string> lines(const std::string &s)
	{
		std::vector<std::string> out;
		for (std::size_t b = 0; b < s.size();) {
			std::size_t e = s.find('\n', b);
			out.push_back(s.substr(b, e - b));
			b = e == std::string::npos ? s.size() : e + 1;
		}
		return out;
	}

	int call(const char *hook, spank_handle &sp, spank_context_t ctx = S_CTX_JOB_SCRIPT)
	{
		fake::context = ctx;
		return plugin::get().call(hook, sp, args());
	}

	// The job's state file, parsed.
	cxltier_slurm::job_state state() const
	{
		return cxltier_slurm::parse_state(slurp(state_file()));
	}

	void write_state(const cxltier_slurm::job_state &st) const
	{
		fs::create_directories(state_dir());
		std::ofstream(state_file()) << cxltier_slurm::format_state(st);
	}

	// What the test's own process passed to set_mempolicy().
	std::vector<std::string> policies() const
	{
		std::vector<std::string> out;
		std::string tag = " pid=" + std::to_string(::getpid());
		for (const auto &l : lines(slurp(mempolicy_log())))
			if (l.ends_with(tag))
				out.push_back(l.substr(0, l.size() - tag.size()));
		return out;
	}
	fs::path mempolicy_log() const { return tmp.path() / "mempolicy"; }

	fake_sysfs sysfs;
	fake_sys sys;
	temp_dir tmp;
	scoped_env sysfs_env{"CXLTIER_SYSFS", sysfs.root().string()};
	scoped_env sys_env{"CXLTIER_SYS_ROOT", sys.root().string()};
	scoped_env policy_env{"CXLTIER_FAKE_MEMPOLICY", mempolicy_log().string()};
	scoped_env policy_errno{"CXLTIER_FAKE_MEMPOLICY_ERRNO", std::nullopt};
	scoped_env mems{"CXLTIER_FAKE_MEMS_ALLOWED", "0,1,2,3"};
	scoped_env node{"SLURMD_NODENAME", "n1"};
	scoped_env opt_fast{"SPANK__SLURM_SPANK_OPTION_cxltier_cxl_fast", std::nullopt};
	scoped_env opt_slow{"SPANK__SLURM_SPANK_OPTION_cxltier_cxl_slow", std::nullopt};
	scoped_env opt_policy{"SPANK__SLURM_SPANK_OPTION_cxltier_cxl_policy", std::nullopt};
	scoped_env opt_pool{"SPANK__SLURM_SPANK_OPTION_cxltier_cxl_pool", std::nullopt};
};

spank_option *registered(const std::string &name)
{
	for (auto *o : fake::registered)
		if (name == o->name)
			return o;
	ADD_FAILURE() << "--" << name << " not registered";
	return nullptr;
}

} // namespace

// --- the exports ------------------------------------------------------------------

TEST_F(SpankTest, ExportsTheHooksAndThePluginSymbols)
{
	void *h = plugin::get().handle();
	for (const char *name : {"slurm_spank_init", "slurm_spank_init_post_opt", "slurm_spank_job_prolog",
				 "slurm_spank_task_init", "slurm_spank_job_epilog"})
		EXPECT_NE(dlsym(h, name), nullptr) << name;
	EXPECT_STREQ(static_cast<const char *>(dlsym(h, "plugin_name")), "cxltier");
	EXPECT_STREQ(static_cast<const char *>(dlsym(h, "plugin_type")), "spank");
	auto *version = static_cast<const unsigned int *>(dlsym(h, "plugin_version"));
	ASSERT_NE(version, nullptr);
	EXPECT_EQ(*version, static_cast<unsigned int>(SLURM_VERSION_NUMBER));
	auto *spank_version = static_cast<const unsigned int *>(dlsym(h, "spank_plugin_version"));
	ASSERT_NE(spank_version, nullptr);
	EXPECT_EQ(*spank_version, 1u);
}

// --- sbatch, salloc, srun: the options ---------------------------------------------

TEST_F(SpankTest, RegistersTheOptions)
{
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_init", sp, S_CTX_ALLOCATOR), 0);
	ASSERT_EQ(fake::registered.size(), 4u);
	for (const char *name : {"cxl-fast", "cxl-slow", "cxl-policy", "cxl-pool"}) {
		spank_option *o = registered(name);
		ASSERT_NE(o, nullptr);
		EXPECT_EQ(o->has_arg, 1) << name;
		EXPECT_NE(o->cb, nullptr) << name;
		EXPECT_NE(std::string(o->usage), "") << name;
	}
	EXPECT_STREQ(registered("cxl-fast")->arginfo, "SIZE");
	EXPECT_STREQ(registered("cxl-policy")->arginfo, "NAME");
	EXPECT_STREQ(registered("cxl-pool")->arginfo, "SIZE");
}

// A bad value is refused where it is given, with why: sbatch then refuses the job.
TEST_F(SpankTest, OptionCallbacksRefuseBadValues)
{
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_init", sp, S_CTX_ALLOCATOR), 0);
	auto cb = [](const char *name, const char *value) {
		spank_option *o = registered(name);
		return o ? o->cb(o->val, value, 0) : INT_MIN;
	};
	EXPECT_EQ(cb("cxl-fast", "512M"), 0);
	EXPECT_EQ(cb("cxl-slow", "4G"), 0);
	EXPECT_EQ(cb("cxl-policy", "weighted"), 0);
	EXPECT_EQ(cb("cxl-pool", "1G"), 0);
	EXPECT_THAT(fake::errors, IsEmpty());

	EXPECT_NE(cb("cxl-slow", "4X"), 0);
	EXPECT_NE(cb("cxl-fast", "0"), 0);
	EXPECT_NE(cb("cxl-fast", ""), 0);
	EXPECT_NE(cb("cxl-policy", "fast"), 0);
	EXPECT_NE(cb("cxl-pool", "-1G"), 0);
	EXPECT_THAT(fake::errors,
		    ElementsAre("cxltier: --cxl-slow: '4X' is not a size (such as 512M or 4G)",
				"cxltier: --cxl-fast: '0' is not a size: it must be more than 0 "
				"(such as 512M or 4G)",
				"cxltier: --cxl-fast: '' is not a size (such as 512M or 4G)",
				"cxltier: --cxl-policy: 'fast' is not a policy: preferred, "
				"interleave or weighted",
				"cxltier: --cxl-pool: '-1G' is not a size (such as 512M or 4G)"));
}

TEST_F(SpankTest, PolicyNeedsASize)
{
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_init", sp, S_CTX_ALLOCATOR), 0);
	spank_option *policy = registered("cxl-policy");
	ASSERT_NE(policy, nullptr);
	ASSERT_EQ(policy->cb(policy->val, "interleave", 0), 0);
	EXPECT_NE(call("slurm_spank_init_post_opt", sp, S_CTX_ALLOCATOR), 0);
	EXPECT_THAT(fake::errors, ElementsAre("cxltier: --cxl-policy=interleave needs --cxl-fast or "
					      "--cxl-slow: the memory to place"));
	// slurmstepd has nothing to refuse: the job was accepted.
	EXPECT_EQ(call("slurm_spank_init_post_opt", sp, S_CTX_REMOTE), 0);

	spank_option *slow = registered("cxl-slow");
	ASSERT_EQ(slow->cb(slow->val, "1G", 0), 0);
	EXPECT_EQ(call("slurm_spank_init_post_opt", sp, S_CTX_ALLOCATOR), 0);
	// A new init (a new command) forgets the last one's options.
	ASSERT_EQ(call("slurm_spank_init", sp, S_CTX_LOCAL), 0);
	EXPECT_EQ(call("slurm_spank_init_post_opt", sp, S_CTX_LOCAL), 0);
}

// srun inside a job makes a step, which the options do not place: said so.
TEST_F(SpankTest, SrunInsideAJobIsTold)
{
	scoped_env job("SLURM_JOB_ID", "7");
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_init", sp, S_CTX_LOCAL), 0);
	spank_option *fast = registered("cxl-fast");
	ASSERT_EQ(fast->cb(fast->val, "1G", 0), 0);
	EXPECT_EQ(call("slurm_spank_init_post_opt", sp, S_CTX_LOCAL), 0);
	ASSERT_EQ(fake::logs.size(), 1u);
	EXPECT_THAT(fake::logs[0], HasSubstr("change nothing for a step of job 7"));
}

TEST_F(SpankTest, BadPlugstackArgumentsAreRefused)
{
	spank_handle sp;
	fake::context = S_CTX_ALLOCATOR;
	EXPECT_NE(plugin::get().call("slurm_spank_init", sp, {"statedir=/x"}), 0);
	EXPECT_NE(plugin::get().call("slurm_spank_init", sp, {"state_dir=relative"}), 0);
	EXPECT_THAT(fake::errors,
		    ElementsAre("cxltier: init: unknown argument 'statedir=/x' in plugstack.conf "
				"(state_dir=DIR, scontrol=PATH)",
				"cxltier: init: plugstack.conf: 'state_dir=relative' is not an "
				"absolute path"));
}

// --- the job prolog ------------------------------------------------------------------

TEST_F(SpankTest, PrologPlacesTheJob)
{
	spank_handle sp;
	sp.options = {{"cxl-fast", "512M"}, {"cxl-slow", "256M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	cxltier_slurm::job_state st = state();
	ASSERT_FALSE(st.failed()) << st.error;
	EXPECT_EQ(st.plan, (cxltier_slurm::job_plan{CXLTIER_PLACEMENT_PREFERRED,
						    512 * MiB,
						    256 * MiB,
						    {{0, CXLTIER_MEMORY_DRAM, 512 * MiB, 0},
						     {2, CXLTIER_MEMORY_CXL, 256 * MiB, 0}}}));
	EXPECT_THAT(slurp(state_file()), StartsWith("# cxltier placement of Slurm job 42 on n1"));
	struct stat dir, file;
	ASSERT_EQ(::stat(state_dir().c_str(), &dir), 0);
	ASSERT_EQ(::stat(state_file().c_str(), &file), 0);
	EXPECT_EQ(dir.st_mode & 07777, 0755u);
	EXPECT_EQ(file.st_mode & 07777, 0644u);
	EXPECT_FALSE(fs::exists(state_dir() / ".job.42.tmp"));
	EXPECT_THAT(fake::infos,
		    ElementsAre("cxltier: job 42: preferred fast=536870912 slow=268435456 nodes=0,2"));
	EXPECT_THAT(fake::errors, IsEmpty());
	EXPECT_FALSE(fs::exists(tmp.path() / "scontrol.log"));
}

// slurmd gives the prolog the job's SPANK environment, each variable prefixed with
// SPANK_: read there when spank_option_getopt() has nothing.
TEST_F(SpankTest, PrologReadsTheOptionsFromItsEnvironment)
{
	scoped_env slow("SPANK__SLURM_SPANK_OPTION_cxltier_cxl_slow", "256M");
	scoped_env policy("SPANK__SLURM_SPANK_OPTION_cxltier_cxl_policy", "interleave");
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	cxltier_slurm::job_state st = state();
	ASSERT_FALSE(st.failed()) << st.error;
	EXPECT_EQ(st.plan.policy, CXLTIER_PLACEMENT_INTERLEAVE);
	EXPECT_EQ(st.plan.fast, 0u);
	EXPECT_EQ(st.plan.slow, 256 * MiB);
	EXPECT_EQ(st.plan.nodes, (std::vector<cxltier_slurm::plan_node>{
					 {2, CXLTIER_MEMORY_CXL, 256 * MiB, 1}}));
}

// A job without the options: nothing, and a file of a job id used before goes.
TEST_F(SpankTest, PrologWithoutOptionsDoesNothing)
{
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_FALSE(fs::exists(state_dir()));
	write_state({"old", {}, {}});
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_FALSE(fs::exists(state_file()));
	EXPECT_THAT(fake::errors, IsEmpty());
}

// It does not fit: the prolog still succeeds (a failing prolog drains the node), the
// file says why, and so does the job's AdminComment.
TEST_F(SpankTest, PrologRecordsWhyAJobDoesNotFit)
{
	spank_handle sp;
	sp.options = {{"cxl-slow", "4G"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	cxltier_slurm::job_state st = state();
	ASSERT_TRUE(st.failed());
	EXPECT_THAT(st.error, StartsWith("cannot place slow 4 GiB: CXL is "));
	EXPECT_THAT(st.error, HasSubstr("1000 MiB free on node 2"));
	EXPECT_THAT(scontrol_args(), ElementsAre("update", "JobId=42",
						 "AdminComment=cxltier: " + st.error + " (node n1)"));
	ASSERT_EQ(fake::errors.size(), 1u);
	EXPECT_EQ(fake::errors[0], "cxltier: job 42 not placed: " + st.error + " (node n1)");
}

TEST_F(SpankTest, PrologOnANodeWithoutTheModule)
{
	sysfs.unload();
	spank_handle sp;
	sp.options = {{"cxl-fast", "1G"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	const std::string reason = "this node has no cxltier module (/dev/cxltier or its sysfs is "
				   "missing): the job asked for --cxl-*";
	EXPECT_EQ(state().error, reason);
	EXPECT_THAT(scontrol_args(),
		    ElementsAre("update", "JobId=42", "AdminComment=cxltier: " + reason + " (node n1)"));
}

// Values come from the job's environment here: checked again.
TEST_F(SpankTest, PrologRefusesBadValues)
{
	spank_handle sp;
	sp.options = {{"cxl-fast", "4X"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error, "--cxl-fast: '4X' is not a size (such as 512M or 4G)");
	sp.options = {{"cxl-policy", "weighted"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error,
		  "--cxl-policy needs --cxl-fast or --cxl-slow: there is no memory to place");
}

// scontrol failing is logged; the prolog goes on.
TEST_F(SpankTest, PrologLogsAFailingScontrol)
{
	write_script(scontrol(), "echo 'slurm_update error: Access/permission denied' >&2; exit 1");
	spank_handle sp;
	sp.options = {{"cxl-slow", "4G"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	ASSERT_EQ(fake::errors.size(), 2u);
	EXPECT_EQ(fake::errors[1], "cxltier: job 42: cannot set its AdminComment with " +
					   scontrol().string() +
					   ": exit status 1: slurm_update error: Access/permission "
					   "denied");
}

// Weighted interleave's weights are the kernel's and root's: the prolog sets them
// (here node 0 reports twice node 2's bandwidth: weights 2 and 1).
TEST_F(SpankTest, PrologSetsTheInterleaveWeights)
{
	sys.write("devices/system/node/node2/access0/initiators/read_bandwidth", "10000");
	spank_handle sp;
	sp.options = {{"cxl-fast", "512M"}, {"cxl-slow", "256M"}, {"cxl-policy", "weighted"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	cxltier_slurm::job_state st = state();
	ASSERT_FALSE(st.failed()) << st.error;
	EXPECT_EQ(st.plan.nodes, (std::vector<cxltier_slurm::plan_node>{
					 {0, CXLTIER_MEMORY_DRAM, 512 * MiB, 2},
					 {2, CXLTIER_MEMORY_CXL, 256 * MiB, 1}}));
	EXPECT_EQ(sys.read("kernel/mm/mempolicy/weighted_interleave/node0"), "2");
	// The prolog's own policy is put back.
	EXPECT_THAT(policies(), ElementsAre("mode=6 nodes=0,2", "mode=0 nodes="));
}

// The state directory must be root's alone (here: the test's user's).
TEST_F(SpankTest, PrologRefusesAnUnsafeStateDirectory)
{
	fs::create_directories(state_dir());
	fs::permissions(state_dir(), fs::perms::others_write, fs::perm_options::add);
	spank_handle sp;
	sp.options = {{"cxl-fast", "512M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_FALSE(fs::exists(state_file()));
	ASSERT_EQ(fake::errors.size(), 1u);
	EXPECT_THAT(fake::errors[0], HasSubstr("cannot record the job's placement: "));
	EXPECT_THAT(fake::errors[0], HasSubstr("is not safe"));
	ASSERT_EQ(scontrol_args().size(), 3u);
	EXPECT_THAT(scontrol_args()[2], HasSubstr("cannot record the job's placement"));
}

// --cxl-pool: the online shared pool with the most free space; the file names it.
TEST_F(SpankTest, PrologPicksTheSharedPool)
{
	add_pool(sysfs, {.name = "region1"}); // this host's pmem: not shared
	add_shared_pool(sysfs, {.pool = {.name = "region3", .free = "100663296"}});
	add_shared_pool(sysfs, {.pool = {.name = "region4", .free = "201326592"}});
	add_shared_pool(sysfs, {.pool = {.name = "region5", .state = "lost", .free = "268435456"}});
	spank_handle sp;
	sp.options = {{"cxl-pool", "160M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	cxltier_slurm::job_state st = state();
	ASSERT_FALSE(st.failed()) << st.error;
	EXPECT_FALSE(st.placed());
	ASSERT_TRUE(st.pool);
	EXPECT_EQ(*st.pool, (cxltier_slurm::pool_grant{"region4", 160 * MiB}));
	EXPECT_THAT(fake::infos, ElementsAre("cxltier: job 42: pool=region4"));
	EXPECT_THAT(fake::errors, IsEmpty());

	// With memory to place too: both.
	sp.options = {{"cxl-slow", "256M"}, {"cxl-pool", "16M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	st = state();
	ASSERT_FALSE(st.failed()) << st.error;
	EXPECT_TRUE(st.placed());
	EXPECT_EQ(st.pool->pool, "region4");
}

// Not placed: no shared pool here, or not that much free; the file and the
// AdminComment say which.
TEST_F(SpankTest, PrologRecordsWhyThePoolCannotHaveTheJob)
{
	spank_handle sp;
	sp.options = {{"cxl-pool", "64M"}};
	add_pool(sysfs, {.name = "region1"});
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error, "--cxl-pool: no shared pool is online on this node (none is attached)");

	add_shared_pool(sysfs, {.pool = {.name = "region3", .state = "lost"}});
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error, "--cxl-pool: no shared pool is online on this node (region3 is lost)");

	add_shared_pool(sysfs, {.pool = {.name = "region4", .free = "50331648"}});
	sp.options = {{"cxl-pool", "65M"}, {"cxl-slow", "256M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	const std::string why = "--cxl-pool: shared pool region4 has 48 MiB free, the job asks 65 MiB; "
				"regions that other jobs left on it take the rest (cxltierctl pool "
				"stat region4)";
	cxltier_slurm::job_state st = state();
	EXPECT_EQ(st.error, why);
	EXPECT_FALSE(st.pool);
	EXPECT_THAT(scontrol_args(), ElementsAre("update", "JobId=42",
						 "AdminComment=cxltier: " + why + " (node n1)"));

	sp.options = {{"cxl-pool", "1X"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error, "--cxl-pool: '1X' is not a size (such as 512M or 4G)");
	sp.options = {{"cxl-pool", "1M"}, {"cxl-policy", "interleave"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	EXPECT_EQ(state().error,
		  "--cxl-policy needs --cxl-fast or --cxl-slow: there is no memory to place");
}

// --- task_init -----------------------------------------------------------------------

// A job with --cxl-pool only: its tasks get the pool's name, and no memory policy.
TEST_F(SpankTest, TaskInitNamesThePool)
{
	cxltier_slurm::job_state st;
	st.pool = cxltier_slurm::pool_grant{"region4", MiB};
	write_state(st);
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
	EXPECT_THAT(policies(), IsEmpty());
	EXPECT_THAT(task.env, ElementsAre(std::pair<const std::string, std::string>("CXLTIER_POOL",
										    "region4")));

	st.plan = {CXLTIER_PLACEMENT_PREFERRED, 0, MiB, {{2, CXLTIER_MEMORY_CXL, MiB, 0}}};
	write_state(st);
	spank_handle both;
	EXPECT_EQ(call("slurm_spank_task_init", both, S_CTX_REMOTE), 0);
	EXPECT_THAT(policies(), ElementsAre("mode=5 nodes=2"));
	EXPECT_EQ(both.env["CXLTIER_POOL"], "region4");
	EXPECT_EQ(both.env["CXLTIER_PLACEMENT"], "preferred fast=0 slow=1048576 nodes=2");
}

TEST_F(SpankTest, TaskInitSetsThePolicy)
{
	spank_handle sp;
	sp.options = {{"cxl-fast", "512M"}, {"cxl-slow", "256M"}};
	ASSERT_EQ(call("slurm_spank_job_prolog", sp), 0);
	spank_handle task; // a later step: no options
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
	EXPECT_THAT(policies(), ElementsAre("mode=5 nodes=0")); // MPOL_PREFERRED_MANY, DRAM
	EXPECT_EQ(task.env["CXLTIER_PLACEMENT"], "preferred fast=536870912 slow=268435456 nodes=0,2");

	ASSERT_EQ(call("slurm_spank_job_epilog", sp), 0);
	EXPECT_FALSE(fs::exists(state_file()));
	EXPECT_THAT(fake::errors, IsEmpty());
}

TEST_F(SpankTest, TaskInitPolicies)
{
	using cxltier_slurm::job_plan;
	const std::vector<cxltier_slurm::plan_node> nodes = {{0, CXLTIER_MEMORY_DRAM, MiB, 1},
							     {2, CXLTIER_MEMORY_CXL, MiB, 1}};
	struct {
		job_plan plan;
		std::string policy;
	} cases[] = {
		{{CXLTIER_PLACEMENT_PREFERRED, 0, MiB, {nodes[1]}}, "mode=5 nodes=2"},
		{{CXLTIER_PLACEMENT_INTERLEAVE, MiB, MiB, nodes}, "mode=3 nodes=0,2"},
		{{CXLTIER_PLACEMENT_WEIGHTED, MiB, MiB, nodes}, "mode=6 nodes=0,2"},
	};
	for (const auto &c : cases) {
		std::filesystem::remove(mempolicy_log());
		write_state({"", c.plan, {}});
		spank_handle task;
		EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0) << c.policy;
		EXPECT_THAT(policies(), ElementsAre(c.policy));
	}
}

// The job fails in its first task, with the reason in its output.
TEST_F(SpankTest, TaskInitFailsAJobThatWasNotPlaced)
{
	write_state({"cannot place slow 4 GiB: CXL is 3.0 GiB short", {}, {}});
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), -1);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(),
		  "cxltier: job not placed: cannot place slow 4 GiB: CXL is 3.0 GiB short\n");
	EXPECT_THAT(policies(), IsEmpty());
	EXPECT_THAT(task.env, IsEmpty());
}

TEST_F(SpankTest, TaskInitFailsOnACorruptFile)
{
	fs::create_directories(state_dir());
	std::ofstream(state_file()) << "version=1\npolicy=preferred\n";
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), -1);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(),
		  "cxltier: job not placed: " + state_file().string() + " is corrupt: no fast\n");
}

TEST_F(SpankTest, TaskInitFailsWhenTheKernelRefuses)
{
	write_state({"", {CXLTIER_PLACEMENT_WEIGHTED, MiB, MiB,
			  {{0, CXLTIER_MEMORY_DRAM, MiB, 1}, {2, CXLTIER_MEMORY_CXL, MiB, 1}}},
		     {}});
	scoped_env fail("CXLTIER_FAKE_MEMPOLICY_ERRNO", "22");
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), -1);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(),
		  "cxltier: job not placed: set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, nodes 0,2): "
		  "refused: none of the nodes is in the job's cpuset (cpuset.mems), or the kernel has "
		  "no weighted interleave (Linux 6.9)\n");
}

// A plan's node the cpuset leaves out gets none of the job's memory: said so.
TEST_F(SpankTest, TaskInitWarnsOfNodesOutsideTheCpuset)
{
	write_state({"", {CXLTIER_PLACEMENT_INTERLEAVE, MiB, MiB,
			  {{0, CXLTIER_MEMORY_DRAM, MiB, 1}, {2, CXLTIER_MEMORY_CXL, MiB, 1}}},
		     {}});
	scoped_env allowed("CXLTIER_FAKE_MEMS_ALLOWED", "0");
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(),
		  "cxltier: warning: node 2 of the job's placement is not in its cpuset "
		  "(cpuset.mems): the kernel puts none of its memory there\n");
}

// No file: a job without --cxl-*, nothing to do; a step that has them is told.
TEST_F(SpankTest, TaskInitWithoutAFile)
{
	spank_handle task;
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0);
	EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
	EXPECT_THAT(policies(), IsEmpty());
	EXPECT_THAT(task.env, IsEmpty());

	task.options = {{"cxl-slow", "1G"}};
	::testing::internal::CaptureStderr();
	EXPECT_EQ(call("slurm_spank_task_init", task, S_CTX_REMOTE), 0);
	EXPECT_THAT(::testing::internal::GetCapturedStderr(),
		    StartsWith("cxltier: warning: job 42 has no placement on this node"));
	EXPECT_THAT(policies(), IsEmpty());
}

// --- job_epilog --------------------------------------------------------------------

TEST_F(SpankTest, EpilogRemovesTheFile)
{
	spank_handle sp;
	ASSERT_EQ(call("slurm_spank_job_epilog", sp), 0); // no directory yet
	write_state({"x", {}, {}});
	spank_handle other;
	other.jobid = 43;
	ASSERT_EQ(call("slurm_spank_job_epilog", other), 0);
	EXPECT_TRUE(fs::exists(state_file()));
	ASSERT_EQ(call("slurm_spank_job_epilog", sp), 0);
	EXPECT_FALSE(fs::exists(state_file()));
	EXPECT_THAT(fake::errors, IsEmpty());
}
