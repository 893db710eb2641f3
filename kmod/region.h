/* SPDX-License-Identifier: GPL-2.0 */
/*
 * region.c: global regions: the id/name table, lifetime, access control and the
 * ioctl verbs.  See "DOC: global regions" in region.c.
 */
#ifndef _CXLT_REGION_H
#define _CXLT_REGION_H

#include <linux/cleanup.h>
#include <linux/types.h>
#include <linux/cxltier.h>

#include "region_types.h"

void cxlt_region_put(struct cxlt_region *r);
/* cxlt_region_put() takes NULL, so it is its own __free() test. */
DEFINE_FREE(cxlt_region_put, struct cxlt_region *, cxlt_region_put(_T))
void cxlt_region_put_async(struct cxlt_region *r);
struct cxlt_region *cxlt_region_get(u32 by_id, u32 id, const char *name);
int cxlt_region_create(const struct cxltier_create *args, u32 *id);
int cxlt_region_open(struct cxltier_open *args, struct cxlt_region **rp);
int cxlt_region_destroy(const struct cxltier_destroy *args);
int cxlt_region_list(struct cxltier_list *args);
int cxlt_region_stat(struct cxlt_region *r, struct cxltier_stat *args);
int cxlt_region_may_stat(struct cxlt_region *r);
int cxlt_region_may_write(struct cxlt_region *r);
int cxlt_region_hint(struct cxlt_region *r, const struct cxltier_hint *args);
int cxlt_region_pages(struct cxlt_region *r, struct cxltier_pages *args);
int cxlt_region_replace(struct cxlt_region *r, struct cxltier_replace *args);
void cxlt_region_fenced(struct cxlt_region *r, struct cxltier_fenced *args);
int cxlt_regions_snapshot(struct cxlt_region ***out, u64 *gen);
int cxlt_regions_try_fast_first(struct cxlt_region **arr, int max, unsigned int start);
struct cxlt_region *cxlt_region_alloc_persistent(const char *name, u64 size, u32 uid,
						 u32 gid, u32 mode);
int cxlt_region_publish(struct cxlt_region *r, u32 *id);
bool cxlt_region_name_taken(const char *name);
int cxlt_region_check_size(const char *name, u64 length);
void cxlt_region_unpublish(struct cxlt_region *r);
int cxlt_region_set_policy(const struct cxltier_set_policy *args);
int cxlt_regions_init(void);
void cxlt_regions_exit(void);

#endif /* _CXLT_REGION_H */
