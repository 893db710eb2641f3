/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool.c: pools, the CXL pmem regions that hold persistent regions, and their
 * on-device region tables (pool_format.h).  See "DOC: pools" in pool.c.
 */
#ifndef _CXLT_POOL_H
#define _CXLT_POOL_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct cxlt_pool;
struct cxlt_region;
struct device;
struct kobject;
struct vm_fault;

int cxlt_pools_start(struct kobject *root);
void cxlt_pools_stop(struct kobject *root);
void cxlt_pools_scan(void);
int cxlt_pools_blade_lost(const char *blade, bool fenced);
void cxlt_pools_sync_shared(void);
void cxlt_pools_region_lost(struct device *region);

int cxlt_pool_create_region(struct cxlt_region *r, const char *pool);
int cxlt_pool_destroy_region(struct cxlt_region *r);
void cxlt_pool_region_free(struct cxlt_region *r);
int cxlt_pool_region_open(struct cxlt_region *r);
void cxlt_pool_region_close(struct cxlt_region *r);
const char *cxlt_pool_name(const struct cxlt_pool *pool);
bool cxlt_pool_is_shared_region(const struct cxlt_region *r);
vm_fault_t cxlt_pool_fault(struct vm_fault *vmf);
int cxlt_pool_sync(struct cxlt_region *r, loff_t start, loff_t end);

#endif /* _CXLT_POOL_H */
