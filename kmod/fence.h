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

int cxlt_fence_blade(const char *blade, u32 cause, ktime_t t0);
int cxlt_fence_cxl_region(struct device *region, u32 cause, ktime_t t0);
bool cxlt_fence_enabled(void);
void cxlt_fence_init(void);
void cxlt_fence_exit(void);

#endif /* _CXLT_FENCE_H */
