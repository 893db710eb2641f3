/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier internal interfaces.
 *
 * Lock order, outermost first:
 *   cxlt_disc.lock		the discovery mirror (discover.c)
 *   cxlt_tiers.lock		registered tiers (tier.c); held for as long as
 *				onlining or offlining a tier takes, so never taken
 *				where the CXL core holds a device lock (the bus
 *				notifier uses cxlt_tiers.lookup_lock only)
 *   CXL core locks		taken inside the CXL core's attribute show() methods
 *				(cxl_region_rwsem) and device_lock() of dax devices
 *   device_hotplug_lock	memory hotplug (taken by the memory core and by
 *				memory block "state" stores)
 *
 * Global regions (region.h has the details), outermost first:
 *   cxlt_regions.lock		the region id/name table (region.c)
 *   cxlt_users.lock		per-user charges (user.c); taken at create and free
 *				only, never with an entry lock held
 *   mmap_lock or VMA lock	held by the mm around a region fault
 *   region page entry lock	per page (CXLT_RP_LOCKED bit), sleeping; held by the
 *				fault handler, a migrator or a fencer of that page
 *   i_mmap_rwsem, PTL		vm_insert_page(), unmap_mapping_range()
 *   cxlt_region.lock		spinlock, leaf: a region's policy and node mask
 *   cxlt_tiers.lookup_lock	spinlock, leaf (fault path lookups, tier.c)
 * cxlt_regions.lock and entry locks are never held together.
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
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/types.h>

#define CXLT_SYSFS_ABI_VERSION	1

/* CXL 3.1 8.2.4.20.7: a decoder interleaves over at most 16 targets. */
#define CXLT_MAX_WAYS		16
#define CXLT_NAME_LEN		32

/* Exported by the CXL core (namespace CXL); declared in its private drivers/cxl/cxl.h. */
extern const struct bus_type cxl_bus_type;

/* --- devattr.c: other subsystems through their sysfs ABI (why: see there) ---------- */
int cxlt_devattr_init(void);
void cxlt_devattr_exit(void);
int cxlt_sysfs_read(const char *path, char *out, size_t outlen);
int cxlt_sysfs_write(const char *path, const char *val);
int cxlt_sysfs_link_name(const char *path, char *out, size_t outlen);
int cxlt_dev_attr_read(struct device *dev, const char *group, const char *name,
		       char *out, size_t outlen);
int cxlt_dev_attr_u64(struct device *dev, const char *group, const char *name,
		      u64 *val);
struct device *cxlt_dev_link_target(struct device *dev, const char *link);
bool cxlt_dev_is_type(struct device *dev, const char *type_name);

/* --- discover.c: the mirror of CXL memdevs ("blades") and CXL regions ---------------- */

/**
 * struct cxlt_blade - a CXL type-3 memory device (cxl_memdev)
 * @kobj: /sys/kernel/cxltier/blades/<memdev>
 * @node: entry in cxlt_disc.blades, under cxlt_disc.lock
 * @dev: the cxl_memdev; the mirror holds a reference until it drops the blade
 * @serial: PCIe Device Serial Number, as the CXL core reports it
 * @ram_size: volatile capacity in bytes
 * @pmem_size: persistent capacity in bytes
 * @pci_dev: PCI address of the device's function
 * @seen: scratch flag of the scan in progress, under cxlt_disc.lock
 *
 * Everything but @seen is written once before the kobject is added and never
 * changes, so show() methods read it without the lock.
 */
struct cxlt_blade {
	struct kobject kobj;
	struct list_head node;
	struct device *dev;
	u64 serial;
	u64 ram_size;
	u64 pmem_size;
	char pci_dev[CXLT_NAME_LEN];
	bool seen;
};

/**
 * struct cxlt_cxl_region - a CXL region as the CXL core created it
 * @kobj: /sys/kernel/cxltier/cxl_regions/<region>
 * @node: entry in cxlt_disc.cxl_regions, under cxlt_disc.lock
 * @dev: the cxl_region device; referenced while mirrored
 * @seen: scratch flag of the scan in progress, under cxlt_disc.lock
 *
 * A region's parameters change while it is configured (targets, size, commit), so
 * they are not cached: cxlt_cxl_region_info() reads them when asked.
 */
struct cxlt_cxl_region {
	struct kobject kobj;
	struct list_head node;
	struct device *dev;
	bool seen;
};

enum cxlt_cxl_region_state {
	CXLT_CXLR_UNCOMMITTED,	/* decoders not committed */
	CXLT_CXLR_COMMITTED,	/* committed, memory not in use by any driver */
	CXLT_CXLR_DAX,		/* held by device_dax (a daxX.Y exists) */
	CXLT_CXLR_SYSTEM_RAM,	/* onlined as System RAM by kmem */
};

/**
 * struct cxlt_cxl_region_info - a snapshot of one CXL region's parameters
 * @mode: "ram" or "pmem" (other CXL decoder modes are reported as named by the core)
 * @state: see enum cxlt_cxl_region_state
 * @start: first host physical address, 0 when no address range is assigned yet
 * @size: size in bytes, 0 when no address range is assigned yet
 * @ways: interleave ways
 * @granularity: interleave granularity in bytes
 * @nid: node of the address range (its CXL window's), NUMA_NO_NODE when unknown
 * @nr_blades: targets set so far
 * @blades: memdev names of the targets, in interleave position order
 * @dax_dev: the region's dax device (dax0.0) when dax_cxl made one, else empty
 */
struct cxlt_cxl_region_info {
	char mode[8];
	enum cxlt_cxl_region_state state;
	u64 start;
	u64 size;
	u32 ways;
	u32 granularity;
	int nid;
	u32 nr_blades;
	char blades[CXLT_MAX_WAYS][CXLT_NAME_LEN];
	char dax_dev[CXLT_NAME_LEN];
};

/* Does not know about tiers: a registered region reads as committed here. */
int cxlt_cxl_region_info(struct device *region, struct cxlt_cxl_region_info *info);
const char *cxlt_cxl_region_state_name(enum cxlt_cxl_region_state state);
bool cxlt_blade_online(struct cxlt_blade *blade);
ssize_t cxlt_blade_cxl_regions(struct cxlt_blade *blade, char *buf);

int cxlt_discover_init(void);
void cxlt_discover_exit(void);
int cxlt_rescan(void);

/* --- memblock.c ------------------------------------------------------------------- */
int cxlt_memblocks_online_movable(u64 start, u64 size);

/* --- tier.c: CXL RAM regions registered as NUMA nodes ------------------------------ */

/* Where a tier's abstract distance came from. */
enum cxlt_adist_source {
	CXLT_ADIST_OVERRIDE,	/* the operator's adistance= */
	CXLT_ADIST_CDAT,	/* the region's access coordinates (CDAT + HMAT) */
	CXLT_ADIST_PLATFORM,	/* an adistance algorithm (mt_calc_adistance()) */
	CXLT_ADIST_DEFAULT,	/* no data: kmem's default, 5 x DRAM */
};

/**
 * struct cxlt_tier - a CXL RAM region registered as a NUMA node
 * @kobj: /sys/kernel/cxltier/tiers/<region>
 * @node: entry in the tier list, under cxlt_tiers.lock
 * @region: the cxl_region device, referenced
 * @start: first host physical address
 * @size: size in bytes
 * @nid: the node the memory is on
 * @adist: abstract distance of the node's memory type
 * @adist_src: where @adist came from
 * @mtype: the memory type set on @nid
 * @mgid: memory group id
 * @res: our claim on the range in the iomem tree; the System RAM nests under it
 * @res_name: name of @res ("cxltier:region0"); lives as long as @res
 * @ways: interleave ways of the region
 * @granularity: interleave granularity in bytes
 * @nr_blades: entries in @blades
 * @blades: memdev names of the region's targets, in interleave position order
 *
 * Set before the tier is listed and published, then constant until removal (which
 * holds cxlt_tiers.lock), so show() methods read it without locks.
 */
struct cxlt_tier {
	struct kobject kobj;
	struct list_head node;
	struct device *region;
	u64 start;
	u64 size;
	int nid;
	int adist;
	enum cxlt_adist_source adist_src;
	struct memory_dev_type *mtype;
	int mgid;
	struct resource *res;
	char res_name[CXLT_NAME_LEN + 8];
	u32 ways;
	u32 granularity;
	u32 nr_blades;
	char blades[CXLT_MAX_WAYS][CXLT_NAME_LEN];
};

int cxlt_tier_add(const char *name, int adist);
int cxlt_tier_remove(const char *name);
bool cxlt_tier_registered(struct device *region);
void cxlt_tier_nodes(nodemask_t *nodes);
struct cxlt_blade_name {
	char name[CXLT_NAME_LEN];
};

int cxlt_pfn_blades(unsigned long pfn, struct cxlt_blade_name *names, int max);
void cxlt_tiers_auto_register(void);
void cxlt_tiers_start(void);
void cxlt_tiers_exit(void);
const char *cxlt_adist_source_name(enum cxlt_adist_source src);
void cxlt_tier_release(struct kobject *kobj);

/* --- region.c, region_mm.c, cdev.c: global regions and /dev/cxltier (region.h) ---- */
int cxlt_regions_init(void);
void cxlt_regions_exit(void);

/* --- sysfs.c: /sys/kernel/cxltier ------------------------------------------------- */
int cxlt_sysfs_init(void);
void cxlt_sysfs_exit(void);
int cxlt_sysfs_add_blade(struct cxlt_blade *blade);
int cxlt_sysfs_add_cxl_region(struct cxlt_cxl_region *cxlr);
struct cxlt_tier *cxlt_tier_alloc(void);
int cxlt_sysfs_add_tier(struct cxlt_tier *tier, const char *name);
void cxlt_sysfs_del_tier(struct cxlt_tier *tier);
void cxlt_blade_release(struct kobject *kobj);
void cxlt_cxl_region_release(struct kobject *kobj);

#endif /* _CXLTIER_H */
