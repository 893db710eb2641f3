// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: shared pools
 *
 * A shared pool is one pool that several hosts attach through a CXL device they
 * all reach (a multi-headed device): a region one host creates on it is seen by
 * every attached host under the same name and id, and mapped there to the same
 * bytes.  An operator attaches a CXL RAM region that is not System RAM with
 * pool_attach ("region0 host=2"); the on-device format is the pool format of
 * poolcore/cxlt_pool_format.h with CXLT_POOL_SB_SHARED, host records, DYING
 * entries, the lease and the fence log.
 *
 * What must be proven is in the pool core (poolcore/: the lock, leases that fence
 * their holder, open bits, the cache maintenance between hosts, the fence log);
 * this file is its glue: works, region objects, sysfs.
 *
 *  - the heartbeat (@hb_work, every lease / 10) renews this host's lease and
 *    watches the others; it never waits for @lock, so a host holding the pool
 *    lock for a long create is not expired by the others;
 *  - a host whose lease lapsed (it was paused, or starved, for the lease) writes
 *    nothing more; @maint_work then unmaps every region of the pool here (their
 *    processes get SIGBUS, never another region's data), writes them back while
 *    its open bits still hold their space, and attaches again under a new
 *    incarnation, listing the pool's regions afresh;
 *  - the table generation is incremented before and after each update, so hosts
 *    reload the table when it moved, and a holder that died in the middle leaves
 *    it odd: the next holder closes it;
 *  - destroy marks the entry DYING; it is freed when no attached host, live or
 *    expired, has it open.  An expired host's regions are released when it
 *    attaches again, or when an operator evicts it ("evict N" into check).
 *
 * Locking: the pool's @lock (a local mutex) is taken before the bakery lock, never
 * the other way; @open_lock (open bits) nests inside @lock or alone; the core's
 * leaf lock is @peer_lock.  Memory is touched only under the pool's @gate, which
 * the lost path takes for writing (the core's relax drops it while it sleeps).
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

static unsigned int pool_lease_ms = CXLT_PC_LEASE_MS;
module_param(pool_lease_ms, uint, 0644);
MODULE_PARM_DESC(pool_lease_ms,
		 "Lease of shared pools formatted on this host, stored on the device (default 10000, at least 1000)");

static unsigned int pool_grace_ms;
module_param(pool_grace_ms, uint, 0644);
MODULE_PARM_DESC(pool_grace_ms,
		 "Grace of shared pools formatted on this host, stored on the device (0: half the lease; at most the lease)");

/*
 * For tests: the heartbeats of this host's shared pools stop (no renewal, no
 * maintenance, so no re-attach) while set, as on a host whose heartbeat worker is
 * starved; its lease lapses by its own clock after pool_lease_ms and the others judge
 * it expired.  Cleared, the next heartbeat finds the lease lapsed and attaches again.
 */
static bool pool_test_hold_heartbeat;
module_param(pool_test_hold_heartbeat, bool, 0600);
MODULE_PARM_DESC(pool_test_hold_heartbeat,
		 "For tests: hold the heartbeat of every shared pool, so that this host's lease lapses (default off)");

unsigned int cxlt_shared_default_host(void)
{
	return READ_ONCE(host_id);
}

static unsigned long cxlt_hb_period(struct cxlt_pool *pool)
{
	return msecs_to_jiffies(pool->pc.lease_ms / 10);
}

/* The lease and grace a format writes. */
static void cxlt_shared_lease(u32 *lease, u32 *grace)
{
	*lease = max_t(unsigned int, READ_ONCE(pool_lease_ms), CXLT_PC_LEASE_MIN_MS);
	*grace = READ_ONCE(pool_grace_ms);
	if (!*grace || *grace > *lease)
		*grace = *lease / 2;
}

/**
 * cxlt_shared_format() - the shared pool's part of a new superblock
 * @pool: the pool being formatted
 * @sb: the superblock
 */
void cxlt_shared_format(struct cxlt_pool *pool, struct cxlt_pool_sb *sb)
{
	u32 lease, grace;

	cxlt_shared_lease(&lease, &grace);
	sb->minor = cpu_to_le16(CXLT_POOL_MINOR_SHARED);
	sb->flags = cpu_to_le32(CXLT_POOL_SB_SHARED);
	sb->pool_no = cpu_to_le32(1 + sb->uuid[0] % 127);
	sb->lease_ms = cpu_to_le32(lease);
	sb->grace_ms = cpu_to_le32(grace);
	sb->fence_offset = cpu_to_le64(CXLT_POOL_FLOG_OFFSET);
}

/**
 * cxlt_shared_format_check() - may this shared pool be formatted (or forced)?
 * @pool: the pool, under its @lock, mapped
 *
 * Not while another host is attached and alive: every record that says attached
 * is watched for the lease and grace (as the device says, or the longest of the
 * device's and this host's parameter when the device says nothing usable).
 *
 * Return: 0; -EBUSY (@pool->error says who); -EINTR.
 */
int cxlt_shared_format_check(struct cxlt_pool *pool)
{
	struct cxlt_pool_sb sb;
	u32 lease, grace, who = 0;
	int live;

	cxlt_shared_lease(&lease, &grace);
	down_read(&pool->gate);
	if (!pool->pc.ops->read(pool, CXLT_POOL_SB_A, &sb, sizeof(sb)) && cxlt_pc_sb_ok(&sb) &&
	    le32_to_cpu(sb.lease_ms) >= CXLT_PC_LEASE_MIN_MS) {
		lease = max(lease, le32_to_cpu(sb.lease_ms));
		grace = max(grace, le32_to_cpu(sb.grace_ms));
	}
	pool->pc.lease_ms = lease;
	pool->pc.grace_ms = grace;
	live = cxlt_pc_others_live(&pool->pc, &who);
	up_read(&pool->gate);
	if (live < 0)
		return live;
	if (!live)
		return 0;
	snprintf(pool->error, sizeof(pool->error),
		 "host %u is attached to it and alive (its heartbeat moved): detach it there first",
		 who);
	return -EBUSY;
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

/* A core call said this host's lease lapsed: attach again (maintenance). */
static int cxlt_sh_lapsed(struct cxlt_pool *pool, int rc)
{
	if (rc == -ETIMEDOUT)
		queue_work(system_unbound_wq, &pool->maint_work);
	return rc;
}

u32 cxlt_shared_region_id(const struct cxlt_pool *pool, u32 idx)
{
	return CXLTIER_REGION_ID_SHARED | le32_to_cpu(pool->sb.pool_no) << 8 | idx;
}

/* --- the pool lock and table updates ------------------------------------------------ */

/**
 * cxlt_shared_lock() - take a shared pool's lock across hosts (cxlt_pc_lock())
 * @pool: the pool, under its @lock
 *
 * Context: process context, under @pool->lock; sleeps.
 * Return: 0; -ENODEV the pool went; -EINTR a fatal signal; -ETIMEDOUT this
 * host's lease lapsed.
 */
int cxlt_shared_lock(struct cxlt_pool *pool)
{
	int rc;

	lockdep_assert_held(&pool->lock);
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	rc = cxlt_pc_lock(&pool->pc);
	cxlt_sh_io_end(pool);
	return cxlt_sh_lapsed(pool, rc);
}

void cxlt_shared_unlock(struct cxlt_pool *pool)
{
	if (!cxlt_sh_io_begin(pool))
		return;
	cxlt_pc_unlock(&pool->pc);
	cxlt_sh_io_end(pool);
}

/**
 * cxlt_shared_update() - one table update: generation odd, the slot, generation even
 * @pool: the pool, under its @lock and the bakery lock
 * @idx: the entry
 * @s: its new slot
 *
 * Return: 0; -ETIMEDOUT this host's lease lapsed (the entry is as it was, or as
 * @s); -ENODEV; -EIO.
 */
int cxlt_shared_update(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s)
{
	int rc;

	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	rc = cxlt_pc_update_begin(&pool->pc);
	if (!rc)
		rc = cxlt_pc_write_entry(&pool->pc, idx, &pool->ents[idx], s);
	if (!rc)
		rc = cxlt_pc_update_end(&pool->pc);
	cxlt_sh_io_end(pool);
	/* This host's view: read it all again at the next sync. */
	pool->gen = U64_MAX;
	return cxlt_sh_lapsed(pool, rc);
}

/* Set or clear this host's hold on entry @idx for a create (cxlt_pc_reserve()). */
static int cxlt_shared_reserve(struct cxlt_pool *pool, u32 idx, bool on)
{
	int rc;

	guard(mutex)(&pool->open_lock);
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	rc = cxlt_pc_reserve(&pool->pc, idx, on);
	cxlt_sh_io_end(pool);
	return rc;
}

/**
 * cxlt_shared_create() - give a new region entry @idx and its space, zeroed
 * @pool: the pool, under its @lock and the bakery lock
 * @idx: a free entry
 * @s: its slot, USED, with its space
 *
 * The entry first says DYING under this host's open bit (the space held, no region
 * listed anywhere), then the space is zeroed, then the entry says USED: a zeroing
 * store that lands late, after a pause, lands on space still held for this create
 * (see cxlt_pc_reserve()).
 *
 * Return: 0; -ETIMEDOUT this host's lease lapsed (the entry stays DYING, held
 * until this host attaches again; then it is freed); -ENODEV; -EIO.
 */
int cxlt_shared_create(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s)
{
	u32 state = le32_to_cpu(s->state);
	int rc;

	rc = cxlt_shared_reserve(pool, idx, true);
	if (rc)
		return cxlt_sh_lapsed(pool, rc);
	s->state = cpu_to_le32(CXLT_POOL_ENTRY_DYING);
	rc = cxlt_shared_update(pool, idx, s);
	if (!rc) {
		if (cxlt_sh_io_begin(pool)) {
			rc = cxlt_pc_zero(&pool->pc, le64_to_cpu(s->offset),
					  le64_to_cpu(s->alloc));
			cxlt_sh_io_end(pool);
		} else {
			rc = -ENODEV;
		}
	}
	s->state = cpu_to_le32(state);
	if (!rc)
		rc = cxlt_shared_update(pool, idx, s);
	cxlt_shared_reserve(pool, idx, false);
	return cxlt_sh_lapsed(pool, rc);
}

/* --- the table, as the other hosts change it ---------------------------------------- */

/* The region this host lists for entry @idx, not destroyed; under @pool->lock. */
static struct cxlt_region *cxlt_shared_listed(struct cxlt_pool *pool, u32 idx)
{
	struct cxlt_region *r, *found = NULL;

	spin_lock(&pool->rlock);
	list_for_each_entry(r, &pool->regions, pool_link)
		if (r->pool_entry == idx && !r->pool_freed && !r->pool_unlisted &&
		    r->pool_inc == pool->inc && kref_get_unless_zero(&r->ref)) {
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
	u32 i, n = pool->pc.entries, bad = 0;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	struct cxlt_region *r;
	u64 g1, g2;

	lockdep_assert_held(&pool->lock);
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	g1 = cxlt_pc_read_gen(&pool->pc);
	if (!force && g1 == pool->gen) {
		cxlt_sh_io_end(pool);
		return 0;
	}
	cxlt_pc_inval_table(&pool->pc);
	for (i = 0; i < n; i++) {
		struct cxlt_pool_ent *old = &pool->ents[i];
		bool ok = cxlt_pool_read_entry(pool, i, &ent, &s);

		if (ok && ent.state != CXLT_POOL_ENTRY_FREE && !cxlt_pc_slot_sane(&pool->pc, &s)) {
			ok = false;
			ent.bad = true;
		}
		bad += ent.bad;
		if (ent.seq == old->seq && ent.state == old->state && ent.bad == old->bad &&
		    !memcmp(ent.uuid, old->uuid, sizeof(ent.uuid)) && !force)
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
	g2 = cxlt_pc_read_gen(&pool->pc);
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
 * cxlt_shared_held() - does an attached host, live or expired, have entry @idx open?
 * @pool: the pool, memory usable (under the bakery lock for a decision that frees)
 * @idx: table entry
 *
 * Context: process context.
 */
bool cxlt_shared_held(struct cxlt_pool *pool, u32 idx)
{
	bool held;

	if (!cxlt_sh_io_begin(pool))
		return true;
	held = cxlt_pc_held(&pool->pc, idx);
	cxlt_sh_io_end(pool);
	return held;
}

/* --- open bits ---------------------------------------------------------------------- */

/**
 * cxlt_pool_region_open() - a file of a region is being opened
 * @r: the region, referenced
 *
 * On a shared pool, the first open on this host sets the entry's bit in this
 * host's record, then reads the entry again (cxlt_pc_open()): if another host
 * destroyed the region meanwhile the open fails, else the destroyer sees the bit
 * and keeps its space.  It also drops this host's stale lines of the space.
 *
 * Context: process context; takes the pool's open_lock.
 * Return: 0; -ENOENT destroyed on another host, or made before this host's
 * lease lapsed; -ENODEV its pool is lost; -ETIMEDOUT the lease lapsed now.
 */
int cxlt_pool_region_open(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;
	u32 i = r->pool_entry;
	int rc;

	if (!pool || !pool->shared)
		return 0;
	guard(mutex)(&pool->open_lock);
	if (r->pool_inc != READ_ONCE(pool->inc))
		return -ENOENT;
	if (pool->opens[i]++)
		return 0;
	if (!cxlt_sh_io_begin(pool)) {
		pool->opens[i]--;
		return -ENODEV;
	}
	rc = cxlt_pc_open(&pool->pc, i, r->pool_uuid, r->pool_offset, r->pool_alloc);
	cxlt_sh_io_end(pool);
	if (rc)
		pool->opens[i]--;
	return cxlt_sh_lapsed(pool, rc);
}

/**
 * cxlt_pool_region_close() - the last reference to one of a region's files went
 * @r: the region
 *
 * The last one on this host writes the region's lines back and drops them, then
 * clears the entry's open bit; a DYING entry is then freed by this or another
 * host's maintenance.
 *
 * Context: process context; takes the pool's open_lock.
 */
void cxlt_pool_region_close(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;
	u32 i = r->pool_entry;

	if (!pool || !pool->shared)
		return;
	scoped_guard(mutex, &pool->open_lock) {
		/* Of an incarnation that lapsed: written back when it was unmapped. */
		if (r->pool_inc != pool->inc)
			return;
		if (WARN_ON_ONCE(!pool->opens[i]) || --pool->opens[i])
			return;
		if (!cxlt_sh_io_begin(pool))
			return;
		cxlt_pc_close(&pool->pc, i, r->pool_offset, r->pool_alloc);
		cxlt_sh_io_end(pool);
	}
	if (r->pool_freed)
		queue_work(system_unbound_wq, &pool->maint_work);
}

/* --- the lock holder's chores ------------------------------------------------------- */

/* DYING entries nobody holds, a generation left odd. */
static bool cxlt_shared_chores_due(struct cxlt_pool *pool)
{
	u32 i, n = pool->pc.entries;
	bool due = false;

	if (!cxlt_sh_io_begin(pool))
		return false;
	if (cxlt_pc_read_gen(&pool->pc) & 1)
		due = true;
	for (i = 0; i < n && !due; i++)
		if (pool->ents[i].state == CXLT_POOL_ENTRY_DYING && !cxlt_pc_held(&pool->pc, i))
			due = true;
	cxlt_sh_io_end(pool);
	return due;
}

/*
 * Under both locks: free DYING entries no attached host holds, close a generation
 * left odd.  Return: what was done, for check's repair.
 */
static u32 cxlt_shared_chores(struct cxlt_pool *pool)
{
	u32 i, n = pool->pc.entries, done = 0;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;

	if (cxlt_shared_sync(pool, true))
		return 0;
	for (i = 0; i < n; i++) {
		if (pool->ents[i].state != CXLT_POOL_ENTRY_DYING || cxlt_shared_held(pool, i) ||
		    !cxlt_pool_read_entry(pool, i, &ent, &s))
			continue;
		memset(&s, 0, sizeof(s));
		s.state = cpu_to_le32(CXLT_POOL_ENTRY_FREE);
		s.host = cpu_to_le32(pool->pc.id);
		if (cxlt_shared_update(pool, i, &s))
			return done;
		pr_debug("pool %s: entry %u freed (destroyed, no host has it open)\n",
			 pool->name, i);
		done++;
	}
	if (!cxlt_sh_io_begin(pool))
		return done;
	if (cxlt_pc_read_gen(&pool->pc) & 1 && !cxlt_pc_update_begin(&pool->pc) &&
	    !cxlt_pc_update_end(&pool->pc))
		done++;
	cxlt_sh_io_end(pool);
	return done;
}

/* Regions made under this incarnation, referenced; under @pool->lock. */
static unsigned int cxlt_shared_collect(struct cxlt_pool *pool, struct cxlt_region ***out)
{
	struct cxlt_region *r, **arr = NULL;
	unsigned int n, room;

	for (;;) {
		bool grew = false;

		n = 0;
		scoped_guard(spinlock, &pool->rlock)
			room = list_count_nodes(&pool->regions);
		kfree(arr);
		arr = kmalloc_array(max(room, 1U), sizeof(*arr), GFP_KERNEL);
		if (!arr)
			break;
		/* Inside scoped_guard(), break and continue leave only the guard's loop. */
		scoped_guard(spinlock, &pool->rlock) {
			grew = list_count_nodes(&pool->regions) > room;
			if (grew)
				break;
			list_for_each_entry(r, &pool->regions, pool_link)
				if (r->pool_inc == pool->inc && kref_get_unless_zero(&r->ref))
					arr[n++] = r;
		}
		if (!grew)
			break;
	}
	*out = arr;
	return n;
}

/*
 * This host's lease lapsed: another host may have taken the lock and given away
 * space this host's processes still map.  Unmap every region of this incarnation
 * (SIGBUS from now on), write back and drop their lines while this host's open
 * bits still hold their space, then attach again under a new incarnation and list
 * the pool's regions afresh.  Under @pool->lock.
 */
static void cxlt_shared_relapse(struct cxlt_pool *pool)
{
	struct cxlt_region **arr;
	unsigned int n, i;
	int rc;

	pr_warn("pool %s: this host's lease lapsed (no renewal for %u ms, or another host judged it expired): its regions on the pool are unmapped, attaching again\n",
		pool->name, pool->pc.lease_ms);
	n = cxlt_shared_collect(pool, &arr);
	scoped_guard(rwsem_write, &pool->gate)
		for (i = 0; i < n; i++)
			WRITE_ONCE(arr[i]->lost, true);
	for (i = 0; i < n; i++) {
		cxlt_region_zap(arr[i]);
		if (cxlt_sh_io_begin(pool)) {
			pool->pc.ops->inval(pool, arr[i]->pool_offset, arr[i]->pool_alloc);
			pool->pc.ops->fence(pool);
			cxlt_sh_io_end(pool);
		}
		cxlt_region_unpublish(arr[i]);
		cxlt_region_put(arr[i]);
	}
	kfree(arr);
	scoped_guard(mutex, &pool->open_lock) {
		WRITE_ONCE(pool->inc, pool->inc + 1);
		memset(pool->opens, 0, sizeof(pool->opens));
	}
	uuid_gen((uuid_t *)pool->pc.uuid);
	if (!cxlt_sh_io_begin(pool))
		return;
	rc = cxlt_pc_register(&pool->pc, true, NULL);
	cxlt_sh_io_end(pool);
	if (rc) {
		pr_warn("pool %s: attaching again failed (%d): trying again at the next heartbeat\n",
			pool->name, rc);
		return;
	}
	pool->gen = U64_MAX;
	cxlt_shared_sync(pool, true);
	pr_info("pool %s: attached again as host %u\n", pool->name, pool->pc.id);
}

static void cxlt_shared_maint(struct work_struct *work)
{
	struct cxlt_pool *pool = container_of(work, struct cxlt_pool, maint_work);

	guard(mutex)(&pool->lock);
	if (!pool->registered || pool->state != CXLT_POOL_ONLINE)
		return;
	if (READ_ONCE(pool->pc.dead)) {
		cxlt_shared_relapse(pool);
		return;
	}
	cxlt_shared_sync(pool, false);
	if (!cxlt_shared_chores_due(pool) || cxlt_shared_lock(pool))
		return;
	cxlt_shared_chores(pool);
	cxlt_shared_unlock(pool);
}

/* --- attach, heartbeat, fences, detach ------------------------------------------------ */

/* Blades other hosts fenced, noted by the heartbeat for @fence_work. */
struct cxlt_fence_pending {
	struct cxlt_pool *pool;
	u32 n;
	u64 serial[CXLT_POOL_SERIALS];
	u32 peer[CXLT_POOL_SERIALS];
};

static void cxlt_shared_note_fence(void *arg, u32 peer, u64 serial)
{
	struct cxlt_fence_pending *p = arg;
	u32 i;

	for (i = 0; i < p->n; i++)
		if (p->serial[i] == serial)
			return;
	if (p->n < CXLT_POOL_SERIALS) {
		p->serial[p->n] = serial;
		p->peer[p->n++] = peer;
	}
}

static DEFINE_SPINLOCK(cxlt_fence_pending_lock);

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

static void cxlt_shared_fence_work(struct work_struct *work)
{
	struct cxlt_pool *pool = container_of(work, struct cxlt_pool, fence_work);
	struct cxlt_fence_pending *p = pool->fences;
	struct cxlt_fence_pending todo;
	u32 i;

	scoped_guard(spinlock, &cxlt_fence_pending_lock) {
		todo = *p;
		p->n = 0;
	}
	for (i = 0; i < todo.n; i++)
		cxlt_shared_peer_fenced(pool, todo.peer[i], todo.serial[i]);
}

/* Take the others' fence notices (@in_force: at attach, those still in force). */
static void cxlt_shared_poll_fences(struct cxlt_pool *pool, bool in_force)
{
	struct cxlt_fence_pending p = { .n = 0 };
	u32 i;

	cxlt_pc_fence_poll(&pool->pc, in_force, cxlt_shared_note_fence, &p);
	if (!p.n)
		return;
	scoped_guard(spinlock, &cxlt_fence_pending_lock)
		for (i = 0; i < p.n; i++)
			cxlt_shared_note_fence(pool->fences, p.peer[i], p.serial[i]);
	queue_work(system_unbound_wq, &pool->fence_work);
}

static void cxlt_shared_hb(struct work_struct *work)
{
	struct cxlt_pool *pool = container_of(to_delayed_work(work), struct cxlt_pool, hb_work);
	u32 j, n = pool->pc.entries;
	bool maint = false;

	if (READ_ONCE(pool_test_hold_heartbeat))
		goto again;
	if (!cxlt_sh_io_begin(pool))
		return;
	if (cxlt_pc_heartbeat(&pool->pc))
		maint = true;	/* lapsed: attach again */
	else
		cxlt_shared_poll_fences(pool, false);
	/* Hints without @lock: a stale one costs one maintenance pass, or one period. */
	if (cxlt_pc_read_gen(&pool->pc) != data_race(pool->gen))
		maint = true;
	for (j = 0; j < n && !maint; j++)
		/* As above. */
		if (data_race(pool->ents[j].state) == CXLT_POOL_ENTRY_DYING)
			maint = true;
	cxlt_sh_io_end(pool);

	if (maint)
		queue_work(system_unbound_wq, &pool->maint_work);
again:
	if (cxlt_pool_usable(pool))
		queue_delayed_work(system_unbound_wq, &pool->hb_work, cxlt_hb_period(pool));
}

void cxlt_shared_init(struct cxlt_pool *pool)
{
	mutex_init(&pool->open_lock);
	spin_lock_init(&pool->peer_lock);
	INIT_DELAYED_WORK(&pool->hb_work, cxlt_shared_hb);
	INIT_WORK(&pool->maint_work, cxlt_shared_maint);
	INIT_WORK(&pool->fence_work, cxlt_shared_fence_work);
}

/**
 * cxlt_shared_register() - take this host's record in a shared pool
 * @pool: the pool, under its @lock, mapped, its superblock read; @pc.id set
 *
 * A record that says attached under another uuid is watched for the lease and
 * grace: if its heartbeat moves, another host has that id (-EBUSY); if not, it
 * is this host's previous life (a crash) and is taken over.  Blades the others
 * fenced and still hold fenced are fenced here too.
 *
 * Context: process context; sleeps.
 * Return: 0; -EBUSY; -EINTR; -EAGAIN.
 */
int cxlt_shared_register(struct cxlt_pool *pool)
{
	int rc;

	lockdep_assert_held(&pool->lock);
	if (!pool->fences) {
		pool->fences = kzalloc(sizeof(*pool->fences), GFP_KERNEL);
		if (!pool->fences)
			return -ENOMEM;
	}
	uuid_gen((uuid_t *)pool->pc.uuid);
	strscpy(pool->pc.name, utsname()->nodename, sizeof(pool->pc.name));
	scoped_guard(mutex, &pool->open_lock) {
		WRITE_ONCE(pool->inc, pool->inc + 1);
		memset(pool->opens, 0, sizeof(pool->opens));
	}
	down_read(&pool->gate);
	rc = cxlt_pc_register(&pool->pc, false, NULL);
	if (!rc)
		cxlt_shared_poll_fences(pool, true);
	up_read(&pool->gate);
	if (rc == -EBUSY)
		snprintf(pool->error, sizeof(pool->error),
			 "host record %u is in use by another host, whose heartbeat is live: give this host another id",
			 pool->pc.id);
	if (rc)
		return rc;
	pool->gen = U64_MAX;
	pool->registered = true;
	queue_delayed_work(system_unbound_wq, &pool->hb_work, cxlt_hb_period(pool));
	pr_info("pool %s: attached as host %u (%s), lease %u ms, grace %u ms\n", pool->name,
		pool->pc.id, utsname()->nodename, pool->pc.lease_ms, pool->pc.grace_ms);
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
	/*
	 * Disabled, not only cancelled: a create whose lock attempt timed out, or a
	 * region file closed after the drop, still queues @maint_work, and the pool
	 * may be freed as soon as they let go of it.  The pool is never used again.
	 */
	disable_delayed_work_sync(&pool->hb_work);
	disable_work_sync(&pool->maint_work);
	disable_work_sync(&pool->fence_work);
}

/**
 * cxlt_shared_detach() - leave a shared pool cleanly: this host's record says so
 * @pool: the pool, under its @lock, its works stopped
 *
 * Context: process context.
 */
void cxlt_shared_detach(struct cxlt_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	if (!pool->registered)
		return;
	pool->registered = false;
	if (!cxlt_sh_io_begin(pool))
		return;
	cxlt_pc_detach(&pool->pc);
	cxlt_sh_io_end(pool);
	pr_info("pool %s: detached (host %u)\n", pool->name, pool->pc.id);
}

/**
 * cxlt_shared_fenced() - this host fences a blade of a shared pool: say so in its
 *	fence log, so the other hosts fence it too
 * @pool: the pool, still usable
 * @serial: the blade's serial number
 *
 * Context: process context, from the fence, before the pool is lost.
 */
void cxlt_shared_fenced(struct cxlt_pool *pool, u64 serial)
{
	int rc;

	if (!pool->registered || !cxlt_sh_io_begin(pool))
		return;
	rc = cxlt_pc_fence_note(&pool->pc, serial);
	cxlt_sh_io_end(pool);
	if (rc)
		pr_warn("pool %s: fence of the blade with serial %#llx not recorded for the other hosts: this host's lease lapsed\n",
			pool->name, serial);
	else
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
	enum cxlt_pc_liveness seen;
	struct cxlt_pool_host rec;
	int len = 0;
	u32 j, st;

	if (!pool->shared || !cxlt_sh_io_begin(pool))
		return 0;
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		char name[sizeof(rec.name) + 1];
		unsigned long age;
		bool live;

		if (!cxlt_pc_peek(&pool->pc, j, &rec, false, &seen))
			continue;
		strscpy(name, rec.name[0] ? rec.name : "?", sizeof(name));
		strreplace(name, ' ', '_');
		st = cxlt_pc_host_state(&rec);
		if (st == CXLT_POOL_HOST_NONE || st >= ARRAY_SIZE(cxlt_host_state_names))
			continue;
		live = seen == CXLT_PC_LIVE;
		scoped_guard(spinlock, &pool->peer_lock)
			age = pool->pc.ops->now_ms(pool) - pool->pc.peers[j].moved;
		len += scnprintf(buf + len, size - len, "%u %s %s %llu %lu %s\n", j,
				 st == CXLT_POOL_HOST_ATTACHED && !live ? "expired" :
				 cxlt_host_state_names[st], name, le64_to_cpu(rec.heartbeat),
				 j == pool->pc.id ? 0 : age,
				 j == pool->pc.id ? "self" : "-");
	}
	cxlt_sh_io_end(pool);
	return len;
}

static const char *const cxlt_entry_state_names[] = { "free", "used", "dying" };

static int cxlt_table_text(struct cxlt_pool *pool, char *buf, size_t size)
{
	u32 i, j, n = pool->pc.entries;
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
			cxlt_pc_read_host(&pool->pc, j, &rec);
			if (cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
				continue;
			for (i = 0; i < CXLT_POOL_OPEN_WORDS; i++)
				open[j][i] = le64_to_cpu(rec.open[i]);
		}
	cxlt_pc_inval_table(&pool->pc);
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
	u32 i, j, n = pool->pc.entries, nr = 0, problems = 0;
	enum cxlt_pc_liveness seen;
	struct cxlt_pool_host rec;
	struct cxlt_pool_slot s, s2;
	struct cxlt_pool_ent ent;
	int len = 0;

	struct cxlt_check_ext *ext __free(kvfree) = kvcalloc(n, sizeof(*ext), GFP_KERNEL);
	/* Off the stack: KASAN's redzones would take the frame past 2 KiB. */
	struct cxlt_pool_sb *sb __free(kfree) = kmalloc(sizeof(*sb), GFP_KERNEL);
	if (!ext || !sb)
		return -ENOMEM;
	pool->pc.ops->inval(pool, 0, CXLT_POOL_TABLE_OFFSET + (u64)n * CXLT_POOL_ENTRY_SIZE);
	for (i = 0; i < 2; i++) {
		if (pool->pc.ops->read(pool, i ? CXLT_POOL_SB_B : CXLT_POOL_SB_A, sb, sizeof(*sb)))
			cxlt_problem("superblock %c is on poisoned media", 'A' + i);
		else if (!cxlt_pc_sb_ok(sb))
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
		if (!cxlt_pc_slot_sane(&pool->pc, &s)) {
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
		if (cxlt_pc_read_gen(&pool->pc) & 1)
			cxlt_problem("a table update was left half done%s",
				     " (its host died): repair closes it");
		for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
			u32 st;

			if (!cxlt_pc_peek(&pool->pc, j, &rec, false, &seen)) {
				cxlt_problem("host record %u is on poisoned media", j);
				continue;
			}
			st = cxlt_pc_host_state(&rec);
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
			if (seen != CXLT_PC_LIVE && j != pool->pc.id)
				len += scnprintf(buf + len, size - len,
						 "note: host %u (%.*s) expired: what it has open stays held until it attaches again or is evicted (\"evict %u\")\n",
						 j, (int)sizeof(rec.name), rec.name, j);
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
			    ent.state == CXLT_POOL_ENTRY_DYING && !cxlt_pc_held(&pool->pc, i))
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

static ssize_t hosts_read(struct file *f, struct kobject *kobj, cxlt_bin_attr_t attr,
			  char *buf, loff_t off, size_t count)
{
	return cxlt_text_read(kobj, buf, off, count, cxlt_hosts_text);
}

static ssize_t table_read(struct file *f, struct kobject *kobj, cxlt_bin_attr_t attr,
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

static ssize_t check_read(struct file *f, struct kobject *kobj, cxlt_bin_attr_t attr,
			  char *buf, loff_t off, size_t count)
{
	return cxlt_text_read(kobj, buf, off, count, cxlt_check_make);
}

static int cxlt_evict(struct cxlt_pool *pool, u32 id)
{
	u64 hb;
	int rc;

	/* Watched without the pool lock: the others' creates are not held up. */
	if (!cxlt_sh_io_begin(pool))
		return -ENODEV;
	rc = cxlt_pc_evict_watch(&pool->pc, id, &hb);
	cxlt_sh_io_end(pool);
	if (rc)
		return rc;
	rc = cxlt_shared_lock(pool);
	if (rc)
		return rc;
	if (cxlt_sh_io_begin(pool)) {
		rc = cxlt_pc_evict(&pool->pc, id, hb);
		cxlt_sh_io_end(pool);
	} else {
		rc = -ENODEV;
	}
	if (!rc) {
		pr_warn("pool %s: host %u evicted: what it had open is released\n", pool->name, id);
		cxlt_shared_chores(pool);
	}
	cxlt_shared_unlock(pool);
	return cxlt_sh_lapsed(pool, rc);
}

static ssize_t check_write(struct file *f, struct kobject *kobj, cxlt_bin_attr_t attr,
			   char *buf, loff_t off, size_t count)
{
	struct cxlt_pool *pool = container_of(kobj, struct cxlt_pool, kobj);
	u32 done, id;
	int rc;

	if (off)
		return -EINVAL;
	if (!strncmp(buf, "evict ", 6)) {
		char arg[16];

		strscpy(arg, buf + 6, min(count - 5, sizeof(arg)));
		if (kstrtou32(strim(arg), 10, &id) || !id || id >= CXLT_POOL_HOST_SLOTS)
			return -EINVAL;
		guard(mutex)(&pool->lock);
		if (pool->state != CXLT_POOL_ONLINE || !pool->shared)
			return -ENODEV;
		rc = cxlt_evict(pool, id);
		return rc ? rc : count;
	}
	if (!sysfs_streq(buf, "repair"))
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

cxlt_bin_attr_t cxlt_shared_bin_attrs[] = {
	&bin_attr_hosts,
	&bin_attr_table,
	&bin_attr_check,
	NULL,
};
