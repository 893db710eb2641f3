// SPDX-License-Identifier: GPL-2.0
// cxltier_spank.so: memory-aware placement of Slurm jobs, a SPANK plugin for Slurm
// 22.05 (it loads only into the Slurm release whose headers built it).
//
// plugstack.conf, the same on every host that runs sbatch, salloc, srun or slurmd:
//   required /usr/lib/x86_64-linux-gnu/cxltier/slurm/cxltier_spank.so [state_dir=DIR] [scontrol=PATH]
// "required", because Slurm ignores what an optional plugin's hooks return: a job
// that could not be placed would then run unplaced.  slurmd reads the file when it
// starts (restart it after a change).  Arguments: state_dir (default
// /run/cxltier/slurm) and scontrol (default /usr/bin/scontrol), absolute paths.
//
// A job asks with sbatch, salloc or srun (which start a job):
//   --cxl-fast=SIZE    memory it needs on DRAM
//   --cxl-slow=SIZE    memory it may have on CXL
//   --cxl-policy=NAME  preferred (default), interleave or weighted
//   --cxl-pool=SIZE    space it needs on the cluster's shared CXL pool
// SIZE as slurm_opts.hpp's parse_size().  The placement is made for the job, once
// per node, when it starts there; srun inside a job does not change it.  slurmctld
// schedules --cxl-pool as the cluster-wide license "cxlpool" (MiB) on nodes with
// the feature "cxlpool" (job_submit.lua); the plugin finds the pool on the node.
//
// Hooks:
//   init, init_post_opt  (sbatch, salloc, srun; also slurmd and slurmstepd) register
//       the options and refuse bad values, so that a job is refused when submitted.
//   job_prolog  (root, on each node of the job before its first step there) plans
//       with libcxltier (cxltier_placement_plan(), as `cxltierctl run` does), for
//       --cxl-pool picks the online shared pool attached here with the most free
//       space (it must have the space asked for free now), and
//       writes DIR/job.<jobid>, root's, 0644: the plan and pool, or why there is none
//       (slurm_opts.hpp has the format).  It returns 0 even then (a failing prolog
//       drains the node) and puts the reason in the job's AdminComment
//       (scontrol update) for `scontrol show job`.  For weighted interleave it
//       also sets the kernel's interleave weights, which only root may.
//   task_init  (each task of each step, as the user, before exec) sets the task's
//       memory policy from the file with set_mempolicy(2): the plan itself, not a
//       new one (free memory has changed since, and every task of the job must
//       get the same), so later steps without the options get it too.  Sets
//       CXLTIER_PLACEMENT="<policy> fast=<bytes> slow=<bytes> nodes=<ids>" for the
//       task, and CXLTIER_POOL=<region> (the shared pool's name here, for
//       `cxltierctl region create --persistent --pool` or libcxltier) when the
//       job asked for --cxl-pool.  A job whose placement failed fails here, with "cxltier: job not
//       placed: <reason>" on the task's stderr (the job's output).  Should the
//       prolog not have been able to write the file at all, the tasks run
//       without a placement and say so on stderr.
//   job_epilog  removes the file.
// No exception leaves a hook: they run inside slurmd, slurmstepd and srun.
#include <fcntl.h>
#include <numaif.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// spank.h declares the hooks outside its own extern "C".
extern "C" {
#include <slurm/spank.h>
}

#include "command.hpp"
#include "cxltier.hpp"
#include "slurm_opts.hpp"
#include "fd_owner.hpp"

// <numaif.h> of libnuma 2.0.16 predates weighted interleave; the kernel's value
// (include/uapi/linux/mempolicy.h, Linux 6.9).
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#ifndef MPOL_PREFERRED_MANY // Linux 5.15, libnuma 2.0.15
#define MPOL_PREFERRED_MANY 5
#endif

// Built with -fvisibility=hidden: Slurm looks up these and nothing else.
#define CXLT_SPANK_EXPORT __attribute__((visibility("default")))

// SPANK_PLUGIN() defines const arrays, which C++ gives internal linkage unless a
// declaration says extern first.
extern "C" {
CXLT_SPANK_EXPORT extern const char plugin_name[];
CXLT_SPANK_EXPORT extern const char plugin_type[];
CXLT_SPANK_EXPORT extern const unsigned int plugin_version;
CXLT_SPANK_EXPORT extern const unsigned int spank_plugin_version;
CXLT_SPANK_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av);
CXLT_SPANK_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
CXLT_SPANK_EXPORT int slurm_spank_job_prolog(spank_t sp, int ac, char **av);
CXLT_SPANK_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char **av);
CXLT_SPANK_EXPORT int slurm_spank_job_epilog(spank_t sp, int ac, char **av);
}

SPANK_PLUGIN(cxltier, 1)

namespace {

using cxlt_tools::fd_owner;

using namespace cxltier_slurm;
using std::chrono::seconds;

// scontrol talks to slurmctld, which may be slow to answer, but a prolog must end.
constexpr seconds scontrol_timeout{30};
// A state file is a few lines; anything much larger is not one.
constexpr std::size_t max_state_bytes = 64 * 1024;

// --- options --------------------------------------------------------------------

enum option_id { opt_fast = 1, opt_slow, opt_policy, opt_pool };

// What this process's command line asked for (sbatch, salloc, srun), for
// init_post_opt; slurmstepd gets the same from the job's launch.
struct requested {
	std::optional<std::uint64_t> fast, slow, pool;
	std::optional<cxltier_placement_policy> policy;
};
requested given;

int on_option(int val, const char *optarg, int remote);

// Slurm keeps pointers to these; it does not write through them.
spank_option options[] = {
	{const_cast<char *>("cxl-fast"), const_cast<char *>("SIZE"),
	 const_cast<char *>("Memory the job needs on DRAM, such as 4G (K, M, G, T: 1024-based); "
			    "cxltier places it where there is room when the job starts"),
	 1, opt_fast, on_option},
	{const_cast<char *>("cxl-slow"), const_cast<char *>("SIZE"),
	 const_cast<char *>("Memory the job may have on CXL, such as 16G"), 1, opt_slow, on_option},
	{const_cast<char *>("cxl-policy"), const_cast<char *>("NAME"),
	 const_cast<char *>("How the job's memory is spread: preferred (DRAM first, the default), "
			    "interleave, or weighted (interleave by bandwidth)"),
	 1, opt_policy, on_option},
	{const_cast<char *>("cxl-pool"), const_cast<char *>("SIZE"),
	 const_cast<char *>("Space the job needs on the cluster's shared CXL pool, such as 1G: "
			    "it runs where the pool is attached, once that much of it is not "
			    "taken by running jobs"),
	 1, opt_pool, on_option},
};

spank_option &option(option_id id)
{
	return options[id - opt_fast];
}

int on_option(int val, const char *optarg, int /* remote */)
{
	std::string_view value = optarg ? optarg : "";
	const char *name = val >= opt_fast && val <= opt_pool ? option(option_id(val)).name : "?";
	try {
		switch (val) {
		case opt_fast:
			given.fast = parse_size(value);
			break;
		case opt_slow:
			given.slow = parse_size(value);
			break;
		case opt_policy:
			given.policy = parse_policy(value);
			break;
		case opt_pool:
			given.pool = parse_size(value);
			break;
		default:
			slurm_error("cxltier: unknown option number %d", val);
			return -1;
		}
		return 0;
	} catch (const std::exception &e) {
		// sbatch prints this, then refuses the job.
		slurm_error("cxltier: --%s: %s", name, e.what());
	} catch (...) {
		slurm_error("cxltier: --%s: unexpected failure", name);
	}
	return -1;
}

// The variable Slurm passes option @name in, as plugstack.c makes it:
// "_SLURM_SPANK_OPTION_<plugin>_<option>", anything not alphanumeric made '_'.
std::string option_env_name(std::string_view name)
{
	std::string s = std::string("_SLURM_SPANK_OPTION_") + plugin_name + "_" + std::string(name);
	for (std::size_t i = sizeof("_SLURM_SPANK_OPTION_") - 1; i < s.size(); i++)
		if (!std::isalnum(static_cast<unsigned char>(s[i])))
			s[i] = '_';
	return s;
}

// The value the job gave option @id.  In the prolog spank_option_getopt() reads
// the environment slurmd gives it: the job's SPANK environment, every variable
// prefixed with SPANK_ (so "SPANK__SLURM_SPANK_OPTION_cxltier_cxl_fast").  The
// variables themselves, should it not.
std::optional<std::string> job_option(spank_t sp, option_id id)
{
	spank_option &o = option(id);
	char *arg = nullptr;
	if (spank_option_getopt(sp, &o, &arg) == ESPANK_SUCCESS && arg)
		return std::string(arg);
	std::string var = option_env_name(o.name);
	for (const std::string &name : {"SPANK_" + var, var})
		if (const char *v = std::getenv(name.c_str()))
			return std::string(v);
	return std::nullopt;
}

// --- plugstack.conf arguments ---------------------------------------------------

struct plugin_args {
	std::string state_dir = "/run/cxltier/slurm";
	std::string scontrol = "/usr/bin/scontrol";
};

plugin_args parse_args(int ac, char **av)
{
	plugin_args a;
	for (int i = 0; i < ac; i++) {
		std::string_view arg = av[i] ? av[i] : "";
		std::string *into = nullptr;
		std::string_view value;
		for (auto [key, field] : {std::pair{std::string_view("state_dir="), &a.state_dir},
					  std::pair{std::string_view("scontrol="), &a.scontrol}})
			if (arg.starts_with(key)) {
				into = field;
				value = arg.substr(key.size());
			}
		if (!into)
			throw std::invalid_argument("unknown argument '" + std::string(arg) +
						    "' in plugstack.conf (state_dir=DIR, scontrol=PATH)");
		if (!value.starts_with('/'))
			throw std::invalid_argument("plugstack.conf: '" + std::string(arg) +
						    "' is not an absolute path");
		*into = value;
	}
	return a;
}

// --- hook boundaries --------------------------------------------------------------

template <class F> int guarded(const char *hook, int on_failure, F &&body) noexcept
{
	try {
		return body();
	} catch (const std::exception &e) {
		slurm_error("cxltier: %s: %s", hook, e.what());
	} catch (...) {
		slurm_error("cxltier: %s: unexpected failure", hook);
	}
	return on_failure;
}

std::optional<std::uint32_t> job_id(spank_t sp)
{
	std::uint32_t id = 0;
	if (spank_get_item(sp, S_JOB_ID, &id) != ESPANK_SUCCESS)
		return std::nullopt;
	return id;
}

std::string errno_text(int e)
{
	return std::strerror(e);
}

// --- the state directory ------------------------------------------------------------

// Each missing directory of @path, 0755 whatever the umask (the job's tasks, not
// root, read the files).
void make_dirs(const std::string &path)
{
	for (std::size_t end = 1; end <= path.size(); end++) {
		if (end < path.size() && path[end] != '/')
			continue;
		std::string dir = path.substr(0, end);
		if (::mkdir(dir.c_str(), 0755) == 0)
			::chmod(dir.c_str(), 0755);
		else if (errno != EEXIST)
			throw std::runtime_error("cannot make " + dir + ": " + errno_text(errno));
	}
}

// The directory root writes the state files to, held open so that every file is
// made in the directory that was checked (no symbolic link swapped in meanwhile).
class state_dir {
public:
	// @create: make it when missing; otherwise a missing one holds no file.
	state_dir(std::string path, bool create) : path_(std::move(path))
	{
		if (create)
			make_dirs(path_);
		fd_.reset(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		if (fd_.get() < 0) {
			if (errno == ENOENT && !create)
				return;
			throw std::runtime_error("cannot open " + path_ + ": " + errno_text(errno));
		}
		struct stat st;
		if (::fstat(fd_.get(), &st) != 0)
			throw std::runtime_error("cannot stat " + path_ + ": " + errno_text(errno));
		// Anyone else who may write there may plant files root then writes through.
		if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
			throw std::runtime_error(path_ + " is not safe: it must be owned by uid " +
						 std::to_string(::geteuid()) +
						 " and writable by no one else (it is uid " +
						 std::to_string(st.st_uid) + "'s, mode " +
						 std::to_string(st.st_mode & 07777) + " decimal)");
	}

	// @text as @name, whole or not at all (written aside, then renamed).
	void write(const std::string &name, const std::string &text) const
	{
		std::string tmp = "." + name + ".tmp";
		::unlinkat(fd_.get(), tmp.c_str(), 0); // one a crash left behind
		fd_owner f(::openat(fd_.get(), tmp.c_str(),
				    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
		if (f.get() < 0)
			throw std::runtime_error("cannot write " + file(tmp) + ": " + errno_text(errno));
		bool ok = ::fchmod(f.get(), 0644) == 0;
		int e = errno;
		for (std::size_t done = 0; ok && done < text.size();) {
			ssize_t n = ::write(f.get(), text.data() + done, text.size() - done);
			if (n < 0 && errno == EINTR)
				continue;
			ok = n > 0;
			e = n < 0 ? errno : EIO;
			done += ok ? static_cast<std::size_t>(n) : 0;
		}
		if (::close(f.release()) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (ok && ::renameat(fd_.get(), tmp.c_str(), fd_.get(), name.c_str()) != 0) {
			ok = false;
			e = errno;
		}
		if (!ok) {
			::unlinkat(fd_.get(), tmp.c_str(), 0);
			throw std::runtime_error("cannot write " + file(name) + ": " + errno_text(e));
		}
	}

	void remove(const std::string &name) const
	{
		if (fd_.get() >= 0 && ::unlinkat(fd_.get(), name.c_str(), 0) != 0 && errno != ENOENT)
			throw std::runtime_error("cannot remove " + file(name) + ": " + errno_text(errno));
	}

	std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
	std::string path_;
	fd_owner fd_;
};

// The state file's text, or nullopt when there is none.
std::optional<std::string> read_state(const std::string &path)
{
	fd_owner f(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
	if (f.get() < 0) {
		if (errno == ENOENT)
			return std::nullopt;
		throw std::runtime_error("cannot read " + path + ": " + errno_text(errno));
	}
	struct stat st;
	if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))
		throw std::runtime_error(path + " is not a file");
	std::string text;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(f.get(), buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			throw std::runtime_error("cannot read " + path + ": " + errno_text(errno));
		if (n == 0)
			return text;
		text.append(buf, static_cast<std::size_t>(n));
		if (text.size() > max_state_bytes)
			throw std::runtime_error(path + " is too large for a state file");
	}
}

// --- the prolog: planning ----------------------------------------------------------

std::string library_reason(const cxltier_ctx *ctx, int rc)
{
	std::string r = cxltier_get_last_error(ctx);
	return r.empty() ? cxltier_strerror(rc) : r;
}

job_plan plan_of(const cxltier_placement *p)
{
	job_plan plan;
	plan.policy = cxltier_placement_get_policy(p);
	plan.fast = cxltier_placement_get_fast_bytes(p);
	plan.slow = cxltier_placement_get_slow_bytes(p);
	for (std::size_t i = 0; i < cxltier_placement_get_nr_nodes(p); i++)
		plan.nodes.push_back({cxltier_placement_get_node(p, i),
				      cxltier_placement_get_node_kind(p, i),
				      cxltier_placement_get_node_bytes(p, i),
				      cxltier_placement_get_node_weight(p, i)});
	return plan;
}

constexpr std::uint64_t mib = 1 << 20;

std::uint64_t mib_up(std::uint64_t bytes)
{
	return bytes / mib + (bytes % mib != 0);
}

// The shared pool attached here for a job asking @bytes of it (--cxl-pool): the
// online one with the most free space.  Slurm's license counts what running jobs
// asked for; what regions left behind by ended jobs take shows only here.
pool_grant pick_pool(cxltier_ctx *ctx, std::uint64_t bytes, std::string &error)
{
	cxltier_pool *best = nullptr;
	std::string others;
	cxltier_pool *p;
	for_each_cxltier_pool(ctx, p) {
		if (!cxltier_pool_is_shared(p))
			continue;
		if (cxltier_pool_get_state(p) != CXLTIER_POOL_STATE_ONLINE) {
			others += std::string(others.empty() ? "" : ", ") + cxltier_pool_get_name(p) +
				  " is " + cxltier_pool_state_name(cxltier_pool_get_state(p));
			continue;
		}
		if (!best || cxltier_pool_get_free(p) > cxltier_pool_get_free(best))
			best = p;
	}
	if (!best) {
		error = "--cxl-pool: no shared pool is online on this node" +
			(others.empty() ? std::string(" (none is attached)") : " (" + others + ")");
		return {};
	}
	std::string name = cxltier_pool_get_name(best);
	if (cxltier_pool_get_free(best) < bytes) {
		error = "--cxl-pool: shared pool " + name + " has " +
			std::to_string(cxltier_pool_get_free(best) / mib) + " MiB free, the job asks " +
			std::to_string(mib_up(bytes)) + " MiB; regions that other jobs left on it " +
			"take the rest (cxltierctl pool stat " + name + ")";
		return {};
	}
	if (!valid_pool_name(name)) {
		error = "--cxl-pool: shared pool '" + name + "' has a name the plugin does not take";
		return {};
	}
	return {name, bytes};
}

// Where the job goes on this node, or why it cannot.
job_state place(const std::optional<std::string> &fast_text,
		const std::optional<std::string> &slow_text,
		const std::optional<std::string> &policy_text,
		const std::optional<std::string> &pool_text)
{
	job_state st;
	std::uint64_t fast = 0, slow = 0, pool = 0;
	cxltier_placement_policy policy = CXLTIER_PLACEMENT_PREFERRED;
	// Checked when the job was submitted; again, as the values come from its
	// environment here.
	const char *option_name = "cxl-fast";
	try {
		if (fast_text)
			fast = parse_size(*fast_text);
		option_name = "cxl-slow";
		if (slow_text)
			slow = parse_size(*slow_text);
		option_name = "cxl-policy";
		if (policy_text)
			policy = parse_policy(*policy_text);
		option_name = "cxl-pool";
		if (pool_text)
			pool = parse_size(*pool_text);
	} catch (const option_error &e) {
		st.error = std::string("--") + option_name + ": " + e.what();
		return st;
	}
	if (!fast && !slow && (policy_text || !pool)) {
		st.error = "--cxl-policy needs --cxl-fast or --cxl-slow: there is no memory to place";
		return st;
	}

	int rc = 0;
	// A context of its own takes a fresh snapshot: nothing to refresh.
	auto ctx = cxltier::make_ctx(rc);
	if (!ctx) {
		st.error = rc == -ENOENT ? "this node has no cxltier module (/dev/cxltier or its "
					   "sysfs is missing): the job asked for --cxl-*"
					 : library_reason(nullptr, rc);
		return st;
	}
	if (pool) {
		st.pool = pick_pool(ctx.get(), pool, st.error);
		if (st.failed()) {
			st.pool.reset();
			return st;
		}
	}
	if (!fast && !slow)
		return st;
	auto plan = cxltier::plan_placement(ctx.get(), fast, slow, policy, rc);
	if (!plan) {
		st.error = library_reason(ctx.get(), rc);
		return st;
	}
	if (policy == CXLTIER_PLACEMENT_WEIGHTED) {
		// The weights are the kernel's, shared, and root's to write; the tasks
		// cannot.  cxltier_placement_apply() writes them unless already in the
		// plan's proportions; the policy it also sets on this short-lived
		// process is put back.
		rc = cxltier_placement_apply(ctx.get(), plan.get(), 0);
		::set_mempolicy(MPOL_DEFAULT, nullptr, 0);
		if (rc != 0) {
			st.error = library_reason(ctx.get(), rc);
			return st;
		}
	}
	st.plan = plan_of(plan.get());
	return st;
}

std::string node_name()
{
	if (const char *n = std::getenv("SLURMD_NODENAME"); n && *n)
		return n;
	char host[256] = {};
	::gethostname(host, sizeof(host) - 1);
	return host;
}

// The reason where `scontrol show job` shows it; a failure to set it is only
// logged (the job's output has the reason too).
void set_admin_comment(const plugin_args &args, std::uint32_t jobid, const std::string &reason)
{
	command_result r = run_command({args.scontrol, "update", "JobId=" + std::to_string(jobid),
					"AdminComment=cxltier: " + reason},
				       scontrol_timeout);
	if (!r.ok())
		slurm_error("cxltier: job %u: cannot set its AdminComment with %s: %s", jobid,
			    args.scontrol.c_str(), r.describe().c_str());
}

int job_prolog(spank_t sp, int ac, char **av)
{
	plugin_args args = parse_args(ac, av);
	auto jobid = job_id(sp);
	if (!jobid) {
		slurm_error("cxltier: job_prolog: no job id");
		return 0;
	}
	auto fast = job_option(sp, opt_fast), slow = job_option(sp, opt_slow),
	     policy = job_option(sp, opt_policy), pool = job_option(sp, opt_pool);
	const std::string name = state_file_name(*jobid);
	std::optional<state_dir> dir;
	std::string reason;
	try {
		dir.emplace(args.state_dir, fast || slow || policy || pool);
	} catch (const std::exception &e) {
		reason = std::string("cannot record the job's placement: ") + e.what();
	}
	if (!fast && !slow && !policy && !pool) {
		if (dir)
			dir->remove(name); // a requeued job's, or one of a job id used before
		return 0;
	}

	if (reason.empty()) {
		job_state st = place(fast, slow, policy, pool);
		try {
			dir->write(name, format_state(st, "cxltier placement of Slurm job " +
							      std::to_string(*jobid) + " on " +
							      node_name() + ", by its prolog"));
			if (!st.failed()) {
				std::string what = st.placed() ? placement_env(st.plan) : "";
				if (st.pool)
					what += (what.empty() ? "pool=" : " pool=") + st.pool->pool;
				slurm_info("cxltier: job %u: %s", *jobid, what.c_str());
				return 0;
			}
			reason = st.error;
		} catch (const std::exception &e) {
			// The job's tasks then run unplaced, with a warning (task_init).
			reason = std::string("cannot record the job's placement: ") + e.what() +
				 (st.failed() ? " (and: " + st.error + ")" : "");
		}
	}
	reason += " (node " + node_name() + ")";
	slurm_error("cxltier: job %u not placed: %s", *jobid, reason.c_str());
	set_admin_comment(args, *jobid, reason);
	return 0;
}

// --- task_init: the plan applied ------------------------------------------------

// The task fails with @why on its stderr, which is the job's output; the log gets
// it at info level, as slurmstepd copies its errors to the task's stderr too.
int fail_task(const std::string &why)
{
	std::fprintf(stderr, "cxltier: job not placed: %s\n", why.c_str());
	std::fflush(stderr);
	slurm_info("cxltier: job not placed: %s", why.c_str());
	return -1;
}

struct mempolicy_mode {
	int mode;
	const char *name;
};

mempolicy_mode mode_of(cxltier_placement_policy policy)
{
	switch (policy) {
	case CXLTIER_PLACEMENT_INTERLEAVE:
		return {MPOL_INTERLEAVE, "MPOL_INTERLEAVE"};
	case CXLTIER_PLACEMENT_WEIGHTED:
		return {MPOL_WEIGHTED_INTERLEAVE, "MPOL_WEIGHTED_INTERLEAVE"};
	case CXLTIER_PLACEMENT_PREFERRED:
		break;
	}
	return {MPOL_PREFERRED_MANY, "MPOL_PREFERRED_MANY"};
}

std::string ids_text(const std::vector<int> &ids)
{
	std::string s;
	for (int id : ids)
		s += (s.empty() ? "" : ",") + std::to_string(id);
	return s;
}

constexpr int long_bits = CHAR_BIT * sizeof(unsigned long);

// The calling task's memory policy as @plan says; "" or why the kernel refused.
std::string set_policy(const job_plan &plan)
{
	std::vector<int> ids = policy_nodes(plan);
	mempolicy_mode m = mode_of(plan.policy);
	std::vector<unsigned long> mask(static_cast<std::size_t>(ids.back() / long_bits) + 1);
	for (int id : ids)
		mask[static_cast<std::size_t>(id / long_bits)] |= 1ul << (id % long_bits);
	// The kernel reads maxnode - 1 bits.
	if (::set_mempolicy(m.mode, mask.data(), mask.size() * long_bits + 1) == 0)
		return "";
	int e = errno;
	std::string what = std::string("set_mempolicy(") + m.name + ", nodes " + ids_text(ids) + ")";
	switch (e) {
	case EPERM:
		return what + ": not permitted here (a seccomp filter forbids it)";
	case EINVAL:
		return what + ": refused: none of the nodes is in the job's cpuset (cpuset.mems)" +
		       (m.mode == MPOL_PREFERRED_MANY ? ", or the kernel predates MPOL_PREFERRED_MANY "
							"(Linux 5.15)"
			: m.mode == MPOL_WEIGHTED_INTERLEAVE ? ", or the kernel has no weighted "
							       "interleave (Linux 6.9)"
							     : "");
	}
	return what + ": " + errno_text(e);
}

// The plan's nodes the job's cpuset leaves out: the kernel silently skips them.
std::vector<int> outside_cpuset(const job_plan &plan)
{
	// Room for the kernel's largest node count (it copies out up to maxnode - 1 bits).
	std::array<unsigned long, 4096 / long_bits> allowed{};
	if (::get_mempolicy(nullptr, allowed.data(), allowed.size() * long_bits + 1, nullptr,
			    MPOL_F_MEMS_ALLOWED) != 0)
		return {};
	std::vector<int> out;
	for (int id : policy_nodes(plan))
		if (!(allowed[static_cast<std::size_t>(id / long_bits)] & (1ul << (id % long_bits))))
			out.push_back(id);
	return out;
}

int task_init(spank_t sp, int ac, char **av)
{
	plugin_args args = parse_args(ac, av);
	auto jobid = job_id(sp);
	if (!jobid)
		return fail_task("no job id for the task");
	std::string path = args.state_dir + "/" + state_file_name(*jobid);
	std::optional<std::string> text;
	try {
		text = read_state(path);
	} catch (const std::exception &e) {
		return fail_task(e.what());
	}
	if (!text) {
		// A job without --cxl-*.  Should this step have them, say that they did
		// nothing: given to srun inside a job, or the prolog did not run here
		// (it logs why it could not write the file, and sets the AdminComment).
		char *arg = nullptr;
		for (auto id : {opt_fast, opt_slow, opt_pool})
			if (spank_option_getopt(sp, &option(id), &arg) == ESPANK_SUCCESS) {
				std::fprintf(stderr,
					     "cxltier: warning: job %u has no placement on this node (%s "
					     "is missing): its tasks run without one.  --cxl-* given to "
					     "srun inside a job change nothing; given to the job, cxltier's "
					     "job prolog did not run here (slurmd reads plugstack.conf "
					     "when it starts)\n",
					     *jobid, path.c_str());
				break;
			}
		return 0;
	}
	job_state st;
	try {
		st = parse_state(*text);
	} catch (const state_error &e) {
		return fail_task(path + " is corrupt: " + e.what());
	}
	if (st.failed())
		return fail_task(st.error);
	if (st.pool && spank_setenv(sp, "CXLTIER_POOL", st.pool->pool.c_str(), 1) != ESPANK_SUCCESS)
		return fail_task("cannot set CXLTIER_POOL for the task");
	if (!st.placed())
		return 0;
	if (std::string why = set_policy(st.plan); !why.empty())
		return fail_task(why);
	if (auto out = outside_cpuset(st.plan); !out.empty())
		std::fprintf(stderr,
			     "cxltier: warning: node%s %s of the job's placement %s not in its cpuset "
			     "(cpuset.mems): the kernel puts none of its memory there\n",
			     out.size() == 1 ? "" : "s", ids_text(out).c_str(),
			     out.size() == 1 ? "is" : "are");
	std::string env = placement_env(st.plan);
	if (spank_setenv(sp, "CXLTIER_PLACEMENT", env.c_str(), 1) != ESPANK_SUCCESS)
		slurm_info("cxltier: job %u: cannot set CXLTIER_PLACEMENT for its task", *jobid);
	return 0;
}

} // namespace

// --- the hooks -------------------------------------------------------------------

extern "C" int slurm_spank_init(spank_t sp, int ac, char **av)
{
	return guarded("init", -1, [&] {
		parse_args(ac, av); // a typo in plugstack.conf shows at once, everywhere
		given = {};
		// In every context, so that sbatch, salloc and srun list them in --help
		// and slurmstepd knows them.
		for (auto &o : options)
			if (spank_err_t rc = spank_option_register(sp, &o); rc != ESPANK_SUCCESS) {
				slurm_error("cxltier: cannot register --%s: %s", o.name,
					    spank_strerror(rc));
				return -1;
			}
		return 0;
	});
}

extern "C" int slurm_spank_init_post_opt(spank_t, int, char **)
{
	return guarded("init_post_opt", -1, [&] {
		spank_context_t ctx = spank_context();
		if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
			return 0;
		if (given.policy && !given.fast && !given.slow) {
			slurm_error("cxltier: --cxl-policy=%s needs --cxl-fast or --cxl-slow: the memory "
				    "to place",
				    cxltier_placement_policy_name(*given.policy));
			return -1;
		}
		// srun inside a job makes a step of it: the job was placed when it started.
		const char *job = std::getenv("SLURM_JOB_ID");
		if (ctx == S_CTX_LOCAL && job && (given.fast || given.slow || given.policy))
			slurm_spank_log("cxltier: warning: --cxl-* place a job when it starts; they "
					"change nothing for a step of job %s (its tasks get the job's "
					"placement)",
					job);
		return 0;
	});
}

extern "C" int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	// Never fails: a failing prolog drains the node.  task_init fails the job.
	return guarded("job_prolog", 0, [&] { return job_prolog(sp, ac, av); });
}

extern "C" int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	return guarded("task_init", -1, [&] {
		try {
			return task_init(sp, ac, av);
		} catch (const std::exception &e) {
			return fail_task(e.what());
		}
	});
}

extern "C" int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	return guarded("job_epilog", 0, [&] {
		plugin_args args = parse_args(ac, av);
		if (auto jobid = job_id(sp))
			state_dir(args.state_dir, false).remove(state_file_name(*jobid));
		return 0;
	});
}
