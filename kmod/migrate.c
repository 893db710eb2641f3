// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the migrator
 *
 * cxlt_migrate_batch() moves pages of one region to the fast tier or to a slow
 * tier, the way the kernel's migrate_pages() moves page-cache folios (which a
 * module may not call), with the steps of a move split so that a run of
 * neighbouring pages costs one TLB shootdown:
 *
 *  1. Lock the folios of a run of consecutive page offsets (at most
 *     CXLT_RUN_MAX), in ascending offset order.  Only the first lock of a run may
 *     sleep; the others are trylocks, so two lockers of overlapping runs never wait
 *     for each other in a cycle, and a page that is busy is skipped for this time.
 *     A fault holds at most one region folio lock, under the mmap or VMA lock.
 *  2. Allocate the target folios (charged; nothing else is locked meanwhile but
 *     our own folios, which nothing in reclaim waits for: the mapping is
 *     unevictable, and the module's shrinker, reclaim.c, only trylocks them,
 *     with CXLT_MIG_TRYLOCK, which makes every lock of a run a trylock).
 *  3. Unmap the run from every process once: unmap_mapping_pages() over the whole
 *     run zaps each VMA's range and flushes the TLB once per VMA.  No process can
 *     map the pages again while we hold their locks: the fault handler takes the
 *     folio lock and rechecks folio->mapping.
 *  4. Per folio: freeze its reference count at exactly the page cache's and ours.
 *     Any other reference (a get_user_pages() pin, a lookup in flight, a per-CPU
 *     LRU cache) makes the freeze fail and the page is skipped: nothing is copied
 *     under a pinner.  The copy (folio_mc_copy(): machine-check safe, a poisoned
 *     source fails the move instead of crashing the kernel) is the page's last
 *     state: no PTE maps the page and no pin holds it, and a new mapping or pin
 *     needs a fault, which waits for the folio lock we hold; a lookup that takes a
 *     reference after the count is unfrozen can only wait for that lock too.
 *     After the copy, with the count still frozen, the move is checked again: a
 *     source that memory_failure() is poisoning (it sets PG_hwpoison before it
 *     takes the folio lock) or that a fence reached meanwhile (its barrier comes
 *     before its folio locks) stays for them, not healed by a copy; a target on a
 *     range fenced since it was allocated is not used.
 *  5. Switch the page cache entry to the new folio (replace_page_cache_folio(),
 *     which also moves the memory cgroup charge), put it on the LRU, update the
 *     region's entry, move the module's charge, unlock.  The old folio is freed
 *     when our reference goes.
 *
 * Lock order (see also cxltier.h): mmap/VMA lock (faults only) -> region folio
 * locks, ascending offsets -> i_mmap_rwsem -> page-table locks; the xarray lock is
 * taken inside replace_page_cache_folio().  Lockdep sees the folio locks as one
 * lock, cxlt_page_lockdep_map, acquired for the whole run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/page_ref.h>
#include <linux/pagemap.h>
#include <linux/sched/clock.h>
#include <linux/swap.h>

#include "cxltier.h"
#include "fence.h"
#include "migrate.h"
#include "region_mm.h"
#include "region_types.h"
#include "tier.h"
#include "trace.h"

/* Pages unmapped together; a run's folio pointers live on the stack. */
#define CXLT_RUN_MAX		32

/* The page cache's reference and the migrator's own. */
#define CXLT_MOVE_REFS		2

static void cxlt_count_move(struct cxlt_region *r, struct cxlt_rpage *rp, bool fast,
			    unsigned long slow_pfn, u32 period)
{
	u32 bits = READ_ONCE(rp->bits);
	u32 moved = (bits & CXLT_RP_MOVED_MASK) >> CXLT_RP_MOVED_SHIFT;
	bool was_promoted = bits & CXLT_RP_PROMOTED;

	/* Period 0 is no daemon move's: reclaim's demotions pass 0. */
	if (period && moved && was_promoted != fast &&
	    cxlt_stamp_age(cxlt_move_stamp(period), moved) < CXLT_PINGPONG_PERIODS)
		atomic64_inc(&r->mig.pingpong);
	if (fast)
		atomic64_inc(&r->mig.promoted);
	else
		atomic64_inc(&r->mig.demoted);
	atomic64_add(PAGE_SIZE, &r->mig.moved_bytes);
	cxlt_tier_count_move(slow_pfn, fast);
}

/* Steps 4 and 5 for one locked, unmapped folio.  Consumes @dst on failure. */
static enum cxlt_move_result cxlt_move_one(struct cxlt_region *r, struct cxlt_rpage *rp,
					   struct folio *src, struct folio *dst, int nid,
					   bool fast, u32 period)
{
	int from = folio_nid(src);
	bool was_fast = READ_ONCE(rp->bits) & CXLT_RP_FAST;
	unsigned long slow_pfn;
	enum cxlt_move_result res;

	if (folio_maybe_dma_pinned(src)) {
		res = CXLT_MV_PINNED;
		goto drop;
	}
	/* Off the LRU: in a per-CPU LRU cache (holding a reference) or isolated. */
	if (!folio_test_lru(src) || folio_mapped(src) ||
	    !folio_ref_freeze(src, CXLT_MOVE_REFS)) {
		res = folio_ref_count(src) > CXLT_MOVE_REFS + 1 ? CXLT_MV_PINNED : CXLT_MV_BUSY;
		goto drop;
	}
	if (folio_mc_copy(dst, src)) {
		folio_ref_unfreeze(src, CXLT_MOVE_REFS);
		res = CXLT_MV_POISON;
		goto drop;
	}
	if (folio_test_hwpoison(src) || cxlt_pfn_fenced(folio_pfn(src)) ||
	    cxlt_pfn_fenced(folio_pfn(dst))) {
		folio_ref_unfreeze(src, CXLT_MOVE_REFS);
		res = CXLT_MV_GONE;
		goto drop;
	}
	folio_ref_unfreeze(src, CXLT_MOVE_REFS);

	__folio_set_locked(dst);
	__folio_mark_uptodate(dst);
	folio_set_dirty(dst);
	replace_page_cache_folio(src, dst);
	folio_add_lru(dst);
	slow_pfn = fast ? folio_pfn(src) : folio_pfn(dst);
	cxlt_count_move(r, rp, fast, slow_pfn, period);
	cxlt_rp_update(rp, CXLT_RP_FAST | CXLT_RP_NODE_MASK | CXLT_RP_PROMOTED |
		       CXLT_RP_MOVED_MASK,
		       (fast ? CXLT_RP_FAST | CXLT_RP_PROMOTED : 0) |
		       ((u32)nid << CXLT_RP_NODE_SHIFT) |
		       (cxlt_move_stamp(period) << CXLT_RP_MOVED_SHIFT));
	cxlt_region_uncharge(r, from, was_fast);
	folio_unlock(dst);
	folio_put(dst);
	return CXLT_MV_MOVED;

drop:
	cxlt_region_uncharge(r, nid, fast);
	folio_put(dst);
	return res;
}

/* Lock the folio at @pgoff for a move to @fast; NULL with @mv->result set if not. */
static struct folio *cxlt_move_lock(struct cxlt_region *r, struct cxlt_move *mv,
				    bool first, bool fast, unsigned int flags,
				    struct cxlt_rpage **rpp)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct cxlt_rpage *rp = cxlt_region_entry(r, mv->pgoff, false);
	struct folio *folio;

	mv->result = CXLT_MV_GONE;
	if (!rp || cxlt_rp_state(rp) != CXLT_RP_PRESENT)
		return NULL;
	folio = filemap_get_folio(mapping, mv->pgoff);
	if (IS_ERR(folio))
		return NULL;
	if (first && !(flags & CXLT_MIG_TRYLOCK))
		folio_lock(folio);
	else if (!folio_trylock(folio))
		goto busy;
	if (folio->mapping != mapping || cxlt_rp_state(rp) != CXLT_RP_PRESENT) {
		folio_unlock(folio);
		folio_put(folio);
		return NULL;
	}
	/*
	 * PIN: stays.  On a fenced blade: its data is gone; the fencer takes it.
	 * Poisoned: memory_failure() takes it.
	 */
	if (cxlt_rp_hint(rp) == CXLTIER_HINT_PIN || folio_test_hwpoison(folio) ||
	    cxlt_pfn_fenced(folio_pfn(folio))) {
		folio_unlock(folio);
		folio_put(folio);
		return NULL;
	}
	if (!!(READ_ONCE(rp->bits) & CXLT_RP_FAST) == fast) {
		mv->result = CXLT_MV_THERE;
		folio_unlock(folio);
		folio_put(folio);
		return NULL;
	}
	*rpp = rp;
	return folio;

busy:
	mv->result = CXLT_MV_BUSY;
	folio_put(folio);
	return NULL;
}

/* One run: @mv[0..@nr) have consecutive offsets. */
static void cxlt_migrate_run(struct cxlt_region *r, struct cxlt_move *mv, unsigned int nr,
			     bool fast, u32 period, unsigned int flags)
{
	struct folio *src[CXLT_RUN_MAX], *dst[CXLT_RUN_MAX];
	struct cxlt_rpage *rp[CXLT_RUN_MAX];
	unsigned long lo = ULONG_MAX, hi = 0;
	unsigned int i, locked = 0;
	int nid[CXLT_RUN_MAX];

	/* Only trylocks: no wait, so no dependency for lockdep either. */
	if (flags & CXLT_MIG_TRYLOCK)
		lock_map_acquire_try(&cxlt_page_lockdep_map);
	else
		lock_map_acquire(&cxlt_page_lockdep_map);
	for (i = 0; i < nr; i++) {
		src[i] = cxlt_move_lock(r, &mv[i], !locked, fast, flags, &rp[i]);
		dst[i] = NULL;
		if (!src[i])
			continue;
		locked++;
		dst[i] = cxlt_region_alloc_target(r, mv[i].pgoff, fast, &nid[i]);
		if (!dst[i]) {
			mv[i].result = CXLT_MV_NOMEM;
			folio_unlock(src[i]);
			folio_put(src[i]);
			src[i] = NULL;
			continue;
		}
		lo = min(lo, mv[i].pgoff);
		hi = max(hi, mv[i].pgoff);
	}
	if (lo <= hi)
		unmap_mapping_pages(r->inode->i_mapping, lo, hi - lo + 1, false);
	for (i = 0; i < nr; i++) {
		if (!src[i])
			continue;
		mv[i].result = cxlt_move_one(r, rp[i], src[i], dst[i], nid[i], fast, period);
		mv[i].nid = nid[i];
		if (mv[i].result == CXLT_MV_PINNED)
			atomic64_inc(&r->mig.skipped_pinned);
		else if (mv[i].result == CXLT_MV_POISON)
			atomic64_inc(&r->mig.failed);
		folio_unlock(src[i]);
		/*
		 * The copy hit poison: the kernel's memory_failure() fences the page
		 * (cxlt_region_error_remove_folio()); queued, as it takes the lock.
		 */
		if (mv[i].result == CXLT_MV_POISON)
			memory_failure_queue(folio_pfn(src[i]), 0);
		folio_put(src[i]);
	}
	lock_map_release(&cxlt_page_lockdep_map);
}

/**
 * cxlt_migrate_batch() - move pages of a region to one tier
 * @r: the region, referenced by the caller
 * @mv: the pages, sorted by ascending @pgoff, each once; results are filled in
 * @nr: entries of @mv
 * @fast: to the fast tier (DRAM), else to a slow tier (the region's allowed CXL
 *	tiers, never one being removed)
 * @period: the daemon's period number (for the ping-pong count); 0 for a move that
 *	is not the daemon's (it is then not counted as ping-pong, nor later undone
 *	as one)
 * @flags: CXLT_MIG_TRYLOCK: never wait for a folio lock (busy pages are skipped)
 *
 * Context: process context; sleeps (without CXLT_MIG_TRYLOCK, for a folio lock).
 * Takes region folio locks (see the DOC above).
 */
void cxlt_migrate_batch(struct cxlt_region *r, struct cxlt_move *mv, unsigned int nr,
			bool fast, u32 period, unsigned int flags)
{
	unsigned int i = 0, n, cnt[CXLT_MV_NR] = { };
	u64 start = local_clock();

	while (i < nr) {
		for (n = 1; i + n < nr && n < CXLT_RUN_MAX &&
		     mv[i + n].pgoff == mv[i + n - 1].pgoff + 1; n++)
			;
		cxlt_migrate_run(r, mv + i, n, fast, period, flags);
		i += n;
		cond_resched();
	}
	for (i = 0; i < nr; i++)
		cnt[mv[i].result]++;
	if (cnt[CXLT_MV_NOMEM])
		atomic64_add(cnt[CXLT_MV_NOMEM], &r->mig.failed);
	trace_cxlt_migrate_batch(r->id, nr ? mv[0].pgoff : 0, nr, fast, cnt[CXLT_MV_MOVED],
				 cnt[CXLT_MV_PINNED], cnt[CXLT_MV_BUSY],
				 cnt[CXLT_MV_NOMEM] + cnt[CXLT_MV_POISON],
				 local_clock() - start);
}
