/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pool.c and pool_shared.c share: the pool struct and the helpers that read
 * and write the on-device format.  Nothing outside these two files includes it.
 */
#ifndef _CXLT_POOL_INT_H
#define _CXLT_POOL_INT_H

#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <linux/cxltier.h>

#include "compat.h"
#include "cxltier.h"
#include "poolcore/cxlt_pc.h"

struct cxlt_cxl_region_info;
struct cxlt_fence_pending;
struct cxlt_region;

/* Pages a fault maps beyond the one touched: a first touch is mostly followed by the next. */
#define CXLT_POOL_PREFAULT	16

enum cxlt_pool_state {
	CXLT_POOL_UNFORMATTED,
	CXLT_POOL_ONLINE,
	CXLT_POOL_DEGRADED,
	CXLT_POOL_BAD,
	CXLT_POOL_BUSY,
	CXLT_POOL_LOST,
	CXLT_POOL_UNCOMMITTED,	/* the CXL region has no memory yet: not listed as a state */
};

static const char *const cxlt_pool_state_names[] __maybe_unused = {
	[CXLT_POOL_UNFORMATTED] = "unformatted",
	[CXLT_POOL_ONLINE] = "online",
	[CXLT_POOL_DEGRADED] = "degraded",
	[CXLT_POOL_BAD] = "bad",
	[CXLT_POOL_BUSY] = "busy",
	[CXLT_POOL_LOST] = "lost",
	[CXLT_POOL_UNCOMMITTED] = "uncommitted",
};

/**
 * struct cxlt_pool - a CXL pmem region as a pool
 * @kobj: /sys/kernel/cxltier/pools/<region>; the list holds a reference, and so
 *	does each of its regions
 * @node: entry in cxlt_pools.list (under cxlt_pools.lock and cxlt_pools.list_lock)
 * @dev: the CXL region, referenced
 * @name: its name
 * @lock: serializes attach, format and table updates; protects @state (also
 *	written under @gate by the lost path), @error, @ents, @sb and the mapping
 * @gate: faults hold it for reading while they map pages; the lost path takes it
 *	for writing to set @state and the regions' @lost, so no fault maps a page
 *	after that (see cxlt_pool_set_lost())
 * @rlock: protects @regions; a leaf spinlock
 * @regions: the region structs on this pool, destroyed ones still in use
 *	included (cxlt_region.pool_link)
 * @state: enum cxlt_pool_state
 * @error: why the pool is bad or busy
 * @phys: host physical address of the CXL region
 * @size: its size
 * @res: the claimed address range, while online (set under @lock; given back
 *	with xchg() by unmap and by the lost path, which holds no pool lock)
 * @base: the kernel's write-back mapping, while mapped
 * @sb: the verified superblock, while online, degraded or lost
 * @ents: the table, @sb.table_entries entries, while online, degraded or lost
 * @blades: memdev names of the region's targets; written under @lock and
 *	cxlt_pools.list_lock, read under either
 * @nr_blades: entries in @blades
 * @seen: scratch flag of the scan in progress, under cxlt_pools.lock
 *
 * A shared pool (pool_shared.c) also has:
 * @pc: the pool core's view (poolcore/cxlt_pc.h): layout for every pool; for a
 *	shared pool also this host's record, lease and what it saw of the others
 *	(@pc.peers under @peer_lock; the table and lock words under @lock)
 * @shared: attached with pool_attach; set before the pool is listed, never cleared
 * @inc: this host's incarnations on the pool: a region made in an earlier one
 *	(its lease lapsed since) is dead; under @lock
 * @opens: per table entry, this host's open files of its region
 * @gen: the table generation this host's @ents reflect (U64_MAX: read it
 *	again); under @lock
 * @open_lock: protects @opens and @pc.open_words
 * @hb_work: renews the lease, watches the other hosts, never blocks on @lock
 * @maint_work: syncs the table, does the lock holder's chores, and attaches
 *	again after a lapse (see there)
 * @fence_work: fences here the blades other hosts fenced (cxlt_fence.lock may
 *	be held long: never from @hb_work)
 * @fences: what @fence_work is to do, under its own lock (pool_shared.c)
 * @peer_lock: the pool core's leaf lock (ops->lock); a spinlock
 * @registered: this host's record is written (and must be cleared at detach)
 */
struct cxlt_pool {
	struct kobject kobj;
	struct list_head node;
	struct device *dev;
	char name[CXLTIER_POOL_NAME_MAX];
	struct mutex lock;	/* see above */
	struct rw_semaphore gate;
	spinlock_t rlock;	/* @regions */
	struct list_head regions;
	enum cxlt_pool_state state;
	char error[128];
	u64 phys;
	u64 size;
	struct resource *res;
	void *base;
	struct cxlt_pool_sb sb;
	struct cxlt_pool_ent *ents;
	char blades[CXLT_MAX_WAYS][CXLT_NAME_LEN];
	u32 nr_blades;
	bool seen;

	struct cxlt_pc pc;

	bool shared;
	u32 inc;
	u32 opens[CXLT_POOL_ENTRIES];
	u64 gen;
	struct mutex open_lock;	/* @opens, @pc.open_words */
	struct delayed_work hb_work;
	struct work_struct maint_work;
	struct work_struct fence_work;
	struct cxlt_fence_pending *fences;
	spinlock_t peer_lock;	/* the core's leaf lock */
	bool registered;
};

static inline bool cxlt_pool_usable(const struct cxlt_pool *pool)
{
	return pool->state == CXLT_POOL_ONLINE || pool->state == CXLT_POOL_DEGRADED;
}

/* pool.c */
void cxlt_pool_persist(void *addr, size_t len);
bool cxlt_pool_read_entry(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_ent *ent,
			  struct cxlt_pool_slot *out);
int cxlt_pool_write_entry(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s);
struct cxlt_region *cxlt_pool_new_region(struct cxlt_pool *pool, u32 idx,
					 const struct cxlt_pool_slot *s);
u64 cxlt_pool_find_space(struct cxlt_pool *pool, u64 alloc, u64 *free_total);
int cxlt_pool_serials(struct cxlt_pool *pool, __le64 *serials);

/* pool_shared.c */
void cxlt_shared_init(struct cxlt_pool *pool);
int cxlt_shared_register(struct cxlt_pool *pool);
void cxlt_shared_detach(struct cxlt_pool *pool);
void cxlt_shared_stop(struct cxlt_pool *pool);
int cxlt_shared_lock(struct cxlt_pool *pool);
void cxlt_shared_unlock(struct cxlt_pool *pool);
int cxlt_shared_update(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s);
int cxlt_shared_create(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s);
void cxlt_shared_format(struct cxlt_pool *pool, struct cxlt_pool_sb *sb);
int cxlt_shared_format_check(struct cxlt_pool *pool);
int cxlt_shared_sync(struct cxlt_pool *pool, bool force);
bool cxlt_shared_held(struct cxlt_pool *pool, u32 idx);
void cxlt_shared_fenced(struct cxlt_pool *pool, u64 serial);
u32 cxlt_shared_region_id(const struct cxlt_pool *pool, u32 idx);
extern cxlt_bin_attr_t cxlt_shared_bin_attrs[];
unsigned int cxlt_shared_default_host(void);

#endif /* _CXLT_POOL_INT_H */
