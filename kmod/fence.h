/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fence.c: fencing the region pages of a failed blade.
 */
#ifndef _CXLT_FENCE_H
#define _CXLT_FENCE_H

#include <linux/types.h>

int cxlt_fence_blade(const char *blade);
bool cxlt_blade_fenced(const char *blade);
bool cxlt_pfn_fenced(unsigned long pfn);

#endif /* _CXLT_FENCE_H */
