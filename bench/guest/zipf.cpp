// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-zipf: the workload of the guest benchmark (make bench, bench/run-guest).
//
// Maps a working set (anonymous memory, or a cxltier global region), touches every
// page once in address order (first-touch placement), then runs "ops" for a fixed
// time: each op picks a page from a Zipf distribution over the working set (ranks
// scattered over the pages by a seeded permutation, so the hot pages are not
// neighbours) and reads --op-bytes of it.  At the end of every measuring interval it
// pauses the ops and samples: where every page is (move_pages(2) for every backend,
// the same ruler for every row, ruler.hpp; a region's own CXLTIER_IOC_PAGES is only
// compared with it), hence the exact fast-tier access fraction
// (the sum of the probabilities of the pages on fast nodes), pages seen changing
// tier, the CPU time of the tiering kernel threads (/proc/PID/schedstat), its own
// system time, /proc/vmstat and, for a region, its STAT counters.  Prints one JSON
// document: the workload, every interval, and the warm-up and steady-state summaries.
//
// Pages are 4 KiB everywhere: anonymous memory gets MADV_NOHUGEPAGE, as region pages
// are small pages too, and a Zipf over pages is meaningless inside one 2 MiB folio.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <linux/cxltier.h>

#include "../sim/rng.hpp"
#include "measure.hpp"
#include "ruler.hpp"

namespace {

using cxltier::sim::rng;
using namespace cxlt_bench;

constexpr size_t PAGE = 4096;
// Numbers from the kernel's uapi (linux/mempolicy.h), without libnuma: the program is
// linked statically and copied into the guest alone.
constexpr int MPOL_BIND_ = 2;

struct options {
	std::string config = "unnamed";
	std::string backend = "anon";
	uint64_t size_mb = 64;
	double zipf = 0.99;
	uint64_t seed = 1;
	unsigned op_bytes = 256;
	double duration = 60;
	double interval = 5;
	double warmup = 20;
	double pp_window = 10;
	int membind = -1;
	std::string region = "bench";
	std::string fast_nodes;
	std::string threads = TIERING_THREADS;
	std::string counters;
	std::string cgroup;
	bool scramble = true;
	std::string out;
};

[[noreturn]] void die(const std::string &msg)
{
	fprintf(stderr, "cxlt-bench-zipf: %s\n", msg.c_str());
	exit(1);
}

// --- the working set --------------------------------------------------------------

class working_set {
public:
	virtual ~working_set() = default;
	char *base() const { return base_; }
	size_t pages() const { return pages_; }
	// Each page's node, or a negative value when it has none (not present): the
	// kernel's own answer (move_pages(2) with no target) for every configuration,
	// so that every row is measured with the same ruler.
	virtual void locate(std::vector<int> &nodes)
	{
		nodes.assign(pages_, -1);
		if (addrs_.empty()) {
			addrs_.resize(pages_);
			for (size_t i = 0; i < pages_; i++)
				addrs_[i] = base_ + i * PAGE;
		}
		if (syscall(SYS_move_pages, 0, pages_, addrs_.data(), nullptr, nodes.data(), 0) < 0)
			die(std::string("move_pages: ") + strerror(errno));
	}
	// Another answer for the same moment as the last locate(), the backend's own
	// (a region's CXLTIER_IOC_PAGES), to check the ruler with; null when none.
	virtual const std::vector<int> *own_nodes() const { return nullptr; }
	// Counters of the backend (region STAT), or null.
	virtual json counters() { return nullptr; }
	// The ruler: move_pages(2), unmapped pages carried (ruler.hpp).
	std::string locator() const { return "move_pages+carry"; }

protected:
	char *base_ = nullptr;
	size_t pages_ = 0;

private:
	std::vector<void *> addrs_;
};

class anon_set : public working_set {
public:
	anon_set(size_t pages, int membind)
	{
		pages_ = pages;
		void *p = mmap(nullptr, pages * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die(std::string("mmap: ") + strerror(errno));
		base_ = static_cast<char *>(p);
		if (madvise(base_, pages * PAGE, MADV_NOHUGEPAGE))
			die(std::string("madvise(MADV_NOHUGEPAGE): ") + strerror(errno));
		if (membind >= 0) {
			unsigned long mask[16] = {};

			mask[membind / 64] |= 1UL << (membind % 64);
			if (syscall(SYS_mbind, base_, pages * PAGE, MPOL_BIND_, mask,
				    sizeof(mask) * 8, 0))
				die("mbind(node " + std::to_string(membind) + "): " + strerror(errno));
		}
	}
	~anon_set() override { munmap(base_, pages_ * PAGE); }
};

class region_set : public working_set {
public:
	region_set(size_t pages, const std::string &name) : name_(name)
	{
		pages_ = pages;
		dev_ = open("/dev/" CXLTIER_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		if (dev_ < 0)
			die(std::string("/dev/" CXLTIER_DEVICE_NAME ": ") + strerror(errno));

		cxltier_create c{};
		c.size = sizeof(c);
		c.length = pages * PAGE;
		c.policy = CXLTIER_POLICY_FAST_FIRST;
		snprintf(c.name, sizeof(c.name), "%s", name.c_str());
		if (ioctl(dev_, CXLTIER_IOC_CREATE, &c))
			die("create region " + name + ": " + strerror(errno));

		cxltier_open o{};
		o.size = sizeof(o);
		o.flags = CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE;
		snprintf(o.name, sizeof(o.name), "%s", name.c_str());
		if (ioctl(dev_, CXLTIER_IOC_OPEN, &o))
			die("open region " + name + ": " + strerror(errno));
		fd_ = o.fd;
		void *p = mmap(nullptr, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
		if (p == MAP_FAILED)
			die(std::string("mmap region: ") + strerror(errno));
		base_ = static_cast<char *>(p);
	}
	~region_set() override
	{
		cxltier_destroy d{};

		munmap(base_, pages_ * PAGE);
		close(fd_);
		d.size = sizeof(d);
		snprintf(d.name, sizeof(d.name), "%s", name_.c_str());
		ioctl(dev_, CXLTIER_IOC_DESTROY, &d);
		close(dev_);
	}

	// move_pages(2), as every row; the module's own answer (CXLTIER_IOC_PAGES),
	// read right after, is only compared with it.  With the counters: the most pages
	// in one sample that both place on different nodes, and the most that
	// move_pages(2) saw unmapped while the module had them (pages the daemon samples
	// or moved are unmapped until their next touch: ruler.hpp carries them).
	void locate(std::vector<int> &nodes) override
	{
		working_set::locate(nodes);
		if (!use_ioctl_)
			return;
		cxltier_pages pg{};

		own_.assign(pages_, -1);
		pg.size = sizeof(pg);
		pg.count = uint32_t(pages_);
		pg.nodes = reinterpret_cast<uintptr_t>(own_.data());
		if (ioctl(fd_, CXLTIER_IOC_PAGES, &pg)) {
			use_ioctl_ = false;
			own_.clear();
			return;
		}
		uint64_t differ = 0, unmapped = 0;
		for (size_t i = 0; i < pages_; i++) {
			differ += nodes[i] >= 0 && own_[i] >= 0 && nodes[i] != own_[i];
			unmapped += nodes[i] < 0 && own_[i] >= 0;
		}
		disagree_ = std::max(disagree_, differ);
		unmapped_ = std::max(unmapped_, unmapped);
	}

	const std::vector<int> *own_nodes() const override
	{
		return own_.empty() ? nullptr : &own_;
	}

	json counters() override
	{
		cxltier_stat st{};

		st.size = sizeof(st);
		if (ioctl(fd_, CXLTIER_IOC_STAT, &st))
			return nullptr;
		return json{ { "resident", st.resident }, { "fast", st.fast },
			     { "promoted", st.promoted }, { "demoted", st.demoted },
			     { "pingpong", st.pingpong }, { "skipped_pinned", st.skipped_pinned },
			     { "failed", st.failed }, { "moved_bytes", st.moved_bytes },
			     { "sampled", st.sampled }, { "accessed", st.accessed },
			     { "ioc_pages_disagree", disagree_ },
			     { "ioc_pages_unmapped", unmapped_ } };
	}

private:
	std::string name_;
	int dev_ = -1, fd_ = -1;
	bool use_ioctl_ = true;
	std::vector<int> own_;
	uint64_t disagree_ = 0, unmapped_ = 0;
};

// --- what the tiering machinery costs and does ---------------------------------------

uint64_t sys_time_ns()
{
	rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return uint64_t(ru.ru_stime.tv_sec) * 1000000000ULL + uint64_t(ru.ru_stime.tv_usec) * 1000ULL;
}

// A snapshot of every counter, taken between intervals.
struct snapshot {
	double t = 0;
	std::map<std::string, uint64_t> threads, vm, counters;
	json backend;
};

// --- the run ---------------------------------------------------------------------------

// An interval: its ops, and the ruler's reading at its end (ruler.hpp).
struct interval_stat : reading {
	double t_end = 0, wall = 0, op_time = 0;
	uint64_t ops = 0, app_sys_ns = 0;
	// The mass of unmapped pages the ruler put on the other tier than the backend's
	// own answer (ruler.hpp's carried_disagreement()); none without that answer.
	std::optional<double> carry_error;
	uint64_t fast_free_kb = 0;
	json threads, vm, backend, counters;
};

json summarize(const std::vector<interval_stat> &iv, size_t from, size_t to)
{
	json s;
	double wall = 0, op_time = 0, ftaf_w = 0, mapped_w = 0, carried_max = 0;
	std::optional<double> error_max;
	uint64_t ops = 0, moved = 0, pingpong = 0, app_sys = 0, thr = 0;
	json threads = json::object(), vm = json::object(), backend, counters;

	for (size_t i = from; i < to; i++) {
		const auto &x = iv[i];
		wall += x.wall;
		op_time += x.op_time;
		ops += x.ops;
		ftaf_w += x.ftaf * x.wall;
		mapped_w += x.ftaf_mapped * x.wall;
		carried_max = std::max(carried_max, x.carried_mass);
		if (x.carry_error)
			error_max = std::max(error_max.value_or(0), *x.carry_error);
		moved += x.moved;
		pingpong += x.pingpong;
		app_sys += x.app_sys_ns;
		add_into(threads, x.threads);
		add_into(vm, x.vm);
		add_into(backend, x.backend);
		add_into(counters, x.counters);
	}
	for (const auto &[k, v] : threads.items())
		thr += uint64_t(v.get<int64_t>());
	s["seconds"] = wall;
	s["intervals"] = to - from;
	s["ops"] = ops;
	s["ops_per_s"] = op_time > 0 ? double(ops) / op_time : 0.0;
	s["ftaf"] = wall > 0 ? ftaf_w / wall : 0.0;
	// The rule without the carry (ruler.hpp), and how much the carry decided.
	s["ftaf_mapped"] = wall > 0 ? mapped_w / wall : 0.0;
	s["carried_mass_max"] = carried_max;
	s["carry_error_max"] = error_max ? json(*error_max) : json(nullptr);
	s["fast_pages_end"] = to > from ? iv[to - 1].fast_pages : 0;
	double fp = 0, ff = 0;
	for (size_t i = from; i < to; i++)
		fp += double(iv[i].fast_pages), ff += double(iv[i].fast_free_kb);
	// Means over the span's samples: the DRAM the working set held, and what was left.
	s["fast_mb_mean"] = to > from ? fp / double(to - from) * PAGE / (1 << 20) : 0.0;
	s["fast_free_mb_mean"] = to > from ? ff / double(to - from) / 1024 : 0.0;
	s["moved_pages_seen"] = moved;
	s["pingpong_seen"] = pingpong;
	s["cpu_threads_pct"] = wall > 0 ? 100.0 * double(thr) / (wall * 1e9) : 0.0;
	s["cpu_app_sys_pct"] = wall > 0 ? 100.0 * double(app_sys) / (wall * 1e9) : 0.0;
	s["cpu_threads_ns"] = threads;
	s["vmstat"] = vm;
	s["backend"] = backend;
	s["counters"] = counters;
	return s;
}

int run(const options &o)
{
	const size_t npages = o.size_mb * (1 << 20) / PAGE;
	const std::vector<std::string> prefixes = split(o.threads, ',');
	std::set<int> fast = parse_nodelist(o.fast_nodes.empty()
					    ? read_file("/sys/devices/system/node/has_cpu")
					    : o.fast_nodes);

	if (npages < 2 || npages > (1U << 30))
		die("--size-mb out of range");
	if (o.op_bytes < 8 || o.op_bytes > PAGE || PAGE % o.op_bytes)
		die("--op-bytes must be a power of two from 8 to 4096");

	// Page probabilities: rank r (1-based) has weight r^-s; rank r lives on page perm[r].
	rng r(o.seed);
	const std::vector<uint32_t> perm = o.scramble ? seeded_permutation(npages, r)
						      : seeded_permutation(npages);
	const std::vector<double> weight = zipf_weights(npages, o.zipf);
	std::vector<double> prob(npages);
	for (size_t k = 0; k < npages; k++)
		prob[perm[k]] = weight[k];
	alias_table table(prob);

	std::vector<int> nodes(npages);
	std::vector<page_history> hist(npages);
	// The tables above are read by every op and the code runs all the time: keep them
	// in DRAM whatever reclaim and the tiering do (the working set, mapped below, is
	// not locked).  Under TCG, code run from emulated CXL memory is very slow.
	if (mlockall(MCL_CURRENT))
		die(std::string("mlockall: ") + strerror(errno));

	// The working set alone in its memory cgroup, for whoever wants to tell its pages
	// from the rest (a DAMOS memcg filter): the pages above stay charged where they are.
	if (!o.cgroup.empty()) {
		std::ofstream f(o.cgroup + "/cgroup.procs");
		f << getpid() << std::endl;
		if (!f)
			die("cannot move into the cgroup " + o.cgroup);
	}

	std::unique_ptr<working_set> ws;
	if (o.backend == "anon")
		ws = std::make_unique<anon_set>(npages, o.membind);
	else if (o.backend == "region")
		ws = std::make_unique<region_set>(npages, o.region);
	else
		die("unknown --backend " + o.backend);

	// First touch, in address order.
	double t0 = now();
	for (size_t i = 0; i < npages; i++)
		*reinterpret_cast<volatile uint64_t *>(ws->base() + i * PAGE) = i;
	double populate_s = now() - t0;

	auto locate = [&](interval_stat &s, int idx, int pp_intervals) {
		ws->locate(nodes);
		static_cast<reading &>(s) = read_placement(hist, nodes, prob, fast, idx, pp_intervals);
		if (const std::vector<int> *own = ws->own_nodes())
			s.carry_error = carried_disagreement(hist, nodes, *own, prob, fast);
	};

	auto take = [&](snapshot &sn) {
		sn.t = now();
		sn.threads = thread_cpu(prefixes);
		sn.vm = vmstat();
		sn.backend = ws->counters();
		sn.counters = dir_counters(o.counters);
	};

	// The placement right after the first touch.
	interval_stat initial;
	locate(initial, -1, 0);

	const int pp_intervals = std::max(1, int(std::lround(o.pp_window / o.interval)));
	const size_t nint = std::max<size_t>(1, size_t(std::lround(o.duration / o.interval)));
	std::vector<interval_stat> iv;
	snapshot before, after;
	uint64_t sink = 0;
	const unsigned lines = PAGE / o.op_bytes, words = o.op_bytes / 8;
	unsigned batch = 64;
	char *const base = ws->base();

	take(before);
	const double start = before.t;
	for (size_t k = 0; k < nint; k++) {
		interval_stat s;
		const double until = start + double(k + 1) * o.interval;
		uint64_t sys0 = sys_time_ns();
		double a = now(), b = a;

		// The ops, checking the clock every `batch` of them.  The guest's clock may
		// be a system call reading an emulated timer (no TSC clocksource under TCG),
		// so the batch grows until a check comes about once a millisecond.
		do {
			for (unsigned j = 0; j < batch; j++) {
				uint64_t x = r.next();
				uint32_t page = table.draw(x);
				const uint64_t *p = reinterpret_cast<const uint64_t *>(
					base + size_t(page) * PAGE +
					size_t((r.next() >> 40) % lines) * o.op_bytes);
				for (unsigned w = 0; w < words; w++)
					sink += reinterpret_cast<const volatile uint64_t *>(p)[w];
			}
			s.ops += batch;
			double c = now();
			if (c - b < 0.5e-3 && batch < (1U << 20))
				batch *= 2;
			else if (c - b > 2e-3 && batch > 16)
				batch /= 2;
			b = c;
		} while (b < until);
		s.op_time = b - a;
		s.app_sys_ns = sys_time_ns() - sys0;

		take(after);
		locate(s, int(k), pp_intervals);
		s.fast_free_kb = free_kb(fast);
		s.t_end = after.t - start;
		s.wall = after.t - before.t;
		s.threads = delta(before.threads, after.threads);
		s.vm = delta(before.vm, after.vm);
		s.backend = delta(before.backend, after.backend);
		if (!o.counters.empty())
			s.counters = delta(before.counters, after.counters);
		iv.push_back(std::move(s));
		// The sampling above is not the workload's: the next interval starts here.
		take(before);
	}

	size_t nwarm = std::min(iv.size(), size_t(std::lround(o.warmup / o.interval)));
	double ftaf_opt = 0;
	{
		std::vector<double> sorted(prob);
		std::sort(sorted.rbegin(), sorted.rend());
		// The best placement for the DRAM this configuration ended up holding.
		size_t nf = std::min<size_t>(npages, iv.empty() ? 0 : iv.back().fast_pages);
		for (size_t i = 0; i < nf; i++)
			ftaf_opt += sorted[i];
	}

	json doc;
	doc["config"] = o.config;
	doc["workload"] = { { "backend", o.backend }, { "size_mb", o.size_mb }, { "pages", npages },
			    { "zipf", o.zipf }, { "seed", o.seed }, { "scrambled", o.scramble },
			    { "op_bytes", o.op_bytes }, { "membind", o.membind },
			    { "fast_nodes", std::vector<int>(fast.begin(), fast.end()) },
			    { "interval_s", o.interval }, { "warmup_s", o.warmup },
			    { "pingpong_window_s", o.pp_window }, { "locator", ws->locator() },
			    { "cgroup", o.cgroup } };
	doc["populate_s"] = populate_s;
	doc["initial"] = { { "ftaf", initial.ftaf }, { "fast_pages", initial.fast_pages },
			   { "absent_pages", initial.absent_pages } };
	doc["ftaf_opt_same_dram"] = ftaf_opt;
	doc["warmup"] = summarize(iv, 0, nwarm);
	doc["steady"] = summarize(iv, nwarm, iv.size());
	json series = json::array();
	for (const auto &s : iv)
		series.push_back({ { "t", s.t_end }, { "ops_per_s", s.op_time > 0 ? double(s.ops) / s.op_time : 0.0 },
				   { "ftaf", s.ftaf }, { "fast_pages", s.fast_pages },
				   { "absent_pages", s.absent_pages }, { "moved_seen", s.moved },
				   { "pingpong_seen", s.pingpong }, { "ftaf_mapped", s.ftaf_mapped },
				   { "carried_pages", s.carried_pages },
				   { "carried_mass", s.carried_mass },
				   { "carry_error", s.carry_error ? json(*s.carry_error) : json(nullptr) } });
	doc["series"] = series;
	if (!o.counters.empty())
		doc["counters_end"] = after.counters;
	doc["checksum"] = sink;

	if (!write_result(doc, o.out))
		die("cannot write " + (o.out.empty() ? std::string("stdout") : o.out));
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	options o;
	CLI::App app{ "cxlt-bench-zipf: a Zipf workload over anonymous memory or a cxltier "
		      "region, with exact fast-tier access fractions (JSON on stdout)" };

	app.add_option("--config", o.config, "label copied into the output");
	app.add_option("--backend", o.backend, "anon or region")->check(CLI::IsMember({ "anon", "region" }));
	app.add_option("--size-mb", o.size_mb, "working set in MiB");
	app.add_option("--zipf", o.zipf, "Zipf exponent s: rank r has weight r^-s");
	app.add_option("--seed", o.seed, "seed of the permutation and the draws");
	app.add_option("--op-bytes", o.op_bytes, "bytes read by one op (8 to 4096, power of two)");
	app.add_option("--duration", o.duration, "seconds of ops");
	app.add_option("--interval", o.interval, "seconds between samples");
	app.add_option("--warmup", o.warmup, "seconds counted as warm-up (reported apart)");
	app.add_option("--pingpong-window", o.pp_window,
		       "seconds: a page seen changing tier twice within it counts as ping-pong");
	app.add_option("--membind", o.membind, "anon: bind the working set to this node");
	app.add_option("--region", o.region, "region: name of the region created (and destroyed)");
	app.add_option("--fast-nodes", o.fast_nodes, "node list of the fast tier (default: nodes with CPUs)");
	app.add_option("--threads", o.threads, "comma-separated name prefixes of the kernel threads to account");
	app.add_option("--cgroup", o.cgroup,
		       "cgroup folder to move into before the working set is mapped");
	app.add_option("--counters", o.counters,
		       "folder of counter files (one number each) to sample with the rest");
	app.add_flag("!--no-scramble", o.scramble, "rank r on page r (hot pages adjacent)");
	app.add_option("--out", o.out, "write the JSON here instead of stdout");
	CLI11_PARSE(app, argc, argv);
	return run(o);
}
