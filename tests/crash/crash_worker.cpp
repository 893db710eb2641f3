// SPDX-License-Identifier: GPL-2.0
/*
 * cxlt-crash-worker: the guest half of the host-driven crash loop (tests/crash).
 *
 * Theory of operation: the host boots the persist topology over and over on the
 * same device files and kills QEMU (SIGKILL) at moments it picks from this
 * program's output.  On start the worker reports what survived, in lines the host
 * checks against what it saw before the kill:
 *
 *   crashw restore gen=G size=S content=ok|bad copies=STATE,STATE gens=G0,G1
 *   crashw restore none                 (nothing committed verifies: -ENODATA)
 *   crashw region NAME seed=S body=ok|bad|-
 *   crashw table n=N
 *
 * A checkpoint's content is derived from its generation (word i of generation G is
 * mix(G, i), its size too), so the restored state is checked beyond its checksum.
 * A churn region "crash-rK" holds a header (its seed, written last) and a body
 * derived from the seed: seed 0 is a create whose content was not finished
 * (body "-", not checked).  Then, until killed or --seconds pass, two threads:
 *
 *   crashw ready next=OP
 *   crashw begin G / crashw committed G          checkpoints of a few MiB, sync and
 *                                                 async commits, generations G+1...
 *   crashw intent create NAME S / crashw done create NAME S next=OP
 *   crashw intent destroy NAME / crashw done destroy NAME next=OP
 *                                                 persistent regions created (with
 *                                                 content) and destroyed
 *
 * Churn op k of a run is on slot mix(seed, k) % --slots: a destroy when the slot's
 * region exists, else a create with seed seed * 100000 + k.  OP announces the next
 * one ("destroy:NAME" or "create:NAME:SEED"), so the host knows the op that may have
 * begun after the last line it saw.  Every line ends in " .": a line the kill cut
 * short is not taken for a whole one.
 *
 *   cxlt-crash-worker [--first] [--verify-only] [--seed N] [--mib N] [--slots N]
 *                     [--region-kib N] [--seconds N] [--name NAME]
 *
 * --first formats the pools that are unformatted and creates the checkpoint (two
 * copies on two pools when there are two).  Exit status: 0 when the time was up or
 * --verify-only, 1 on a failed call or a wrong restore (a "crashw error" line says
 * which), 2 for bad usage.
 */
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <immintrin.h>
#include <unistd.h>

#include "cxltier.h"

namespace {

constexpr const char *kPrefix = "crash-r";
constexpr uint64_t kSeedMagic = 0x43525348ull << 32;	// "CRSH" in the high half

std::mutex out_mutex;

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	std::lock_guard<std::mutex> lock(out_mutex);
	va_list ap;

	fputs("crashw ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	// The end mark: a line cut short by the kill is not taken for a whole one.
	fputs(" .\n", stdout);
	fflush(stdout);
}

uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Write back a range of persistent memory (the module maps it write-back).
void persist(const void *p, size_t len)
{
	auto a = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63);
	auto end = reinterpret_cast<uintptr_t>(p) + len;

	for (; a < end; a += 64)
		_mm_clflush(reinterpret_cast<const void *>(a));
	_mm_sfence();
}

struct Options {
	bool first = false, verify_only = false;
	uint64_t seed = 1, mib = 3, slots = 4, region_kib = 64, seconds = 120;
	std::string name = "crash";
};

// A checkpoint of generation g: its size and its words.
uint64_t state_size(const Options &o, uint64_t g)
{
	return (o.mib << 20) - (g % 7) * 4096;
}

void fill_state(uint64_t *w, uint64_t size, uint64_t g)
{
	for (uint64_t i = 0; i < size / 8; i++)
		w[i] = mix(g, i);
}

bool state_ok(const uint64_t *w, uint64_t size, uint64_t g)
{
	for (uint64_t i = 0; i < size / 8; i++)
		if (w[i] != mix(g, i))
			return false;
	return true;
}

// A churn region: word 0 is kSeedMagic | seed once the body is written, the rest
// the body of that seed.
void fill_body(uint64_t *w, uint64_t words, uint64_t seed)
{
	for (uint64_t i = 1; i < words; i++)
		w[i] = mix(seed ^ 0x5eed, i);
}

const char *err_name(int err)
{
	const char *n = strerrorname_np(err < 0 ? -err : err);

	return n ? n : "E?";
}

int fail(cxltier_ctx *ctx, const char *what, int err)
{
	say("error %s: %s (%s)", what, err_name(err), ctx ? cxltier_get_last_error(ctx) : "");
	return 1;
}

// What the table holds now: slot name -> seed (0: content not finished).
using Table = std::map<std::string, uint64_t>;

int read_table(cxltier_ctx *ctx, const Options &o, Table &table, bool print)
{
	cxltier_region_list *list;
	size_t i, n;
	int err;

	err = cxltier_region_list_new(ctx, &list);
	if (err)
		return fail(ctx, "region list", err);
	n = cxltier_region_list_get_count(list);
	for (i = 0; i < n; i++) {
		std::string name = cxltier_region_list_get_name(list, i);
		cxltier_region *r;
		void *addr;
		uint64_t *w, words, seed;
		bool ok = true;

		if (name.rfind(kPrefix, 0))
			continue;
		err = cxltier_region_open(ctx, name.c_str(), CXLTIER_REGION_READ, &r);
		if (!err)
			err = cxltier_region_map(r, &addr);
		if (err) {
			cxltier_region_list_free(list);
			return fail(ctx, ("open " + name).c_str(), err);
		}
		w = static_cast<uint64_t *>(addr);
		words = cxltier_region_get_size(r) / 8;
		seed = (w[0] >> 32) == (kSeedMagic >> 32) ? (w[0] & 0xffffffffu) : 0;
		if (w[0] && !seed)
			ok = false;	// a header that is neither zero nor a seed
		for (uint64_t k = 1; seed && k < words; k++)
			if (w[k] != mix(seed ^ 0x5eed, k)) {
				ok = false;
				break;
			}
		if (cxltier_region_get_size(r) != o.region_kib << 10)
			ok = false;
		if (print)
			say("region %s seed=%llu body=%s", name.c_str(), (unsigned long long)seed,
			    !ok ? "bad" : seed ? "ok" : "-");
		table[name] = seed;
		cxltier_region_close(r);
	}
	cxltier_region_list_free(list);
	if (print)
		say("table n=%zu", table.size());
	return 0;
}

int format_pools(cxltier_ctx *ctx, std::vector<std::string> &online)
{
	cxltier_pool *pool;
	int err;

	for_each_cxltier_pool(ctx, pool) {
		if (cxltier_pool_get_state(pool) != CXLTIER_POOL_STATE_UNFORMATTED)
			continue;
		err = cxltier_pool_format(ctx, cxltier_pool_get_name(pool), 0);
		if (err)
			return fail(ctx, "pool format", err);
	}
	err = cxltier_refresh(ctx);
	if (err)
		return fail(ctx, "refresh", err);
	for_each_cxltier_pool(ctx, pool)
		if (cxltier_pool_get_state(pool) == CXLTIER_POOL_STATE_ONLINE)
			online.push_back(cxltier_pool_get_name(pool));
	say("pools online=%zu", online.size());
	return 0;
}

int create_ckpt(cxltier_ctx *ctx, const Options &o, const std::vector<std::string> &online)
{
	cxltier_ckpt_params *p;
	cxltier_ckpt *ck;
	int err;

	err = cxltier_ckpt_params_new(&p);
	if (err)
		return fail(ctx, "params", err);
	err = cxltier_ckpt_params_set_capacity(p, o.mib << 20);
	if (!err)
		err = cxltier_ckpt_params_set_copies(p, online.size() >= 2 ? 2 : 1);
	if (!err)
		err = cxltier_ckpt_create(ctx, o.name.c_str(), p, &ck);
	cxltier_ckpt_params_free(p);
	if (err)
		return fail(ctx, "ckpt create", err);
	say("created %s copies=%u", o.name.c_str(), cxltier_ckpt_get_copies(ck));
	cxltier_ckpt_close(ck);
	return 0;
}

// Restore and report; *gen is what was restored (0: none).
int restore(cxltier_ctx *ctx, cxltier_ckpt *ck, const Options &o, uint64_t *gen)
{
	std::vector<uint64_t> buf((o.mib << 20) / 8);
	cxltier_ckpt_info *info = nullptr;
	std::string copies, gens;
	uint64_t g, size;
	int err;

	*gen = 0;
	err = cxltier_ckpt_restore(ck, buf.data(), o.mib << 20, &info);
	if (err == -ENODATA) {
		say("restore none (%s)", cxltier_get_last_error(ctx));
		cxltier_ckpt_info_free(info);
		return 0;
	}
	if (err) {
		cxltier_ckpt_info_free(info);
		return fail(ctx, "restore", err);
	}
	g = cxltier_ckpt_info_get_generation(info);
	size = cxltier_ckpt_info_get_size(info);
	for (unsigned int i = 0; i < cxltier_ckpt_info_get_nr_copies(info); i++) {
		copies += i ? "," : "";
		copies += cxltier_ckpt_copy_state_name(cxltier_ckpt_info_get_copy_state(info, i));
		gens += (i ? "," : "") +
			std::to_string(cxltier_ckpt_info_get_copy_generation(info, i));
	}
	cxltier_ckpt_info_free(info);
	say("restore gen=%llu size=%llu content=%s copies=%s gens=%s", (unsigned long long)g,
	    (unsigned long long)size,
	    size == state_size(o, g) && state_ok(buf.data(), size, g) ? "ok" : "bad",
	    copies.c_str(), gens.c_str());
	*gen = g;
	return 0;
}

// Checkpoints until stop: every third generation through the asynchronous commit.
void commit_loop(cxltier_ctx *ctx, cxltier_ckpt *ck, const Options &o, uint64_t gen,
		 std::atomic<bool> &stop, std::atomic<int> &rc)
{
	std::vector<uint64_t> dram((o.mib << 20) / 8);

	while (!stop) {
		uint64_t next = gen + 1, size = state_size(o, next), got = 0;
		void *staging;
		int err;

		say("begin %llu", (unsigned long long)next);
		if (next % 3 == 0) {
			fill_state(dram.data(), size, next);
			err = cxltier_ckpt_commit_async(ck, dram.data(), size);
			if (!err)
				err = cxltier_ckpt_wait(ck, &got);
		} else {
			err = cxltier_ckpt_begin(ck, size, &staging);
			if (!err) {
				fill_state(static_cast<uint64_t *>(staging), size, next);
				err = cxltier_ckpt_commit(ck, &got);
			}
		}
		if (err || got != next) {
			if (!err)
				say("error commit gave generation %llu, want %llu",
				    (unsigned long long)got, (unsigned long long)next);
			else
				fail(ctx, "commit", err);
			rc = 1;
			stop = true;
			return;
		}
		say("committed %llu", (unsigned long long)got);
		gen = got;
	}
}

void churn(cxltier_ctx *ctx, const Options &o, Table &table, std::atomic<bool> &stop,
	   std::atomic<int> &rc);

std::string slot(const Options &o, uint64_t k)
{
	return kPrefix + std::to_string(mix(o.seed, k) % o.slots);
}

// Churn op k as the host replays it: "destroy:NAME" or "create:NAME:SEED".
std::string next_op(const Options &o, const Table &table, uint64_t k)
{
	std::string name = slot(o, k);

	if (table.count(name))
		return "destroy:" + name;
	return "create:" + name + ":" + std::to_string(o.seed * 100000 + k);
}

// Creates and destroys churn regions until stop (see the top of the file).
// A context of its own: the commit thread uses the other.
void churn_loop(const Options &o, Table table, std::atomic<bool> &stop, std::atomic<int> &rc)
{
	cxltier_ctx *ctx;
	int err = cxltier_new(&ctx);

	if (err) {
		fail(nullptr, "cxltier_new", err);
		rc = 1;
		stop = true;
		return;
	}
	churn(ctx, o, table, stop, rc);
	cxltier_unref(ctx);
}

void churn(cxltier_ctx *ctx, const Options &o, Table &table, std::atomic<bool> &stop,
	   std::atomic<int> &rc)
{
	for (uint64_t k = 1; !stop; k++) {
		std::string name = slot(o, k);
		int err;

		if (table.count(name)) {
			say("intent destroy %s", name.c_str());
			err = cxltier_region_destroy(ctx, name.c_str());
			if (err) {
				fail(ctx, ("destroy " + name).c_str(), err);
				rc = 1;
				stop = true;
				return;
			}
			table.erase(name);
			say("done destroy %s next=%s", name.c_str(), next_op(o, table, k + 1).c_str());
		} else {
			uint64_t seed = o.seed * 100000 + k, *w;
			cxltier_region *r;
			void *addr;

			say("intent create %s %llu", name.c_str(), (unsigned long long)seed);
			err = cxltier_region_create_persistent(ctx, name.c_str(), o.region_kib << 10,
							       0, nullptr, nullptr);
			if (!err)
				err = cxltier_region_open(ctx, name.c_str(), CXLTIER_REGION_RDWR, &r);
			if (err) {
				fail(ctx, ("create " + name).c_str(), err);
				rc = 1;
				stop = true;
				return;
			}
			err = cxltier_region_map(r, &addr);
			if (err) {
				fail(ctx, ("map " + name).c_str(), err);
				cxltier_region_close(r);
				rc = 1;
				stop = true;
				return;
			}
			// The body first, then the header that says it is complete.
			w = static_cast<uint64_t *>(addr);
			fill_body(w, (o.region_kib << 10) / 8, seed);
			persist(w + 1, (o.region_kib << 10) - 8);
			w[0] = kSeedMagic | seed;
			persist(w, 8);
			cxltier_region_close(r);
			table[name] = seed;
			say("done create %s %llu next=%s", name.c_str(), (unsigned long long)seed,
			    next_op(o, table, k + 1).c_str());
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(50 + mix(o.seed ^ 7, k) % 200));
	}
}

bool parse_u64(const char *s, uint64_t &v)
{
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	return !errno && *s && !*end;
}

}  // namespace

int main(int argc, char **argv)
{
	std::atomic<bool> stop{false};
	std::atomic<int> rc{0};
	std::vector<std::string> online;
	cxltier_ctx *ctx;
	cxltier_ckpt *ck;
	Options o;
	Table table;
	uint64_t gen;
	int err;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		uint64_t *num = a == "--seed" ? &o.seed : a == "--mib" ? &o.mib :
				a == "--slots" ? &o.slots : a == "--region-kib" ? &o.region_kib :
				a == "--seconds" ? &o.seconds : nullptr;

		if (a == "--first") {
			o.first = true;
		} else if (a == "--verify-only") {
			o.verify_only = true;
		} else if (a == "--name" && i + 1 < argc) {
			o.name = argv[++i];
		} else if (!num || i + 1 >= argc || !parse_u64(argv[++i], *num)) {
			fprintf(stderr, "usage: cxlt-crash-worker [--first] [--verify-only] [--seed N] "
				"[--mib N] [--slots N] [--region-kib N] [--seconds N] [--name NAME]\n");
			return 2;
		}
	}
	if (!o.mib || o.mib > 64 || !o.slots || !o.region_kib || o.region_kib % 4 ||
	    o.seed >= (1ull << 32) / 100000) {
		fprintf(stderr, "cxlt-crash-worker: bad --mib, --slots, --region-kib or --seed\n");
		return 2;
	}

	err = cxltier_new(&ctx);
	if (err)
		return fail(nullptr, "cxltier_new", err);
	say("start seed=%llu", (unsigned long long)o.seed);
	if (o.first && (format_pools(ctx, online) || create_ckpt(ctx, o, online)))
		return 1;
	err = cxltier_ckpt_open(ctx, o.name.c_str(), CXLTIER_REGION_RDWR, &ck);
	if (err)
		return fail(ctx, "ckpt open", err);
	if (restore(ctx, ck, o, &gen) || read_table(ctx, o, table, true))
		return 1;
	if (o.verify_only) {
		cxltier_ckpt_close(ck);
		cxltier_unref(ctx);
		return 0;
	}
	say("ready next=%s", next_op(o, table, 1).c_str());

	std::thread commits(commit_loop, ctx, ck, std::cref(o), gen, std::ref(stop), std::ref(rc));
	std::thread churner(churn_loop, std::cref(o), table, std::ref(stop), std::ref(rc));
	for (uint64_t t = 0; t < o.seconds * 10 && !stop; t++)
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	stop = true;
	commits.join();
	churner.join();
	say("stopped rc=%d", rc.load());
	cxltier_ckpt_close(ck);
	cxltier_unref(ctx);
	return rc;
}
