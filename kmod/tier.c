// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tiers: CXL RAM regions as NUMA nodes in a lower memory tier
 *
 * Registering a committed CXL RAM region follows kmem's probe (drivers/dax/kmem.c):
 * compute the abstract distance, get or create the memory type, register a memory
 * group, claim the range, add it as driver-managed System RAM, set the node's memory
 * type, then online every memory block movable (memblock.c).  Removal is
 * offline_and_remove_memory(), which migrates what it can and, when some page cannot
 * move, puts every block back online and fails: nothing is lost either way.  The
 * kernel retries a page that cannot move (held by a pipe, say) until the task has a
 * signal pending, forever for a kernel worker; so removal runs in a thread of its
 * own that is stopped with a signal after offline_timeout_s seconds, or when the
 * caller is interrupted (cxlt_offline_bounded()), and fails with EBUSY or EINTR.
 * Nor is the memory removed while a poisoned page of it (a fenced one) is still
 * referenced: offlining skips poisoned pages, and the holder's last put would
 * then touch the removed memory map.
 *
 * The abstract distance comes, in order of preference, from the operator (adistance=
 * on registration), from the region's own performance (its access coordinates, which
 * the CXL core computes from CDAT and HMAT), from the platform's adistance algorithms
 * (mt_calc_adistance()), and otherwise defaults to kmem's default for memory with no
 * performance data: five times DRAM's, which lands in memory_tier22.
 *
 * Each registered tier holds a reference on the module, so cxltier cannot be unloaded
 * while any of its memory is online; remove the tiers first.
 *
 * Each tier is published as /sys/kernel/cxltier/tiers/<region>, whose attributes
 * are the tier's facts (constant while it is registered) and the region's targets,
 * read when asked.  The tier's kobject is its reference count: the tier is freed
 * when the last reference goes, after removal and the last show() of its files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/completion.h>
#include <linux/ioport.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/node.h>
#include <linux/numa.h>
#include <linux/math64.h>
#include <linux/page-flags.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cxltier.h"
#include "cxlr.h"
#include "devattr.h"
#include "health.h"
#include "tier.h"

/* kmem's default for memory without performance data (drivers/dax/kmem.c). */
#define CXLT_DEFAULT_ADISTANCE	(MEMTIER_ADISTANCE_DRAM * 5)
/* Operator overrides beyond this are typos: 64 times DRAM's distance. */
#define CXLT_MAX_ADISTANCE	(MEMTIER_ADISTANCE_DRAM * 64)

/* Where a tier's abstract distance came from. */
enum cxlt_adist_source {
	CXLT_ADIST_OVERRIDE,	/* the operator's adistance= */
	CXLT_ADIST_CDAT,	/* the region's access coordinates (CDAT + HMAT) */
	CXLT_ADIST_PLATFORM,	/* an adistance algorithm (mt_calc_adistance()) */
	CXLT_ADIST_DEFAULT,	/* no data: kmem's default, 5 x DRAM */
};

/**
 * struct cxlt_tier - a CXL RAM region registered as a NUMA node
 * @kobj: /sys/kernel/cxltier/tiers/<region>; holds the tier's lifetime
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
 * @dpa_base: where each target's part of the region starts on its device
 * @removing: being removed: no new region page is placed on the tier's node;
 *	under cxlt_tiers.lookup_lock
 * @offline: its memory was taken offline by a fence (the tier stays listed, to be
 *	removed); under cxlt_tiers.lock
 * @fenced_pos: interleave positions whose blade failed (fence.c), under
 *	cxlt_tiers.lookup_lock; nonzero: as @removing, for good
 * @promoted: region pages moved off the tier to the fast tier
 * @demoted: region pages moved onto the tier from the fast tier
 *
 * Set before the tier is listed and published, then constant until removal (which
 * holds cxlt_tiers.lock), so show() methods read it without locks; except
 * @removing and the counters.
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
	u64 dpa_base[CXLT_MAX_WAYS];
	bool removing;
	bool offline;
	unsigned long fenced_pos;
	atomic64_t promoted;
	atomic64_t demoted;
};

static const char *const cxlt_adist_source_names[] = {
	[CXLT_ADIST_OVERRIDE] = "override",
	[CXLT_ADIST_CDAT] = "cdat",
	[CXLT_ADIST_PLATFORM] = "platform",
	[CXLT_ADIST_DEFAULT] = "default",
};

static struct {
	/*
	 * Protects @list and @memory_types, and serializes registration and removal
	 * (both sleep for long: onlining, migration).  Taken after cxlt_disc.lock.
	 */
	struct mutex lock;
	/*
	 * Also held to add to or delete from @list, so that lookups from the page
	 * fault path (cxlt_tier_nodes(), cxlt_pfn_blades()) need only this spinlock
	 * and never wait behind a registration.
	 */
	spinlock_t lookup_lock;
	struct list_head list;
	struct list_head memory_types;	/* mt_find_alloc_memory_type() cache */
	/*
	 * Registration is open: set at the end of module init, when nothing can fail
	 * any more, so that a tier (online memory that pins the module) never exists
	 * in a module whose init is still unwinding.  Under @lock.
	 */
	bool ready;
	/* /sys/kernel/cxltier/tiers: set with @ready, under @lock, never cleared. */
	struct kobject *dir;
} cxlt_tiers = {
	.lock = __MUTEX_INITIALIZER(cxlt_tiers.lock),
	.lookup_lock = __SPIN_LOCK_UNLOCKED(cxlt_tiers.lookup_lock),
	.list = LIST_HEAD_INIT(cxlt_tiers.list),
	.memory_types = LIST_HEAD_INIT(cxlt_tiers.memory_types),
};

static bool auto_register;
module_param(auto_register, bool, 0444);
MODULE_PARM_DESC(auto_register,
		 "Register every committed CXL RAM region as a tier at load and when one appears (default off)");

/* Resource name of our System RAM; the memory hotplug core insists on this form. */
static const char cxlt_res_name[] = "System RAM (cxltier)";

static const char *cxlt_adist_source_name(enum cxlt_adist_source src)
{
	return cxlt_adist_source_names[src];
}

static struct cxlt_tier *cxlt_find_tier(struct device *region)
{
	struct cxlt_tier *tier;

	lockdep_assert_held(&cxlt_tiers.lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node)
		if (tier->region == region)
			return tier;
	return NULL;
}

static struct cxlt_tier *cxlt_find_tier_by_name(const char *name)
{
	struct cxlt_tier *tier;

	lockdep_assert_held(&cxlt_tiers.lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node)
		if (!strcmp(dev_name(tier->region), name))
			return tier;
	return NULL;
}

/**
 * cxlt_tier_registered() - is a CXL region registered as a tier?
 * @region: the cxl_region device
 *
 * Never waits for a registration or removal in progress (those hold
 * cxlt_tiers.lock for minutes), so the CXL bus notifier may call it.
 *
 * Context: any; takes cxlt_tiers.lookup_lock.
 * Return: true when registered (a snapshot).
 */
bool cxlt_tier_registered(struct device *region)
{
	struct cxlt_tier *tier;

	scoped_guard(spinlock, &cxlt_tiers.lookup_lock) {
		list_for_each_entry(tier, &cxlt_tiers.list, node)
			if (tier->region == region)
				return true;
	}
	return false;
}

/* --- tiers/<region>/ -------------------------------------------------------------- */

static struct cxlt_tier *to_tier(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_tier, kobj);
}

static ssize_t tier_node_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_tier(kobj)->nid);
}

static ssize_t tier_adistance_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "%d\n", to_tier(kobj)->adist);
}

static ssize_t tier_adistance_source_show(struct kobject *kobj, struct kobj_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlt_adist_source_name(to_tier(kobj)->adist_src));
}

/* online; fenced: a blade under it failed; offline: fenced, its memory taken offline. */
static ssize_t tier_state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_tier *tier = to_tier(kobj);
	const char *state = "online";

	scoped_guard(spinlock, &cxlt_tiers.lookup_lock) {
		if (tier->fenced_pos)
			state = READ_ONCE(tier->offline) ? "offline" : "fenced";
	}
	return sysfs_emit(buf, "%s\n", state);
}

static ssize_t tier_promoted_pages_show(struct kobject *kobj, struct kobj_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&to_tier(kobj)->promoted));
}

static ssize_t tier_demoted_pages_show(struct kobject *kobj, struct kobj_attribute *attr,
				       char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&to_tier(kobj)->demoted));
}

static struct kobj_attribute tier_attr_node = __ATTR(node, 0444, tier_node_show, NULL);
static struct kobj_attribute tier_attr_promoted_pages =
	__ATTR(promoted_pages, 0444, tier_promoted_pages_show, NULL);
static struct kobj_attribute tier_attr_demoted_pages =
	__ATTR(demoted_pages, 0444, tier_demoted_pages_show, NULL);
static struct kobj_attribute tier_attr_adistance =
	__ATTR(adistance, 0444, tier_adistance_show, NULL);
static struct kobj_attribute tier_attr_adistance_source =
	__ATTR(adistance_source, 0444, tier_adistance_source_show, NULL);
static struct kobj_attribute tier_attr_state = __ATTR(state, 0444, tier_state_show, NULL);

static struct attribute *cxlt_tier_attrs[] = {
	&tier_attr_node.attr,
	&tier_attr_adistance.attr,
	&tier_attr_adistance_source.attr,
	&tier_attr_state.attr,
	&tier_attr_promoted_pages.attr,
	&tier_attr_demoted_pages.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_tier);

static void cxlt_tier_release(struct kobject *kobj)
{
	struct cxlt_tier *tier = to_tier(kobj);

	put_device(tier->region);
	kfree(tier);
}

static const struct kobj_type cxlt_tier_ktype = {
	.release = cxlt_tier_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_tier_groups,
};

/* A tier with its kobject initialized (not added): freed by kobject_put(), or NULL. */
static struct cxlt_tier *cxlt_tier_alloc(void)
{
	struct cxlt_tier *tier = kzalloc(sizeof(*tier), GFP_KERNEL);

	if (tier)
		kobject_init(&tier->kobj, &cxlt_tier_ktype);
	return tier;
}

/* For __free(): drop a tier that was never listed. */
static void cxlt_tier_put(struct cxlt_tier *tier)
{
	if (tier)
		kobject_put(&tier->kobj);
}

DEFINE_FREE(cxlt_tier_put, struct cxlt_tier *, cxlt_tier_put(_T))

/* --- registration ----------------------------------------------------------------- */

/* The region's CPU access coordinates (access1), as the CXL core computed them. */
static int cxlt_region_perf(struct device *region, struct access_coordinate *perf)
{
	static const char *const group = "access1";
	u64 rl, wl, rb, wb;

	if (cxlt_dev_attr_u64(region, group, "read_latency", &rl) ||
	    cxlt_dev_attr_u64(region, group, "write_latency", &wl) ||
	    cxlt_dev_attr_u64(region, group, "read_bandwidth", &rb) ||
	    cxlt_dev_attr_u64(region, group, "write_bandwidth", &wb))
		return -ENOENT;
	perf->read_latency = rl;
	perf->write_latency = wl;
	perf->read_bandwidth = rb;
	perf->write_bandwidth = wb;
	return 0;
}

static void cxlt_tier_adistance(struct cxlt_tier *tier, int override)
{
	struct access_coordinate perf;
	int adist;

	if (override > 0) {
		tier->adist = override;
		tier->adist_src = CXLT_ADIST_OVERRIDE;
		return;
	}
	if (!cxlt_region_perf(tier->region, &perf) && !mt_perf_to_adistance(&perf, &adist)) {
		tier->adist = adist;
		tier->adist_src = CXLT_ADIST_CDAT;
		return;
	}
	adist = CXLT_DEFAULT_ADISTANCE;
	if (mt_calc_adistance(tier->nid, &adist) & NOTIFY_STOP_MASK) {
		tier->adist = adist;
		tier->adist_src = CXLT_ADIST_PLATFORM;
		return;
	}
	tier->adist = CXLT_DEFAULT_ADISTANCE;
	tier->adist_src = CXLT_ADIST_DEFAULT;
}

/* Why a region cannot be a tier, with the command that fixes it where there is one. */
static int cxlt_tier_check(const char *name, const struct cxlt_cxl_region_info *info)
{
	unsigned long bsz = memory_block_size_bytes();

	if (strcmp(info->mode, "ram")) {
		pr_warn("tier add %s: it is a %s region; only ram regions can be tiers\n",
			name, info->mode);
		return -EINVAL;
	}
	switch (info->state) {
	case CXLT_CXLR_UNCOMMITTED:
		pr_warn("tier add %s: the region is not committed (echo 1 > /sys/bus/cxl/devices/%s/commit)\n",
			name, name);
		return -ENXIO;
	case CXLT_CXLR_DAX:
		pr_warn("tier add %s: %s holds it (device_dax); free it with: echo %s > /sys/bus/dax/drivers/device_dax/unbind\n",
			name, info->dax_dev, info->dax_dev);
		return -EBUSY;
	case CXLT_CXLR_SYSTEM_RAM:
		pr_warn("tier add %s: %s holds it as System RAM (kmem); free it with: daxctl offline-memory %s; echo %s > /sys/bus/dax/drivers/kmem/unbind\n",
			name, info->dax_dev, info->dax_dev, info->dax_dev);
		return -EBUSY;
	case CXLT_CXLR_COMMITTED:
		break;
	}
	if (!info->size || !IS_ALIGNED(info->start, bsz) || !IS_ALIGNED(info->size, bsz)) {
		pr_warn("tier add %s: range %#llx+%#llx is not aligned to memory blocks (%#lx)\n",
			name, info->start, info->size, bsz);
		return -EINVAL;
	}
	if (info->nid == NUMA_NO_NODE) {
		pr_warn("tier add %s: the platform assigns no NUMA node to %#llx\n",
			name, info->start);
		return -ENODEV;
	}
	return 0;
}

static unsigned int offline_timeout_s = 60;
module_param(offline_timeout_s, uint, 0644);
MODULE_PARM_DESC(offline_timeout_s,
		 "Longest a tier's memory may take to go offline (its pages moved off) before removal, drain or a fence's offline step gives up with EBUSY, in seconds (default 60; 0 counts as 1)");

struct cxlt_offline {
	u64 start;
	u64 size;
	int rc;
	struct completion done;
};

static int cxlt_offline_fn(void *data)
{
	struct cxlt_offline *o = data;

	/* offline_pages() gives up when a signal is pending: let ours in. */
	allow_signal(SIGKILL);
	o->rc = offline_and_remove_memory(o->start, o->size);
	/* Not complete() and return: the module may be gone before the return runs. */
	kthread_complete_and_exit(&o->done, 0);
}

/*
 * offline_and_remove_memory() in a thread of its own, stopped with SIGKILL after
 * offline_timeout_s or when the caller gets a signal (it never gets one in a
 * worker).  The memory is then back online, as after any failed offline.
 * Return: 0; -EBUSY out of time; -EINTR the caller was interrupted; or the
 * error of offline_and_remove_memory().
 */
static int cxlt_offline_bounded(u64 start, u64 size)
{
	unsigned long timeout = msecs_to_jiffies(max(READ_ONCE(offline_timeout_s), 1U) * 1000UL);
	struct cxlt_offline o = { .start = start, .size = size };
	struct task_struct *t;
	long left;

	init_completion(&o.done);
	t = kthread_create(cxlt_offline_fn, &o, "cxlt_offline");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	wake_up_process(t);
	left = wait_for_completion_interruptible_timeout(&o.done, timeout);
	if (left <= 0) {
		send_sig(SIGKILL, t, 1);
		wait_for_completion(&o.done);
		/* It may have finished (or failed otherwise) just before the signal. */
		if (o.rc == -EINTR && !left)
			o.rc = -EBUSY;
	}
	put_task_struct(t);
	return o.rc;
}

/*
 * Is a poisoned page of the range still referenced by someone (a pipe, a pin, a
 * lookup) beyond memory_failure()'s own reference?  Offlining would skip it and
 * remove its memory map under the holder.
 */
static bool cxlt_poison_held(u64 start, u64 size)
{
	unsigned long pfn, end = PHYS_PFN(start + size);
	struct page *page;

	for (pfn = PHYS_PFN(start); pfn < end; pfn++) {
		if (!(pfn % 4096))
			cond_resched();
		page = pfn_to_online_page(pfn);
		if (page && PageHWPoison(page) && (PageLRU(page) || page_count(page) > 1))
			return true;
	}
	return false;
}

/*
 * Undo a registration from the memory add on.  Returns the error of the memory
 * removal (-EBUSY also while a poisoned page of it is held, or when the pages took
 * longer than offline_timeout_s to move): when that fails the range stays added,
 * like kmem's failed hot-remove, and the caller keeps the tier so that removal can
 * be retried.
 */
static int cxlt_tier_unplug(struct cxlt_tier *tier)
{
	int rc;

	if (cxlt_poison_held(tier->start, tier->size))
		return -EBUSY;
	rc = cxlt_offline_bounded(tier->start, tier->size);
	if (rc)
		return rc;
	remove_resource(tier->res);
	kfree(tier->res);
	tier->res = NULL;
	memory_group_unregister(tier->mgid);
	/* Our type goes; a type kmem set on the node before us would have stayed. */
	clear_node_memory_type(tier->nid, tier->mtype);
	return 0;
}

/*
 * The steps of kmem's probe for a tier filled in by cxlt_tier_add(), under
 * cxlt_tiers.lock.  Returns 0 with the memory online, or an error with every step
 * undone; except that when the memory cannot be removed again after onlining it
 * failed, the range stays added (like kmem's failed hot-remove): then *@stuck is
 * set and the caller must list the tier, so that "tier remove" can retry.
 */
static int cxlt_tier_plug(struct cxlt_tier *tier, const char *name, bool *stuck)
{
	struct memory_dev_type *mtype;
	int rc;

	lockdep_assert_held(&cxlt_tiers.lock);
	mtype = mt_find_alloc_memory_type(tier->adist, &cxlt_tiers.memory_types);
	if (IS_ERR(mtype))
		return PTR_ERR(mtype);
	/* The first type set on a node wins; kmem may have set one on this node before. */
	init_node_memory_type(tier->nid, mtype);
	tier->mtype = mtype;

	rc = memory_group_register_static(tier->nid, PFN_UP(tier->size));
	if (rc < 0)
		goto err_clear_type;
	tier->mgid = rc;

	snprintf(tier->res_name, sizeof(tier->res_name), "cxltier:%s", name);
	tier->res = request_mem_region(tier->start, tier->size, tier->res_name);
	if (!tier->res) {
		pr_warn("tier add %s: %#llx+%#llx is claimed by another driver (see /proc/iomem)\n",
			name, tier->start, tier->size);
		rc = -EBUSY;
		goto err_unregister_group;
	}
	/* As kmem does: System RAM, not busy, so that add_memory() can nest under it. */
	tier->res->flags = IORESOURCE_SYSTEM_RAM;

	/*
	 * No MHP_MEMMAP_ON_MEMORY: the memmap of a slow tier's pages stays in DRAM
	 * (1.6% of the tier), where the mm touches it at DRAM speed.
	 */
	rc = add_memory_driver_managed(tier->mgid, tier->start, tier->size, cxlt_res_name,
				       MHP_NID_IS_MGID);
	if (rc) {
		pr_warn("tier add %s: adding the memory failed: %d\n", name, rc);
		goto err_release_res;
	}

	rc = cxlt_memblocks_online_movable(tier->start, tier->size);
	if (rc) {
		pr_warn("tier add %s: onlining the memory movable failed: %d\n", name, rc);
		if (cxlt_tier_unplug(tier)) {
			/* Keep it listed so that "tier remove" can retry the removal. */
			pr_err("tier add %s: cannot undo the add; remove the tier to retry\n",
			       name);
			*stuck = true;
		}
		/* Otherwise cxlt_tier_unplug() undid every step. */
		return rc;
	}
	return 0;

err_release_res:
	remove_resource(tier->res);
	kfree(tier->res);
err_unregister_group:
	memory_group_unregister(tier->mgid);
err_clear_type:
	clear_node_memory_type(tier->nid, mtype);
	return rc;
}

/**
 * cxlt_tier_add() - register a committed CXL RAM region as a tier
 * @name: the CXL region's name, e.g. "region0"
 * @adist: abstract distance to use, or 0 to derive it (see DOC above)
 *
 * Context: process context; takes cxlt_tiers.lock; sleeps for as long as onlining the
 * region's memory takes.
 * Return: 0; -ENOENT unknown region; -EEXIST already a tier; -EINVAL not a ram region,
 * misaligned, or @adist out of range; -ENXIO not committed or not bound to the
 * cxl_region driver; -EBUSY held by a dax
 * driver or its range is claimed; -ENODEV no NUMA node; or the memory hotplug error.
 * Every failure leaves the region as it was and logs one line saying why.
 */
int cxlt_tier_add(const char *name, int adist)
{
	struct cxlt_tier *listed;
	bool stuck = false;
	int rc;

	if (adist < 0 || adist > CXLT_MAX_ADISTANCE) {
		pr_warn("tier add %s: adistance %d is out of range (1-%ld)\n", name, adist,
			CXLT_MAX_ADISTANCE);
		return -EINVAL;
	}

	struct device *region __free(put_device) =
		bus_find_device_by_name(&cxl_bus_type, NULL, name);
	if (!region || !cxlt_dev_is_type(region, "cxl_region")) {
		pr_warn("tier add %s: no such CXL region\n", name);
		return -ENOENT;
	}

	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);
	struct cxlt_tier *tier __free(cxlt_tier_put) = cxlt_tier_alloc();

	if (!info || !tier)
		return -ENOMEM;

	guard(mutex)(&cxlt_tiers.lock);
	if (!cxlt_tiers.ready) {
		pr_warn("tier add %s: the module is loading or unloading\n", name);
		return -EAGAIN;
	}
	if (cxlt_find_tier(region)) {
		pr_warn("tier add %s: already a tier\n", name);
		return -EEXIST;
	}
	rc = cxlt_cxl_region_info(region, info);
	if (rc)
		return rc;
	rc = cxlt_tier_check(name, info);
	if (rc)
		return rc;
	for (u32 i = 0; i < info->nr_blades; i++) {
		if (cxlt_blade_fenced(info->blades[i])) {
			pr_warn("tier add %s: blade %s is fenced; restore it (blade restore) once it is repaired or replaced\n",
				name, info->blades[i]);
			return -EIO;
		}
	}
	/*
	 * Committed is not enough: until the cxl_region driver binds, the CXL core has
	 * not finished setting the region up (and an unbound region may be on its way to
	 * being decommitted).  A snapshot; unbinding a tier's region is the fencing
	 * problem, handled where blade failures are.
	 */
	if (!READ_ONCE(region->driver)) {
		pr_warn("tier add %s: the region is not bound to cxl_region (echo %s > /sys/bus/cxl/drivers/cxl_region/bind)\n",
			name, name);
		return -ENXIO;
	}
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;

	tier->region = get_device(region);
	tier->start = info->start;
	tier->size = info->size;
	tier->nid = info->nid;
	tier->ways = info->ways;
	tier->granularity = info->granularity;
	tier->nr_blades = info->nr_blades;
	memcpy(tier->blades, info->blades, sizeof(tier->blades));
	memcpy(tier->dpa_base, info->dpa_base, sizeof(tier->dpa_base));
	cxlt_tier_adistance(tier, adist);

	rc = cxlt_tier_plug(tier, name, &stuck);
	if (rc && !stuck) {
		module_put(THIS_MODULE);
		return rc;
	}

	/* Registered, or stuck half removed: from here on the list owns the tier. */
	listed = no_free_ptr(tier);
	if (kobject_add(&listed->kobj, cxlt_tiers.dir, "%s", name))
		pr_warn("tier %s: no sysfs directory\n", name);
	else if (sysfs_create_link(&listed->kobj, &listed->region->kobj, "device"))
		pr_warn("tier %s: no device link\n", name);
	scoped_guard(spinlock, &cxlt_tiers.lookup_lock)
		list_add_tail(&listed->node, &cxlt_tiers.list);
	/* Still under cxlt_tiers.lock: once it is dropped, a removal may free the tier. */
	if (!rc)
		pr_info("tier %s: node %d, %llu MiB at %#llx, adistance %d (%s), memory_tier%d\n",
			name, listed->nid, listed->size >> 20, listed->start, listed->adist,
			cxlt_adist_source_name(listed->adist_src),
			listed->adist >> MEMTIER_CHUNK_BITS);
	return rc;
}

/**
 * cxlt_tier_remove() - take a tier's memory offline and give the region back
 * @name: the CXL region's name
 *
 * The kernel migrates the tier's pages to other nodes first.  When a page cannot be
 * moved within offline_timeout_s, every block goes back online and the tier stays
 * as it was.
 *
 * Context: process context; takes cxlt_tiers.lock; sleeps while pages migrate.  A
 * signal interrupts the migration (-EINTR, nothing removed).
 * Return: 0; -ENOENT when @name is not a tier; -EBUSY when pages could not be moved
 * in time, or a poisoned page of it is still held; -EINTR when interrupted.
 */
int cxlt_tier_remove(const char *name)
{
	struct cxlt_tier *tier;
	int rc;

	scoped_guard(mutex, &cxlt_tiers.lock) {
		tier = cxlt_find_tier_by_name(name);
		if (!tier) {
			pr_warn("tier remove %s: not a tier\n", name);
			return -ENOENT;
		}
		/* Region pages go elsewhere from now on; the kernel moves those there. */
		scoped_guard(spinlock, &cxlt_tiers.lookup_lock)
			tier->removing = true;
		rc = tier->offline ? 0 : cxlt_tier_unplug(tier);
		if (rc) {
			scoped_guard(spinlock, &cxlt_tiers.lookup_lock)
				tier->removing = false;
			pr_warn("tier remove %s: %s; the tier stays online, nothing was lost\n",
				name, rc == -EINTR ? "interrupted" :
				"some pages cannot be moved off it");
			return rc == -EINTR ? rc : -EBUSY;
		}
		scoped_guard(spinlock, &cxlt_tiers.lookup_lock)
			list_del(&tier->node);
	}

	/* Unlisted: the tier is ours alone. */
	pr_info("tier %s: removed, node %d is empty\n", name, tier->nid);
	kobject_del(&tier->kobj);
	kobject_put(&tier->kobj);
	module_put(THIS_MODULE);
	return 0;
}

/**
 * cxlt_tier_take_offline() - take a fenced tier's memory offline, keep it listed
 * @name: the CXL region's name
 *
 * Pages poisoned by the fence are skipped, others move to other nodes; the free
 * pages of the failed part are gone with the memory.  "tier remove" later only
 * unlists the tier.
 *
 * Context: process context; takes cxlt_tiers.lock; sleeps while pages migrate, at
 * most offline_timeout_s.
 * Return: 0 (also when it was offline already, or is no tier any more); or the
 * error of cxlt_tier_unplug(), with the memory still online.
 */
int cxlt_tier_take_offline(const char *name)
{
	ktime_t t0 = ktime_get();
	struct cxlt_tier *tier;
	int rc;

	guard(mutex)(&cxlt_tiers.lock);
	tier = cxlt_find_tier_by_name(name);
	if (!tier || tier->offline)
		return 0;
	rc = cxlt_tier_unplug(tier);
	if (!rc) {
		tier->offline = true;
		pr_info("tier %s: fenced, its memory is offline (%lld ms); remove the tier when done\n",
			name, ktime_ms_delta(ktime_get(), t0));
	}
	return rc;
}

/**
 * cxlt_tier_fenced_range() - a tier's range and fenced positions
 * @name: the CXL region's name
 * @fr: filled in
 *
 * Context: any; takes a spinlock.
 * Return: 0; -ENOENT when it is no tier or has no fenced position.
 */
int cxlt_tier_fenced_range(const char *name, struct cxlt_fence_range *fr)
{
	struct cxlt_tier *tier;
	int rc = -ENOENT;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (strcmp(dev_name(tier->region), name) || !tier->fenced_pos)
			continue;
		*fr = (struct cxlt_fence_range) {
			.start = tier->start, .size = tier->size, .nid = tier->nid,
			.ways = tier->ways, .granularity = tier->granularity,
			.pos = tier->fenced_pos,
		};
		strscpy(fr->region, name, CXLT_NAME_LEN);
		rc = 0;
		break;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return rc;
}

/**
 * cxlt_tier_dpa_to_phys() - where a device address of a blade is in a tier
 * @region: the CXL region's name
 * @blade: the memdev
 * @dpa: device physical address on @blade
 * @pa: filled with the host physical address
 *
 * The inverse of the modulo interleave: the blade's part of the region is every
 * ways-th granule, starting at its position.
 *
 * Context: any; takes a spinlock.
 * Return: 0; -ENOENT when @region is no tier, @blade is none of its targets, or
 * @dpa is outside its part.
 */
int cxlt_tier_dpa_to_phys(const char *region, const char *blade, u64 dpa, u64 *pa)
{
	struct cxlt_tier *tier;
	u64 off, gran;
	u32 i, ways;
	int rc = -ENOENT;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (strcmp(dev_name(tier->region), region))
			continue;
		ways = max_t(u32, tier->ways, 1);
		gran = max_t(u64, tier->granularity, 1);
		for (i = 0; i < tier->nr_blades; i++) {
			if (strcmp(tier->blades[i], blade) || dpa < tier->dpa_base[i])
				continue;
			off = dpa - tier->dpa_base[i];
			if (off < div_u64(tier->size, ways)) {
				*pa = tier->start + (div64_u64(off, gran) * ways + i) * gran +
				      off % gran;
				rc = 0;
			}
			break;
		}
		break;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return rc;
}

/**
 * cxlt_tier_granularity() - a tier's interleave granularity
 * @region: the CXL region's name
 * @gran: filled with the granularity in bytes (the tier's size for one way)
 *
 * Context: any; takes a spinlock.
 * Return: 0; -ENOENT when @region is no tier.
 */
int cxlt_tier_granularity(const char *region, u64 *gran)
{
	struct cxlt_tier *tier;
	int rc = -ENOENT;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (strcmp(dev_name(tier->region), region))
			continue;
		*gran = tier->ways > 1 && tier->granularity ? tier->granularity : tier->size;
		rc = 0;
		break;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return rc;
}

/**
 * cxlt_tier_has_blade() - does a tier with usable memory on @blade exist?
 * @blade: memdev name
 *
 * Context: any; takes a spinlock.
 */
bool cxlt_tier_has_blade(const char *blade)
{
	struct cxlt_tier *tier;
	bool found = false;
	u32 i;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node)
		for (i = 0; i < tier->nr_blades && !found; i++)
			found = !strcmp(tier->blades[i], blade);
	spin_unlock(&cxlt_tiers.lookup_lock);
	return found;
}

/**
 * cxlt_tiers_on_blade() - the tiers with memory on a blade, except fenced ones
 * @blade: memdev name
 * @out: filled with their names, nodes and the abstract distance to register them
 *	with again (the operator's, else 0: derived again)
 * @max: room in @out
 *
 * Context: any; takes a spinlock.
 * Return: the number of tiers (those beyond @max are not reported).
 */
int cxlt_tiers_on_blade(const char *blade, struct cxlt_tier_ref *out, int max)
{
	struct cxlt_tier *tier;
	int n = 0;
	u32 i;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		for (i = 0; i < tier->nr_blades; i++)
			if (!strcmp(tier->blades[i], blade))
				break;
		/* A fenced tier has nothing left to move; it is removed, not drained. */
		if (i == tier->nr_blades || tier->fenced_pos)
			continue;
		if (n < max) {
			strscpy(out[n].name, dev_name(tier->region), CXLT_NAME_LEN);
			out[n].nid = tier->nid;
			out[n].adist = tier->adist_src == CXLT_ADIST_OVERRIDE ? tier->adist : 0;
		}
		n++;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return n;
}

/**
 * cxlt_node_fenced_blade() - the first fenced blade of a tier on a node
 * @nid: the node
 * @blade: filled with the memdev name
 * @len: room in @blade
 *
 * Context: any; takes a spinlock.
 * Return: 0; -ENOENT when no tier on @nid has a fenced blade.
 */
int cxlt_node_fenced_blade(int nid, char *blade, size_t len)
{
	struct cxlt_tier *tier;
	int rc = -ENOENT;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (tier->nid != nid || !tier->fenced_pos)
			continue;
		strscpy(blade, tier->blades[__ffs(tier->fenced_pos)], len);
		rc = 0;
		break;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return rc;
}

/**
 * cxlt_tiers_of_blade_show() - a blade's sysfs "tiers" file
 * @blade: memdev name
 * @buf: a sysfs page
 *
 * Context: process context; takes a spinlock.
 * Return: the length written: the tiers with memory on @blade, separated by spaces,
 * then a newline.
 */
ssize_t cxlt_tiers_of_blade_show(const char *blade, char *buf)
{
	struct cxlt_tier *tier;
	ssize_t len = 0;
	u32 i;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		for (i = 0; i < tier->nr_blades; i++) {
			if (strcmp(tier->blades[i], blade))
				continue;
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     dev_name(tier->region));
			break;
		}
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

/**
 * cxlt_node_room() - free pages of a node beyond what reclaim keeps free
 * @nid: a node with memory
 *
 * Per zone, its free pages less its high watermark and less what it keeps from
 * movable allocations for those that can use no higher zone (lowmem_reserve): kswapd
 * reclaims a node until its zones are above their high watermarks, so below them
 * every page taken makes reclaim take one from somebody.  A zone that has no more
 * free than that reserve is no room of a movable page's either way (the DMA zone
 * of a full node), and does not count.  Negative when the node is short.
 *
 * Context: any.
 * Return: pages, negative when the node is below its high watermarks.
 */
long cxlt_node_room(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	long room = 0, free, reserve;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		free = zone_page_state(zone, NR_FREE_PAGES);
		reserve = zone->lowmem_reserve[ZONE_MOVABLE];
		if (free > reserve)
			room += free - reserve - (long)high_wmark_pages(zone);
	}
	return room;
}

/**
 * cxlt_tier_nodes() - the NUMA nodes region pages may be placed on as slow pages
 * @nodes: filled in: the nodes of registered tiers, except a node one of whose
 *	tiers is being removed or has a fenced blade
 *
 * Context: any; takes a spinlock.
 */
void cxlt_tier_nodes(nodemask_t *nodes)
{
	struct cxlt_tier *tier;
	nodemask_t going;

	nodes_clear(*nodes);
	nodes_clear(going);
	scoped_guard(spinlock, &cxlt_tiers.lookup_lock) {
		list_for_each_entry(tier, &cxlt_tiers.list, node) {
			if (tier->removing || tier->fenced_pos)
				node_set(tier->nid, going);
			else
				node_set(tier->nid, *nodes);
		}
	}
	nodes_andnot(*nodes, *nodes, going);
}

/**
 * cxlt_tiers_fence() - keep region pages off the tiers with memory on a failed part
 * @blade: memdev name: fence its interleave positions in every tier; or NULL
 * @region: with @blade NULL, the cxl_region device: fence the whole tier
 * @out: filled with the ranges to fence, up to @max
 * @max: room in @out
 *
 * The barrier of a fence: from the return on, cxlt_pfn_fenced() is true for every
 * page of the fenced positions, so placement and the migrator stay off them.
 *
 * Context: any; takes a spinlock.
 * Return: the number of tiers concerned (those beyond @max are fenced too, but not
 * reported).
 */
int cxlt_tiers_fence(const char *blade, struct device *region,
		     struct cxlt_fence_range *out, int max)
{
	struct cxlt_tier *tier;
	unsigned long pos;
	int n = 0;
	u32 i;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		pos = 0;
		for (i = 0; i < tier->nr_blades; i++)
			if (blade ? !strcmp(tier->blades[i], blade) : tier->region == region)
				__set_bit(i, &pos);
		if (!pos)
			continue;
		tier->fenced_pos |= pos;
		if (n < max) {
			out[n] = (struct cxlt_fence_range) {
				.start = tier->start, .size = tier->size, .nid = tier->nid,
				.ways = tier->ways, .granularity = tier->granularity,
				.pos = pos,
			};
			strscpy(out[n].region, dev_name(tier->region), CXLT_NAME_LEN);
		}
		n++;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return n;
}

/**
 * cxlt_ileave_hits() - does a page have bytes on one of some interleave positions?
 * @start: first address of the interleaved range
 * @ways: interleave ways
 * @granularity: interleave granularity in bytes
 * @pos: the positions
 * @pa: the page's physical address, within the range
 *
 * CXL modulo arithmetic: position = (offset / granularity) % ways.  A page spans
 * several positions when the granularity is below the page size.
 */
bool cxlt_ileave_hits(u64 start, u32 ways, u32 granularity, unsigned long pos, u64 pa)
{
	u64 step = max_t(u64, granularity, 1), off;

	ways = max_t(u32, ways, 1);
	for (off = pa - start; off < pa - start + PAGE_SIZE; off += step)
		if (test_bit(div64_u64(off, step) % ways, &pos))
			return true;
	return false;
}

/**
 * cxlt_pfn_fenced() - does page frame @pfn have bytes on a fenced part?
 * @pfn: page frame number
 *
 * Context: any; takes a spinlock.
 */
bool cxlt_pfn_fenced(unsigned long pfn)
{
	u64 pa = PFN_PHYS(pfn);
	struct cxlt_tier *tier;
	bool fenced = false;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (pa < tier->start || pa >= tier->start + tier->size)
			continue;
		fenced = tier->fenced_pos &&
			 cxlt_ileave_hits(tier->start, tier->ways, tier->granularity,
					  tier->fenced_pos, pa);
		break;
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
	return fenced;
}

/**
 * cxlt_tier_count_move() - count a region page moved off or onto a tier
 * @pfn: the page's frame on the slow side of the move
 * @promoted: moved off the tier to the fast tier, else onto it
 *
 * Context: any; takes a spinlock.
 */
void cxlt_tier_count_move(unsigned long pfn, bool promoted)
{
	u64 pa = PFN_PHYS(pfn);
	struct cxlt_tier *tier;

	spin_lock(&cxlt_tiers.lookup_lock);
	list_for_each_entry(tier, &cxlt_tiers.list, node) {
		if (pa >= tier->start && pa < tier->start + tier->size) {
			atomic64_inc(promoted ? &tier->promoted : &tier->demoted);
			break;
		}
	}
	spin_unlock(&cxlt_tiers.lookup_lock);
}

/**
 * cxlt_pfn_blades() - the blades that hold a page of a tier
 * @pfn: page frame number
 * @names: filled with the memdev names, each once
 * @max: room in @names
 *
 * With an interleave granularity below the page size a page spans several blades;
 * this finds them all from the region's interleave (CXL modulo arithmetic: position =
 * (offset / granularity) % ways).
 *
 * Context: any; takes a spinlock.
 * Return: the number of names written, 0 when @pfn is in no tier (DRAM).
 */
int cxlt_pfn_blades(unsigned long pfn, struct cxlt_blade_name *names, int max)
{
	u64 pa = PFN_PHYS(pfn), off, step;
	unsigned long seen = 0;
	struct cxlt_tier *tier;
	int n = 0, pos;

	scoped_guard(spinlock, &cxlt_tiers.lookup_lock) {
		list_for_each_entry(tier, &cxlt_tiers.list, node) {
			if (pa < tier->start || pa >= tier->start + tier->size)
				continue;
			step = max_t(u64, tier->granularity, 1);
			for (off = pa - tier->start;
			     off < pa - tier->start + PAGE_SIZE && n < max; off += step) {
				pos = div64_u64(off, step) % max_t(u32, tier->ways, 1);
				if (pos >= tier->nr_blades || test_and_set_bit(pos, &seen))
					continue;
				strscpy(names[n++].name, tier->blades[pos], CXLT_NAME_LEN);
			}
			break;
		}
	}
	return n;
}

/**
 * cxlt_tiers_auto_register() - register every committed RAM region that is not a tier
 *
 * Does nothing unless the auto_register module parameter is set, nor before module
 * init opened registration (cxlt_tiers_start() calls it then).  Failures are logged
 * and skipped.
 *
 * Context: process context; no cxltier locks held.
 */
void cxlt_tiers_auto_register(void)
{
	struct device *dev, *prev = NULL;

	/* Before cxlt_tiers_start() (a scan during module init): it registers them. */
	if (!auto_register || !READ_ONCE(cxlt_tiers.ready))
		return;

	struct cxlt_cxl_region_info *info __free(kfree) = kmalloc(sizeof(*info), GFP_KERNEL);

	if (!info)
		return;
	while ((dev = bus_find_next_device(&cxl_bus_type, prev))) {
		put_device(prev);
		prev = dev;
		if (!cxlt_dev_is_type(dev, "cxl_region") || cxlt_tier_registered(dev))
			continue;
		if (cxlt_cxl_region_info(dev, info) || strcmp(info->mode, "ram") ||
		    info->state != CXLT_CXLR_COMMITTED)
			continue;
		cxlt_tier_add(dev_name(dev), 0);
	}
	put_device(prev);
}

/**
 * cxlt_tiers_start() - open registration, then register what auto_register asks for
 * @dir: /sys/kernel/cxltier/tiers, where registered tiers appear; it must outlive
 *	every tier (tiers pin the module, so it does)
 *
 * Context: the last step of module init.
 */
void cxlt_tiers_start(struct kobject *dir)
{
	scoped_guard(mutex, &cxlt_tiers.lock) {
		cxlt_tiers.dir = dir;
		cxlt_tiers.ready = true;
	}
	cxlt_tiers_auto_register();
}

/* Module exit: tiers pin the module, so only the memory type cache is left. */
void cxlt_tiers_exit(void)
{
	guard(mutex)(&cxlt_tiers.lock);
	cxlt_tiers.ready = false;
	WARN_ON(!list_empty(&cxlt_tiers.list));
	mt_put_memory_types(&cxlt_tiers.memory_types);
}
