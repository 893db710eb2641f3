/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tier.c: CXL RAM regions registered as NUMA nodes in a lower memory tier, and
 * /sys/kernel/cxltier/tiers/<region>.
 */
#ifndef _CXLT_TIER_H
#define _CXLT_TIER_H

#include <linux/nodemask.h>
#include <linux/types.h>

#include "cxltier.h"

struct device;
struct kobject;

int cxlt_tier_add(const char *name, int adist);
int cxlt_tier_remove(const char *name);
bool cxlt_tier_registered(struct device *region);
void cxlt_tier_nodes(nodemask_t *nodes);
void cxlt_tier_count_move(unsigned long pfn, bool promoted);
int cxlt_pfn_blades(unsigned long pfn, struct cxlt_blade_name *names, int max);
void cxlt_tiers_auto_register(void);
void cxlt_tiers_start(struct kobject *dir);
void cxlt_tiers_exit(void);

#endif /* _CXLT_TIER_H */
