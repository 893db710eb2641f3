// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: per-user limits of global regions
 *
 * Region memory outlives the processes that use it, so the usual per-process limits
 * do not bound it.  Like SysV shared memory locked with SHM_LOCK, it is charged to
 * the user who created it (the creator's fsuid), for as long as the region's memory
 * exists (until the last file and mapping of a destroyed region go):
 *
 * - memory: a region's whole length is reserved at CREATE against a limit in the
 *   manner of RLIMIT_MEMLOCK: user_limit_mb when the operator set it, otherwise the
 *   creating process's RLIMIT_MEMLOCK; CAP_IPC_LOCK is exempt.  Reserving the length,
 *   not the pages touched so far, makes the failure an error at CREATE (EDQUOT)
 *   rather than a SIGBUS at some later page fault.
 * - regions: at most user_max_regions regions per user, so one user cannot use up
 *   the 65535 region ids of everyone; CAP_SYS_RESOURCE is exempt.
 * - DRAM: at most fast_user_pct percent of fast_budget_mb per user (region_mm.c
 *   checks it at each fast-tier allocation, with the counter kept here), so one
 *   user cannot take all of the DRAM the operator gave global regions; pages that
 *   do not fit there go to the slow tiers.  CAP_SYS_RESOURCE is exempt.
 *
 * The pages themselves are also charged to the creator's memory cgroup
 * (region_mm.c), which is what bounds them per container.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "cxltier.h"
#include "user.h"

static unsigned int user_limit_mb;
module_param(user_limit_mb, uint, 0644);
MODULE_PARM_DESC(user_limit_mb,
		 "Region memory one user may create, in MiB; 0 (default): the creator's RLIMIT_MEMLOCK.  CAP_IPC_LOCK is exempt");

static unsigned int user_max_regions = 256;
module_param(user_max_regions, uint, 0644);
MODULE_PARM_DESC(user_max_regions,
		 "Regions one user may have (default 256); CAP_SYS_RESOURCE is exempt");

static struct {
	/* Protects @users and every entry's @regions and @pages; process context. */
	struct mutex lock;
	struct xarray users;	/* uid (in init_user_ns) -> struct cxlt_user */
} cxlt_users = {
	.lock = __MUTEX_INITIALIZER(cxlt_users.lock),
	.users = XARRAY_INIT(cxlt_users.users, 0),
};

/* The memory limit of the current task's user, in pages; ULONG_MAX for none. */
static unsigned long cxlt_user_limit(void)
{
	unsigned long lim = READ_ONCE(user_limit_mb);

	if (lim)
		return lim << (20 - PAGE_SHIFT);
	lim = rlimit(RLIMIT_MEMLOCK);
	return lim == RLIM_INFINITY ? ULONG_MAX : lim >> PAGE_SHIFT;
}

/**
 * cxlt_user_charge() - charge a new region to the current user
 * @name: the region's name, for the debug log
 * @nr_pages: the region's length in pages
 * @userp: set to the user's charges, to give back with cxlt_user_uncharge()
 * @exempt_mem: set when the user's memory limit does not apply (CAP_IPC_LOCK)
 * @exempt_res: set when the region count and DRAM share limits do not apply
 *	(CAP_SYS_RESOURCE); region_mm.c checks the DRAM share
 *
 * Context: process context (CREATE); takes cxlt_users.lock.
 * Return: 0; -EDQUOT over the user's memory limit or region count; -ENOMEM.
 */
int cxlt_user_charge(const char *name, unsigned long nr_pages, struct cxlt_user **userp,
		     bool *exempt_mem, bool *exempt_res)
{
	u32 uid = from_kuid(&init_user_ns, current_fsuid());
	unsigned long limit = cxlt_user_limit();
	struct cxlt_user *u;
	int rc = 0;

	*exempt_mem = capable(CAP_IPC_LOCK);
	*exempt_res = capable(CAP_SYS_RESOURCE);

	guard(mutex)(&cxlt_users.lock);
	u = xa_load(&cxlt_users.users, uid);
	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
		if (!u)
			return -ENOMEM;
		u->uid = uid;
		rc = xa_err(xa_store(&cxlt_users.users, uid, u, GFP_KERNEL_ACCOUNT));
		if (rc) {
			kfree(u);
			return rc;
		}
	}
	if (!*exempt_res && u->regions >= READ_ONCE(user_max_regions)) {
		pr_debug("create %s: uid %u has %u regions (user_max_regions)\n", name,
			 uid, u->regions);
		rc = -EDQUOT;
	} else if (!*exempt_mem && (nr_pages > limit || u->pages > limit - nr_pages)) {
		pr_debug("create %s: uid %u would have %lu pages of regions, limit %lu\n",
			 name, uid, u->pages + nr_pages, limit);
		rc = -EDQUOT;
	}
	if (rc) {
		/* A user with nothing charged has no entry. */
		if (!u->regions) {
			xa_erase(&cxlt_users.users, uid);
			kfree(u);
		}
		return rc;
	}
	u->regions++;
	u->pages += nr_pages;
	*userp = u;
	return 0;
}

/**
 * cxlt_user_uncharge() - give a freed region's charge back
 * @u: the user's charges from cxlt_user_charge(), or NULL (nothing charged)
 * @nr_pages: the region's length in pages, as charged
 *
 * Context: process context; takes cxlt_users.lock.
 */
void cxlt_user_uncharge(struct cxlt_user *u, unsigned long nr_pages)
{
	if (!u)
		return;
	guard(mutex)(&cxlt_users.lock);
	u->regions--;
	u->pages -= nr_pages;
	if (!u->regions) {
		/* Each region gave its fast pages back, page by page, before this. */
		WARN_ON_ONCE(atomic_long_read(&u->fast));
		xa_erase(&cxlt_users.users, u->uid);
		kfree(u);
	}
}

/**
 * cxlt_users_show() - debugfs "users": a line per user with regions
 * @m: the seq_file
 * @unused: unused
 *
 * Columns: uid, regions, pages reserved, fast-tier pages in use.
 *
 * Return: 0.
 */
static int cxlt_users_show(struct seq_file *m, void *unused)
{
	struct cxlt_user *u;
	unsigned long idx;

	seq_puts(m, "# uid regions pages fast_pages\n");
	guard(mutex)(&cxlt_users.lock);
	xa_for_each(&cxlt_users.users, idx, u)
		seq_printf(m, "%u %u %lu %ld\n", u->uid, u->regions, u->pages,
			   atomic_long_read(&u->fast));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxlt_users);

/**
 * cxlt_users_init() - the debugfs file of per-user charges
 * @dir: the module's debugfs directory
 */
void cxlt_users_init(struct dentry *dir)
{
	debugfs_create_file("users", 0400, dir, NULL, &cxlt_users_fops);
}

/* Module exit: regions pin the module, so no user is charged any more. */
void cxlt_users_exit(void)
{
	WARN_ON(!xa_empty(&cxlt_users.users));
	xa_destroy(&cxlt_users.users);
}
