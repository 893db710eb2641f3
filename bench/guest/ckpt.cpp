// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-ckpt: checkpoint commit and restore of a job's state on persistent CXL
// memory (libcxltier checkpoints), next to the same state written to a plain file.
//
//   cxlt-bench-ckpt [--size 64M] [--rounds 5] [--file PATH] [--format-pools] [--json OUT]
//
// For one copy, and for two copies when two pools on different blades are online:
//   sync     begin (no staging pointer), cxltier_ckpt_write() of the state, commit:
//            the job waits for all of it (MB/s of state made durable);
//   async    cxltier_ckpt_commit_async(): the job is stalled only for the copy into
//            the library's buffer; "total" is until cxltier_ckpt_wait() returns;
//   restore  cxltier_ckpt_restore() of the newest generation (one copy read).
// The file baseline maps PATH (default: ./cxlt-bench-ckpt.file, the current
// directory's file system, named in the output), copies the state in and msync()s
// it with MS_SYNC; the read back is pread() after the page cache was dropped for it
// (POSIX_FADV_DONTNEED).  Each figure is the median of the rounds; the state
// changes every round.  Pools that are unformatted are formatted first with
// --format-pools (it destroys nothing: they hold no pool).  Prints a table with the
// ratios to the file; --json writes the numbers.  Exit status 4 (kselftest's skip)
// when no pool is online.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cxltier.h"

namespace {

using clk = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

constexpr int exit_skip = 4;

double seconds_since(clk::time_point t0)
{
	return std::chrono::duration<double>(clk::now() - t0).count();
}

double median(std::vector<double> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

[[noreturn]] void die(const std::string &what)
{
	std::fprintf(stderr, "cxlt-bench-ckpt: %s\n", what.c_str());
	std::exit(1);
}

void check(cxltier_ctx *ctx, int rc, const char *what)
{
	if (rc)
		die(std::string(what) + ": " + cxltier_get_last_error(ctx) + " (" +
		    cxltier_strerror(rc) + ")");
}

// The state of round @r: every 8 bytes differ from round to round.
void fill(std::vector<unsigned char> &state, unsigned int r)
{
	auto *w = reinterpret_cast<std::uint64_t *>(state.data());
	for (std::size_t i = 0; i < state.size() / 8; i++)
		w[i] = (i * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{r} << 56);
}

struct result {
	std::string config;
	double sync_s = 0, stall_s = 0, async_s = 0, restore_s = 0;
};

// Online pools, and whether two of them are on blades of their own.
unsigned int usable_pools(cxltier_ctx *ctx, bool *two_disjoint)
{
	std::vector<std::set<std::string>> blades;
	for (cxltier_pool *p = cxltier_pool_get_first(ctx); p; p = cxltier_pool_get_next(p)) {
		if (cxltier_pool_get_state(p) != CXLTIER_POOL_STATE_ONLINE)
			continue;
		std::set<std::string> b;
		for (const char *const *n = cxltier_pool_get_blades(p, nullptr); *n; n++)
			b.insert(*n);
		blades.push_back(std::move(b));
	}
	*two_disjoint = false;
	for (std::size_t i = 0; i < blades.size(); i++)
		for (std::size_t j = i + 1; j < blades.size(); j++) {
			std::vector<std::string> common;
			std::set_intersection(blades[i].begin(), blades[i].end(), blades[j].begin(),
					      blades[j].end(), std::back_inserter(common));
			*two_disjoint |= common.empty();
		}
	return static_cast<unsigned int>(blades.size());
}

result bench_ckpt(cxltier_ctx *ctx, unsigned int copies, std::vector<unsigned char> &state,
		  unsigned int rounds)
{
	std::string name = "cxlt-bench-" + std::to_string(copies);
	cxltier_ckpt_drop(ctx, name.c_str()); // a leftover of an earlier run
	cxltier_ckpt_params *p = nullptr;
	check(ctx, cxltier_ckpt_params_new(&p), "params");
	check(ctx, cxltier_ckpt_params_set_capacity(p, state.size()), "capacity");
	check(ctx, cxltier_ckpt_params_set_copies(p, copies), "copies");
	cxltier_ckpt *ck = nullptr;
	check(ctx, cxltier_ckpt_create(ctx, name.c_str(), p, &ck), "create checkpoint");
	cxltier_ckpt_params_free(p);

	result r;
	r.config = std::to_string(copies) + (copies == 1 ? " copy" : " copies");
	std::vector<double> sync_t, stall_t, async_t, restore_t;
	std::vector<unsigned char> out(state.size());
	unsigned int round = 0;
	for (unsigned int i = 0; i < rounds; i++) {
		fill(state, ++round);
		auto t0 = clk::now();
		// From a buffer in DRAM: written to every copy and checksummed on the way.
		check(ctx, cxltier_ckpt_begin(ck, state.size(), nullptr), "begin");
		check(ctx, cxltier_ckpt_write(ck, 0, state.data(), state.size()), "write");
		check(ctx, cxltier_ckpt_commit(ck, nullptr), "commit");
		sync_t.push_back(seconds_since(t0));
	}
	for (unsigned int i = 0; i < rounds; i++) {
		fill(state, ++round);
		auto t0 = clk::now();
		check(ctx, cxltier_ckpt_commit_async(ck, state.data(), state.size()), "commit_async");
		stall_t.push_back(seconds_since(t0));
		fill(state, 0); // the job goes on changing its state
		check(ctx, cxltier_ckpt_wait(ck, nullptr), "wait");
		async_t.push_back(seconds_since(t0));
	}
	fill(state, round);
	for (unsigned int i = 0; i < rounds; i++) {
		auto t0 = clk::now();
		check(ctx, cxltier_ckpt_restore(ck, out.data(), out.size(), nullptr), "restore");
		restore_t.push_back(seconds_since(t0));
		if (out != state)
			die(name + ": the restored state is not the last committed one");
	}
	cxltier_ckpt_close(ck);
	check(ctx, cxltier_ckpt_drop(ctx, name.c_str()), "drop");
	r.sync_s = median(sync_t);
	r.stall_s = median(stall_t);
	r.async_s = median(async_t);
	r.restore_s = median(restore_t);
	return r;
}

std::string fs_name(const std::string &path)
{
	struct statfs s;
	if (statfs(path.c_str(), &s))
		return "?";
	switch (static_cast<unsigned long>(s.f_type)) {
	case 0x01021994:
		return "tmpfs";
	case 0x858458f6:
		return "ramfs";
	case 0x01021997:
		return "9p";
	case 0xEF53:
		return "ext4";
	case 0x58465342:
		return "xfs";
	}
	char buf[32];
	std::snprintf(buf, sizeof(buf), "fs 0x%lx", static_cast<unsigned long>(s.f_type));
	return buf;
}

result bench_file(const std::string &path, std::vector<unsigned char> &state, unsigned int rounds)
{
	int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(state.size())))
		die(path + ": " + std::strerror(errno));
	void *map = ::mmap(nullptr, state.size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die(path + ": mmap: " + std::strerror(errno));
	result r;
	r.config = "file (" + fs_name(path) + ")";
	std::vector<double> write_t, read_t;
	std::vector<unsigned char> out(state.size());
	for (unsigned int i = 0; i < rounds; i++) {
		fill(state, 1000 + i);
		auto t0 = clk::now();
		std::memcpy(map, state.data(), state.size());
		if (::msync(map, state.size(), MS_SYNC))
			die(path + ": msync: " + std::strerror(errno));
		write_t.push_back(seconds_since(t0));
	}
	for (unsigned int i = 0; i < rounds; i++) {
		::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		auto t0 = clk::now();
		std::size_t done = 0;
		while (done < out.size()) {
			ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
					    static_cast<off_t>(done));
			if (n <= 0)
				die(path + ": read: " + std::strerror(n ? errno : EIO));
			done += static_cast<std::size_t>(n);
		}
		read_t.push_back(seconds_since(t0));
		if (out != state)
			die(path + ": read back something else");
	}
	::munmap(map, state.size());
	::close(fd);
	::unlink(path.c_str());
	r.sync_s = median(write_t);
	r.restore_s = median(read_t);
	return r;
}

double mbps(std::uint64_t bytes, double s)
{
	return s > 0 ? static_cast<double>(bytes) / s / 1e6 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	CLI::App app("Checkpoint commit and restore on persistent CXL memory against a file.",
		     "cxlt-bench-ckpt");
	std::uint64_t size = 64ull << 20;
	unsigned int rounds = 5;
	std::string file = "cxlt-bench-ckpt.file", json_out;
	bool format = false;
	app.add_option("--size", size, "State size (default 64M)")->transform(CLI::AsSizeValue(false));
	app.add_option("--rounds", rounds, "Rounds per figure, the median is shown (default 5)")
		->check(CLI::Range(1u, 1000u));
	app.add_option("--file", file, "The baseline file (default: in the current directory)");
	app.add_flag("--format-pools", format, "Format unformatted pools first");
	app.add_option("--json", json_out, "Also write the numbers to this file");
	CLI11_PARSE(app, argc, argv);

	cxltier_ctx *ctx = nullptr;
	if (int rc = cxltier_new(&ctx))
		die(std::string("cxltier_new: ") + cxltier_get_last_error(nullptr) + " (" +
		    cxltier_strerror(rc) + ")");
	if (format) {
		std::vector<std::string> todo;
		for (cxltier_pool *p = cxltier_pool_get_first(ctx); p; p = cxltier_pool_get_next(p))
			if (cxltier_pool_get_state(p) == CXLTIER_POOL_STATE_UNFORMATTED)
				todo.emplace_back(cxltier_pool_get_name(p));
		for (const auto &n : todo) {
			check(ctx, cxltier_pool_format(ctx, n.c_str(), 0), ("format " + n).c_str());
			std::printf("formatted pool %s\n", n.c_str());
		}
		check(ctx, cxltier_refresh(ctx), "refresh");
	}
	bool two = false;
	unsigned int pools = usable_pools(ctx, &two);
	if (!pools) {
		std::printf("cxlt-bench-ckpt: no pool online (cxltierctl pool list); skipped\n");
		cxltier_unref(ctx);
		return exit_skip;
	}

	std::vector<unsigned char> state(size);
	std::vector<result> results;
	results.push_back(bench_ckpt(ctx, 1, state, rounds));
	if (two)
		results.push_back(bench_ckpt(ctx, 2, state, rounds));
	else
		std::printf("(one pool, or pools sharing blades: no two-copy run)\n");
	result f = bench_file(file, state, rounds);
	cxltier_unref(ctx);

	std::printf("\nstate %.1f MiB, median of %u rounds\n\n", static_cast<double>(size) / (1 << 20),
		    rounds);
	std::printf("%-16s %10s %9s %10s %10s %10s %9s %9s %9s\n", "config", "commit ms", "MB/s",
		    "stall ms", "async ms", "restore ms", "MB/s", "x file w", "x file r");
	json doc = {{"size", size}, {"rounds", rounds}, {"configs", json::array()}};
	for (const auto &r : results) {
		std::printf("%-16s %10.1f %9.0f %10.1f %10.1f %10.1f %9.0f %9.2f %9.2f\n", r.config.c_str(),
			    r.sync_s * 1e3, mbps(size, r.sync_s), r.stall_s * 1e3, r.async_s * 1e3,
			    r.restore_s * 1e3, mbps(size, r.restore_s),
			    r.sync_s > 0 ? f.sync_s / r.sync_s : 0,
			    r.restore_s > 0 ? f.restore_s / r.restore_s : 0);
		doc["configs"].push_back({{"config", r.config},
					  {"commit_s", r.sync_s},
					  {"async_stall_s", r.stall_s},
					  {"async_total_s", r.async_s},
					  {"restore_s", r.restore_s},
					  {"commit_speedup_vs_file", f.sync_s / r.sync_s},
					  {"restore_speedup_vs_file", f.restore_s / r.restore_s},
					  {"async_stall_fraction", r.stall_s / r.async_s}});
	}
	std::printf("%-16s %10.1f %9.0f %10s %10s %10.1f %9.0f\n", f.config.c_str(), f.sync_s * 1e3,
		    mbps(size, f.sync_s), "-", "-", f.restore_s * 1e3, mbps(size, f.restore_s));
	std::printf("\ncommit: the job waits until the state is durable; stall: what an async "
		    "commit costs the job; async: until it is durable.\n"
		    "x file w, x file r: how many times faster than msync(MS_SYNC) of the file, "
		    "and than reading it back.\n");
	doc["file"] = {{"config", f.config}, {"write_msync_s", f.sync_s}, {"read_s", f.restore_s}};
	if (!json_out.empty()) {
		std::ofstream o(json_out);
		o << doc.dump(2) << "\n";
		if (!o)
			die(json_out + ": cannot write");
	}
	return 0;
}
