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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cxltier.h"

MODULE_IMPORT_NS(CXL);

/*
 * Let a burst of bus events (binding a region adds several devices) settle before a
 * scan.  Longer delays batch more events; the mirror lags the CXL core by this much.
 */
static unsigned int rescan_delay_ms = 100;
module_param(rescan_delay_ms, uint, 0444);
MODULE_PARM_DESC(rescan_delay_ms,
		 "Delay from a CXL bus event to the rescan it triggers, in ms (0-10000, default 100)");
#define CXLT_RESCAN_DELAY_MAX_MS	10000

static struct {
	/* Protects the two lists, every mirror object's @seen flag and @dying. */
	struct mutex lock;
	struct list_head blades;
	struct list_head cxl_regions;
	bool dying;		/* module exit began: scans add nothing */
	struct workqueue_struct *wq;	/* ordered: one scan at a time */
	struct delayed_work rescan_work;
	struct notifier_block nb;
} cxlt_disc = {
	.lock = __MUTEX_INITIALIZER(cxlt_disc.lock),
	.blades = LIST_HEAD_INIT(cxlt_disc.blades),
	.cxl_regions = LIST_HEAD_INIT(cxlt_disc.cxl_regions),
};

static const char *const cxlt_cxlr_state_names[] = {
	[CXLT_CXLR_UNCOMMITTED] = "uncommitted",
	[CXLT_CXLR_COMMITTED] = "committed",
	[CXLT_CXLR_DAX] = "dax",
	[CXLT_CXLR_SYSTEM_RAM] = "system-ram",
};

/**
 * cxlt_cxl_region_state_name() - sysfs name of a CXL region state
 * @state: the state
 *
 * Return: a static string.
 */
const char *cxlt_cxl_region_state_name(enum cxlt_cxl_region_state state)
{
	return cxlt_cxlr_state_names[state];
}

/* --- blades ----------------------------------------------------------------------- */

void cxlt_blade_release(struct kobject *kobj)
{
	struct cxlt_blade *blade = container_of(kobj, struct cxlt_blade, kobj);

	put_device(blade->dev);
	kfree(blade);
}

/**
 * cxlt_blade_online() - is the blade's memdev bound to its driver (cxl_mem)?
 * @blade: the blade
 *
 * Return: true when bound.  A snapshot: it may change right after.
 */
bool cxlt_blade_online(struct cxlt_blade *blade)
{
	return device_is_registered(blade->dev) && READ_ONCE(blade->dev->driver);
}

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

	rc = cxlt_sysfs_add_blade(blade);
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

/* --- CXL regions ------------------------------------------------------------------ */

void cxlt_cxl_region_release(struct kobject *kobj)
{
	struct cxlt_cxl_region *cxlr = container_of(kobj, struct cxlt_cxl_region, kobj);

	put_device(cxlr->dev);
	kfree(cxlr);
}

static int cxlt_match_type(struct device *dev, void *type_name)
{
	return cxlt_dev_is_type(dev, type_name);
}

static int cxlt_match_any(struct device *dev, void *unused)
{
	return 1;
}

/*
 * dax_cxl puts a cxl_dax_region under the region and the dax device (daxX.Y) under it;
 * CXL dax devices bind to kmem (or to device_dax when an admin reconfigures them).
 */
static enum cxlt_cxl_region_state
cxlt_cxl_region_dax_state(struct device *region, char *dax_name, size_t len)
{
	enum cxlt_cxl_region_state state = CXLT_CXLR_COMMITTED;
	struct device *daxr, *dax;

	daxr = device_find_child(region, "cxl_dax_region", cxlt_match_type);
	if (!daxr)
		return state;
	dax = device_find_child(daxr, NULL, cxlt_match_any);
	if (dax) {
		strscpy(dax_name, dev_name(dax), len);
		device_lock(dax);
		if (dax->driver)
			state = strcmp(dax->driver->name, "kmem") ? CXLT_CXLR_DAX :
								   CXLT_CXLR_SYSTEM_RAM;
		device_unlock(dax);
		put_device(dax);
	}
	put_device(daxr);
	return state;
}

/* The memdev behind endpoint decoder @name: decoder -> endpoint port -> its uport. */
static int cxlt_decoder_memdev(const char *name, char *out, size_t outlen)
{
	struct device *decoder, *memdev;
	int rc = -ENODEV;

	decoder = bus_find_device_by_name(&cxl_bus_type, NULL, name);
	if (!decoder)
		return -ENODEV;
	if (cxlt_dev_is_type(decoder, "cxl_decoder_endpoint") && decoder->parent) {
		memdev = cxlt_dev_link_target(decoder->parent, "uport");
		if (memdev) {
			if (cxlt_dev_is_type(memdev, "cxl_memdev"))
				rc = strscpy(out, dev_name(memdev), outlen) < 0 ? -EOVERFLOW : 0;
			put_device(memdev);
		}
	}
	put_device(decoder);
	return rc;
}

/**
 * cxlt_cxl_region_info() - read the parameters of a CXL region
 * @region: a cxl_region device (the caller holds a reference)
 * @info: filled in
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno when the region's attributes cannot be read (for
 * example -EINTR, or -ENOENT if @region is not a CXL region).
 */
int cxlt_cxl_region_info(struct device *region, struct cxlt_cxl_region_info *info)
{
	char name[CXLT_NAME_LEN], attr[16];
	u64 commit, val;
	int rc, i;

	memset(info, 0, sizeof(*info));
	info->nid = NUMA_NO_NODE;

	rc = cxlt_dev_attr_read(region, NULL, "mode", info->mode, sizeof(info->mode));
	if (rc)
		return rc;
	rc = cxlt_dev_attr_u64(region, NULL, "resource", &info->start);
	if (rc)
		return rc;
	rc = cxlt_dev_attr_u64(region, NULL, "size", &info->size);
	if (rc)
		return rc;
	if (info->start == U64_MAX || !info->size) {
		info->start = 0;
		info->size = 0;
	}
	rc = cxlt_dev_attr_u64(region, NULL, "interleave_ways", &val);
	if (rc)
		return rc;
	info->ways = val;
	rc = cxlt_dev_attr_u64(region, NULL, "interleave_granularity", &val);
	if (rc)
		return rc;
	info->granularity = val;
	rc = cxlt_dev_attr_u64(region, NULL, "commit", &commit);
	if (rc)
		return rc;

	for (i = 0; i < min_t(u32, info->ways, CXLT_MAX_WAYS); i++) {
		snprintf(attr, sizeof(attr), "target%d", i);
		if (cxlt_dev_attr_read(region, NULL, attr, name, sizeof(name)) || !name[0])
			break;
		if (cxlt_decoder_memdev(name, info->blades[i], CXLT_NAME_LEN))
			break;
		info->nr_blades++;
	}

	if (info->size)
		info->nid = phys_to_target_node(info->start);
	info->state = commit ? cxlt_cxl_region_dax_state(region, info->dax_dev,
							 sizeof(info->dax_dev)) :
			       CXLT_CXLR_UNCOMMITTED;
	return 0;
}

/**
 * cxlt_blade_cxl_regions() - list the CXL regions that map part of a blade
 * @blade: the blade
 * @buf: a sysfs page
 *
 * Return: the length written (names separated by spaces, then a newline).
 */
ssize_t cxlt_blade_cxl_regions(struct cxlt_blade *blade, char *buf)
{
	struct cxlt_cxl_region_info *info;
	struct cxlt_cxl_region *cxlr;
	ssize_t len = 0;
	u32 i;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&cxlt_disc.lock);
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
	mutex_unlock(&cxlt_disc.lock);
	kfree(info);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

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
	struct cxlt_cxl_region_info *info;
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
	rc = cxlt_sysfs_add_cxl_region(cxlr);
	if (rc) {
		pr_warn("cannot add CXL region %s to sysfs: %d\n", dev_name(dev), rc);
		kobject_put(&cxlr->kobj);
		return;
	}
	list_add_tail(&cxlr->node, &cxlt_disc.cxl_regions);

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (info && !cxlt_cxl_region_info(dev, info))
		pr_info("cxl region %s: %s, %llu MiB at %#llx, %u way(s) x %u, node %d, %s\n",
			dev_name(dev), info->mode, info->size >> 20, info->start,
			info->ways, info->granularity, info->nid,
			cxlt_cxl_region_state_name(info->state));
	kfree(info);
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
 * Return: 0, or -ENODEV once module exit has begun.  A device that cannot be
 * mirrored is reported in the kernel log and skipped, so that one bad device does
 * not hide the others.
 */
int cxlt_rescan(void)
{
	struct cxlt_cxl_region *cxlr, *rtmp;
	struct cxlt_blade *blade, *btmp;
	LIST_HEAD(gone_blades);
	LIST_HEAD(gone_regions);

	mutex_lock(&cxlt_disc.lock);
	if (cxlt_disc.dying) {
		mutex_unlock(&cxlt_disc.lock);
		return -ENODEV;
	}
	list_for_each_entry(blade, &cxlt_disc.blades, node)
		blade->seen = false;
	list_for_each_entry(cxlr, &cxlt_disc.cxl_regions, node)
		cxlr->seen = false;

	bus_for_each_dev(&cxl_bus_type, NULL, NULL, cxlt_scan_one);

	list_for_each_entry_safe(blade, btmp, &cxlt_disc.blades, node)
		if (!blade->seen)
			list_move(&blade->node, &gone_blades);
	list_for_each_entry_safe(cxlr, rtmp, &cxlt_disc.cxl_regions, node)
		if (!cxlr->seen)
			list_move(&cxlr->node, &gone_regions);
	mutex_unlock(&cxlt_disc.lock);

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

	/*
	 * The tier's memory stays online, but the CXL core may now tear down the
	 * decoders behind it: say so loudly.  Draining or fencing it is the job of the
	 * blade failure handling.
	 */
	if (action == BUS_NOTIFY_UNBIND_DRIVER && cxlt_dev_is_type(dev, "cxl_region") &&
	    cxlt_tier_registered(dev))
		pr_crit("cxl region %s is being unbound while it is a tier: its memory is still online\n",
			dev_name(dev));

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

int cxlt_discover_init(void)
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
	if (rc)
		goto err_wq;
	cxlt_rescan();
	return 0;

err_wq:
	destroy_workqueue(cxlt_disc.wq);
	return rc;
}

void cxlt_discover_exit(void)
{
	struct cxlt_cxl_region *cxlr, *rtmp;
	struct cxlt_blade *blade, *btmp;

	bus_unregister_notifier(&cxl_bus_type, &cxlt_disc.nb);
	cancel_delayed_work_sync(&cxlt_disc.rescan_work);
	destroy_workqueue(cxlt_disc.wq);
	mutex_lock(&cxlt_disc.lock);
	cxlt_disc.dying = true;
	mutex_unlock(&cxlt_disc.lock);

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
