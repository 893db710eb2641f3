// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: discovery of CXL blades
 *
 * cxltier keeps an object per CXL memdev ("blade"): its service state and fencing
 * and draining counters live in health.c, its directory
 * /sys/kernel/cxltier/blades/<memdev>/ shows them with a "device" link to the
 * memdev (see Documentation/ABI/testing/sysfs-kernel-cxltier); nothing the CXL core
 * publishes itself is copied.  A scan walks the CXL bus, adds a blade for every new
 * memdev and drops those whose memdev is gone (a fenced one stays, state fenced,
 * until a memdev of its name comes back).  Scans run at module load, on a write to
 * /sys/kernel/cxltier/rescan, and from a work item that a CXL bus notifier queues
 * whenever a CXL device is added, removed, bound or unbound.  The notifier queues,
 * and fences a blade or tier that is going away (failure.c), which takes no lock of
 * discovery nor of tier registration: it runs inside device_del() and driver
 * unbinding with device locks held, where waiting for a tier operation (which holds
 * cxlt_tiers.lock for as long as onlining or offlining memory takes) could stall
 * the CXL core.  Scans, and the tier registrations they may start (auto_register),
 * run on the module's own ordered workqueue, because they can take minutes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "cxltier.h"
#include "devattr.h"
#include "discover.h"
#include "failure.h"
#include "fence.h"
#include "pool.h"
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

static struct {
	/* Protects the blade list, every blade's @seen flag, @dying, the dir. */
	struct mutex lock;
	struct list_head blades;
	bool dying;		/* module exit began: scans add nothing */
	struct workqueue_struct *wq;	/* ordered: one scan at a time */
	struct delayed_work rescan_work;
	struct notifier_block nb;
	/*
	 * /sys/kernel/cxltier/blades: set under @lock at init, before the first scan;
	 * no scan runs while it is NULL.
	 */
	struct kobject *blades_dir;
} cxlt_disc = {
	.lock = __MUTEX_INITIALIZER(cxlt_disc.lock),
	.blades = LIST_HEAD_INIT(cxlt_disc.blades),
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

/* The tiers with memory on the blade: names separated by spaces, newline. */
static ssize_t blade_tiers_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return cxlt_tiers_of_blade_show(dev_name(to_blade(kobj)->dev), buf);
}

static struct kobj_attribute blade_attr_state = __ATTR(state, 0444, blade_state_show, NULL);
static struct kobj_attribute blade_attr_tiers = __ATTR(tiers, 0444, blade_tiers_show, NULL);

static struct attribute *cxlt_blade_attrs[] = {
	&blade_attr_state.attr,
	&blade_attr_tiers.attr,
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
	/* The CXL core's own view of the device: serial, partitions, PCI parent. */
	if (sysfs_create_link(&blade->kobj, &dev->kobj, "device"))
		pr_warn("blade %s: no device link\n", dev_name(dev));
	list_add_tail(&blade->node, &cxlt_disc.blades);
	pr_info("blade %s: serial %#llx, %llu MiB ram, %llu MiB pmem, pci %s\n",
		dev_name(dev), blade->serial, blade->ram_size >> 20,
		blade->pmem_size >> 20, blade->pci_dev);
}

/* --- scanning --------------------------------------------------------------------- */

static int cxlt_scan_one(struct device *dev, void *unused)
{
	if (!device_is_registered(dev))
		return 0;
	if (cxlt_dev_is_type(dev, "cxl_memdev"))
		cxlt_blade_found(dev);
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
	struct cxlt_blade *blade, *btmp;
	LIST_HEAD(gone_blades);
	bool again = false;

rescan:
	scoped_guard(mutex, &cxlt_disc.lock) {
		/* Not set up yet (a write to rescan while the module loads), or exiting. */
		if (!cxlt_disc.blades_dir || cxlt_disc.dying)
			return -ENODEV;
		list_for_each_entry(blade, &cxlt_disc.blades, node)
			blade->seen = false;

		bus_for_each_dev(&cxl_bus_type, NULL, NULL, cxlt_scan_one);

		list_for_each_entry_safe(blade, btmp, &cxlt_disc.blades, node) {
			if (blade->replaced) {
				list_move(&blade->node, &gone_blades);
				again = true;
			} else if (!blade->seen && !blade->gone &&
				   cxlt_blade_fenced(dev_name(blade->dev))) {
				blade->gone = true;
				sysfs_remove_link(&blade->kobj, "device");
				pr_info("blade %s is gone; it stays listed as fenced\n",
					dev_name(blade->dev));
			} else if (!blade->seen && !blade->gone) {
				list_move(&blade->node, &gone_blades);
			}
		}
	}

	/* Outside the lock: kobject_del() waits for show() calls that may take it. */
	list_for_each_entry_safe(blade, btmp, &gone_blades, node) {
		pr_info("blade %s is gone\n", dev_name(blade->dev));
		list_del(&blade->node);
		kobject_del(&blade->kobj);
		kobject_put(&blade->kobj);
	}
	/* A replaced blade's name is free now: mirror the new memdev. */
	if (again) {
		again = false;
		goto rescan;
	}
	cxlt_tiers_auto_register();
	cxlt_pools_scan();
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
 *
 * Both directories must outlive the mirror (until cxlt_discover_exit()).
 *
 * Context: module init; scans once before it returns.
 * Return: 0 or a negative errno, with nothing left registered.
 */
int cxlt_discover_init(struct kobject *blades_dir)
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
	}
	cxlt_rescan();
	return 0;
}

void cxlt_discover_exit(void)
{
	struct cxlt_blade *blade, *btmp;

	bus_unregister_notifier(&cxl_bus_type, &cxlt_disc.nb);
	cancel_delayed_work_sync(&cxlt_disc.rescan_work);
	destroy_workqueue(cxlt_disc.wq);
	scoped_guard(mutex, &cxlt_disc.lock)
		cxlt_disc.dying = true;

	/* Scans now stop at @dying, so the lists are ours alone. */
	list_for_each_entry_safe(blade, btmp, &cxlt_disc.blades, node) {
		list_del(&blade->node);
		kobject_del(&blade->kobj);
		kobject_put(&blade->kobj);
	}
}
