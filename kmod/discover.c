// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: discovery of CXL blades and regions
 *
 * cxltier mirrors two kinds of CXL bus devices: memdevs ("blades") and regions.  A
 * scan walks the CXL bus, adds a mirror object (and its sysfs directory) for every new
 * device and drops those whose device is gone.  Scans run at module load, on a write
 * to /sys/kernel/cxltier/rescan, and from a work item that a CXL bus notifier queues
 * whenever a CXL device is added, removed, bound or unbound.  The notifier only queues
 * and takes no sleeping lock of ours: it runs inside device_add()/device_del() and
 * driver (un)binding with device locks held, where reading other devices' attributes,
 * or waiting for a tier operation (which holds cxlt_tiers.lock for as long as
 * onlining or offlining memory takes, and reads CXL attributes under it), could stall
 * the CXL core or deadlock.  Scans, and the tier registrations they may start
 * (auto_register), run on the module's own ordered workqueue, not on system_wq,
 * because they can take minutes.
 *
 * Each mirror object is a kobject under /sys/kernel/cxltier/blades/ or
 * cxl_regions/ (see Documentation/ABI/testing/sysfs-kernel-cxltier), which holds a
 * reference on its device.  Blade facts are cached when the blade is found; a CXL
 * region's attributes are read from the region when asked (cxlr.c), because a
 * region changes while it is configured.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "cxltier.h"
#include "cxlr.h"
#include "devattr.h"
#include "discover.h"
#include "failure.h"
#include "fence.h"
#include "tier.h"

/*
 * Let a burst of bus events (binding a region adds several devices) settle before a
 * scan.  Longer delays batch more events; the mirror lags the CXL core by this much.
 */
static unsigned int rescan_delay_ms = 100;
module_param(rescan_delay_ms, uint, 0444);
MODULE_PARM_DESC(rescan_delay_ms,
		 "Delay from a CXL bus event to the rescan it triggers, in ms (0-10000, default 100)");
#define CXLT_RESCAN_DELAY_MAX_MS	10000

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
 * @gone: the memdev is gone but the blade was fenced: it stays listed (state
 *	fenced) until a memdev of the same name appears; under cxlt_disc.lock
 * @replaced: a new memdev has this one's name: drop it; under cxlt_disc.lock
 *
 * Everything but @seen, @gone and @replaced is written once before the kobject is added and never
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
	bool gone;
	bool replaced;
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

static struct {
	/* Protects the two lists, every mirror object's @seen flag, @dying, the dirs. */
	struct mutex lock;
	struct list_head blades;
	struct list_head cxl_regions;
	bool dying;		/* module exit began: scans add nothing */
	struct workqueue_struct *wq;	/* ordered: one scan at a time */
	struct delayed_work rescan_work;
	struct notifier_block nb;
	/*
	 * /sys/kernel/cxltier/blades and cxl_regions: set under @lock at init, before
	 * the first scan; no scan runs while they are NULL.
	 */
	struct kobject *blades_dir;
	struct kobject *cxl_regions_dir;
} cxlt_disc = {
	.lock = __MUTEX_INITIALIZER(cxlt_disc.lock),
	.blades = LIST_HEAD_INIT(cxlt_disc.blades),
	.cxl_regions = LIST_HEAD_INIT(cxlt_disc.cxl_regions),
};

/* --- blades/<memdev>/ ------------------------------------------------------------- */

static struct cxlt_blade *to_blade(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_blade, kobj);
}

/* Is the blade's memdev bound to its driver (cxl_mem)?  A snapshot. */
static bool cxlt_blade_online(struct cxlt_blade *blade)
{
	return device_is_registered(blade->dev) && READ_ONCE(blade->dev->driver);
}

static ssize_t serial_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n", to_blade(kobj)->serial);
}

static ssize_t ram_size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_blade(kobj)->ram_size);
}

static ssize_t pmem_size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_blade(kobj)->pmem_size);
}

static ssize_t pci_dev_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_blade(kobj)->pci_dev);
}

static ssize_t blade_state_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	struct cxlt_blade *blade = to_blade(kobj);
	enum cxlt_svc svc = cxlt_blade_svc(dev_name(blade->dev));

	if (svc != CXLT_SVC_IN)
		return sysfs_emit(buf, "%s\n", cxlt_svc_name(svc));
	return sysfs_emit(buf, "%s\n", cxlt_blade_online(blade) ? "online" : "offline");
}

/* A counter of the blade's health slot (health.c); 0 when it has none. */
static ssize_t cxlt_blade_counter(struct kobject *kobj, char *buf, size_t off, u64 div)
{
	struct cxlt_health *h = cxlt_health_find(dev_name(to_blade(kobj)->dev), false);

	return sysfs_emit(buf, "%lld\n", h ? atomic64_read((atomic64_t *)((char *)h + off)) /
					     div : 0);
}

#define CXLT_BLADE_COUNTER(_name, _field, _div)					\
static ssize_t blade_##_name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
				    char *buf)						\
{											\
	return cxlt_blade_counter(kobj, buf, offsetof(struct cxlt_health, _field), _div);\
}											\
static struct kobj_attribute blade_attr_##_name = __ATTR(_name, 0444, blade_##_name##_show, NULL)

CXLT_BLADE_COUNTER(fenced_pages, fenced_pages, 1);
CXLT_BLADE_COUNTER(fence_us, fence_ns, NSEC_PER_USEC);
CXLT_BLADE_COUNTER(poisoned_pages, poisoned, 1);
CXLT_BLADE_COUNTER(drained_pages, drained_pages, 1);
CXLT_BLADE_COUNTER(drain_left, drain_left, 1);
CXLT_BLADE_COUNTER(drain_us, drain_ns, NSEC_PER_USEC);

/* The CXL regions that map part of the blade: names separated by spaces, newline. */
static ssize_t blade_cxl_regions_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	struct cxlt_blade *blade = to_blade(kobj);
	struct cxlt_cxl_region *cxlr;
	ssize_t len = 0;
	u32 i;

	/* Too large for the stack of a sysfs read. */
	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);

	if (!info)
		return -ENOMEM;
	scoped_guard(mutex, &cxlt_disc.lock) {
		list_for_each_entry(cxlr, &cxlt_disc.cxl_regions, node) {
			if (cxlt_cxl_region_info(cxlr->dev, info))
				continue;
			for (i = 0; i < info->nr_blades; i++) {
				if (!strcmp(info->blades[i], dev_name(blade->dev))) {
					len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
							     dev_name(cxlr->dev));
					break;
				}
			}
		}
	}
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static struct kobj_attribute blade_attr_serial = __ATTR_RO(serial);
static struct kobj_attribute blade_attr_ram_size = __ATTR_RO(ram_size);
static struct kobj_attribute blade_attr_pmem_size = __ATTR_RO(pmem_size);
static struct kobj_attribute blade_attr_pci_dev = __ATTR_RO(pci_dev);
static struct kobj_attribute blade_attr_state = __ATTR(state, 0444, blade_state_show, NULL);
static struct kobj_attribute blade_attr_cxl_regions =
	__ATTR(cxl_regions, 0444, blade_cxl_regions_show, NULL);

static struct attribute *cxlt_blade_attrs[] = {
	&blade_attr_serial.attr,
	&blade_attr_ram_size.attr,
	&blade_attr_pmem_size.attr,
	&blade_attr_pci_dev.attr,
	&blade_attr_state.attr,
	&blade_attr_cxl_regions.attr,
	&blade_attr_fenced_pages.attr,
	&blade_attr_fence_us.attr,
	&blade_attr_poisoned_pages.attr,
	&blade_attr_drained_pages.attr,
	&blade_attr_drain_left.attr,
	&blade_attr_drain_us.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_blade);

static void cxlt_blade_release(struct kobject *kobj)
{
	struct cxlt_blade *blade = to_blade(kobj);

	put_device(blade->dev);
	kfree(blade);
}

static const struct kobj_type cxlt_blade_ktype = {
	.release = cxlt_blade_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_blade_groups,
};

static struct cxlt_blade *cxlt_find_blade(struct device *dev)
{
	struct cxlt_blade *blade;

	lockdep_assert_held(&cxlt_disc.lock);
	list_for_each_entry(blade, &cxlt_disc.blades, node)
		if (blade->dev == dev)
			return blade;
	return NULL;
}

static void cxlt_blade_found(struct device *dev)
{
	struct cxlt_blade *blade;
	int rc;

	lockdep_assert_held(&cxlt_disc.lock);
	blade = cxlt_find_blade(dev);
	if (blade) {
		blade->seen = true;
		return;
	}
	/* A fenced blade that went away keeps the name until the rescan drops it. */
	list_for_each_entry(blade, &cxlt_disc.blades, node) {
		if (blade->gone && !strcmp(dev_name(blade->dev), dev_name(dev))) {
			blade->replaced = true;
			return;
		}
	}

	blade = kzalloc(sizeof(*blade), GFP_KERNEL);
	if (!blade)
		return;
	blade->dev = get_device(dev);
	/* A memdev without a serial or a partition reports 0, as its sysfs files do. */
	cxlt_dev_attr_u64(dev, NULL, "serial", &blade->serial);
	cxlt_dev_attr_u64(dev, "ram", "size", &blade->ram_size);
	cxlt_dev_attr_u64(dev, "pmem", "size", &blade->pmem_size);
	if (dev->parent)
		strscpy(blade->pci_dev, dev_name(dev->parent), sizeof(blade->pci_dev));
	blade->seen = true;

	rc = kobject_init_and_add(&blade->kobj, &cxlt_blade_ktype, cxlt_disc.blades_dir,
				  "%s", dev_name(dev));
	if (rc) {
		pr_warn("cannot add blade %s to sysfs: %d\n", dev_name(dev), rc);
		kobject_put(&blade->kobj);
		return;
	}
	list_add_tail(&blade->node, &cxlt_disc.blades);
	pr_info("blade %s: serial %#llx, %llu MiB ram, %llu MiB pmem, pci %s\n",
		dev_name(dev), blade->serial, blade->ram_size >> 20,
		blade->pmem_size >> 20, blade->pci_dev);
}

/* --- cxl_regions/<region>/ -------------------------------------------------------- */

static struct cxlt_cxl_region *to_cxlr(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_cxl_region, kobj);
}

/*
 * Every region attribute needs the region's parameters; read them all at once.  The
 * info is too large for the stack of a sysfs read.
 */
static ssize_t cxlr_show(struct kobject *kobj, char *buf,
			 ssize_t (*emit)(const struct cxlt_cxl_region_info *info, char *buf))
{
	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);
	ssize_t rc;

	if (!info)
		return -ENOMEM;
	rc = cxlt_cxl_region_info(to_cxlr(kobj)->dev, info);
	return rc ?: emit(info, buf);
}

#define CXLR_ATTR(_name, _fmt, ...)							\
static ssize_t cxlr_emit_##_name(const struct cxlt_cxl_region_info *info, char *buf)	\
{											\
	return sysfs_emit(buf, _fmt "\n", __VA_ARGS__);					\
}											\
static ssize_t cxlr_##_name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
				   char *buf)						\
{											\
	return cxlr_show(kobj, buf, cxlr_emit_##_name);					\
}											\
static struct kobj_attribute cxlr_attr_##_name = __ATTR(_name, 0444, cxlr_##_name##_show, NULL)

CXLR_ATTR(mode, "%s", info->mode);
CXLR_ATTR(start, "%#llx", info->start);
CXLR_ATTR(size, "%llu", info->size);
CXLR_ATTR(interleave_ways, "%u", info->ways);
CXLR_ATTR(interleave_granularity, "%u", info->granularity);
CXLR_ATTR(numa_node, "%d", info->nid);

static ssize_t cxlr_emit_state(const struct cxlt_cxl_region_info *info, char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlt_cxl_region_state_name(info->state));
}

static ssize_t cxlr_state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	/* The CXL core cannot know: our System RAM is not a dax device. */
	if (cxlt_tier_registered(to_cxlr(kobj)->dev))
		return sysfs_emit(buf, "tier\n");
	return cxlr_show(kobj, buf, cxlr_emit_state);
}

static struct kobj_attribute cxlr_attr_state = __ATTR(state, 0444, cxlr_state_show, NULL);

static ssize_t cxlr_blades_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return cxlt_cxl_region_blades_show(to_cxlr(kobj)->dev, buf);
}

static struct kobj_attribute cxlr_attr_blades = __ATTR(blades, 0444, cxlr_blades_show, NULL);

static struct attribute *cxlt_cxl_region_attrs[] = {
	&cxlr_attr_mode.attr,
	&cxlr_attr_start.attr,
	&cxlr_attr_size.attr,
	&cxlr_attr_interleave_ways.attr,
	&cxlr_attr_interleave_granularity.attr,
	&cxlr_attr_blades.attr,
	&cxlr_attr_numa_node.attr,
	&cxlr_attr_state.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_cxl_region);

static void cxlt_cxl_region_release(struct kobject *kobj)
{
	struct cxlt_cxl_region *cxlr = to_cxlr(kobj);

	put_device(cxlr->dev);
	kfree(cxlr);
}

static const struct kobj_type cxlt_cxl_region_ktype = {
	.release = cxlt_cxl_region_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_cxl_region_groups,
};

static struct cxlt_cxl_region *cxlt_find_cxl_region(struct device *dev)
{
	struct cxlt_cxl_region *cxlr;

	lockdep_assert_held(&cxlt_disc.lock);
	list_for_each_entry(cxlr, &cxlt_disc.cxl_regions, node)
		if (cxlr->dev == dev)
			return cxlr;
	return NULL;
}

static void cxlt_cxl_region_found(struct device *dev)
{
	struct cxlt_cxl_region *cxlr;
	int rc;

	lockdep_assert_held(&cxlt_disc.lock);
	cxlr = cxlt_find_cxl_region(dev);
	if (cxlr) {
		cxlr->seen = true;
		return;
	}

	cxlr = kzalloc(sizeof(*cxlr), GFP_KERNEL);
	if (!cxlr)
		return;
	cxlr->dev = get_device(dev);
	cxlr->seen = true;
	rc = kobject_init_and_add(&cxlr->kobj, &cxlt_cxl_region_ktype,
				  cxlt_disc.cxl_regions_dir, "%s", dev_name(dev));
	if (rc) {
		pr_warn("cannot add CXL region %s to sysfs: %d\n", dev_name(dev), rc);
		kobject_put(&cxlr->kobj);
		return;
	}
	list_add_tail(&cxlr->node, &cxlt_disc.cxl_regions);

	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);

	if (info && !cxlt_cxl_region_info(dev, info))
		pr_info("cxl region %s: %s, %llu MiB at %#llx, %u way(s) x %u, node %d, %s\n",
			dev_name(dev), info->mode, info->size >> 20, info->start,
			info->ways, info->granularity, info->nid,
			cxlt_cxl_region_state_name(info->state));
}

/* --- scanning --------------------------------------------------------------------- */

static int cxlt_scan_one(struct device *dev, void *unused)
{
	if (!device_is_registered(dev))
		return 0;
	if (cxlt_dev_is_type(dev, "cxl_memdev"))
		cxlt_blade_found(dev);
	else if (cxlt_dev_is_type(dev, "cxl_region"))
		cxlt_cxl_region_found(dev);
	return 0;
}

/**
 * cxlt_rescan() - bring the mirror up to date with the CXL bus
 *
 * Context: process context; takes cxlt_disc.lock.
 * Return: 0, or -ENODEV before module init started discovery or once module exit
 * has begun.  A device that cannot be
 * mirrored is reported in the kernel log and skipped, so that one bad device does
 * not hide the others.
 */
int cxlt_rescan(void)
{
	struct cxlt_cxl_region *cxlr, *rtmp;
	struct cxlt_blade *blade, *btmp;
	LIST_HEAD(gone_blades);
	LIST_HEAD(gone_regions);
	bool again = false;

rescan:
	scoped_guard(mutex, &cxlt_disc.lock) {
		/* Not set up yet (a write to rescan while the module loads), or exiting. */
		if (!cxlt_disc.blades_dir || cxlt_disc.dying)
			return -ENODEV;
		list_for_each_entry(blade, &cxlt_disc.blades, node)
			blade->seen = false;
		list_for_each_entry(cxlr, &cxlt_disc.cxl_regions, node)
			cxlr->seen = false;

		bus_for_each_dev(&cxl_bus_type, NULL, NULL, cxlt_scan_one);

		list_for_each_entry_safe(blade, btmp, &cxlt_disc.blades, node) {
			if (blade->replaced) {
				list_move(&blade->node, &gone_blades);
				again = true;
			} else if (!blade->seen && !blade->gone &&
				   cxlt_blade_fenced(dev_name(blade->dev))) {
				blade->gone = true;
				pr_info("blade %s is gone; it stays listed as fenced\n",
					dev_name(blade->dev));
			} else if (!blade->seen && !blade->gone) {
				list_move(&blade->node, &gone_blades);
			}
		}
		list_for_each_entry_safe(cxlr, rtmp, &cxlt_disc.cxl_regions, node)
			if (!cxlr->seen)
				list_move(&cxlr->node, &gone_regions);
	}

	/* Outside the lock: kobject_del() waits for show() calls that may take it. */
	list_for_each_entry_safe(blade, btmp, &gone_blades, node) {
		pr_info("blade %s is gone\n", dev_name(blade->dev));
		list_del(&blade->node);
		kobject_del(&blade->kobj);
		kobject_put(&blade->kobj);
	}
	list_for_each_entry_safe(cxlr, rtmp, &gone_regions, node) {
		pr_info("cxl region %s is gone\n", dev_name(cxlr->dev));
		list_del(&cxlr->node);
		kobject_del(&cxlr->kobj);
		kobject_put(&cxlr->kobj);
	}
	/* A replaced blade's name is free now: mirror the new memdev. */
	if (again) {
		again = false;
		goto rescan;
	}
	cxlt_tiers_auto_register();
	return 0;
}

static void cxlt_rescan_workfn(struct work_struct *work)
{
	cxlt_rescan();
}

static int cxlt_cxl_bus_event(struct notifier_block *nb, unsigned long action, void *data)
{
	struct device *dev = data;

	/* A blade or a tier's region going away: fence first (failure.c). */
	cxlt_failure_bus_event(dev, action);

	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
	case BUS_NOTIFY_DEL_DEVICE:
	case BUS_NOTIFY_BOUND_DRIVER:
	case BUS_NOTIFY_UNBOUND_DRIVER:
		mod_delayed_work(cxlt_disc.wq, &cxlt_disc.rescan_work,
				 msecs_to_jiffies(rescan_delay_ms));
		break;
	}
	return NOTIFY_DONE;
}

/**
 * cxlt_discover_init() - start mirroring the CXL bus
 * @blades_dir: /sys/kernel/cxltier/blades, parent of the blades' directories
 * @cxl_regions_dir: /sys/kernel/cxltier/cxl_regions, likewise for CXL regions
 *
 * Both directories must outlive the mirror (until cxlt_discover_exit()).
 *
 * Context: module init; scans once before it returns.
 * Return: 0 or a negative errno, with nothing left registered.
 */
int cxlt_discover_init(struct kobject *blades_dir, struct kobject *cxl_regions_dir)
{
	int rc;

	if (rescan_delay_ms > CXLT_RESCAN_DELAY_MAX_MS) {
		pr_err("rescan_delay_ms=%u is out of range (0-%u)\n", rescan_delay_ms,
		       CXLT_RESCAN_DELAY_MAX_MS);
		return -EINVAL;
	}
	cxlt_disc.wq = alloc_ordered_workqueue("cxltier_scan", 0);
	if (!cxlt_disc.wq)
		return -ENOMEM;
	INIT_DELAYED_WORK(&cxlt_disc.rescan_work, cxlt_rescan_workfn);
	cxlt_disc.nb.notifier_call = cxlt_cxl_bus_event;
	rc = bus_register_notifier(&cxl_bus_type, &cxlt_disc.nb);
	if (rc) {
		destroy_workqueue(cxlt_disc.wq);
		return rc;
	}
	/* Scans add nothing before this; the one below takes in everything. */
	scoped_guard(mutex, &cxlt_disc.lock) {
		cxlt_disc.blades_dir = blades_dir;
		cxlt_disc.cxl_regions_dir = cxl_regions_dir;
	}
	cxlt_rescan();
	return 0;
}

void cxlt_discover_exit(void)
{
	struct cxlt_cxl_region *cxlr, *rtmp;
	struct cxlt_blade *blade, *btmp;

	bus_unregister_notifier(&cxl_bus_type, &cxlt_disc.nb);
	cancel_delayed_work_sync(&cxlt_disc.rescan_work);
	destroy_workqueue(cxlt_disc.wq);
	scoped_guard(mutex, &cxlt_disc.lock)
		cxlt_disc.dying = true;

	/* Scans now stop at @dying, so the lists are ours alone. */
	list_for_each_entry_safe(cxlr, rtmp, &cxlt_disc.cxl_regions, node) {
		list_del(&cxlr->node);
		kobject_del(&cxlr->kobj);
		kobject_put(&cxlr->kobj);
	}
	list_for_each_entry_safe(blade, btmp, &cxlt_disc.blades, node) {
		list_del(&blade->node);
		kobject_del(&blade->kobj);
		kobject_put(&blade->kobj);
	}
}
