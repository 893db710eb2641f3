// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-prog: runs an unmodified program (a row of the guest benchmark's
// program table: bench/guest/run-configs --programs) and measures it from outside,
// the same way in every configuration.
//
//   cxlt-bench-prog --config C --program NAME [--membind N] [--cgroup DIR]
//                   [--regions NAME] [--counters DIR] [--interval S] --out FILE -- CMD...
//   cxlt-bench-prog ... --ready ADDR [--ready-timeout S] [--client-timeout S]
//                   -- SERVER... --client-- CLIENT...
//
// The program runs as a child: in the cgroup DIR when given (joined before exec, so
// that every page it touches is charged there and process mode sees it), bound to
// node N with --membind (set_mempolicy before exec: the dram and cxl rows), or with
// its large allocations in a global region (--regions: `cxltierctl run --regions`,
// the preload allocator, region NAME).  Every --interval seconds the pages of the
// program's writable mappings that are present in its page tables (/proc/PID/pagemap)
// are located with move_pages(2) on its pid, the kernel's own answer, as
// cxlt-bench-zipf locates its working set: pages on the fast nodes, on others; the
// rest is not present.  A page of a
// shared mapping that the kernel cannot place now counts where it last placed it, by
// cxlt-bench-zipf's rule (ruler.hpp): the daemon unmaps the region pages it samples,
// and a page without its entry is still in the region.  A private page without one
// may have been freed (MADV_DONTNEED), so it counts as not present.  The benchmark's
// programs have no shared writable mapping but the region's; in a shared file or
// shmem mapping the carry would also cover a page reclaimed or punched out while
// unmapped, and a mapping made again at the same address inherits the old one's
// history.  What the
// program does with its memory is its own: no access counts, so no fast-tier access
// fraction; dram_frac is the share of its resident pages on DRAM (time-weighted),
// and the primary result is its run time.  Prints (or writes to --out) one JSON
// document: the command, its exit status, run time and CPU time, the placement
// series and what the tiering machinery did meanwhile (measure.hpp).
// The runner's own memory and CPU time are reported ("runner"); both follow the
// program's resident pages, not its mappings' size (locate()): about 3 MiB, bound
// to DRAM and locked there in every row (keep_self_fast: on CXL it ran 2-12 times
// slower under TCG), its CPU time split into user, system and locate()'s share,
// and where its own pages ended (pages_fast, pages_slow).
//
// Server mode (--ready, and the command split by --client--: redis): the program is
// a server, measured as above from its start.  Once ADDR (unix:PATH, tcp:PORT or
// tcp:HOST:PORT, an IPv4 host; 127.0.0.1 by default) accepts a connection, within
// --ready-timeout seconds, the client runs; what it prints on stdout must be a JSON
// object with a number ops_per_s, which becomes the row's result (higher is better;
// runtime_s is then the server's time until the client ended).  Then the server is
// stopped (SIGTERM, SIGKILL after --stop-timeout seconds).  A client that fails, does
// not end within --client-timeout seconds or prints no ops_per_s, and a server that
// exits before it is ready or while the client runs, fail the run (with why, in
// "error" and on stderr).
// What is fair to the client: it is the load, not the measured program.  It runs
// outside --cgroup (process mode and DAMON's memcg filter leave it alone, its memory
// is not charged with the server's), not under --membind (in the cxl row the
// server's memory is on CXL, the client's on DRAM as in every other row) and not
// under `cxltierctl run --regions`.  The DRAM limit of a row is the node's, not a
// cgroup's: the client's few MiB count against it in every row alike, and the
// client can lock them (cxlt-bench-redisload --mlock) so that no tiering moves them.
// Both children die with this runner (PR_SET_PDEATHSIG): a row's timeout ends them.
//
// Rate mode (--rate: cxlt-bench-dlrm): a program that measures its own rate over a
// span it chooses (after its start-up and a warm-up).  Its stdout comes here; its
// last line must be a JSON object with a number ops_per_s, the row's result (higher
// is better), as a client's in server mode; a program that exits non-zero or prints
// none fails the run.  Its stderr goes to --log.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <fstream>
#include <sstream>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

#include <CLI/CLI.hpp>

#include "measure.hpp"
#include "ruler.hpp"

namespace {

using namespace cxlt_bench;

constexpr size_t PAGE = 4096;
constexpr int MPOL_DEFAULT_ = 0, MPOL_BIND_ = 2;	// linux/mempolicy.h: linked statically, no libnuma
// At most this many pages are located per sample (a stride over larger programs).
constexpr size_t MAX_SAMPLE = 1 << 18;

struct options {
	std::string config = "unnamed", program, cgroup, counters, regions, fast_nodes, out, log;
	std::string threads = TIERING_THREADS;
	std::string cxltierctl = "cxltierctl";
	int membind = -1;
	double interval = 2, pp_window = 10;
	std::vector<std::string> cmd;
	// Server mode: the client's command (after --client--), where the server listens.
	std::vector<std::string> client;
	std::string ready;
	double ready_timeout = 60, client_timeout = 1800, stop_timeout = 10;
	// Rate mode: the program prints its own ops_per_s.
	bool rate = false;
};

// The separator of the server's command and the client's.
constexpr const char *CLIENT_SEP = "--client--";

[[noreturn]] void die(const std::string &msg)
{
	fprintf(stderr, "cxlt-bench-prog: %s\n", msg.c_str());
	exit(1);
}

// The program's writable mappings (heap, anonymous memory, regions, the C library's
// data): where its data lives.  Its code and read-only files are left out.
struct mapping {
	uintptr_t start, end;
	bool shared;
};

std::vector<mapping> writable_ranges(pid_t pid)
{
	std::vector<mapping> out;
	std::stringstream in(read_file("/proc/" + std::to_string(pid) + "/maps"));
	std::string line;

	while (std::getline(in, line)) {
		unsigned long a, b;
		char perms[8] = {};
		if (sscanf(line.c_str(), "%lx-%lx %7s", &a, &b, perms) != 3 || perms[1] != 'w')
			continue;
		if (line.find("[vvar]") != std::string::npos || line.find("[vsyscall]") != std::string::npos)
			continue;
		out.push_back({ a, b, perms[3] == 's' });
	}
	return out;
}

struct placement {
	double t = 0;
	// absent: no answer, and not counted on either tier; carried: no answer, counted
	// where it was last placed (in fast or slow, not in absent: unlike
	// cxlt-bench-zipf's absent_pages, which counts both).
	uint64_t fast = 0, slow = 0, absent = 0, carried = 0, moved = 0, pingpong = 0;
	// The fast nodes' free memory then: what the daemon is given as room moves with it.
	uint64_t fast_free_kb = 0;
	bool ok = false;
};

// PAGEMAP_SCAN (linux/fs.h since 6.7; this program is built against older headers).
struct pm_page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
constexpr unsigned long PAGEMAP_SCAN_ = _IOWR('f', 16, pm_scan_arg);
constexpr uint64_t PAGE_IS_PRESENT_ = 1 << 3;

// A run of pages present in a mapping's page tables, [start, end).
struct present_run {
	uintptr_t start, end;
	bool shared;	// of a shared mapping
};

// Scan [@m.start, @m.end) of the page tables whose /proc/PID/pagemap is @pagemap for
// present pages; -1 with errno when the kernel refused (ENOTTY: no PAGEMAP_SCAN, before
// Linux 6.7), else the number of present pages, their runs appended to @out.  The kernel
// returns the present runs only: reading the pagemap file itself costs 8 bytes a page
// of the mapping, present or not, and the preload's sparse region is as large as the
// host's memory.  A page the daemon has unmapped to sample it is not present.
long scan_present(int pagemap, const mapping &m, std::vector<present_run> &out)
{
	pm_page_region vec[512];	// at most the kernel's own buffer (PAGEMAP_WALK_SIZE)
	pm_scan_arg a{};
	long pages = 0;

	a.size = sizeof(a);
	a.start = m.start;
	a.end = m.end;
	a.vec = reinterpret_cast<uintptr_t>(vec);
	a.vec_len = std::size(vec);
	a.category_mask = a.return_mask = PAGE_IS_PRESENT_;
	for (;;) {
		const int n = ioctl(pagemap, PAGEMAP_SCAN_, &a);
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			out.push_back({ vec[i].start, vec[i].end, m.shared });
			pages += long((vec[i].end - vec[i].start) / PAGE);
		}
		if (a.walk_end >= m.end)
			return pages;
		if (a.walk_end <= a.start) {	// no progress: never seen, but never loop
			errno = EIO;
			return -1;
		}
		a.start = a.walk_end;
	}
}

// Die now, with why, when this kernel cannot scan page tables (PAGEMAP_SCAN, Linux
// 6.7) or /proc/PID/pagemap cannot be read: not at the first sample of a program.
void check_pagemap_scan()
{
	const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	static const char probe = 0;
	const auto a = reinterpret_cast<uintptr_t>(&probe) & ~(PAGE - 1);
	std::vector<present_run> runs;

	if (fd < 0)
		die(std::string("cannot read /proc/self/pagemap: ") + strerror(errno));
	if (scan_present(fd, { a, a + PAGE, false }, runs) < 0)
		die(errno == ENOTTY ? std::string("PAGEMAP_SCAN is not supported: locating a program's pages needs Linux 6.7 or newer")
				    : std::string("PAGEMAP_SCAN on /proc/self/pagemap: ") + strerror(errno));
	close(fd);
}

// Where the program's pages are now.  The pages located are those present in its
// page tables and those of its shared mappings that the kernel placed before
// (@prev keeps the history of each page it placed, ruler.hpp: for the carry, the
// moves seen and ping-pong, a page seen moving back within --pingpong-window
// seconds, as cxlt-bench-zipf counts them); the rest of its mappings is not
// resident, and not asked about.  So the runner's work and memory follow the
// program's resident pages, not its mappings' size: the region rows' mapping is the
// preload's sparse region, as large as the host's memory, and locating one page in
// three of all its pages, each with a history, held 15 MiB of the runner's memory (on
// the host, with a 4 GiB mapping), in the guest most of the 24 MiB of DRAM a row
// leaves the program: liblinear's region rows ran up to twice as long.  More than
// MAX_SAMPLE pages are located by a stride, a power of two over page numbers, so
// that the same pages are asked about from one sample to the next and the histories
// stay as many as the pages asked about.
placement locate(pid_t pid, const std::set<int> &fast, int idx, int pp_samples,
		 std::unordered_map<uintptr_t, page_history> &prev)
{
	placement p;
	const auto ranges = writable_ranges(pid);	// ascending, as in /proc/PID/maps
	std::vector<present_run> runs;
	size_t total = 0, npresent = 0;

	{
		const std::string path = "/proc/" + std::to_string(pid) + "/pagemap";
		const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
		bool ok = fd >= 0;

		for (const auto &m : ranges) {
			total += (m.end - m.start) / PAGE;
			const long n = ok ? scan_present(fd, m, runs) : -1;
			ok = n >= 0;
			npresent += ok ? size_t(n) : 0;
		}
		if (fd >= 0)
			close(fd);
		if (!ok)
			return p;	// the program is gone or exiting
	}
	size_t stride = 1;
	while ((npresent + prev.size()) / stride > MAX_SAMPLE)
		stride *= 2;
	const auto picked = [stride](uintptr_t a) { return ((a / PAGE) & (stride - 1)) == 0; };
	std::vector<void *> addrs;
	std::vector<bool> shared;
	for (const auto &r : runs)
		for (uintptr_t x = r.start + ((stride - (r.start / PAGE) % stride) % stride) * PAGE;
		     x < r.end; x += stride * PAGE) {
			addrs.push_back(reinterpret_cast<void *>(x));
			shared.push_back(r.shared);
		}
	// Histories: those of pages no longer in a mapping, or not asked about at this
	// stride, go; a shared page placed before and not present now is carried.
	const auto present = [&runs](uintptr_t a) {
		auto r = std::upper_bound(runs.begin(), runs.end(), a,
					  [](uintptr_t x, const present_run &y) { return x < y.start; });
		return r != runs.begin() && a < std::prev(r)->end;
	};
	size_t carried = 0;
	for (auto h = prev.begin(); h != prev.end();) {
		const uintptr_t a = h->first;
		auto m = std::upper_bound(ranges.begin(), ranges.end(), a,
					  [](uintptr_t x, const mapping &y) { return x < y.start; });
		if (m == ranges.begin() || a >= std::prev(m)->end || !picked(a)) {
			h = prev.erase(h);
			continue;
		}
		if (std::prev(m)->shared && h->second.tier() >= 0 && !present(a)) {
			addrs.push_back(reinterpret_cast<void *>(a));
			shared.push_back(true);
			carried++;
		}
		++h;
	}
	std::vector<int> status(addrs.size(), -1);
	for (size_t i = 0; i < addrs.size(); i += 4096) {
		size_t n = std::min<size_t>(4096, addrs.size() - i);
		if (syscall(SYS_move_pages, pid, n, addrs.data() + i, nullptr, status.data() + i, 0) < 0)
			return p;	// the program is gone (ESRCH) or exiting
	}
	// Not asked about: neither present nor carried.
	p.absent = total - std::min(total, npresent + carried * stride);
	for (size_t i = 0; i < addrs.size(); i++) {
		const auto a = reinterpret_cast<uintptr_t>(addrs[i]);
		page_history::seen s;	// never placed, unless observed

		// A history only for a page the kernel has placed.
		if (status[i] >= 0) {
			s = prev[a].observe(status[i], fast, idx, pp_samples);
		} else if (shared[i]) {
			auto h = prev.find(a);
			if (h != prev.end())
				s = h->second.observe(status[i], fast, idx, pp_samples);
		}
		if (s.tier < 0) {
			p.absent += stride;
			continue;
		}
		(s.tier ? p.fast : p.slow) += stride;
		if (s.carried)
			p.carried += stride;
		if (s.moved) {
			p.moved += stride;
			if (s.pingpong)
				p.pingpong += stride;
		}
	}
	p.ok = true;
	return p;
}

sock_address ready_address(const std::string &s)
{
	try {
		return parse_address(s);
	} catch (const std::invalid_argument &e) {
		die(std::string("--ready ") + e.what());
	}
}

// Does the server accept connections yet?
bool accepts(const sock_address &a)
{
	int fd = connect_to(a);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

// "status N" or "signal N" of a wait status.
std::string how(int status)
{
	return WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status))
				 : "signal " + std::to_string(WTERMSIG(status));
}

int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

[[noreturn]] void exec_argv(const std::vector<std::string> &argv)
{
	std::vector<char *> args;
	for (const auto &a : argv)
		args.push_back(strdup(a.c_str()));
	args.push_back(nullptr);
	execvp(args[0], args.data());
	fprintf(stderr, "cxlt-bench-prog: cannot run %s: %s\n", args[0], strerror(errno));
	_exit(127);
}

// set_mempolicy(2) with @mode over @nodes; die() on a node out of range.
long set_policy(int mode, const std::set<int> &nodes)
{
	unsigned long mask[16] = {};

	for (int n : nodes) {
		if (n < 0 || n >= int(sizeof(mask) * 8))
			die("node " + std::to_string(n) + " is out of range");
		mask[n / 64] |= 1UL << (n % 64);
	}
	return syscall(SYS_set_mempolicy, mode, mask, sizeof(mask) * 8);
}

// The runner's own memory stays on the fast nodes in every row alike: bound (a task
// policy without MPOL_F_MOF, which NUMA balancing does not scan either) and locked
// (unevictable: not demoted).  Left to a row's tiering it followed the row's
// pressure onto CXL, where TCG runs it many times slower; preferred instead of bound,
// its late pages still went there (guest-bench.rst).  So that it needs few pages
// late, what is mapped is faulted in now, while the row's DRAM has room, and the C
// library keeps what it frees for reuse.  Children get the default policy back.
void keep_self_fast(const std::set<int> &fast)
{
	if (set_policy(MPOL_BIND_, fast))
		die(std::string("cannot bind the runner's memory to the fast nodes: ") + strerror(errno));
	if (mlockall(MCL_CURRENT) || mlockall(MCL_FUTURE | MCL_ONFAULT))
		die(std::string("cannot lock the runner's memory (mlockall; it needs CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK): ") +
		    strerror(errno));
	if (!mallopt(M_TRIM_THRESHOLD, 256 << 20) || !mallopt(M_MMAP_THRESHOLD, 32 << 20))
		die("mallopt refused the runner's allocator settings");
}

// A child's memory policy: the default, not the runner's (keep_self_fast).
void default_policy()
{
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT_, nullptr, 0)) {
		fprintf(stderr, "cxlt-bench-prog: set_mempolicy(MPOL_DEFAULT): %s\n", strerror(errno));
		_exit(126);
	}
}

// The client of server mode: stdout into @out_fd, nothing else of the row's.
[[noreturn]] void exec_client(const options &o, int out_fd)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(126);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(126);
	default_policy();
	exec_argv(o.client);
}

[[noreturn]] void exec_child(const options &o, int out_fd)
{
	// The program goes with us: a row's timeout kills this runner.
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(126);
	if (!o.log.empty()) {
		int fd = open(o.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
	}
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(126);
	default_policy();
	if (!o.cgroup.empty()) {
		std::ofstream f(o.cgroup + "/cgroup.procs");
		f << getpid() << std::endl;
		if (!f) {
			fprintf(stderr, "cxlt-bench-prog: cannot move into the cgroup %s\n", o.cgroup.c_str());
			_exit(126);
		}
	}
	if (o.membind >= 0) {	// 0-1023, checked by the options' parser
		if (set_policy(MPOL_BIND_, { o.membind })) {
			fprintf(stderr, "cxlt-bench-prog: set_mempolicy(node %d): %s\n", o.membind,
				strerror(errno));
			_exit(126);
		}
	}
	std::vector<std::string> argv;
	if (!o.regions.empty()) {
		setenv("CXLTIER_PRELOAD_NAME", o.regions.c_str(), 1);
		argv = { o.cxltierctl, "run", "--regions", "--" };
	}
	argv.insert(argv.end(), o.cmd.begin(), o.cmd.end());
	exec_argv(argv);
}

// A "Key: N kB" line of a /proc file of the runner's own, in KiB (0 when absent):
// status's VmHWM, its peak resident memory (not getrusage's ru_maxrss, which keeps
// the peak of the image before exec), VmRSS, what it holds now, and smaps_rollup's
// Locked, the pages present and locked (not VmLck, the size of the locked mappings).
long self_kb(const char *file, const char *key)
{
	std::stringstream in(read_file(std::string("/proc/self/") + file));
	std::string line;
	const size_t n = strlen(key);

	while (std::getline(in, line))
		if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':')
			return std::stol(line.substr(n + 1));
	return 0;
}

double thread_cpu_s()
{
	timespec t{};

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double seconds(const timeval &t)
{
	return double(t.tv_sec) + double(t.tv_usec) * 1e-6;
}

std::string fmt_s(double s)
{
	char b[32];
	snprintf(b, sizeof(b), "%g", s);
	return b;
}

// A result as the client (server mode) or the program (rate mode) prints it: a JSON
// object with a number ops_per_s; anything else is null.
json ops_result(const std::string &text)
{
	json doc;
	try {
		doc = json::parse(text);
	} catch (const json::exception &) {
		return nullptr;
	}
	if (!doc.is_object() || !doc.contains("ops_per_s") || !doc["ops_per_s"].is_number())
		return nullptr;
	return doc;
}

// At most 200 bytes of what a program printed, for an error message.
std::string shown(const std::string &text)
{
	return text.empty() ? std::string("(nothing)") : text.substr(0, 200);
}

std::string fmt_server(const options &o)
{
	return "the server " + o.cmd[0];
}

int run(const options &o)
{
	check_pagemap_scan();
	const std::set<int> fast = parse_nodelist(o.fast_nodes.empty()
						  ? read_file("/sys/devices/system/node/has_cpu")
						  : o.fast_nodes);
	keep_self_fast(fast);
	const std::vector<std::string> prefixes = split(o.threads, ',');
	const int pp_samples = std::max(1, int(std::lround(o.pp_window / o.interval)));

	const bool server = !o.client.empty();
	sock_address addr;
	if (server)
		addr = ready_address(o.ready);

	auto threads0 = thread_cpu(prefixes);
	auto vm0 = vmstat();
	auto irq0 = interrupts();
	auto ctr0 = dir_counters(o.counters);
	// Rate mode: the program's stdout, read as the client's is.
	int pfds[2] = { -1, -1 };
	if (o.rate && pipe2(pfds, O_CLOEXEC))
		die(std::string("pipe: ") + strerror(errno));
	const double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		die(std::string("fork: ") + strerror(errno));
	if (pid == 0)
		exec_child(o, pfds[1]);
	if (o.rate) {
		close(pfds[1]);
		fcntl(pfds[0], F_SETFL, O_NONBLOCK);
	}

	std::unordered_map<uintptr_t, page_history> prev;
	double locate_cpu = 0;	// the runner's CPU time in locate(): the ruler itself
	std::vector<placement> series;
	double next = t0 + o.interval;
	int status = 0, idx = 0;
	rusage ru{};
	// Server mode: the client, its output, what went wrong (empty: nothing).
	pid_t cpid = -1;
	int cout_fd = pfds[0], cstatus = 0, fail_code = 0;
	bool server_done = false, client_done = false;
	double ready_s = -1, client_t0 = 0, client_t1 = 0;
	std::string cout_text, error;
	rusage cru{};
	auto drain = [&] {
		char buf[4096];
		ssize_t n;
		while (cout_fd >= 0 && (n = read(cout_fd, buf, sizeof(buf))) > 0)
			cout_text.append(buf, size_t(n));
	};
	auto fail = [&](int code, const std::string &why) {
		if (error.empty())
			error = why, fail_code = code ? code : 1;
	};
	// Wait for the program, locating its pages every interval; in server mode, for
	// it to accept connections, then for the client.
	for (;;) {
		if (!server_done) {
			pid_t r = wait4(pid, &status, WNOHANG, &ru);
			if (r < 0)
				die(std::string("wait4: ") + strerror(errno));
			if (r == pid) {
				server_done = true;
				if (!server) {
					drain();
					break;
				}
				fail(exit_code(status), fmt_server(o) + " exited with " + how(status) +
				     (cpid < 0 ? " before it accepted connections at " + o.ready
					       : " while the client ran"));
			}
		}
		if (server && error.empty() && cpid < 0) {
			if (accepts(addr)) {
				ready_s = now() - t0;
				int fds[2];
				if (pipe2(fds, O_CLOEXEC))
					die(std::string("pipe: ") + strerror(errno));
				client_t0 = now();
				cpid = fork();
				if (cpid < 0)
					die(std::string("fork: ") + strerror(errno));
				if (cpid == 0)
					exec_client(o, fds[1]);
				close(fds[1]);
				cout_fd = fds[0];
				fcntl(cout_fd, F_SETFL, O_NONBLOCK);
			} else if (now() - t0 > o.ready_timeout) {
				fail(124, fmt_server(o) + " did not accept connections at " + o.ready +
				     " within " + fmt_s(o.ready_timeout) + " s (--ready-timeout)");
			}
		}
		if (server && cpid > 0 && !client_done) {
			drain();
			pid_t r = wait4(cpid, &cstatus, WNOHANG, &cru);
			if (r == cpid) {
				client_done = true;
				client_t1 = now();
				// All it wrote is in the pipe now (read without blocking: a
				// child of its own may still hold the pipe open).
				drain();
				if (cstatus)
					fail(exit_code(cstatus), "the client " + o.client[0] + " exited with " +
					     how(cstatus));
			} else if (now() - client_t0 > o.client_timeout) {
				fail(124, "the client " + o.client[0] + " did not end within " +
				     fmt_s(o.client_timeout) + " s (--client-timeout)");
			}
		}
		if (server && (client_done || !error.empty()))
			break;
		if (o.rate)
			drain();
		if (now() >= next) {
			const double c0 = thread_cpu_s();
			placement p = locate(pid, fast, idx++, pp_samples, prev);
			locate_cpu += thread_cpu_s() - c0;
			p.t = now() - t0;
			if (p.ok && p.fast + p.slow > 0) {
				p.fast_free_kb = free_kb(fast);
				series.push_back(p);
			}
			next = now() + o.interval;
		}
		usleep(20000);
	}
	const double runtime = (client_done ? client_t1 : now()) - t0;

	// Server mode: the client and the server stopped, the client's result read.
	json client_doc;
	std::string stopped_by;
	if (server) {
		if (cpid > 0 && !client_done) {
			kill(cpid, SIGKILL);
			waitpid(cpid, &cstatus, 0);
			client_t1 = now();
		}
		if (!server_done) {
			kill(pid, SIGTERM);
			stopped_by = "SIGTERM";
			for (double end = now() + o.stop_timeout;;) {
				pid_t r = wait4(pid, &status, WNOHANG, &ru);
				if (r == pid)
					break;
				if (now() >= end) {
					kill(pid, SIGKILL);
					stopped_by = "SIGKILL";
					wait4(pid, &status, 0, &ru);
					break;
				}
				usleep(20000);
			}
		}
		if (cout_fd >= 0)
			close(cout_fd);
		if (error.empty()) {
			client_doc = ops_result(cout_text);
			if (client_doc.is_null())
				fail(1, "the client " + o.client[0] + " printed no JSON object with a number "
				     "ops_per_s: " + shown(cout_text));
		}
	}

	// Rate mode: the program's own result, on the last line of its stdout.
	json rate_doc;
	if (o.rate) {
		close(cout_fd);
		std::string last = cout_text;
		while (!last.empty() && last.back() == '\n')
			last.pop_back();
		last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
		rate_doc = ops_result(last);
		if (status)
			fail(exit_code(status), o.cmd[0] + " exited with " + how(status));
		else if (rate_doc.is_null())
			fail(1, o.cmd[0] + " printed no JSON object with a number ops_per_s on its last "
			     "line: " + shown(last));
	}

	// Time-weighted means over the samples (each stands for the time since the last).
	double w = 0, frac = 0, fast_mb = 0, res_mb = 0, res_max = 0, tprev = 0;
	uint64_t moved = 0, pingpong = 0, fast_free_kb = 0;
	for (const auto &p : series) {
		double dt = std::max(1e-3, p.t - tprev), res = double(p.fast + p.slow);
		tprev = p.t;
		w += dt;
		frac += dt * double(p.fast) / res;
		fast_mb += dt * double(p.fast) * PAGE / (1 << 20);
		res_mb += dt * res * PAGE / (1 << 20);
		res_max = std::max(res_max, res * PAGE / (1 << 20));
		moved += p.moved;
		pingpong += p.pingpong;
		fast_free_kb += p.fast_free_kb;
	}
	json threads = delta(threads0, thread_cpu(prefixes));
	uint64_t thr_ns = 0;
	for (const auto &[k, v] : threads.items())
		thr_ns += uint64_t(v.get<int64_t>());

	json doc;
	doc["config"] = o.config;
	doc["program"] = o.program;
	doc["command"] = o.cmd;
	doc["workload"] = { { "backend", o.regions.empty() ? "anon" : "region" },
			    { "region", o.regions }, { "membind", o.membind }, { "cgroup", o.cgroup },
			    { "fast_nodes", std::vector<int>(fast.begin(), fast.end()) },
			    { "interval_s", o.interval }, { "pingpong_window_s", o.pp_window },
			    { "locator", "pagemap_scan+move_pages+carry-shared" } };
	if (server) {
		doc["mode"] = "server";
		doc["client_command"] = o.client;
		doc["ready"] = o.ready;
		doc["ready_s"] = ready_s >= 0 ? json(ready_s) : json(nullptr);
		doc["client_s"] = cpid > 0 ? json(client_t1 - client_t0) : json(nullptr);
		doc["client_exit_status"] = cpid > 0 ? json(exit_code(cstatus)) : json(nullptr);
		doc["server_exit_status"] = exit_code(status);
		doc["server_stopped_by"] = stopped_by.empty() ? json(nullptr) : json(stopped_by);
		doc["exit_status"] = error.empty() ? 0 : fail_code;
		if (!error.empty())
			doc["error"] = error;
		// The row's result: the client's rate (higher is better).
		doc["ops_per_s"] = error.empty() ? client_doc["ops_per_s"] : json(nullptr);
		doc["client"] = client_doc;
	} else if (o.rate) {
		doc["mode"] = "rate";
		doc["exit_status"] = error.empty() ? 0 : fail_code;
		if (!error.empty())
			doc["error"] = error;
		doc["ops_per_s"] = error.empty() ? rate_doc["ops_per_s"] : json(nullptr);
		doc["program_output"] = rate_doc;
	} else {
		doc["exit_status"] = exit_code(status);
	}
	doc["runtime_s"] = runtime;
	doc["cpu_user_s"] = seconds(ru.ru_utime);
	doc["cpu_sys_s"] = seconds(ru.ru_stime);
	doc["max_rss_mb"] = double(ru.ru_maxrss) / 1024;
	rusage self{};
	getrusage(RUSAGE_SELF, &self);
	uint64_t own_fast = 0, own_slow = 0;
	for (auto [node, n] : numa_maps_pages(0))
		(fast.count(node) ? own_fast : own_slow) += n;
	doc["runner"] = { { "max_rss_mb", double(self_kb("status", "VmHWM")) / 1024 },
			  { "rss_mb", double(self_kb("status", "VmRSS")) / 1024 },
			  { "locked_mb", double(self_kb("smaps_rollup", "Locked")) / 1024 },
			  { "cpu_s", seconds(self.ru_utime) + seconds(self.ru_stime) },
			  { "cpu_user_s", seconds(self.ru_utime) },
			  { "cpu_sys_s", seconds(self.ru_stime) },
			  { "locate_cpu_s", locate_cpu },
			  { "pages_fast", own_fast },
			  { "pages_slow", own_slow } };
	json s;
	s["seconds"] = runtime;
	s["samples"] = series.size();
	s["dram_frac"] = w > 0 ? frac / w : 0.0;
	s["fast_mb_mean"] = w > 0 ? fast_mb / w : 0.0;
	s["resident_mb_mean"] = w > 0 ? res_mb / w : 0.0;
	s["resident_mb_max"] = res_max;
	s["fast_free_mb_mean"] = series.empty() ? 0.0 : double(fast_free_kb) / double(series.size()) / 1024;
	s["moved_pages_seen"] = moved;
	s["pingpong_seen"] = pingpong;
	s["cpu_threads_pct"] = 100.0 * double(thr_ns) / (runtime * 1e9);
	// The program's system time: the kernel's tiering work in its context (hinting
	// faults, migrations on fault), as cxlt-bench-zipf counts its own.
	s["cpu_app_sys_pct"] = 100.0 * doc["cpu_sys_s"].get<double>() / runtime;
	s["cpu_threads_ns"] = threads;
	s["vmstat"] = delta(vm0, vmstat());
	s["interrupts"] = delta(irq0, interrupts());
	s["backend"] = nullptr;
	auto ctr1 = dir_counters(o.counters);
	s["counters"] = o.counters.empty() ? json(nullptr) : delta(ctr0, ctr1);
	doc["steady"] = s;
	if (!o.counters.empty())
		doc["counters_end"] = ctr1;
	json ser = json::array();
	for (const auto &p : series)
		ser.push_back({ { "t", p.t }, { "fast_pages", p.fast }, { "slow_pages", p.slow },
				{ "absent_pages", p.absent }, { "carried_pages", p.carried },
				{ "moved_seen", p.moved },
				{ "pingpong_seen", p.pingpong },
				{ "fast_free_mb", double(p.fast_free_kb) / 1024 } });
	doc["series"] = ser;

	if (!write_result(doc, o.out))
		die("cannot write " + (o.out.empty() ? std::string("stdout") : o.out));
	if (!error.empty()) {
		fprintf(stderr, "cxlt-bench-prog: %s\n", error.c_str());
		return 1;
	}
	if (doc["exit_status"] != 0) {
		fprintf(stderr, "cxlt-bench-prog: %s exited with status %d\n", o.cmd[0].c_str(),
			doc["exit_status"].get<int>());
		return 1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	options o;
	CLI::App app{ "cxlt-bench-prog: run a program and measure where its pages are "
		      "(move_pages(2)) and what tiering did meanwhile (JSON)" };

	app.add_option("--config", o.config, "label copied into the output");
	app.add_option("--program", o.program, "the program's name in the tables")->required();
	app.add_option("--membind", o.membind, "bind the program's memory to this node")
		->check(CLI::Range(0, 1023));
	app.add_option("--cgroup", o.cgroup, "cgroup folder the program runs in");
	app.add_option("--regions", o.regions,
		       "run it under `cxltierctl run --regions`, its region named so");
	app.add_option("--cxltierctl", o.cxltierctl, "the cxltierctl to run it with");
	app.add_option("--counters", o.counters,
		       "folder of counter files (one number each) to sample before and after");
	app.add_option("--fast-nodes", o.fast_nodes, "node list of the fast tier (default: nodes with CPUs)");
	app.add_option("--threads", o.threads, "comma-separated name prefixes of the kernel threads to account");
	app.add_option("--interval", o.interval, "seconds between placement samples")
		->check(CLI::Range(0.05, 3600.0));
	app.add_option("--pingpong-window", o.pp_window,
		       "seconds: a page seen changing tier twice within it counts as ping-pong");
	app.add_option("--log", o.log, "the program's stdout and stderr go here (default: ours)");
	app.add_flag("--rate", o.rate, "rate mode: the program prints a JSON object with a number "
		     "ops_per_s as its last line on stdout, the result");
	app.add_option("--out", o.out, "write the JSON here instead of stdout");
	app.add_option("--ready", o.ready,
		       "server mode: where the program listens (unix:PATH, tcp:PORT, tcp:HOST:PORT); "
		       "the client (after --client--) runs once it accepts connections");
	app.add_option("--ready-timeout", o.ready_timeout, "seconds the server has to accept connections")
		->check(CLI::Range(0.1, 86400.0));
	app.add_option("--client-timeout", o.client_timeout, "seconds the client has to end")
		->check(CLI::Range(0.1, 86400.0));
	app.add_option("--stop-timeout", o.stop_timeout,
		       "seconds the server has to exit after SIGTERM, then SIGKILL")
		->check(CLI::Range(0.0, 3600.0));
	app.add_option("cmd", o.cmd, "the program and its arguments (after --); in server mode "
		       "SERVER... --client-- CLIENT...")->required();
	CLI11_PARSE(app, argc, argv);
	if (!o.regions.empty() && o.membind >= 0)
		die("--regions and --membind exclude each other");
	auto sep = std::find(o.cmd.begin(), o.cmd.end(), CLIENT_SEP);
	if (sep != o.cmd.end()) {
		o.client.assign(sep + 1, o.cmd.end());
		o.cmd.erase(sep, o.cmd.end());
		if (o.cmd.empty())
			die(std::string("no server command before ") + CLIENT_SEP);
		if (o.client.empty())
			die(std::string("no client command after ") + CLIENT_SEP);
		if (std::find(o.client.begin(), o.client.end(), CLIENT_SEP) != o.client.end())
			die(std::string("one ") + CLIENT_SEP + " only");
		if (o.ready.empty())
			die(std::string("a client (") + CLIENT_SEP + ") needs --ready ADDR: where the server "
			    "listens, to start the client once it accepts connections");
		ready_address(o.ready);
		if (o.rate)
			die("--rate is for a program that measures itself, not for server mode");
	} else if (!o.ready.empty()) {
		die(std::string("--ready is for server mode: give the client after the server's "
				"command, SERVER... ") + CLIENT_SEP + " CLIENT...");
	}
	return run(o);
}
