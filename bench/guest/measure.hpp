// SPDX-License-Identifier: GPL-2.0
// What the guest benchmark's programs (cxlt-bench-zipf, cxlt-bench-prog) read from the
// guest's kernel to tell what the tiering machinery did and cost, the same way for
// every row: kernel threads' CPU time, /proc/vmstat, the daemon's counters, free DRAM.
// And the Zipf draws that cxlt-bench-zipf (over pages) and cxlt-bench-redisload (over
// keys) share: the weights, the seeded permutation of the ranks, the alias table.
#ifndef CXLT_BENCH_MEASURE_HPP
#define CXLT_BENCH_MEASURE_HPP

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "../sim/rng.hpp"

namespace cxlt_bench {

using json = nlohmann::ordered_json;

double now();	// CLOCK_MONOTONIC, seconds
std::string read_file(const std::string &path);
std::vector<std::string> split(const std::string &s, char sep);

// A node list as sysfs writes it: "0", "0-2,5".
std::set<int> parse_nodelist(const std::string &s);

// CPU time (ns) of the kernel threads whose name starts with one of @prefixes,
// summed by name without the instance suffix ("kswapd0" -> "kswapd").
std::map<std::string, uint64_t> thread_cpu(const std::vector<std::string> &prefixes);

// The /proc/vmstat counters that tell what tiering did.
std::map<std::string, uint64_t> vmstat();

// Interrupts of the whole machine from /proc/interrupts (x86), summed over the CPUs:
// TLB shootdowns (TLB), function-call IPIs (CAL, which on x86 since 4.x also counts
// the IPIs that carried those shootdowns: the two overlap), rescheduling IPIs (RES)
// and the local timer (LOC) to compare them with.
std::map<std::string, uint64_t> interrupts();

// Every file of @dir that holds one decimal number (the daemon's stats/ folder).
std::map<std::string, uint64_t> dir_counters(const std::string &dir);

// MemFree of the fast nodes, in KiB: how much DRAM a configuration left unused.
uint64_t free_kb(const std::set<int> &nodes);

// Pages of a process's mappings on each node, from /proc/PID/numa_maps (pid 0: this
// process): its anonymous memory and the page cache of the files it maps.
std::map<int, uint64_t> numa_maps_pages(pid_t pid);

// b - a, key by key (a key missing in @a counts from 0); null for a null @b.
json delta(const std::map<std::string, uint64_t> &a, const std::map<std::string, uint64_t> &b);
json delta(const json &a, const json &b);
// sum += d, key by key.
void add_into(json &sum, const json &d);

// Zipf(s) over @n items by rank: rank k (0-based) has weight (k + 1)^-s, normalized
// to a sum of 1.
std::vector<double> zipf_weights(size_t n, double s);

// perm[k] is the item of rank k: 0 .. n-1 shuffled (Fisher-Yates, drawing from @r),
// so that the hot items are not the first ones; in order without @r.
std::vector<uint32_t> seeded_permutation(size_t n, cxltier::sim::rng &r);
std::vector<uint32_t> seeded_permutation(size_t n);

// Vose's alias method: one random number per draw, whatever the number of items.
class alias_table {
public:
	explicit alias_table(const std::vector<double> &p);

	// The high 32 bits pick a column, the low 32 bits choose it or its alias.
	uint32_t draw(uint64_t r) const
	{
		uint32_t col = uint32_t(((r >> 32) * uint64_t(prob_.size())) >> 32);

		return uint32_t(r) < prob_[col] ? col : alias_[col];
	}

private:
	std::vector<uint32_t> prob_, alias_;
};

// The result document, on stdout (flushed) or into @path; false when it could not be
// written.
bool write_result(const json &doc, const std::string &path);

// Where a server listens: "unix:PATH", "tcp:PORT" (on 127.0.0.1) or "tcp:HOST:PORT"
// (an IPv4 host).  parse_address() throws std::invalid_argument saying what is wrong.
struct sock_address {
	sockaddr_storage sa{};
	socklen_t len = 0;
};
sock_address parse_address(const std::string &s);
// A connected stream socket (close-on-exec), or -1 with errno.
int connect_to(const sock_address &a);

// The kernel threads whose CPU time every row accounts.
inline constexpr const char *TIERING_THREADS =
	"kswapd,kcompactd,kdamond,cxltierd,kcxltierd,cxltier-procd";

} // namespace cxlt_bench

#endif
