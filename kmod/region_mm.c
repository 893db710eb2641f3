// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: region memory: inode, page table, placement, capacity accounting, mmap, faults
 *
 * A region's inode is on a small internal filesystem of the module, and the
 * region files (cdev.c) are files on that inode; why, and what the filesystem
 * pins, is in DOC: global regions in region.c.
 *
 * A region's pages are page-cache folios of the region's inode (DOC: region page
 * table in region_mm.h), allocated at first touch in the fault handler on the node
 * the region's policy picks, zeroed, marked dirty (so that no invalidation path can
 * ever drop one: there is no backing store) and inserted with filemap_add_folio().
 * The fault returns the folio locked (VM_FAULT_LOCKED) and the mm maps it, still
 * under the folio lock, with a normal refcounted PTE: get_user_pages(), O_DIRECT,
 * io_uring fixed buffers and RDMA registration work on region memory.
 *
 * Why page-cache folios and not pages of our own (Documentation/design.rst has the
 * numbers): a folio in an address_space, on the LRU, with address_space operations
 * is something the rest of the mm knows how to handle.  The kernel migrates it when
 * it must (->migrate_folio: compaction, memory offline of a tier, and a
 * FOLL_LONGTERM pin of a page in ZONE_MOVABLE, which moves it to DRAM first instead
 * of retrying forever as it does for a movable page nobody can move), the rmap finds
 * every mapping of it, and memory_failure() can unmap it and call
 * ->error_remove_folio.  The mapping is unevictable (there is nothing to write the
 * pages back to), so reclaim leaves the folios alone; the module's daemon moves
 * them between tiers itself (migrate.c), because migrate_pages() is not exported.
 * Reclaim could not demote them anyway: the folios are dirty (they must be, or an
 * invalidation would drop them), and the multi-gen LRU, Debian's default, never
 * isolates a dirty file folio; a swap-backed folio may not enter the page cache
 * through filemap_add_folio().  So the module yields DRAM itself, where the
 * kernel's reclaim would: a fast-first page takes DRAM only while its node is
 * above its high watermarks (cxlt_node_room()), else it goes to a slow tier; the
 * daemon counts as its room only that free DRAM, so it demotes when other users
 * take DRAM away (see cxlt_params() in daemon.c); and when an allocation must
 * reclaim, a shrinker demotes region pages at once (DOC: giving DRAM back under
 * memory pressure, reclaim.c).
 *
 * Mappings are VM_MIXEDMAP, which keeps NUMA balancing's hinting faults away from
 * pages that the daemon places, and VM_DONTEXPAND.
 *
 * Capacity: the module charges every page it allocates, before allocating it, to
 * its own accounting.  The fast tier is DRAM: nodes with memory and CPUs, together
 * limited to fast_budget_mb, and each user (the region's creator) to fast_user_pct
 * percent of that, and each fast node (for fast-first regions) to its free pages
 * above the kernel's high watermarks.  The slow tiers are the nodes of registered
 * tiers (tier.c), each limited to its managed pages.  A node that is neither is
 * never used.  Allocations are __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN: they
 * fail fast and quietly and never invoke the OOM killer; the policy then falls
 * back to the next node it allows, and when none is left the fault gets
 * VM_FAULT_SIGBUS (SIGBUS, BUS_ADRERR).
 * Not VM_FAULT_OOM: since Linux 5.16 that makes the #PF handler retry the fault
 * forever rather than kill anything.  Nothing is logged above debug level: a user
 * can cause this at will.  A page the kernel moves (->migrate_folio) moves its
 * charge with it, within the limits unless the kernel must move it (its tier is
 * being removed, or a long-term pin): see cxlt_region_migrate_folio().
 *
 * Folios are charged to the region creator's memory cgroup (filemap_add_folio()
 * with that cgroup active), and page-table chunks are __GFP_ACCOUNT, so both count
 * against that cgroup's memory.max whoever touches them.
 *
 * A fault that finds a folio locked by another fault or a migrator does not sleep
 * on it with the mmap or VMA lock held: it drops that lock, waits for the folio
 * (killably: a fatal signal ends the wait instead of leaving the task in D state
 * behind a stalled holder) and has the fault retried, as the page cache's own
 * faults do (cxlt_fault_lock()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/lockdep.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "cxltier.h"
#include "events.h"
#include "health.h"
#include "region_mm.h"
#include "region_types.h"
#include "tier.h"
#include "user.h"

#define CXLT_FS_MAGIC		0x43584c54	/* "CXLT" */

static unsigned int fast_budget_mb = 256;
module_param(fast_budget_mb, uint, 0644);
MODULE_PARM_DESC(fast_budget_mb,
		 "DRAM (fast tier) that global regions may use, in MiB (default 256); lowering it affects new pages only");

static unsigned int fast_user_pct = 50;
module_param(fast_user_pct, uint, 0644);
MODULE_PARM_DESC(fast_user_pct,
		 "Share of fast_budget_mb one user's regions may use, in percent (default 50, at most 100); CAP_SYS_RESOURCE is exempt");

/*
 * The module's own capacity accounting, in pages: every page is charged to its node
 * before it is allocated, and a fast one to the DRAM budget and its user's share.
 */
static struct {
	atomic_long_t fast;			/* charged to fast_budget_mb */
	atomic_long_t node[MAX_NUMNODES];	/* region pages on each node */
	atomic_t tables;			/* page tables not freed yet */
} cxlt_acct;

/*
 * Lockdep's view of the folio locks of region pages, which lockdep does not track
 * itself: the fault path takes one under the mmap or VMA lock; a migrator takes a
 * run of them, then i_mmap_rwsem and page-table locks (unmap_mapping_pages()) and
 * allocates memory.  Acquired once for a whole run (see migrate.c).
 */
static struct lock_class_key cxlt_page_lock_key;
struct lockdep_map cxlt_page_lockdep_map;

static const char *const cxlt_policy_names[] = {
	[CXLTIER_POLICY_FAST_FIRST] = "fast-first",
	[CXLTIER_POLICY_SLOW_ONLY] = "slow-only",
	[CXLTIER_POLICY_INTERLEAVE] = "interleave",
	[CXLTIER_POLICY_PINNED_FAST] = "pinned-fast",
};

/* --- the region's inode ------------------------------------------------------------ */

static int cxlt_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, CXLT_FS_MAGIC) ? 0 : -ENOMEM;
}

/* Never mounted where userspace sees it; .owner makes its superblock pin us. */
static struct file_system_type cxlt_fs_type = {
	.name = "cxltier",
	.owner = THIS_MODULE,
	.init_fs_context = cxlt_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

static int cxlt_region_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			       struct iattr *attr)
{
	return -EPERM;
}

static const struct inode_operations cxlt_region_iops = {
	.setattr = cxlt_region_setattr,
};

static const struct address_space_operations cxlt_region_aops;

static struct vfsmount *cxlt_fs_mnt;
static int cxlt_fs_cnt;		/* simple_pin_fs() users: one per region inode */

/*
 * Protects persistent regions' @inode and @nr_inode_users: their inode is made at
 * the first open and dropped at the last release.  Taken in process context,
 * around unmap_mapping_range() too (so never under the mmap lock).
 */
static DEFINE_MUTEX(cxlt_pinode_lock);

/**
 * cxlt_region_inode_alloc() - make a region's inode, pinning the filesystem
 * @r: the region, with @uid, @gid, @mode and @size set
 *
 * Context: process context (CREATE).
 * Return: 0 with @r->inode set; or a negative errno, with nothing pinned.
 */
int cxlt_region_inode_alloc(struct cxlt_region *r)
{
	struct inode *inode;
	int rc;

	rc = simple_pin_fs(&cxlt_fs_type, &cxlt_fs_mnt, &cxlt_fs_cnt);
	if (rc)
		return rc;
	inode = alloc_anon_inode(cxlt_fs_mnt->mnt_sb);
	if (IS_ERR(inode)) {
		simple_release_fs(&cxlt_fs_mnt, &cxlt_fs_cnt);
		return PTR_ERR(inode);
	}
	/*
	 * For fstat(), and what access is checked against: no setattr, so that the
	 * size, mode and owner stay (ftruncate() and fchmod() are EPERM).  A regular
	 * file, because the page cache's error path (generic_error_remove_folio())
	 * drops a poisoned folio of regular files only.
	 */
	inode->i_private = r;
	inode->i_uid = r->uid;
	inode->i_gid = r->gid;
	inode->i_mode = S_IFREG | r->mode;
	inode->i_op = &cxlt_region_iops;
	inode->i_mapping->a_ops = &cxlt_region_aops;
	mapping_set_unevictable(inode->i_mapping);
	/*
	 * The page cache never allocates for this mapping (the fault handler and the
	 * migrator do, with their own flags), so its gfp mask only tells the kernel
	 * whether a mapping of it may be moved between nodes on a process's request:
	 * vma_migratable() says no for a mapping that allocates below policy_zone.
	 * move_pages(2), mbind(MPOL_MF_MOVE) and NUMA balancing then leave region
	 * pages to the module's placement; the kernel's own moves (compaction, memory
	 * offline, long-term pinning) still reach ->migrate_folio.
	 */
	mapping_set_gfp_mask(inode->i_mapping, GFP_USER | __GFP_DMA);
	i_size_write(inode, r->size);
	r->inode = inode;
	return 0;
}

/**
 * cxlt_region_inode_free() - drop a region's inode and its pin on the filesystem
 * @r: the region; its files are gone (each held an inode reference of its own)
 *
 * Context: process context.
 */
void cxlt_region_inode_free(struct cxlt_region *r)
{
	iput(r->inode);
	/* cxlt_region_table_free() after this (create's unwinding) has no mapping. */
	r->inode = NULL;
	simple_release_fs(&cxlt_fs_mnt, &cxlt_fs_cnt);
}

/* A persistent region's file went (or was never made); under cxlt_pinode_lock. */
static void cxlt_pinode_put(struct cxlt_region *r)
{
	lockdep_assert_held(&cxlt_pinode_lock);
	if (--r->nr_inode_users)
		return;
	cxlt_region_inode_free(r);
}

/**
 * cxlt_region_inode_file() - a new file on a region's inode
 * @r: the region, referenced by the caller
 * @name: the file's dentry name
 * @flags: O_RDONLY, O_WRONLY or O_RDWR
 * @fops: the file's operations (cdev.c's region file)
 *
 * Context: process context.
 * Return: the file, which holds a reference on the inode, or an ERR_PTR.
 */
struct file *cxlt_region_inode_file(struct cxlt_region *r, const char *name, int flags,
				    const struct file_operations *fops)
{
	struct file *file;
	int rc;

	if (r->pool) {
		guard(mutex)(&cxlt_pinode_lock);
		if (!r->inode) {
			rc = cxlt_region_inode_alloc(r);
			if (rc)
				return ERR_PTR(rc);
		}
		r->nr_inode_users++;
		ihold(r->inode);
		file = alloc_file_pseudo(r->inode, cxlt_fs_mnt, name, flags, fops);
		if (IS_ERR(file)) {
			iput(r->inode);
			cxlt_pinode_put(r);
		}
		return file;
	}
	/* The file's dentry takes this inode reference. */
	ihold(r->inode);
	file = alloc_file_pseudo(r->inode, cxlt_fs_mnt, name, flags, fops);
	if (IS_ERR(file))
		iput(r->inode);
	return file;
}

/**
 * cxlt_region_file_closed() - a region file is being released
 * @r: its region
 *
 * A persistent region's inode goes with its last file, so that a persistent region
 * nobody has open does not pin the module: rmmod detaches its pool (pool.c).
 *
 * Context: process context (->release).
 */
void cxlt_region_file_closed(struct cxlt_region *r)
{
	if (!r->pool)
		return;
	guard(mutex)(&cxlt_pinode_lock);
	cxlt_pinode_put(r);
}

/**
 * cxlt_region_zap() - unmap a persistent region from every process
 * @r: the region
 *
 * Context: process context; takes cxlt_pinode_lock.
 */
void cxlt_region_zap(struct cxlt_region *r)
{
	guard(mutex)(&cxlt_pinode_lock);
	if (r->inode)
		unmap_mapping_range(r->inode->i_mapping, 0, 0, 1);
}

/* --- placement and accounting ------------------------------------------------------- */

/**
 * cxlt_node_is_fast() - is @nid a DRAM (fast tier) node?
 * @nid: node id
 *
 * Return: true for a node with memory and CPUs.
 */
bool cxlt_node_is_fast(int nid)
{
	return node_state(nid, N_MEMORY) && node_state(nid, N_CPU);
}

static unsigned long cxlt_node_capacity(int nid)
{
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++)
		pages += zone_managed_pages(&NODE_DATA(nid)->node_zones[z]);
	return pages;
}

/* May the region's user take one more fast page?  Counts it when it may. */
static bool cxlt_user_fast_get(struct cxlt_region *r, long budget)
{
	long share = budget * min(READ_ONCE(fast_user_pct), 100U) / 100;

	if (r->exempt_res) {
		atomic_long_inc(&r->user->fast);
		return true;
	}
	if (atomic_long_inc_return(&r->user->fast) > share) {
		atomic_long_dec(&r->user->fast);
		return false;
	}
	return true;
}

/**
 * cxlt_fast_budget_pages() - fast_budget_mb in pages
 *
 * Return: pages of DRAM that global regions may use.
 */
unsigned long cxlt_fast_budget_pages(void)
{
	return (unsigned long)READ_ONCE(fast_budget_mb) << (20 - PAGE_SHIFT);
}

/**
 * cxlt_fast_room_pages() - free DRAM beyond the kernel's high watermarks
 *
 * The sum of cxlt_node_room() over the fast nodes: the room the daemon may fill,
 * and, when negative, what it gives back because others need it.
 *
 * Return: pages, negative when DRAM is below its high watermarks.
 */
long cxlt_fast_room_pages(void)
{
	long room = 0;
	int nid;

	for_each_node_state(nid, N_MEMORY)
		if (cxlt_node_is_fast(nid))
			room += cxlt_node_room(nid);
	return room;
}

/**
 * cxlt_node_pages() - region pages on a node now
 * @nid: the node
 *
 * Return: pages.
 */
unsigned long cxlt_node_pages(int nid)
{
	return max(atomic_long_read(&cxlt_acct.node[nid]), 0L);
}

/**
 * cxlt_fast_used_pages() - region pages charged to the DRAM budget now
 *
 * Return: pages.
 */
unsigned long cxlt_fast_used_pages(void)
{
	return max(atomic_long_read(&cxlt_acct.fast), 0L);
}

/*
 * Charge one page on @nid, and to the DRAM budget when @fast.  Within the limits
 * only, unless @force (the kernel moved a page there: it has no other place).
 */
static bool cxlt_charge(struct cxlt_region *r, int nid, bool fast, bool force)
{
	long budget = cxlt_fast_budget_pages();

	if (atomic_long_inc_return(&cxlt_acct.node[nid]) > cxlt_node_capacity(nid) &&
	    !force)
		goto uncharge_node;
	if (fast) {
		if (force) {
			atomic_long_inc(&cxlt_acct.fast);
			atomic_long_inc(&r->user->fast);
			return true;
		}
		if (atomic_long_inc_return(&cxlt_acct.fast) > budget)
			goto uncharge_fast;
		if (!cxlt_user_fast_get(r, budget))
			goto uncharge_fast;
	}
	return true;

uncharge_fast:
	atomic_long_dec(&cxlt_acct.fast);
uncharge_node:
	atomic_long_dec(&cxlt_acct.node[nid]);
	return false;
}

/**
 * cxlt_region_uncharge() - give back what the charge of one page took
 * @r: the region
 * @nid: the page's node
 * @fast: the page was charged to the DRAM budget
 */
void cxlt_region_uncharge(struct cxlt_region *r, int nid, bool fast)
{
	if (fast) {
		atomic_long_dec(&r->user->fast);
		atomic_long_dec(&cxlt_acct.fast);
	}
	atomic_long_dec(&cxlt_acct.node[nid]);
}

/*
 * A folio on @nid, charged; zeroed when @zero.  Movable: tier memory is
 * ZONE_MOVABLE, and the kernel can move any region folio (->migrate_folio).  Not
 * __GFP_ACCOUNT: filemap_add_folio() or replace_page_cache_folio() charges the
 * folio to the region's memory cgroup.
 */
static struct folio *cxlt_alloc_on(struct cxlt_region *r, int nid, bool fast, bool zero)
{
	gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN;
	struct folio *folio;

	if (!cxlt_charge(r, nid, fast, false))
		return NULL;
	folio = __folio_alloc_node(gfp | (zero ? __GFP_ZERO : 0), 0, nid);
	if (!folio)
		cxlt_region_uncharge(r, nid, fast);
	return folio;
}

/*
 * The first fast node that @allowed permits and has room, the local node first.
 * @spare: only a node with free pages above the kernel's high watermarks
 * (cxlt_node_room()), for a page that has a slow place to go instead: DRAM that
 * others need is theirs, and a page taken below the watermarks would make kswapd
 * reclaim their pages to make up for it (ours it cannot demote; see DOC: region
 * memory).
 */
static struct folio *cxlt_alloc_fast(struct cxlt_region *r, const nodemask_t *allowed,
				     bool spare, bool zero, int *nidp)
{
	struct folio *folio;
	int local = numa_node_id(), nid;

	if (cxlt_node_is_fast(local) && node_isset(local, *allowed) &&
	    (!spare || cxlt_node_room(local) > 0)) {
		folio = cxlt_alloc_on(r, local, true, zero);
		if (folio) {
			*nidp = local;
			return folio;
		}
	}
	for_each_node_mask(nid, *allowed) {
		if (nid == local || !cxlt_node_is_fast(nid) || (spare && cxlt_node_room(nid) <= 0))
			continue;
		folio = cxlt_alloc_on(r, nid, true, zero);
		if (folio) {
			*nidp = nid;
			return folio;
		}
	}
	return NULL;
}

/* Try the nodes of @slow in order, starting with the @first'th (cyclically). */
static struct folio *cxlt_alloc_slow(struct cxlt_region *r, const nodemask_t *slow,
				     unsigned long first, bool zero, int *nidp)
{
	unsigned int n = nodes_weight(*slow), i;
	struct folio *folio;
	int nid;

	if (!n)
		return NULL;
	nid = first_node(*slow);
	for (i = 0; i < first % n; i++)
		nid = next_node(nid, *slow);
	for (i = 0; i < n; i++) {
		folio = cxlt_alloc_on(r, nid, false, zero);
		if (folio) {
			*nidp = nid;
			return folio;
		}
		nid = next_node_in(nid, *slow);
	}
	return NULL;
}

/* The region's allowed nodes (all with memory when it names none), and its policy. */
static u32 cxlt_region_allowed(struct cxlt_region *r, nodemask_t *allowed)
{
	u32 policy;

	scoped_guard(spinlock, &r->lock) {
		policy = r->policy;
		*allowed = r->nodes;
	}
	if (nodes_empty(*allowed))
		*allowed = node_states[N_MEMORY];
	return policy;
}

/* Slow nodes a page of @r may go to: tiers that are not being removed. */
static void cxlt_region_slow_nodes(const nodemask_t *allowed, nodemask_t *slow)
{
	cxlt_tier_nodes(slow);
	nodes_and(*slow, *slow, *allowed);
}

/*
 * Allocate the page for @pgoff of @r where its policy says.  Returns the zeroed
 * folio, charged, with its node in *nidp and whether it is fast in *fastp; NULL when
 * no allowed node has room.
 */
static struct folio *cxlt_place(struct cxlt_region *r, unsigned long pgoff, int *nidp,
				bool *fastp)
{
	struct folio *folio = NULL;
	nodemask_t allowed, slow;
	u32 policy;

	policy = cxlt_region_allowed(r, &allowed);
	*fastp = false;
	if (policy == CXLTIER_POLICY_FAST_FIRST || policy == CXLTIER_POLICY_PINNED_FAST) {
		folio = cxlt_alloc_fast(r, &allowed, policy == CXLTIER_POLICY_FAST_FIRST, true,
					nidp);
		if (folio || policy == CXLTIER_POLICY_PINNED_FAST) {
			*fastp = !!folio;
			return folio;
		}
	}

	cxlt_region_slow_nodes(&allowed, &slow);
	switch (policy) {
	case CXLTIER_POLICY_SLOW_ONLY:		/* fill the first node, then the next */
		return cxlt_alloc_slow(r, &slow, 0, true, nidp);
	case CXLTIER_POLICY_FAST_FIRST:		/* spill over the blades page by page */
	case CXLTIER_POLICY_INTERLEAVE:
		return cxlt_alloc_slow(r, &slow, pgoff, true, nidp);
	}
	return NULL;
}

/**
 * cxlt_region_alloc_target() - a folio to move a page of a region to
 * @r: the region
 * @pgoff: the page
 * @fast: to the fast tier (a node the region allows, the local one first), or to a
 *	slow tier (the region's allowed tier nodes, spread by @pgoff as at first
 *	touch, never a tier that is being removed)
 * @nidp: the folio's node
 *
 * Context: process context; sleeps.
 * Return: the folio, charged (cxlt_region_uncharge() gives it back), not zeroed;
 * NULL when no allowed node of that class has room.
 */
struct folio *cxlt_region_alloc_target(struct cxlt_region *r, unsigned long pgoff,
				       bool fast, int *nidp)
{
	nodemask_t allowed, slow;

	cxlt_region_allowed(r, &allowed);
	if (fast)
		return cxlt_alloc_fast(r, &allowed, true, false, nidp);
	cxlt_region_slow_nodes(&allowed, &slow);
	return cxlt_alloc_slow(r, &slow, pgoff, false, nidp);
}

/**
 * cxlt_region_table_alloc() - set up a region's (empty) page table
 * @r: the region, with @nr_pages set
 *
 * Nothing is allocated until the first fault: see DOC: region page table.
 *
 * Context: any.
 * Return: 0.
 */
int cxlt_region_table_alloc(struct cxlt_region *r)
{
	xa_init(&r->chunks);
	atomic_long_set(&r->span_chunks, 0);
	atomic_inc(&cxlt_acct.tables);
	return 0;
}

/**
 * cxlt_region_table_free() - give back a region's pages and page table
 * @r: the region; nothing maps it or can fault on it any more, and the daemon
 *	holds no reference
 *
 * Each page is uncharged under its folio lock, which orders this against a kernel
 * migration of the folio (->migrate_folio moves the charge of PRESENT entries
 * only); then the page cache lets the folios go.  A folio that get_user_pages()
 * still pins lives on until the pin is dropped, uncharged.
 *
 * Context: process context; sleeps.
 */
void cxlt_region_table_free(struct cxlt_region *r)
{
	struct address_space *mapping = r->inode ? r->inode->i_mapping : NULL;
	struct cxlt_rpage *chunk, *rp;
	struct folio *folio;
	unsigned long c, i;

	xa_for_each(&r->chunks, c, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK && mapping; i++) {
			rp = &chunk[i];
			if (cxlt_rp_state(rp) != CXLT_RP_PRESENT)
				continue;
			folio = filemap_lock_folio(mapping, c * CXLT_RP_PER_CHUNK + i);
			if (IS_ERR(folio)) {
				/* A fence took it while we waited: FENCED, uncharged. */
				WARN_ON_ONCE(cxlt_rp_state(rp) == CXLT_RP_PRESENT);
				continue;
			}
			/* Under the lock: the state and node describe this folio. */
			if (cxlt_rp_state(rp) == CXLT_RP_PRESENT) {
				cxlt_region_uncharge(r, cxlt_rp_node(rp),
						     READ_ONCE(rp->bits) & CXLT_RP_FAST);
				cxlt_rp_update(rp, CXLT_RP_STATE_MASK,
					       CXLT_RP_EMPTY << CXLT_RP_STATE_SHIFT);
			}
			folio_unlock(folio);
			folio_put(folio);
		}
		cond_resched();
	}
	if (mapping)
		truncate_inode_pages(mapping, 0);
	xa_for_each(&r->chunks, c, chunk)
		free_page((unsigned long)chunk);
	xa_destroy(&r->chunks);
	atomic_dec(&cxlt_acct.tables);
}

/**
 * cxlt_region_entry() - the page table entry of a page of a region
 * @r: the region
 * @pgoff: page offset, below @r->nr_pages
 * @alloc: allocate the entry's chunk when it has none yet
 *
 * Context: process context when @alloc (GFP_KERNEL), else any.
 * Return: the entry, whose address stays valid while the region lives; NULL when
 * its chunk does not exist (and !@alloc or out of memory).
 */
struct cxlt_rpage *cxlt_region_entry(struct cxlt_region *r, unsigned long pgoff, bool alloc)
{
	unsigned long c = pgoff / CXLT_RP_PER_CHUNK;
	struct cxlt_rpage *chunk, *old;
	struct mem_cgroup *old_memcg;

	/* xa_store() publishes with release semantics: the chunk's zeroes are seen. */
	chunk = xa_load(&r->chunks, c);
	if (!chunk && alloc) {
		/* __GFP_NORETRY: over the cgroup's limit fails, never its OOM killer. */
		gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN;

		old_memcg = set_active_memcg(r->memcg);
		chunk = (struct cxlt_rpage *)get_zeroed_page(gfp);
		if (chunk) {
			old = xa_cmpxchg(&r->chunks, c, NULL, chunk, gfp);
			if (old) {
				free_page((unsigned long)chunk);
				chunk = xa_is_err(old) ? NULL : old;
			}
		}
		set_active_memcg(old_memcg);
		if (chunk) {
			long span = atomic_long_read(&r->span_chunks);

			while (span <= (long)c &&
			       !atomic_long_try_cmpxchg(&r->span_chunks, &span, c + 1))
				;
		}
	}
	return chunk ? &chunk[pgoff % CXLT_RP_PER_CHUNK] : NULL;
}

/*
 * Lock a folio the fault found, the way folio_lock_or_retry() does: never sleep
 * on it with the mmap or VMA lock held when the caller allows a retry (a migrator
 * holding a run of folio locks allocates memory, which may wait for that mmap
 * lock's holders); then drop the lock, wait for the folio (killably when the fault
 * is), and ask for a retry.  FAULT_FLAG_RETRY_NOWAIT: a retry at once, without
 * dropping the lock or waiting.  Where no retry is allowed (get_user_pages()
 * without one), wait killably for the lock.  On VM_FAULT_RETRY or SIGBUS (a
 * fatal signal) the folio's reference is dropped.
 */
static vm_fault_t cxlt_fault_lock(struct vm_fault *vmf, struct folio *folio)
{
	if (folio_trylock(folio))
		return 0;
	if (vmf->flags & FAULT_FLAG_ALLOW_RETRY) {
		if (!(vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
			release_fault_lock(vmf);
			if (vmf->flags & FAULT_FLAG_KILLABLE)
				folio_wait_locked_killable(folio);
			else
				folio_wait_locked(folio);
		}
		folio_put(folio);
		return VM_FAULT_RETRY;
	}
	if (__folio_lock_killable(folio)) {
		folio_put(folio);
		return VM_FAULT_SIGBUS;
	}
	return 0;
}

/* First touch of @pgoff: place, zero and insert a folio; returns it locked. */
static struct folio *cxlt_fault_new(struct cxlt_region *r, struct cxlt_rpage *rp,
				    pgoff_t pgoff)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct mem_cgroup *old_memcg;
	struct folio *folio;
	bool fast;
	int nid, rc;

	folio = cxlt_place(r, pgoff, &nid, &fast);
	if (!folio) {
		pr_debug("region %s: no memory for page %lu under policy %s (fast_budget_mb=%u)\n",
			 r->name, pgoff, cxlt_policy_name(r->policy), READ_ONCE(fast_budget_mb));
		return ERR_PTR(-ENOMEM);
	}
	__folio_mark_uptodate(folio);
	/* Dirty from the start: nothing can write it back, so nothing may drop it. */
	folio_set_dirty(folio);
	old_memcg = set_active_memcg(r->memcg);
	/* __GFP_NORETRY: over the cgroup's limit is SIGBUS, not its OOM killer. */
	rc = filemap_add_folio(mapping, folio, pgoff,
			       GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (rc) {
		/* -EEXIST: another fault inserted the page first. */
		cxlt_region_uncharge(r, nid, fast);
		folio_put(folio);
		return ERR_PTR(rc);
	}
	cxlt_rp_update(rp, CXLT_RP_STATE_MASK | CXLT_RP_FAST | CXLT_RP_NODE_MASK |
		       CXLT_RP_PROMOTED | CXLT_RP_MOVED_MASK,
		       (CXLT_RP_PRESENT << CXLT_RP_STATE_SHIFT) |
		       (fast ? CXLT_RP_FAST : 0) | ((u32)nid << CXLT_RP_NODE_SHIFT));
	atomic_long_inc(&r->resident);
	return folio;
}

static vm_fault_t cxlt_region_fault(struct vm_fault *vmf)
{
	struct cxlt_region *r = vmf->vma->vm_private_data;
	struct address_space *mapping = r->inode->i_mapping;
	struct cxlt_rpage *rp;
	struct folio *folio;
	vm_fault_t ret;

	/* mmap() checked the range and VM_DONTEXPAND keeps it so; be careful anyway. */
	if (WARN_ON_ONCE(vmf->pgoff >= r->nr_pages))
		return VM_FAULT_SIGBUS;
	rp = cxlt_region_entry(r, vmf->pgoff, true);
	if (!rp) {
		pr_debug("region %s: no memory for the page table of page %lu\n", r->name,
			 vmf->pgoff);
		return VM_FAULT_SIGBUS;
	}

	for (;;) {
		folio = filemap_get_folio(mapping, vmf->pgoff);
		if (IS_ERR(folio)) {
			/* Pairs with the barrier of the fencer's removal from the cache. */
			smp_rmb();
			if (cxlt_rp_state(rp) == CXLT_RP_FENCED)
				return VM_FAULT_HWPOISON;
			folio = cxlt_fault_new(r, rp, vmf->pgoff);
			if (folio == ERR_PTR(-EEXIST))
				continue;
			if (IS_ERR(folio))
				return VM_FAULT_SIGBUS;
			break;
		}
		lock_map_acquire(&cxlt_page_lockdep_map);
		lock_map_release(&cxlt_page_lockdep_map);
		ret = cxlt_fault_lock(vmf, folio);
		if (ret)
			return ret;
		/* A migrator replaced it (or region free took it) while we waited. */
		if (folio->mapping == mapping)
			break;
		folio_unlock(folio);
		folio_put(folio);
	}
	if (unlikely(folio_test_hwpoison(folio))) {
		folio_unlock(folio);
		folio_put(folio);
		return VM_FAULT_HWPOISON;
	}
	/* The daemon unmapped the page to see whether it is used: it is. */
	if (READ_ONCE(rp->bits) & CXLT_RP_ARMED)
		cxlt_rp_update(rp, CXLT_RP_ARMED | CXLT_RP_ACCESSED, CXLT_RP_ACCESSED);
	vmf->page = folio_file_page(folio, vmf->pgoff);
	return VM_FAULT_LOCKED;
}

static void cxlt_region_vm_open(struct vm_area_struct *vma)
{
	struct cxlt_region *r = vma->vm_private_data;

	atomic_inc(&r->nr_maps);
}

static void cxlt_region_vm_close(struct vm_area_struct *vma)
{
	struct cxlt_region *r = vma->vm_private_data;

	atomic_dec(&r->nr_maps);
}

/*
 * The VMA's file holds a reference on the region (file->private_data), so the
 * region outlives every VMA; open/close only count mappings for stat.  No
 * ->map_pages: every access to an unmapped page reaches the fault handler, which
 * is what the daemon's sampling counts on.
 */
static const struct vm_operations_struct cxlt_region_vm_ops = {
	.open = cxlt_region_vm_open,
	.close = cxlt_region_vm_close,
	.fault = cxlt_region_fault,
};

/* A persistent region's mapping: its pool's memory, mapped at fault (pool.c). */
static vm_fault_t cxlt_pregion_fault(struct vm_fault *vmf)
{
	struct cxlt_region *r = vmf->vma->vm_private_data;

	return r->store->fault(vmf);
}

static const struct vm_operations_struct cxlt_pregion_vm_ops = {
	.open = cxlt_region_vm_open,
	.close = cxlt_region_vm_close,
	.fault = cxlt_pregion_fault,
};

/**
 * cxlt_region_mmap() - ->mmap of a region file
 * @file: the region file
 * @vma: the new mapping
 *
 * Any page-aligned range of the region, MAP_SHARED only (a read-only file's shared
 * mapping has VM_MAYSHARE without VM_SHARED, hence the test).  Nothing is mapped
 * here; pages come at first touch.
 *
 * Context: process context, mmap_lock held for writing.
 * Return: 0; -EINVAL for MAP_PRIVATE; -ENXIO for a range beyond the region's end.
 */
int cxlt_region_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cxlt_region *r = file->private_data;
	unsigned long pages = vma_pages(vma);

	if (!(vma->vm_flags & VM_MAYSHARE)) {
		pr_debug("mmap region %s: MAP_PRIVATE is not supported, use MAP_SHARED\n",
			 r->name);
		return -EINVAL;
	}
	if (vma->vm_pgoff >= r->nr_pages || pages > r->nr_pages - vma->vm_pgoff) {
		pr_debug("mmap region %s: pages %lu-%lu are beyond its end (%lu pages)\n",
			 r->name, vma->vm_pgoff, vma->vm_pgoff + pages - 1, r->nr_pages);
		return -ENXIO;
	}
	if (r->pool) {
		if (READ_ONCE(r->lost)) {
			pr_debug("mmap region %s: its pool is lost\n", r->name);
			return -EIO;
		}
		/* Pool memory has no struct pages: map it by pfn, write-back. */
		vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_ops = &cxlt_pregion_vm_ops;
	} else {
		vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND);
		vma->vm_ops = &cxlt_region_vm_ops;
	}
	vma->vm_private_data = r;
	/* ->open is not called for the first VMA; ->close is, also if mmap fails later. */
	atomic_inc(&r->nr_maps);
	return 0;
}

/**
 * cxlt_region_census() - count a region's resident pages per node and per blade
 * @r: the region
 * @c: output; @c->node_pages (nr_node_ids entries), @c->blades (@c->max_blades
 *	entries) and @c->names (CXLT_MAX_WAYS entries) are provided by the caller
 *	and zeroed
 *
 * Blades beyond @c->max_blades are not counted.  A snapshot: pages may move while
 * it is taken.
 *
 * Context: process context.
 */
void cxlt_region_census(struct cxlt_region *r, struct cxlt_census *c)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct cxlt_rpage *chunk, *rp;
	unsigned long ci, i, pfn;
	struct folio *folio;
	int n, k, b, nid;

	xa_for_each(&r->chunks, ci, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++) {
			rp = &chunk[i];
			if (cxlt_rp_hint(rp) != CXLTIER_HINT_NONE)
				c->hinted++;
			if (cxlt_rp_state(rp) != CXLT_RP_PRESENT)
				continue;
			nid = cxlt_rp_node(rp);
			c->node_pages[nid]++;
			if (READ_ONCE(rp->bits) & CXLT_RP_FAST) {
				c->fast++;
				continue;	/* DRAM: on no blade */
			}
			folio = filemap_get_folio(mapping, ci * CXLT_RP_PER_CHUNK + i);
			if (IS_ERR(folio))
				continue;
			pfn = folio_pfn(folio);
			folio_put(folio);
			n = cxlt_pfn_blades(pfn, c->names, CXLT_MAX_WAYS);
			for (k = 0; k < n; k++) {
				for (b = 0; b < c->nr_blades; b++)
					if (!strcmp(c->blades[b].name, c->names[k].name))
						break;
				if (b == c->nr_blades) {
					if (b == c->max_blades)
						continue;
					strscpy(c->blades[b].name, c->names[k].name,
						sizeof(c->blades[b].name));
					c->nr_blades++;
				}
				c->blades[b].pages++;
			}
		}
		cond_resched();
	}
}

const char *cxlt_policy_name(u32 policy)
{
	return policy <= CXLTIER_POLICY_MAX ? cxlt_policy_names[policy] : "unknown";
}

/**
 * cxlt_region_fence_entry() - mark a resident page of a region fenced
 * @r: the region
 * @rp: the page's entry, PRESENT; the caller holds the folio lock and drops the
 *	folio from the page cache next
 *
 * The page's charge goes and it counts as fenced.  A fault that misses the page
 * cache after the folio left it sees FENCED (the barrier pairs with the fault's).
 */
void cxlt_region_fence_entry(struct cxlt_region *r, struct cxlt_rpage *rp)
{
	cxlt_region_uncharge(r, cxlt_rp_node(rp), rp->bits & CXLT_RP_FAST);
	cxlt_rp_update(rp, CXLT_RP_STATE_MASK | CXLT_RP_FAST,
		       CXLT_RP_FENCED << CXLT_RP_STATE_SHIFT);
	atomic_long_dec(&r->resident);
	atomic_long_inc(&r->fenced);
	/* FENCED is seen before the folio leaves the cache: see cxlt_region_fault(). */
	smp_wmb();
}

/* --- address_space operations --------------------------------------------------------- */

/*
 * Must the kernel move @src to @dst, whatever the region's limits say?  Yes when
 * its memory is going: a tier being removed (its node is no longer one that pages
 * may go to), or a FOLL_LONGTERM pin, which moves a folio out of ZONE_MOVABLE
 * (tier memory) before pinning it and fails the pin if it cannot.
 */
static bool cxlt_must_move(struct folio *src, struct folio *dst)
{
	int from = folio_nid(src);
	nodemask_t tiers;

	if (folio_is_zone_movable(src) && !folio_is_zone_movable(dst))
		return true;
	if (cxlt_node_is_fast(from))
		return false;
	cxlt_tier_nodes(&tiers);
	return !node_isset(from, tiers);
}

/* May a page of @r go to @nid, by its policy and allowed nodes? */
static bool cxlt_region_allows(struct cxlt_region *r, int nid)
{
	nodemask_t allowed, slow;
	u32 policy = cxlt_region_allowed(r, &allowed);

	if (cxlt_node_is_fast(nid))
		return policy != CXLTIER_POLICY_SLOW_ONLY && node_isset(nid, allowed);
	if (policy == CXLTIER_POLICY_PINNED_FAST)
		return false;
	cxlt_region_slow_nodes(&allowed, &slow);
	return node_isset(nid, slow);
}

/*
 * The kernel moves a region folio: compaction, offlining a tier's memory, a
 * FOLL_LONGTERM pin of a folio in ZONE_MOVABLE (which moves it to DRAM), and
 * movers by physical address (DAMON's migrate_hot/cold, soft offline).
 * Processes cannot ask for it (see cxlt_region_inode_alloc()).  The charge moves
 * with the page and the entry follows; the move counts in the region's
 * statistics like the daemon's.  Refused (-EBUSY, the page stays) when the source
 * or the target is on failed memory or the source is being poisoned, and, unless
 * the kernel must move it (cxlt_must_move()), when the target node is one the
 * region's policy does not allow or has no room in the module's limits (DRAM
 * budget, per-user share).  Called with both folios locked.
 */
static int cxlt_region_migrate_folio(struct address_space *mapping, struct folio *dst,
				     struct folio *src, enum migrate_mode mode)
{
	struct cxlt_region *r = mapping->host->i_private;
	struct cxlt_rpage *rp = cxlt_region_entry(r, src->index, false);
	int from = folio_nid(src), to = folio_nid(dst), rc;
	bool was_fast, must, fast = cxlt_node_is_fast(to);

	if (!rp || cxlt_rp_state(rp) != CXLT_RP_PRESENT)
		return migrate_folio(mapping, dst, src, mode);
	/* Its memory failed: a copy would read garbage; the fence poisons it. */
	if (folio_test_hwpoison(src) || cxlt_pfn_fenced(folio_pfn(src)) ||
	    cxlt_pfn_fenced(folio_pfn(dst)))
		return -EBUSY;
	must = to == from || cxlt_must_move(src, dst);
	if (!must && !cxlt_region_allows(r, to))
		return -EBUSY;
	was_fast = READ_ONCE(rp->bits) & CXLT_RP_FAST;
	if (!cxlt_charge(r, to, fast, must))
		return -EBUSY;
	rc = migrate_folio(mapping, dst, src, mode);
	if (rc) {	/* 0 is success (6.12 names it MIGRATEPAGE_SUCCESS; 7.3 does not) */
		cxlt_region_uncharge(r, to, fast);
		return rc;
	}
	cxlt_region_uncharge(r, from, was_fast);
	cxlt_rp_update(rp, CXLT_RP_FAST | CXLT_RP_NODE_MASK,
		       (fast ? CXLT_RP_FAST : 0) | ((u32)to << CXLT_RP_NODE_SHIFT));
	if (fast != was_fast) {
		atomic64_inc(fast ? &r->mig.promoted : &r->mig.demoted);
		cxlt_tier_count_move(folio_pfn(fast ? src : dst), fast);
	}
	atomic64_add(PAGE_SIZE, &r->mig.moved_bytes);
	return rc;
}

/*
 * memory_failure() found the folio's memory bad and has unmapped it: fence the
 * page (a later fault gets SIGBUS, BUS_MCEERR_AR, never a fresh zeroed page in
 * its place) and let the page cache drop it.  Called with the folio locked.
 */
static int cxlt_region_error_remove_folio(struct address_space *mapping,
					  struct folio *folio)
{
	struct cxlt_region *r = mapping->host->i_private;
	struct cxlt_rpage *rp = cxlt_region_entry(r, folio->index, false);

	struct cxlt_blade_name blade = { };

	if (rp && cxlt_rp_state(rp) == CXLT_RP_PRESENT) {
		struct cxlt_event_args ev = {
			.type = CXLTIER_EVENT_FENCE_PAGE, .cause = CXLTIER_CAUSE_POISON,
			.blade = blade.name, .region = r->name, .region_id = r->id,
			.offset = (u64)folio->index << PAGE_SHIFT, .pages = 1,
		};

		cxlt_pfn_blades(folio_pfn(folio), &blade, 1);
		cxlt_region_fence_entry(r, rp);
		cxlt_event_log(&ev);
		if (*blade.name)
			cxlt_blade_count_fenced(blade.name, 1);
	}
	return generic_error_remove_folio(mapping, folio);
}

static const struct address_space_operations cxlt_region_aops = {
	.dirty_folio = noop_dirty_folio,
	.migrate_folio = cxlt_region_migrate_folio,
	.error_remove_folio = cxlt_region_error_remove_folio,
};

/*
 * debugfs "accounting": the module-wide counters, for tests and operators.
 * "regions": regions whose page table is not freed yet (not persistent ones),
 * destroyed ones too until their last user lets go; last, as tests match the
 * first line.
 */
static int cxlt_acct_show(struct seq_file *m, void *unused)
{
	int nid;

	seq_printf(m, "fast_pages %ld\n", atomic_long_read(&cxlt_acct.fast));
	for_each_node(nid)
		if (atomic_long_read(&cxlt_acct.node[nid]))
			seq_printf(m, "node%d_pages %ld\n", nid,
				   atomic_long_read(&cxlt_acct.node[nid]));
	seq_printf(m, "regions %d\n", atomic_read(&cxlt_acct.tables));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxlt_acct);

int cxlt_region_mm_init(struct dentry *dir)
{
	BUILD_BUG_ON(sizeof(struct cxlt_rpage) != 4);
	BUILD_BUG_ON(BITS_PER_LONG < 64);
	BUILD_BUG_ON(MAX_NUMNODES > (CXLT_RP_NODE_MASK >> CXLT_RP_NODE_SHIFT) + 1);
	if (fast_user_pct > 100) {
		pr_err("fast_user_pct=%u is out of range (0-100)\n", fast_user_pct);
		return -EINVAL;
	}
	lockdep_init_map(&cxlt_page_lockdep_map, "cxlt_page_lock", &cxlt_page_lock_key, 0);
	debugfs_create_file("accounting", 0400, dir, NULL, &cxlt_acct_fops);
	return 0;
}

void cxlt_region_mm_exit(void)
{
}
