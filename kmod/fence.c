// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: fencing
 *
 * When a blade (a CXL memory device) fails, or a CXL region that is a tier goes
 * away, no page with data on the failed part may be read again, nor replaced
 * behind its user's back by a page of zeroes.  A fence:
 *
 *  1. Barrier.  tier.c marks the interleave positions of the failed part in every
 *     tier (cxlt_tiers_fence()); from then on cxlt_pfn_fenced() is true for their
 *     pages, so neither placement nor the migrator puts a page there, and the
 *     migrator leaves the pages that are there to this fence instead of copying
 *     them (a copy would read what the failed part returns).
 *  2. Region pages.  Every resident slow page of every global region whose frame
 *     is fenced is fenced under its folio lock: the entry becomes FENCED, the folio
 *     HWPoison (never handed out again; memory offline skips it), it is unmapped
 *     from every process and dropped from the page cache (one that someone else
 *     still holds, a pipe say, stays there poisoned until they let go), its charge
 *     goes.  A later access faults with VM_FAULT_HWPOISON: SIGBUS, BUS_MCEERR_AR,
 *     at that address.  A page a migrator moved off before the barrier is on a
 *     healthy node, intact; one it was copying when the barrier came is left here
 *     (migrate.c checks again after the copy).
 *  3. System RAM in use.  Every other page of the fenced positions that is in use
 *     (numactl users, demoted pages, page cache) goes through the kernel's own
 *     memory_failure(): its mappings become hwpoison entries (SIGBUS on access),
 *     clean page cache is dropped, and the host stays up.
 *  4. Free memory.  The fenced tiers' memory is taken offline and removed, so that
 *     no free page of the failed part is ever handed out: right after, from a
 *     work item (it waits for tier operations, which a CXL bus notifier must
 *     not).  Pages poisoned in 2 and 3 are skipped by offlining; pages on healthy
 *     positions of an interleaved tier are migrated to other nodes.  If
 *     offlining fails (a page that cannot move within offline_timeout_s, or a
 *     poisoned page still held: see tier.c), the free pages of the failed
 *     positions go through memory_failure() instead, and "tier remove" takes
 *     the memory offline later.  Tiers whose every position failed go first:
 *     nothing on them moves, so their free pages are gone at once, not after
 *     an interleaved tier's pages moved.
 *
 * A fenced blade stays fenced until it is restored (drain.c), which needs every
 * tier with memory on it removed first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cxltier.h>
#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cxltier.h"
#include "events.h"
#include "fence.h"
#include "health.h"
#include "region.h"
#include "region_mm.h"
#include "region_types.h"
#include "tier.h"

/* Tiers one fence reports; the pool topology has 5, CXL allows a few per blade. */
#define CXLT_FENCE_MAX_TIERS	16

static bool fence = true;
module_param(fence, bool, 0644);
MODULE_PARM_DESC(fence,
		 "Fence a blade's pages when it goes away or fails (default on; off only to show what happens without: stale reads)");

static struct {
	struct mutex lock;	/* one fence scan at a time; @offline */
	/* Tiers whose memory step 4 takes offline, in fence order; a name once. */
	int nr_offline;
	char offline[CXLT_FENCE_MAX_TIERS][CXLT_NAME_LEN];
	struct work_struct offline_work;
} cxlt_fence = {
	.lock = __MUTEX_INITIALIZER(cxlt_fence.lock),
};

/* Fence page @pgoff of @r if its frame is fenced; 1 if it was. */
static int cxlt_fence_page(struct cxlt_region *r, struct cxlt_rpage *rp, pgoff_t pgoff)
{
	struct address_space *mapping = r->inode->i_mapping;
	struct folio *folio;
	int fenced = 0;

	folio = filemap_lock_folio(mapping, pgoff);
	if (IS_ERR(folio))
		return 0;
	if (cxlt_rp_state(rp) != CXLT_RP_PRESENT || !cxlt_pfn_fenced(folio_pfn(folio)))
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

static long cxlt_fence_region_pages(struct cxlt_region *r)
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
			n += cxlt_fence_page(r, &chunk[i], c * CXLT_RP_PER_CHUNK + i);
		}
		cond_resched();
	}
	return n;
}

static long cxlt_fence_all_region_pages(void)
{
	struct cxlt_region **snap;
	long pages = 0;
	int n, i;
	u64 gen;

	n = cxlt_regions_snapshot(&snap, &gen);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		pages += cxlt_fence_region_pages(snap[i]);
		cxlt_region_put(snap[i]);
	}
	kvfree(snap);
	return pages;
}

/*
 * memory_failure() for the pages of @fr's fenced positions: in use only, or
 * (@free) the free ones too.  Returns the pages it poisoned.
 */
static u64 cxlt_fence_ram(const struct cxlt_fence_range *fr, bool free)
{
	unsigned long pfn, end = PHYS_PFN(fr->start + fr->size);
	struct page *page;
	u64 n = 0;

	for (pfn = PHYS_PFN(fr->start); pfn < end; pfn++) {
		if (!(pfn % 1024))
			cond_resched();
		if (!cxlt_ileave_hits(fr->start, fr->ways, fr->granularity, fr->pos,
				      PFN_PHYS(pfn)))
			continue;
		page = pfn_to_online_page(pfn);
		if (!page || PageHWPoison(page) || (!free && is_free_buddy_page(page)))
			continue;
		if (!memory_failure(pfn, 0))
			n++;
	}
	return n;
}

/*
 * Take the next queued tier off the queue into @name: first one whose every
 * interleave position failed (no page on it can move, so its offline is quick),
 * then the others in order.  An interleaved tier moves the pages of its healthy
 * positions first, which can take up to offline_timeout_s; a failed blade's own
 * tier must not wait behind it with its free pages still handed out.
 */
static void cxlt_fence_next_offline(char *name)
{
	struct cxlt_fence_range fr;
	int k, n = cxlt_fence.nr_offline;

	lockdep_assert_held(&cxlt_fence.lock);
	for (k = 0; k < n; k++)
		if (!cxlt_tier_fenced_range(cxlt_fence.offline[k], &fr) &&
		    hweight_long(fr.pos) >= fr.ways)
			break;
	if (k == n)
		k = 0;
	strscpy(name, cxlt_fence.offline[k], CXLT_NAME_LEN);
	memmove(cxlt_fence.offline[k], cxlt_fence.offline[k + 1],
		(n - k - 1) * sizeof(cxlt_fence.offline[0]));
	cxlt_fence.nr_offline--;
}

/* Step 4 of DOC: fencing, for the tiers queued by cxlt_fence_scan(). */
static void cxlt_fence_offline_workfn(struct work_struct *work)
{
	struct cxlt_fence_range fr = { };
	char name[CXLT_NAME_LEN];
	u64 pages;

	for (;;) {
		scoped_guard(mutex, &cxlt_fence.lock) {
			if (!cxlt_fence.nr_offline)
				return;
			cxlt_fence_next_offline(name);
		}
		if (!cxlt_tier_take_offline(name))
			continue;
		/* Its memory stays online: poison the free pages of the failed part. */
		if (cxlt_tier_fenced_range(name, &fr))
			continue;
		pages = cxlt_fence_ram(&fr, true);
		pr_warn("fence: tier %s cannot go offline; %llu free pages of the failed part poisoned instead\n",
			name, pages);
	}
}

/* Steps 2 and 3 of DOC: fencing, for the ranges the barrier returned; queues 4. */
static void cxlt_fence_scan(struct cxlt_fence_range *fr, int n, u64 *region_pages,
			    u64 *ram_pages, s64 *region_us)
{
	ktime_t t0;
	long pages;
	int i, k;

	lockdep_assert_held(&cxlt_fence.lock);
	t0 = ktime_get();
	pages = cxlt_fence_all_region_pages();
	*region_pages = pages > 0 ? pages : 0;
	*region_us = ktime_us_delta(ktime_get(), t0);
	*ram_pages = 0;
	for (i = 0; i < n; i++) {
		*ram_pages += cxlt_fence_ram(&fr[i], false);
		for (k = 0; k < cxlt_fence.nr_offline; k++)
			if (!strcmp(cxlt_fence.offline[k], fr[i].region))
				break;
		if (k < cxlt_fence.nr_offline)
			continue;
		if (k < CXLT_FENCE_MAX_TIERS)
			strscpy(cxlt_fence.offline[cxlt_fence.nr_offline++], fr[i].region,
				CXLT_NAME_LEN);
		else	/* No room to queue it: its free pages go now, the slow way. */
			*ram_pages += cxlt_fence_ram(&fr[i], true);
	}
	queue_work(system_long_wq, &cxlt_fence.offline_work);
}

static void cxlt_fence_done(struct cxlt_health *h, const char *what, u32 cause,
			    u64 region_pages, u64 ram_pages, s64 region_us, ktime_t t0)
{
	u64 ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	struct cxlt_event_args ev = {
		.type = CXLTIER_EVENT_FENCE, .cause = cause, .blade = what,
		.pages = region_pages + ram_pages, .ram_pages = ram_pages,
		.duration_ns = ns,
	};

	if (h) {
		atomic64_add(region_pages + ram_pages, &h->fenced_pages);
		atomic64_set(&h->fence_ns, ns);
	}
	cxlt_event_log(&ev);
	pr_warn("%s fenced (%s): %llu region pages (in %lld us) and %llu system-RAM pages poisoned and unmapped, %llu us from the trigger\n",
		what, cxlt_cause_name(cause), region_pages, region_us, ram_pages,
		ns / NSEC_PER_USEC);
}

/*
 * What else a fence takes off the blade, told before its tiers are scanned: the
 * pools (pool.c), which call cxlt_fence_blade() themselves, so the call goes
 * this way round through a chain.
 */
static BLOCKING_NOTIFIER_HEAD(cxlt_fence_chain);

/**
 * cxlt_fence_register_notifier() - be told of each blade fence (struct
 *	cxlt_fence_note), under the fence lock, before the blade's tiers are scanned
 * @nb: the callback
 *
 * Return: 0.
 */
int cxlt_fence_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&cxlt_fence_chain, nb);
}

void cxlt_fence_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&cxlt_fence_chain, nb);
}

/**
 * cxlt_fence_blade() - fence every page with data on a blade
 * @blade: memdev name, e.g. "mem0"
 * @cause: CXLTIER_CAUSE_*
 * @t0: when the failure was seen (for the trigger-to-fenced time)
 *
 * See DOC: fencing.  The event log and the kernel log say how many pages and how
 * long.
 *
 * Context: process context; sleeps (folio locks, unmapping, memory offline).
 * Return: 0; -ENOENT when no tier has memory on a blade of that name (nothing is
 * changed); -EALREADY when it is fenced already; -ENOSPC when too many blades have
 * a state of their own.
 */
int cxlt_fence_blade(const char *blade, u32 cause, ktime_t t0)
{
	struct cxlt_fence_range *fr __free(kfree) =
		kcalloc(CXLT_FENCE_MAX_TIERS, sizeof(*fr), GFP_KERNEL);
	struct cxlt_fence_note note = { .blade = blade };
	u64 region_pages = 0, ram_pages = 0;
	struct cxlt_health *h;
	s64 region_us = 0;
	int n;

	if (!fr)
		return -ENOMEM;
	guard(mutex)(&cxlt_fence.lock);
	if (cxlt_blade_fenced(blade))
		return -EALREADY;
	h = cxlt_health_find(blade, true);
	if (!h)
		return -ENOSPC;
	/* Pools on the blade lose their mappings first (pool.c, on the chain). */
	blocking_notifier_call_chain(&cxlt_fence_chain, 0, &note);
	n = cxlt_tiers_fence(blade, NULL, fr, CXLT_FENCE_MAX_TIERS);
	if (!n && !note.taken)
		return -ENOENT;
	/* Marked before the scan: a fault or drain that looks now sees it fenced. */
	h->cause = cause;
	h->time_ns = ktime_get_real_ns();
	cxlt_health_move(h, ~0U, CXLT_SVC_FENCED);
	if (n)
		cxlt_fence_scan(fr, min(n, CXLT_FENCE_MAX_TIERS), &region_pages, &ram_pages,
				&region_us);
	cxlt_fence_done(h, blade, cause, region_pages, ram_pages, region_us, t0);
	return 0;
}

/**
 * cxlt_fence_cxl_region() - fence a tier whose CXL region goes away
 * @region: the cxl_region device
 * @cause: CXLTIER_CAUSE_*
 * @t0: when it was seen going
 *
 * Fences the tier's whole range (every interleave position); the blades keep their
 * state, their other regions are not concerned.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENOENT when @region is not a tier.
 */
int cxlt_fence_cxl_region(struct device *region, u32 cause, ktime_t t0)
{
	struct cxlt_fence_range *fr __free(kfree) =
		kcalloc(CXLT_FENCE_MAX_TIERS, sizeof(*fr), GFP_KERNEL);
	u64 region_pages, ram_pages;
	s64 region_us;
	int n;

	if (!fr)
		return -ENOMEM;
	guard(mutex)(&cxlt_fence.lock);
	n = cxlt_tiers_fence(NULL, region, fr, CXLT_FENCE_MAX_TIERS);
	if (!n)
		return -ENOENT;
	cxlt_fence_scan(fr, min(n, CXLT_FENCE_MAX_TIERS), &region_pages, &ram_pages,
			&region_us);
	cxlt_fence_done(NULL, dev_name(region), cause, region_pages, ram_pages, region_us, t0);
	return 0;
}

/**
 * cxlt_fence_enabled() - does the module act on failures (module parameter fence)?
 */
bool cxlt_fence_enabled(void)
{
	return READ_ONCE(fence);
}

void cxlt_fence_init(void)
{
	INIT_WORK(&cxlt_fence.offline_work, cxlt_fence_offline_workfn);
}

/* Module exit: tiers pin the module, so the work has nothing left to take offline. */
void cxlt_fence_exit(void)
{
	flush_work(&cxlt_fence.offline_work);
}
