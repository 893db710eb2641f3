// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: giving DRAM back under memory pressure
 *
 * Reclaim can neither drop nor demote region pages: they are dirty page cache of an
 * unevictable mapping (DOC: region memory in region_mm.c says why).  A host's
 * other users need DRAM all the same, so the module gives it back itself, as the
 * kernel's demotion would give back an anonymous working set:
 *
 *  - A fast-first page takes DRAM at its first touch, and the daemon promotes
 *    into DRAM, only while the node is above its high watermarks
 *    (cxlt_node_room()): where kswapd would not have to reclaim anything for it.
 *  - The daemon's room is that free DRAM, so when others take it the policy is
 *    short and demotes its coldest pages, once a period (daemon.c).
 *  - Between periods, and faster than the daemon when a burst comes, this
 *    shrinker: when reclaim runs for a DRAM node that is below its high
 *    watermarks, it demotes the fast-first region pages on that node to a tier,
 *    first those that the daemon's last window did not see used (the USED bit),
 *    then the others, never a PIN-hinted page, up to what reclaim asks for.  It
 *    counts them as reclaimed (mm_account_reclaimed_pages()), so an allocation
 *    that needed them gets them instead of the OOM killer.
 *
 * The shrinker runs inside reclaim, maybe under locks that the allocating task
 * holds, maybe one of ours (a fault holds a region folio lock while it allocates a
 * page table).  So it never waits for a lock: the region list and every folio are
 * trylocked (CXLT_MIG_TRYLOCK; a busy page is skipped), the targets are allocated
 * on tier nodes without reclaim recursing (reclaim runs with PF_MEMALLOC), and a
 * region whose last reference it holds is freed by a work item
 * (cxlt_region_put_async()).  Each call scans a bounded number of page entries,
 * going on from where the last call stopped in each region.
 *
 * A moved page tells the daemon's policy what happened the way any move by the
 * kernel does (POLTIER, DOC: the migration daemon); the move is not the daemon's,
 * so it is no ping-pong.  Counters: region statistics (demoted), and
 * /sys/kernel/cxltier/daemon/stats/reclaim_demoted_pages.  Module parameter
 * dram_reclaim turns the shrinker off (then only the daemon gives DRAM back, once a
 * period).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/shrinker.h>
#include <linux/swap.h>

#include "cxltier.h"
#include "migrate.h"
#include "reclaim.h"
#include "region.h"
#include "region_mm.h"
#include "region_types.h"
#include "tier.h"

static bool dram_reclaim = true;
module_param(dram_reclaim, bool, 0644);
MODULE_PARM_DESC(dram_reclaim,
		 "Demote region pages when reclaim runs on a DRAM node below its high watermarks (default on)");

/* Regions looked at per call, and pages per migration batch: both on the stack. */
#define CXLT_RECLAIM_REGIONS	16
#define CXLT_RECLAIM_BATCH	32
/* Entries scanned per call: this many per page asked for, and at least a chunk. */
#define CXLT_RECLAIM_SCAN_RATIO	16

static struct {
	struct shrinker *shrinker;
	atomic_t cursor;		/* place in the region list of the next call */
	atomic64_t demoted;		/* pages demoted, since load */
} cxlt_rcl;

/* Is reclaim for @nid something region pages can help, now? */
static bool cxlt_reclaim_wanted(int nid)
{
	return READ_ONCE(dram_reclaim) && cxlt_node_is_fast(nid) && cxlt_node_room(nid) < 0;
}

/* Region pages on the node: pinned-fast ones too, which the scan passes over. */
static unsigned long cxlt_reclaim_count(struct shrinker *s, struct shrink_control *sc)
{
	return cxlt_reclaim_wanted(sc->nid) ? cxlt_node_pages(sc->nid) : 0;
}

/* Demote the pages of @mv; how many moved. */
static unsigned long cxlt_reclaim_move(struct cxlt_region *r, struct cxlt_move *mv,
				       unsigned int n)
{
	unsigned long moved = 0;
	unsigned int i;

	cxlt_migrate_batch(r, mv, n, false, 0, CXLT_MIG_TRYLOCK);
	for (i = 0; i < n; i++)
		moved += mv[i].result == CXLT_MV_MOVED;
	return moved;
}

/* May the entry @bits be demoted from @nid in this pass? */
static bool cxlt_reclaim_pick(u32 bits, int nid, bool used)
{
	u32 hint = (bits & CXLT_RP_HINT_MASK) >> CXLT_RP_HINT_SHIFT;

	if ((bits & CXLT_RP_STATE_MASK) != CXLT_RP_PRESENT << CXLT_RP_STATE_SHIFT ||
	    !(bits & CXLT_RP_FAST) ||
	    (int)((bits & CXLT_RP_NODE_MASK) >> CXLT_RP_NODE_SHIFT) != nid ||
	    hint == CXLTIER_HINT_PIN)
		return false;
	/* Used or hinted hot: only in the second pass. */
	return used || (!(bits & CXLT_RP_USED) && hint != CXLTIER_HINT_HOT);
}

/*
 * Demote up to @want pages of @r from @nid, scanning at most *@budget entries from
 * the chunk where the last scan of @r stopped, and round.  Returns the pages moved.
 */
static unsigned long cxlt_reclaim_region(struct cxlt_region *r, int nid, bool used,
					 unsigned long want, unsigned long *budget)
{
	unsigned long start = READ_ONCE(r->reclaim_pos), c = start, i, done = 0;
	struct cxlt_move mv[CXLT_RECLAIM_BATCH];
	struct cxlt_rpage *chunk;
	bool wrapped = false;
	unsigned int n;

	while (*budget && done < want) {
		chunk = xa_find(&r->chunks, &c, ULONG_MAX, XA_PRESENT);
		if (!chunk || (wrapped && c >= start)) {
			if (wrapped || !start)
				break;
			wrapped = true;
			c = 0;
			continue;
		}
		/* A batch never spans chunks, so its offsets ascend. */
		for (i = 0, n = 0; i < CXLT_RP_PER_CHUNK && done + n < want; i++) {
			if (!cxlt_reclaim_pick(READ_ONCE(chunk[i].bits), nid, used))
				continue;
			mv[n++].pgoff = c * CXLT_RP_PER_CHUNK + i;
			if (n == ARRAY_SIZE(mv)) {
				done += cxlt_reclaim_move(r, mv, n);
				n = 0;
			}
		}
		if (n)
			done += cxlt_reclaim_move(r, mv, n);
		*budget -= min_t(unsigned long, *budget, CXLT_RP_PER_CHUNK);
		WRITE_ONCE(r->reclaim_pos, ++c);
	}
	return done;
}

static unsigned long cxlt_reclaim_scan(struct shrinker *s, struct shrink_control *sc)
{
	struct cxlt_region *rs[CXLT_RECLAIM_REGIONS];
	unsigned long want = sc->nr_to_scan, done = 0, budget;
	unsigned int start = atomic_read(&cxlt_rcl.cursor);
	int n, i, pass;

	if (!cxlt_reclaim_wanted(sc->nid))
		return SHRINK_STOP;
	n = cxlt_regions_try_fast_first(rs, ARRAY_SIZE(rs), start);
	if (!n && start) {
		start = 0;
		n = cxlt_regions_try_fast_first(rs, ARRAY_SIZE(rs), 0);
	}
	atomic_set(&cxlt_rcl.cursor, start + n);
	budget = max_t(unsigned long, want * CXLT_RECLAIM_SCAN_RATIO, CXLT_RP_PER_CHUNK);
	for (pass = 0; pass < 2 && done < want; pass++)
		for (i = 0; i < n && done < want && budget; i++)
			done += cxlt_reclaim_region(rs[i], sc->nid, pass, want - done, &budget);
	for (i = 0; i < n; i++)
		cxlt_region_put_async(rs[i]);
	if (!done)
		return SHRINK_STOP;
	atomic64_add(done, &cxlt_rcl.demoted);
	/* Freed DRAM pages, for the allocation that is reclaiming. */
	mm_account_reclaimed_pages(done);
	return done;
}

/**
 * cxlt_reclaim_demoted() - pages the shrinker demoted since load
 *
 * Return: pages.
 */
u64 cxlt_reclaim_demoted(void)
{
	return atomic64_read(&cxlt_rcl.demoted);
}

/**
 * cxlt_reclaim_init() - register the shrinker
 *
 * Context: module init, after the regions.
 * Return: 0 or -ENOMEM.
 */
int cxlt_reclaim_init(void)
{
	cxlt_rcl.shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "cxltier-dram");
	if (!cxlt_rcl.shrinker)
		return -ENOMEM;
	cxlt_rcl.shrinker->count_objects = cxlt_reclaim_count;
	cxlt_rcl.shrinker->scan_objects = cxlt_reclaim_scan;
	/* A demoted page is cheap to get back: the daemon promotes it when it is hot. */
	cxlt_rcl.shrinker->seeks = 1;
	shrinker_register(cxlt_rcl.shrinker);
	return 0;
}

/**
 * cxlt_reclaim_exit() - unregister the shrinker; waits for calls in progress
 *
 * Context: module exit, before the regions go.
 */
void cxlt_reclaim_exit(void)
{
	shrinker_free(cxlt_rcl.shrinker);
}
