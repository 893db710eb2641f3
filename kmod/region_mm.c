// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: region memory: inode, page table, placement, capacity accounting, mmap, faults
 *
 * A region's inode is on a small internal filesystem of the module, and the
 * region files (cdev.c) are files on that inode; why, and what the filesystem
 * pins, is in DOC: global regions in region.c.
 *
 * A region's pages are allocated at first touch, in the fault handler, on the node
 * the region's policy picks, zeroed, and mapped with vm_insert_page() while the
 * entry lock is held (see DOC: region page table in region_mm.h).  vm_insert_page()
 * rather than vmf_insert_mixed() or returning vmf->page: the mapping must be made
 * under the entry lock so that a migrator or fencer that takes the lock and unmaps
 * the page can never race with a fault that maps the old page afterwards (a page
 * returned in vmf->page is mapped by the mm after ->fault returned, outside any
 * lock of ours); and the PTE must be a normal, refcounted one (x86 has PTE_SPECIAL,
 * so vmf_insert_mixed() would make a special PTE) so that get_user_pages(), O_DIRECT
 * and RDMA registration work on region memory.  Mappings are VM_MIXEDMAP (required
 * by vm_insert_page() from a fault, and it keeps NUMA balancing, khugepaged and
 * mbind() migration away from pages the module places itself) and VM_DONTEXPAND.
 *
 * Capacity: the module charges every page it allocates, before allocating it, to
 * its own accounting.  The fast tier is DRAM: nodes with memory and CPUs, together
 * limited to fast_budget_mb, and each user (the region's creator) to fast_user_pct
 * percent of that.  The slow tiers are the nodes of registered tiers (tier.c), each
 * limited to its managed pages.  A node that is neither is never used.  Allocations
 * are __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN: they fail fast and quietly and
 * never invoke the OOM killer; the policy then falls back to the next node it
 * allows, and when none is left the fault gets VM_FAULT_SIGBUS (SIGBUS, BUS_ADRERR).
 * Not VM_FAULT_OOM: since Linux 5.16 that makes the #PF handler retry the fault
 * forever rather than kill anything.  Nothing is logged above debug level: a user
 * can cause this at will.
 *
 * Pages and page-table chunks are __GFP_ACCOUNT, allocated with the region's
 * creator's memory cgroup active (set_active_memcg()), so they count against that
 * cgroup's memory.max whoever touches them, and are uncharged when freed.
 *
 * A fault waits for an entry that another fault, a migrator or a fencer holds, and
 * it waits killably: a fatal signal ends the wait (the fault is retried, and the
 * task dies) instead of leaving the task in D state behind a stalled holder.
 *
 * Pages on tier nodes are allocated __GFP_MOVABLE, because tier memory is onlined
 * to ZONE_MOVABLE and nothing else can be allocated there, but the kernel cannot
 * migrate them (they are not on the LRU and have no movable_ops): offlining a
 * memory block that holds one would spin until a signal.  A memory notifier
 * therefore refuses MEM_GOING_OFFLINE for exactly the memory blocks that hold region
 * pages (counted per block), so that removing such a tier fails at once with EBUSY
 * while other tiers of the same node, and DRAM, are not affected.  Destroy the
 * regions (or, with later work, drain the blade) first.  Fast pages are not movable
 * allocations at all, so the kernel itself never offlines the blocks that hold them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "cxltier.h"
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
 * The module's own capacity accounting, in pages.  A slow page is charged to its
 * node and counted in flight before it is allocated, then counted in its memory
 * block once its address is known, and only then leaves the in-flight count: the
 * memory notifier, which runs after offlining isolated the block, sees every page
 * that is or may come to be in the block.
 */
static struct {
	atomic_long_t fast;			/* charged to fast_budget_mb */
	atomic_long_t node[MAX_NUMNODES];	/* region pages on each node */
	atomic_long_t inflight[MAX_NUMNODES];	/* slow pages being allocated */
	struct xarray blocks;			/* memory block id -> cxlt_block */
} cxlt_acct = {
	.blocks = XARRAY_INIT(cxlt_acct.blocks, 0),
};

/* Region pages in one memory block of a slow tier; allocated once, kept till exit. */
struct cxlt_block {
	atomic_long_t pages;
};

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

static struct vfsmount *cxlt_fs_mnt;
static int cxlt_fs_cnt;		/* simple_pin_fs() users: one per region */

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
	 * For fstat(); no file type, so that ftruncate() is refused, and no setattr,
	 * so that the region's mode and owner stay what access is checked against.
	 */
	inode->i_private = r;
	inode->i_uid = r->uid;
	inode->i_gid = r->gid;
	inode->i_mode = r->mode;
	inode->i_op = &cxlt_region_iops;
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
	simple_release_fs(&cxlt_fs_mnt, &cxlt_fs_cnt);
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

	/* The file's dentry takes this inode reference. */
	ihold(r->inode);
	file = alloc_file_pseudo(r->inode, cxlt_fs_mnt, name, flags, fops);
	if (IS_ERR(file))
		iput(r->inode);
	return file;
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

static unsigned long cxlt_block_id(unsigned long pfn)
{
	return PFN_PHYS(pfn) / memory_block_size_bytes();
}

/* The counter of the block of @pfn, made on first use; NULL when out of memory. */
static struct cxlt_block *cxlt_block_get(unsigned long pfn)
{
	unsigned long id = cxlt_block_id(pfn);
	struct cxlt_block *blk, *old;

	blk = xa_load(&cxlt_acct.blocks, id);
	if (blk)
		return blk;
	blk = kzalloc(sizeof(*blk), GFP_KERNEL);
	if (!blk)
		return NULL;
	old = xa_cmpxchg(&cxlt_acct.blocks, id, NULL, blk, GFP_KERNEL);
	if (old) {
		kfree(blk);
		return xa_is_err(old) ? NULL : old;
	}
	return blk;
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

static bool cxlt_charge(struct cxlt_region *r, int nid, bool fast)
{
	long budget = (long)READ_ONCE(fast_budget_mb) << (20 - PAGE_SHIFT);

	/* Fully ordered: the notifier reads these after isolating a block. */
	if (!fast)
		atomic_long_inc(&cxlt_acct.inflight[nid]);
	if (atomic_long_inc_return(&cxlt_acct.node[nid]) > cxlt_node_capacity(nid))
		goto uncharge_node;
	if (fast) {
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
	if (!fast)
		atomic_long_dec(&cxlt_acct.inflight[nid]);
	return false;
}

/* Give back what cxlt_charge() and the block count took for @page. */
static void cxlt_uncharge(struct cxlt_region *r, struct page *page, int nid, bool fast)
{
	struct cxlt_block *blk;

	if (fast) {
		atomic_long_dec(&r->user->fast);
		atomic_long_dec(&cxlt_acct.fast);
	} else {
		blk = xa_load(&cxlt_acct.blocks, cxlt_block_id(page_to_pfn(page)));
		if (!WARN_ON_ONCE(!blk))
			atomic_long_dec(&blk->pages);
	}
	atomic_long_dec(&cxlt_acct.node[nid]);
}

static struct page *cxlt_alloc_on(struct cxlt_region *r, int nid, bool fast)
{
	gfp_t gfp = __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN | __GFP_ZERO |
		    __GFP_ACCOUNT;
	struct mem_cgroup *old_memcg;
	struct cxlt_block *blk;
	struct page *page;

	if (!cxlt_charge(r, nid, fast))
		return NULL;
	old_memcg = set_active_memcg(r->memcg);
	page = alloc_pages_node(nid, gfp | (fast ? GFP_HIGHUSER : GFP_HIGHUSER_MOVABLE), 0);
	set_active_memcg(old_memcg);
	if (!page)
		goto uncharge;
	if (!fast) {
		blk = cxlt_block_get(page_to_pfn(page));
		if (!blk) {
			__free_page(page);
			goto uncharge;
		}
		atomic_long_inc(&blk->pages);
		atomic_long_dec(&cxlt_acct.inflight[nid]);
	}
	return page;

uncharge:
	if (fast) {
		atomic_long_dec(&r->user->fast);
		atomic_long_dec(&cxlt_acct.fast);
	} else {
		atomic_long_dec(&cxlt_acct.inflight[nid]);
	}
	atomic_long_dec(&cxlt_acct.node[nid]);
	return NULL;
}

/* The first fast node that @allowed permits and has room, the local node first. */
static struct page *cxlt_alloc_fast(struct cxlt_region *r, const nodemask_t *allowed,
				    int *nidp)
{
	struct page *page;
	int local = numa_node_id(), nid;

	if (cxlt_node_is_fast(local) && node_isset(local, *allowed)) {
		page = cxlt_alloc_on(r, local, true);
		if (page) {
			*nidp = local;
			return page;
		}
	}
	for_each_node_mask(nid, *allowed) {
		if (nid == local || !cxlt_node_is_fast(nid))
			continue;
		page = cxlt_alloc_on(r, nid, true);
		if (page) {
			*nidp = nid;
			return page;
		}
	}
	return NULL;
}

/* Try the nodes of @slow in order, starting with the @first'th (cyclically). */
static struct page *cxlt_alloc_slow(struct cxlt_region *r, const nodemask_t *slow,
				    unsigned long first, int *nidp)
{
	unsigned int n = nodes_weight(*slow), i;
	struct page *page;
	int nid;

	if (!n)
		return NULL;
	nid = first_node(*slow);
	for (i = 0; i < first % n; i++)
		nid = next_node(nid, *slow);
	for (i = 0; i < n; i++) {
		page = cxlt_alloc_on(r, nid, false);
		if (page) {
			*nidp = nid;
			return page;
		}
		nid = next_node_in(nid, *slow);
	}
	return NULL;
}

/*
 * Allocate the page for @pgoff of @r where its policy says.  Returns the zeroed
 * page, charged, with its node in *nidp and whether it is fast in *fastp; NULL when
 * no allowed node has room.
 */
static struct page *cxlt_place(struct cxlt_region *r, unsigned long pgoff, int *nidp,
			       bool *fastp)
{
	nodemask_t allowed, slow;
	struct page *page = NULL;
	u32 policy;

	scoped_guard(spinlock, &r->lock) {
		policy = r->policy;
		allowed = r->nodes;
	}
	if (nodes_empty(allowed))
		allowed = node_states[N_MEMORY];

	*fastp = false;
	if (policy == CXLTIER_POLICY_FAST_FIRST || policy == CXLTIER_POLICY_PINNED_FAST) {
		page = cxlt_alloc_fast(r, &allowed, nidp);
		if (page || policy == CXLTIER_POLICY_PINNED_FAST) {
			*fastp = !!page;
			return page;
		}
	}

	cxlt_tier_nodes(&slow);
	nodes_and(slow, slow, allowed);
	switch (policy) {
	case CXLTIER_POLICY_SLOW_ONLY:		/* fill the first node, then the next */
		return cxlt_alloc_slow(r, &slow, 0, nidp);
	case CXLTIER_POLICY_FAST_FIRST:		/* spill over the blades page by page */
	case CXLTIER_POLICY_INTERLEAVE:
		return cxlt_alloc_slow(r, &slow, pgoff, nidp);
	}
	return NULL;
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
	return 0;
}

/**
 * cxlt_region_table_free() - give back a region's pages and page table
 * @r: the region; nothing maps it or can fault on it any more
 *
 * A fenced entry's page, if any, belongs to the fencer and is not freed here.
 *
 * Context: process context; sleeps.
 */
void cxlt_region_table_free(struct cxlt_region *r)
{
	struct cxlt_rpage *chunk, *rp;
	unsigned long c, i;

	xa_for_each(&r->chunks, c, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++) {
			rp = &chunk[i];
			/* A migrator holds a region reference while it works. */
			WARN_ON_ONCE(cxlt_rp_state(rp) == CXLT_RP_MIGRATING);
			if (cxlt_rp_state(rp) != CXLT_RP_PRESENT)
				continue;
			cxlt_uncharge(r, rp->page, cxlt_rp_node(rp), rp->bits & CXLT_RP_FAST);
			/* put_page(): a get_user_pages() pin may outlive the region. */
			put_page(rp->page);
		}
		free_page((unsigned long)chunk);
		cond_resched();
	}
	xa_destroy(&r->chunks);
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
		old_memcg = set_active_memcg(r->memcg);
		chunk = (struct cxlt_rpage *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
		if (chunk) {
			old = xa_cmpxchg(&r->chunks, c, NULL, chunk, GFP_KERNEL_ACCOUNT);
			if (old) {
				free_page((unsigned long)chunk);
				chunk = xa_is_err(old) ? NULL : old;
			}
		}
		set_active_memcg(old_memcg);
	}
	return chunk ? &chunk[pgoff % CXLT_RP_PER_CHUNK] : NULL;
}

/*
 * A fatal signal arrived while the fault waited for an entry.  Give the fault up
 * the way the mm expects (as folio_lock_or_retry() does): drop the mmap or VMA
 * lock and ask for a retry, which the arch fault handler turns into a return to
 * the dying task.  When the caller does not allow that, SIGBUS (a dying task).
 */
static vm_fault_t cxlt_fault_killed(struct vm_fault *vmf)
{
	if ((vmf->flags & FAULT_FLAG_ALLOW_RETRY) &&
	    !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
		release_fault_lock(vmf);
		return VM_FAULT_RETRY;
	}
	return VM_FAULT_SIGBUS;
}

static vm_fault_t cxlt_region_fault(struct vm_fault *vmf)
{
	struct cxlt_region *r = vmf->vma->vm_private_data;
	struct cxlt_rpage *rp;
	struct page *page;
	bool fast;
	int nid, rc;

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
		if (cxlt_rp_lock_killable(rp))
			return cxlt_fault_killed(vmf);
		if (cxlt_rp_state(rp) != CXLT_RP_MIGRATING)
			break;
		cxlt_rp_unlock(rp);
		if (wait_var_event_killable(rp, cxlt_rp_state(rp) != CXLT_RP_MIGRATING))
			return cxlt_fault_killed(vmf);
	}

	switch (cxlt_rp_state(rp)) {
	case CXLT_RP_EMPTY:
		page = cxlt_place(r, vmf->pgoff, &nid, &fast);
		if (!page) {
			cxlt_rp_unlock(rp);
			pr_debug("region %s: no memory for page %lu under policy %s (fast_budget_mb=%u)\n",
				 r->name, vmf->pgoff, cxlt_policy_names[r->policy],
				 READ_ONCE(fast_budget_mb));
			return VM_FAULT_SIGBUS;
		}
		rp->page = page;
		cxlt_rp_update(rp, CXLT_RP_STATE_MASK | CXLT_RP_FAST | CXLT_RP_NODE_MASK,
			       (CXLT_RP_PRESENT << CXLT_RP_STATE_SHIFT) |
			       (fast ? CXLT_RP_FAST : 0) |
			       ((unsigned long)nid << CXLT_RP_NODE_SHIFT));
		atomic_long_inc(&r->resident);
		break;
	case CXLT_RP_PRESENT:
		break;
	case CXLT_RP_FENCED:
		cxlt_rp_unlock(rp);
		return VM_FAULT_HWPOISON;
	case CXLT_RP_MIGRATING:		/* not with the lock held (loop above) */
		break;
	}

	rc = vm_insert_page(vmf->vma, vmf->address, rp->page);
	cxlt_rp_unlock(rp);
	/*
	 * -EBUSY: another thread of this mm mapped the page while we waited.  Any
	 * other error (no memory for a page table page) is SIGBUS, never
	 * VM_FAULT_OOM (see the DOC above).
	 */
	if (rc && rc != -EBUSY)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
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
 * region outlives every VMA; open/close only count mappings for stat.
 */
static const struct vm_operations_struct cxlt_region_vm_ops = {
	.open = cxlt_region_vm_open,
	.close = cxlt_region_vm_close,
	.fault = cxlt_region_fault,
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
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND);
	vma->vm_ops = &cxlt_region_vm_ops;
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
 * Blades beyond @c->max_blades are not counted.
 *
 * Context: process context; takes each non-empty entry's lock in turn.
 */
void cxlt_region_census(struct cxlt_region *r, struct cxlt_census *c)
{
	struct cxlt_rpage *chunk, *rp;
	unsigned long ci, i;
	int n, k, b;

	xa_for_each(&r->chunks, ci, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++) {
			rp = &chunk[i];
			if (cxlt_rp_state(rp) == CXLT_RP_EMPTY)
				continue;
			cxlt_rp_lock(rp);
			if (cxlt_rp_state(rp) != CXLT_RP_PRESENT &&
			    cxlt_rp_state(rp) != CXLT_RP_MIGRATING) {
				cxlt_rp_unlock(rp);
				continue;
			}
			c->node_pages[cxlt_rp_node(rp)]++;
			if (rp->bits & CXLT_RP_FAST)
				c->fast++;
			n = cxlt_pfn_blades(page_to_pfn(rp->page), c->names, CXLT_MAX_WAYS);
			cxlt_rp_unlock(rp);
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

/*
 * Refuse to offline a memory block that holds region pages: the kernel cannot
 * migrate them (see the DOC above).  Offlining isolates the block's pageblocks
 * before it calls MEM_GOING_OFFLINE, so no page allocated after this check can come
 * from the block; a page allocated before it was counted in flight on its node
 * before the allocation and in its block after it (cxlt_alloc_on()), so this check
 * sees it in one or the other.  An allocation in flight on the node refuses too
 * (its block is not known yet): the offline can be retried a moment later.
 */
static int cxlt_region_memory_notify(struct notifier_block *nb, unsigned long action,
				     void *data)
{
	struct memory_notify *mn = data;
	unsigned long id, first, last;
	struct cxlt_block *blk;
	long pages = 0;
	int nid;

	if (action != MEM_GOING_OFFLINE || !mn->nr_pages)
		return NOTIFY_OK;
	nid = pfn_to_nid(mn->start_pfn);
	first = cxlt_block_id(mn->start_pfn);
	last = cxlt_block_id(mn->start_pfn + mn->nr_pages - 1);
	xa_for_each_range(&cxlt_acct.blocks, id, blk, first, last)
		pages += atomic_long_read(&blk->pages);
	if (!pages && !atomic_long_read(&cxlt_acct.inflight[nid]))
		return NOTIFY_OK;
	pr_info_ratelimited("memory %#llx-%#llx (node %d): %ld pages of global regions live there and cannot be moved; destroy those regions first\n",
			    PFN_PHYS(mn->start_pfn), PFN_PHYS(mn->start_pfn + mn->nr_pages) - 1,
			    nid, pages);
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block cxlt_region_memory_nb = {
	.notifier_call = cxlt_region_memory_notify,
};

/* debugfs "accounting": the module-wide counters, for tests and operators. */
static int cxlt_acct_show(struct seq_file *m, void *unused)
{
	struct cxlt_block *blk;
	unsigned long id;
	int nid;

	seq_printf(m, "fast_pages %ld\n", atomic_long_read(&cxlt_acct.fast));
	for_each_node(nid)
		if (atomic_long_read(&cxlt_acct.node[nid]) ||
		    atomic_long_read(&cxlt_acct.inflight[nid]))
			seq_printf(m, "node%d_pages %ld inflight %ld\n", nid,
				   atomic_long_read(&cxlt_acct.node[nid]),
				   atomic_long_read(&cxlt_acct.inflight[nid]));
	xa_for_each(&cxlt_acct.blocks, id, blk)
		if (atomic_long_read(&blk->pages))
			seq_printf(m, "memory%lu_pages %ld\n", id,
				   atomic_long_read(&blk->pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxlt_acct);

int cxlt_region_mm_init(struct dentry *dir)
{
	BUILD_BUG_ON(sizeof(struct cxlt_rpage) != 16);
	BUILD_BUG_ON(MAX_NUMNODES > (CXLT_RP_NODE_MASK >> CXLT_RP_NODE_SHIFT) + 1);
	if (fast_user_pct > 100) {
		pr_err("fast_user_pct=%u is out of range (0-100)\n", fast_user_pct);
		return -EINVAL;
	}
	debugfs_create_file("accounting", 0400, dir, NULL, &cxlt_acct_fops);
	return register_memory_notifier(&cxlt_region_memory_nb);
}

void cxlt_region_mm_exit(void)
{
	struct cxlt_block *blk;
	unsigned long id;

	unregister_memory_notifier(&cxlt_region_memory_nb);
	xa_for_each(&cxlt_acct.blocks, id, blk)
		kfree(blk);
	xa_destroy(&cxlt_acct.blocks);
}
