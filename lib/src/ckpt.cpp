// SPDX-License-Identifier: GPL-2.0
// Checkpoints over persistent regions: copy k of checkpoint NAME is the region
// "NAME@k", mapped whole; ckpt_core.cpp does the format, commit and restore on
// that memory.  Here: choosing pools, creating, opening, dropping and listing, the
// commit calls of the C ABI and the asynchronous commit's thread.
#include <sys/file.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ckpt_core.hpp"
#include "crc32c.hpp"
#include "ctx.hpp"
#include "export.hpp"
#include "pool.hpp"
#include "region.hpp"
#include "snapshot.hpp"

using namespace cxltier::internal;
namespace core = cxltier::internal::ckpt;

static_assert(CXLTIER_CKPT_NAME_MAX + 2 == CXLTIER_REGION_NAME_MAX);
static_assert(CXLTIER_CKPT_COPIES_MAX == core::max_copies);
static_assert(CXLTIER_CKPT_COPY_OK == static_cast<int>(core::copy_state::ok));
static_assert(CXLTIER_CKPT_COPY_STALE == static_cast<int>(core::copy_state::stale));
static_assert(CXLTIER_CKPT_COPY_BAD == static_cast<int>(core::copy_state::bad));
static_assert(CXLTIER_CKPT_COPY_MISSING == static_cast<int>(core::copy_state::missing));
static_assert(CXLTIER_CKPT_COPY_NEWER_FORMAT == static_cast<int>(core::copy_state::newer_format));
static_assert(CXLTIER_CKPT_COPY_DIVERGED == static_cast<int>(core::copy_state::diverged));

struct cxltier_ckpt_params {
	std::uint64_t capacity = 0;
	unsigned int copies = 1;
	std::array<std::string, core::max_copies> pools;
	unsigned int mode = 0;
};

struct cxltier_ckpt_info {
	struct copy {
		core::copy_state state;
		std::uint64_t generation;
		std::string region;
		std::string pool;
		std::string message;
	};
	std::uint64_t generation = 0;
	std::uint64_t size = 0;
	std::uint64_t time_ns = 0;
	int source = -1;
	std::vector<copy> copies;
};

struct cxltier_ckpt_list {
	std::vector<std::string> names;
};

namespace {

// The committer lock of a checkpoint: flock(LOCK_EX) on the region file of every
// copy this object has open, from begin (or commit_async) until the commit ends.
// Every process's files of one region share its inode, so two processes (or two
// objects) committing to the same checkpoint exclude each other; the kernel drops
// the lock with the file when a committer dies.  Without it two commits could
// plan the same target slot and write one over the other.
class commit_lock {
public:
	commit_lock() = default;
	commit_lock(const commit_lock &) = delete;
	commit_lock &operator=(const commit_lock &) = delete;
	~commit_lock() { release(); }

	void add(int fd) { fds_.push_back(fd); }
	void release() noexcept
	{
		for (int fd : fds_)
			::flock(fd, LOCK_UN);
		fds_.clear();
	}

private:
	std::vector<int> fds_;
};

} // namespace

struct cxltier_ckpt {
	cxltier_ctx *ctx = nullptr; // referenced; receives the checkpoint's errors
	std::string name;
	int access = 0;
	unsigned int copies = 0;
	std::uint64_t capacity = 0;
	std::uint64_t generation = 0; // newest known committed
	unsigned int durable = 0;     // copies the last commit wrote
	// Per copy (views[k] is "NAME@k"): the open region (null: missing) and its pool.
	std::vector<cxltier_region *> regions;
	std::vector<std::string> pools;
	std::vector<core::copy_view> views;
	// What the commits build on (the last commit or restore) and which slots were
	// seen to verify.  Used by the calls and, while it runs, the asynchronous
	// commit's thread only (busy() keeps them apart).
	core::committer who;
	// Held while a commit of this object runs (begin to commit or abort, or the
	// asynchronous commit).
	commit_lock lock;
	// A synchronous commit between begin and commit or abort.
	std::optional<core::commit_plan> begun;
	std::uint64_t begun_size = 0;
	// Begun without a staging pointer: cxltier_ckpt_write() writes every copy, and
	// checksums while the writes come in order (@written bytes so far).
	bool direct = false;
	bool in_order = true;
	std::uint64_t written = 0;
	std::uint32_t crc = 0;
	// The asynchronous commit: its thread, the state's copy, and its outcome,
	// which the thread writes before setting @done (release) and wait/poll read
	// after seeing it (acquire).
	std::thread worker;
	bool started = false;
	std::atomic<bool> done{false};
	std::unique_ptr<std::byte[]> buffer;
	std::uint64_t buffer_size = 0;
	int async_rc = 0;
	std::uint64_t async_gen = 0;
	unsigned int async_durable = 0;
	std::string async_msg;
};

namespace {

std::uint64_t now_ns()
{
	struct timespec ts;
	::clock_gettime(CLOCK_REALTIME, &ts);
	return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
	       static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string copy_region(const std::string &name, unsigned int k)
{
	return name + "@" + std::to_string(k);
}

std::string quoted_ckpt(const std::string &name)
{
	return "checkpoint '" + name + "'";
}

std::optional<error> check_ckpt_name(const char *name)
{
	if (!name)
		return error{-EINVAL, "checkpoint name is NULL"};
	std::size_t len = std::strlen(name);
	if (len > CXLTIER_CKPT_NAME_MAX)
		return error{-EINVAL, "checkpoint name is " + std::to_string(len) + " bytes, at most " +
					      std::to_string(CXLTIER_CKPT_NAME_MAX) +
					      " are allowed (its regions add \"@0\" and \"@1\")"};
	if (std::strchr(name, '@'))
		return error{-EINVAL, "checkpoint name " + quote_value(name) +
					      " has an '@' (it separates the copy number)"};
	if (auto bad = check_region_name(name)) {
		bad->msg.replace(0, std::strlen("region name"), "checkpoint name");
		return bad;
	}
	return std::nullopt;
}

int check_access(int access)
{
	return access == CXLTIER_REGION_READ || access == CXLTIER_REGION_RDWR ? 0 : -EINVAL;
}

// The pools of the copies: those given, and for the others the online pools with
// the most free space on blades no other copy uses.  "" leaves it to the module
// (one copy, no pool known).
result<std::vector<std::string>> choose_pools(cxltier_ctx *ctx, const std::string &name,
					      const cxltier_ckpt_params &p, std::uint64_t bytes)
{
	std::vector<std::string> out(p.copies);
	std::set<std::string> used_blades;
	auto blades_of = [&](const std::string &pool) {
		std::vector<std::string> b;
		if (const cxltier_pool *pl = cxltier_pool_get_by_name(ctx, pool.c_str()))
			for (const char *const *n = pl->blades.c_array(); *n; n++)
				b.emplace_back(*n);
		return b;
	};
	for (unsigned int k = 0; k < p.copies; k++) {
		if (p.pools[k].empty())
			continue;
		const cxltier_pool *given = cxltier_pool_get_by_name(ctx, p.pools[k].c_str());
		if (given && given->shared)
			return error{-EINVAL, quoted_ckpt(name) + ": pool " + p.pools[k] +
						      " is a shared pool (RAM of a device shared between "
						      "hosts, not persistent): checkpoints go on this host's "
						      "persistent pools only"};
		for (unsigned int j = 0; j < k; j++)
			if (p.pools[j] == p.pools[k])
				return error{-EINVAL, quoted_ckpt(name) + ": copies " + std::to_string(j) +
							      " and " + std::to_string(k) +
							      " cannot share pool " + p.pools[k]};
		for (const auto &b : blades_of(p.pools[k])) {
			if (!used_blades.insert(b).second)
				return error{-EINVAL, quoted_ckpt(name) + ": pool " + p.pools[k] +
							      " shares blade " + b +
							      " with the pool of another copy; a copy "
							      "must survive the loss of the other's blades"};
		}
		out[k] = p.pools[k];
	}
	std::vector<const cxltier_pool *> online;
	// Shared pools are volatile memory other hosts map too: never a copy's home.
	for (const auto &pl : ctx->snap->pools)
		if (pl.state == CXLTIER_POOL_STATE_ONLINE && pl.free >= bytes && !pl.shared)
			online.push_back(&pl);
	std::stable_sort(online.begin(), online.end(),
			 [](const cxltier_pool *a, const cxltier_pool *b) { return a->free > b->free; });
	for (unsigned int k = 0; k < p.copies; k++) {
		if (!out[k].empty())
			continue;
		const cxltier_pool *pick = nullptr;
		for (const cxltier_pool *pl : online) {
			if (std::find(out.begin(), out.end(), pl->name) != out.end())
				continue;
			bool disjoint = true;
			for (const char *const *b = pl->blades.c_array(); *b; b++)
				disjoint &= !used_blades.count(*b);
			if (disjoint) {
				pick = pl;
				break;
			}
		}
		if (!pick) {
			if (p.copies == 1 && ctx->snap->pools.empty())
				continue; // the module knows its pools; this snapshot has none
			std::string have;
			for (const cxltier_pool *pl : online)
				have += (have.empty() ? "" : ", ") + pl->name;
			return error{-ENODEV,
				     quoted_ckpt(name) + ": " + std::to_string(p.copies) + " cop" +
					     (p.copies == 1 ? "y needs a pool" : "ies need pools") +
					     " online with " + std::to_string(bytes) +
					     " bytes free each, on blades of their own, not shared (online pools with room: " +
					     (have.empty() ? "none" : have) + "; see cxltierctl pool list)"};
		}
		out[k] = pick->name;
		for (const char *const *b = pick->blades.c_array(); *b; b++)
			used_blades.insert(*b);
	}
	return out;
}

void close_regions(cxltier_ckpt *ck)
{
	for (auto *&r : ck->regions) {
		cxltier_region_close(r);
		r = nullptr;
	}
}

// Owns a checkpoint object until it is handed out.
struct ckpt_deleter {
	void operator()(cxltier_ckpt *ck) const noexcept { cxltier_ckpt_close(ck); }
};
using ckpt_ptr = std::unique_ptr<cxltier_ckpt, ckpt_deleter>;

// Opens and maps the regions of checkpoint @name; a copy whose region is absent
// or lost is missing.  -ENOENT when no copy's region exists.
result<ckpt_ptr> open_ckpt(cxltier_ctx *ctx, const std::string &name, int access)
{
	ckpt_ptr ck(new cxltier_ckpt);
	ck->ctx = cxltier_ref(ctx);
	ck->name = name;
	ck->access = access;
	ck->regions.assign(core::max_copies, nullptr);
	ck->pools.assign(core::max_copies, "");
	ck->views.resize(core::max_copies);
	unsigned int present = 0, last = 0;
	for (unsigned int k = 0; k < core::max_copies; k++) {
		std::string rn = copy_region(name, k);
		core::copy_view &v = ck->views[k];
		v.label = "region '" + rn + "'";
		cxltier_region_info *info = nullptr;
		int rc = cxltier_region_stat(ctx, rn.c_str(), &info);
		if (rc == -ENOENT) {
			v.why = v.label + " does not exist";
			continue;
		}
		if (rc)
			return error{rc, ctx->last_error};
		std::unique_ptr<cxltier_region_info, decltype(&cxltier_region_info_free)> hold(
			info, cxltier_region_info_free);
		ck->pools[k] = info->pool;
		present++;
		last = k;
		if (!info->persistent) {
			v.why = v.label + " is not a persistent region";
			continue;
		}
		if (info->shared) {
			v.why = v.label + " is on shared pool " + info->pool +
				" (volatile memory shared between hosts): not used as a copy";
			continue;
		}
		if (info->lost) {
			v.why = v.label + " is lost with its pool" +
				(info->pool.empty() ? "" : " " + info->pool) + " (its device failed)";
			continue;
		}
		cxltier_region *r = nullptr;
		rc = cxltier_region_open(ctx, rn.c_str(), access, &r);
		if (rc == -ENOENT) { // destroyed meanwhile
			v.why = v.label + " does not exist";
			continue;
		}
		if (rc)
			return error{rc, ctx->last_error};
		ck->regions[k] = r;
		void *addr = nullptr;
		rc = cxltier_region_map(r, &addr);
		if (rc)
			return error{rc, ctx->last_error};
		v.base = static_cast<std::byte *>(addr);
		v.len = cxltier_region_get_size(r);
	}
	if (!present)
		return error{-ENOENT, "no " + quoted_ckpt(name) + " (no region '" +
					      copy_region(name, 0) + "' or '" + copy_region(name, 1) +
					      "')"};
	core::store_scan s = core::scan(ck->views);
	ck->copies = s.usable ? s.nr_copies : last + 1;
	ck->capacity = s.capacity;
	ck->views.resize(ck->copies);
	ck->pools.resize(ck->copies);
	for (unsigned int k = ck->copies; k < core::max_copies; k++) {
		cxltier_region_close(ck->regions[k]);
		ck->regions[k] = nullptr;
	}
	ck->regions.resize(ck->copies);
	ck->generation = core::peek(ck->views, core::scan(ck->views)).generation;
	return ck;
}

cxltier_ckpt_info *make_info(const cxltier_ckpt *ck, const core::restore_result &r)
{
	auto info = std::make_unique<cxltier_ckpt_info>();
	info->generation = r.generation;
	info->size = r.size;
	info->time_ns = r.time_ns;
	info->source = r.source;
	for (std::size_t k = 0; k < r.copies.size(); k++)
		info->copies.push_back({r.copies[k].state, r.copies[k].generation,
					copy_region(ck->name, static_cast<unsigned int>(k)), ck->pools[k],
					r.copies[k].message});
	return info.release();
}

// Why no generation verified: what each copy holds.
std::string nothing_verifies(const cxltier_ckpt *ck, const core::restore_result &r)
{
	std::string out = quoted_ckpt(ck->name) + ": no committed generation verifies";
	bool any_record = false;
	for (const auto &c : r.copies)
		any_record |= c.state == core::copy_state::bad || c.state == core::copy_state::newer_format;
	if (!any_record)
		out = quoted_ckpt(ck->name) + ": nothing committed yet";
	std::string m = r.messages(ck->name);
	return m.empty() ? out : out + " (" + m + ")";
}

int busy(cxltier_ckpt *ck)
{
	if (ck->started && !ck->done.load(std::memory_order_acquire))
		return fail(ck->ctx, {-EBUSY, quoted_ckpt(ck->name) +
						      ": an asynchronous commit is running (cxltier_ckpt_wait())"});
	if (ck->begun)
		return fail(ck->ctx, {-EBUSY, quoted_ckpt(ck->name) +
						      ": a commit has begun (commit or abort it first)"});
	return 0;
}

// A copy whose pool was lost since the checkpoint was opened: its mapping would
// only give SIGBUS now, so it is unmapped and counts as missing from here on.  A
// failure during a read still gets SIGBUS (cxltier_fence_handler_install()).
void forget_lost(cxltier_ckpt *ck)
{
	for (std::size_t k = 0; k < ck->regions.size(); k++) {
		if (!ck->regions[k])
			continue;
		cxltier_region_info *info = nullptr;
		if (cxltier_region_stat_open(ck->regions[k], &info))
			continue;
		bool lost = info->lost;
		cxltier_region_info_free(info);
		if (!lost)
			continue;
		core::copy_view &v = ck->views[k];
		v.why = v.label + " is lost with its pool" +
			(ck->pools[k].empty() ? "" : " " + ck->pools[k]) + " (its device failed)";
		v.base = nullptr;
		v.len = 0;
		cxltier_region_close(ck->regions[k]);
		ck->regions[k] = nullptr;
	}
}

int fits(cxltier_ckpt *ck, std::uint64_t size)
{
	if (size > ck->capacity)
		return fail(ck->ctx, {-EFBIG, quoted_ckpt(ck->name) + ": " + std::to_string(size) +
						      " bytes is more than its capacity (" +
						      std::to_string(ck->capacity) + ")"});
	return 0;
}

int need_write(cxltier_ckpt *ck)
{
	if (ck->access & CXLTIER_REGION_WRITE)
		return 0;
	return fail(ck->ctx, {-EBADF, quoted_ckpt(ck->name) + " is open read-only"});
}

// Takes the committer lock (see commit_lock): -EBUSY when another process or
// checkpoint object is committing to this checkpoint.  Not waiting: a job whose
// checkpoint another committer writes has a bigger problem than a late commit.
int lock_commit(cxltier_ckpt *ck)
{
	ck->lock.release();
	for (std::size_t k = 0; k < ck->regions.size(); k++) {
		if (!ck->regions[k])
			continue;
		int fd = ck->regions[k]->fd;
		if (!::flock(fd, LOCK_EX | LOCK_NB)) {
			ck->lock.add(fd);
			continue;
		}
		int err = errno;
		ck->lock.release();
		if (err == EWOULDBLOCK)
			return fail(ck->ctx, {-EBUSY, quoted_ckpt(ck->name) +
							      ": another committer (a process, or another "
							      "open of it) is committing to it (region '" +
							      copy_region(ck->name, static_cast<unsigned int>(k)) +
							      "' is locked); one commits at a time"});
		return fail(ck->ctx, {-err, quoted_ckpt(ck->name) + ": flock on region '" +
						    copy_region(ck->name, static_cast<unsigned int>(k)) +
						    "': " + std::string(errno_text(err))});
	}
	return 0;
}

// The asynchronous commit's thread: the state is in ck->buffer.
void async_commit(cxltier_ckpt *ck, std::uint64_t size) noexcept
{
	try {
		core::store_scan s = core::scan(ck->views);
		auto p = core::plan(ck->views, s, ck->name, ck->who);
		if (!p) {
			ck->async_rc = p.err().code;
			ck->async_msg = p.err().msg;
		} else {
			std::uint64_t now = now_ns();
			core::commit_from(ck->views, *p, ck->buffer.get(), size, now, cpu_persist());
			core::committed(ck->who, *p, now);
			ck->async_rc = 0;
			ck->async_gen = p->generation;
			ck->async_durable = static_cast<unsigned int>(p->copies.size());
		}
	} catch (const std::bad_alloc &) {
		ck->async_rc = -ENOMEM;
		ck->async_msg.clear();
	} catch (...) {
		ck->async_rc = -EIO;
		ck->async_msg.clear();
	}
	ck->lock.release();
	ck->done.store(true, std::memory_order_release);
}

// The finished asynchronous commit's outcome, once: 0 and the generation, or its error.
int async_result(cxltier_ckpt *ck, uint64_t *generation)
{
	ck->worker.join();
	ck->started = false;
	if (ck->async_rc) {
		std::string msg = ck->async_msg.empty() ? quoted_ckpt(ck->name) + ": asynchronous commit failed"
							: ck->async_msg;
		return fail(ck->ctx, {ck->async_rc, msg});
	}
	ck->generation = ck->async_gen;
	ck->durable = ck->async_durable;
	if (generation)
		*generation = ck->async_gen;
	return 0;
}

} // namespace

// --- parameters -------------------------------------------------------------------

CXLTIER_EXPORT int cxltier_ckpt_params_new(cxltier_ckpt_params **params)
{
	if (!params)
		return -EINVAL;
	*params = new (std::nothrow) cxltier_ckpt_params;
	return *params ? 0 : -ENOMEM;
}

CXLTIER_EXPORT void cxltier_ckpt_params_free(cxltier_ckpt_params *params)
{
	delete params;
}

CXLTIER_EXPORT int cxltier_ckpt_params_set_capacity(cxltier_ckpt_params *params, uint64_t capacity)
{
	if (!params || !capacity || capacity > CXLTIER_CKPT_CAPACITY_MAX)
		return -EINVAL;
	params->capacity = capacity;
	return 0;
}

CXLTIER_EXPORT int cxltier_ckpt_params_set_copies(cxltier_ckpt_params *params, unsigned int copies)
{
	if (!params || copies < 1 || copies > CXLTIER_CKPT_COPIES_MAX)
		return -EINVAL;
	params->copies = copies;
	return 0;
}

CXLTIER_EXPORT int cxltier_ckpt_params_set_pool(cxltier_ckpt_params *params, unsigned int copy,
						const char *pool)
{
	if (!params || copy >= CXLTIER_CKPT_COPIES_MAX)
		return -EINVAL;
	if (pool && *pool && check_pool_name(pool))
		return -EINVAL;
	try {
		params->pools[copy] = pool ? pool : "";
	} catch (...) {
		return -ENOMEM;
	}
	return 0;
}

CXLTIER_EXPORT int cxltier_ckpt_params_set_mode(cxltier_ckpt_params *params, unsigned int mode)
{
	if (!params || (mode & ~0777u))
		return -EINVAL;
	params->mode = mode;
	return 0;
}

// --- create, open, close, drop --------------------------------------------------

CXLTIER_EXPORT int cxltier_ckpt_create(cxltier_ctx *ctx, const char *name,
				       const cxltier_ckpt_params *params, cxltier_ckpt **out)
{
	if (!ctx || !out)
		return -EINVAL;
	*out = nullptr;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_ckpt_name(name))
			return fail(ctx, std::move(*bad));
		if (!params)
			return fail(ctx, {-EINVAL, quoted_ckpt(name) + ": no parameters"});
		if (!params->capacity)
			return fail(ctx, {-EINVAL, quoted_ckpt(name) +
							   ": capacity 0 (set one with cxltier_ckpt_params_set_capacity())"});
		for (unsigned int k = params->copies; k < core::max_copies; k++)
			if (!params->pools[k].empty())
				return fail(ctx, {-EINVAL, quoted_ckpt(name) + ": a pool for copy " +
								   std::to_string(k) + " of " +
								   std::to_string(params->copies)});
		// Pools give space in units of 2 MiB: take all of it.
		constexpr std::uint64_t unit = 2 << 20;
		std::uint64_t bytes = (core::copy_bytes(params->capacity) + unit - 1) / unit * unit;
		auto pools = choose_pools(ctx, name, *params, bytes);
		if (!pools)
			return fail(ctx, std::move(pools).err());

		// A copy's region exists, or the name is taken: nothing is created.
		for (unsigned int k = 0; k < core::max_copies; k++) {
			cxltier_region_info *info = nullptr;
			std::string rn = copy_region(name, k);
			int rc = cxltier_region_stat(ctx, rn.c_str(), &info);
			cxltier_region_info_free(info);
			if (!rc)
				return fail(ctx, {-EEXIST, quoted_ckpt(name) + " exists (region '" + rn +
								   "'; cxltierctl checkpoint drop " +
								   name + " removes it)"});
			if (rc != -ENOENT)
				return rc;
		}

		core::uuid id;
		if (::getrandom(id.data(), id.size(), 0) != static_cast<ssize_t>(id.size()))
			return fail(ctx, {-errno, "getrandom: " + std::string(errno_text(errno))});

		unsigned int made = 0;
		auto undo = [&](int rc) {
			std::string why = ctx->last_error;
			for (unsigned int k = 0; k < made; k++)
				cxltier_region_destroy(ctx, copy_region(name, k).c_str());
			ctx->last_error = why;
			return rc;
		};
		for (; made < params->copies; made++) {
			std::string rn = copy_region(name, made);
			int rc = cxltier_region_create_persistent(ctx, rn.c_str(), bytes, params->mode,
								  (*pools)[made].c_str(), nullptr);
			if (rc)
				return undo(rc);
		}
		auto ck = open_ckpt(ctx, name, CXLTIER_REGION_RDWR);
		if (!ck)
			return undo(fail(ctx, std::move(ck).err()));
		cxltier_ckpt *c = ck->get();
		std::uint64_t now = now_ns();
		for (unsigned int k = 0; k < params->copies; k++) {
			if (k >= c->views.size() || !c->views[k].base)
				return undo(fail(ctx, {-EIO, quoted_ckpt(name) + ": " +
								     (k < c->views.size() ? c->views[k].why
											  : "copy " + std::to_string(k) + " vanished")}));
			core::format(c->views[k], id, k, params->copies, params->capacity, now,
				     cpu_persist());
		}
		c->copies = params->copies;
		c->capacity = params->capacity;
		c->views.resize(c->copies);
		c->regions.resize(c->copies, nullptr);
		c->pools.resize(c->copies);
		*out = ck->release();
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_open(cxltier_ctx *ctx, const char *name, int access,
				     cxltier_ckpt **out)
{
	if (!ctx || !out)
		return -EINVAL;
	*out = nullptr;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_ckpt_name(name))
			return fail(ctx, std::move(*bad));
		if (check_access(access))
			return fail(ctx, {-EINVAL, "access " + std::to_string(access) +
							   " is not CXLTIER_REGION_READ or _RDWR"});
		auto ck = open_ckpt(ctx, name, access);
		if (!ck)
			return fail(ctx, std::move(ck).err());
		*out = ck->release();
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_ckpt_close(cxltier_ckpt *ck)
{
	if (!ck)
		return;
	if (ck->worker.joinable())
		ck->worker.join();
	// A begun commit's lock, before its files go (their numbers may be reused).
	ck->lock.release();
	close_regions(ck);
	cxltier_unref(ck->ctx);
	delete ck;
}

CXLTIER_EXPORT int cxltier_ckpt_drop(cxltier_ctx *ctx, const char *name)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_ckpt_name(name))
			return fail(ctx, std::move(*bad));
		unsigned int gone = 0;
		for (unsigned int k = 0; k < core::max_copies; k++) {
			int rc = cxltier_region_destroy(ctx, copy_region(name, k).c_str());
			if (rc == -ENOENT)
				continue;
			if (rc)
				return rc;
			gone++;
		}
		if (!gone)
			return fail(ctx, {-ENOENT, "no " + quoted_ckpt(name)});
		ctx->last_error.clear();
		return 0;
	});
}

CXLTIER_EXPORT const char *cxltier_ckpt_get_name(const cxltier_ckpt *ck)
{
	return ck->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_get_capacity(const cxltier_ckpt *ck)
{
	return ck->capacity;
}

CXLTIER_EXPORT unsigned int cxltier_ckpt_get_copies(const cxltier_ckpt *ck)
{
	return ck->copies;
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_get_generation(const cxltier_ckpt *ck)
{
	return ck->generation;
}

CXLTIER_EXPORT unsigned int cxltier_ckpt_get_durable_copies(const cxltier_ckpt *ck)
{
	return ck->durable;
}

// --- commit -------------------------------------------------------------------------

CXLTIER_EXPORT int cxltier_ckpt_begin(cxltier_ckpt *ck, uint64_t size, void **staging)
{
	if (!ck)
		return -EINVAL;
	if (staging)
		*staging = nullptr;
	return guarded(ck->ctx->last_error, [&] {
		if (int rc = need_write(ck))
			return rc;
		if (int rc = busy(ck))
			return rc;
		if (int rc = fits(ck, size))
			return rc;
		forget_lost(ck);
		if (int rc = lock_commit(ck))
			return rc;
		core::store_scan s = core::scan(ck->views);
		auto p = core::plan(ck->views, s, ck->name, ck->who);
		if (!p) {
			ck->lock.release();
			return fail(ck->ctx, std::move(p).err());
		}
		core::begin(ck->views, *p, cpu_persist());
		if (staging)
			*staging = core::staging(ck->views, *p);
		ck->begun = std::move(*p);
		ck->begun_size = size;
		ck->direct = !staging;
		ck->in_order = true;
		ck->written = 0;
		ck->crc = 0;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_write(cxltier_ckpt *ck, uint64_t off, const void *buf, size_t len)
{
	if (!ck || (!buf && len))
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (!ck->begun)
			return fail(ck->ctx, {-EINVAL, quoted_ckpt(ck->name) +
							       ": no commit has begun (cxltier_ckpt_begin())"});
		if (off > ck->begun_size || len > ck->begun_size - off)
			return fail(ck->ctx, {-EINVAL, quoted_ckpt(ck->name) + ": write of " +
							       std::to_string(len) + " bytes at " +
							       std::to_string(off) + " is beyond the " +
							       std::to_string(ck->begun_size) +
							       " bytes begun"});
		if (!ck->direct) {
			std::memcpy(core::staging(ck->views, *ck->begun) + off, buf, len);
			return 0;
		}
		core::write_all(ck->views, *ck->begun, off, buf, len, cpu_persist());
		if (ck->in_order && off == ck->written) {
			ck->crc = crc32c(ck->crc, buf, len);
			ck->written += len;
		} else {
			ck->in_order = false;
		}
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_commit(cxltier_ckpt *ck, uint64_t *generation)
{
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (!ck->begun)
			return fail(ck->ctx, {-EINVAL, quoted_ckpt(ck->name) +
							       ": no commit has begun (cxltier_ckpt_begin())"});
		// Written in order through cxltier_ckpt_write(): checksummed already.
		std::uint64_t now = now_ns();
		if (ck->direct && ck->in_order && ck->written == ck->begun_size)
			core::commit_written(ck->views, *ck->begun, ck->begun_size, ck->crc, now,
					     cpu_persist());
		else
			core::commit_staged(ck->views, *ck->begun, ck->begun_size, now,
					    cpu_persist());
		core::committed(ck->who, *ck->begun, now);
		ck->lock.release();
		ck->generation = ck->begun->generation;
		ck->durable = static_cast<unsigned int>(ck->begun->copies.size());
		ck->begun.reset();
		if (generation)
			*generation = ck->generation;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_abort(cxltier_ckpt *ck)
{
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (!ck->begun)
			return fail(ck->ctx, {-EINVAL, quoted_ckpt(ck->name) + ": no commit has begun"});
		ck->begun.reset();
		ck->lock.release();
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_commit_async(cxltier_ckpt *ck, const void *state, uint64_t size)
{
	if (!ck || (!state && size))
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (int rc = need_write(ck))
			return rc;
		if (int rc = busy(ck))
			return rc;
		if (ck->started)
			return fail(ck->ctx, {-EBUSY, quoted_ckpt(ck->name) +
							      ": the last asynchronous commit was not waited for"});
		forget_lost(ck);
		if (int rc = fits(ck, size))
			return rc;
		if (size > ck->buffer_size || !ck->buffer) {
			ck->buffer.reset();
			ck->buffer_size = 0;
			// Not zeroed: the state is copied over it next.
			ck->buffer = std::make_unique_for_overwrite<std::byte[]>(std::max<std::uint64_t>(size, 1));
			ck->buffer_size = size;
		}
		std::memcpy(ck->buffer.get(), state, size);
		if (int rc = lock_commit(ck))
			return rc;
		ck->done.store(false, std::memory_order_relaxed);
		ck->async_rc = 0;
		ck->async_msg.clear();
		try {
			ck->worker = std::thread(async_commit, ck, size);
		} catch (...) {
			ck->lock.release();
			throw;
		}
		ck->started = true;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_ckpt_wait(cxltier_ckpt *ck, uint64_t *generation)
{
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (!ck->started)
			return fail(ck->ctx, {-ENOENT, quoted_ckpt(ck->name) +
							       ": no asynchronous commit to wait for"});
		return async_result(ck, generation);
	});
}

CXLTIER_EXPORT int cxltier_ckpt_poll(cxltier_ckpt *ck, uint64_t *generation)
{
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		if (!ck->started)
			return fail(ck->ctx, {-ENOENT, quoted_ckpt(ck->name) +
							       ": no asynchronous commit to wait for"});
		if (!ck->done.load(std::memory_order_acquire))
			return -EINPROGRESS;
		return async_result(ck, generation);
	});
}

// --- restore, verify, stat ----------------------------------------------------------

namespace {

enum class check_kind { restore, verify, stat };

int check(cxltier_ckpt *ck, check_kind kind, void *buf, uint64_t bufsize, cxltier_ckpt_info **info)
{
	if (int rc = busy(ck))
		return rc;
	forget_lost(ck);
	core::store_scan s = core::scan(ck->views);
	core::restore_result r;
	if (kind == check_kind::stat)
		r = core::peek(ck->views, s);
	else
		r = core::restore(ck->views, s, buf, kind == check_kind::restore ? bufsize : 0,
				  kind == check_kind::verify);
	if (kind != check_kind::stat)
		core::restored(ck->who, r, kind == check_kind::restore);
	if (info)
		*info = make_info(ck, r);
	if (!r.generation) {
		int code = r.newer ? -EPROTONOSUPPORT : -ENODATA;
		return fail(ck->ctx, {code, nothing_verifies(ck, r)});
	}
	ck->generation = std::max(ck->generation, r.generation);
	ck->ctx->last_error = r.messages(ck->name);
	if (kind == check_kind::restore && r.source < 0)
		return fail(ck->ctx, {-ENOBUFS, quoted_ckpt(ck->name) + ": generation " +
							 std::to_string(r.generation) + " has " +
							 std::to_string(r.size) + " bytes, the buffer " +
							 std::to_string(bufsize)});
	return 0;
}

} // namespace

CXLTIER_EXPORT int cxltier_ckpt_restore(cxltier_ckpt *ck, void *buf, uint64_t bufsize,
					cxltier_ckpt_info **info)
{
	if (info)
		*info = nullptr;
	if (!ck || (!buf && bufsize))
		return -EINVAL;
	return guarded(ck->ctx->last_error, [&] {
		// With no buffer at all, still report the size (-ENOBUFS unless it is 0).
		static std::byte none;
		return check(ck, check_kind::restore, buf ? buf : &none, bufsize, info);
	});
}

CXLTIER_EXPORT int cxltier_ckpt_verify(cxltier_ckpt *ck, cxltier_ckpt_info **info)
{
	if (info)
		*info = nullptr;
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error,
		       [&] { return check(ck, check_kind::verify, nullptr, 0, info); });
}

CXLTIER_EXPORT int cxltier_ckpt_stat(cxltier_ckpt *ck, cxltier_ckpt_info **info)
{
	if (info)
		*info = nullptr;
	if (!ck)
		return -EINVAL;
	return guarded(ck->ctx->last_error,
		       [&] { return check(ck, check_kind::stat, nullptr, 0, info); });
}

CXLTIER_EXPORT const char *cxltier_ckpt_copy_state_name(cxltier_ckpt_copy_state state)
{
	auto i = static_cast<unsigned int>(state);
	if (i > CXLTIER_CKPT_COPY_DIVERGED)
		return "unknown";
	return core::copy_state_name(static_cast<core::copy_state>(i));
}

CXLTIER_EXPORT void cxltier_ckpt_info_free(cxltier_ckpt_info *info)
{
	delete info;
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_info_get_generation(const cxltier_ckpt_info *info)
{
	return info->generation;
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_info_get_size(const cxltier_ckpt_info *info)
{
	return info->size;
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_info_get_time_ns(const cxltier_ckpt_info *info)
{
	return info->time_ns;
}

CXLTIER_EXPORT int cxltier_ckpt_info_get_source(const cxltier_ckpt_info *info)
{
	return info->source;
}

CXLTIER_EXPORT unsigned int cxltier_ckpt_info_get_nr_copies(const cxltier_ckpt_info *info)
{
	return static_cast<unsigned int>(info->copies.size());
}

CXLTIER_EXPORT cxltier_ckpt_copy_state cxltier_ckpt_info_get_copy_state(const cxltier_ckpt_info *info,
									unsigned int i)
{
	return i < info->copies.size() ? static_cast<cxltier_ckpt_copy_state>(info->copies[i].state)
				       : CXLTIER_CKPT_COPY_MISSING;
}

CXLTIER_EXPORT uint64_t cxltier_ckpt_info_get_copy_generation(const cxltier_ckpt_info *info,
							      unsigned int i)
{
	return i < info->copies.size() ? info->copies[i].generation : 0;
}

CXLTIER_EXPORT const char *cxltier_ckpt_info_get_copy_region(const cxltier_ckpt_info *info,
							     unsigned int i)
{
	return i < info->copies.size() ? info->copies[i].region.c_str() : "";
}

CXLTIER_EXPORT const char *cxltier_ckpt_info_get_copy_pool(const cxltier_ckpt_info *info,
							   unsigned int i)
{
	return i < info->copies.size() ? info->copies[i].pool.c_str() : "";
}

CXLTIER_EXPORT const char *cxltier_ckpt_info_get_copy_message(const cxltier_ckpt_info *info,
							      unsigned int i)
{
	return i < info->copies.size() ? info->copies[i].message.c_str() : "";
}

// --- list ---------------------------------------------------------------------------

CXLTIER_EXPORT int cxltier_ckpt_list_new(cxltier_ctx *ctx, cxltier_ckpt_list **out)
{
	if (!ctx || !out)
		return -EINVAL;
	*out = nullptr;
	return guarded(ctx->last_error, [&] {
		cxltier_region_list *regions = nullptr;
		int rc = cxltier_region_list_new(ctx, &regions);
		if (rc)
			return rc;
		std::unique_ptr<cxltier_region_list, decltype(&cxltier_region_list_free)> hold(
			regions, cxltier_region_list_free);
		std::set<std::string> names;
		for (const auto &e : regions->entries) {
			auto at = e.name.rfind('@');
			if (at == std::string::npos || at + 2 != e.name.size() ||
			    (e.name[at + 1] != '0' && e.name[at + 1] != '1'))
				continue;
			std::string n = e.name.substr(0, at);
			if (!check_ckpt_name(n.c_str()))
				names.insert(n);
		}
		auto list = std::make_unique<cxltier_ckpt_list>();
		list->names.assign(names.begin(), names.end());
		std::sort(list->names.begin(), list->names.end(), natural_less);
		*out = list.release();
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_ckpt_list_free(cxltier_ckpt_list *list)
{
	delete list;
}

CXLTIER_EXPORT size_t cxltier_ckpt_list_get_count(const cxltier_ckpt_list *list)
{
	return list ? list->names.size() : 0;
}

CXLTIER_EXPORT const char *cxltier_ckpt_list_get_name(const cxltier_ckpt_list *list, size_t i)
{
	return list && i < list->names.size() ? list->names[i].c_str() : nullptr;
}
