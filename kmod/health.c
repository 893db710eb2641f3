// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: blade health
 *
 * The service state of each blade that was ever fenced, drained or reported an
 * error, with its counters, in a table of fixed size indexed by memdev name.  States
 * move only along these edges, each checked under the table's lock:
 *
 *   in service -> draining -> out of service -> in service (restore)
 *   draining -> in service (drain failed or interrupted)
 *   any -> fenced -> in service (restore, once no tier has memory on it)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/spinlock.h>
#include <linux/string.h>

#include "health.h"

/* Blades with a state of their own at once; a further one cannot be fenced. */
#define CXLT_MAX_HEALTH		64

static struct {
	spinlock_t lock;	/* slot names and @svc; a leaf lock, taken on fault paths */
	struct cxlt_health slot[CXLT_MAX_HEALTH];
} cxlt_health = {
	.lock = __SPIN_LOCK_UNLOCKED(cxlt_health.lock),
};

static const char *const cxlt_svc_names[] = {
	[CXLT_SVC_IN] = "online",
	[CXLT_SVC_DRAINING] = "draining",
	[CXLT_SVC_OUT] = "out-of-service",
	[CXLT_SVC_FENCED] = "fenced",
};

const char *cxlt_svc_name(enum cxlt_svc svc)
{
	return cxlt_svc_names[svc];
}

static struct cxlt_health *cxlt_health_lookup(const char *blade)
{
	int i;

	lockdep_assert_held(&cxlt_health.lock);
	for (i = 0; i < CXLT_MAX_HEALTH; i++)
		if (!strcmp(cxlt_health.slot[i].name, blade))
			return &cxlt_health.slot[i];
	return NULL;
}

/**
 * cxlt_health_find() - a blade's slot
 * @blade: memdev name, not empty
 * @create: make one (in service, counters zero) when it has none
 *
 * Context: any; takes a spinlock.
 * Return: the slot, valid until module exit; NULL when it has none (and @create
 * is false, or the table is full).
 */
struct cxlt_health *cxlt_health_find(const char *blade, bool create)
{
	struct cxlt_health *h;

	if (!*blade)
		return NULL;
	spin_lock(&cxlt_health.lock);
	h = cxlt_health_lookup(blade);
	if (!h && create) {
		h = cxlt_health_lookup("");
		if (h)
			strscpy(h->name, blade, sizeof(h->name));
	}
	spin_unlock(&cxlt_health.lock);
	return h;
}

/**
 * cxlt_blade_svc() - a blade's service state
 * @blade: memdev name
 *
 * Context: any; takes a spinlock.
 */
enum cxlt_svc cxlt_blade_svc(const char *blade)
{
	enum cxlt_svc svc = CXLT_SVC_IN;
	struct cxlt_health *h;

	spin_lock(&cxlt_health.lock);
	h = *blade ? cxlt_health_lookup(blade) : NULL;
	if (h)
		svc = h->svc;
	spin_unlock(&cxlt_health.lock);
	return svc;
}

/**
 * cxlt_health_move() - change a blade's state if it is in one of some states
 * @h: the blade's slot
 * @from_mask: BIT() of each state it may be in
 * @to: the new state
 *
 * Context: any; takes a spinlock.
 * Return: true when it moved.
 */
bool cxlt_health_move(struct cxlt_health *h, unsigned int from_mask, enum cxlt_svc to)
{
	bool moved;

	spin_lock(&cxlt_health.lock);
	moved = from_mask & BIT(h->svc);
	if (moved)
		h->svc = to;
	spin_unlock(&cxlt_health.lock);
	return moved;
}

/**
 * cxlt_blade_count_fenced() - count pages fenced on a blade outside a blade fence
 * @blade: memdev name
 * @pages: how many
 *
 * Context: any; takes a spinlock.
 */
void cxlt_blade_count_fenced(const char *blade, u64 pages)
{
	struct cxlt_health *h = cxlt_health_find(blade, true);

	if (h)
		atomic64_add(pages, &h->fenced_pages);
}
