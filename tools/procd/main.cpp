// SPDX-License-Identifier: GPL-2.0
// cxltier-procd: process mode.  Tiers the anonymous memory of the processes and
// cgroups opted in with `cxltierctl manage`, with the placement policy core of the
// module's migration daemon (kmod/policy/), within the daemon's budget.
//
// Theory of operation (Documentation/design.rst, "Process mode", has the why):
//  - Hotness: DAMON's virtual-address monitoring through its sysfs interface, one
//    kdamond over all managed processes, aggregated over one period; a page gets
//    its DAMON region's count.  DAMON reads accessed bits, which the CPU sets only
//    when it loads a translation into its TLB; a page that stays in the TLB looks
//    idle.  So every flush_ms the service flushes the TLB of each managed process
//    (clear_refs 4, the only TLB flush of another process userspace can ask for).
//  - Migration: move_pages(2), demotions first, then promotions; a page that did not
//    move (pinned, busy) is reported failed to the policy, which waits before trying
//    it again.  mlocked, shared and file-backed memory is never touched.
//  - Budget and tunables: the daemon's (/sys/kernel/cxltier/daemon/), split between
//    the managed processes; DRAM is the nodes with CPUs, the CXL nodes are the online
//    cxltier tiers.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <linux/cxltier.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cxlt_policy.h"
#include "damon.hpp"
#include "procmem.hpp"
#include "state.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cxlt_procd;

namespace {

const std::string daemon_dir = "/sys/kernel/cxltier/daemon";
const std::string tiers_dir = "/sys/kernel/cxltier/tiers";
const std::string nodes_dir = "/sys/devices/system/node";

std::atomic<bool> stopping{false};

void on_signal(int)
{
	stopping = true;
}

struct options {
	std::string state_dir;
	unsigned period_ms = 0;		// 0: the daemon's
	unsigned budget_mbps = 0;	// 0: the daemon's
	unsigned sample_us = 5000;
	unsigned min_regions = 100, max_regions = 2000;
	unsigned flush_ms = 100;
	unsigned max_pages = 1u << 22;	// per process: 16 GiB of anonymous mappings
	unsigned periods = 0;		// 0: until stopped
	bool verbose = false;
};

std::optional<std::uint64_t> read_u64(const std::string &path)
{
	std::ifstream f(path);
	std::uint64_t v;
	if (f >> v)
		return v;
	return std::nullopt;
}

struct node_sets {
	std::set<int> fast, slow;
	std::vector<std::uint8_t> tier;	// by node: its CXLT_TIER_*

	std::uint8_t tier_of(int node) const
	{
		return node >= 0 && static_cast<size_t>(node) < tier.size() ? tier[node] : std::uint8_t(CXLT_TIER_NONE);
	}
};

// DRAM: nodes with CPUs; CXL: the nodes of online cxltier tiers.
node_sets read_nodes()
{
	node_sets n;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(tiers_dir, ec)) {
		std::ifstream st(e.path() / "state");
		std::string state;
		st >> state;
		auto node = read_u64(e.path() / "node");
		if (node && state == "online")
			n.slow.insert(static_cast<int>(*node));
	}
	std::ifstream cpu(nodes_dir + "/has_cpu");
	std::string list;
	std::getline(cpu, list);
	std::istringstream ls(list);
	std::string part;
	while (std::getline(ls, part, ',')) {
		if (part.empty())
			continue;
		auto dash = part.find('-');
		int a = std::stoi(part.substr(0, dash));
		int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
		for (int i = a; i <= b; i++)
			if (!n.slow.count(i))
				n.fast.insert(i);
	}
	int top = std::max(n.fast.empty() ? -1 : *n.fast.rbegin(), n.slow.empty() ? -1 : *n.slow.rbegin());
	n.tier.assign(static_cast<size_t>(top + 1), CXLT_TIER_NONE);
	for (int i : n.fast)
		n.tier[i] = CXLT_TIER_FAST;
	for (int i : n.slow)
		n.tier[i] = CXLT_TIER_SLOW;
	return n;
}

int most_free(const std::set<int> &nodes, const std::map<int, node_mem> &mem)
{
	int best = -1;
	std::uint64_t best_free = 0;
	for (int n : nodes) {
		auto it = mem.find(n);
		std::uint64_t f = it == mem.end() ? 0 : it->second.free;
		if (best < 0 || f > best_free)
			best = n, best_free = f;
	}
	return best;
}

// CPU time of the service's main thread by phase, for the status: where its CPU
// goes is the first question when it takes more than its share.
enum phase { ph_damon, ph_layout, ph_locate, ph_record, ph_policy, ph_move, ph_resolve, ph_nodes, ph_status, ph_other, ph_count };
const char *const phase_names[ph_count] = {"damon", "layout", "locate", "record", "policy", "move", "resolve", "nodes", "status", "other"};

// A clock's time in ns (0 when it cannot be read).
std::uint64_t clock_ns(clockid_t id)
{
	timespec ts{};
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

struct phase_clock {
	std::uint64_t ns[ph_count] = {};
	std::uint64_t mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	// Charges the CPU time since the last switch to p.
	void to(phase p)
	{
		std::uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		ns[p] += now - mark;
		mark = now;
	}
};

struct counts {
	std::uint64_t span = 0, pages = 0, fast = 0, slow = 0;
	std::uint64_t promoted = 0, demoted = 0, failed = 0, skipped = 0;
};

json counts_json(const counts &c)
{
	return {{"span_pages", c.span}, {"pages", c.pages}, {"fast_pages", c.fast}, {"slow_pages", c.slow},
		{"promoted", c.promoted}, {"demoted", c.demoted}, {"failed", c.failed},
		{"skipped", c.skipped}};
}

// One managed process: its pages in the policy's numbering (the pages of its
// eligible ranges, in address order) and the policy's state.
class managed_process {
public:
	managed_process(pid_t pid, std::uint64_t start) : pid_(pid), start_(start), comm_(process_comm(pid)) {}

	pid_t pid() const { return pid_; }
	std::uint64_t starttime() const { return start_; }
	const std::string &comm() const { return comm_; }
	const counts &stats() const { return c_; }

	struct step_args {
		const std::vector<damon_region> *regions;
		const node_sets *nodes;
		int fast_node, slow_node;
		std::uint64_t fast_limit;	// pages it may have on DRAM
		std::uint32_t budget;		// pages per direction this period
		const cxlt_policy_params *base;
		unsigned max_pages;
		phase_clock *clock;
	};

	// One period; false when the process is gone.
	bool step(const step_args &a, bool verbose)
	{
		phase_clock &clk = *a.clock;
		clk.to(ph_other);
		// smaps walks every page of every mapping to count them: layout_cache
		// reads it only when the layout may have changed.
		const auto &layout = layout_.get(pid_);
		clk.to(ph_layout);
		if (!layout)
			return false;
		c_.skipped = layout->locked_bytes / page_size;
		if (layout->ranges != ranges_) {
			bool ok = relayout(layout->ranges, a);
			clk.to(ph_policy);
			if (!ok) {
				c_.span = c_.pages = c_.fast = c_.slow = 0;
				return true;
			}
		}
		auto nodes = page_nodes(pid_, ranges_, npages_);
		clk.to(ph_locate);
		if (!nodes)
			return false;
		c_.span = npages_;
		c_.pages = c_.fast = c_.slow = 0;
		for (std::uint32_t p = 0; p < npages_; p++) {
			int n = (*nodes)[p];
			std::uint8_t t = a.nodes->tier_of(n);
			if (n >= 0)
				c_.pages++;
			c_.fast += t == CXLT_TIER_FAST;
			c_.slow += t == CXLT_TIER_SLOW;
			if (t != told_[p]) {
				cxlt_policy_set_tier(pol_, p, static_cast<cxlt_tier_class>(t));
				told_[p] = t;
			}
		}
		clk.to(ph_policy);
		record(*a.regions);
		clk.to(ph_record);

		cxlt_policy_params p = *a.base;
		p.fast_pages = static_cast<std::uint32_t>(std::min<std::uint64_t>(a.fast_limit, UINT32_MAX));
		p.wmark_high = std::min(p.wmark_high, p.fast_pages / 64);
		p.wmark_low = std::min(p.wmark_low, p.wmark_high);
		p.budget = a.budget;
		bool ended = cxlt_policy_set_params(pol_, &p) == 0 && cxlt_policy_end_period(pol_) == 0;
		clk.to(ph_policy);
		if (!ended)
			return true;
		if (!p.budget || a.fast_node < 0 || a.slow_node < 0)
			return true;
		promote_.resize(p.budget);
		demote_.resize(p.budget);
		cxlt_policy_plan plan{promote_.data(), p.budget, demote_.data(), p.budget, 0, 0};
		int sel = cxlt_policy_select(pol_, &plan);
		clk.to(ph_policy);
		if (sel != 0)
			return true;
		// Demotions first: promotions may need the room they free.
		bool alive = move(demote_.data(), plan.nr_demote, a.slow_node, CXLT_TIER_SLOW, c_.demoted) &&
			     move(promote_.data(), plan.nr_promote, a.fast_node, CXLT_TIER_FAST, c_.promoted);
		clk.to(ph_move);
		if (!alive)
			return false;
		if (verbose && (plan.nr_demote || plan.nr_promote))
			fmt::print("cxltier-procd: pid {} ({}): demoted {}, promoted {} (of {} pages, {} on DRAM)\n",
				   pid_, comm_, plan.nr_demote, plan.nr_promote, c_.pages, c_.fast);
		if (verbose)
			std::fflush(stdout);
		return true;
	}

private:
	bool relayout(const std::vector<anon_range> &ranges, const step_args &a)
	{
		ranges_.clear();
		std::uint64_t total = 0;
		for (const auto &r : ranges) {
			std::uint64_t n = (r.end - r.start) / page_size;
			if (total + n > a.max_pages)
				break;	// past the cap: not managed (the status shows pages)
			ranges_.push_back(r);
			total += n;
		}
		npages_ = static_cast<std::uint32_t>(total);
		pol_ = nullptr;
		if (!npages_)
			return false;
		size_t size = cxlt_policy_size(npages_);
		mem_ = std::make_unique<std::uint64_t[]>((size + 7) / 8);
		cxlt_policy_params p = *a.base;
		p.fast_pages = npages_;
		p.wmark_low = p.wmark_high = 0;
		if (cxlt_policy_init(&pol_, mem_.get(), size, npages_, &p) != 0) {
			pol_ = nullptr;
			npages_ = 0;
			ranges_.clear();
			return false;
		}
		told_.assign(npages_, CXLT_TIER_NONE);
		ranges_ = ranges;	// compare against what smaps says, capped or not
		return true;
	}

	std::uint64_t addr_of(std::uint32_t page) const
	{
		std::uint64_t base = 0;
		for (const auto &r : ranges_) {
			std::uint64_t n = (r.end - r.start) / page_size;
			if (page < base + n)
				return r.start + (page - base) * page_size;
			base += n;
		}
		return 0;
	}

	void record(const std::vector<damon_region> &regions)
	{
		std::uint64_t base = 0;
		for (const auto &r : ranges_) {
			std::uint64_t n = (r.end - r.start) / page_size;
			for (const auto &d : regions) {
				if (!d.nr_accesses || d.end <= r.start || d.start >= r.end)
					continue;
				std::uint64_t lo = std::max(d.start, r.start), hi = std::min(d.end, r.end);
				for (std::uint64_t a = lo & ~(page_size - 1); a < hi; a += page_size) {
					std::uint64_t pg = base + (a - r.start) / page_size;
					if (pg < npages_)
						cxlt_policy_record_access(pol_, static_cast<std::uint32_t>(pg),
									  d.nr_accesses);
				}
			}
			base += n;
		}
	}

	bool move(const std::uint32_t *pages, std::uint32_t nr, int node, std::uint8_t tier,
		  std::uint64_t &moved)
	{
		if (!nr)
			return true;
		std::vector<std::uint64_t> addrs(nr);
		for (std::uint32_t i = 0; i < nr; i++)
			addrs[i] = addr_of(pages[i]);
		auto res = move_to(pid_, addrs, node);
		if (!res)
			return false;
		for (std::uint32_t i = 0; i < nr; i++) {
			int now = (*res)[i];
			bool ok = now == node;
			cxlt_policy_migrated(pol_, pages[i], static_cast<cxlt_tier_class>(tier), ok ? 0 : -EBUSY);
			if (ok) {
				moved++;
				told_[pages[i]] = tier;
			} else {
				c_.failed++;
			}
		}
		return true;
	}

	pid_t pid_;
	std::uint64_t start_;
	std::string comm_;
	layout_cache layout_;
	std::vector<anon_range> ranges_;
	std::uint32_t npages_ = 0;
	std::unique_ptr<std::uint64_t[]> mem_;
	cxlt_policy *pol_ = nullptr;
	std::vector<std::uint8_t> told_;
	std::vector<std::uint32_t> promote_, demote_;
	counts c_;
};

// Flushes the TLBs of the managed processes every flush_ms (see the top comment).
class tlb_flusher {
public:
	explicit tlb_flusher(unsigned ms) : ms_(ms)
	{
		if (ms_)
			thr_ = std::thread([this] { run(); });
	}
	~tlb_flusher()
	{
		{
			std::lock_guard<std::mutex> g(lock_);
			done_ = true;
		}
		cv_.notify_all();
		if (thr_.joinable())
			thr_.join();
	}
	// The CPU time of its thread (0: none).
	std::uint64_t cpu_ns()
	{
		clockid_t id;
		return ms_ && pthread_getcpuclockid(thr_.native_handle(), &id) == 0 ? clock_ns(id) : 0;
	}
	void set(std::vector<pid_t> pids)
	{
		std::lock_guard<std::mutex> g(lock_);
		pids_ = std::move(pids);
	}

private:
	void run()
	{
		std::unique_lock<std::mutex> g(lock_);
		while (!done_) {
			for (pid_t p : pids_) {
				int fd = ::open(("/proc/" + std::to_string(p) + "/clear_refs").c_str(),
						O_WRONLY | O_CLOEXEC);
				if (fd >= 0) {
					// 4: soft-dirty bits, the one kind that ends in flush_tlb_mm().
					(void)!::write(fd, "4", 1);
					::close(fd);
				}
			}
			cv_.wait_for(g, std::chrono::milliseconds(ms_), [this] { return done_; });
		}
	}

	unsigned ms_;
	std::mutex lock_;
	std::condition_variable cv_;
	bool done_ = false;
	std::vector<pid_t> pids_;
	std::thread thr_;
};

struct target_state {
	target t;
	std::string state = "managed", reason;
	std::vector<pid_t> pids;
};

class service {
public:
	explicit service(options o) : o_(std::move(o)), flusher_(o_.flush_ms) {}

	int run()
	{
		std::uint64_t period = 0;
		while (!stopping && (!o_.periods || period < o_.periods)) {
			clock_.to(ph_other);
			auto targets = resolve();
			clock_.to(ph_resolve);
			std::vector<pid_t> pids;
			for (const auto &[pid, mp] : procs_)
				pids.push_back(pid);
			flusher_.set(pids);
			unsigned period_ms = o_.period_ms ? o_.period_ms
					     : static_cast<unsigned>(read_u64(daemon_dir + "/period_ms").value_or(1000));
			clock_.to(ph_other);
			if (pids != damon_.targets() || (!pids.empty() && !damon_.running())) {
				try {
					damon_.set_targets(pids, {o_.sample_us, period_ms * 1000,
								  o_.min_regions, o_.max_regions});
				} catch (const std::exception &e) {
					fmt::print(stderr, "cxltier-procd: {}\n", e.what());
					return 1;
				}
			}
			clock_.to(ph_damon);
			if (pids.empty()) {
				write_status(targets, period, period_ms);
				clock_.to(ph_status);
				sleep_ms(period_ms);
				period++;
				continue;
			}
			auto regions = damon_.collect();
			clock_.to(ph_damon);
			period++;
			if (regions.size() != pids.size())
				continue;	// the kdamond stopped: set up again
			step_all(pids, regions, period_ms);
			clock_.to(ph_other);
			write_status(targets, period, period_ms);
			clock_.to(ph_status);
		}
		return 0;
	}

private:
	void sleep_ms(unsigned ms)
	{
		for (unsigned i = 0; i < ms && !stopping; i += 50)
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
	}

	// The opt-ins, as processes: new ones added, gone ones dropped (and their
	// opt-in removed: nothing of a process that exited is left behind).
	std::vector<target_state> resolve()
	{
		std::vector<target_state> out;
		std::map<pid_t, std::uint64_t> want;	// pid -> fast limit (bytes, 0 none)
		for (auto &t : read_targets(o_.state_dir)) {
			target_state ts;
			ts.t = t;
			if (t.what == target::kind::pid) {
				auto st = process_starttime(t.pid);
				if (!st || *st != t.starttime) {
					ts.state = "gone";
					remove_target(o_.state_dir, t);
					if (o_.verbose)
						fmt::print("cxltier-procd: pid {} is gone\n", t.pid);
				} else {
					ts.pids.push_back(t.pid);
				}
			} else {
				auto pids = cgroup_pids(t.cgroup);
				if (!pids) {
					ts.state = "gone";
					remove_target(o_.state_dir, t);
				} else {
					for (pid_t p : *pids)
						if (process_starttime(p) && p != ::getpid())
							ts.pids.push_back(p);
				}
			}
			for (pid_t p : ts.pids)
				want[p] += t.fast_bytes;
			out.push_back(std::move(ts));
		}
		for (auto it = procs_.begin(); it != procs_.end();) {
			auto st = process_starttime(it->first);
			if (!want.count(it->first) || !st || *st != it->second->starttime())
				it = procs_.erase(it);
			else
				++it;
		}
		for (const auto &[pid, fast] : want) {
			if (procs_.count(pid))
				continue;
			if (auto st = process_starttime(pid))
				procs_.emplace(pid, std::make_unique<managed_process>(pid, *st));
		}
		fast_limit_ = want;
		return out;
	}

	void step_all(const std::vector<pid_t> &pids, const std::vector<std::vector<damon_region>> &regions,
		      unsigned period_ms)
	{
		node_sets nodes = read_nodes();
		// One read of /proc/zoneinfo has every node's free pages and watermarks.
		auto zoneinfo = read_whole("/proc/zoneinfo");
		auto mem = zoneinfo ? parse_zoneinfo(*zoneinfo) : std::map<int, node_mem>();
		int fast_node = most_free(nodes.fast, mem), slow_node = most_free(nodes.slow, mem);
		cxlt_policy_params base{};
		cxlt_policy_default_params(&base, 1, 1);
		auto tun = [](const char *name, std::uint8_t &field) {
			if (auto v = read_u64(daemon_dir + "/" + name))
				field = static_cast<std::uint8_t>(*v);
		};
		tun("decay_shift", base.decay_shift);
		tun("idle_bits", base.idle_bits);
		tun("burst_bits", base.burst_bits);
		tun("confidence", base.confidence);
		tun("hyst_steps", base.hyst_steps);
		tun("min_resid", base.min_resid);
		tun("idle_fdr", base.idle_fdr);
		tun("burst_fdr", base.burst_fdr);
		std::uint64_t mb_pages = (1u << 20) / page_size;
		base.wmark_low = static_cast<std::uint32_t>(read_u64(daemon_dir + "/wmark_low_mb").value_or(4) * mb_pages);
		base.wmark_high = static_cast<std::uint32_t>(read_u64(daemon_dir + "/wmark_high_mb").value_or(8) * mb_pages);
		// The module's grant (the daemon's budget less its own moves), else the
		// daemon's setting.
		std::uint64_t budget;
		if (o_.budget_mbps)
			budget = std::uint64_t(o_.budget_mbps) * mb_pages * period_ms / 1000;
		else if (granted_)
			budget = *granted_;
		else
			budget = read_u64(daemon_dir + "/enable").value_or(1)
					 ? read_u64(daemon_dir + "/budget_mbps").value_or(64) * mb_pages * period_ms / 1000
					 : 0;
		budget /= pids.size();
		counts before = totals();
		// DRAM free above the kernel's high watermarks (kswapd keeps that much
		// free: memory promoted into it would only be reclaimed or demoted again),
		// shared out; the policy keeps its own watermarks inside that.
		std::uint64_t free_fast = 0;
		for (int n : nodes.fast) {
			auto it = mem.find(n);
			if (it != mem.end() && it->second.free > it->second.high)
				free_fast += it->second.free - it->second.high;
		}
		clock_.to(ph_nodes);
		for (size_t i = 0; i < pids.size(); i++) {
			auto it = procs_.find(pids[i]);
			if (it == procs_.end())
				continue;
			auto &mp = *it->second;
			std::uint64_t limit = mp.stats().fast + free_fast / pids.size();
			if (std::uint64_t own = fast_limit_[pids[i]])
				limit = std::min(limit, own / page_size);
			managed_process::step_args a{&regions[i], &nodes, fast_node, slow_node, limit,
						     static_cast<std::uint32_t>(std::min<std::uint64_t>(budget, 1u << 24)),
						     &base, o_.max_pages, &clock_};
			if (!mp.step(a, o_.verbose))
				procs_.erase(it);
		}
		report(before);
	}

	// The managed processes' counts; those of a process dropped are gone from it.
	counts totals() const
	{
		counts t;
		for (const auto &[pid, mp] : procs_) {
			const auto &c = mp->stats();
			t.pages += c.pages, t.fast += c.fast;
			t.promoted += c.promoted, t.demoted += c.demoted, t.failed += c.failed;
		}
		return t;
	}

	// Tells the module what this period moved (its counters, its tracepoint) and
	// takes the budget of the next (CXLTIER_IOC_PROCESS).  Without the module, or
	// one without process mode, the daemon's budget_mbps is the budget.
	void report(const counts &before)
	{
		auto now = std::chrono::steady_clock::now();
		auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_report_).count();
		last_report_ = now;
		granted_.reset();
		if (dev_.fd < 0)
			return;
		counts after = totals();
		cxltier_process r{};
		r.size = sizeof(r);
		r.processes = static_cast<std::uint32_t>(procs_.size());
		r.period_ns = static_cast<std::uint64_t>(std::clamp<std::int64_t>(ns, 1000000, 60000000000));
		r.managed_pages = after.pages;
		r.fast_pages = std::min(after.fast, after.pages);
		// A process dropped during the period takes its moves with it.
		auto delta = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; };
		r.promoted = delta(after.promoted, before.promoted);
		r.demoted = delta(after.demoted, before.demoted);
		r.failed = delta(after.failed, before.failed);
		if (::ioctl(dev_.fd, CXLTIER_IOC_PROCESS, &r) == 0)
			granted_ = r.budget;
		else if (o_.verbose)
			fmt::print(stderr, "cxltier-procd: CXLTIER_IOC_PROCESS: {}\n", std::strerror(errno));
	}

	void write_status(const std::vector<target_state> &targets, std::uint64_t period, unsigned period_ms)
	{
		json tj = json::array();
		for (const auto &ts : targets) {
			counts sum;
			json pj = json::array();
			for (pid_t p : ts.pids) {
				auto it = procs_.find(p);
				if (it == procs_.end())
					continue;
				const auto &c = it->second->stats();
				json e = counts_json(c);
				e["pid"] = p;
				e["comm"] = it->second->comm();
				pj.push_back(e);
				sum.span += c.span, sum.pages += c.pages, sum.fast += c.fast, sum.slow += c.slow;
				sum.promoted += c.promoted, sum.demoted += c.demoted;
				sum.failed += c.failed, sum.skipped += c.skipped;
			}
			json e = counts_json(sum);
			e["target"] = ts.t.file_name();
			e["kind"] = ts.t.what == target::kind::pid ? "pid" : "cgroup";
			e["pid"] = ts.t.what == target::kind::pid ? json(ts.t.pid) : json(nullptr);
			e["cgroup"] = ts.t.what == target::kind::cgroup ? json(ts.t.cgroup) : json(nullptr);
			e["state"] = ts.state;
			e["reason"] = ts.reason;
			e["processes"] = pj;
			tj.push_back(e);
		}
		json cpu = json::object();
		for (int i = 0; i < ph_count; i++)
			cpu[phase_names[i]] = clock_.ns[i] / 1000000;
		cpu["flush"] = flusher_.cpu_ns() / 1000000;
		json j = {{"service", {{"pid", ::getpid()}, {"period", period}, {"period_ms", period_ms},
				       {"budget_mbps", o_.budget_mbps ? o_.budget_mbps : read_u64(daemon_dir + "/budget_mbps").value_or(64)},
				       {"flush_ms", o_.flush_ms}, {"cpu_ms", cpu}}},
			  {"targets", tj}};
		std::string path = o_.state_dir + "/status.json", tmp = path + ".tmp";
		{
			std::ofstream f(tmp, std::ios::trunc);
			f << j.dump(1) << '\n';
		}
		::rename(tmp.c_str(), path.c_str());
	}

	options o_;
	fd_closer dev_{::open("/dev/cxltier", O_RDWR | O_CLOEXEC)};
	std::optional<std::uint64_t> granted_;
	std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
	std::map<pid_t, std::unique_ptr<managed_process>> procs_;
	damon_monitor damon_;
	tlb_flusher flusher_;
	phase_clock clock_;
	std::map<pid_t, std::uint64_t> fast_limit_;
};

} // namespace

int main(int argc, char **argv)
{
	options o;
	o.state_dir = state_dir();
	CLI::App app("cxltier-procd: process mode of cxltier (tiers the anonymous memory of "
		     "processes opted in with `cxltierctl manage`).", "cxltier-procd");
	app.add_option("--state-dir", o.state_dir, "State directory (default $CXLTIER_STATE_DIR or /run/cxltier)");
	app.add_option("--period-ms", o.period_ms, "Policy period (default: the daemon's period_ms)")
		->check(CLI::Range(100u, 60000u));
	app.add_option("--budget-mbps", o.budget_mbps, "Migration budget (default: the daemon's budget_mbps)");
	app.add_option("--sample-us", o.sample_us, "DAMON sampling interval")->check(CLI::Range(1000u, 1000000u));
	app.add_option("--min-regions", o.min_regions, "DAMON's least regions over all managed processes")
		->check(CLI::Range(10u, 100000u));
	app.add_option("--max-regions", o.max_regions, "DAMON's most regions (finer: more CPU)")
		->check(CLI::Range(10u, 100000u));
	app.add_option("--flush-ms", o.flush_ms, "TLB flush interval of the managed processes (0: never)")
		->check(CLI::Range(0u, 60000u));
	app.add_option("--periods", o.periods, "Stop after this many periods (default: run until stopped)");
	app.add_flag("-v,--verbose", o.verbose, "Print what moves");
	CLI11_PARSE(app, argc, argv);

	std::error_code ec;
	fs::create_directories(o.state_dir + "/managed", ec);
	if (ec) {
		fmt::print(stderr, "cxltier-procd: {}: {}\n", o.state_dir, ec.message());
		return 1;
	}
	std::string pidfile = o.state_dir + "/procd.pid";
	int fd = ::open(pidfile.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
		fmt::print(stderr, "cxltier-procd: another cxltier-procd runs ({} is locked)\n", pidfile);
		return 1;
	}
	std::string me = std::to_string(::getpid()) + "\n";
	if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
		fmt::print(stderr, "cxltier-procd: cannot write {}\n", pidfile);
		return 1;
	}
	struct sigaction sa = {};
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, nullptr);
	sigaction(SIGINT, &sa, nullptr);

	int rc;
	try {
		service s(o);
		fmt::print("cxltier-procd: running (state in {})\n", o.state_dir);
		std::fflush(stdout);
		rc = s.run();
	} catch (const std::exception &e) {
		fmt::print(stderr, "cxltier-procd: {}\n", e.what());
		rc = 1;
	}
	::unlink(pidfile.c_str());
	::close(fd);
	return rc;
}
