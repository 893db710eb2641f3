// SPDX-License-Identifier: GPL-2.0
// cxltierctl run: place a job's memory where there is room for it now (the plan is
// libcxltier's, cxltier_placement_plan(), so that a scheduler makes the same
// decision), run the job under that memory policy, watch where its memory lives
// while it runs, and report that when it ends.  With --manage the job is also in
// process mode for as long as it runs: cxltier-procd migrates its pages.  With
// --regions the job's large allocations live in a global region of its own
// (libcxltier-preload.so), whose pages the migration daemon places.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h> // sigabbrev_np
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "job_memory.hpp"
#include "state.hpp"
#include "fd_owner.hpp"

namespace cxltierctl {

namespace {

using cxlt_tools::fd_owner;

using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The job's memory is sampled this often; walking a large job's page tables takes
// time, so the interval grows to ten times what the last sample took (about a
// tenth of a CPU), up to the maximum.
constexpr milliseconds min_interval{100};
constexpr int sample_cost_factor = 10;
constexpr milliseconds max_interval{2000};

// Exit statuses of a job that could not start, as env(1) and nice(1) have them.
constexpr int exit_cannot_invoke = 126;
constexpr int exit_not_found = 127;
// A job killed by signal N: 128 + N, as shells report it.
constexpr int exit_signal_base = 128;

struct run_options {
	std::uint64_t fast = 0;
	std::uint64_t slow = 0;
	std::string policy = "preferred";
	bool json_out = false;
	bool dry_run = false;
	bool manage = false;
	bool regions = false;
	std::uint64_t region_min = 0;  // 0: the preload's default
	std::uint64_t region_size = 0; // 0: the preload's default
	std::string output; // "": stderr (stdout for JSON and --dry-run)
	std::vector<std::string> command;
};

struct file_close {
	void operator()(std::FILE *f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_close>;

// Where the plan and the report go: the job owns stdout, so a person's copy goes
// to stderr (as time(1)'s does) and JSON to stdout after the job; --output
// names a file for either.
class sink {
public:
	sink(const run_options &o)
	{
		if (!o.output.empty()) {
			owned_.reset(std::fopen(o.output.c_str(), "we")); // not the job's
			if (!owned_)
				throw fatal(fmt::format("cannot write {}: {}", o.output,
							std::strerror(errno)));
			file_ = owned_.get();
		} else {
			file_ = o.json_out || o.dry_run ? stdout : stderr;
		}
		name_ = o.output;
	}
	std::FILE *get() const noexcept { return file_; }
	// A full disk shows up only now.
	void close()
	{
		if (!owned_)
			return;
		bool failed = std::fflush(owned_.get()) != 0 || std::ferror(owned_.get());
		int e = errno;
		if (std::fclose(owned_.release()) != 0 || failed)
			throw fatal(fmt::format("cannot write {}: {}", name_, std::strerror(e)));
	}

private:
	file_ptr owned_;
	std::FILE *file_ = nullptr;
	std::string name_;
};

void print_lines(std::FILE *out, const table &t)
{
	for (const auto &l : t.lines())
		fmt::print(out, "{}\n", l);
}

// --- the plan ---------------------------------------------------------------------

json plan_json(const cxltier_placement *p)
{
	json nodes = json::array();
	for (std::size_t i = 0; i < cxltier_placement_get_nr_nodes(p); i++) {
		std::string tier = cxltier_placement_get_node_tier(p, i);
		nodes.push_back({
			{"node", cxltier_placement_get_node(p, i)},
			{"kind", cxltier_memory_kind_name(cxltier_placement_get_node_kind(p, i))},
			{"tier", tier.empty() ? json(nullptr) : json(tier)},
			{"free", cxltier_placement_get_node_free(p, i)},
			{"planned", cxltier_placement_get_node_bytes(p, i)},
			{"read_bandwidth", cxltier_placement_get_node_bandwidth(p, i)},
			{"weight", cxltier_placement_get_node_weight(p, i)},
		});
	}
	json skipped = json::array();
	for (std::size_t i = 0; i < cxltier_placement_get_nr_skipped(p); i++) {
		std::string tier = cxltier_placement_get_skipped_tier(p, i);
		skipped.push_back({
			{"node", cxltier_placement_get_skipped_node(p, i)},
			{"tier", tier.empty() ? json(nullptr) : json(tier)},
			{"reason", cxltier_placement_get_skipped_reason(p, i)},
		});
	}
	return {
		{"policy", cxltier_placement_policy_name(cxltier_placement_get_policy(p))},
		{"fast", cxltier_placement_get_fast_bytes(p)},
		{"slow", cxltier_placement_get_slow_bytes(p)},
		{"weights", cxltier_placement_weights_name(cxltier_placement_get_weights(p))},
		{"note", cxltier_placement_get_note(p)},
		{"nodes", nodes},
		{"skipped", skipped},
	};
}

// "preferred, fast 1 GiB, slow 4 GiB"
std::string plan_title(const cxltier_placement *p)
{
	auto policy = cxltier_placement_get_policy(p);
	std::string s = cxltier_placement_policy_name(policy);
	if (policy == CXLTIER_PLACEMENT_WEIGHTED)
		s += fmt::format(" (weights: {})",
				 cxltier_placement_weights_name(cxltier_placement_get_weights(p)));
	if (auto fast = cxltier_placement_get_fast_bytes(p))
		s += ", fast " + human_size(fast);
	if (auto slow = cxltier_placement_get_slow_bytes(p))
		s += ", slow " + human_size(slow);
	return s;
}

void print_plan(std::FILE *out, const cxltier_placement *p)
{
	fmt::print(out, "Plan: {}\n", plan_title(p));
	bool interleave = cxltier_placement_get_policy(p) != CXLTIER_PLACEMENT_PREFERRED;
	table t({{"NODE", true},
		 {"KIND"},
		 {"TIER"},
		 {"FREE", true},
		 {interleave ? "SHARE" : "PLANNED", true},
		 {"WEIGHT", true},
		 {"READ-BW", true}});
	for (std::size_t i = 0; i < cxltier_placement_get_nr_nodes(p); i++) {
		std::string tier = cxltier_placement_get_node_tier(p, i);
		unsigned int bw = cxltier_placement_get_node_bandwidth(p, i);
		unsigned int w = cxltier_placement_get_node_weight(p, i);
		t.add({std::to_string(cxltier_placement_get_node(p, i)),
		       cxltier_memory_kind_name(cxltier_placement_get_node_kind(p, i)),
		       tier.empty() ? "-" : tier, human_size(cxltier_placement_get_node_free(p, i)),
		       human_size(cxltier_placement_get_node_bytes(p, i)),
		       w ? std::to_string(w) : "-", bw ? fmt::format("{} MB/s", bw) : "-"});
	}
	print_lines(out, t);
	for (std::size_t i = 0; i < cxltier_placement_get_nr_skipped(p); i++) {
		std::string tier = cxltier_placement_get_skipped_tier(p, i);
		fmt::print(out, "Skipped: node {}{}: {}\n", cxltier_placement_get_skipped_node(p, i),
			   tier.empty() ? "" : " (" + tier + ")",
			   cxltier_placement_get_skipped_reason(p, i));
	}
	if (std::string note = cxltier_placement_get_note(p); !note.empty())
		fmt::print(out, "Note: {}\n", note);
}

// --- running the job --------------------------------------------------------------

std::atomic<pid_t> job_pid{0};
static_assert(std::atomic<pid_t>::is_always_lock_free, "used in a signal handler");

extern "C" void forward_signal(int sig)
{
	if (pid_t pid = job_pid.load(); pid > 0)
		::kill(pid, sig);
}

// While the job runs: Ctrl-C and Ctrl-\ reach the job from the terminal, and
// cxltierctl must outlive it to report, so it ignores them as system(3) does;
// SIGTERM and SIGHUP, which a scheduler or a closing session may send to
// cxltierctl alone, go on to the job.  Those two stay blocked until the job's pid
// is known (release()), so that one sent meanwhile is not lost.  restore() puts
// everything back, in the child before exec too (an ignored signal would stay
// ignored in the job).
class job_signals {
public:
	job_signals()
	{
		struct sigaction ign = {}, fwd = {};
		ign.sa_handler = SIG_IGN;
		fwd.sa_handler = forward_signal;
		sigemptyset(&ign.sa_mask);
		sigemptyset(&fwd.sa_mask);
		sigset_t block;
		sigemptyset(&block);
		for (std::size_t i = 0; i < std::size(signals); i++) {
			bool forward = signals[i] == SIGTERM || signals[i] == SIGHUP;
			::sigaction(signals[i], forward ? &fwd : &ign, &old_[i]);
			if (forward)
				sigaddset(&block, signals[i]);
		}
		::sigprocmask(SIG_BLOCK, &block, &old_mask_);
	}
	~job_signals() { restore(); }
	job_signals(const job_signals &) = delete;
	job_signals &operator=(const job_signals &) = delete;

	void release() noexcept { ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr); }
	void restore() noexcept
	{
		for (std::size_t i = 0; i < std::size(signals); i++)
			::sigaction(signals[i], &old_[i], nullptr);
		release();
	}

private:
	static constexpr int signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
	struct sigaction old_[std::size(signals)];
	sigset_t old_mask_;
};

// What the child sends back when the job could not start, through a close-on-exec
// pipe: a successful exec sends nothing.
struct child_failure {
	int step;	    // 1: setting the memory policy; 2: exec
	int err;	    // negative errno
	char reason[1024]; // the library's reason for step 1
};

// What process mode did for the job (--manage), from cxltier-procd's status while
// it ran.  Its counters only grow; the state is the last one seen before the job
// ended ("pending" when the service never listed it: a job shorter than a period).
struct managed_job {
	std::string target; // target::file_name()
	std::string state = "pending";
	std::string reason;
	std::uint64_t promoted = 0; // 4 KiB pages
	std::uint64_t demoted = 0;

	void update(bool ended)
	{
		json e = procd_target_status(target);
		if (!e.is_object())
			return;
		auto state_of = e.find("state");
		auto reason_of = e.find("reason");
		// Once the job has ended the service calls it gone, which says nothing.
		if (state_of != e.end() && state_of->is_string() && !(ended && *state_of == "gone")) {
			state = state_of->get<std::string>();
			reason = reason_of != e.end() && reason_of->is_string()
					 ? reason_of->get<std::string>()
					 : "";
		}
		auto grow = [&e](const char *key, std::uint64_t &value) {
			if (auto it = e.find(key); it != e.end() && it->is_number_unsigned())
				value = std::max(value, it->get<std::uint64_t>());
		};
		grow("promoted", promoted);
		grow("demoted", demoted);
	}
};

// The job's opt-in, written before it runs and removed when it has ended.
class opt_in {
public:
	// @fast: the job's --fast, its limit on DRAM in process mode (0: none).
	opt_in(pid_t pid, std::uint64_t fast) : dir_(cxlt_procd::state_dir())
	{
		auto start = cxlt_procd::process_starttime(pid);
		if (!start)
			throw fatal(fmt::format("cannot opt the job in: process {} is gone", pid));
		t_.pid = pid;
		t_.starttime = *start;
		t_.fast_bytes = fast;
		try {
			cxlt_procd::write_target(dir_, t_);
		} catch (const std::system_error &e) {
			throw fatal(fmt::format("cannot write {}/managed/{}: {}", dir_, t_.file_name(),
						e.code().message()));
		}
	}
	~opt_in() { cxlt_procd::remove_target(dir_, t_); }
	opt_in(const opt_in &) = delete;
	opt_in &operator=(const opt_in &) = delete;

	std::string name() const { return t_.file_name(); }

private:
	std::string dir_;
	cxlt_procd::target t_;
};

struct job_result {
	pid_t pid = -1;
	int exit_code = -1; // -1 when killed by a signal
	int signal = 0;
	int status = 0; // what cxltierctl exits with
	milliseconds duration{0};
	unsigned int samples = 0;
	std::optional<node_bytes> peak; // the sample with the most memory
	std::optional<node_bytes> last;
	std::optional<managed_job> managed; // with --manage
};

ssize_t read_full(int fd, void *buf, std::size_t size)
{
	std::size_t got = 0;
	while (got < size) {
		ssize_t n = ::read(fd, static_cast<char *>(buf) + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got ? static_cast<ssize_t>(got) : n;
		got += static_cast<std::size_t>(n);
	}
	return static_cast<ssize_t>(got);
}

int wait_for(pid_t pid)
{
	int ws = 0;
	while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return ws;
}

// Waits up to @timeout for the job to end; its wait status then, else nullopt.
std::optional<int> wait_exit(pid_t pid, int pidfd, milliseconds timeout)
{
	if (pidfd >= 0) {
		struct pollfd pfd = {.fd = pidfd, .events = POLLIN, .revents = 0};
		// EINTR (a signal forwarded): sample again, then wait on.
		if (::poll(&pfd, 1, static_cast<int>(timeout.count())) <= 0)
			return std::nullopt;
		return wait_for(pid);
	}
	// No pidfd (before Linux 5.3): look at the end of each interval.
	::poll(nullptr, 0, static_cast<int>(timeout.count()));
	int ws = 0;
	if (::waitpid(pid, &ws, WNOHANG) == pid)
		return ws;
	return std::nullopt;
}

// With --manage the job waits for a byte on @go_fd (the parent has opted it in) and
// ends without running when none comes.
[[noreturn]] void child(cxltier_ctx *ctx, const cxltier_placement *plan, char *const argv[],
			int report_fd, int go_fd)
{
	if (go_fd >= 0) {
		char go = 0;
		ssize_t n;
		while ((n = ::read(go_fd, &go, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			::_exit(exit_cannot_invoke); // cxltierctl says why
	}
	child_failure f = {};
	if (int rc = cxltier_placement_apply(ctx, plan, 0); rc != 0) {
		f.step = 1;
		f.err = rc;
		std::snprintf(f.reason, sizeof(f.reason), "%s", library_error(ctx, rc).c_str());
	} else {
		::execvp(argv[0], argv);
		f.step = 2;
		f.err = -errno;
	}
	if (::write(report_fd, &f, sizeof(f)) < 0) {
		// The parent then sees a job that exited with the status below.
	}
	::_exit(f.step == 1 ? 1 : f.err == -ENOENT ? exit_not_found : exit_cannot_invoke);
}

job_result run_job(cxltier_ctx *ctx, const cxltier_placement *plan, std::vector<std::string> command,
		   bool manage, std::uint64_t manage_fast)
{
	std::vector<char *> argv;
	for (auto &a : command)
		argv.push_back(a.data());
	argv.push_back(nullptr);

	int fds[2];
	if (::pipe2(fds, O_CLOEXEC) < 0)
		throw fatal(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
	fd_owner from_child(fds[0]), to_parent(fds[1]);
	// --manage: the job starts once it is opted in.  A socket, so that sending to a
	// job killed meanwhile is EPIPE rather than SIGPIPE.
	fd_owner go_send, go_recv;
	if (manage) {
		int sv[2];
		if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			throw fatal(fmt::format("cannot make a socket pair: {}", std::strerror(errno)));
		go_send.reset(sv[0]);
		go_recv.reset(sv[1]);
	}

	std::fflush(nullptr); // nothing buffered is written twice
	job_signals signals;
	job_result r;
	auto start = steady::now();
	r.pid = ::fork();
	if (r.pid < 0)
		throw fatal(fmt::format("cannot start a process: {}", std::strerror(errno)));
	if (r.pid == 0) {
		signals.restore();
		if (go_send.get() >= 0)
			::close(go_send.get()); // so that the parent's end closing is EOF
		child(ctx, plan, argv.data(), to_parent.get(), go_recv.get());
	}
	job_pid.store(r.pid);
	signals.release();
	to_parent.reset();

	std::optional<opt_in> in;
	if (manage) {
		go_recv.reset();
		try {
			in.emplace(r.pid, manage_fast);
		} catch (...) {
			go_send.reset(); // the job ends without running
			job_pid.store(0);
			wait_for(r.pid);
			throw;
		}
		r.managed.emplace();
		r.managed->target = in->name();
		char go = 1;
		// A job killed meanwhile (EPIPE) is reported as such below.
		while (::send(go_send.get(), &go, 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
			;
		go_send.reset();
	}

	child_failure f = {};
	if (read_full(from_child.get(), &f, sizeof(f)) > 0) {
		job_pid.store(0);
		wait_for(r.pid);
		if (f.step == 1)
			throw fatal(fmt::format("cannot set the job's memory policy: {}", f.reason));
		fmt::print(stderr, "cxltierctl: cannot run {}: {}\n", command[0], std::strerror(-f.err));
		throw exit_with(f.err == -ENOENT ? exit_not_found : exit_cannot_invoke);
	}

	fd_owner pidfd(static_cast<int>(::syscall(SYS_pidfd_open, r.pid, 0)));
	milliseconds interval = min_interval;
	std::optional<int> ws;
	while (!ws) {
		auto t0 = steady::now();
		if (auto s = sample_job(r.pid)) {
			r.samples++;
			if (!r.peak || total_bytes(*s) > total_bytes(*r.peak))
				r.peak = *s;
			r.last = std::move(s);
		}
		if (r.managed)
			r.managed->update(false);
		auto took = std::chrono::duration_cast<milliseconds>(steady::now() - t0);
		interval = std::clamp(took * sample_cost_factor, min_interval, max_interval);
		ws = wait_exit(r.pid, pidfd.get(), interval);
	}
	job_pid.store(0);
	r.duration = std::chrono::duration_cast<milliseconds>(steady::now() - start);
	if (r.managed)
		r.managed->update(true); // then ~opt_in takes the job out
	if (WIFEXITED(*ws)) {
		r.exit_code = WEXITSTATUS(*ws);
		r.status = r.exit_code;
	} else if (WIFSIGNALED(*ws)) {
		r.signal = WTERMSIG(*ws);
		r.status = exit_signal_base + r.signal;
	}
	return r;
}

// --- the report -------------------------------------------------------------------

std::string signal_name(int sig)
{
	const char *abbrev = ::sigabbrev_np(sig);
	return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

// DRAM, CXL or other, as the planner tells them apart.
cxltier_memory_kind kind_of(cxltier_ctx *ctx, int node)
{
	cxltier_node *n = cxltier_node_get_by_id(ctx, node);
	return n ? cxltier_node_get_kind(n) : CXLTIER_MEMORY_UNKNOWN;
}

// "dram", "cxl", or "other" for memory that is neither.
const char *kind_label(cxltier_memory_kind kind)
{
	return kind == CXLTIER_MEMORY_UNKNOWN ? "other" : cxltier_memory_kind_name(kind);
}

// The plan's nodes and every node the job had memory on.
std::set<int> report_nodes(const cxltier_placement *plan, const job_result &r)
{
	std::set<int> ids;
	for (std::size_t i = 0; i < cxltier_placement_get_nr_nodes(plan); i++)
		ids.insert(cxltier_placement_get_node(plan, i));
	for (const auto *s : {&r.peak, &r.last})
		if (*s)
			for (auto [node, bytes] : **s)
				if (bytes)
					ids.insert(node);
	return ids;
}

std::uint64_t bytes_on(const std::optional<node_bytes> &s, int node)
{
	if (!s)
		return 0;
	auto it = s->find(node);
	return it == s->end() ? 0 : it->second;
}

json sample_json(cxltier_ctx *ctx, const std::set<int> &ids, const std::optional<node_bytes> &s)
{
	if (!s)
		return nullptr;
	std::uint64_t by_kind[CXLTIER_MEMORY_CXL + 1] = {}; // UNKNOWN, DRAM, CXL
	json nodes = json::array();
	for (int id : ids) {
		auto kind = kind_of(ctx, id);
		std::uint64_t b = bytes_on(s, id);
		by_kind[static_cast<std::size_t>(kind)] += b;
		nodes.push_back({{"node", id}, {"kind", kind_label(kind)}, {"bytes", b}});
	}
	return {{"total", total_bytes(*s)},
		{"dram", by_kind[CXLTIER_MEMORY_DRAM]},
		{"cxl", by_kind[CXLTIER_MEMORY_CXL]},
		{"other", by_kind[CXLTIER_MEMORY_UNKNOWN]},
		{"nodes", nodes}};
}

// Pages in status.json are 4 KiB whatever the host's page size.
constexpr std::uint64_t procd_page_size = 4096;

json managed_json(const std::optional<managed_job> &m)
{
	if (!m)
		return nullptr;
	return {{"target", m->target},
		{"state", m->state},
		{"reason", m->reason},
		{"promoted", m->promoted},
		{"demoted", m->demoted}};
}

json job_json(cxltier_ctx *ctx, const cxltier_placement *plan, const run_options &o,
	      const job_result &r)
{
	auto ids = report_nodes(plan, r);
	return {
		{"command", o.command},
		{"pid", r.pid},
		{"exit_status", r.signal ? json(nullptr) : json(r.exit_code)},
		{"signal", r.signal ? json(signal_name(r.signal)) : json(nullptr)},
		{"status", r.status},
		{"duration_ms", r.duration.count()},
		{"samples", r.samples},
		{"peak", sample_json(ctx, ids, r.peak)},
		{"last", sample_json(ctx, ids, r.last)},
		{"process_mode", managed_json(r.managed)},
	};
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
	return whole ? fmt::format("{:.0f}%", 100.0 * static_cast<double>(part) / whole) : "-";
}

// "Process mode: managed, 3072 pages promoted (12 MiB), 1024 demoted (4 MiB)"
void print_managed(std::FILE *out, const managed_job &m)
{
	fmt::print(out, "Process mode: {}, {} page{} promoted ({}), {} demoted ({}){}\n", m.state,
		   m.promoted, m.promoted == 1 ? "" : "s", human_size(m.promoted * procd_page_size),
		   m.demoted, human_size(m.demoted * procd_page_size),
		   m.reason.empty() ? "" : "; " + m.reason);
}

void print_report(std::FILE *out, cxltier_ctx *ctx, const cxltier_placement *plan,
		  const job_result &r)
{
	std::string how = r.signal ? fmt::format("was killed by {}", signal_name(r.signal))
				   : fmt::format("exited with status {}", r.exit_code);
	if (!r.samples) {
		fmt::print(out, "Job: {} after {}; its memory was not sampled (it ended first, or "
				"/proc/{}/numa_maps could not be read)\n",
			   how, human_ms(static_cast<std::uint64_t>(r.duration.count())), r.pid);
		if (r.managed)
			print_managed(out, *r.managed);
		return;
	}
	fmt::print(out, "Job: {} after {} ({} sample{})\n", how,
		   human_ms(static_cast<std::uint64_t>(r.duration.count())), r.samples,
		   r.samples == 1 ? "" : "s");
	table t({{"NODE", true}, {"KIND"}, {"PEAK", true}, {"LAST", true}});
	std::uint64_t dram = 0, cxl = 0;
	for (int id : report_nodes(plan, r)) {
		auto kind = kind_of(ctx, id);
		std::uint64_t peak = bytes_on(r.peak, id);
		dram += kind == CXLTIER_MEMORY_DRAM ? peak : 0;
		cxl += kind == CXLTIER_MEMORY_CXL ? peak : 0;
		t.add({std::to_string(id), kind_label(kind), human_size(peak),
		       human_size(bytes_on(r.last, id))});
	}
	print_lines(out, t);
	std::uint64_t total = total_bytes(*r.peak);
	fmt::print(out, "Peak: {}, {} on DRAM ({}), {} on CXL ({})\n", human_size(total),
		   human_size(dram), percent(dram, total), human_size(cxl), percent(cxl, total));
	if (r.managed)
		print_managed(out, *r.managed);
}

// The preload allocator: $CXLTIER_PRELOAD_LIB, else where it is installed beside
// this program, else its configured place.
std::string preload_library()
{
	if (const char *env = std::getenv("CXLTIER_PRELOAD_LIB"); env && *env) {
		if (::access(env, R_OK))
			throw fatal(fmt::format("run: --regions: CXLTIER_PRELOAD_LIB={}: {}", env,
						std::strerror(errno)));
		return env;
	}
	std::string candidates[2] = {"", CXLTIER_PRELOAD_ABS};
	char exe[4096];
	ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		std::string dir(exe, static_cast<std::size_t>(n));
		candidates[0] = dir.substr(0, dir.rfind('/') + 1) + CXLTIER_PRELOAD_REL;
	}
	for (const auto &c : candidates)
		if (!c.empty() && !::access(c.c_str(), R_OK)) {
			// The job's environment names it plainly, without "bin/..".
			char real[PATH_MAX];
			return ::realpath(c.c_str(), real) ? std::string(real) : c;
		}
	throw fatal(fmt::format("run: --regions: the preload allocator is not installed ({} or {}; "
				"set CXLTIER_PRELOAD_LIB)",
				candidates[0], candidates[1]));
}

// The job's environment for --regions: the preload first in LD_PRELOAD (before any
// the caller has), and its settings.
void set_region_env(const run_options &o)
{
	std::string lib = preload_library();
	std::string preload = lib;
	if (const char *old = std::getenv("LD_PRELOAD"); old && *old)
		preload += std::string(" ") + old;
	::setenv("LD_PRELOAD", preload.c_str(), 1);
	if (o.region_min)
		::setenv("CXLTIER_PRELOAD_MIN", std::to_string(o.region_min).c_str(), 1);
	if (o.region_size)
		::setenv("CXLTIER_PRELOAD_SIZE", std::to_string(o.region_size).c_str(), 1);
}

void run_command(run_options o)
{
	if (o.command.empty() && !o.dry_run)
		throw fatal("run: no command given (cxltierctl run [options] -- CMD [ARG...])");
	if ((o.region_min || o.region_size) && !o.regions)
		throw fatal("run: --region-min and --region-size go with --regions");
	if (o.regions) {
		set_region_env(o);
		// Nothing else to place: the job is the region's, run it in this process.
		if (!o.fast && !o.slow && !o.dry_run && !o.manage) {
			std::vector<char *> argv;
			for (auto &a : o.command)
				argv.push_back(a.data());
			argv.push_back(nullptr);
			std::fflush(stdout);
			::execvp(argv[0], argv.data());
			int e = errno;
			fmt::print(stderr, "cxltierctl: cannot run {}: {}\n", o.command[0], std::strerror(e));
			throw exit_with(e == ENOENT ? exit_not_found : exit_cannot_invoke);
		}
	}
	if (!o.fast && !o.slow)
		throw fatal("run: nothing to place: give --fast SIZE, --slow SIZE or both"
			    " (or --regions)");
	if (o.manage)
		require_procd();

	cxltier_placement_policy policy{};
	cxltier_placement_policy_from_name(o.policy.c_str(), &policy); // checked at parse time
	auto ctx = open_ctx();
	int rc = 0;
	auto plan = cxltier::plan_placement(ctx.get(), o.fast, o.slow, policy, rc);
	if (!plan)
		throw fatal(library_error(ctx.get(), rc));

	sink out(o);
	if (!o.json_out)
		print_plan(out.get(), plan.get());
	if (o.dry_run) {
		if (o.json_out) {
			json doc = list_document(ctx.get());
			doc["plan"] = plan_json(plan.get());
			fmt::print(out.get(), "{}\n",
				   doc.dump(2, ' ', false, json::error_handler_t::replace));
		}
		out.close();
		return;
	}

	job_result r = run_job(ctx.get(), plan.get(), o.command, o.manage, o.fast);
	if (o.json_out) {
		json doc = list_document(ctx.get());
		doc["plan"] = plan_json(plan.get());
		doc["job"] = job_json(ctx.get(), plan.get(), o, r);
		fmt::print(out.get(), "{}\n", doc.dump(2, ' ', false, json::error_handler_t::replace));
	} else {
		print_report(out.get(), ctx.get(), plan.get(), r);
	}
	out.close();
	if (r.status)
		throw exit_with(r.status);
}

} // namespace

void add_run_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"run", "Run a job with its memory placed on NUMA nodes that have room for it");
	auto o = std::make_shared<run_options>();
	cmd->add_option("--fast", o->fast, "Memory the job needs on DRAM (such as 1G)")
		->transform(CLI::AsSizeValue(false));
	cmd->add_option("--slow", o->slow, "Memory the job may have on CXL (such as 4G)")
		->transform(CLI::AsSizeValue(false));
	cmd->add_option("--policy", o->policy,
			"preferred (DRAM first, default), interleave or weighted (by bandwidth)")
		->check(CLI::IsMember({"preferred", "interleave", "weighted"}));
	cmd->add_flag("-j,--json", o->json_out, "Print the plan and the report as JSON, after the job");
	cmd->add_flag("--dry-run", o->dry_run, "Print the plan and stop");
	cmd->add_option("-o,--output", o->output, "Write the plan and the report to FILE");
	cmd->add_flag("--manage", o->manage,
		      "Put the job in process mode while it runs: cxltier-procd migrates its pages "
		      "between DRAM and CXL");
	cmd->add_flag("--regions", o->regions,
		      "Put the job's large allocations (malloc and its kin, 1 MiB or more) in a "
		      "global region of its own, whose pages the migration daemon places: "
		      "libcxltier-preload.so in LD_PRELOAD (with --fast/--slow, the rest of its "
		      "memory follows the plan)");
	cmd->add_option("--region-min", o->region_min,
			"With --regions: allocations of at least SIZE go to the region (default 1M)")
		->transform(CLI::AsSizeValue(false));
	cmd->add_option("--region-size", o->region_size,
			"With --regions: the region's size, the most it holds (default: the "
			"machine's memory)")
		->transform(CLI::AsSizeValue(false));
	cmd->add_option("CMD", o->command, "The job and its arguments, after --");
	cmd->callback([&run, o] { run = [o] { run_command(*o); }; });
}

} // namespace cxltierctl
