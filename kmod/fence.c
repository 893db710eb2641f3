// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: fencing a blade
 *
 * When a blade (a CXL memory device) fails, no page of a global region that has
 * data on it may be read again, nor replaced behind the application's back by a
 * page of zeroes.  cxlt_fence_blade():
 *
 *  1. Barrier.  The blade is listed as fenced (cxlt_blade_fenced(),
 *     cxlt_pfn_fenced()) and its tiers are marked fenced in tier.c, so that from
 *     now on neither placement nor the migrator puts a page on any node whose
 *     memory interleaves over it, and the migrator leaves pages that are on it for
 *     this fence instead of copying them.
 *  2. Scan.  Every resident page of every region whose frame has bytes on the blade
 *     (tier.c's interleave arithmetic, cxlt_pfn_blades()) is fenced under its folio
 *     lock: the entry becomes FENCED, the folio is marked HWPoison (so the page is
 *     never handed out again and memory offline skips it), unmapped from every
 *     process and dropped from the page cache; its charge goes.  A later access
 *     faults with VM_FAULT_HWPOISON: SIGBUS, BUS_MCEERR_AR, at that address.  A page
 *     that a migrator moved off the blade before the barrier is on a healthy node
 *     now, intact, and is left alone.
 *
 * Fencing is for good: a fenced blade stays fenced until the module is unloaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cxltier.h"
#include "fence.h"
#include "region.h"
#include "region_mm.h"
#include "region_types.h"
#include "tier.h"

/* Blades fenced at once; more is refused (ENOSPC). */
#define CXLT_MAX_FENCED		64

static struct {
	spinlock_t lock;	/* @names, @nr: a leaf lock, taken on the migrator's path */
	int nr;
	char names[CXLT_MAX_FENCED][CXLT_NAME_LEN];
	struct mutex scan;	/* one fence scan at a time */
} cxlt_fence = {
	.lock = __SPIN_LOCK_UNLOCKED(cxlt_fence.lock),
	.scan = __MUTEX_INITIALIZER(cxlt_fence.scan),
};

/**
 * cxlt_blade_fenced() - has @blade been fenced?
 * @blade: memdev name
 *
 * Context: any; takes a spinlock.
 */
bool cxlt_blade_fenced(const char *blade)
{
	bool found = false;
	int i;

	spin_lock(&cxlt_fence.lock);
	for (i = 0; i < cxlt_fence.nr && !found; i++)
		found = !strcmp(cxlt_fence.names[i], blade);
	spin_unlock(&cxlt_fence.lock);
	return found;
}

/**
 * cxlt_pfn_fenced() - does page frame @pfn have bytes on a fenced blade?
 * @pfn: page frame number
 *
 * Context: any; takes spinlocks.
 */
bool cxlt_pfn_fenced(unsigned long pfn)
{
	struct cxlt_blade_name names[CXLT_MAX_WAYS];
	int n, k;

	if (!READ_ONCE(cxlt_fence.nr))
		return false;
	n = cxlt_pfn_blades(pfn, names, CXLT_MAX_WAYS);
	for (k = 0; k < n; k++)
		if (cxlt_blade_fenced(names[k].name))
			return true;
	return false;
}

static bool cxlt_pfn_on(unsigned long pfn, const char *blade)
{
	struct cxlt_blade_name names[CXLT_MAX_WAYS];
	int n, k;

	n = cxlt_pfn_blades(pfn, names, CXLT_MAX_WAYS);
	for (k = 0; k < n; k++)
		if (!strcmp(names[k].name, blade))
			return true;
	return false;
}

/* Fence page @pgoff of @r if its folio has bytes on @blade; 1 if fenced. */
static int cxlt_fence_page(struct cxlt_region *r, struct cxlt_rpage *rp, pgoff_t pgoff,
			   const char *blade)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct folio *folio;
	int fenced = 0;

	folio = filemap_lock_folio(mapping, pgoff);
	if (IS_ERR(folio))
		return 0;
	if (cxlt_rp_state(rp) != CXLT_RP_PRESENT || !cxlt_pfn_on(folio_pfn(folio), blade))
		goto out;
	cxlt_region_fence_entry(r, rp);
	/* Never handed out again: the page allocator keeps HWPoison pages. */
	folio_set_hwpoison(folio);
	unmap_mapping_pages(mapping, pgoff, 1, false);
	if (generic_error_remove_folio(mapping, folio))
		pr_debug("region %s: page %lu stays in the page cache, poisoned\n", r->name,
			 pgoff);
	fenced = 1;
out:
	folio_unlock(folio);
	folio_put(folio);
	return fenced;
}

static long cxlt_fence_region(struct cxlt_region *r, const char *blade)
{
	struct cxlt_rpage *chunk;
	unsigned long c, i;
	long n = 0;

	xa_for_each(&r->chunks, c, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++) {
			/* DRAM pages are on no blade. */
			if (cxlt_rp_state(&chunk[i]) != CXLT_RP_PRESENT ||
			    (READ_ONCE(chunk[i].bits) & CXLT_RP_FAST))
				continue;
			n += cxlt_fence_page(r, &chunk[i], c * CXLT_RP_PER_CHUNK + i, blade);
		}
		cond_resched();
	}
	return n;
}

/**
 * cxlt_fence_blade() - fence every region page with data on a blade
 * @blade: memdev name, e.g. "mem0"
 *
 * See DOC: fencing a blade.  The kernel log says how many pages and how long.
 *
 * Context: process context; sleeps (takes folio locks, unmaps).
 * Return: 0; -ENOENT when no tier has memory on a blade of that name (nothing is
 * changed); -EALREADY when it is fenced already; -ENOSPC when too many are.
 */
int cxlt_fence_blade(const char *blade)
{
	struct cxlt_region **snap;
	long pages = 0;
	ktime_t t0 = ktime_get();
	int n, i, rc;
	u64 gen;

	guard(mutex)(&cxlt_fence.scan);
	if (cxlt_blade_fenced(blade))
		return -EALREADY;
	spin_lock(&cxlt_fence.lock);
	if (cxlt_fence.nr == CXLT_MAX_FENCED) {
		spin_unlock(&cxlt_fence.lock);
		return -ENOSPC;
	}
	strscpy(cxlt_fence.names[cxlt_fence.nr], blade, CXLT_NAME_LEN);
	WRITE_ONCE(cxlt_fence.nr, cxlt_fence.nr + 1);
	spin_unlock(&cxlt_fence.lock);
	rc = cxlt_tiers_fence_blade(blade);
	if (rc <= 0) {
		/* No tier has data on it: nothing to fence, and nothing was. */
		spin_lock(&cxlt_fence.lock);
		WRITE_ONCE(cxlt_fence.nr, cxlt_fence.nr - 1);
		spin_unlock(&cxlt_fence.lock);
		return rc ? rc : -ENOENT;
	}

	n = cxlt_regions_snapshot(&snap, &gen);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		pages += cxlt_fence_region(snap[i], blade);
		cxlt_region_put(snap[i]);
	}
	kvfree(snap);
	pr_warn("blade %s fenced: %ld region pages poisoned and unmapped in %lld us\n",
		blade, pages, ktime_us_delta(ktime_get(), t0));
	return 0;
}
