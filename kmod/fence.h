/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fence.c: fencing the pages of a failed blade or of a tier's lost CXL region.
 */
#ifndef _CXLT_FENCE_H
#define _CXLT_FENCE_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "health.h"

struct device;
struct notifier_block;

/**
 * struct cxlt_fence_note - what a fence tells its notifier chain, before it
 *	scans the blade's tiers (cxlt_fence_register_notifier())
 * @blade: the blade being fenced
 * @taken: a callee adds what it took off the blade (pools: pool.c); a blade
 *	with no tier and nothing taken is not fenced (-ENOENT)
 */
struct cxlt_fence_note {
	const char *blade;
	int taken;
};

int cxlt_fence_register_notifier(struct notifier_block *nb);
void cxlt_fence_unregister_notifier(struct notifier_block *nb);
int cxlt_fence_blade(const char *blade, u32 cause, ktime_t t0);
int cxlt_fence_cxl_region(struct device *region, u32 cause, ktime_t t0);
bool cxlt_fence_enabled(void);
void cxlt_fence_init(void);
void cxlt_fence_exit(void);

#endif /* _CXLT_FENCE_H */
