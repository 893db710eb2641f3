// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: drain and restore
 *
 * A blade to be removed on purpose is drained first: every tier with memory on it
 * is taken offline and removed as "tier remove" does, so the kernel migrates every
 * page on it (region pages through cxlt_region_migrate_folio(), other pages as for
 * any memory offline) to the other nodes.  An interleaved tier goes whole: its
 * memory blocks hold granules of every blade it spans.  Before anything moves, the
 * pages in use on those nodes must fit in the free memory of the other nodes, else
 * the drain is refused (-ENOSPC) and nothing changes.  While it runs, a work item
 * updates drain_left and drained_pages every 200 ms for progress.  Done, the blade
 * is out of service until restored: then the same tiers are added again (the
 * operator's abstract distance, if one was given, is kept).  A drain that fails
 * half way (a page that cannot move) or is interrupted puts back the tiers it had
 * removed; the pages it moved stay where they went, nothing is lost.
 *
 * Restoring a fenced blade (repaired or replaced) needs every tier that had memory
 * on it removed first; the blade is then in service again and can be registered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/cxltier.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "cxltier.h"
#include "drain.h"
#include "events.h"
#include "health.h"
#include "tier.h"

#define CXLT_DRAIN_TICK_MS	200

static struct {
	struct mutex lock;	/* one drain or restore at a time; @h, @nodes, @start */
	struct cxlt_health *h;	/* the blade draining, for the progress work */
	nodemask_t nodes;	/* its tiers' nodes */
	u64 start;		/* pages in use on them when it began */
	struct delayed_work tick;
} cxlt_drain = {
	.lock = __MUTEX_INITIALIZER(cxlt_drain.lock),
};

static u64 cxlt_node_used(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	u64 managed = 0, nfree = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		managed += zone_managed_pages(&pgdat->node_zones[z]);
		nfree += zone_page_state(&pgdat->node_zones[z], NR_FREE_PAGES);
	}
	return managed > nfree ? managed - nfree : 0;
}

static u64 cxlt_nodes_used(const nodemask_t *nodes)
{
	u64 used = 0;
	int nid;

	for_each_node_mask(nid, *nodes)
		if (node_online(nid))
			used += cxlt_node_used(nid);
	return used;
}

static void cxlt_drain_tickfn(struct work_struct *work)
{
	struct cxlt_health *h = READ_ONCE(cxlt_drain.h);
	u64 left;

	if (!h)
		return;
	left = cxlt_nodes_used(&cxlt_drain.nodes);
	atomic64_set(&h->drain_left, left);
	atomic64_set(&h->drained_pages, cxlt_drain.start > left ? cxlt_drain.start - left : 0);
	queue_delayed_work(system_long_wq, &cxlt_drain.tick,
			   msecs_to_jiffies(CXLT_DRAIN_TICK_MS));
}

/* Free pages on the nodes with memory that are not in @going, above a reserve. */
static u64 cxlt_room_elsewhere(const nodemask_t *going)
{
	u64 room = 0;
	int nid;

	for_each_node_state(nid, N_MEMORY)
		if (!node_isset(nid, *going))
			room += max(cxlt_node_room(nid), 0L);
	return room;
}

/*
 * cxlt_blade_drain() - move every page off a blade, then take it out of service
 * @blade: memdev name
 *
 * See DOC: drain and restore.
 *
 * Context: process context; sleeps for as long as the pages take to move.
 * Return: 0; -ENOENT no tier has memory on @blade; -EALREADY out of service
 * already; -EIO it is fenced; -ENOSPC the other nodes have no room (nothing
 * changed); -EINTR interrupted; -EBUSY a page could not be moved.  Tiers removed
 * before a failure are added back.
 */
static int cxlt_blade_drain_locked(const char *blade)
{
	struct cxlt_tier_ref *refs __free(kfree) =
		kcalloc(CXLT_MAX_DRAINED, sizeof(*refs), GFP_KERNEL);
	struct cxlt_event_args ev = {
		.type = CXLTIER_EVENT_DRAIN, .cause = CXLTIER_CAUSE_ADMIN, .blade = blade,
	};
	u64 used, room, ns;
	struct cxlt_health *h;
	nodemask_t nodes;
	ktime_t t0 = ktime_get();
	int n, i, done, rc = 0;

	lockdep_assert_held(&cxlt_drain.lock);
	if (!refs)
		return -ENOMEM;

	switch (cxlt_blade_svc(blade)) {
	case CXLT_SVC_FENCED:
		pr_warn("drain %s: the blade is fenced; there is nothing left to move\n", blade);
		return -EIO;
	case CXLT_SVC_OUT:
		pr_warn("drain %s: already drained and out of service\n", blade);
		return -EALREADY;
	case CXLT_SVC_DRAINING:
		return -EBUSY;
	case CXLT_SVC_IN:
		break;
	}
	n = cxlt_tiers_on_blade(blade, refs, CXLT_MAX_DRAINED);
	if (!n) {
		pr_warn("drain %s: no tier has memory on it\n", blade);
		return -ENOENT;
	}
	if (n > CXLT_MAX_DRAINED)
		return -E2BIG;
	nodes_clear(nodes);
	for (i = 0; i < n; i++)
		node_set(refs[i].nid, nodes);
	used = cxlt_nodes_used(&nodes);
	room = cxlt_room_elsewhere(&nodes);
	if (used > room) {
		pr_warn("drain %s: %llu MiB in use on its tiers, only %llu MiB free elsewhere; nothing changed\n",
			blade, used >> (20 - PAGE_SHIFT), room >> (20 - PAGE_SHIFT));
		return -ENOSPC;
	}
	h = cxlt_health_find(blade, true);
	if (!h || !cxlt_health_move(h, BIT(CXLT_SVC_IN), CXLT_SVC_DRAINING))
		return h ? -EBUSY : -ENOSPC;

	pr_info("drain %s: moving %llu MiB off %d tier(s)\n", blade,
		used >> (20 - PAGE_SHIFT), n);
	atomic64_set(&h->drained_pages, 0);
	atomic64_set(&h->drain_left, used);
	cxlt_drain.nodes = nodes;
	cxlt_drain.start = used;
	WRITE_ONCE(cxlt_drain.h, h);
	queue_delayed_work(system_long_wq, &cxlt_drain.tick, 0);
	for (done = 0; done < n && !rc; done++)
		rc = cxlt_tier_remove(refs[done].name);
	WRITE_ONCE(cxlt_drain.h, NULL);
	cancel_delayed_work_sync(&cxlt_drain.tick);
	ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	atomic64_set(&h->drain_ns, ns);

	if (rc) {
		/* @done counts the failed one: put back those before it. */
		for (i = 0; i < done - 1; i++)
			if (cxlt_tier_add(refs[i].name, refs[i].adist))
				pr_err("drain %s: cannot add tier %s back; add it by hand\n",
				       blade, refs[i].name);
		atomic64_set(&h->drain_left, 0);
		cxlt_health_move(h, BIT(CXLT_SVC_DRAINING), CXLT_SVC_IN);
		pr_warn("drain %s: %s; the blade stays in service\n", blade,
			rc == -EINTR ? "interrupted" : "a page could not be moved");
		return rc;
	}
	h->nr_drained = n;
	for (i = 0; i < n; i++) {
		strscpy(h->drained[i], refs[i].name, CXLT_NAME_LEN);
		h->drained_adist[i] = refs[i].adist;
	}
	atomic64_set(&h->drained_pages, used);
	atomic64_set(&h->drain_left, 0);
	cxlt_health_move(h, BIT(CXLT_SVC_DRAINING), CXLT_SVC_OUT);
	ev.pages = used;
	ev.duration_ns = ns;
	cxlt_event_log(&ev);
	pr_info("drain %s: %llu pages moved in %llu ms (%llu pages/s); out of service\n",
		blade, used, ns / NSEC_PER_MSEC,
		ns ? div64_u64(used * NSEC_PER_SEC, ns) : 0);
	return 0;
}

/*
 * cxlt_blade_restore() - bring a drained or fenced blade back into service
 * @blade: memdev name
 *
 * Context: process context; sleeps (adds the drained tiers back).
 * Return: 0; -EALREADY it is in service; -EBUSY it is fenced and a tier still has
 * memory on it, or a drain of it runs; or the error of adding a tier back (the
 * blade then stays out of service).
 */
static int cxlt_blade_restore_locked(const char *blade)
{
	struct cxlt_event_args ev = {
		.type = CXLTIER_EVENT_RESTORE, .cause = CXLTIER_CAUSE_ADMIN, .blade = blade,
	};
	struct cxlt_health *h;
	int i, rc;

	lockdep_assert_held(&cxlt_drain.lock);
	h = cxlt_health_find(blade, false);
	switch (h ? h->svc : CXLT_SVC_IN) {
	case CXLT_SVC_IN:
		pr_warn("restore %s: the blade is in service\n", blade);
		return -EALREADY;
	case CXLT_SVC_DRAINING:
		return -EBUSY;
	case CXLT_SVC_FENCED:
		if (cxlt_tier_has_blade(blade)) {
			pr_warn("restore %s: the blade is fenced; remove the tiers with memory on it first\n",
				blade);
			return -EBUSY;
		}
		break;
	case CXLT_SVC_OUT:
		for (i = 0; i < h->nr_drained; i++) {
			rc = cxlt_tier_add(h->drained[i], h->drained_adist[i]);
			if (rc && rc != -EEXIST) {
				pr_warn("restore %s: tier %s cannot be added back: %d\n", blade,
					h->drained[i], rc);
				return rc;
			}
		}
		h->nr_drained = 0;
		break;
	}
	cxlt_health_move(h, BIT(CXLT_SVC_OUT) | BIT(CXLT_SVC_FENCED), CXLT_SVC_IN);
	cxlt_event_log(&ev);
	pr_info("blade %s is back in service\n", blade);
	return 0;
}

int cxlt_blade_drain(const char *blade)
{
	scoped_cond_guard(mutex_intr, return -EINTR, &cxlt_drain.lock)
		return cxlt_blade_drain_locked(blade);
	return -EINTR;
}

int cxlt_blade_restore(const char *blade)
{
	scoped_cond_guard(mutex_intr, return -EINTR, &cxlt_drain.lock)
		return cxlt_blade_restore_locked(blade);
	return -EINTR;
}

void cxlt_drain_init(void)
{
	INIT_DELAYED_WORK(&cxlt_drain.tick, cxlt_drain_tickfn);
}
