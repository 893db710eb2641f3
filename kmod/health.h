/* SPDX-License-Identifier: GPL-2.0 */
/*
 * health.c: each blade's service state (in service, draining, out of service,
 * fenced) and its fence and drain counters, kept by name so that they outlive the
 * memdev (a hot-removed blade stays listed as fenced).
 */
#ifndef _CXLT_HEALTH_H
#define _CXLT_HEALTH_H

#include <linux/atomic.h>
#include <linux/types.h>

#include "cxltier.h"

enum cxlt_svc {
	CXLT_SVC_IN,		/* in service (sysfs: online or offline, as the memdev) */
	CXLT_SVC_DRAINING,	/* a drain is moving its pages away */
	CXLT_SVC_OUT,		/* drained: out of service until restored */
	CXLT_SVC_FENCED,	/* failed: its pages are fenced */
};

/* Tiers a drain took offline, re-added by a restore. */
#define CXLT_MAX_DRAINED	8

/**
 * struct cxlt_health - one blade's service state and counters
 * @name: memdev name; empty: a free slot
 * @svc: the state, under cxlt_health's lock
 * @cause: why it was fenced (CXLTIER_CAUSE_*); with @time_ns written by the fence,
 *	under its mutex (fence.c), before @svc becomes fenced; read without a lock
 * @time_ns: when it was fenced, CLOCK_REALTIME
 * @fenced_pages: pages fenced: region pages and system-RAM pages
 * @fence_ns: from the trigger to the last page fenced (the last fence)
 * @poisoned: poisoned addresses the device reported
 * @drained_pages: pages the last drain moved so far
 * @drain_left: pages still to move while draining, else 0
 * @drain_ns: how long the last drain took
 * @nr_drained: entries in @drained and @drained_adist; the three under the drain
 *	mutex (drain.c)
 * @drained: the tiers the drain took offline, added back by a restore
 * @drained_adist: their abstract distances to add them with (0: derived again)
 *
 * Slots are never freed while the module is loaded: pointers stay valid.
 */
struct cxlt_health {
	char name[CXLT_NAME_LEN];
	enum cxlt_svc svc;
	u32 cause;
	u64 time_ns;
	atomic64_t fenced_pages;
	atomic64_t fence_ns;
	atomic64_t poisoned;
	atomic64_t drained_pages;
	atomic64_t drain_left;
	atomic64_t drain_ns;
	int nr_drained;
	char drained[CXLT_MAX_DRAINED][CXLT_NAME_LEN];
	int drained_adist[CXLT_MAX_DRAINED];
};

struct cxlt_health *cxlt_health_find(const char *blade, bool create);
enum cxlt_svc cxlt_blade_svc(const char *blade);
bool cxlt_health_move(struct cxlt_health *h, unsigned int from_mask, enum cxlt_svc to);
const char *cxlt_svc_name(enum cxlt_svc svc);
void cxlt_blade_count_fenced(const char *blade, u64 pages);

static inline bool cxlt_blade_fenced(const char *blade)
{
	return cxlt_blade_svc(blade) == CXLT_SVC_FENCED;
}

#endif /* _CXLT_HEALTH_H */
