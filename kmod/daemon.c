// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the migration daemon
 *
 * One kernel thread, cxltierd, runs the placement policy core (policy/) over the
 * pages of every global region whose policy is fast-first, once per period_ms:
 *
 *  1. Snapshot the regions (referenced for the period, so none is freed under
 *     the daemon; one destroyed meanwhile is freed when the daemon lets go).  When
 *     the set of managed regions changed, or one has grown past its place, lay them
 *     out again: region k's page p is policy page base_k + p, and the policy state
 *     (6 bytes per laid-out page) is made anew; heat starts over.  A region is laid
 *     out as far as it has ever had pages (its span, whole 2 MiB chunks), rounded
 *     up to a power of two: a sparse region (the preload's, as large as the host's
 *     memory with 40 MiB used) costs the daemon what it holds, not its length, and
 *     one that fills up is laid out again a logarithmic number of times.
 *  2. Arm a window of pages (all of them, or the next sample_mb when the regions
 *     hold more), telling the policy on the way what changed since it last heard of
 *     each (pages that appeared, moved by the kernel, hinted: the POLTIER and
 *     POLHINT bits remember what it was told); let the workload run for the
 *     observation window; harvest: a page whose fault found it ARMED was used.
 *  3. Sampling is by hinting faults, like NUMA balancing's: arming a page unmaps it
 *     (one unmap_mapping_pages() per region and period, one TLB flush per VMA), and
 *     the fault handler marks an armed page ACCESSED when it maps it again.  Why not
 *     accessed bits: the rmap walks that harvest them (folio_referenced(), idle
 *     page tracking) are not for modules, and without a TLB flush after clearing an
 *     accessed bit a page that stays in the TLB looks idle: under QEMU's TCG, whose
 *     software TLB is large, the hottest pages looked the coldest.  One bit per
 *     window tells hot pages from warm ones only while most pages are not used in
 *     every window, so the window adapts (10 ms up to the period) to keep about a
 *     quarter of the armed pages used; a shorter window also means fewer faults.
 *     When the regions hold more than sample_mb, successive periods arm successive
 *     windows and the policy's period is one full turn.
 *  4. At the end of a policy period: end_period, select within the budget
 *     (budget_mbps times the time since the last selection), move demotions first,
 *     then promotions (migrate.c), and report every outcome to the policy.
 *
 * Pages still in a per-CPU LRU cache cannot be moved (the cache holds a reference);
 * after a period that found some, the daemon drains the caches of every CPU.
 * lru_add_drain_all() is not exported, but folio_batch_release() drains the local
 * CPU's caches, so a work item on each CPU releases a reference of a page of ours.
 *
 * Tunables and counters are in /sys/kernel/cxltier/daemon/
 * (Documentation/ABI/testing/sysfs-kernel-cxltier); tracepoints cxltier:cxlt_period
 * and cxltier:cxlt_migrate_batch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/freezer.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cxltier.h"
#include "daemon.h"
#include "migrate.h"
#include "reclaim.h"
#include "region.h"
#include "region_mm.h"
#include "region_types.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static bool daemon_enable = true;
module_param(daemon_enable, bool, 0444);
MODULE_PARM_DESC(daemon_enable,
		 "Start the migration daemon enabled (default on); /sys/kernel/cxltier/daemon/enable changes it later");

/* Pages per MiB. */
#define CXLT_MB_PAGES		(1UL << (20 - PAGE_SHIFT))
/* Most pages moved per policy period in each direction (plan arrays). */
#define CXLT_PLAN_MAX		(64UL << (20 - PAGE_SHIFT))
#define CXLT_HEAT_BUCKETS	16
/* The observation window: where it starts, and its floor (a TCG guest's tick). */
#define CXLT_WINDOW_START_NS	(100 * NSEC_PER_MSEC)
#define CXLT_WINDOW_MIN_NS	(10 * NSEC_PER_MSEC)
/* How often the window checks for regions only the daemon still holds. */
#define CXLT_WATCH_STEP_MS	5

/*
 * Tunables, in the units of their sysfs names.  Written under cxlt_tun_lock by
 * sysfs stores (after validation), read by the daemon with READ_ONCE().
 */
static struct cxlt_tunables {
	u32 enable;
	u32 period_ms;
	u32 budget_mbps;
	u32 sample_mb;
	u32 wmark_low_mb;
	u32 wmark_high_mb;
	u32 decay_shift;
	u32 idle_bits;
	u32 burst_bits;
	u32 confidence;
	u32 hyst_steps;
	u32 min_resid;
	u32 idle_fdr;
	u32 burst_fdr;
} cxlt_tun = {
	.period_ms = 1000,
	.budget_mbps = 64,
	.sample_mb = 256,
	.wmark_low_mb = 4,
	.wmark_high_mb = 8,
};

static DEFINE_MUTEX(cxlt_tun_lock);

/* Counters since load (sysfs daemon/stats/); written by the daemon only. */
static struct {
	atomic64_t periods;
	atomic64_t sampled_pages;
	atomic64_t accessed_pages;
	atomic64_t promoted_pages;
	atomic64_t demoted_pages;
	atomic64_t pingpong_pages;
	atomic64_t skipped_pinned;
	atomic64_t skipped_busy;
	atomic64_t failed_pages;
	atomic64_t moved_bytes;
	atomic64_t batches;
	atomic64_t cpu_ns;
	/* Where the daemon's periods go (wall time, monotonic; see the ABI document). */
	atomic64_t arm_ns;
	atomic64_t harvest_ns;
	atomic64_t decide_ns;
	atomic64_t move_ns;
	atomic64_t managed_pages;
	atomic64_t fast_pages;
	atomic64_t metadata_bytes;
	atomic64_t window_us;
	/* Process mode (cxlt_daemon_process()): its share of the counters above. */
	atomic64_t process_periods;
	atomic64_t process_promoted_pages;
	atomic64_t process_demoted_pages;
	atomic64_t process_failed_pages;
	atomic64_t process_processes;
	atomic64_t process_managed_pages;
	atomic64_t process_fast_pages;
} cxlt_dstat;

/*
 * The budget is shared by the daemon and process mode: each takes budget_mbps for
 * the time since it last took, less what the other moved meanwhile (the larger of
 * its promotions and demotions; the budget is per direction).  Pages moved, since
 * load: [CXLT_MOVER_*][0: demoted, 1: promoted].
 */
enum { CXLT_MOVER_DAEMON, CXLT_MOVER_PROCESS, CXLT_MOVERS };
static atomic64_t cxlt_moved[CXLT_MOVERS][2];

/*
 * What @who may move in each direction for @elapsed_ns.  @seen holds the other
 * mover's counts at @who's last call; updated.  Callers of one @who are serialised
 * (the daemon thread; process mode's cxlt_process_lock).
 */
static u64 cxlt_budget_take(int who, u64 elapsed_ns, u64 seen[2])
{
	int other = who == CXLT_MOVER_DAEMON ? CXLT_MOVER_PROCESS : CXLT_MOVER_DAEMON;
	u64 moves, used = 0;
	int dir;

	for (dir = 0; dir < 2; dir++) {
		u64 now = atomic64_read(&cxlt_moved[other][dir]);

		used = max(used, now - seen[dir]);
		seen[dir] = now;
	}
	moves = div_u64((u64)READ_ONCE(cxlt_tun.budget_mbps) * CXLT_MB_PAGES * elapsed_ns,
			NSEC_PER_SEC);
	return moves > used ? moves - used : 0;
}

/*
 * One managed region in the policy's page numbering; @nr 0 for one too large to
 * manage (it keeps its place, so that the layout does not change every period).
 */
struct cxlt_lay {
	struct cxlt_region *r;
	u32 base;
	u32 nr;
	bool too_big;		/* its span is beyond what the daemon manages */
	unsigned long arm_lo;	/* armed this period: lowest and highest offset */
	unsigned long arm_hi;
};

/*
 * The daemon's state.  @heat is read by sysfs under @heat_lock; everything else
 * belongs to the thread alone.
 */
static struct {
	struct task_struct *task;
	wait_queue_head_t wq;
	bool kick;
	struct kobject *kobj;

	spinlock_t heat_lock;		/* @heat: the daemon writes, sysfs reads */
	u32 heat[2][CXLT_HEAT_BUCKETS];	/* [fast, slow][bucket] */

	void *pol_mem;
	struct cxlt_policy *pol;
	struct cxlt_lay *lay;
	unsigned int nr_lay;
	u32 npages;
	u64 gen;
	u32 cursor;		/* next policy page to arm */
	bool wrapped;		/* this period's window reached the end */
	u64 window_ns;		/* observation window: armed to harvested */
	u32 period;		/* decision periods, never 0 after the first */
	u64 last_select_ns;
	u64 process_seen[2];	/* process mode's moves at the last selection */
	u32 *promote;
	u32 *demote;
	struct cxlt_move *mv;
	bool need_drain;
	struct page *drain_page;
} cxlt_d = {
	.heat_lock = __SPIN_LOCK_UNLOCKED(cxlt_d.heat_lock),
};

/* --- draining the per-CPU LRU caches -------------------------------------------------- */

static void cxlt_drain_fn(struct work_struct *w)
{
	struct folio *folio = page_folio(cxlt_d.drain_page);
	struct folio_batch fb;

	folio_get(folio);
	folio_batch_init(&fb);
	folio_batch_add(&fb, folio);
	/* Drains this CPU's LRU caches, then drops the reference. */
	folio_batch_release(&fb);
}

static void cxlt_drain_all(void)
{
	struct work_struct __percpu *works = alloc_percpu(struct work_struct);
	int cpu;

	if (!works)
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(per_cpu_ptr(works, cpu), cxlt_drain_fn);
		queue_work_on(cpu, system_highpri_wq, per_cpu_ptr(works, cpu));
	}
	for_each_online_cpu(cpu)
		flush_work(per_cpu_ptr(works, cpu));
	cpus_read_unlock();
	free_percpu(works);
}

/* --- layout -------------------------------------------------------------------------- */

static bool cxlt_managed(struct cxlt_region *r)
{
	bool managed;

	spin_lock(&r->lock);
	managed = r->policy == CXLTIER_POLICY_FAST_FIRST;
	spin_unlock(&r->lock);
	return managed;
}

static void cxlt_policy_free(void)
{
	kvfree(cxlt_d.pol_mem);
	cxlt_d.pol_mem = NULL;
	cxlt_d.pol = NULL;
	kvfree(cxlt_d.lay);
	cxlt_d.lay = NULL;
	cxlt_d.nr_lay = 0;
	cxlt_d.npages = 0;
}

/* The policy parameters from the tunables, for a period of @elapsed_ns. */
static void cxlt_params(struct cxlt_policy_params *p, u64 elapsed_ns)
{
	unsigned long budget = cxlt_fast_budget_pages();
	unsigned long used = cxlt_fast_used_pages();
	unsigned long managed_fast = atomic64_read(&cxlt_dstat.fast_pages);
	u64 moves;

	/* Fast pages of unmanaged regions (pinned-fast) are not the policy's room. */
	p->fast_pages = budget - min(budget, used > managed_fast ? used - managed_fast : 0);
	/*
	 * Nor is DRAM that others use: room is only what the fast nodes have free
	 * above the kernel's high watermarks.  When others take it, the policy is
	 * below its low watermark and demotes (below the kernel's, by the shortfall).
	 * Reclaim cannot demote region pages (DOC: region memory); the shrinker
	 * (reclaim.c) does, but only once an allocation had to reclaim.
	 */
	p->fast_pages = min_t(s64, p->fast_pages,
			      max_t(s64, (s64)managed_fast + cxlt_fast_room_pages(), 0));
	/* Never keep more than 1/64 of the budget free (a small budget). */
	p->wmark_high = min_t(u64, (u64)READ_ONCE(cxlt_tun.wmark_high_mb) * CXLT_MB_PAGES,
			      p->fast_pages / 64);
	p->wmark_low = min_t(u64, (u64)READ_ONCE(cxlt_tun.wmark_low_mb) * CXLT_MB_PAGES,
			     p->wmark_high);
	moves = cxlt_budget_take(CXLT_MOVER_DAEMON, elapsed_ns, cxlt_d.process_seen);
	p->budget = min_t(u64, moves, CXLT_PLAN_MAX);
	p->decay_shift = READ_ONCE(cxlt_tun.decay_shift);
	p->idle_bits = READ_ONCE(cxlt_tun.idle_bits);
	p->burst_bits = READ_ONCE(cxlt_tun.burst_bits);
	p->confidence = READ_ONCE(cxlt_tun.confidence);
	p->hyst_steps = READ_ONCE(cxlt_tun.hyst_steps);
	p->min_resid = READ_ONCE(cxlt_tun.min_resid);
	p->idle_fdr = READ_ONCE(cxlt_tun.idle_fdr);
	p->burst_fdr = READ_ONCE(cxlt_tun.burst_fdr);
}

/*
 * The policy pages @r is laid out with: its span (DOC: the migration daemon, 1),
 * rounded up to a power of two of chunks, at most its length.
 */
static unsigned long cxlt_lay_pages(struct cxlt_region *r)
{
	unsigned long span = atomic_long_read(&r->span_chunks);

	if (!span)
		return 0;
	return min_t(u64, (u64)roundup_pow_of_two(span) * CXLT_RP_PER_CHUNK, r->nr_pages);
}

/* Clear what the old policy was told, so that the new one hears all of it. */
static void cxlt_forget(struct cxlt_region *r)
{
	struct cxlt_rpage *chunk;
	unsigned long c, i;

	xa_for_each(&r->chunks, c, chunk) {
		for (i = 0; i < CXLT_RP_PER_CHUNK; i++)
			cxlt_rp_update(&chunk[i], CXLT_RP_POLTIER_MASK | CXLT_RP_POLHINT_MASK, 0);
		cond_resched();
	}
}

/*
 * Lay the managed regions of @snap out again if they changed.  Returns false when
 * there is nothing to manage (or no memory for it).
 */
static bool cxlt_layout(struct cxlt_region **snap, int n, u64 gen)
{
	struct cxlt_policy_params p;
	u64 limit = min_t(u64, U32_MAX, 2 * (u64)totalram_pages());
	unsigned int nr = 0, i, k;
	struct cxlt_lay *lay;
	u64 total = 0, pages;
	size_t size;

	/*
	 * A region's policy may change under us (SET_POLICY takes only its lock), so a
	 * second look may find more managed regions than this count: both loops below
	 * stop at @nr, and a region that became managed meanwhile waits for the next
	 * period's layout (the count differs then).
	 */
	for (i = 0; i < n; i++)
		nr += cxlt_managed(snap[i]);
	if (gen == cxlt_d.gen && nr == cxlt_d.nr_lay) {
		for (i = 0, k = 0; i < n; i++) {
			if (!cxlt_managed(snap[i]))
				continue;
			if (k == nr || cxlt_d.lay[k].r != snap[i])
				break;
			/* Grown past its place (one too big stays out). */
			if (!cxlt_d.lay[k].too_big && cxlt_lay_pages(snap[i]) > cxlt_d.lay[k].nr)
				break;
			k++;
		}
		if (i == n)
			return !!cxlt_d.pol;
	}

	cxlt_policy_free();
	cxlt_d.gen = gen;
	if (!nr)
		return false;
	lay = kvcalloc(nr, sizeof(*lay), GFP_KERNEL);
	if (!lay)
		return false;
	for (i = 0, k = 0; i < n && k < nr; i++) {
		if (!cxlt_managed(snap[i]))
			continue;
		/*
		 * The policy keeps 6 bytes per laid-out page, resident or not: a
		 * region whose span would take the managed space beyond twice the
		 * host's memory (which it can never hold resident) is not managed.
		 */
		pages = cxlt_lay_pages(snap[i]);
		lay[k].r = snap[i];
		lay[k].base = total;
		if (total + pages > limit) {
			/*
			 * Laid out with no pages: it keeps its place in the layout, so
			 * the next period finds the same layout and keeps the policy.
			 */
			pr_info_once("daemon: region %s (%llu bytes) is larger than the host's memory allows the daemon to manage; its pages stay where they are\n",
				     snap[i]->name, snap[i]->size);
			lay[k].too_big = true;
			lay[k++].nr = 0;
			continue;
		}
		lay[k].nr = pages;
		total += pages;
		cxlt_forget(snap[i]);
		k++;
	}
	size = cxlt_policy_size(total);
	cxlt_d.pol_mem = total ? kvzalloc(size, GFP_KERNEL | __GFP_NOWARN) : NULL;
	if (!cxlt_d.pol_mem) {
		kvfree(lay);
		return false;
	}
	cxlt_params(&p, 0);
	if (cxlt_policy_init(&cxlt_d.pol, cxlt_d.pol_mem, size, total, &p)) {
		pr_warn_once("daemon: the policy refused its parameters; migration is off until they change\n");
		kvfree(lay);
		cxlt_policy_free();
		cxlt_d.gen = 0;
		return false;
	}
	cxlt_d.lay = lay;
	cxlt_d.nr_lay = k;
	cxlt_d.npages = total;
	cxlt_d.cursor = 0;
	return true;
}

/* --- one period -------------------------------------------------------------------- */

/* Add the time since @start (ktime_get_ns()) to @ctr; returns now. */
static u64 cxlt_time_add(atomic64_t *ctr, u64 start)
{
	u64 now = ktime_get_ns();

	atomic64_add(now - start, ctr);
	return now;
}

static u32 cxlt_rp_class(u32 bits)
{
	if (((bits & CXLT_RP_STATE_MASK) >> CXLT_RP_STATE_SHIFT) != CXLT_RP_PRESENT)
		return CXLT_TIER_NONE;
	return bits & CXLT_RP_FAST ? CXLT_TIER_FAST : CXLT_TIER_SLOW;
}

/*
 * One entry of the window.  Arming (@arm): tell the policy what changed since it last
 * heard of the page, and arm it.  Harvesting: a page whose fault found it armed was
 * used during the window.
 */
static void cxlt_sync_entry(struct cxlt_lay *l, struct cxlt_rpage *rp, unsigned long pg,
			    bool arm, u64 *s, u64 *a)
{
	u32 bits = READ_ONCE(rp->bits), set = 0, clear = 0;
	struct cxlt_policy *pol = cxlt_d.pol;
	u32 slot = l->base + pg, cls, hint, moved;

	if (!bits)
		return;
	cls = cxlt_rp_class(bits);
	if (!arm) {
		if (!(bits & (CXLT_RP_ARMED | CXLT_RP_ACCESSED)))
			return;
		(*s)++;
		if (bits & CXLT_RP_ACCESSED) {
			(*a)++;
			/* The policy heard of the page when it was armed. */
			if (cls != CXLT_TIER_NONE &&
			    cls == (bits & CXLT_RP_POLTIER_MASK) >> CXLT_RP_POLTIER_SHIFT)
				cxlt_policy_record_access(pol, slot, 1);
		}
		cxlt_rp_update(rp, CXLT_RP_ARMED | CXLT_RP_ACCESSED | CXLT_RP_USED,
			       bits & CXLT_RP_ACCESSED ? CXLT_RP_USED : 0);
		return;
	}
	if (cls != (bits & CXLT_RP_POLTIER_MASK) >> CXLT_RP_POLTIER_SHIFT) {
		cxlt_policy_set_tier(pol, slot, cls);
		clear |= CXLT_RP_POLTIER_MASK;
		set |= cls << CXLT_RP_POLTIER_SHIFT;
	}
	hint = (bits & CXLT_RP_HINT_MASK) >> CXLT_RP_HINT_SHIFT;
	if (hint != (bits & CXLT_RP_POLHINT_MASK) >> CXLT_RP_POLHINT_SHIFT) {
		cxlt_policy_set_hint(pol, slot, hint);
		clear |= CXLT_RP_POLHINT_MASK;
		set |= hint << CXLT_RP_POLHINT_SHIFT;
	}
	/* A stamp this old no longer counts, and must go before it looks young again. */
	moved = (bits & CXLT_RP_MOVED_MASK) >> CXLT_RP_MOVED_SHIFT;
	if (moved && cxlt_d.period &&
	    cxlt_stamp_age(cxlt_move_stamp(cxlt_d.period), moved) >= CXLT_PINGPONG_PERIODS)
		clear |= CXLT_RP_MOVED_MASK;
	clear |= CXLT_RP_ACCESSED;
	if (cls != CXLT_TIER_NONE) {
		set |= CXLT_RP_ARMED;
		l->arm_lo = min(l->arm_lo, pg);
		l->arm_hi = max(l->arm_hi, pg);
	}
	cxlt_rp_update(rp, set | clear, set);
}

/*
 * Visit the entries of @l whose policy pages are in the window, the circular range
 * [@lo, @lo + @len): arm them (@arm), or harvest them.  The rest waits for its turn,
 * so a period costs the sample, not the regions' size.
 */
static void cxlt_sync_region(struct cxlt_lay *l, u32 lo, u32 len, bool arm, u64 *sampled,
			     u64 *accessed)
{
	u64 iv[2][2], x, y, s = 0, a = 0;
	struct cxlt_rpage *chunk;
	unsigned long c, i, first, last;
	int n = 0, k;

	if (len >= cxlt_d.npages) {
		iv[n][0] = 0;
		iv[n++][1] = cxlt_d.npages;
	} else if ((u64)lo + len <= cxlt_d.npages) {
		iv[n][0] = lo;
		iv[n++][1] = (u64)lo + len;
	} else {
		iv[n][0] = lo;
		iv[n++][1] = cxlt_d.npages;
		iv[n][0] = 0;
		iv[n++][1] = (u64)lo + len - cxlt_d.npages;
	}
	l->arm_lo = ULONG_MAX;
	l->arm_hi = 0;
	for (k = 0; k < n; k++) {
		/* The interval, as page offsets of this region. */
		x = max_t(u64, iv[k][0], l->base) - l->base;
		y = min_t(u64, iv[k][1], (u64)l->base + l->nr);
		if (y <= (u64)l->base || x >= y - l->base)
			continue;
		y -= l->base;
		first = x / CXLT_RP_PER_CHUNK;
		last = (y - 1) / CXLT_RP_PER_CHUNK;
		xa_for_each_range(&l->r->chunks, c, chunk, first, last) {
			for (i = max_t(u64, x, c * CXLT_RP_PER_CHUNK) - c * CXLT_RP_PER_CHUNK;
			     i < CXLT_RP_PER_CHUNK && c * CXLT_RP_PER_CHUNK + i < y; i++)
				cxlt_sync_entry(l, &chunk[i], c * CXLT_RP_PER_CHUNK + i, arm,
						&s, &a);
			cond_resched();
		}
	}
	if (!arm) {
		*sampled += s;
		*accessed += a;
		atomic64_add(s, &l->r->mig.sampled);
		atomic64_add(a, &l->r->mig.accessed);
		return;
	}
	/* Arm: unmap the window's pages; their next use faults and says so. */
	if (l->arm_lo <= l->arm_hi)
		unmap_mapping_pages(l->r->inode->i_mapping, l->arm_lo,
				    l->arm_hi - l->arm_lo + 1, false);
}

/*
 * The observation window adapts to the workload: one bit per window tells hot from
 * warm only while most pages are not used in every window.  Aim at a quarter of
 * the armed pages used: halve the window above a half, double it below a tenth.
 */
static void cxlt_adapt_window(u64 sampled, u64 accessed)
{
	u64 w = cxlt_d.window_ns, period = (u64)READ_ONCE(cxlt_tun.period_ms) * NSEC_PER_MSEC;

	if (sampled < 64)
		return;
	if (accessed * 2 > sampled)
		w /= 2;
	else if (accessed * 10 < sampled)
		w *= 2;
	cxlt_d.window_ns = clamp_t(u64, w, CXLT_WINDOW_MIN_NS, period);
	atomic64_set(&cxlt_dstat.window_us, div_u64(cxlt_d.window_ns, NSEC_PER_USEC));
}

/* Page-table chunks of the managed regions: what they cost in memory. */
static u64 cxlt_chunks(void)
{
	struct cxlt_rpage *chunk;
	unsigned long c;
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < cxlt_d.nr_lay; i++)
		if (cxlt_d.lay[i].nr)
			xa_for_each(&cxlt_d.lay[i].r->chunks, c, chunk)
				n++;
	return n;
}

static int cxlt_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Move the policy pages @slots (sorted) to @fast; report each outcome. */
static void cxlt_move_slots(u32 *slots, u32 nr, bool fast)
{
	u32 i = 0, j, n, k = 0;
	u64 pp_before, pp;
	struct cxlt_lay *l;
	int res;

	sort(slots, nr, sizeof(*slots), cxlt_u32_cmp, NULL);
	while (i < nr) {
		while (k < cxlt_d.nr_lay && slots[i] >= cxlt_d.lay[k].base + cxlt_d.lay[k].nr)
			k++;
		if (WARN_ON_ONCE(k == cxlt_d.nr_lay))
			return;
		l = &cxlt_d.lay[k];
		for (n = 0; i + n < nr && slots[i + n] < l->base + l->nr; n++)
			cxlt_d.mv[n].pgoff = slots[i + n] - l->base;
		pp_before = atomic64_read(&l->r->mig.pingpong);
		cxlt_migrate_batch(l->r, cxlt_d.mv, n, fast, cxlt_d.period, 0);
		pp = atomic64_read(&l->r->mig.pingpong) - pp_before;
		atomic64_add(pp, &cxlt_dstat.pingpong_pages);
		atomic64_inc(&cxlt_dstat.batches);
		for (j = 0; j < n; j++) {
			res = cxlt_d.mv[j].result;
			switch (res) {
			case CXLT_MV_MOVED:
				atomic64_inc(fast ? &cxlt_dstat.promoted_pages :
					     &cxlt_dstat.demoted_pages);
				atomic64_inc(&cxlt_moved[CXLT_MOVER_DAEMON][fast]);
				atomic64_add(PAGE_SIZE, &cxlt_dstat.moved_bytes);
				fallthrough;
			case CXLT_MV_THERE:
				cxlt_policy_migrated(cxlt_d.pol, slots[i + j],
						     fast ? CXLT_TIER_FAST : CXLT_TIER_SLOW, 0);
				continue;
			case CXLT_MV_BUSY:
				atomic64_inc(&cxlt_dstat.skipped_busy);
				cxlt_d.need_drain = true;
				break;
			case CXLT_MV_PINNED:
				atomic64_inc(&cxlt_dstat.skipped_pinned);
				break;
			case CXLT_MV_NOMEM:
			case CXLT_MV_POISON:
				atomic64_inc(&cxlt_dstat.failed_pages);
				break;
			}
			cxlt_policy_migrated(cxlt_d.pol, slots[i + j],
					     fast ? CXLT_TIER_FAST : CXLT_TIER_SLOW, -EAGAIN);
		}
		i += n;
	}
}

static void cxlt_heat_histogram(void)
{
	u32 heat[2][CXLT_HEAT_BUCKETS] = { };
	struct cxlt_page_info info;
	u32 slot;

	for (slot = 0; slot < cxlt_d.npages; slot++) {
		if (cxlt_policy_get_page(cxlt_d.pol, slot, &info) || info.tier == CXLT_TIER_NONE)
			continue;
		heat[info.tier == CXLT_TIER_SLOW][info.heat / (65536 / CXLT_HEAT_BUCKETS)]++;
		if (!(slot % 4096))
			cond_resched();
	}
	scoped_guard(spinlock, &cxlt_d.heat_lock)
		memcpy(cxlt_d.heat, heat, sizeof(heat));
}

/* End of a policy period: rank, select within the budget, move. */
static void cxlt_decide(u64 sampled, u64 accessed)
{
	struct cxlt_policy_plan plan = {
		.promote = cxlt_d.promote,
		.promote_max = CXLT_PLAN_MAX,
		.demote = cxlt_d.demote,
		.demote_max = CXLT_PLAN_MAX,
	};
	struct cxlt_policy_stats st;
	struct cxlt_policy_params p;
	u64 now = local_clock(), t = ktime_get_ns();

	cxlt_params(&p, cxlt_d.last_select_ns ? now - cxlt_d.last_select_ns : 0);
	cxlt_d.last_select_ns = now;
	if (cxlt_policy_set_params(cxlt_d.pol, &p))
		p.budget = 0;
	cxlt_policy_end_period(cxlt_d.pol);
	if (++cxlt_d.period == 0)
		cxlt_d.period++;	/* 0 is no daemon move's (cxlt_move_stamp()) */
	atomic64_inc(&cxlt_dstat.periods);
	if (p.budget && !cxlt_policy_select(cxlt_d.pol, &plan)) {
		t = cxlt_time_add(&cxlt_dstat.decide_ns, t);
		cxlt_move_slots(plan.demote, plan.nr_demote, false);
		cxlt_move_slots(plan.promote, plan.nr_promote, true);
		t = cxlt_time_add(&cxlt_dstat.move_ns, t);
	}
	cxlt_heat_histogram();
	cxlt_policy_get_stats(cxlt_d.pol, &st);
	cxlt_time_add(&cxlt_dstat.decide_ns, t);
	trace_cxlt_period(cxlt_d.period, cxlt_d.nr_lay, sampled, accessed, plan.nr_promote,
			  plan.nr_demote, st.promote_candidates, st.hot_heat,
			  local_clock() - now);
}

static bool cxlt_laid_out(struct cxlt_region *r)
{
	unsigned int i;

	for (i = 0; i < cxlt_d.nr_lay; i++)
		if (cxlt_d.lay[i].r == r)
			return true;
	return false;
}

/*
 * Let the workload run for @ns with the window armed.  Returns true when it ended
 * early because a region is referenced by the daemon only (destroyed, and its last
 * user gone): its memory must not wait for the daemon's period.
 */
static bool cxlt_watch(u64 ns)
{
	unsigned long end = jiffies + (nsecs_to_jiffies(ns) ?: 1), step;
	unsigned int i;

	for (;;) {
		for (i = 0; i < cxlt_d.nr_lay; i++)
			if (kref_read(&cxlt_d.lay[i].r->ref) == 1)
				return true;
		if (kthread_should_stop() || !time_before(jiffies, end))
			return false;
		step = min(end - jiffies, msecs_to_jiffies(CXLT_WATCH_STEP_MS) ?: 1UL);
		wait_event_freezable_timeout(cxlt_d.wq, kthread_should_stop(), step);
	}
}

static void cxlt_daemon_period(void)
{
	u64 sampled = 0, accessed = 0, managed;
	struct cxlt_policy_stats st;
	struct cxlt_region **snap;
	u32 win_len, win_lo;
	bool orphan;
	unsigned int i;
	u64 gen, t;
	int n;

	n = cxlt_regions_snapshot(&snap, &gen);
	if (n < 0)
		return;
	if (!cxlt_layout(snap, n, gen)) {
		atomic64_set(&cxlt_dstat.managed_pages, 0);
		atomic64_set(&cxlt_dstat.fast_pages, 0);
		goto out;
	}
	/* Hold only what the daemon works on: the others may go meanwhile. */
	for (i = 0; i < n; i++) {
		if (!cxlt_laid_out(snap[i])) {
			cxlt_region_put(snap[i]);
			snap[i] = NULL;
		}
	}

	/*
	 * The window of policy pages armed this period: sample_mb of resident pages,
	 * as a share of the policy's page space.
	 */
	managed = atomic64_read(&cxlt_dstat.managed_pages);
	win_lo = cxlt_d.cursor;
	win_len = min_t(u64, (u64)READ_ONCE(cxlt_tun.sample_mb) * CXLT_MB_PAGES,
			cxlt_d.npages);
	if (managed > win_len)
		win_len = div64_u64((u64)win_len * cxlt_d.npages, managed);
	else
		win_len = cxlt_d.npages;
	/* Arm the window, let the workload run for the observation window, harvest. */
	t = ktime_get_ns();
	for (i = 0; i < cxlt_d.nr_lay; i++)
		cxlt_sync_region(&cxlt_d.lay[i], win_lo, win_len, true, NULL, NULL);
	cxlt_time_add(&cxlt_dstat.arm_ns, t);
	if (!cxlt_d.window_ns)
		cxlt_d.window_ns = CXLT_WINDOW_START_NS;
	cxlt_d.window_ns = min_t(u64, cxlt_d.window_ns,
				 (u64)READ_ONCE(cxlt_tun.period_ms) * NSEC_PER_MSEC);
	orphan = cxlt_watch(cxlt_d.window_ns);
	t = ktime_get_ns();
	for (i = 0; i < cxlt_d.nr_lay; i++)
		cxlt_sync_region(&cxlt_d.lay[i], win_lo, win_len, false, &sampled, &accessed);
	cxlt_time_add(&cxlt_dstat.harvest_ns, t);
	if (!orphan)
		cxlt_adapt_window(sampled, accessed);

	cxlt_policy_get_stats(cxlt_d.pol, &st);
	atomic64_set(&cxlt_dstat.managed_pages, st.nr_fast + st.nr_slow);
	atomic64_set(&cxlt_dstat.fast_pages, st.nr_fast);
	/* The policy's state, the layout and the page-table chunks of the regions. */
	atomic64_set(&cxlt_dstat.metadata_bytes, cxlt_policy_size(cxlt_d.npages) +
		     cxlt_d.nr_lay * sizeof(*cxlt_d.lay) + cxlt_chunks() * PAGE_SIZE);
	atomic64_add(sampled, &cxlt_dstat.sampled_pages);
	atomic64_add(accessed, &cxlt_dstat.accessed_pages);

	/* When the windows have covered every page, the policy's period ends. */
	cxlt_d.wrapped = (u64)win_lo + win_len >= cxlt_d.npages;
	cxlt_d.cursor = ((u64)win_lo + win_len) % cxlt_d.npages;
	/* A region only the daemon still holds goes now; decide next time. */
	if (cxlt_d.wrapped && !orphan)
		cxlt_decide(sampled, accessed);

	if (cxlt_d.need_drain) {
		cxlt_d.need_drain = false;
		cxlt_drain_all();
	}
out:
	for (i = 0; i < n; i++)
		cxlt_region_put(snap[i]);	/* NULL: let go already */
	kvfree(snap);
}

static int cxlt_daemon_fn(void *unused)
{
	set_freezable();
	unsigned long start, period;

	while (!kthread_should_stop()) {
		start = jiffies;
		if (READ_ONCE(cxlt_tun.enable))
			cxlt_daemon_period();
		atomic64_set(&cxlt_dstat.cpu_ns, current->se.sum_exec_runtime);
		/* The period counts from its start: the observation window is in it. */
		period = msecs_to_jiffies(READ_ONCE(cxlt_tun.period_ms));
		if (time_before(jiffies, start + period))
			wait_event_freezable_timeout(cxlt_d.wq,
						     kthread_should_stop() ||
						     READ_ONCE(cxlt_d.kick),
						     start + period - jiffies);
		WRITE_ONCE(cxlt_d.kick, false);
	}
	cxlt_policy_free();
	return 0;
}

/* --- sysfs -------------------------------------------------------------------------- */

/* A tunable file: daemon/<tunable>, with its valid range. */
struct cxlt_tun_attr {
	struct kobj_attribute attr;
	u32 *field;
	u32 min;
	u32 max;
};

static ssize_t cxlt_tun_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_tun_attr *ta = container_of(attr, struct cxlt_tun_attr, attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*ta->field));
}

static ssize_t cxlt_tun_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	struct cxlt_tun_attr *ta = container_of(attr, struct cxlt_tun_attr, attr);
	u32 budget_mb = cxlt_fast_budget_pages() / CXLT_MB_PAGES;
	u32 val;

	if (kstrtou32(buf, 10, &val) || val < ta->min || val > ta->max)
		return -EINVAL;
	guard(mutex)(&cxlt_tun_lock);
	if (ta->field == &cxlt_tun.wmark_low_mb && val > cxlt_tun.wmark_high_mb)
		return -EINVAL;
	if (ta->field == &cxlt_tun.wmark_high_mb &&
	    (val < cxlt_tun.wmark_low_mb || val > budget_mb))
		return -EINVAL;
	WRITE_ONCE(*ta->field, val);
	if (ta->field == &cxlt_tun.enable || ta->field == &cxlt_tun.period_ms) {
		WRITE_ONCE(cxlt_d.kick, true);
		wake_up(&cxlt_d.wq);
	}
	return count;
}

static struct cxlt_tun_attr cxlt_tun_attrs[] = {
	{ __ATTR(enable, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.enable, 0, 1 },
	{ __ATTR(period_ms, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.period_ms,
	  10, 60000 },
	{ __ATTR(budget_mbps, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.budget_mbps,
	  0, 65536 },
	{ __ATTR(sample_mb, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.sample_mb,
	  1, 1048576 },
	{ __ATTR(wmark_low_mb, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.wmark_low_mb,
	  0, U32_MAX },
	{ __ATTR(wmark_high_mb, 0644, cxlt_tun_show, cxlt_tun_store),
	  &cxlt_tun.wmark_high_mb, 0, U32_MAX },
	{ __ATTR(decay_shift, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.decay_shift,
	  1, 8 },
	{ __ATTR(idle_bits, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.idle_bits,
	  0, 30 },
	{ __ATTR(burst_bits, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.burst_bits,
	  0, 30 },
	{ __ATTR(confidence, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.confidence,
	  0, 255 },
	{ __ATTR(hyst_steps, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.hyst_steps,
	  0, 255 },
	{ __ATTR(min_resid, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.min_resid,
	  0, 255 },
	{ __ATTR(idle_fdr, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.idle_fdr,
	  1, 255 },
	{ __ATTR(burst_fdr, 0644, cxlt_tun_show, cxlt_tun_store), &cxlt_tun.burst_fdr,
	  1, 255 },
};

static ssize_t heat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	static const char *const names[] = { "fast", "slow" };
	u32 heat[2][CXLT_HEAT_BUCKETS];
	int t, b, len = 0;

	scoped_guard(spinlock, &cxlt_d.heat_lock)
		memcpy(heat, cxlt_d.heat, sizeof(heat));
	for (t = 0; t < 2; t++) {
		len += sysfs_emit_at(buf, len, "%s", names[t]);
		for (b = 0; b < CXLT_HEAT_BUCKETS; b++)
			len += sysfs_emit_at(buf, len, " %u", heat[t][b]);
		len += sysfs_emit_at(buf, len, "\n");
	}
	return len;
}

static struct kobj_attribute cxlt_attr_heat = __ATTR_RO(heat);

/* Tunables and heat; filled in at init from cxlt_tun_attrs. */
static struct attribute *cxlt_daemon_attrs[ARRAY_SIZE(cxlt_tun_attrs) + 2];

static const struct attribute_group cxlt_daemon_group = {
	.attrs = cxlt_daemon_attrs,
};

/* A counter file: daemon/stats/<counter>. */
struct cxlt_stat_attr {
	struct kobj_attribute attr;
	atomic64_t *counter;
};

static ssize_t cxlt_stat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_stat_attr *sa = container_of(attr, struct cxlt_stat_attr, attr);

	return sysfs_emit(buf, "%lld\n", atomic64_read(sa->counter));
}

/* Pages reclaim.c demoted: not the daemon's moves, but where users look for them. */
static ssize_t cxlt_reclaim_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%llu\n", cxlt_reclaim_demoted());
}

static struct cxlt_stat_attr cxlt_stat_attrs[] = {
	{ __ATTR(periods, 0444, cxlt_stat_show, NULL), &cxlt_dstat.periods },
	{ __ATTR(sampled_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.sampled_pages },
	{ __ATTR(accessed_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.accessed_pages },
	{ __ATTR(promoted_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.promoted_pages },
	{ __ATTR(demoted_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.demoted_pages },
	{ __ATTR(pingpong_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.pingpong_pages },
	{ __ATTR(skipped_pinned, 0444, cxlt_stat_show, NULL), &cxlt_dstat.skipped_pinned },
	{ __ATTR(skipped_busy, 0444, cxlt_stat_show, NULL), &cxlt_dstat.skipped_busy },
	{ __ATTR(failed_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.failed_pages },
	{ __ATTR(moved_bytes, 0444, cxlt_stat_show, NULL), &cxlt_dstat.moved_bytes },
	{ __ATTR(batches, 0444, cxlt_stat_show, NULL), &cxlt_dstat.batches },
	{ __ATTR(cpu_ns, 0444, cxlt_stat_show, NULL), &cxlt_dstat.cpu_ns },
	{ __ATTR(arm_ns, 0444, cxlt_stat_show, NULL), &cxlt_dstat.arm_ns },
	{ __ATTR(harvest_ns, 0444, cxlt_stat_show, NULL), &cxlt_dstat.harvest_ns },
	{ __ATTR(decide_ns, 0444, cxlt_stat_show, NULL), &cxlt_dstat.decide_ns },
	{ __ATTR(move_ns, 0444, cxlt_stat_show, NULL), &cxlt_dstat.move_ns },
	{ __ATTR(managed_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.managed_pages },
	{ __ATTR(fast_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.fast_pages },
	{ __ATTR(metadata_bytes, 0444, cxlt_stat_show, NULL), &cxlt_dstat.metadata_bytes },
	{ __ATTR(window_us, 0444, cxlt_stat_show, NULL), &cxlt_dstat.window_us },
	{ __ATTR(process_periods, 0444, cxlt_stat_show, NULL), &cxlt_dstat.process_periods },
	{ __ATTR(process_promoted_pages, 0444, cxlt_stat_show, NULL),
	  &cxlt_dstat.process_promoted_pages },
	{ __ATTR(process_demoted_pages, 0444, cxlt_stat_show, NULL),
	  &cxlt_dstat.process_demoted_pages },
	{ __ATTR(process_failed_pages, 0444, cxlt_stat_show, NULL),
	  &cxlt_dstat.process_failed_pages },
	{ __ATTR(process_processes, 0444, cxlt_stat_show, NULL), &cxlt_dstat.process_processes },
	{ __ATTR(process_managed_pages, 0444, cxlt_stat_show, NULL),
	  &cxlt_dstat.process_managed_pages },
	{ __ATTR(process_fast_pages, 0444, cxlt_stat_show, NULL), &cxlt_dstat.process_fast_pages },
	{ __ATTR(reclaim_demoted_pages, 0444, cxlt_reclaim_show, NULL), NULL },
};

static struct attribute *cxlt_stats_attrs[ARRAY_SIZE(cxlt_stat_attrs) + 1];

static const struct attribute_group cxlt_stats_group = {
	.name = "stats",
	.attrs = cxlt_stats_attrs,
};

static const struct attribute_group *cxlt_daemon_groups[] = {
	&cxlt_daemon_group,
	&cxlt_stats_group,
	NULL,
};

/* Serialises process mode's reports: the budget's @seen and the period clock. */
static DEFINE_MUTEX(cxlt_process_lock);
static u64 cxlt_process_seen[2];

/**
 * cxlt_daemon_process() - process mode (cxltier-procd) reports a period
 * @rep: validated by the caller (CXLTIER_IOC_PROCESS); its budget is filled in
 *
 * Its moves count as the daemon's (stats/promoted_pages, ...) and as its own
 * (stats/process_*), and come out of the daemon's budget; the budget it gets
 * for its next period is what is left of budget_mbps after the daemon's moves.
 */
void cxlt_daemon_process(struct cxltier_process *rep)
{
	guard(mutex)(&cxlt_process_lock);
	atomic64_inc(&cxlt_dstat.process_periods);
	atomic64_add(rep->promoted, &cxlt_dstat.promoted_pages);
	atomic64_add(rep->demoted, &cxlt_dstat.demoted_pages);
	atomic64_add(rep->failed, &cxlt_dstat.failed_pages);
	atomic64_add((rep->promoted + rep->demoted) * PAGE_SIZE, &cxlt_dstat.moved_bytes);
	atomic64_add(rep->promoted, &cxlt_dstat.process_promoted_pages);
	atomic64_add(rep->demoted, &cxlt_dstat.process_demoted_pages);
	atomic64_add(rep->failed, &cxlt_dstat.process_failed_pages);
	atomic64_set(&cxlt_dstat.process_processes, rep->processes);
	atomic64_set(&cxlt_dstat.process_managed_pages, rep->managed_pages);
	atomic64_set(&cxlt_dstat.process_fast_pages, rep->fast_pages);
	atomic64_add(rep->demoted, &cxlt_moved[CXLT_MOVER_PROCESS][0]);
	atomic64_add(rep->promoted, &cxlt_moved[CXLT_MOVER_PROCESS][1]);
	rep->budget = READ_ONCE(cxlt_tun.enable) ?
		      cxlt_budget_take(CXLT_MOVER_PROCESS, rep->period_ns, cxlt_process_seen) : 0;
	trace_cxlt_process_period(rep->processes, rep->managed_pages, rep->fast_pages,
				  rep->promoted, rep->demoted, rep->failed, rep->budget);
}

/**
 * cxlt_daemon_init() - start cxltierd and make /sys/kernel/cxltier/daemon
 * @root: /sys/kernel/cxltier
 *
 * Context: process context (module init), after the regions are set up.
 * Return: 0 or a negative errno, with nothing left behind.
 */
int cxlt_daemon_init(struct kobject *root)
{
	struct cxlt_policy_params p;
	unsigned int i;
	int rc;

	/* The policy core's defaults are the tunables' defaults. */
	cxlt_policy_default_params(&p, 1, 1);
	cxlt_tun.decay_shift = p.decay_shift;
	cxlt_tun.idle_bits = p.idle_bits;
	cxlt_tun.burst_bits = p.burst_bits;
	cxlt_tun.confidence = p.confidence;
	cxlt_tun.hyst_steps = p.hyst_steps;
	cxlt_tun.min_resid = p.min_resid;
	cxlt_tun.idle_fdr = p.idle_fdr;
	cxlt_tun.burst_fdr = p.burst_fdr;
	cxlt_tun.enable = daemon_enable;
	if (cxlt_tun.wmark_high_mb > cxlt_fast_budget_pages() / CXLT_MB_PAGES) {
		cxlt_tun.wmark_high_mb = cxlt_fast_budget_pages() / CXLT_MB_PAGES;
		cxlt_tun.wmark_low_mb = min(cxlt_tun.wmark_low_mb, cxlt_tun.wmark_high_mb);
	}
	init_waitqueue_head(&cxlt_d.wq);

	rc = -ENOMEM;
	cxlt_d.promote = kvmalloc_array(CXLT_PLAN_MAX, sizeof(u32), GFP_KERNEL);
	cxlt_d.demote = kvmalloc_array(CXLT_PLAN_MAX, sizeof(u32), GFP_KERNEL);
	cxlt_d.mv = kvmalloc_array(CXLT_PLAN_MAX, sizeof(*cxlt_d.mv), GFP_KERNEL);
	cxlt_d.drain_page = alloc_page(GFP_KERNEL);
	if (!cxlt_d.promote || !cxlt_d.demote || !cxlt_d.mv || !cxlt_d.drain_page)
		goto err_free;

	for (i = 0; i < ARRAY_SIZE(cxlt_tun_attrs); i++)
		cxlt_daemon_attrs[i] = &cxlt_tun_attrs[i].attr.attr;
	cxlt_daemon_attrs[i] = &cxlt_attr_heat.attr;
	for (i = 0; i < ARRAY_SIZE(cxlt_stat_attrs); i++)
		cxlt_stats_attrs[i] = &cxlt_stat_attrs[i].attr.attr;
	cxlt_d.kobj = kobject_create_and_add("daemon", root);
	if (!cxlt_d.kobj)
		goto err_free;
	rc = sysfs_create_groups(cxlt_d.kobj, cxlt_daemon_groups);
	if (rc)
		goto err_kobj;

	cxlt_d.task = kthread_run(cxlt_daemon_fn, NULL, "cxltierd");
	if (IS_ERR(cxlt_d.task)) {
		rc = PTR_ERR(cxlt_d.task);
		goto err_kobj;
	}
	return 0;

err_kobj:
	kobject_put(cxlt_d.kobj);
err_free:
	if (cxlt_d.drain_page)
		__free_page(cxlt_d.drain_page);
	kvfree(cxlt_d.mv);
	kvfree(cxlt_d.demote);
	kvfree(cxlt_d.promote);
	return rc;
}

/**
 * cxlt_daemon_exit() - stop cxltierd (after its current period) and remove daemon/
 *
 * Context: process context (module exit or init unwinding).
 */
void cxlt_daemon_exit(void)
{
	kthread_stop(cxlt_d.task);
	kobject_put(cxlt_d.kobj);
	__free_page(cxlt_d.drain_page);
	kvfree(cxlt_d.mv);
	kvfree(cxlt_d.demote);
	kvfree(cxlt_d.promote);
}
