// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: shared pools
 *
 * A shared pool is one pool that several hosts attach through a CXL device they
 * all reach (a multi-headed device): a region one host creates on it is seen by
 * every attached host under the same name and id, and mapped there to the same
 * bytes.  An operator attaches a CXL RAM region that is not System RAM with
 * pool_attach ("region0 host=2"); the on-device format is the pool format of
 * pool_format.h with CXLT_POOL_SB_SHARED, host records and DYING entries.
 *
 * Such devices need not be cache-coherent across hosts, and offer no atomic
 * read-modify-write that works across them, so:
 *
 *  - every 64-byte line of metadata has one writer at a time, which writes it
 *    back after writing (cxlt_sh_write()); readers invalidate first;
 *  - table updates are serialized across hosts by Lamport's bakery algorithm over
 *    the host records (choosing, number), which needs only reads and writes;
 *  - each attached host writes a heartbeat every lease / 10.  A host that sees
 *    another's heartbeat stand still for the lease treats it as expired: it no
 *    longer waits for it in the bakery, and the next lock holder clears its record
 *    (its open regions are then no longer held).  A host that was only stalled
 *    finds its record cleared and attaches again (hb_work);
 *  - the table generation (host slot 0) is incremented before and after each
 *    update, so hosts reload the table when it moved, and a holder that died in
 *    the middle leaves it odd: the next holder closes it.  The entries themselves
 *    need no repair: an entry update is one slot write (pool_format.h);
 *  - destroy marks the entry DYING and frees it only when no live host's record
 *    has its open bit: a host sets the bit, then reads the entry again (and the
 *    destroyer writes DYING, then reads the bits), so one of them sees the other.
 *
 * Locking: the pool's @lock (a local mutex) is taken before the bakery lock, never
 * the other way; @open_lock (open bits) nests inside @lock or alone; the heartbeat
 * never waits for either, so a host holding the bakery lock for a long create is
 * not expired by the others.  Memory is touched only under the pool's @gate, which
 * the lost path takes for writing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/libnvdimm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "fence.h"
#include "pool.h"
#include "pool_int.h"
#include "region.h"
#include "region_mm.h"

static unsigned int host_id;
module_param(host_id, uint, 0644);
MODULE_PARM_DESC(host_id,
		 "This host's record in shared pools attached without host= (1-63, unique per host; 0: none)");

static unsigned int pool_lease_ms = 10000;
module_param(pool_lease_ms, uint, 0644);
MODULE_PARM_DESC(pool_lease_ms,
		 "Shared pools: a host whose heartbeat stands still this long is expired (default 10000, at least 1000; the same on every host)");

static unsigned int cxlt_lease_ms(void)
{
	return max(READ_ONCE(pool_lease_ms), 1000U);
}

static unsigned long cxlt_hb_period(void)
{
	return msecs_to_jiffies(cxlt_lease_ms() / 10);
}

unsigned int cxlt_shared_default_host(void)
{
	return READ_ONCE(host_id);
}

/* --- the host area ------------------------------------------------------------------ */

static struct cxlt_pool_gen *cxlt_gen_rec(struct cxlt_pool *pool)
{
	return pool->base + CXLT_POOL_HOST_OFFSET;
}

static struct cxlt_pool_host *cxlt_host_rec(struct cxlt_pool *pool, u32 id)
{
	return pool->base + CXLT_POOL_HOST_OFFSET + (u64)id * CXLT_POOL_HOST_SIZE;
}

/* Read what the device has, not a line this CPU cached. */
static u64 cxlt_sh_read(__le64 *p)
{
	arch_invalidate_pmem(p, sizeof(*p));
	return le64_to_cpu(READ_ONCE(*p));
}

/* Write, write back, and order before whatever this host reads next. */
static void cxlt_sh_write(__le64 *p, u64 v)
{
	WRITE_ONCE(*p, cpu_to_le64(v));
	cxlt_pool_persist(p, sizeof(*p));
	/* The bakery needs this store before the loads that follow (store-load order). */
	mb();
}

static void cxlt_host_read(struct cxlt_pool *pool, u32 id, struct cxlt_pool_host *out)
{
	struct cxlt_pool_host *rec = cxlt_host_rec(pool, id);

	arch_invalidate_pmem(rec, sizeof(*rec));
	memcpy(out, rec, sizeof(*out));
}

static u32 cxlt_host_state(const struct cxlt_pool_host *rec)
{
	return le32_to_cpu(rec->magic) == CXLT_POOL_HOST_MAGIC ? le32_to_cpu(rec->state) :
		CXLT_POOL_HOST_NONE;
}

/*
 * Note what @rec, just read, says of host @id.  Return: whether it is attached and
 * its lease holds (its heartbeat moved within the lease, as this host saw it).
 */
static bool cxlt_peer_live(struct cxlt_pool *pool, u32 id, const struct cxlt_pool_host *rec)
{
	struct cxlt_pool_peer *p = &pool->peers[id];
	u64 hb = le64_to_cpu(rec->heartbeat);
	u32 st = cxlt_host_state(rec);

	unsigned long moved;

	spin_lock(&pool->peer_lock);
	if (hb != p->heartbeat || st != p->state) {
		p->heartbeat = hb;
		p->state = st;
		p->moved = jiffies;
	}
	moved = p->moved;
	spin_unlock(&pool->peer_lock);
	if (st != CXLT_POOL_HOST_ATTACHED)
		return false;
	return id == pool->host_id ||
	       time_before(jiffies, moved + msecs_to_jiffies(cxlt_lease_ms()));
}

/* Memory may be touched until cxlt_sh_io_end(): false when the pool is not usable. */
static bool cxlt_sh_io_begin(struct cxlt_pool *pool)
{
	down_read(&pool->gate);
	if (cxlt_pool_usable(pool) && pool->base)
		return true;
	up_read(&pool->gate);
	return false;
}

static void cxlt_sh_io_end(struct cxlt_pool *pool)
{
	up_read(&pool->gate);
}

u32 cxlt_shared_region_id(const struct cxlt_pool *pool, u32 idx)
{
	return CXLTIER_REGION_ID_SHARED | le32_to_cpu(pool->sb.pool_no) << 8 | idx;
}

/* --- the pool lock ---------------------------------------------------------------- */

/**
 * cxlt_shared_lock() - take a shared pool's lock across hosts
 * @pool: the pool, under its @lock
 *
 * Lamport's bakery: take a number above every number in the host records, then
 * wait until no live host is choosing or has a lower (number, id).  An expired
 * host is not waited for.
 *
 * Context: process context, under @pool->lock; sleeps.
 * Return: 0; -ENODEV the pool went; -EINTR a fatal signal.
 */
int cxlt_shared_lock(struct cxlt_pool *pool)
{
	struct cxlt_pool_host *me = cxlt_host_rec(pool, pool->host_id);
	struct cxlt_pool_host rec;
	u64 max = 0, mine, n;
	u32 j;

	lockdep_assert_held(&pool->lock);
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	cxlt_sh_write(&me->choosing, 1);
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++)
		if (j != pool->host_id)
			max = max(max, cxlt_sh_read(&cxlt_host_rec(pool, j)->number));
	mine = max + 1;
	cxlt_sh_write(&me->number, mine);
	cxlt_sh_write(&me->choosing, 0);
	cxlt_sh_io_end(pool);

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pool->host_id)
			continue;
		for (;;) {
			bool live;

			if (!cxlt_sh_io_begin(pool))
				return -ENODEV;
			cxlt_host_read(pool, j, &rec);
			live = cxlt_peer_live(pool, j, &rec);
			cxlt_sh_io_end(pool);
			if (!live)
				break;
			if (!rec.choosing) {
				n = le64_to_cpu(rec.number);
				if (!n || n > mine || (n == mine && j > pool->host_id))
					break;
			}
			if (fatal_signal_pending(current)) {
				cxlt_shared_unlock(pool);
				return -EINTR;
			}
			usleep_range(200, 1000);
		}
	}
	return 0;
}

/**
 * cxlt_shared_unlock() - give a shared pool's lock back
 * @pool: the pool, under its @lock
 *
 * Context: process context.
 */
void cxlt_shared_unlock(struct cxlt_pool *pool)
{
	if (!cxlt_sh_io_begin(pool))
		return;
	cxlt_sh_write(&cxlt_host_rec(pool, pool->host_id)->number, 0);
	cxlt_sh_io_end(pool);
}

/*
 * The table generation goes odd before a table update and even after it; under
 * the bakery lock.  An odd one found at the start was left by a holder that died:
 * the table is consistent (one slot write per update), so it is closed here.
 */
void cxlt_shared_update_begin(struct cxlt_pool *pool)
{
	struct cxlt_pool_gen *g = cxlt_gen_rec(pool);
	u64 gen = cxlt_sh_read(&g->gen);

	gen += gen & 1;
	cxlt_sh_write(&g->gen, gen + 1);
	pool->gen = gen + 1;
}

void cxlt_shared_update_end(struct cxlt_pool *pool)
{
	cxlt_sh_write(&cxlt_gen_rec(pool)->gen, pool->gen + 1);
	pool->gen++;
}

/* --- the table, as the other hosts change it ---------------------------------------- */

/* The region this host lists for entry @idx, not destroyed; under @pool->lock. */
static struct cxlt_region *cxlt_shared_listed(struct cxlt_pool *pool, u32 idx)
{
	struct cxlt_region *r, *found = NULL;

	spin_lock(&pool->rlock);
	list_for_each_entry(r, &pool->regions, pool_link)
		if (r->pool_entry == idx && !r->pool_freed && !r->pool_unlisted &&
		    kref_get_unless_zero(&r->ref)) {
			found = r;
			break;
		}
	spin_unlock(&pool->rlock);
	return found;
}

/**
 * cxlt_shared_sync() - bring this host's view of a shared pool's table up to date
 * @pool: the pool, under its @lock
 * @force: read the table even if the generation did not move
 *
 * Regions another host created are listed here (under the same id), regions it
 * destroyed leave the name table (open files keep them; the entry stays DYING
 * while this host's open bit is set).  A generation that moves while the table is
 * read leaves the view to be read again at the next heartbeat.
 *
 * Context: process context, under @pool->lock; takes cxlt_regions.lock.
 * Return: 0; -ENODEV the pool went.
 */
int cxlt_shared_sync(struct cxlt_pool *pool, bool force)
{
	u32 i, n = le32_to_cpu(pool->sb.table_entries), bad = 0;
	struct cxlt_pool_gen *g = cxlt_gen_rec(pool);
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	struct cxlt_region *r;
	u64 g1, g2;

	lockdep_assert_held(&pool->lock);
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	g1 = cxlt_sh_read(&g->gen);
	if (!force && g1 == pool->gen) {
		cxlt_sh_io_end(pool);
		return 0;
	}
	arch_invalidate_pmem(pool->base + CXLT_POOL_TABLE_OFFSET, (u64)n * CXLT_POOL_ENTRY_SIZE);
	for (i = 0; i < n; i++) {
		struct cxlt_pool_ent *old = &pool->ents[i];
		bool ok = cxlt_pool_read_entry(pool, i, &ent, &s);

		if (ok && ent.state != CXLT_POOL_ENTRY_FREE && !cxlt_pool_slot_sane(pool, &s)) {
			ok = false;
			ent.bad = true;
		}
		bad += ent.bad;
		if (ent.seq == old->seq && ent.state == old->state && ent.bad == old->bad &&
		    !memcmp(ent.uuid, old->uuid, sizeof(ent.uuid)))
			continue;
		r = cxlt_shared_listed(pool, i);
		if (r && (ent.state != CXLT_POOL_ENTRY_USED ||
			  memcmp(ent.uuid, r->pool_uuid, sizeof(ent.uuid)))) {
			r->pool_freed = true;
			cxlt_region_unpublish(r);
			cxlt_region_put(r);
			r = NULL;
		}
		*old = ent;
		if (ok && ent.state == CXLT_POOL_ENTRY_USED && !r)
			cxlt_pool_new_region(pool, i, &s);
		cxlt_region_put(r);
	}
	g2 = cxlt_sh_read(&g->gen);
	cxlt_sh_io_end(pool);
	/* Read while another host updated it: read it all again at the next heartbeat. */
	pool->gen = g1 == g2 && !(g1 & 1) ? g1 : U64_MAX;
	if (bad && pool->state == CXLT_POOL_ONLINE) {
		pool->state = CXLT_POOL_DEGRADED;
		snprintf(pool->error, sizeof(pool->error),
			 "%u table entries are unreadable: no create or destroy", bad);
		pr_err("pool %s: %u table entries fail their checksums: its regions work, but nothing is created or destroyed on it\n",
		       pool->name, bad);
	}
	return 0;
}

/**
 * cxlt_shared_held() - does a live host have entry @idx's region open?
 * @pool: the pool, memory usable (under the bakery lock for a decision that frees)
 * @idx: table entry
 *
 * Context: process context.
 */
bool cxlt_shared_held(struct cxlt_pool *pool, u32 idx)
{
	struct cxlt_pool_host rec;
	u32 j;

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		cxlt_host_read(pool, j, &rec);
		if (!cxlt_peer_live(pool, j, &rec))
			continue;
		if (le64_to_cpu(rec.open[idx / 64]) & BIT_ULL(idx % 64))
			return true;
	}
	return false;
}

/* --- open bits ---------------------------------------------------------------------- */

/**
 * cxlt_pool_region_open() - a file of a region is being opened
 * @r: the region, referenced
 *
 * On a shared pool, the first open on this host sets the entry's bit in this
 * host's record, then reads the entry again: if another host destroyed the region
 * meanwhile the open fails, else the destroyer sees the bit and keeps its space.
 *
 * Context: process context; takes the pool's open_lock.
 * Return: 0; -ENOENT destroyed on another host; -ENODEV its pool is lost.
 */
int cxlt_pool_region_open(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;
	u32 i = r->pool_entry;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	bool ok;

	if (!pool || !pool->shared)
		return 0;
	guard(mutex)(&pool->open_lock);
	if (pool->opens[i]++)
		return 0;
	if (!cxlt_sh_io_begin(pool)) {
		pool->opens[i]--;
		return -ENODEV;
	}
	pool->open_words[i / 64] |= BIT_ULL(i % 64);
	cxlt_sh_write(&cxlt_host_rec(pool, pool->host_id)->open[i / 64], pool->open_words[i / 64]);
	arch_invalidate_pmem(cxlt_pool_slot_addr(pool, i, 0), CXLT_POOL_ENTRY_SIZE);
	ok = cxlt_pool_read_entry(pool, i, &ent, &s) && ent.state == CXLT_POOL_ENTRY_USED &&
	     !memcmp(ent.uuid, r->pool_uuid, sizeof(ent.uuid));
	if (!ok) {
		pool->open_words[i / 64] &= ~BIT_ULL(i % 64);
		cxlt_sh_write(&cxlt_host_rec(pool, pool->host_id)->open[i / 64],
			      pool->open_words[i / 64]);
		pool->opens[i]--;
	}
	cxlt_sh_io_end(pool);
	return ok ? 0 : -ENOENT;
}

/**
 * cxlt_pool_region_close() - the last reference to one of a region's files went
 * @r: the region
 *
 * The last one on this host clears the entry's open bit; a DYING entry is then
 * freed by this or another host's maintenance.
 *
 * Context: process context; takes the pool's open_lock.
 */
void cxlt_pool_region_close(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;
	u32 i = r->pool_entry;

	if (!pool || !pool->shared)
		return;
	guard(mutex)(&pool->open_lock);
	if (WARN_ON_ONCE(!pool->opens[i]) || --pool->opens[i])
		return;
	pool->open_words[i / 64] &= ~BIT_ULL(i % 64);
	if (!cxlt_sh_io_begin(pool))
		return;
	cxlt_sh_write(&cxlt_host_rec(pool, pool->host_id)->open[i / 64], pool->open_words[i / 64]);
	cxlt_sh_io_end(pool);
	if (r->pool_freed)
		queue_work(system_unbound_wq, &pool->maint_work);
}

/* --- the lock holder's chores ------------------------------------------------------- */

/* Expired hosts' records, DYING entries nobody holds, a generation left odd. */
static bool cxlt_shared_chores_due(struct cxlt_pool *pool)
{
	u32 i, n = le32_to_cpu(pool->sb.table_entries);
	struct cxlt_pool_host rec;
	bool due = false;

	if (!cxlt_sh_io_begin(pool))
		return false;
	if (cxlt_sh_read(&cxlt_gen_rec(pool)->gen) & 1)
		due = true;
	for (i = 1; i < CXLT_POOL_HOST_SLOTS && !due; i++) {
		cxlt_host_read(pool, i, &rec);
		if (cxlt_host_state(&rec) == CXLT_POOL_HOST_ATTACHED &&
		    !cxlt_peer_live(pool, i, &rec))
			due = true;
	}
	for (i = 0; i < n && !due; i++)
		if (pool->ents[i].state == CXLT_POOL_ENTRY_DYING && !cxlt_shared_held(pool, i))
			due = true;
	cxlt_sh_io_end(pool);
	return due;
}

/*
 * Under both locks: clear expired hosts' records, free DYING entries no live host
 * holds, close a generation left odd.  Return: what was done, for check's repair.
 */
static u32 cxlt_shared_chores(struct cxlt_pool *pool)
{
	u32 i, n = le32_to_cpu(pool->sb.table_entries), done = 0;
	struct cxlt_pool_host rec;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;

	if (cxlt_shared_sync(pool, true) || !cxlt_sh_io_begin(pool))
		return 0;
	for (i = 1; i < CXLT_POOL_HOST_SLOTS; i++) {
		struct cxlt_pool_host *dst = cxlt_host_rec(pool, i);

		cxlt_host_read(pool, i, &rec);
		if (cxlt_host_state(&rec) != CXLT_POOL_HOST_ATTACHED ||
		    cxlt_peer_live(pool, i, &rec))
			continue;
		pr_warn("pool %s: host %u (%.*s) expired: no heartbeat for %u ms; its open regions are released\n",
			pool->name, i, (int)sizeof(rec.name), rec.name, cxlt_lease_ms());
		/* Its lines: the host is gone, nothing else writes them. */
		rec.state = cpu_to_le32(CXLT_POOL_HOST_EXPIRED);
		rec.choosing = 0;
		rec.number = 0;
		memset(rec.open, 0, sizeof(rec.open));
		memcpy(dst, &rec, sizeof(rec));
		cxlt_pool_persist(dst, sizeof(rec));
		/* Cleared before any entry it held is freed below. */
		mb();
		done++;
	}
	for (i = 0; i < n; i++) {
		if (pool->ents[i].state != CXLT_POOL_ENTRY_DYING || cxlt_shared_held(pool, i) ||
		    !cxlt_pool_read_entry(pool, i, &ent, &s))
			continue;
		cxlt_shared_update_begin(pool);
		memset(&s, 0, sizeof(s));
		s.state = cpu_to_le32(CXLT_POOL_ENTRY_FREE);
		s.host = cpu_to_le32(pool->host_id);
		cxlt_pool_write_entry(pool, i, &s);
		cxlt_shared_update_end(pool);
		pr_debug("pool %s: entry %u freed (destroyed, no host has it open)\n",
			 pool->name, i);
		done++;
	}
	if (cxlt_sh_read(&cxlt_gen_rec(pool)->gen) & 1) {
		cxlt_shared_update_begin(pool);
		cxlt_shared_update_end(pool);
		done++;
	}
	cxlt_sh_io_end(pool);
	return done;
}

static void cxlt_shared_maint(struct work_struct *work)
{
	struct cxlt_pool *pool = container_of(work, struct cxlt_pool, maint_work);

	guard(mutex)(&pool->lock);
	if (!pool->registered || pool->state != CXLT_POOL_ONLINE)
		return;
	cxlt_shared_sync(pool, false);
	if (!cxlt_shared_chores_due(pool) || cxlt_shared_lock(pool))
		return;
	cxlt_shared_chores(pool);
	cxlt_shared_unlock(pool);
}

/* --- attach, heartbeat, detach ------------------------------------------------------- */

/* Write this host's record afresh, keeping its fence sequence; under the gate. */
static void cxlt_shared_write_record(struct cxlt_pool *pool, const struct cxlt_pool_host *old)
{
	struct cxlt_pool_host *dst = cxlt_host_rec(pool, pool->host_id);
	struct cxlt_pool_host rec = {};
	bool had = le32_to_cpu(old->magic) == CXLT_POOL_HOST_MAGIC;

	rec.magic = cpu_to_le32(CXLT_POOL_HOST_MAGIC);
	rec.state = cpu_to_le32(CXLT_POOL_HOST_ATTACHED);
	/* Another value than before: the others see the new incarnation move at once. */
	pool->hb = (had ? le64_to_cpu(old->heartbeat) : 0) + 1;
	rec.heartbeat = cpu_to_le64(pool->hb);
	if (had) {
		rec.fence_seq = old->fence_seq;
		rec.fence_serial = old->fence_serial;
	}
	memcpy(rec.uuid, pool->host_uuid, sizeof(rec.uuid));
	strscpy(rec.name, utsname()->nodename, sizeof(rec.name));
	for (u32 w = 0; w < CXLT_POOL_OPEN_WORDS; w++)
		rec.open[w] = cpu_to_le64(pool->open_words[w]);
	memcpy(dst, &rec, sizeof(rec));
	cxlt_pool_persist(dst, sizeof(rec));
	/* The record is out before this host reads the others' (bakery, open bits). */
	mb();
}

/* A blade of the pool fenced on another host: fence it here too (outside all locks). */
static void cxlt_shared_peer_fenced(struct cxlt_pool *pool, u32 peer, u64 serial)
{
	__le64 serials[CXLT_POOL_SERIALS];
	char blade[CXLT_NAME_LEN] = "";
	u32 i;

	/* The blades change only when a pool that is not online is tried again. */
	if (cxlt_pool_serials(pool, serials))
		return;
	for (i = 0; i < pool->nr_blades && i < CXLT_POOL_SERIALS; i++)
		if (le64_to_cpu(serials[i]) == serial)
			strscpy(blade, pool->blades[i], sizeof(blade));
	if (!blade[0])
		return;
	pr_warn("pool %s: host %u fenced the blade with serial %#llx: fencing %s here too\n",
		pool->name, peer, serial, blade);
	cxlt_fence_blade(blade, CXLTIER_CAUSE_PEER, ktime_get());
}

static void cxlt_shared_hb(struct work_struct *work)
{
	struct cxlt_pool *pool = container_of(to_delayed_work(work), struct cxlt_pool, hb_work);
	u32 j, n = le32_to_cpu(pool->sb.table_entries), fence_peer = 0;
	struct cxlt_pool_host rec;
	bool maint = false;
	u64 fence = 0;

	if (!cxlt_sh_io_begin(pool))
		return;
	cxlt_host_read(pool, pool->host_id, &rec);
	if (cxlt_host_state(&rec) != CXLT_POOL_HOST_ATTACHED ||
	    memcmp(rec.uuid, pool->host_uuid, sizeof(rec.uuid))) {
		/* Expired by another host while this one stalled (or overwritten). */
		pr_warn("pool %s: this host's record %u was cleared by another host (no heartbeat for the lease of %u ms): attaching again\n",
			pool->name, pool->host_id, cxlt_lease_ms());
		/* Its open bits as they are here; open_lock is never held across a wait. */
		scoped_guard(mutex, &pool->open_lock)
			cxlt_shared_write_record(pool, &rec);
	} else {
		cxlt_sh_write(&cxlt_host_rec(pool, pool->host_id)->heartbeat, ++pool->hb);
	}
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pool->host_id)
			continue;
		cxlt_host_read(pool, j, &rec);
		if (!cxlt_peer_live(pool, j, &rec) &&
		    cxlt_host_state(&rec) == CXLT_POOL_HOST_ATTACHED)
			maint = true;
		scoped_guard(spinlock, &pool->peer_lock) {
			if (cxlt_host_state(&rec) != CXLT_POOL_HOST_NONE &&
			    le64_to_cpu(rec.fence_seq) != pool->peers[j].fence_seq) {
				pool->peers[j].fence_seq = le64_to_cpu(rec.fence_seq);
				fence = le64_to_cpu(rec.fence_serial);
				fence_peer = j;
			}
		}
	}
	/* Hints without @lock: a stale one costs one maintenance pass, or one period. */
	if (cxlt_sh_read(&cxlt_gen_rec(pool)->gen) != data_race(pool->gen))
		maint = true;
	for (j = 0; j < n && !maint; j++)
		/* As above. */
		if (data_race(pool->ents[j].state) == CXLT_POOL_ENTRY_DYING)
			maint = true;
	cxlt_sh_io_end(pool);

	if (fence)
		cxlt_shared_peer_fenced(pool, fence_peer, fence);
	if (maint)
		queue_work(system_unbound_wq, &pool->maint_work);
	if (cxlt_pool_usable(pool))
		queue_delayed_work(system_unbound_wq, &pool->hb_work, cxlt_hb_period());
}

void cxlt_shared_init(struct cxlt_pool *pool)
{
	mutex_init(&pool->open_lock);
	spin_lock_init(&pool->peer_lock);
	INIT_DELAYED_WORK(&pool->hb_work, cxlt_shared_hb);
	INIT_WORK(&pool->maint_work, cxlt_shared_maint);
}

/**
 * cxlt_shared_register() - take this host's record in a shared pool
 * @pool: the pool, under its @lock, mapped, its superblock read; @host_id set
 *
 * A record that says attached under another uuid is watched for three heartbeat
 * periods: if its heartbeat moves, another host has that id (-EBUSY); if not, it
 * is this host's previous life (a crash) and is taken over.
 *
 * Context: process context; sleeps.
 * Return: 0; -EBUSY; -EINTR.
 */
int cxlt_shared_register(struct cxlt_pool *pool)
{
	struct cxlt_pool_host *dst = cxlt_host_rec(pool, pool->host_id);
	struct cxlt_pool_host rec;
	u32 j;

	lockdep_assert_held(&pool->lock);
	cxlt_host_read(pool, pool->host_id, &rec);
	if (cxlt_host_state(&rec) == CXLT_POOL_HOST_ATTACHED) {
		unsigned long end = jiffies + 3 * cxlt_hb_period() + HZ / 10;
		u64 hb0 = le64_to_cpu(rec.heartbeat);

		while (time_before(jiffies, end)) {
			if (msleep_interruptible(50))
				return -EINTR;
			if (cxlt_sh_read(&dst->heartbeat) != hb0) {
				snprintf(pool->error, sizeof(pool->error),
					 "host record %u is in use by host %.*s, whose heartbeat is live: give this host another id",
					 pool->host_id, (int)sizeof(rec.name), rec.name);
				return -EBUSY;
			}
		}
		pr_info("pool %s: host record %u (%.*s) has no heartbeat: taking it over\n",
			pool->name, pool->host_id, (int)sizeof(rec.name), rec.name);
	}
	uuid_gen((uuid_t *)pool->host_uuid);
	memset(pool->open_words, 0, sizeof(pool->open_words));
	memset(pool->opens, 0, sizeof(pool->opens));
	cxlt_shared_write_record(pool, &rec);
	/* What the others did before this attach (fences included) is their past. */
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		cxlt_host_read(pool, j, &rec);
		scoped_guard(spinlock, &pool->peer_lock) {
			pool->peers[j].heartbeat = le64_to_cpu(rec.heartbeat);
			pool->peers[j].state = cxlt_host_state(&rec);
			pool->peers[j].moved = jiffies;
			pool->peers[j].fence_seq = le64_to_cpu(rec.fence_seq);
		}
	}
	pool->gen = U64_MAX;
	pool->registered = true;
	queue_delayed_work(system_unbound_wq, &pool->hb_work, cxlt_hb_period());
	pr_info("pool %s: attached as host %u (%s), lease %u ms\n", pool->name, pool->host_id,
		utsname()->nodename, cxlt_lease_ms());
	return 0;
}

/**
 * cxlt_shared_stop() - stop a shared pool's heartbeat and maintenance
 * @pool: the pool, not under its @lock
 *
 * Context: process context; sleeps.
 */
void cxlt_shared_stop(struct cxlt_pool *pool)
{
	if (!pool->shared)
		return;
	cancel_delayed_work_sync(&pool->hb_work);
	cancel_work_sync(&pool->maint_work);
}

/**
 * cxlt_shared_detach() - leave a shared pool cleanly: this host's record says so
 * @pool: the pool, under its @lock, its works stopped
 *
 * Context: process context.
 */
void cxlt_shared_detach(struct cxlt_pool *pool)
{
	struct cxlt_pool_host *dst;

	lockdep_assert_held(&pool->lock);
	if (!pool->registered)
		return;
	pool->registered = false;
	if (!cxlt_sh_io_begin(pool))
		return;
	dst = cxlt_host_rec(pool, pool->host_id);
	memset(dst->open, 0, sizeof(dst->open));
	cxlt_pool_persist(dst->open, sizeof(dst->open));
	cxlt_sh_write(&dst->number, 0);
	WRITE_ONCE(dst->state, cpu_to_le32(CXLT_POOL_HOST_DETACHED));
	cxlt_pool_persist(&dst->state, sizeof(dst->state));
	/* Out before the memory is unmapped. */
	mb();
	cxlt_sh_io_end(pool);
	pr_info("pool %s: detached (host %u)\n", pool->name, pool->host_id);
}

/**
 * cxlt_shared_fenced() - this host fences a blade of a shared pool: say so on the
 *	device, so the other hosts fence it too
 * @pool: the pool, still usable
 * @serial: the blade's serial number
 *
 * Context: process context, from the fence, before the pool is lost.
 */
void cxlt_shared_fenced(struct cxlt_pool *pool, u64 serial)
{
	struct cxlt_pool_host *me;

	if (!pool->registered || !cxlt_sh_io_begin(pool))
		return;
	me = cxlt_host_rec(pool, pool->host_id);
	cxlt_sh_write(&me->fence_serial, serial);
	cxlt_sh_write(&me->fence_seq, cxlt_sh_read(&me->fence_seq) + 1);
	cxlt_sh_io_end(pool);
	pr_info("pool %s: fence of the blade with serial %#llx recorded for the other hosts\n",
		pool->name, serial);
}

/* --- hosts, table and check in sysfs ------------------------------------------------- */

#define CXLT_TEXT_MAX	(64 * 1024)

static const char *const cxlt_host_state_names[] = {
	[CXLT_POOL_HOST_NONE] = "none",
	[CXLT_POOL_HOST_ATTACHED] = "live",
	[CXLT_POOL_HOST_DETACHED] = "detached",
	[CXLT_POOL_HOST_EXPIRED] = "expired",
};

static int cxlt_hosts_text(struct cxlt_pool *pool, char *buf, size_t size)
{
	struct cxlt_pool_host rec;
	int len = 0;
	u32 j, st;

	if (!pool->shared || !cxlt_sh_io_begin(pool))
		return 0;
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		char name[sizeof(rec.name) + 1];
		unsigned long age;
		bool live;

		cxlt_host_read(pool, j, &rec);
		strscpy(name, rec.name[0] ? rec.name : "?", sizeof(name));
		strreplace(name, ' ', '_');
		live = cxlt_peer_live(pool, j, &rec);
		st = cxlt_host_state(&rec);
		if (st == CXLT_POOL_HOST_NONE || st >= ARRAY_SIZE(cxlt_host_state_names))
			continue;
		scoped_guard(spinlock, &pool->peer_lock)
			age = jiffies - pool->peers[j].moved;
		len += scnprintf(buf + len, size - len, "%u %s %s %llu %u %s\n", j,
				 st == CXLT_POOL_HOST_ATTACHED && !live ? "expired" :
				 cxlt_host_state_names[st], name, le64_to_cpu(rec.heartbeat),
				 j == pool->host_id ? 0 : jiffies_to_msecs(age),
				 j == pool->host_id ? "self" : "-");
	}
	cxlt_sh_io_end(pool);
	return len;
}

static const char *const cxlt_entry_state_names[] = { "free", "used", "dying" };

static int cxlt_table_text(struct cxlt_pool *pool, char *buf, size_t size)
{
	u32 i, j, n = le32_to_cpu(pool->sb.table_entries);
	struct cxlt_pool_host rec;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	struct cxlt_region *r;
	int len = 0;

	u64 (*open)[CXLT_POOL_OPEN_WORDS] __free(kfree) =
		kcalloc(CXLT_POOL_HOST_SLOTS, sizeof(*open), GFP_KERNEL);
	if (!open)
		return -ENOMEM;
	guard(mutex)(&pool->lock);
	if (!pool->ents || !cxlt_sh_io_begin(pool))
		return 0;
	if (pool->shared)
		for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
			cxlt_host_read(pool, j, &rec);
			if (cxlt_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
				continue;
			for (i = 0; i < CXLT_POOL_OPEN_WORDS; i++)
				open[j][i] = le64_to_cpu(rec.open[i]);
		}
	arch_invalidate_pmem(pool->base + CXLT_POOL_TABLE_OFFSET, (u64)n * CXLT_POOL_ENTRY_SIZE);
	for (i = 0; i < n && len < size - 256; i++) {
		bool any = false;
		u32 id;

		if (!cxlt_pool_read_entry(pool, i, &ent, &s) || ent.state == CXLT_POOL_ENTRY_FREE ||
		    ent.state >= ARRAY_SIZE(cxlt_entry_state_names))
			continue;
		if (pool->shared) {
			id = cxlt_shared_region_id(pool, i);
		} else {
			r = cxlt_shared_listed(pool, i);
			id = r ? r->id : 0;
			cxlt_region_put(r);
		}
		len += scnprintf(buf + len, size - len, "%u %s %.*s %llu %llu %u %u %o %u ", i,
				 cxlt_entry_state_names[ent.state], (int)sizeof(s.name), s.name,
				 le64_to_cpu(s.offset), le64_to_cpu(s.length), le32_to_cpu(s.uid),
				 le32_to_cpu(s.gid), le32_to_cpu(s.mode), id);
		for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
			if (!(open[j][i / 64] & BIT_ULL(i % 64)))
				continue;
			len += scnprintf(buf + len, size - len, "%s%u", any ? "," : "", j);
			any = true;
		}
		len += scnprintf(buf + len, size - len, "%s\n", any ? "" : "-");
	}
	cxlt_sh_io_end(pool);
	return len;
}

struct cxlt_check_ext {
	u64 lo, hi;
	u32 idx;
};

static int cxlt_check_ext_cmp(const void *a, const void *b)
{
	const struct cxlt_check_ext *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

#define cxlt_problem(fmt, ...) do {							\
	len += scnprintf(buf + len, size - len, "problem: " fmt "\n", ##__VA_ARGS__);	\
	problems++;									\
} while (0)

/* Check the on-device structures; under @pool->lock, memory usable.  fsck, read-only. */
static int cxlt_check_text(struct cxlt_pool *pool, char *buf, size_t size)
{
	const struct cxlt_pool_sb *a = pool->base + CXLT_POOL_SB_A;
	const struct cxlt_pool_sb *b = pool->base + CXLT_POOL_SB_B;
	u32 i, j, n = le32_to_cpu(pool->sb.table_entries), nr = 0, problems = 0;
	struct cxlt_pool_host rec;
	struct cxlt_pool_slot s, s2;
	struct cxlt_pool_ent ent;
	int len = 0;

	struct cxlt_check_ext *ext __free(kvfree) = kvcalloc(n, sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return -ENOMEM;
	arch_invalidate_pmem(pool->base, CXLT_POOL_TABLE_OFFSET + (u64)n * CXLT_POOL_ENTRY_SIZE);
	for (i = 0; i < 2; i++) {
		const struct cxlt_pool_sb *sb = i ? b : a;

		if (memcmp(sb->magic, CXLT_POOL_MAGIC, sizeof(sb->magic)) ||
		    le32_to_cpu(sb->crc) != cxlt_pool_crc(sb, offsetof(struct cxlt_pool_sb, crc)))
			cxlt_problem("superblock %c fails its checksum", 'A' + i);
		else if (memcmp(sb, &pool->sb, sizeof(*sb)))
			cxlt_problem("superblock %c differs from the one in use", 'A' + i);
	}
	for (i = 0; i < n; i++) {
		if (!cxlt_pool_read_entry(pool, i, &ent, &s)) {
			if (ent.bad)
				cxlt_problem("entry %u: neither slot verifies", i);
			continue;
		}
		if (ent.state == CXLT_POOL_ENTRY_FREE)
			continue;
		if (ent.state == CXLT_POOL_ENTRY_DYING && !pool->shared)
			cxlt_problem("entry %u: dying in a pool of one host", i);
		if (!cxlt_pool_slot_sane(pool, &s)) {
			cxlt_problem("entry %u (%.*s): outside the data area or malformed", i,
				     (int)sizeof(s.name), s.name);
			continue;
		}
		ext[nr].lo = le64_to_cpu(s.offset);
		ext[nr].hi = ext[nr].lo + le64_to_cpu(s.alloc);
		ext[nr++].idx = i;
		if (ent.state != CXLT_POOL_ENTRY_USED)
			continue;
		for (j = 0; j < i; j++) {
			struct cxlt_pool_ent e2;

			if (cxlt_pool_read_entry(pool, j, &e2, &s2) &&
			    e2.state == CXLT_POOL_ENTRY_USED &&
			    !strncmp(s.name, s2.name, sizeof(s.name)))
				cxlt_problem("entries %u and %u have the same name %.*s", j, i,
					     (int)sizeof(s.name), s.name);
		}
	}
	sort(ext, nr, sizeof(*ext), cxlt_check_ext_cmp, NULL);
	for (i = 1; i < nr; i++)
		if (ext[i].lo < ext[i - 1].hi)
			cxlt_problem("entries %u and %u overlap at %#llx", ext[i - 1].idx,
				     ext[i].idx, ext[i].lo);
	if (pool->shared) {
		if (cxlt_sh_read(&cxlt_gen_rec(pool)->gen) & 1)
			cxlt_problem("a table update was left half done%s",
				     " (its host died): repair closes it");
		for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
			u32 st;

			cxlt_host_read(pool, j, &rec);
			st = cxlt_host_state(&rec);
			if (st == CXLT_POOL_HOST_NONE) {
				u32 magic = le32_to_cpu(rec.magic);

				if (magic && magic != CXLT_POOL_HOST_MAGIC)
					cxlt_problem("host record %u: bad magic %#x", j, magic);
				continue;
			}
			if (st > CXLT_POOL_HOST_EXPIRED) {
				cxlt_problem("host record %u: unknown state %u", j, st);
				continue;
			}
			if (st != CXLT_POOL_HOST_ATTACHED)
				continue;
			if (!cxlt_peer_live(pool, j, &rec))
				cxlt_problem("host %u (%.*s) expired, its record not cleared yet%s",
					     j, (int)sizeof(rec.name), rec.name,
					     ": repair clears it");
			for (i = 0; i < n; i++) {
				if (!(le64_to_cpu(rec.open[i / 64]) & BIT_ULL(i % 64)))
					continue;
				if (!cxlt_pool_read_entry(pool, i, &ent, &s) ||
				    ent.state == CXLT_POOL_ENTRY_FREE)
					cxlt_problem("host %u has entry %u open, which is free",
						     j, i);
			}
		}
		for (i = 0; i < n; i++)
			if (cxlt_pool_read_entry(pool, i, &ent, &s) &&
			    ent.state == CXLT_POOL_ENTRY_DYING && !cxlt_shared_held(pool, i))
				len += scnprintf(buf + len, size - len,
						 "note: entry %u (%.*s) is destroyed and open nowhere: its space is freed at the next heartbeat\n",
						 i, (int)sizeof(s.name), s.name);
	}
	len += scnprintf(buf + len, size - len, "%u problems\n", problems);
	return len;
}

/* Make the text, then copy the window @off/@count of it; each read makes it anew. */
static ssize_t cxlt_text_read(struct kobject *kobj, char *out, loff_t off, size_t count,
			      int (*make)(struct cxlt_pool *pool, char *buf, size_t size))
{
	struct cxlt_pool *pool = container_of(kobj, struct cxlt_pool, kobj);
	int len;

	char *text __free(kvfree) = kvmalloc(CXLT_TEXT_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	len = make(pool, text, CXLT_TEXT_MAX);
	if (len < 0)
		return len;
	return memory_read_from_buffer(out, count, &off, text, len);
}

static ssize_t hosts_read(struct file *f, struct kobject *kobj, struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	return cxlt_text_read(kobj, buf, off, count, cxlt_hosts_text);
}

static ssize_t table_read(struct file *f, struct kobject *kobj, struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	return cxlt_text_read(kobj, buf, off, count, cxlt_table_text);
}

static int cxlt_check_make(struct cxlt_pool *pool, char *buf, size_t size)
{
	int len;

	guard(mutex)(&pool->lock);
	if (!pool->ents || !cxlt_sh_io_begin(pool))
		return -ENODEV;
	len = cxlt_check_text(pool, buf, size);
	cxlt_sh_io_end(pool);
	return len;
}

static ssize_t check_read(struct file *f, struct kobject *kobj, struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	return cxlt_text_read(kobj, buf, off, count, cxlt_check_make);
}

static ssize_t check_write(struct file *f, struct kobject *kobj, struct bin_attribute *attr,
			   char *buf, loff_t off, size_t count)
{
	struct cxlt_pool *pool = container_of(kobj, struct cxlt_pool, kobj);
	u32 done;
	int rc;

	if (off || !sysfs_streq(buf, "repair"))
		return -EINVAL;
	guard(mutex)(&pool->lock);
	if (pool->state != CXLT_POOL_ONLINE)
		return -ENODEV;
	if (!pool->shared)
		return count;	/* nothing to mend: a pool of one host has no host area */
	rc = cxlt_shared_lock(pool);
	if (rc)
		return rc;
	done = cxlt_shared_chores(pool);
	cxlt_shared_unlock(pool);
	pr_info("pool %s: repair: %u things mended\n", pool->name, done);
	return count;
}

static BIN_ATTR_RO(hosts, 0);
static BIN_ATTR_RO(table, 0);
static BIN_ATTR_ADMIN_RW(check, 0);

struct bin_attribute *cxlt_shared_bin_attrs[] = {
	&bin_attr_hosts,
	&bin_attr_table,
	&bin_attr_check,
	NULL,
};
