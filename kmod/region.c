// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: global regions
 *
 * A global region is named memory that the module places on tiers itself and that
 * any permitted process maps by name.  /dev/cxltier (cdev.c) creates, opens,
 * destroys, lists and stats regions; OPEN returns a region file (cdev.c), which is
 * what processes mmap() (region_mm.c).  Nothing about a region is tied to the
 * process that created it.  This file keeps the regions: their id/name table,
 * lifetime and access control, and one function per ioctl verb.
 *
 * Each region has an inode on a small internal filesystem of the module
 * (region_mm.c), and every region file of it is a file on that inode, so the
 * inode's address_space is the region's own: every mapping of the region, in every
 * process, is linked into it and unmap_mapping_range() on it reaches them all (what
 * migration and fencing need).  fstat() on a region file shows its size and owner.
 *
 * Lifetime.  A region is reference counted: the name table holds one reference
 * until DESTROY, each open region file one (and each mapping holds its file), an
 * ioctl one while it works on the region, and the daemon one while a period works
 * on it (it lets go of a region nobody else holds within its observation window).
 * DESTROY frees the name and id at once and the memory when the last reference
 * goes; a page that someone still pins (get_user_pages(), a pipe) lives on,
 * uncharged, until they let go.  Every region, destroyed or not,
 * pins the internal filesystem (simple_pin_fs()), whose superblock holds a
 * reference on the module; so rmmod is refused while any region exists, and an
 * rmmod never drops a region's data: destroy the regions first
 * (cxltierctl region destroy).  Region files also pin the module through their
 * file_operations' owner.
 *
 * Access control is a file's: the owner and group are the creator's fsuid and
 * fsgid, the mode is 0600 unless CREATE sets one, and OPEN checks read and write
 * permission against the caller's fsuid and groups (CAP_DAC_OVERRIDE bypasses it).
 * STAT through /dev/cxltier needs read permission too (or ownership); STAT on a
 * region file is allowed, since opening it was.  Only the owner or CAP_SYS_ADMIN
 * may destroy a region or change its policy.  LIST shows every region's name,
 * id, size and policy, as ls shows a directory.  Who may open /dev/cxltier at all
 * is the device node's mode (cdev.c).  What a region costs is charged to its
 * creator (user.c, and the memory cgroup in region_mm.c).
 *
 * Bad requests are answered with an errno and logged at debug level only (dynamic
 * debug), so that no user can fill the kernel log.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "cxltier.h"
#include "events.h"
#include "health.h"
#include "region.h"
#include "region_mm.h"
#include "tier.h"
#include "user.h"

/* Blades counted per stat call; a pool with more reports the first ones. */
#define CXLT_STAT_MAX_BLADES	64

static unsigned int max_region_gb = 1024;
module_param(max_region_gb, uint, 0644);
MODULE_PARM_DESC(max_region_gb,
		 "Largest region that may be created, in GiB (default 1024); its page table costs a page per 4 MiB touched");

static struct {
	/*
	 * Protects @ids, and with it which regions have which name; taken in
	 * process context only, never while a region folio lock is held.
	 */
	struct mutex lock;
	struct xarray ids;	/* id -> region, for regions not destroyed */
	struct list_head all;	/* every region not freed, destroyed or not */
	u32 nr;			/* regions in @ids */
	u64 gen;		/* changes when a region is made or freed */
	u32 next_id;		/* xa_alloc_cyclic() cursor: ids are reused late */
} cxlt_regions = {
	.lock = __MUTEX_INITIALIZER(cxlt_regions.lock),
	.ids = XARRAY_INIT(cxlt_regions.ids, XA_FLAGS_ALLOC1),
	.all = LIST_HEAD_INIT(cxlt_regions.all),
};

static void cxlt_region_free(struct kref *ref)
{
	struct cxlt_region *r = container_of(ref, struct cxlt_region, ref);

	pr_debug("region %s: freed (id %u)\n", r->name, r->id);
	scoped_guard(mutex, &cxlt_regions.lock) {
		list_del(&r->all);
		cxlt_regions.gen++;
	}
	if (r->pool) {
		/* Its files, which had the inode, are gone. */
		r->store->free(r);
		kfree(r);
		return;
	}
	cxlt_region_table_free(r);
	cxlt_user_uncharge(r->user, r->nr_pages);
	mem_cgroup_put(r->memcg);
	cxlt_region_inode_free(r);
	kfree(r);
}

/**
 * cxlt_region_put() - drop a reference on a region
 * @r: the region, or NULL (nothing to drop)
 *
 * Context: process context, without cxlt_regions.lock; the last reference frees
 * the region's memory (sleeps).
 */
void cxlt_region_put(struct cxlt_region *r)
{
	if (r)
		kref_put(&r->ref, cxlt_region_free);
}

/* Frees regions whose last reference went where freeing may not sleep on locks. */
static struct workqueue_struct *cxlt_put_wq;

static void cxlt_region_put_workfn(struct work_struct *work)
{
	cxlt_region_put(container_of(work, struct cxlt_region, put_work));
}

/**
 * cxlt_region_put_async() - drop a reference on a region, never freeing it here
 * @r: the region
 *
 * For a holder inside memory reclaim (reclaim.c), where freeing the region (which
 * waits for folio locks and takes cxlt_regions.lock) could wait for the task that
 * is reclaiming: the last reference is dropped by a work item instead.
 *
 * Context: any; does not sleep.
 */
void cxlt_region_put_async(struct cxlt_region *r)
{
	if (refcount_dec_not_one(&r->ref.refcount))
		return;
	INIT_WORK(&r->put_work, cxlt_region_put_workfn);
	queue_work(cxlt_put_wq, &r->put_work);
}

static struct cxlt_region *cxlt_region_find(u32 by_id, u32 id, const char *name)
{
	struct cxlt_region *r;
	unsigned long idx;

	lockdep_assert_held(&cxlt_regions.lock);
	if (by_id)
		return xa_load(&cxlt_regions.ids, id);
	xa_for_each(&cxlt_regions.ids, idx, r)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

/**
 * cxlt_region_get() - look a region up and take a reference
 * @by_id: nonzero: by @id, else by @name
 * @id: region id
 * @name: NUL-terminated name
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: the region, referenced (cxlt_region_put()), or NULL when no region that
 * is not destroyed has that id or name.
 */
struct cxlt_region *cxlt_region_get(u32 by_id, u32 id, const char *name)
{
	struct cxlt_region *r;

	guard(mutex)(&cxlt_regions.lock);
	r = cxlt_region_find(by_id, id, name);
	if (r)
		kref_get(&r->ref);
	return r;
}

/* Read and/or write access (MAY_READ, MAY_WRITE) like generic_permission(). */
static int cxlt_region_permission(struct cxlt_region *r, int mask)
{
	umode_t mode = r->mode;

	if (uid_eq(current_fsuid(), r->uid))
		mode >>= 6;
	else if (in_group_p(r->gid))
		mode >>= 3;
	if (!(mask & ~mode & (MAY_READ | MAY_WRITE)))
		return 0;
	if (capable(CAP_DAC_OVERRIDE))
		return 0;
	return -EACCES;
}

static bool cxlt_region_owner(struct cxlt_region *r)
{
	return uid_eq(current_fsuid(), r->uid) || capable(CAP_SYS_ADMIN);
}

/**
 * cxlt_region_may_stat() - may the caller STAT a region it has not opened?
 * @r: the region
 *
 * Return: 0 for its owner or a caller with read permission; -EACCES otherwise.
 */
int cxlt_region_may_stat(struct cxlt_region *r)
{
	if (uid_eq(current_fsuid(), r->uid))
		return 0;
	return cxlt_region_permission(r, MAY_READ);
}

/**
 * cxlt_region_may_write() - may the caller change a region's data or placement?
 * @r: the region
 *
 * Return: 0 with write permission; -EACCES otherwise.
 */
int cxlt_region_may_write(struct cxlt_region *r)
{
	return cxlt_region_permission(r, MAY_WRITE);
}

/**
 * cxlt_regions_snapshot() - every region that has memory, referenced
 * @out: set to a kvmalloc()ed array of the regions (kvfree() it), each referenced
 * @gen: set to the generation of the region table (changes when a region is made
 *	or freed)
 *
 * Destroyed regions are included: their pages live until their last user goes.
 * Persistent regions are not: they have no pages to migrate or fence.
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: the number of regions in *@out, or -ENOMEM.
 */
int cxlt_regions_snapshot(struct cxlt_region ***out, u64 *gen)
{
	struct cxlt_region *r, **arr;
	unsigned int n = 0, room;

	for (;;) {
		scoped_guard(mutex, &cxlt_regions.lock) {
			room = list_count_nodes(&cxlt_regions.all);
		}
		arr = kvmalloc_array(max(room, 1U), sizeof(*arr), GFP_KERNEL);
		if (!arr)
			return -ENOMEM;
		scoped_guard(mutex, &cxlt_regions.lock) {
			if (list_count_nodes(&cxlt_regions.all) > room)
				goto again;
			list_for_each_entry(r, &cxlt_regions.all, all)
				if (!r->pool && kref_get_unless_zero(&r->ref))
					arr[n++] = r;
			*gen = cxlt_regions.gen;
		}
		*out = arr;
		return n;
again:
		kvfree(arr);
	}
}

/**
 * cxlt_regions_try_fast_first() - fast-first regions with memory, if the table is free
 * @arr: set to the regions, each referenced (cxlt_region_put_async())
 * @max: entries of @arr
 * @start: how many of them to pass over first, so that successive calls, each
 *	starting after the last one's regions, go round all of them
 *
 * For memory reclaim (reclaim.c): takes cxlt_regions.lock only if it is free (its
 * holder may be the task that reclaims) and allocates nothing.
 *
 * Context: process context; does not sleep.
 * Return: the number of regions in @arr; 0 also when the lock was taken.
 */
int cxlt_regions_try_fast_first(struct cxlt_region **arr, int max, unsigned int start)
{
	struct cxlt_region *r;
	unsigned int i = 0;
	int n = 0;
	bool fast;

	if (!mutex_trylock(&cxlt_regions.lock))
		return 0;
	list_for_each_entry(r, &cxlt_regions.all, all) {
		if (n == max)
			break;
		if (r->pool)
			continue;
		scoped_guard(spinlock, &r->lock)
			fast = r->policy == CXLTIER_POLICY_FAST_FIRST;
		if (fast && i++ >= start && kref_get_unless_zero(&r->ref))
			arr[n++] = r;
	}
	mutex_unlock(&cxlt_regions.lock);
	return n;
}

/**
 * cxlt_region_hint() - record a hint for a range of a region (CXLTIER_IOC_HINT)
 * @r: the region, referenced, write access checked
 * @args: the validated arguments (range within the region)
 *
 * Context: process context; may allocate page-table chunks.
 * Return: 0; -ENOMEM (the hint is then applied to a prefix of the range).
 */
int cxlt_region_hint(struct cxlt_region *r, const struct cxltier_hint *args)
{
	unsigned long pg = args->offset >> PAGE_SHIFT;
	unsigned long end = pg + (args->length >> PAGE_SHIFT);
	struct cxlt_rpage *rp;

	for (; pg < end; pg++) {
		rp = cxlt_region_entry(r, pg, args->hint != CXLTIER_HINT_NONE);
		if (!rp) {
			if (args->hint != CXLTIER_HINT_NONE)
				return -ENOMEM;
			/* No chunk: nothing to clear in it. */
			pg = round_up(pg + 1, CXLT_RP_PER_CHUNK) - 1;
			continue;
		}
		cxlt_rp_update(rp, CXLT_RP_HINT_MASK,
			       (unsigned long)args->hint << CXLT_RP_HINT_SHIFT);
		if (!(pg % CXLT_RP_PER_CHUNK))
			cond_resched();
	}
	return 0;
}

/*
 * Make way for a fresh page at @pg: zap what memory_failure() left in the page
 * tables (hwpoison entries, which only an even_cows zap removes) and drop a
 * poisoned folio that stayed in the page cache.  False when a folio stays.
 *
 * The folio is dropped only if, under its lock, the entry still says FENCED: a
 * concurrent REPLACE may have made the page EMPTY and a fault may have inserted a
 * live folio since we looked (EMPTY -> PRESENT is set before the inserting fault
 * unlocks it), and that folio is not ours to drop.
 */
static bool cxlt_replace_drop_folio(struct cxlt_region *r, struct cxlt_rpage *rp,
				    unsigned long pg)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct folio *folio;
	bool gone = false;

	folio = filemap_lock_folio(mapping, pg);
	if (IS_ERR(folio)) {
		/* No folio: hwpoison entries only; harmless for a live page too. */
		unmap_mapping_pages(mapping, pg, 1, true);
		return true;
	}
	if (folio->mapping == mapping && cxlt_rp_state(rp) == CXLT_RP_FENCED) {
		unmap_mapping_pages(mapping, pg, 1, true);
		gone = !generic_error_remove_folio(mapping, folio);
	}
	folio_unlock(folio);
	folio_put(folio);
	return gone;
}

/**
 * cxlt_region_replace() - fresh pages for the fenced pages of a range
 *	(CXLTIER_IOC_REPLACE)
 * @r: the region, referenced, write access checked
 * @args: the validated arguments (range within the region); @replaced is set
 *
 * FENCED -> EMPTY: the next touch allocates a zeroed page on a healthy node, as a
 * first touch does.  The fault path reads the state without the folio lock; the
 * change is one cmpxchg from FENCED, so two replacements never count a page twice.
 *
 * Context: process context.
 * Return: 0.
 */
int cxlt_region_replace(struct cxlt_region *r, struct cxltier_replace *args)
{
	unsigned long pg = args->offset >> PAGE_SHIFT;
	unsigned long end = pg + (args->length >> PAGE_SHIFT);
	struct cxlt_rpage *rp;
	u32 old;
	u64 n = 0;

	for (; pg < end; pg++) {
		if (!(pg % CXLT_RP_PER_CHUNK))
			cond_resched();
		rp = cxlt_region_entry(r, pg, false);
		if (!rp) {
			pg = round_up(pg + 1, CXLT_RP_PER_CHUNK) - 1;
			continue;
		}
		old = READ_ONCE(rp->bits);
		if (cxlt_rp_state(rp) != CXLT_RP_FENCED || !cxlt_replace_drop_folio(r, rp, pg))
			continue;
		do {
			if (((old & CXLT_RP_STATE_MASK) >> CXLT_RP_STATE_SHIFT) != CXLT_RP_FENCED)
				break;
		} while (!try_cmpxchg(&rp->bits, &old,
				      old & ~(CXLT_RP_STATE_MASK | CXLT_RP_NODE_MASK |
					      CXLT_RP_ARMED | CXLT_RP_ACCESSED)));
		if (((old & CXLT_RP_STATE_MASK) >> CXLT_RP_STATE_SHIFT) != CXLT_RP_FENCED)
			continue;
		atomic_long_dec(&r->fenced);
		n++;
	}
	args->replaced = n;
	if (n) {
		struct cxlt_event_args ev = {
			.type = CXLTIER_EVENT_REPLACE, .cause = CXLTIER_CAUSE_ADMIN,
			.region = r->name, .region_id = r->id, .offset = args->offset,
			.pages = n,
		};

		cxlt_event_log(&ev);
	}
	return 0;
}

/**
 * cxlt_region_fenced() - why the page at a byte of a region is fenced
 *	(CXLTIER_IOC_FENCED)
 * @r: the region, referenced, read access checked
 * @args: the validated arguments (@offset within the region); filled in
 *
 * Context: any; takes spinlocks.
 */
void cxlt_region_fenced(struct cxlt_region *r, struct cxltier_fenced *args)
{
	struct cxlt_rpage *rp;
	struct cxlt_health *h;

	/* A persistent region is fenced whole when its pool is lost. */
	if (r->pool) {
		if (READ_ONCE(r->lost)) {
			args->fenced = 1;
			args->cause = CXLTIER_CAUSE_UNBIND;
		}
		return;
	}
	rp = cxlt_region_entry(r, args->offset >> PAGE_SHIFT, false);
	if (!rp || cxlt_rp_state(rp) != CXLT_RP_FENCED)
		return;
	args->fenced = 1;
	/* A page fenced alone (poison) has its own record; else its blade was fenced. */
	if (cxlt_event_find_page(r->id, args->offset & PAGE_MASK, args->blade,
				 sizeof(args->blade), &args->time_ns, &args->cause))
		return;
	if (cxlt_node_fenced_blade(cxlt_rp_node(rp), args->blade, sizeof(args->blade)))
		return;
	h = cxlt_health_find(args->blade, false);
	if (h) {
		args->time_ns = h->time_ns;
		args->cause = h->cause;
	}
}

/**
 * cxlt_region_pages() - where each page of a range is (CXLTIER_IOC_PAGES)
 * @r: the region, referenced, read access checked
 * @args: the validated arguments; @count is cut at the region's end
 *
 * Context: process context.
 * Return: 0; -EFAULT; -ENOMEM.
 */
int cxlt_region_pages(struct cxlt_region *r, struct cxltier_pages *args)
{
	enum { CXLT_PAGES_BATCH = PAGE_SIZE / sizeof(s32) };
	s32 *buf __free(kfree) = kmalloc(PAGE_SIZE, GFP_KERNEL);
	unsigned long first = args->offset >> PAGE_SHIFT, i;
	s32 __user *out = u64_to_user_ptr(args->nodes);
	struct cxlt_rpage *rp;
	u32 count, n;

	if (!buf)
		return -ENOMEM;
	count = min_t(unsigned long, args->count, r->nr_pages - first);
	for (i = 0; i < count; i += n) {
		n = min_t(u32, count - i, CXLT_PAGES_BATCH);
		for (u32 k = 0; k < n; k++) {
			rp = cxlt_region_entry(r, first + i + k, false);
			switch (rp ? cxlt_rp_state(rp) : CXLT_RP_EMPTY) {
			case CXLT_RP_PRESENT:
				buf[k] = cxlt_rp_node(rp);
				break;
			case CXLT_RP_FENCED:
				buf[k] = CXLTIER_PAGE_FENCED;
				break;
			default:
				buf[k] = CXLTIER_PAGE_NONE;
				break;
			}
		}
		if (copy_to_user(out + i, buf, n * sizeof(*buf)))
			return -EFAULT;
		cond_resched();
	}
	args->count = count;
	return 0;
}

static void cxlt_nodes_from_user(nodemask_t *nodes, const __u64 *words)
{
	int nid;

	/* The caller checked that no bit at or above nr_node_ids is set. */
	nodes_clear(*nodes);
	for (nid = 0; nid < nr_node_ids; nid++)
		if (words[nid / 64] & BIT_ULL(nid % 64))
			node_set(nid, *nodes);
}

static void cxlt_nodes_to_user(__u64 *words, const nodemask_t *nodes)
{
	int nid;

	memset(words, 0, CXLTIER_NODE_WORDS * sizeof(*words));
	for_each_node_mask(nid, *nodes)
		if (nid < CXLTIER_NODE_WORDS * 64)
			words[nid / 64] |= BIT_ULL(nid % 64);
}

/*
 * Put @r in the name table, under a fresh id.  From then on @r belongs to the
 * table: a DESTROY by name or by the (cyclic, predictable) id may free it as soon
 * as the lock is dropped.  Returns 0, -EEXIST (name taken), -ENOSPC (no free id),
 * -ENODEV (a persistent region whose pool was lost meanwhile) or -ENOMEM.
 */
static int cxlt_region_insert(struct cxlt_region *r, u32 *id)
{
	int rc;

	guard(mutex)(&cxlt_regions.lock);
	/* Pairs with the pool's lost path, which sets @lost before it unpublishes. */
	if (READ_ONCE(r->lost))
		return -ENODEV;
	if (cxlt_region_find(0, 0, r->name)) {
		pr_debug("create %s: a region of that name exists\n", r->name);
		return -EEXIST;
	}
	if (r->id) {
		/* A shared pool's region: the id every host gives it. */
		rc = xa_insert(&cxlt_regions.ids, r->id, r, GFP_KERNEL);
		if (rc == -EBUSY)
			rc = -EEXIST;
	} else {
		rc = xa_alloc_cyclic(&cxlt_regions.ids, &r->id, r,
				     XA_LIMIT(1, CXLTIER_REGION_ID_SHARED - 1),
				     &cxlt_regions.next_id, GFP_KERNEL);
		if (rc == -EBUSY) {
			rc = -ENOSPC;
			pr_debug("create %s: all %u region ids are in use\n", r->name,
				 CXLTIER_REGION_ID_SHARED - 1);
		}
	}
	if (rc < 0)
		return rc;
	list_add_tail(&r->all, &cxlt_regions.all);
	cxlt_regions.gen++;
	cxlt_regions.nr++;
	*id = r->id;
	return 0;
}

/**
 * cxlt_region_alloc_persistent() - a persistent region object, not in the table
 * @name: its name
 * @size: bytes, a multiple of the page size
 * @uid: owner (initial user namespace)
 * @gid: group
 * @mode: permission bits
 *
 * The pool (pool.c) gives it space, then publishes it (cxlt_region_publish()).
 * cxlt_region_put() frees it.
 *
 * Context: process context.
 * Return: the region, with one reference, or NULL.
 */
struct cxlt_region *cxlt_region_alloc_persistent(const char *name, u64 size, u32 uid,
						 u32 gid, u32 mode)
{
	struct cxlt_region *r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (!r)
		return NULL;
	kref_init(&r->ref);
	spin_lock_init(&r->lock);
	INIT_LIST_HEAD(&r->all);
	INIT_LIST_HEAD(&r->pool_link);
	xa_init(&r->chunks);
	strscpy(r->name, name, sizeof(r->name));
	r->size = size;
	r->nr_pages = size >> PAGE_SHIFT;
	r->uid = make_kuid(&init_user_ns, uid);
	r->gid = make_kgid(&init_user_ns, gid);
	r->mode = mode & 0777;
	r->policy = CXLTIER_POLICY_SLOW_ONLY;
	atomic_long_set(&r->resident, r->nr_pages);
	return r;
}

/**
 * cxlt_region_publish() - list a persistent region, new or found on a pool
 * @r: the region, with space on its pool; the table takes over the caller's
 *	reference on success
 * @id: its id (NULL: not wanted)
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: 0; -EEXIST; -ENOSPC; -ENODEV; -ENOMEM (see cxlt_region_insert()).
 */
int cxlt_region_publish(struct cxlt_region *r, u32 *id)
{
	u32 dummy;

	return cxlt_region_insert(r, id ?: &dummy);
}

/**
 * cxlt_region_unpublish() - take a persistent region of a dropped pool out of the
 *	name table (its data stays on the device)
 * @r: the region, referenced by the caller
 *
 * Context: process context; takes cxlt_regions.lock.
 */
void cxlt_region_unpublish(struct cxlt_region *r)
{
	scoped_guard(mutex, &cxlt_regions.lock) {
		if (xa_load(&cxlt_regions.ids, r->id) != r)
			return;
		xa_erase(&cxlt_regions.ids, r->id);
		cxlt_regions.nr--;
		scoped_guard(spinlock, &r->lock)
			r->destroyed = true;
	}
	cxlt_region_put(r);	/* the name table's reference */
}

/**
 * cxlt_region_name_taken() - is a region of this name listed?
 * @name: the name
 *
 * For a persistent region's create (pool.c): a taken name fails before anything
 * is written to the pool.
 *
 * Context: process context; takes cxlt_regions.lock.
 */
bool cxlt_region_name_taken(const char *name)
{
	guard(mutex)(&cxlt_regions.lock);
	return cxlt_region_find(0, 0, name);
}

/**
 * cxlt_region_check_size() - a new region's length against max_region_gb
 * @name: its name (for the debug message)
 * @length: its length
 *
 * Return: 0; -EFBIG.
 */
int cxlt_region_check_size(const char *name, u64 length)
{
	if (length <= (u64)READ_ONCE(max_region_gb) << 30)
		return 0;
	pr_debug("create %s: %llu bytes is more than max_region_gb=%u\n", name, length,
		 READ_ONCE(max_region_gb));
	return -EFBIG;
}

/**
 * cxlt_region_create() - create a volatile region (CXLTIER_IOC_CREATE; a
 *	persistent one is pool.c's, cxlt_pool_create())
 * @args: the validated arguments
 * @id: the new region's id
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: 0; -EFBIG larger than max_region_gb; -EDQUOT over the creator's per-user
 * limits (user.c); -EEXIST the name is taken; -ENOSPC no free id; -ENOMEM.
 */
int cxlt_region_create(const struct cxltier_create *args, u32 *id)
{
	struct cxlt_region *r;
	int rc;

	rc = cxlt_region_check_size(args->name, args->length);
	if (rc)
		return rc;
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	kref_init(&r->ref);
	spin_lock_init(&r->lock);
	INIT_LIST_HEAD(&r->pool_link);
	strscpy(r->name, args->name, sizeof(r->name));
	r->size = args->length;
	r->nr_pages = args->length >> PAGE_SHIFT;
	r->uid = current_fsuid();
	r->gid = current_fsgid();
	r->mode = args->flags & CXLTIER_CREATE_MODE ? args->mode : 0600;
	r->policy = args->policy;
	cxlt_nodes_from_user(&r->nodes, args->nodes);
	atomic_long_set(&r->resident, 0);
	atomic_long_set(&r->fenced, 0);

	rc = cxlt_user_charge(r->name, r->nr_pages, &r->user, &r->exempt_mem,
			      &r->exempt_res);
	if (rc)
		goto err_free;
	r->memcg = get_mem_cgroup_from_mm(current->mm);
	rc = cxlt_region_table_alloc(r);
	if (rc)
		goto err_uncharge;
	rc = cxlt_region_inode_alloc(r);
	if (rc)
		goto err_table;
	rc = cxlt_region_insert(r, id);
	if (rc)
		goto err_inode;

	pr_debug("region %s: created, id %u, %llu bytes, %s, mode %04o\n", args->name, *id,
		 args->length, cxlt_policy_name(args->policy),
		 args->flags & CXLTIER_CREATE_MODE ? args->mode : 0600);
	return 0;

err_inode:
	cxlt_region_inode_free(r);
err_table:
	cxlt_region_table_free(r);
err_uncharge:
	mem_cgroup_put(r->memcg);
	cxlt_user_uncharge(r->user, r->nr_pages);
err_free:
	kfree(r);
	return rc;
}

/**
 * cxlt_region_open() - look up a region for OPEN and check access (CXLTIER_IOC_OPEN)
 * @args: the validated arguments; @id, @name and @length are filled in
 * @rp: the region, referenced, for the caller's region file (cdev.c)
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: 0; -ENOENT no such region; -EACCES permission denied.
 */
int cxlt_region_open(struct cxltier_open *args, struct cxlt_region **rp)
{
	int mask = 0, rc;

	struct cxlt_region *r __free(cxlt_region_put) =
		cxlt_region_get(args->flags & CXLTIER_BY_ID, args->id, args->name);
	if (!r)
		return -ENOENT;
	if (args->flags & CXLTIER_OPEN_READ)
		mask |= MAY_READ;
	if (args->flags & CXLTIER_OPEN_WRITE)
		mask |= MAY_WRITE;
	rc = cxlt_region_permission(r, mask);
	if (rc) {
		pr_debug("open %s: %s access denied to uid %u by mode %04o\n", r->name,
			 mask == MAY_READ ? "read" : mask == MAY_WRITE ? "write" : "read-write",
			 from_kuid(&init_user_ns, current_fsuid()), r->mode);
		return rc;
	}
	args->id = r->id;
	args->length = r->size;
	strscpy(args->name, r->name, sizeof(args->name));
	*rp = no_free_ptr(r);
	return 0;
}

/**
 * cxlt_region_destroy() - destroy a region (CXLTIER_IOC_DESTROY)
 * @args: the validated arguments
 *
 * The name and id go at once; the memory when the last file and mapping go.
 *
 * Context: process context; takes cxlt_regions.lock; may free the region's memory.
 * Return: 0; -ENOENT no such region; -EPERM not the owner; -ETIMEDOUT (or -EIO)
 * a persistent region's entry was not freed: it is not destroyed, and is listed
 * again when its shared pool attaches again.
 */
int cxlt_region_destroy(const struct cxltier_destroy *args)
{
	struct cxlt_region *r;
	int rc;

	scoped_guard(mutex, &cxlt_regions.lock) {
		r = cxlt_region_find(args->flags & CXLTIER_BY_ID, args->id, args->name);
		if (!r)
			return -ENOENT;
		if (!cxlt_region_owner(r)) {
			/* Under the lock: @r is not ours, and may be freed once it drops. */
			pr_debug("destroy %s: only its owner (uid %u) or CAP_SYS_ADMIN may\n",
				 args->name, from_kuid(&init_user_ns, r->uid));
			return -EPERM;
		}
		xa_erase(&cxlt_regions.ids, r->id);
		cxlt_regions.nr--;
		scoped_guard(spinlock, &r->lock)
			r->destroyed = true;
	}

	/* The table's reference keeps @r until the put below. */
	rc = r->pool ? r->store->destroy(r) : 0;
	if (rc == -ENODEV) {
		pr_info("region %s: its pool %s is lost; it is forgotten here, and comes back with its pool\n",
			r->name, r->store->pool_name(r));
	} else if (rc) {
		/*
		 * Nothing was freed on the device (a shared pool's lease lapsed: the
		 * pool attaches again and lists the region again): not destroyed.
		 */
		cxlt_region_put(r);
		return rc;
	}
	pr_debug("region %s: destroyed, %d files and %d mappings left\n", r->name,
		 atomic_read(&r->nr_files), atomic_read(&r->nr_maps));
	cxlt_region_put(r);	/* the name table's reference */
	return 0;
}

/**
 * cxlt_region_list() - list the regions (CXLTIER_IOC_LIST)
 * @args: the validated arguments; @count is set to the number of regions
 *
 * Context: process context; takes cxlt_regions.lock.
 * Return: 0; -EFAULT; -ENOMEM.
 */
int cxlt_region_list(struct cxltier_list *args)
{
	struct cxltier_list_entry *out __free(kvfree) = NULL;
	struct cxlt_region *r;
	unsigned long idx;
	u32 room, n = 0;
	int rc = 0;

	/*
	 * Room for what exists, not for what the caller offers: a caller's count is
	 * no reason to allocate.  Regions created meanwhile are counted, not listed.
	 */
	scoped_guard(mutex, &cxlt_regions.lock)
		room = min(args->count, cxlt_regions.nr);
	if (room) {
		out = kvcalloc(room, sizeof(*out), GFP_KERNEL_ACCOUNT);
		if (!out)
			return -ENOMEM;
	}
	scoped_guard(mutex, &cxlt_regions.lock) {
		xa_for_each(&cxlt_regions.ids, idx, r) {
			if (n < room) {
				out[n].id = r->id;
				out[n].policy = READ_ONCE(r->policy);
				out[n].length = r->size;
				strscpy(out[n].name, r->name, sizeof(out[n].name));
			}
			n++;
		}
	}

	if (copy_to_user(u64_to_user_ptr(args->entries), out,
			 array_size(min(n, room), sizeof(*out))))
		rc = -EFAULT;
	args->count = n;
	return rc;
}

/**
 * cxlt_region_stat() - describe a region (CXLTIER_IOC_STAT)
 * @r: the region, referenced by the caller
 * @args: the validated arguments; every (out) field is filled in, and the arrays
 *	at @node_pages and @blade_pages as far as there is room
 *
 * Context: process context; walks the region's page table.
 * Return: 0; -EFAULT; -ENOMEM.
 */
int cxlt_region_stat(struct cxlt_region *r, struct cxltier_stat *args)
{
	u64 *node_pages __free(kfree) = kcalloc(nr_node_ids, sizeof(*node_pages), GFP_KERNEL);
	struct cxltier_blade_pages *blades __free(kfree) =
		kcalloc(CXLT_STAT_MAX_BLADES, sizeof(*blades), GFP_KERNEL);
	struct cxlt_blade_name *names __free(kfree) =
		kcalloc(CXLT_MAX_WAYS, sizeof(*names), GFP_KERNEL);
	struct cxltier_node_pages *nodes __free(kfree) =
		kcalloc(nr_node_ids, sizeof(*nodes), GFP_KERNEL);
	struct cxlt_census c = {
		.node_pages = node_pages,
		.blades = blades,
		.max_blades = CXLT_STAT_MAX_BLADES,
		.names = names,
	};
	u32 n = 0, room;
	nodemask_t allowed;
	int nid;

	if (!node_pages || !blades || !names || !nodes)
		return -ENOMEM;
	/* A persistent region has no pages to count. */
	if (!r->pool)
		cxlt_region_census(r, &c);

	args->id = r->id;
	strscpy(args->name, r->name, sizeof(args->name));
	args->length = r->size;
	scoped_guard(spinlock, &r->lock) {
		args->policy = r->policy;
		allowed = r->nodes;
		args->region_flags = r->destroyed ? CXLTIER_REGION_DESTROYED : 0;
	}
	if (r->pool) {
		args->region_flags |= CXLTIER_REGION_PERSISTENT;
		if (r->store->shared(r))
			args->region_flags |= CXLTIER_REGION_SHARED;
		if (READ_ONCE(r->lost))
			args->region_flags |= CXLTIER_REGION_LOST;
		strscpy(args->pool, r->store->pool_name(r), sizeof(args->pool));
		args->pool_offset = r->pool_offset;
	}
	cxlt_nodes_to_user(args->nodes, &allowed);
	args->mode = r->mode;
	args->uid = from_kuid_munged(current_user_ns(), r->uid);
	args->gid = from_kgid_munged(current_user_ns(), r->gid);
	args->resident = atomic_long_read(&r->resident);
	args->fenced = r->pool ? (READ_ONCE(r->lost) ? r->nr_pages : 0) :
				 atomic_long_read(&r->fenced);
	args->fast = c.fast;
	args->nr_maps = atomic_read(&r->nr_maps);
	args->nr_files = atomic_read(&r->nr_files);
	args->promoted = atomic64_read(&r->mig.promoted);
	args->demoted = atomic64_read(&r->mig.demoted);
	args->pingpong = atomic64_read(&r->mig.pingpong);
	args->skipped_pinned = atomic64_read(&r->mig.skipped_pinned);
	args->failed = atomic64_read(&r->mig.failed);
	args->moved_bytes = atomic64_read(&r->mig.moved_bytes);
	args->sampled = atomic64_read(&r->mig.sampled);
	args->accessed = atomic64_read(&r->mig.accessed);
	args->hinted = c.hinted;

	for (nid = 0; nid < nr_node_ids; nid++) {
		if (!c.node_pages[nid])
			continue;
		nodes[n].node = nid;
		nodes[n].pages = c.node_pages[nid];
		n++;
	}
	room = min(args->node_count, n);
	if (copy_to_user(u64_to_user_ptr(args->node_pages), nodes,
			 array_size(room, sizeof(*nodes))))
		return -EFAULT;
	args->node_count = n;
	room = min_t(u32, args->blade_count, c.nr_blades);
	if (copy_to_user(u64_to_user_ptr(args->blade_pages), c.blades,
			 array_size(room, sizeof(*c.blades))))
		return -EFAULT;
	args->blade_count = c.nr_blades;
	return 0;
}

/**
 * cxlt_region_set_policy() - change where new pages go (CXLTIER_IOC_SET_POLICY)
 * @args: the validated arguments
 *
 * Context: process context.
 * Return: 0; -ENOENT no such region; -EPERM not the owner.
 */
int cxlt_region_set_policy(const struct cxltier_set_policy *args)
{
	nodemask_t nodes;

	struct cxlt_region *r __free(cxlt_region_put) =
		cxlt_region_get(args->flags & CXLTIER_BY_ID, args->id, args->name);
	if (!r)
		return -ENOENT;
	if (!cxlt_region_owner(r)) {
		pr_debug("set policy %s: only its owner (uid %u) or CAP_SYS_ADMIN may\n",
			 r->name, from_kuid(&init_user_ns, r->uid));
		return -EPERM;
	}
	if (r->pool) {
		pr_debug("set policy %s: a persistent region has no placement policy\n",
			 r->name);
		return -EINVAL;
	}
	cxlt_nodes_from_user(&nodes, args->nodes);
	scoped_guard(spinlock, &r->lock) {
		r->policy = args->policy;
		r->nodes = nodes;
	}
	return 0;
}

/* /sys/kernel/debug/cxltier: the module's counters (region_mm.c, user.c). */
static struct dentry *cxlt_debugfs;

/**
 * cxlt_regions_init() - set up global regions (/dev/cxltier comes after, cdev.c)
 *
 * Context: module init.
 * Return: 0 or a negative errno, with nothing left registered.
 */
int cxlt_regions_init(void)
{
	int rc;

	/* debugfs is best effort: its calls take and ignore error pointers. */
	cxlt_put_wq = alloc_workqueue("cxlt_put", WQ_UNBOUND, 0);
	if (!cxlt_put_wq)
		return -ENOMEM;
	cxlt_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	rc = cxlt_region_mm_init(cxlt_debugfs);
	if (rc) {
		debugfs_remove(cxlt_debugfs);
		destroy_workqueue(cxlt_put_wq);
		return rc;
	}
	cxlt_users_init(cxlt_debugfs);
	return 0;
}

/* Module exit, after /dev/cxltier went: regions pin the module, so none is left. */
void cxlt_regions_exit(void)
{
	/* A put queued there may not have returned yet: the module is already free. */
	destroy_workqueue(cxlt_put_wq);
	debugfs_remove(cxlt_debugfs);
	cxlt_region_mm_exit();
	cxlt_users_exit();
	WARN_ON(!xa_empty(&cxlt_regions.ids) || !list_empty(&cxlt_regions.all));
	xa_destroy(&cxlt_regions.ids);
}
