/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool.c: pools, the CXL pmem regions that hold persistent regions, and their
 * on-device region tables (poolcore/cxlt_pool_format.h).  See "DOC: pools" in
 * pool.c.  The region code reaches a persistent region's pool through
 * &cxlt_region.store only; what is here is for cdev.c, main.c and the failure paths.
 */
#ifndef _CXLT_POOL_H
#define _CXLT_POOL_H

#include <linux/types.h>

struct cxlt_region;
struct cxltier_create;
struct device;
struct kobject;

int cxlt_pools_start(struct kobject *root);
void cxlt_pools_stop(struct kobject *root);
void cxlt_pools_scan(void);
int cxlt_pools_blade_lost(const char *blade, bool fenced);
void cxlt_pools_sync_shared(void);
void cxlt_pools_region_lost(struct device *region);

int cxlt_pool_create(const struct cxltier_create *args, u32 *id);
int cxlt_pool_region_open(struct cxlt_region *r);
void cxlt_pool_region_close(struct cxlt_region *r);
int cxlt_pool_sync(struct cxlt_region *r, loff_t start, loff_t end);

#endif /* _CXLT_POOL_H */
