/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier internal interfaces: what every file of the module shares.
 *
 * DOC: module layout
 *
 * One file per object.  The file that allocates an object also owns its sysfs
 * attributes, kobject type, file operations and release, so no file frees what it
 * did not make.  What other files may call is declared in the header named after
 * the file (tier.c: tier.h); this header only holds what all of them share.
 *
 *   main.c		module entry: sets up everything below, in order
 *   sysfs.c		/sys/kernel/cxltier itself: its files and its three
 *			directories, which main.c hands to their owners
 *   discover.c		blades and CXL regions as cxltier mirrors them (blades/,
 *			cxl_regions/), scans and the CXL bus notifier
 *   tier.c		tiers: CXL RAM regions registered as NUMA nodes (tiers/)
 *   cxlr.c		a CXL region's parameters and state, read from the CXL core
 *   devattr.c,		the shim: other subsystems driven through their sysfs ABI,
 *   memblock.c		isolated here (devattr.c says why); header devattr.h
 *   cdev.c		/dev/cxltier and region files: every file_operations
 *   region.c		global regions: the table, lifetime, access checks, verbs
 *   region_mm.c	a region's memory: inode, page cache and page table,
 *			placement, mmap, faults, the kernel's migrations of it
 *   migrate.c		moving region pages between the fast and slow tiers
 *   daemon.c		cxltierd, the migration daemon: sampling, the policy
 *			core, its tunables and counters (daemon/); trace.h
 *   user.c		per-user charges of global regions
 *   policy/		the placement policy core, plain C that calls nothing
 *
 * Files depend on each other in one direction only.  "A -> B": A calls B, or
 * includes B's header:
 *
 *   main -> sysfs, discover, tier, cdev, region, daemon, devattr
 *   sysfs -> discover, tier
 *   discover -> tier, cxlr, devattr
 *   tier -> cxlr, devattr (memblock)
 *   cxlr -> devattr
 *   memblock -> devattr
 *   cdev -> region, region_mm
 *   region -> region_mm, user
 *   region_mm -> tier, user
 *   daemon -> region, region_mm, migrate, policy
 *   migrate -> region_mm, tier
 *
 * Every file includes this header.  region_types.h, the layout of struct
 * cxlt_region, is data that region.c, region_mm.c and cdev.c read; it declares no
 * function.  Nothing calls back up an arrow: sysfs.c's files call discover.c and
 * tier.c (rescan, tier_add, tier_remove), so those do not ask sysfs.c for their
 * directories, main.c hands the directories to them at init; and region.c has
 * region_mm.c, not cdev.c (whose file code calls region.c), make a region's inode.
 *
 * Lock order, outermost first:
 *   cxlt_disc.lock		mutex: the discovery mirror (discover.c)
 *   cxlt_tiers.lock		mutex: registered tiers (tier.c); held for as long
 *				as onlining or offlining a tier takes, so never
 *				taken where the CXL core holds a device lock (the
 *				bus notifier uses cxlt_tiers.lookup_lock only)
 *   CXL core locks		taken inside the CXL core's attribute show() methods
 *				(cxl_region_rwsem) and device_lock() of dax devices
 *   device_hotplug_lock	memory hotplug (taken by the memory core and by
 *				memory block "state" stores)
 *
 * Global regions, outermost first:
 *   cxlt_regions.lock		mutex: the region id/name table (region.c)
 *   cxlt_users.lock		mutex: per-user charges (user.c); taken at create
 *				and free only, never with a folio lock held
 *   mmap_lock or VMA lock	held by the mm around a region fault
 *   region folio locks		a region page's folio lock (the page cache's), one
 *				at a time in a fault, a run of them in ascending
 *				offset order in the migrator (only the first
 *				may sleep); lockdep sees them as cxlt_page_lock
 *   i_mmap_rwsem, PTL		unmap_mapping_pages(), and the mm mapping a
 *				faulted folio
 *   cxlt_region.lock		spinlock, leaf: a region's policy, node mask and
 *				destroyed flag (region_types.h)
 *   cxlt_tiers.lookup_lock	spinlock, leaf (fault path lookups, tier.c)
 * cxlt_regions.lock and folio locks are never held together (the daemon takes a
 * snapshot of referenced regions, then lets the lock go); no folio lock is taken
 * under i_mmap_rwsem or a PTL.  The daemon's tunables have their own mutex, a leaf.
 *
 * Sysfs accesses of other subsystems (devattr.c) run on the cxltier_sysfs workqueue
 * while the caller waits: callers may hold any lock above, and the workers take none.
 *
 * Sysfs removal rule: kobject_del() waits for running show() calls to finish, and
 * show() may take cxlt_disc.lock, so mirror objects are unlinked under the lock and
 * deleted after it is dropped.
 */
#ifndef _CXLTIER_H
#define _CXLTIER_H

#include <linux/device.h>

/* CXL 3.1 8.2.4.20.7: a decoder interleaves over at most 16 targets. */
#define CXLT_MAX_WAYS		16
#define CXLT_NAME_LEN		32

/* A blade's memdev name (tier.c's cxlt_pfn_blades(), region_mm.c's census). */
struct cxlt_blade_name {
	char name[CXLT_NAME_LEN];
};

/* Exported by the CXL core (namespace CXL); declared in its private drivers/cxl/cxl.h. */
extern const struct bus_type cxl_bus_type;

#endif /* _CXLTIER_H */
