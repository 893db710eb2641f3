// SPDX-License-Identifier: GPL-2.0
/*
 * cxltier: tiered CXL memory for Linux.
 *
 * Module entry.  The module discovers CXL type-3 memory devices ("blades") and CXL
 * regions, registers CXL RAM regions as tiered NUMA nodes on request, and publishes
 * all of it under /sys/kernel/cxltier; it also offers global regions, named memory
 * that it places on the tiers, through /dev/cxltier.  See
 * Documentation/admin-guide.rst.  The files and the direction in which they depend
 * on each other are listed at the top of cxltier.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cxltier.h"
#include "cdev.h"
#include "daemon.h"
#include "devattr.h"
#include "discover.h"
#include "drain.h"
#include "failure.h"
#include "fence.h"
#include "pool.h"
#include "reclaim.h"
#include "region.h"
#include "sysfs.h"
#include "tier.h"

/*
 * cxl_bus_type and the CXL core's other exports.  What MODULE_IMPORT_NS() expands to,
 * spelled out: its argument is a bare word in 6.12 and a string from 6.13 on.
 */
MODULE_INFO(import_ns, "CXL");

static int __init cxlt_init(void)
{
	int rc;

	cxlt_fence_init();
	cxlt_drain_init();
	rc = cxlt_devattr_init();
	if (rc)
		return rc;
	rc = cxlt_sysfs_init();
	if (rc)
		goto err_devattr;
	rc = cxlt_discover_init(cxlt_sysfs_blades_dir());
	if (rc)
		goto err_sysfs;
	rc = cxlt_regions_init();
	if (rc)
		goto err_discover;
	rc = cxlt_pools_start(cxlt_sysfs_root());
	if (rc)
		goto err_regions;
	rc = cxlt_cdev_init();
	if (rc)
		goto err_pools;
	rc = cxlt_daemon_init(cxlt_sysfs_root());
	if (rc)
		goto err_cdev;
	rc = cxlt_reclaim_init();
	if (rc)
		goto err_daemon;
	/*
	 * Tiers last: registered memory pins the module, so it must not exist before
	 * everything that could still fail has succeeded.
	 */
	cxlt_tiers_start(cxlt_sysfs_tiers_dir());
	cxlt_failure_init();
	return 0;

err_daemon:
	cxlt_daemon_exit();
err_cdev:
	cxlt_cdev_exit();
err_pools:
	cxlt_pools_stop(cxlt_sysfs_root());
err_regions:
	cxlt_regions_exit();
err_discover:
	cxlt_discover_exit();
err_sysfs:
	cxlt_sysfs_exit();
err_devattr:
	cxlt_devattr_exit();
	return rc;
}

static void __exit cxlt_exit(void)
{
	cxlt_failure_exit();
	cxlt_reclaim_exit();
	cxlt_daemon_exit();
	cxlt_cdev_exit();
	cxlt_pools_stop(cxlt_sysfs_root());
	cxlt_regions_exit();
	cxlt_discover_exit();
	cxlt_fence_exit();
	cxlt_tiers_exit();
	cxlt_sysfs_exit();
	cxlt_devattr_exit();
}

module_init(cxlt_init);
module_exit(cxlt_exit);
MODULE_DESCRIPTION("Tiered CXL memory: tiers, global regions, migration and fencing");
MODULE_LICENSE("GPL");
