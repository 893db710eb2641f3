// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: region memory: page table, placement, capacity accounting, mmap and faults
 *
 * A region's pages are allocated at first touch, in the fault handler, on the node
 * the region's policy picks, zeroed, and mapped with vm_insert_page() while the
 * entry lock is held (see DOC: region page table in region.h).  vm_insert_page()
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
 * limited to fast_budget_mb.  The slow tiers are the nodes of registered tiers
 * (tier.c), each limited to its managed pages.  A node that is neither is never
 * used.  Allocations are __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN: they fail
 * fast and quietly and never invoke the OOM killer; the policy then falls back to
 * the next node it allows, and when none is left the fault gets VM_FAULT_SIGBUS
 * (SIGBUS, BUS_ADRERR) with one ratelimited line in the kernel log.  Not
 * VM_FAULT_OOM: since Linux 5.16 that makes the #PF handler retry the fault
 * forever rather than kill anything.
 *
 * Pages on tier nodes are allocated __GFP_MOVABLE, because tier memory is onlined
 * to ZONE_MOVABLE and nothing else can be allocated there, but the kernel cannot
 * migrate them (they are not on the LRU and have no movable_ops): offlining a
 * memory block that holds one would spin until a signal.  A memory notifier
 * therefore refuses MEM_GOING_OFFLINE on any node that holds region pages, so that
 * removing such a tier fails at once with EBUSY and a line saying why.  Destroy
 * the regions (or, with later work, drain the blade) first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "cxltier.h"
#include "region.h"

static unsigned int fast_budget_mb = 256;
module_param(fast_budget_mb, uint, 0644);
MODULE_PARM_DESC(fast_budget_mb,
		 "DRAM (fast tier) that global regions may use, in MiB (default 256); lowering it affects new pages only");

/*
 * The module's own capacity accounting, in pages.  Charged before a page is
 * allocated and uncharged when the region that owns it is freed, so that the
 * memory notifier below never misses a page being allocated (see there).
 */
static struct {
	atomic_long_t fast;			/* charged to fast_budget_mb */
	atomic_long_t node[MAX_NUMNODES];	/* region pages on each node */
} cxlt_acct;

static const char *const cxlt_policy_names[] = {
	[CXLTIER_POLICY_FAST_FIRST] = "fast-first",
	[CXLTIER_POLICY_SLOW_ONLY] = "slow-only",
	[CXLTIER_POLICY_INTERLEAVE] = "interleave",
	[CXLTIER_POLICY_PINNED_FAST] = "pinned-fast",
};

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

static bool cxlt_charge(int nid, bool fast)
{
	long budget = (long)READ_ONCE(fast_budget_mb) << (20 - PAGE_SHIFT);

	/* Fully ordered: the notifier reads the node count after isolating a block. */
	if (atomic_long_inc_return(&cxlt_acct.node[nid]) > cxlt_node_capacity(nid))
		goto uncharge_node;
	if (fast && atomic_long_inc_return(&cxlt_acct.fast) > budget) {
		atomic_long_dec(&cxlt_acct.fast);
		goto uncharge_node;
	}
	return true;

uncharge_node:
	atomic_long_dec(&cxlt_acct.node[nid]);
	return false;
}

static void cxlt_uncharge(int nid, bool fast)
{
	if (fast)
		atomic_long_dec(&cxlt_acct.fast);
	atomic_long_dec(&cxlt_acct.node[nid]);
}

static struct page *cxlt_alloc_on(int nid, bool fast)
{
	gfp_t gfp = __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN | __GFP_ZERO;
	struct page *page;

	if (!cxlt_charge(nid, fast))
		return NULL;
	page = alloc_pages_node(nid, gfp | (fast ? GFP_HIGHUSER : GFP_HIGHUSER_MOVABLE), 0);
	if (!page)
		cxlt_uncharge(nid, fast);
	return page;
}

/* The first fast node that @allowed permits and has room, the local node first. */
static struct page *cxlt_alloc_fast(const nodemask_t *allowed, int *nidp)
{
	struct page *page;
	int local = numa_node_id(), nid;

	if (cxlt_node_is_fast(local) && node_isset(local, *allowed)) {
		page = cxlt_alloc_on(local, true);
		if (page) {
			*nidp = local;
			return page;
		}
	}
	for_each_node_mask(nid, *allowed) {
		if (nid == local || !cxlt_node_is_fast(nid))
			continue;
		page = cxlt_alloc_on(nid, true);
		if (page) {
			*nidp = nid;
			return page;
		}
	}
	return NULL;
}

/* Try the nodes of @slow in order, starting with the @first'th (cyclically). */
static struct page *cxlt_alloc_slow(const nodemask_t *slow, unsigned long first, int *nidp)
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
		page = cxlt_alloc_on(nid, false);
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

	spin_lock(&r->lock);
	policy = r->policy;
	allowed = r->nodes;
	spin_unlock(&r->lock);
	if (nodes_empty(allowed))
		allowed = node_states[N_MEMORY];

	*fastp = false;
	if (policy == CXLTIER_POLICY_FAST_FIRST || policy == CXLTIER_POLICY_PINNED_FAST) {
		page = cxlt_alloc_fast(&allowed, nidp);
		if (page || policy == CXLTIER_POLICY_PINNED_FAST) {
			*fastp = !!page;
			return page;
		}
	}

	cxlt_tier_nodes(&slow);
	nodes_and(slow, slow, allowed);
	switch (policy) {
	case CXLTIER_POLICY_SLOW_ONLY:		/* fill the first node, then the next */
		return cxlt_alloc_slow(&slow, 0, nidp);
	case CXLTIER_POLICY_FAST_FIRST:		/* spill over the blades page by page */
	case CXLTIER_POLICY_INTERLEAVE:
		return cxlt_alloc_slow(&slow, pgoff, nidp);
	}
	return NULL;
}

/**
 * cxlt_region_table_alloc() - allocate a region's chunk directory
 * @r: the region, with @nr_pages set
 *
 * Context: process context, GFP_KERNEL; charged to the caller's memory cgroup.
 * Return: 0 or -ENOMEM.
 */
int cxlt_region_table_alloc(struct cxlt_region *r)
{
	r->nr_chunks = DIV_ROUND_UP(r->nr_pages, CXLT_RP_PER_CHUNK);
	r->dir = kvcalloc(r->nr_chunks, sizeof(*r->dir), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	return r->dir ? 0 : -ENOMEM;
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

	if (!r->dir)
		return;
	for (c = 0; c < r->nr_chunks; c++) {
		chunk = r->dir[c];
		if (!chunk)
			continue;
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++) {
			rp = &chunk[i];
			/* A migrator holds a region reference while it works. */
			WARN_ON_ONCE(cxlt_rp_state(rp) == CXLT_RP_MIGRATING);
			if (cxlt_rp_state(rp) != CXLT_RP_PRESENT)
				continue;
			cxlt_uncharge(cxlt_rp_node(rp), rp->bits & CXLT_RP_FAST);
			/* put_page(): a get_user_pages() pin may outlive the region. */
			put_page(rp->page);
		}
		free_page((unsigned long)chunk);
		cond_resched();
	}
	kvfree(r->dir);
	r->dir = NULL;
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

	/* Pairs with the cmpxchg() below: the chunk's zeroes are seen before it. */
	chunk = smp_load_acquire(&r->dir[c]);
	if (!chunk && alloc) {
		chunk = (struct cxlt_rpage *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
		if (!chunk)
			return NULL;
		old = cmpxchg(&r->dir[c], NULL, chunk);
		if (old) {
			free_page((unsigned long)chunk);
			chunk = old;
		}
	}
	return chunk ? &chunk[pgoff % CXLT_RP_PER_CHUNK] : NULL;
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
	if (!rp)
		return VM_FAULT_OOM;

	for (;;) {
		cxlt_rp_lock(rp);
		if (cxlt_rp_state(rp) != CXLT_RP_MIGRATING)
			break;
		cxlt_rp_unlock(rp);
		wait_var_event(rp, cxlt_rp_state(rp) != CXLT_RP_MIGRATING);
	}

	switch (cxlt_rp_state(rp)) {
	case CXLT_RP_EMPTY:
		page = cxlt_place(r, vmf->pgoff, &nid, &fast);
		if (!page) {
			cxlt_rp_unlock(rp);
			pr_warn_ratelimited("region %s: no memory for page %lu under policy %s (fast_budget_mb=%u); SIGBUS to %s[%d]\n",
					    r->name, vmf->pgoff, cxlt_policy_names[r->policy],
					    READ_ONCE(fast_budget_mb), current->comm,
					    task_pid_nr(current));
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
	/* -EBUSY: another thread of this mm mapped the page while we waited. */
	if (rc && rc != -EBUSY)
		return vmf_error(rc);
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
		pr_warn_ratelimited("mmap region %s (%s[%d]): MAP_PRIVATE is not supported, use MAP_SHARED\n",
				    r->name, current->comm, task_pid_nr(current));
		return -EINVAL;
	}
	if (vma->vm_pgoff >= r->nr_pages || pages > r->nr_pages - vma->vm_pgoff) {
		pr_warn_ratelimited("mmap region %s (%s[%d]): pages %lu-%lu are beyond its end (%lu pages)\n",
				    r->name, current->comm, task_pid_nr(current),
				    vma->vm_pgoff, vma->vm_pgoff + pages - 1, r->nr_pages);
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

	for (ci = 0; ci < r->nr_chunks; ci++) {
		/* As in cxlt_region_entry(): see the chunk's contents after its pointer. */
		chunk = smp_load_acquire(&r->dir[ci]);
		if (!chunk)
			continue;
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
 * Refuse to offline memory of a node that holds region pages: the kernel cannot
 * migrate them (see the DOC above).  Offlining isolates the block's pageblocks
 * before it calls MEM_GOING_OFFLINE, so a page allocated after this check cannot
 * come from the block; a page being allocated before it was charged first
 * (cxlt_alloc_on()), so this check sees it.  Precise per node, conservative per
 * block: a node with region pages anywhere keeps all its blocks.
 */
static int cxlt_region_memory_notify(struct notifier_block *nb, unsigned long action,
				     void *data)
{
	struct memory_notify *mn = data;
	long pages;
	int nid;

	if (action != MEM_GOING_OFFLINE)
		return NOTIFY_OK;
	nid = pfn_to_nid(mn->start_pfn);
	pages = atomic_long_read(&cxlt_acct.node[nid]);
	if (!pages)
		return NOTIFY_OK;
	pr_warn_ratelimited("node %d: %ld pages of global regions live there and cannot be moved; destroy those regions before taking its memory offline\n",
			    nid, pages);
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block cxlt_region_memory_nb = {
	.notifier_call = cxlt_region_memory_notify,
};

int cxlt_region_mm_init(void)
{
	BUILD_BUG_ON(sizeof(struct cxlt_rpage) != 16);
	BUILD_BUG_ON(MAX_NUMNODES > (CXLT_RP_NODE_MASK >> CXLT_RP_NODE_SHIFT) + 1);
	return register_memory_notifier(&cxlt_region_memory_nb);
}

void cxlt_region_mm_exit(void)
{
	unregister_memory_notifier(&cxlt_region_memory_nb);
}
