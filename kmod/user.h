/* SPDX-License-Identifier: GPL-2.0 */
/* user.c: per-user limits of global regions. */
#ifndef _CXLT_USER_H
#define _CXLT_USER_H

#include <linux/atomic.h>
#include <linux/types.h>

struct dentry;

/**
 * struct cxlt_user - what one user's regions are charged (user.c)
 * @uid: the user, in the initial user namespace
 * @regions: regions not freed; under cxlt_users.lock
 * @pages: their length in pages, reserved at create; under cxlt_users.lock
 * @fast: their pages on the fast tier now (atomic: changed at faults and frees,
 *	by region_mm.c)
 *
 * Lives while the user has regions, so a region's @user pointer is valid until
 * the region is freed.
 */
struct cxlt_user {
	u32 uid;
	unsigned int regions;
	unsigned long pages;
	atomic_long_t fast;
};

int cxlt_user_charge(const char *name, unsigned long nr_pages, struct cxlt_user **userp,
		     bool *exempt_mem, bool *exempt_res);
void cxlt_user_uncharge(struct cxlt_user *u, unsigned long nr_pages);
void cxlt_users_init(struct dentry *dir);
void cxlt_users_exit(void);

#endif /* _CXLT_USER_H */
