// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: pools
 *
 * A pool is a CXL pmem region that holds persistent regions: global regions whose
 * names, owners, modes, sizes and contents survive a crash, a reboot and the
 * module's unload.  Every committed CXL pmem region gets a directory
 * /sys/kernel/cxltier/pools/<region>/ with its state:
 *
 *   unformatted  its first blocks are zero: write "regionN" to pool_format
 *   online       formatted; its persistent regions are listed and can be opened
 *   degraded     online, but a table entry is unreadable (both slots fail their
 *                checksum): its regions work, nothing is created or destroyed,
 *                since which space that entry held is unknown
 *   bad          not a pool this module can use (bad checksums, a newer format,
 *                assembled from other devices than it was formatted on): nothing
 *                is written to it; "error" says why
 *   busy         another driver claimed the memory (an nvdimm namespace)
 *   lost         its device failed or went while it was online: its regions stay
 *                listed, flagged lost, and every access to them gets SIGBUS
 *
 * An online pool claims its address range (request_mem_region()) and maps it
 * write-back for the kernel's table updates; user mappings of its regions map the
 * memory directly (VM_PFNMAP), so a store is persistent once written back from the
 * CPU caches.  The on-device format is in poolcore/cxlt_pool_format.h and
 * Documentation/persistence.rst.  Every table update writes one 256-byte slot and
 * writes it back (arch_wb_cache_pmem(), then a store fence) before the call
 * returns, so a create or destroy that returned survives a crash and one cut short
 * leaves the entry as it was.  A create zeroes the region's space and writes it
 * back before its entry says USED, so a region never shows another's old data.
 *
 * Pools follow the CXL bus: cxlt_rescan() calls cxlt_pools_scan(), which makes a
 * pool for each new pmem region, retries pools that are not online, and drops the
 * pools whose region is gone.  A blade going away (memdev unbind) or a pool's CXL
 * region being unbound makes the pool lost synchronously, from the CXL bus
 * notifier, before the memory goes: that path takes only the pool's list spinlock,
 * its fault gate and the region inode lock, never a lock held across the CXL
 * core's sysfs attributes (scans read those with cxlt_pools.lock held).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kobject.h>
#include <linux/libnvdimm.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>

#include "cxlr.h"
#include "cxltier.h"
#include "devattr.h"
#include "fence.h"
#include "health.h"
#include "pool.h"
#include "pool_int.h"
#include "region.h"
#include "region_mm.h"

static struct {
	/* Serializes scans, format, start and stop; protects @dir, @started, @dying. */
	struct mutex lock;
	/* Protects @list for the lost path, which must not take @lock. */
	spinlock_t list_lock;
	struct list_head list;
	struct kobject *dir;
	bool started;
	bool dying;
} cxlt_pools = {
	.lock = __MUTEX_INITIALIZER(cxlt_pools.lock),
	.list_lock = __SPIN_LOCK_UNLOCKED(cxlt_pools.list_lock),
	.list = LIST_HEAD_INIT(cxlt_pools.list),
};

/* Write @len bytes at @addr back to the persistence domain, and fence. */
void cxlt_pool_persist(void *addr, size_t len)
{
	arch_wb_cache_pmem(addr, len);
	/* Orders the write-backs (CLWB is weakly ordered) before what follows. */
	wmb();
}

static const char *cxlt_pool_name(const struct cxlt_region *r)
{
	return r->pool->name;
}

static bool cxlt_pool_is_shared_region(const struct cxlt_region *r)
{
	return r->pool->shared;
}

static void cxlt_pool_put(struct cxlt_pool *pool)
{
	if (pool)
		kobject_put(&pool->kobj);
}

DEFINE_FREE(cxlt_pool_put, struct cxlt_pool *, cxlt_pool_put(_T))

/* --- mapping ------------------------------------------------------------------------ */

/*
 * Give the pool's address range back.  Also from the lost path, which holds no pool
 * lock: the CXL core may hand the range to a new region right after the old one
 * went, so the claim cannot wait for the next rescan.
 */
static void cxlt_pool_release_claim(struct cxlt_pool *pool)
{
	if (xchg(&pool->res, NULL))
		release_mem_region(pool->phys, pool->size);
}

static void cxlt_pool_unmap(struct cxlt_pool *pool)
{
	if (pool->base)
		memunmap(pool->base);
	pool->base = NULL;
	cxlt_pool_release_claim(pool);
}

/* Claim and map the pool's range; on failure the state and error say why. */
static int cxlt_pool_map(struct cxlt_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	if (pool->base)
		return 0;
	pool->res = request_mem_region(pool->phys, pool->size, "cxltier pool");
	if (!pool->res) {
		pool->state = CXLT_POOL_BUSY;
		snprintf(pool->error, sizeof(pool->error),
			 "its memory is claimed by another driver (an nvdimm namespace?)");
		return -EBUSY;
	}
	pool->base = memremap(pool->phys, pool->size, MEMREMAP_WB);
	if (!pool->base) {
		release_mem_region(pool->phys, pool->size);
		pool->res = NULL;
		pool->state = CXLT_POOL_BAD;
		snprintf(pool->error, sizeof(pool->error), "cannot map its memory");
		return -ENOMEM;
	}
	return 0;
}

/* --- the pool core's device access (poolcore/cxlt_pc.h) ------------------------------ */

/*
 * The core calls these with the pool's @gate held for reading (cxlt_pool_relax()
 * drops it only while it sleeps), so the memory stays mapped; a pool that went
 * meanwhile reads as poison and takes no stores.
 */
static bool cxlt_pool_mem(struct cxlt_pool *pool)
{
	return pool->base && READ_ONCE(pool->state) != CXLT_POOL_LOST;
}

static int cxlt_pool_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct cxlt_pool *pool = ctx;

	/* Poison in the metadata is an error, not a machine check. */
	if (!cxlt_pool_mem(pool) || copy_mc_to_kernel(buf, pool->base + off, len))
		return -EIO;
	return 0;
}

static void cxlt_pool_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct cxlt_pool *pool = ctx;

	if (cxlt_pool_mem(pool))
		memcpy(pool->base + off, buf, len);
}

static void cxlt_pool_zero_range(void *ctx, u64 off, u64 len)
{
	struct cxlt_pool *pool = ctx;

	if (cxlt_pool_mem(pool))
		memset(pool->base + off, 0, len);
}

static void cxlt_pool_wb(void *ctx, u64 off, u64 len)
{
	struct cxlt_pool *pool = ctx;

	if (cxlt_pool_mem(pool))
		arch_wb_cache_pmem(pool->base + off, len);
}

static void cxlt_pool_inval(void *ctx, u64 off, u64 len)
{
	struct cxlt_pool *pool = ctx;
	u64 done, n;

	if (!cxlt_pool_mem(pool))
		return;
	for (done = 0; done < len; done += n) {
		n = min(len - done, CXLT_POOL_UNIT);
		arch_invalidate_pmem(pool->base + off + done, n);
		if (len > CXLT_POOL_UNIT)
			cond_resched();
	}
}

static void cxlt_pool_fence(void *ctx)
{
	/* Orders the write-backs (CLWB is weakly ordered) and the bakery's store-load. */
	mb();
}

static u64 cxlt_pool_now_ms(void *ctx)
{
	/* Counts suspend: a host that slept finds its lease lapsed. */
	return div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

static int cxlt_pool_relax(void *ctx)
{
	struct cxlt_pool *pool = ctx;

	/* The lost path takes the gate for writing: never sleep holding it. */
	up_read(&pool->gate);
	if (fatal_signal_pending(current)) {
		down_read(&pool->gate);
		return -EINTR;
	}
	usleep_range(200, 1000);
	down_read(&pool->gate);
	return cxlt_pool_mem(pool) ? 0 : -ENODEV;
}

static int cxlt_pool_yield(void *ctx)
{
	struct cxlt_pool *pool = ctx;

	/* A fence or a lost pool waits for the gate: not for the whole of a long zeroing. */
	up_read(&pool->gate);
	cond_resched();
	down_read(&pool->gate);
	if (fatal_signal_pending(current))
		return -EINTR;
	return cxlt_pool_mem(pool) ? 0 : -ENODEV;
}

/* The core's leaf lock (ops->lock): taken here, given back by the next op. */
static void cxlt_pool_peer_lock(void *ctx)
	__acquires(&((struct cxlt_pool *)ctx)->peer_lock)
{
	spin_lock(&((struct cxlt_pool *)ctx)->peer_lock);
}

static void cxlt_pool_peer_unlock(void *ctx)
	__releases(&((struct cxlt_pool *)ctx)->peer_lock)
{
	spin_unlock(&((struct cxlt_pool *)ctx)->peer_lock);
}

static const struct cxlt_pc_ops cxlt_pool_pc_ops = {
	.read = cxlt_pool_read,
	.write = cxlt_pool_write,
	.zero = cxlt_pool_zero_range,
	.wb = cxlt_pool_wb,
	.inval = cxlt_pool_inval,
	.fence = cxlt_pool_fence,
	.now_ms = cxlt_pool_now_ms,
	.relax = cxlt_pool_relax,
	.yield = cxlt_pool_yield,
	.lock = cxlt_pool_peer_lock,
	.unlock = cxlt_pool_peer_unlock,
};

/* --- reading the superblock and the table ---------------------------------------- */

/* Serial numbers of the region's devices in position order, for the superblock. */
int cxlt_pool_serials(struct cxlt_pool *pool, __le64 *serials)
{
	u32 i;

	memset(serials, 0, CXLT_POOL_SERIALS * sizeof(*serials));
	for (i = 0; i < pool->nr_blades && i < CXLT_POOL_SERIALS; i++) {
		struct device *mem = bus_find_device_by_name(&cxl_bus_type, NULL,
							     pool->blades[i]);
		u64 serial = 0;
		int rc;

		if (!mem)
			return -ENODEV;
		rc = cxlt_dev_attr_u64(mem, NULL, "serial", &serial);
		put_device(mem);
		if (rc)
			return rc;
		serials[i] = cpu_to_le64(serial);
	}
	return 0;
}

/*
 * Is the region assembled as it was at format?  Other devices, another order or
 * another interleave put other media behind the same offsets.
 */
static int cxlt_pool_check_layout(struct cxlt_pool *pool, const struct cxlt_pool_sb *sb,
				  u32 ways, u32 granularity)
{
	__le64 serials[CXLT_POOL_SERIALS];
	int rc;

	if (le64_to_cpu(sb->pool_size) != pool->size || le32_to_cpu(sb->ways) != ways ||
	    le32_to_cpu(sb->granularity) != granularity) {
		snprintf(pool->error, sizeof(pool->error),
			 "formatted on a %llu-byte %u-way region (granularity %u), this one is %llu bytes, %u-way (%u)",
			 le64_to_cpu(sb->pool_size), le32_to_cpu(sb->ways),
			 le32_to_cpu(sb->granularity), pool->size, ways, granularity);
		return -EINVAL;
	}
	rc = cxlt_pool_serials(pool, serials);
	if (rc) {
		snprintf(pool->error, sizeof(pool->error),
			 "cannot read its devices' serial numbers (%d)", rc);
		return rc;
	}
	if (memcmp(serials, sb->serials, sizeof(serials))) {
		snprintf(pool->error, sizeof(pool->error),
			 "formatted on other devices (serial %#llx first), or in another order",
			 le64_to_cpu(sb->serials[0]));
		return -EINVAL;
	}
	return 0;
}

static bool cxlt_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* The current slot of entry @idx, into @out; false when there is none. */
bool cxlt_pool_read_entry(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_ent *ent,
			  struct cxlt_pool_slot *out)
{
	return cxlt_pc_read_entry(&pool->pc, idx, ent, out);
}

/* --- regions on the pool -------------------------------------------------------------- */

static const struct cxlt_store_ops cxlt_pool_store;

static void cxlt_pool_link(struct cxlt_pool *pool, struct cxlt_region *r)
{
	kobject_get(&pool->kobj);
	r->pool = pool;
	r->store = &cxlt_pool_store;
	r->pool_inc = pool->inc;
	scoped_guard(spinlock, &pool->rlock)
		list_add_tail(&r->pool_link, &pool->regions);
}

/**
 * cxlt_pool_region_free() - a persistent region is being freed: its space is free
 * @r: the region, no longer in the name table, with no file or mapping
 *
 * Context: process context.
 */
static void cxlt_pool_region_free(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;

	scoped_guard(spinlock, &pool->rlock)
		list_del(&r->pool_link);
	kobject_put(&pool->kobj);
}

/**
 * cxlt_pool_new_region() - list the region of a used table entry
 * @pool: the pool, under its lock
 * @idx: the entry
 * @s: its current slot, sane
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: the region (the name table's), or NULL when it is not listed (its space
 * stays allocated: the entry is still USED).
 */
struct cxlt_region *cxlt_pool_new_region(struct cxlt_pool *pool, u32 idx,
					 const struct cxlt_pool_slot *s)
{
	struct cxlt_region *r;
	int rc;

	r = cxlt_region_alloc_persistent(s->name, le64_to_cpu(s->length), le32_to_cpu(s->uid),
					 le32_to_cpu(s->gid), le32_to_cpu(s->mode));
	if (!r)
		return NULL;
	r->pool_entry = idx;
	r->pool_offset = le64_to_cpu(s->offset);
	r->pool_alloc = le64_to_cpu(s->alloc);
	memcpy(r->pool_uuid, s->uuid, sizeof(r->pool_uuid));
	if (pool->shared)
		r->id = cxlt_shared_region_id(pool, idx);
	cxlt_pool_link(pool, r);
	rc = cxlt_region_publish(r, NULL);
	if (rc) {
		pr_warn("pool %s: region %s (entry %u) not listed: %s\n", pool->name, s->name,
			idx, rc == -EEXIST ? "a region of that name (or id) exists" :
			"no free region id");
		cxlt_region_put(r);
		return NULL;
	}
	return r;
}

/* Make the region objects of the table's used entries; under @pool->lock. */
static void cxlt_pool_load_regions(struct cxlt_pool *pool)
{
	u32 i, n = le32_to_cpu(pool->sb.table_entries), bad = 0, skipped = 0, loaded = 0;
	struct cxlt_pool_slot s;

	for (i = 0; i < n; i++) {
		if (!cxlt_pool_read_entry(pool, i, &pool->ents[i], &s)) {
			bad += pool->ents[i].bad;
			continue;
		}
		if (pool->ents[i].state != CXLT_POOL_ENTRY_USED)
			continue;
		if (!cxlt_pc_slot_sane(&pool->pc, &s)) {
			pool->ents[i].bad = true;
			bad++;
			continue;
		}
		if (cxlt_pool_new_region(pool, i, &s))
			loaded++;
		else
			skipped++;
	}
	if (bad) {
		pool->state = CXLT_POOL_DEGRADED;
		snprintf(pool->error, sizeof(pool->error),
			 "%u table entries are unreadable: no create or destroy", bad);
		pr_err("pool %s: %u table entries fail their checksums: its regions work, but nothing is created or destroyed on it\n",
		       pool->name, bad);
	}
	pr_info("pool %s: %u persistent regions%s\n", pool->name, loaded,
		skipped ? " (some not listed, see above)" : "");
}

/* --- attach ------------------------------------------------------------------------ */

/* A shared pool's number is in its regions' ids: no two attached pools share one. */
static int cxlt_shared_pool_no_check(struct cxlt_pool *pool, u32 no)
{
	struct cxlt_pool *p;

	if (!no || no > 127) {
		snprintf(pool->error, sizeof(pool->error), "pool number %u is not 1 to 127", no);
		return -EINVAL;
	}
	int rc = 0;

	spin_lock(&cxlt_pools.list_lock);
	list_for_each_entry(p, &cxlt_pools.list, node) {
		if (p == pool || !p->shared || !p->ents || le32_to_cpu(p->sb.pool_no) != no)
			continue;
		snprintf(pool->error, sizeof(pool->error),
			 "pool number %u is also that of the attached pool %s: their region ids would clash",
			 no, p->name);
		rc = -EEXIST;
		break;
	}
	spin_unlock(&cxlt_pools.list_lock);
	return rc;
}

/* Read the pool's superblock and table; under @pool->lock, mapped. */
static int cxlt_pool_attach(struct cxlt_pool *pool, u32 ways, u32 granularity)
{
	struct cxlt_pool_sb *a __free(kfree) = kzalloc(2 * sizeof(*a), GFP_KERNEL);
	const struct cxlt_pool_sb *b = a + 1, *sb;
	struct cxlt_pool_ent *ents;
	const char *why;
	u32 n;
	int rc;

	if (!a) {
		snprintf(pool->error, sizeof(pool->error), "out of memory");
		return -ENOMEM;
	}
	/* Another host may have written it (multi-host pools): read what the media has. */
	cxlt_pool_inval(pool, 0, CXLT_POOL_TABLE_OFFSET);
	/* Poison in a superblock reads as one that fails its checksum. */
	cxlt_pool_read(pool, CXLT_POOL_SB_A, a, sizeof(*a));
	cxlt_pool_read(pool, CXLT_POOL_SB_B, a + 1, sizeof(*a));
	sb = cxlt_pc_sb_ok(a) ? a : cxlt_pc_sb_ok(b) ? b : NULL;
	if (!sb) {
		if (cxlt_all_zero(a, sizeof(*a)) && cxlt_all_zero(b, sizeof(*b))) {
			pool->state = CXLT_POOL_UNFORMATTED;
			pool->error[0] = '\0';
			return -ENODATA;
		}
		pool->state = CXLT_POOL_BAD;
		snprintf(pool->error, sizeof(pool->error),
			 "no superblock verifies (bad checksum or not a cxltier pool)");
		return -EINVAL;
	}
	if (sb != a)
		pr_warn("pool %s: superblock A fails its checksum; using copy B\n", pool->name);
	pool->state = CXLT_POOL_BAD;
	if (le16_to_cpu(sb->major) != CXLT_POOL_MAJOR) {
		snprintf(pool->error, sizeof(pool->error),
			 "format %u.%u: this module reads format %u.x",
			 le16_to_cpu(sb->major), le16_to_cpu(sb->minor), CXLT_POOL_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (le32_to_cpu(sb->flags) & ~CXLT_POOL_SB_FLAGS) {
		snprintf(pool->error, sizeof(pool->error), "unknown superblock flags %#x",
			 le32_to_cpu(sb->flags));
		return -EPROTONOSUPPORT;
	}
	if (!!(le32_to_cpu(sb->flags) & CXLT_POOL_SB_SHARED) != pool->shared) {
		snprintf(pool->error, sizeof(pool->error), pool->shared ?
			 "a pool of one host, not a shared pool" :
			 "a shared pool: attach it with pool_attach");
		return -EINVAL;
	}
	rc = cxlt_pool_check_layout(pool, sb, ways, granularity);
	if (rc)
		return rc;
	if (pool->shared) {
		rc = cxlt_shared_pool_no_check(pool, le32_to_cpu(sb->pool_no));
		if (rc)
			return rc;
	}
	pool->pc.shared = pool->shared;
	rc = cxlt_pc_layout(&pool->pc, sb, pool->size, &why);
	if (rc) {
		snprintf(pool->error, sizeof(pool->error), "%s", why);
		return rc;
	}
	n = pool->pc.entries;
	/*
	 * A shared pool attached again (it was lost): its heartbeat may still be due
	 * from before, and must not see the state and table change under it.
	 * The heartbeat never takes @lock.
	 */
	if (pool->shared)
		cancel_delayed_work_sync(&pool->hb_work);
	pool->sb = *sb;
	cxlt_pc_inval_table(&pool->pc);
	ents = kvcalloc(n, sizeof(*ents), GFP_KERNEL);
	if (!ents) {
		snprintf(pool->error, sizeof(pool->error), "out of memory");
		return -ENOMEM;
	}
	/* A pool attached before (lost since) still has its old table. */
	kvfree(pool->ents);
	pool->ents = ents;
	pool->state = CXLT_POOL_ONLINE;
	pool->error[0] = '\0';
	if (pool->shared) {
		rc = cxlt_shared_register(pool);
		if (rc) {
			pool->state = CXLT_POOL_BAD;
			kvfree(pool->ents);
			pool->ents = NULL;
			if (rc == -EINTR)
				snprintf(pool->error, sizeof(pool->error), "attach interrupted");
			return rc;
		}
		cxlt_shared_sync(pool, true);
	} else {
		cxlt_pool_load_regions(pool);
	}
	pr_info("pool %s: %s, %pUb, %llu MiB for regions\n", pool->name,
		cxlt_pool_state_names[pool->state], pool->sb.uuid,
		le64_to_cpu(pool->sb.data_size) >> 20);
	return 0;
}

/*
 * Take the CXL region's range and blades; under @pool->lock.  A fenced blade makes
 * the pool bad: -EIO, the error says to restore it, then to @again.
 */
static int cxlt_pool_take_region(struct cxlt_pool *pool, const struct cxlt_cxl_region_info *info,
				 const char *again)
{
	pool->phys = info->start;
	pool->size = info->size;
	scoped_guard(spinlock, &cxlt_pools.list_lock) {
		memcpy(pool->blades, info->blades, sizeof(pool->blades));
		pool->nr_blades = info->nr_blades;
	}
	for (u32 i = 0; i < info->nr_blades; i++) {
		if (cxlt_blade_fenced(info->blades[i])) {
			pool->state = CXLT_POOL_BAD;
			snprintf(pool->error, sizeof(pool->error),
				 "blade %s is fenced: restore it, then %s", info->blades[i], again);
			return -EIO;
		}
	}
	return 0;
}

/* Try to bring a pool online when it is not; under @pool->lock. */
static void cxlt_pool_try(struct cxlt_pool *pool, const struct cxlt_cxl_region_info *info)
{
	enum cxlt_pool_state old = pool->state;

	if (cxlt_pool_usable(pool) || pool->state == CXLT_POOL_LOST)
		return;
	if (info->state != CXLT_CXLR_COMMITTED || !info->size) {
		pool->state = CXLT_POOL_UNCOMMITTED;
		return;
	}
	if (cxlt_pool_take_region(pool, info, "rescan"))
		goto report;
	if (cxlt_pool_map(pool))
		goto report;
	if (!cxlt_pool_attach(pool, info->ways, info->granularity))
		return;
	/* Only an online pool keeps its claim: others are free for other drivers. */
	cxlt_pool_unmap(pool);
report:
	if (pool->state != old && pool->state == CXLT_POOL_BAD)
		pr_err("pool %s: not used: %s\n", pool->name, pool->error);
	else if (pool->state != old && pool->state == CXLT_POOL_BUSY)
		pr_info("pool %s: not used: %s\n", pool->name, pool->error);
}

/* --- table updates --------------------------------------------------------------------- */

/* Write entry @idx's next slot from @s, durably; under @pool->lock.  0 or -ETIMEDOUT. */
int cxlt_pool_write_entry(struct cxlt_pool *pool, u32 idx, struct cxlt_pool_slot *s)
{
	return cxlt_pc_write_entry(&pool->pc, idx, &pool->ents[idx], s);
}

struct cxlt_extent {
	u64 lo;
	u64 hi;
};

static int cxlt_extent_cmp(const void *a, const void *b)
{
	const struct cxlt_extent *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * First fit for @alloc bytes among the used (and dying) entries and the regions
 * that still hold space after their entry was freed (destroyed, still mapped; a
 * shared pool keeps those entries DYING instead); under @pool->lock.  Return: the
 * offset, or 0 when nothing fits.
 */
u64 cxlt_pool_find_space(struct cxlt_pool *pool, u64 alloc, u64 *free_total)
{
	u32 n = le32_to_cpu(pool->sb.table_entries), nr = 0, i;
	u64 lo = le64_to_cpu(pool->sb.data_offset);
	u64 end = lo + le64_to_cpu(pool->sb.data_size), found = 0, used = 0, cur;
	struct cxlt_region *r;
	size_t room;

	scoped_guard(spinlock, &pool->rlock)
		room = n + list_count_nodes(&pool->regions);
	struct cxlt_extent *ext __free(kvfree) = kvmalloc_array(room, sizeof(*ext), GFP_KERNEL);

	if (free_total)
		*free_total = 0;
	if (!ext)
		return 0;
	for (i = 0; i < n; i++)
		if (pool->ents[i].state != CXLT_POOL_ENTRY_FREE && nr < room) {
			ext[nr].lo = pool->ents[i].offset;
			ext[nr++].hi = pool->ents[i].offset + pool->ents[i].alloc;
		}
	scoped_guard(spinlock, &pool->rlock) {
		list_for_each_entry(r, &pool->regions, pool_link)
			if (r->pool_freed && !pool->shared && nr < room)
				ext[nr++] = (struct cxlt_extent){ r->pool_offset,
								  r->pool_offset + r->pool_alloc };
	}
	sort(ext, nr, sizeof(*ext), cxlt_extent_cmp, NULL);
	cur = lo;
	for (i = 0; i <= nr; i++) {
		u64 next = i < nr ? ext[i].lo : end;

		if (next > cur && !found && next - cur >= alloc)
			found = cur;
		if (i < nr) {
			/* Overlaps (an entry and its region) count once. */
			if (ext[i].hi > max(cur, ext[i].lo))
				used += ext[i].hi - max(cur, ext[i].lo);
			cur = max(cur, ext[i].hi);
		}
	}
	if (free_total)
		*free_total = end - lo - min(used, end - lo);
	return found;
}

static struct cxlt_pool *cxlt_pool_pick(const char *name)
{
	struct cxlt_pool *pool, *best = NULL;
	u64 best_free = 0, free;

	lockdep_assert_held(&cxlt_pools.lock);
	list_for_each_entry(pool, &cxlt_pools.list, node) {
		if (name[0]) {
			if (!strcmp(pool->name, name))
				return pool;
			continue;
		}
		/* Shared pools are asked for by name: their regions are every host's. */
		if (pool->shared)
			continue;
		guard(mutex)(&pool->lock);
		if (pool->state != CXLT_POOL_ONLINE)
			continue;
		cxlt_pool_find_space(pool, U64_MAX, &free);
		if (!best || free > best_free) {
			best = pool;
			best_free = free;
		}
	}
	return best;
}

static int cxlt_pool_create_entry(struct cxlt_pool *pool, struct cxlt_region *r, u64 alloc);

/**
 * cxlt_pool_create_region() - give a new persistent region space on a pool, durably
 * @r: the region (cxlt_region_alloc_persistent()), not in the name table yet
 * @name: the pool's name, or "" for the online pool with the most free space
 *
 * Zeroes the space, writes it back, then writes the entry: the region exists on
 * the device when this returns.  cxlt_pool_destroy_region() undoes it.
 *
 * Context: process context; takes cxlt_pools.lock and the pool's lock; sleeps
 * while zeroing.
 * Return: 0; -ENODEV no such pool, or not online; -EROFS the pool is degraded;
 * -ENOSPC no free entry or space; -ENOMEM.
 */
static int cxlt_pool_create_region(struct cxlt_region *r, const char *name)
{
	u64 alloc = round_up(r->size, CXLT_POOL_UNIT);
	struct cxlt_pool *pool;
	int rc;

	scoped_guard(mutex, &cxlt_pools.lock) {
		pool = cxlt_pool_pick(name);
		if (pool)
			kobject_get(&pool->kobj);
	}
	if (!pool) {
		pr_debug("create %s: no %s%s\n", r->name, name[0] ? "pool " : "online pool",
			 name);
		return -ENODEV;
	}
	struct cxlt_pool *pin __free(cxlt_pool_put) = pool;
	guard(mutex)(&pool->lock);
	if (pool->state == CXLT_POOL_DEGRADED) {
		pr_debug("create %s: pool %s is degraded (%s)\n", r->name, pool->name,
			 pool->error);
		return -EROFS;
	}
	if (pool->state != CXLT_POOL_ONLINE) {
		pr_debug("create %s: pool %s is %s\n", r->name, pool->name,
			 cxlt_pool_state_names[pool->state]);
		return -ENODEV;
	}
	if (pool->shared) {
		rc = cxlt_shared_lock(pool);
		if (rc)
			return rc;
		rc = cxlt_pool_create_entry(pool, r, alloc);
		cxlt_shared_unlock(pool);
	} else {
		rc = cxlt_pool_create_entry(pool, r, alloc);
	}
	if (rc)
		return rc;
	/* Linked under the gate: a pool lost meanwhile either marks it or refuses it. */
	scoped_guard(rwsem_read, &pool->gate) {
		if (pool->state == CXLT_POOL_LOST)
			return -ENODEV;
		cxlt_pool_link(pool, r);
	}
	pr_debug("region %s: on pool %s, entry %u, offset %#llx, %llu bytes\n", r->name,
		 pool->name, r->pool_entry, r->pool_offset, alloc);
	return 0;
}

/*
 * Find an entry and space, zero the space, write the entry; under @pool->lock (and
 * a shared pool's lock, its table read again first).
 */
static int cxlt_pool_create_entry(struct cxlt_pool *pool, struct cxlt_region *r, u64 alloc)
{
	struct cxlt_pool_slot s = {};
	u32 i, n;
	u64 off;
	int rc;

	if (pool->shared) {
		struct cxlt_region *other;

		rc = cxlt_shared_sync(pool, true);

		if (rc)
			return rc;
		/* Another host's region of that name is listed here now. */
		other = cxlt_region_get(0, 0, r->name);
		if (other) {
			cxlt_region_put(other);
			pr_debug("create %s: a region of that name exists\n", r->name);
			return -EEXIST;
		}
		if (pool->state != CXLT_POOL_ONLINE)
			return -EROFS;
	}
	n = pool->pc.entries;
	for (i = 0; i < n; i++)
		if (pool->ents[i].state == CXLT_POOL_ENTRY_FREE && !pool->ents[i].bad)
			break;
	if (i == n) {
		pr_debug("create %s: all %u entries of pool %s are in use\n", r->name, n,
			 pool->name);
		return -ENOSPC;
	}
	off = cxlt_pool_find_space(pool, alloc, NULL);
	if (!off) {
		pr_debug("create %s: no %llu contiguous bytes free in pool %s\n", r->name,
			 alloc, pool->name);
		return -ENOSPC;
	}
	s.state = cpu_to_le32(CXLT_POOL_ENTRY_USED);
	s.offset = cpu_to_le64(off);
	s.length = cpu_to_le64(r->size);
	s.alloc = cpu_to_le64(alloc);
	s.uid = cpu_to_le32(from_kuid(&init_user_ns, r->uid));
	s.gid = cpu_to_le32(from_kgid(&init_user_ns, r->gid));
	s.mode = cpu_to_le32(r->mode);
	s.ctime_ns = cpu_to_le64(ktime_get_real_ns());
	uuid_gen((uuid_t *)s.uuid);
	strscpy(s.name, r->name, sizeof(s.name));
	if (pool->shared) {
		s.host = cpu_to_le32(pool->pc.id);
		rc = cxlt_shared_create(pool, i, &s);
		r->id = cxlt_shared_region_id(pool, i);
	} else {
		/* Under the gate, as every core call: ops->yield() drops it between chunks. */
		scoped_guard(rwsem_read, &pool->gate)
			rc = cxlt_pc_zero(&pool->pc, off, alloc);
		if (!rc)
			rc = cxlt_pool_write_entry(pool, i, &s);
	}
	if (rc)
		return rc;
	r->pool_entry = i;
	r->pool_offset = off;
	r->pool_alloc = alloc;
	memcpy(r->pool_uuid, s.uuid, sizeof(r->pool_uuid));
	return 0;
}

/*
 * A shared pool's entry goes DYING (its name gone on every host), then FREE at once
 * if no live host has it open; else the maintenance of whichever host sees it
 * unheld frees it.  Under @pool->lock.
 */
static int cxlt_pool_destroy_shared(struct cxlt_pool *pool, struct cxlt_region *r)
{
	u32 i = r->pool_entry;
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	int rc;

	rc = cxlt_shared_lock(pool);
	if (rc)
		return rc;
	rc = cxlt_shared_sync(pool, true);
	if (rc)
		goto out;
	r->pool_freed = true;
	/* Destroyed by another host meanwhile: nothing left to do. */
	if (!cxlt_pool_read_entry(pool, i, &ent, &s) || ent.state != CXLT_POOL_ENTRY_USED ||
	    memcmp(ent.uuid, r->pool_uuid, sizeof(ent.uuid)))
		goto out;
	s.state = cpu_to_le32(CXLT_POOL_ENTRY_DYING);
	s.host = cpu_to_le32(pool->pc.id);
	rc = cxlt_shared_update(pool, i, &s);
	if (!rc && !cxlt_shared_held(pool, i)) {
		memset(&s, 0, sizeof(s));
		s.state = cpu_to_le32(CXLT_POOL_ENTRY_FREE);
		s.host = cpu_to_le32(pool->pc.id);
		/* DYING is on the device: the region is destroyed even if this fails. */
		cxlt_shared_update(pool, i, &s);
	}
out:
	cxlt_shared_unlock(pool);
	return rc;
}

/**
 * cxlt_pool_destroy_region() - free a persistent region's entry, durably
 * @r: the region, taken out of the name table (or never put in)
 *
 * Its space stays in use until the region is freed (mappings may remain).
 *
 * Context: process context; takes the pool's lock.
 * Return: 0; -ENODEV its pool is lost (nothing was written).
 */
static int cxlt_pool_destroy_region(struct cxlt_region *r)
{
	struct cxlt_pool *pool = r->pool;
	struct cxlt_pool_slot s = {};

	guard(mutex)(&pool->lock);
	if (!cxlt_pool_usable(pool))
		return -ENODEV;
	if (pool->shared)
		return cxlt_pool_destroy_shared(pool, r);
	s.state = cpu_to_le32(CXLT_POOL_ENTRY_FREE);
	r->pool_freed = true;
	return cxlt_pool_write_entry(pool, r->pool_entry, &s);
}

/* --- faults ------------------------------------------------------------------------ */

/**
 * cxlt_pool_fault() - ->fault of a persistent region's mapping
 * @vmf: the fault
 *
 * Maps the page's memory, and the next few pages, directly.  SIGBUS once the pool
 * is lost.
 *
 * Context: the mmap or VMA lock held.
 */
static vm_fault_t cxlt_pool_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cxlt_region *r = vma->vm_private_data;
	struct cxlt_pool *pool = r->pool;
	unsigned long addr = vmf->address, pfn, pg;
	vm_fault_t ret;
	int i;

	if (WARN_ON_ONCE(vmf->pgoff >= r->nr_pages))
		return VM_FAULT_SIGBUS;
	guard(rwsem_read)(&pool->gate);
	if (READ_ONCE(r->lost))
		return VM_FAULT_SIGBUS;
	pfn = PHYS_PFN(pool->phys + r->pool_offset) + vmf->pgoff;
	ret = vmf_insert_pfn(vma, addr, pfn);
	if (ret & VM_FAULT_ERROR)
		return ret;
	for (i = 1, pg = vmf->pgoff + 1; i < CXLT_POOL_PREFAULT && pg < r->nr_pages; i++, pg++) {
		addr += PAGE_SIZE;
		if (addr >= vma->vm_end)
			break;
		if (vmf_insert_pfn(vma, addr, pfn + i) & VM_FAULT_ERROR)
			break;
	}
	return ret;
}

static const struct cxlt_store_ops cxlt_pool_store = {
	.destroy = cxlt_pool_destroy_region,
	.free = cxlt_pool_region_free,
	.pool_name = cxlt_pool_name,
	.shared = cxlt_pool_is_shared_region,
	.fault = cxlt_pool_fault,
};

/**
 * cxlt_pool_create() - create a persistent region (CXLTIER_IOC_CREATE with
 *	CXLTIER_CREATE_PERSISTENT): space on a pool first, then the name
 * @args: the validated arguments
 * @id: the new region's id
 *
 * Context: process context; takes cxlt_regions.lock, cxlt_pools.lock and the
 * pool's lock; sleeps while zeroing.
 * Return: 0; -EFBIG larger than max_region_gb; -EEXIST the name is taken; -ENOSPC
 * no free id, entry or space; -ENODEV no such pool online; -EROFS the pool is
 * degraded; -ENOMEM.
 */
int cxlt_pool_create(const struct cxltier_create *args, u32 *id)
{
	struct cxlt_region *r;
	int rc;

	rc = cxlt_region_check_size(args->name, args->length);
	if (rc)
		return rc;
	r = cxlt_region_alloc_persistent(args->name, args->length,
					 from_kuid(&init_user_ns, current_fsuid()),
					 from_kgid(&init_user_ns, current_fsgid()),
					 args->flags & CXLTIER_CREATE_MODE ? args->mode : 0600);
	if (!r)
		return -ENOMEM;
	if (cxlt_region_name_taken(r->name)) {
		pr_debug("create %s: a region of that name exists\n", r->name);
		kfree(r);
		return -EEXIST;
	}
	rc = cxlt_pool_create_region(r, args->pool);
	if (rc) {
		kfree(r);	/* not on the pool: cxlt_region_put() would unlink it */
		return rc;
	}
	pr_debug("region %s: created on pool %s, %llu bytes, mode %04o\n", r->name,
		 r->pool->name, r->size, r->mode);
	rc = cxlt_region_publish(r, id);
	if (rc) {
		/* Taken meanwhile: the entry goes again (a crash here leaves the region). */
		cxlt_pool_destroy_region(r);
		cxlt_region_put(r);
	}
	return rc;
}

/**
 * cxlt_pool_sync() - write a persistent region's range back to the persistence
 *	domain (fsync(), msync(MS_SYNC))
 * @r: the region
 * @start: first byte
 * @end: last byte (LLONG_MAX: to the end)
 *
 * The kernel's mapping aliases the same physical lines as every user mapping, so
 * writing its lines back writes theirs.
 *
 * Context: process context.
 * Return: 0; -EIO the pool is lost.
 */
int cxlt_pool_sync(struct cxlt_region *r, loff_t start, loff_t end)
{
	struct cxlt_pool *pool = r->pool;
	u64 lo = min_t(u64, start, r->size), hi = min_t(u64, (u64)end + 1, r->size);
	u64 done;

	guard(rwsem_read)(&pool->gate);
	if (READ_ONCE(r->lost) || !pool->base)
		return -EIO;
	for (done = lo; done < hi; done += CXLT_POOL_UNIT) {
		arch_wb_cache_pmem(pool->base + r->pool_offset + done,
				   min(CXLT_POOL_UNIT, hi - done));
		cond_resched();
	}
	/* Orders the write-backs before the caller's next store (see cxlt_pool_persist()). */
	wmb();
	return 0;
}

/* --- lost pools -------------------------------------------------------------------------- */

/*
 * The pool's memory is going: no fault maps it from now on, and every mapping
 * of its regions goes.  Context: process context; sleeps; no pool lock held.
 */
static bool cxlt_pool_set_lost(struct cxlt_pool *pool)
{
	struct cxlt_region *r, **arr;
	unsigned int n = 0, room, i;

	scoped_guard(rwsem_write, &pool->gate) {
		if (!cxlt_pool_usable(pool))
			return false;
		WRITE_ONCE(pool->state, CXLT_POOL_LOST);
		scoped_guard(spinlock, &pool->rlock)
			list_for_each_entry(r, &pool->regions, pool_link)
				WRITE_ONCE(r->lost, true);
	}
	pr_warn("pool %s is lost: its persistent regions are unmapped, access gets SIGBUS\n",
		pool->name);
	cxlt_pool_release_claim(pool);
	/* The regions cannot change while they are lost; take them one by one. */
	for (;;) {
		scoped_guard(spinlock, &pool->rlock)
			room = list_count_nodes(&pool->regions);
		arr = kmalloc_array(max(room, 1U), sizeof(*arr), GFP_KERNEL);
		if (!arr)
			break;
		scoped_guard(spinlock, &pool->rlock) {
			if (list_count_nodes(&pool->regions) > room) {
				n = UINT_MAX;
			} else {
				list_for_each_entry(r, &pool->regions, pool_link)
					if (kref_get_unless_zero(&r->ref))
						arr[n++] = r;
			}
		}
		if (n != UINT_MAX)
			break;
		kfree(arr);
		n = 0;
	}
	for (i = 0; arr && i < n; i++) {
		cxlt_region_zap(arr[i]);
		cxlt_region_put(arr[i]);
	}
	kfree(arr);
	return true;
}

/* Pools on @match, referenced; under nothing. */
static int cxlt_pools_collect(bool (*match)(struct cxlt_pool *pool, const void *arg),
			      const void *arg, struct cxlt_pool **out, int room)
{
	struct cxlt_pool *pool;
	int n = 0;

	spin_lock(&cxlt_pools.list_lock);
	list_for_each_entry(pool, &cxlt_pools.list, node)
		if (n < room && match(pool, arg)) {
			kobject_get(&pool->kobj);
			out[n++] = pool;
		}
	spin_unlock(&cxlt_pools.list_lock);
	return n;
}

static bool cxlt_pool_on_blade(struct cxlt_pool *pool, const void *blade)
{
	u32 i;

	for (i = 0; i < pool->nr_blades; i++)
		if (!strcmp(pool->blades[i], blade))
			return true;
	return false;
}

static bool cxlt_pool_is_shared(struct cxlt_pool *pool, const void *unused)
{
	return pool->shared;
}

static bool cxlt_pool_is_dev(struct cxlt_pool *pool, const void *dev)
{
	return pool->dev == dev;
}

static int cxlt_pools_lost(bool (*match)(struct cxlt_pool *pool, const void *arg),
			   const void *arg, u64 fenced_serial)
{
	struct cxlt_pool *pools[16];
	int n, i, lost = 0;

	n = cxlt_pools_collect(match, arg, pools, ARRAY_SIZE(pools));
	for (i = 0; i < n; i++) {
		/* Told on the device first: the other hosts fence it too. */
		if (fenced_serial && pools[i]->shared)
			cxlt_shared_fenced(pools[i], fenced_serial);
		lost += cxlt_pool_set_lost(pools[i]);
		kobject_put(&pools[i]->kobj);
	}
	return lost;
}

/**
 * cxlt_pools_blade_lost() - a blade is going away or fenced: its pools are lost
 * @blade: the memdev's name
 * @fenced: fenced (the blade is still there): shared pools on it say so on the
 *	device, and their other hosts fence it as well
 *
 * Context: process context, from the CXL bus notifier or a fence; sleeps.
 * Return: the number of pools that were online and are lost now.
 */
int cxlt_pools_blade_lost(const char *blade, bool fenced)
{
	u64 serial = 0;

	if (fenced) {
		struct device *mem = bus_find_device_by_name(&cxl_bus_type, NULL, blade);

		if (mem && cxlt_dev_attr_u64(mem, NULL, "serial", &serial))
			serial = 0;
		put_device(mem);
	}
	return cxlt_pools_lost(cxlt_pool_on_blade, blade, serial);
}

/* A blade's fence (fence.c) takes its pools first. */
static int cxlt_pools_fence_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct cxlt_fence_note *note = data;

	note->taken += cxlt_pools_blade_lost(note->blade, true);
	return NOTIFY_OK;
}

static struct notifier_block cxlt_pools_fence_nb = {
	.notifier_call = cxlt_pools_fence_notify,
};

/**
 * cxlt_pools_region_lost() - a CXL region is being unbound: a pool on it is lost
 * @region: the cxl_region device
 *
 * Context: process context, from the CXL bus notifier; sleeps.
 */
void cxlt_pools_region_lost(struct device *region)
{
	cxlt_pools_lost(cxlt_pool_is_dev, region, 0);
}

/* --- sysfs ------------------------------------------------------------------------------ */

static struct cxlt_pool *to_pool(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_pool, kobj);
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);
	enum cxlt_pool_state st = READ_ONCE(pool->state);

	return sysfs_emit(buf, "%s\n", cxlt_pool_state_names[st]);
}

static ssize_t error_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);

	guard(mutex)(&pool->lock);
	return sysfs_emit(buf, "%s\n", pool->error);
}

/* Size, free bytes and regions of a pool with a table; zeros otherwise. */
static void cxlt_pool_usage(struct cxlt_pool *pool, u64 *size, u64 *free, u32 *regions)
{
	u32 i, n;

	*size = *free = 0;
	*regions = 0;
	guard(mutex)(&pool->lock);
	if (!pool->ents)
		return;
	*size = le64_to_cpu(pool->sb.data_size);
	cxlt_pool_find_space(pool, U64_MAX, free);
	n = le32_to_cpu(pool->sb.table_entries);
	for (i = 0; i < n; i++)
		*regions += pool->ents[i].state == CXLT_POOL_ENTRY_USED;
}

static ssize_t size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 size, free;
	u32 nr;

	cxlt_pool_usage(to_pool(kobj), &size, &free, &nr);
	return sysfs_emit(buf, "%llu\n", size);
}

static ssize_t free_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 size, free;
	u32 nr;

	cxlt_pool_usage(to_pool(kobj), &size, &free, &nr);
	return sysfs_emit(buf, "%llu\n", free);
}

static ssize_t regions_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 size, free;
	u32 nr;

	cxlt_pool_usage(to_pool(kobj), &size, &free, &nr);
	return sysfs_emit(buf, "%u\n", nr);
}

static ssize_t blades_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);
	int len = 0;
	u32 i;

	spin_lock(&cxlt_pools.list_lock);
	for (i = 0; i < pool->nr_blades; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "", pool->blades[i]);
	spin_unlock(&cxlt_pools.list_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t uuid_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);

	guard(mutex)(&pool->lock);
	if (!pool->ents)
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%pUb\n", pool->sb.uuid);
}

static ssize_t format_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);

	guard(mutex)(&pool->lock);
	if (!pool->ents)
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%u.%u\n", le16_to_cpu(pool->sb.major),
			  le16_to_cpu(pool->sb.minor));
}

static ssize_t shared_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_pool(kobj)->shared);
}

static ssize_t host_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_pool *pool = to_pool(kobj);

	guard(mutex)(&pool->lock);
	return sysfs_emit(buf, "%u\n", pool->shared ? pool->pc.id : 0);
}

/* A shared pool's lease and grace, as its device says (0: not a shared pool, or not read). */
static ssize_t lease_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_pool(kobj)->shared ? to_pool(kobj)->pc.lease_ms : 0);
}

static ssize_t grace_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_pool(kobj)->shared ? to_pool(kobj)->pc.grace_ms : 0);
}

static struct kobj_attribute pool_attr_lease_ms = __ATTR_RO(lease_ms);
static struct kobj_attribute pool_attr_grace_ms = __ATTR_RO(grace_ms);
static struct kobj_attribute pool_attr_state = __ATTR_RO(state);
static struct kobj_attribute pool_attr_shared = __ATTR_RO(shared);
static struct kobj_attribute pool_attr_host = __ATTR_RO(host);
static struct kobj_attribute pool_attr_error = __ATTR_RO(error);
static struct kobj_attribute pool_attr_size = __ATTR_RO(size);
static struct kobj_attribute pool_attr_free = __ATTR_RO(free);
static struct kobj_attribute pool_attr_regions = __ATTR_RO(regions);
static struct kobj_attribute pool_attr_blades = __ATTR_RO(blades);
static struct kobj_attribute pool_attr_uuid = __ATTR_RO(uuid);
static struct kobj_attribute pool_attr_format = __ATTR_RO(format);

static struct attribute *cxlt_pool_attrs[] = {
	&pool_attr_state.attr,
	&pool_attr_error.attr,
	&pool_attr_size.attr,
	&pool_attr_free.attr,
	&pool_attr_regions.attr,
	&pool_attr_blades.attr,
	&pool_attr_uuid.attr,
	&pool_attr_format.attr,
	&pool_attr_shared.attr,
	&pool_attr_lease_ms.attr,
	&pool_attr_grace_ms.attr,
	&pool_attr_host.attr,
	NULL,
};

static const struct attribute_group cxlt_pool_group = {
	.attrs = cxlt_pool_attrs,
	.bin_attrs = cxlt_shared_bin_attrs,
};

static const struct attribute_group *cxlt_pool_groups[] = {
	&cxlt_pool_group,
	NULL,
};

static void cxlt_pool_release(struct kobject *kobj)
{
	struct cxlt_pool *pool = to_pool(kobj);

	kvfree(pool->ents);
	kfree(pool->fences);
	put_device(pool->dev);
	kfree(pool);
}

static const struct kobj_type cxlt_pool_ktype = {
	.release = cxlt_pool_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_pool_groups,
};

/* --- format -------------------------------------------------------------------------- */

/* Write a new, empty pool; under @pool->lock, mapped, no region on it. */
static int cxlt_pool_write_format(struct cxlt_pool *pool, u32 ways, u32 granularity)
{
	u64 table_end = CXLT_POOL_FLOG_OFFSET + CXLT_POOL_HOST_SLOTS * CXLT_POOL_FLOG_SIZE;
	u64 data = round_up(table_end, CXLT_POOL_UNIT);
	struct cxlt_pool_sb sb = {};
	int rc;

	if (pool->size < data + CXLT_POOL_UNIT) {
		snprintf(pool->error, sizeof(pool->error), "too small for a pool (%llu bytes)",
			 pool->size);
		return -ENOSPC;
	}
	memcpy(sb.magic, CXLT_POOL_MAGIC, sizeof(sb.magic));
	sb.major = cpu_to_le16(CXLT_POOL_MAJOR);
	sb.minor = cpu_to_le16(CXLT_POOL_MINOR);
	uuid_gen((uuid_t *)sb.uuid);
	sb.pool_size = cpu_to_le64(pool->size);
	sb.ways = cpu_to_le32(ways);
	sb.granularity = cpu_to_le32(granularity);
	rc = cxlt_pool_serials(pool, sb.serials);
	if (rc)
		return rc;
	sb.table_offset = cpu_to_le64(CXLT_POOL_TABLE_OFFSET);
	sb.table_entries = cpu_to_le32(CXLT_POOL_ENTRIES);
	sb.entry_size = cpu_to_le32(CXLT_POOL_ENTRY_SIZE);
	sb.data_offset = cpu_to_le64(data);
	sb.data_size = cpu_to_le64(round_down(pool->size - data, CXLT_POOL_UNIT));
	sb.unit = cpu_to_le32(CXLT_POOL_UNIT);
	sb.host_slots = cpu_to_le32(CXLT_POOL_HOST_SLOTS);
	sb.host_offset = cpu_to_le64(CXLT_POOL_HOST_OFFSET);
	sb.host_size = cpu_to_le32(CXLT_POOL_HOST_SIZE);
	if (pool->shared)
		cxlt_shared_format(pool, &sb);
	sb.format_ns = cpu_to_le64(ktime_get_real_ns());
	sb.crc = cpu_to_le32(cxlt_pc_crc(&sb, offsetof(struct cxlt_pool_sb, crc)));

	/*
	 * Superblocks last: a format cut short leaves either the old superblock over
	 * an empty table (formatting over a pool empties it) or none.
	 */
	memset(pool->base + CXLT_POOL_SB_A, 0, 2 * 4096);
	cxlt_pool_persist(pool->base + CXLT_POOL_SB_A, 2 * 4096);
	memset(pool->base + CXLT_POOL_HOST_OFFSET, 0, table_end - CXLT_POOL_HOST_OFFSET);
	if (pool->shared) {
		struct cxlt_pool_gen *gen = pool->base + CXLT_POOL_HOST_OFFSET;

		gen->magic = cpu_to_le32(CXLT_POOL_GEN_MAGIC);
	}
	cxlt_pool_persist(pool->base + CXLT_POOL_HOST_OFFSET, table_end - CXLT_POOL_HOST_OFFSET);
	pool->pc.table_offset = CXLT_POOL_TABLE_OFFSET;
	pool->pc.entries = CXLT_POOL_ENTRIES;
	pool->pc.shared = pool->shared;
	cxlt_pc_format_table(&pool->pc);
	memcpy(pool->base + CXLT_POOL_SB_A, &sb, sizeof(sb));
	cxlt_pool_persist(pool->base + CXLT_POOL_SB_A, sizeof(sb));
	memcpy(pool->base + CXLT_POOL_SB_B, &sb, sizeof(sb));
	cxlt_pool_persist(pool->base + CXLT_POOL_SB_B, sizeof(sb));
	return 0;
}

static int cxlt_pool_format(const char *name, bool force)
{
	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);
	struct cxlt_pool *pool = NULL, *p;
	u32 nr;
	int rc;

	if (!info)
		return -ENOMEM;
	guard(mutex)(&cxlt_pools.lock);
	list_for_each_entry(p, &cxlt_pools.list, node)
		if (!strcmp(p->name, name))
			pool = p;
	if (!pool) {
		pr_info("pool_format: no CXL pmem region or attached shared pool %s\n", name);
		return -ENODEV;
	}
	rc = cxlt_cxl_region_info(pool->dev, info);
	if (rc)
		return rc;
	guard(mutex)(&pool->lock);
	switch (pool->state) {
	case CXLT_POOL_UNFORMATTED:
		break;
	case CXLT_POOL_BAD:
		if (force)
			break;
		pr_info("pool_format: %s holds data that is not a usable pool (%s); write \"%s force\" to overwrite it\n",
			name, pool->error, name);
		return -EEXIST;
	case CXLT_POOL_ONLINE:
	case CXLT_POOL_DEGRADED:
		if (pool->shared) {
			pr_info("pool_format: %s is a shared pool in use: detach it on every host, attach it here, then format\n",
				name);
			return -EBUSY;
		}
		scoped_guard(spinlock, &pool->rlock)
			nr = list_count_nodes(&pool->regions);
		if (force && !nr)
			break;
		pr_info("pool_format: %s is a pool with %u region%s%s\n", name, nr,
			nr == 1 ? "" : "s",
			nr ? "; destroy them first" : "; write \"<name> force\" to empty it");
		return nr ? -EBUSY : -EEXIST;
	default:
		pr_info("pool_format: %s is %s\n", name, cxlt_pool_state_names[pool->state]);
		return -EBUSY;
	}
	if (info->state != CXLT_CXLR_COMMITTED || !info->size)
		return -EBUSY;
	pool->phys = info->start;
	pool->size = info->size;
	rc = cxlt_pool_map(pool);
	if (rc)
		return rc;
	if (pool->shared) {
		/* Never under a live host: force or not, its regions are in use. */
		rc = cxlt_shared_format_check(pool);
		if (rc) {
			pr_info("pool_format: %s: %s\n", name, pool->error);
			return rc;
		}
	}
	kvfree(pool->ents);
	pool->ents = NULL;
	rc = cxlt_pool_write_format(pool, info->ways, info->granularity);
	if (!rc)
		rc = cxlt_pool_attach(pool, info->ways, info->granularity);
	if (rc) {
		pr_err("pool_format: %s: %s\n", name, pool->error);
		cxlt_pool_unmap(pool);
		return rc;
	}
	pr_info("pool %s: formatted\n", name);
	return 0;
}

static ssize_t pool_format_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	char *copy __free(kfree) = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	char *p, *name, *opt;
	int rc;

	if (!copy)
		return -ENOMEM;
	p = strim(copy);
	name = strsep(&p, " \t");
	opt = p ? strim(p) : NULL;
	if (!name || !*name || strlen(name) >= CXLTIER_POOL_NAME_MAX ||
	    (opt && *opt && strcmp(opt, "force"))) {
		pr_info("pool_format: expected \"regionN\" or \"regionN force\"\n");
		return -EINVAL;
	}
	rc = cxlt_pool_format(name, opt && *opt);
	return rc ? rc : count;
}

static struct kobj_attribute cxlt_pool_format_attr = __ATTR_WO(pool_format);

/* --- shared pools: attach and detach -------------------------------------------------- */

static struct cxlt_pool *cxlt_pool_new(struct device *dev);
static void cxlt_pool_drop(struct cxlt_pool *pool, bool lost);

/* Claim and read an attached shared pool; under its lock.  Return: as pool_attach. */
static int cxlt_pool_attach_shared(struct cxlt_pool *pool, const struct cxlt_cxl_region_info *info)
{
	int rc;

	rc = cxlt_pool_take_region(pool, info, "attach again");
	if (rc)
		return rc;
	if (info->state == CXLT_CXLR_SYSTEM_RAM ||
	    region_intersects(info->start, info->size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pool->state = CXLT_POOL_BUSY;
		snprintf(pool->error, sizeof(pool->error),
			 "its memory is System RAM here: a shared pool is never onlined on any host");
		return -EBUSY;
	}
	rc = cxlt_pool_map(pool);
	if (rc) {
		if (rc == -EBUSY && info->dax_dev[0])
			snprintf(pool->error, sizeof(pool->error),
				 "its memory is claimed (%s bound to device_dax?): unbind it first",
				 info->dax_dev);
		return rc;
	}
	rc = cxlt_pool_attach(pool, info->ways, info->granularity);
	if (rc == -ENODATA)
		return 0;	/* unformatted: listed, pool_format writes it */
	if (rc)
		cxlt_pool_unmap(pool);
	return rc;
}

static int cxlt_pool_attach_cmd(const char *name, u32 id)
{
	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);
	struct cxlt_pool *pool = NULL, *p;
	struct device *dev;
	int rc;

	if (!info)
		return -ENOMEM;
	dev = bus_find_device_by_name(&cxl_bus_type, NULL, name);
	if (!dev || !cxlt_dev_is_type(dev, "cxl_region")) {
		put_device(dev);
		pr_info("pool_attach: no CXL region %s\n", name);
		return -ENODEV;
	}
	rc = cxlt_cxl_region_info(dev, info);
	if (!rc && strcmp(info->mode, "ram")) {
		pr_info("pool_attach: %s is a %s region; shared pools are on RAM regions\n", name,
			info->mode);
		rc = -ENODEV;
	} else if (!rc && (info->state == CXLT_CXLR_UNCOMMITTED || !info->size)) {
		pr_info("pool_attach: %s is not committed\n", name);
		rc = -EBUSY;
	}
	if (rc) {
		put_device(dev);
		return rc;
	}
	guard(mutex)(&cxlt_pools.lock);
	list_for_each_entry(p, &cxlt_pools.list, node)
		if (p->dev == dev)
			pool = p;
	if (pool && (!pool->shared || cxlt_pool_usable(pool))) {
		put_device(dev);
		pr_info("pool_attach: %s is attached already\n", name);
		return -EEXIST;
	}
	if (!pool) {
		pool = cxlt_pool_new(dev);
		put_device(dev);
		if (!pool)
			return -ENOMEM;
		pool->shared = true;
		scoped_guard(spinlock, &cxlt_pools.list_lock)
			list_add_tail(&pool->node, &cxlt_pools.list);
	} else {
		put_device(dev);
	}
	guard(mutex)(&pool->lock);
	pool->pc.id = id;
	rc = cxlt_pool_attach_shared(pool, info);
	if (rc)
		pr_err("pool_attach: %s: %s\n", name, pool->error);
	return rc;
}

static ssize_t pool_attach_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	char *copy __free(kfree) = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	u32 id = cxlt_shared_default_host();
	char *p, *name, *opt;
	int rc;

	if (!copy)
		return -ENOMEM;
	p = strim(copy);
	name = strsep(&p, " \t");
	opt = p ? strim(p) : NULL;
	if (!name || !*name || strlen(name) >= CXLTIER_POOL_NAME_MAX ||
	    (opt && *opt && (strncmp(opt, "host=", 5) || kstrtou32(opt + 5, 10, &id)))) {
		pr_info("pool_attach: expected \"regionN\" or \"regionN host=ID\"\n");
		return -EINVAL;
	}
	if (!id || id >= CXLT_POOL_HOST_SLOTS) {
		pr_info("pool_attach: %s: host id %u: give each host an id from 1 to %u (host=ID, or the module parameter host_id)\n",
			name, id, CXLT_POOL_HOST_SLOTS - 1);
		return -EINVAL;
	}
	rc = cxlt_pool_attach_cmd(name, id);
	return rc ? rc : count;
}

static struct kobj_attribute cxlt_pool_attach_attr = __ATTR_WO(pool_attach);

static int cxlt_pool_detach_cmd(const char *name)
{
	struct cxlt_pool *pool = NULL, *p;
	struct cxlt_region *r;
	bool busy = false;

	guard(mutex)(&cxlt_pools.lock);
	list_for_each_entry(p, &cxlt_pools.list, node)
		if (p->shared && !strcmp(p->name, name))
			pool = p;
	if (!pool) {
		pr_info("pool_detach: no attached shared pool %s\n", name);
		return -ENOENT;
	}
	scoped_guard(spinlock, &pool->rlock)
		list_for_each_entry(r, &pool->regions, pool_link)
			busy |= atomic_read(&r->nr_files) || atomic_read(&r->nr_maps);
	if (busy) {
		pr_info("pool_detach: %s: a region of it is open or mapped here\n", name);
		return -EBUSY;
	}
	cxlt_pool_drop(pool, false);
	return 0;
}

static ssize_t pool_detach_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	char *copy __free(kfree) = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	char *name;
	int rc;

	if (!copy)
		return -ENOMEM;
	name = strim(copy);
	if (!*name || strlen(name) >= CXLTIER_POOL_NAME_MAX || strpbrk(name, " \t")) {
		pr_info("pool_detach: expected \"regionN\"\n");
		return -EINVAL;
	}
	rc = cxlt_pool_detach_cmd(name);
	return rc ? rc : count;
}

static struct kobj_attribute cxlt_pool_detach_attr = __ATTR_WO(pool_detach);

/**
 * cxlt_pools_sync_shared() - read the shared pools' tables again if another host
 *	changed them (a name or id not found here may be a region made elsewhere)
 *
 * Context: process context; takes the pools' locks.
 */
void cxlt_pools_sync_shared(void)
{
	struct cxlt_pool *pools[16];
	int n, i;

	n = cxlt_pools_collect(cxlt_pool_is_shared, NULL, pools, ARRAY_SIZE(pools));
	for (i = 0; i < n; i++) {
		scoped_guard(mutex, &pools[i]->lock)
			if (cxlt_pool_usable(pools[i]))
				cxlt_shared_sync(pools[i], false);
		kobject_put(&pools[i]->kobj);
	}
}

/* --- following the CXL bus ----------------------------------------------------------------- */

/*
 * Drop a pool whose CXL region is gone: its regions leave the name table (their
 * data stays on the device), its mapping and claim go.
 */
static void cxlt_pool_drop(struct cxlt_pool *pool, bool lost)
{
	struct cxlt_region *r;

	lockdep_assert_held(&cxlt_pools.lock);
	/* Before the regions leave the table: a create racing with this then fails. */
	if (lost)
		cxlt_pool_set_lost(pool);
	/* No heartbeat lists a region again below. */
	cxlt_shared_stop(pool);
	scoped_guard(spinlock, &cxlt_pools.list_lock)
		list_del(&pool->node);
	for (;;) {
		r = NULL;
		scoped_guard(spinlock, &pool->rlock) {
			list_for_each_entry(r, &pool->regions, pool_link)
				if (!r->pool_unlisted && kref_get_unless_zero(&r->ref))
					break;
			if (list_entry_is_head(r, &pool->regions, pool_link))
				r = NULL;
			else
				r->pool_unlisted = true;
		}
		if (!r)
			break;
		cxlt_region_unpublish(r);
		cxlt_region_put(r);
	}
	scoped_guard(mutex, &pool->lock) {
		cxlt_shared_detach(pool);
		cxlt_pool_unmap(pool);
	}
	kobject_del(&pool->kobj);
	kobject_put(&pool->kobj);
}

static struct cxlt_pool *cxlt_pool_new(struct device *dev)
{
	struct cxlt_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	int rc;

	if (!pool)
		return NULL;
	pool->pc.ops = &cxlt_pool_pc_ops;
	pool->pc.ctx = pool;
	mutex_init(&pool->lock);
	init_rwsem(&pool->gate);
	cxlt_shared_init(pool);
	spin_lock_init(&pool->rlock);
	INIT_LIST_HEAD(&pool->regions);
	pool->dev = get_device(dev);
	pool->state = CXLT_POOL_UNCOMMITTED;
	strscpy(pool->name, dev_name(dev), sizeof(pool->name));
	kobject_init(&pool->kobj, &cxlt_pool_ktype);
	rc = kobject_add(&pool->kobj, cxlt_pools.dir, "%s", pool->name);
	if (rc) {
		kobject_put(&pool->kobj);
		return NULL;
	}
	if (sysfs_create_link(&pool->kobj, &dev->kobj, "device"))
		pr_warn("pool %s: no device link\n", pool->name);
	return pool;
}

/* The CXL regions of one scan; @more: there were more than @devs holds. */
struct cxlt_pool_scan {
	struct device *devs[64];
	int n;
	bool more;
};

static int cxlt_pool_scan_one(struct device *dev, void *arg)
{
	struct cxlt_pool_scan *scan = arg;

	if (!device_is_registered(dev) || !cxlt_dev_is_type(dev, "cxl_region"))
		return 0;
	if (scan->n < ARRAY_SIZE(scan->devs))
		scan->devs[scan->n++] = get_device(dev);
	else
		scan->more = true;
	return 0;
}

/**
 * cxlt_pools_scan() - bring the pools up to date with the CXL bus
 *
 * Context: process context (rescans); takes cxlt_pools.lock.
 */
void cxlt_pools_scan(void)
{
	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);
	struct cxlt_pool_scan *scan __free(kfree) = kzalloc(sizeof(*scan), GFP_KERNEL);
	struct cxlt_pool *pool, *tmp;
	int i;

	if (!info || !scan)
		return;
	guard(mutex)(&cxlt_pools.lock);
	if (!cxlt_pools.started || cxlt_pools.dying)
		return;
	bus_for_each_dev(&cxl_bus_type, NULL, scan, cxlt_pool_scan_one);
	/* A lost pool goes; its region, if still there, is a new pool below. */
	list_for_each_entry_safe(pool, tmp, &cxlt_pools.list, node) {
		pool->seen = false;
		if (READ_ONCE(pool->state) == CXLT_POOL_LOST)
			cxlt_pool_drop(pool, false);
	}
	for (i = 0; i < scan->n; i++) {
		struct device *dev = scan->devs[i];

		pool = NULL;
		list_for_each_entry(tmp, &cxlt_pools.list, node)
			if (tmp->dev == dev)
				pool = tmp;
		/* Its region is there: a read of its attributes that failed loses nothing. */
		if (cxlt_cxl_region_info(dev, info)) {
			if (pool)
				pool->seen = true;
			continue;
		}
		/* Shared pools are attached and tried by hand (pool_attach), not found. */
		if (pool && pool->shared) {
			pool->seen = true;
			if (cxlt_pool_usable(pool) && info->state != CXLT_CXLR_COMMITTED &&
			    info->state != CXLT_CXLR_DAX) {
				cxlt_pool_drop(pool, true);
			}
			continue;
		}
		if (strcmp(info->mode, "pmem"))
			continue;
		/* In use, but its memory went (decommitted): lost, then a new pool. */
		if (pool && cxlt_pool_usable(pool) && info->state != CXLT_CXLR_COMMITTED) {
			cxlt_pool_drop(pool, true);
			pool = NULL;
		}
		if (!pool) {
			pool = cxlt_pool_new(dev);
			if (!pool)
				continue;
			scoped_guard(spinlock, &cxlt_pools.list_lock)
				list_add_tail(&pool->node, &cxlt_pools.list);
		}
		pool->seen = true;
		scoped_guard(mutex, &pool->lock)
			cxlt_pool_try(pool, info);
	}
	for (i = 0; i < scan->n; i++)
		put_device(scan->devs[i]);
	/* A pool not looked at is not gone: drop only what a whole scan missed. */
	if (scan->more) {
		pr_warn_once("more than %zu CXL regions: pools beyond them are not followed\n",
			     ARRAY_SIZE(scan->devs));
		return;
	}
	list_for_each_entry_safe(pool, tmp, &cxlt_pools.list, node)
		if (!pool->seen)
			cxlt_pool_drop(pool, true);
}

static const struct attribute *const cxlt_pool_cmd_attrs[] = {
	&cxlt_pool_format_attr.attr,
	&cxlt_pool_attach_attr.attr,
	&cxlt_pool_detach_attr.attr,
	NULL,
};

/**
 * cxlt_pools_start() - publish pools/, pool_format, pool_attach and pool_detach, and
 *	attach the pools of this host's pmem
 * @root: /sys/kernel/cxltier
 *
 * Context: module init, after the region table is set up.
 * Return: 0 or a negative errno, with nothing left.
 */
int cxlt_pools_start(struct kobject *root)
{
	int rc;

	cxlt_pools.dir = kobject_create_and_add("pools", root);
	if (!cxlt_pools.dir)
		return -ENOMEM;
	rc = sysfs_create_files(root, cxlt_pool_cmd_attrs);
	if (rc) {
		kobject_put(cxlt_pools.dir);
		return rc;
	}
	scoped_guard(mutex, &cxlt_pools.lock)
		cxlt_pools.started = true;
	cxlt_fence_register_notifier(&cxlt_pools_fence_nb);
	cxlt_pools_scan();
	return 0;
}

/**
 * cxlt_pools_stop() - detach every pool: its regions leave the name table
 * @root: /sys/kernel/cxltier
 *
 * Context: module exit, before the region table goes; no region file is open (they
 * pin the module).
 */
void cxlt_pools_stop(struct kobject *root)
{
	struct cxlt_pool *pool, *tmp;

	cxlt_fence_unregister_notifier(&cxlt_pools_fence_nb);
	guard(mutex)(&cxlt_pools.lock);
	cxlt_pools.dying = true;
	list_for_each_entry_safe(pool, tmp, &cxlt_pools.list, node)
		cxlt_pool_drop(pool, false);
	sysfs_remove_files(root, cxlt_pool_cmd_attrs);
	kobject_put(cxlt_pools.dir);
}
