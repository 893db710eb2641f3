// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: failure triggers
 *
 * Besides an operator's "blade fence", four things make cxltier fence:
 *
 *  - A blade going away: its memdev unbound from cxl_mem, which is also what PCIe
 *    hot removal (QMP device_del) and cxl_pci's handler of an uncorrectable error
 *    do.  The CXL bus notifier sees BUS_NOTIFY_UNBIND_DRIVER before the driver's
 *    remove tears the endpoint decoders down, while the range is still backed, and
 *    fences the blade right there, synchronously.
 *  - A tier's CXL region unbound (or decommitted, which unbinds it first): the
 *    tier's whole range is fenced the same way; the blades keep their state.
 *  - Poison: the CXL core reports the device's poison list (trigger_poison_list,
 *    debugfs inject_poison) only as the cxl_poison tracepoint, and general media
 *    and DRAM event records as cxl_general_media and cxl_dram; Linux 6.12 calls
 *    no memory_failure() for them.  cxltier attaches probes to those tracepoints
 *    (in vmlinux, or in cxl_core.ko whenever that module is loaded, before or
 *    after cxltier); each poisoned range (and each media record flagged uncorrectable) is
 *    translated to host addresses from the tier's interleave (CXL modulo
 *    arithmetic, each target's decoder base cached when the tier was added), one
 *    interleave granule at a time and never past the blade's part of the region,
 *    and its pages (those of a tier on that blade only) go through
 *    memory_failure(): a region page is fenced
 *    (cxlt_region_error_remove_folio()), any other page gets the kernel's
 *    hwpoison treatment.  Once poison_fence_blade pages of one blade are poisoned,
 *    the whole blade is fenced.
 *  - An uncorrectable (AER) error of a memdev (cxl_aer_uncorrectable_error): with
 *    uncorrectable_fences_blade (the default) the blade is fenced at once.
 *
 * Probes run inside the CXL core with its locks held: they only queue a record;
 * a work item translates and fences.  With fence=0 none of this happens (an
 * operator's fence still works): a removed blade then reads as zeroes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/cxltier.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cxltier.h"
#include "devattr.h"
#include "events.h"
#include "failure.h"
#include "fence.h"
#include "pool.h"
#include "health.h"
#include "tier.h"

static unsigned int poison_fence_blade = 16;
module_param(poison_fence_blade, uint, 0644);
MODULE_PARM_DESC(poison_fence_blade,
		 "Fence the whole blade once this many of its pages are poisoned (default 16; 0: never, only the poisoned pages)");

static bool uncorrectable_fences_blade = true;
module_param(uncorrectable_fences_blade, bool, 0644);
MODULE_PARM_DESC(uncorrectable_fences_blade,
		 "Fence the whole blade on an uncorrectable (AER) error of its device (default on)");

/* An unbind within this long after an uncorrectable error is that error's doing. */
#define CXLT_UNCORR_WINDOW_NS	(60 * NSEC_PER_SEC)
/* Records waiting for the work item; more are dropped (and counted in the log). */
#define CXLT_FAIL_QUEUE		64

/* The CXL core's structs start with their struct device (cxl_memdev, cxl_region). */
static const char *cxlt_cxl_dev_name(const void *cxl_obj)
{
	return cxl_obj ? dev_name((const struct device *)cxl_obj) : "";
}

/* A poison list record and the head of a media event record: CXL 3.1 wire formats. */
struct cxlt_poison_record {
	__le64 address;
	__le32 length;
	__le32 rsvd;
} __packed;

struct cxlt_media_hdr {
	u8 hdr[32];	/* struct cxl_event_record_hdr */
	__le64 phys_addr;
	u8 descriptor;
} __packed;

#define CXLT_POISON_ADDR_MASK	GENMASK_ULL(63, 6)
#define CXLT_POISON_LEN_MULT	64
#define CXLT_MEDIA_UNCORRECTABLE	BIT(0)
#define CXLT_POISON_TRACE_CLEAR	2

/**
 * struct cxlt_fail - a failure report waiting for the work item
 * @blade: memdev name
 * @region: the CXL region the address is in, or empty
 * @dpa: device physical address (poison), or U64_MAX
 * @hpa: host physical address (media events), or U64_MAX
 * @len: bytes
 * @cause: CXLTIER_CAUSE_*
 * @whole: fence the whole blade
 * @t0: when it was reported
 */
struct cxlt_fail {
	char blade[CXLT_NAME_LEN];
	char region[CXLT_NAME_LEN];
	u64 dpa;
	u64 hpa;
	u64 len;
	u32 cause;
	bool whole;
	ktime_t t0;
};

static struct {
	spinlock_t lock;	/* the queue and @uncorr; taken by tracepoint probes */
	unsigned int head, nr;
	struct cxlt_fail q[CXLT_FAIL_QUEUE];
	unsigned long dropped;
	/* The last uncorrectable error: which blade, when. */
	char uncorr_blade[CXLT_NAME_LEN];
	u64 uncorr_ns;
	struct work_struct work;
} cxlt_fail = {
	.lock = __SPIN_LOCK_UNLOCKED(cxlt_fail.lock),
};

static void cxlt_fail_queue(const struct cxlt_fail *f)
{
	unsigned long flags;

	spin_lock_irqsave(&cxlt_fail.lock, flags);
	if (cxlt_fail.nr < CXLT_FAIL_QUEUE)
		cxlt_fail.q[(cxlt_fail.head + cxlt_fail.nr++) % CXLT_FAIL_QUEUE] = *f;
	else
		cxlt_fail.dropped++;
	spin_unlock_irqrestore(&cxlt_fail.lock, flags);
	queue_work(system_long_wq, &cxlt_fail.work);
}

/* --- tracepoint probes -------------------------------------------------------------- */

static void cxlt_probe_poison(void *data, const void *cxlmd, const void *cxlr,
			      const struct cxlt_poison_record *rec, u8 flags,
			      __le64 overflow_ts, int trace_type)
{
	struct cxlt_fail f = {
		.dpa = le64_to_cpu(rec->address) & CXLT_POISON_ADDR_MASK,
		.hpa = U64_MAX,
		.len = (u64)le32_to_cpu(rec->length) * CXLT_POISON_LEN_MULT,
		.cause = CXLTIER_CAUSE_POISON,
		.t0 = ktime_get(),
	};

	if (trace_type == CXLT_POISON_TRACE_CLEAR || !cxlt_fence_enabled())
		return;
	strscpy(f.blade, cxlt_cxl_dev_name(cxlmd), sizeof(f.blade));
	strscpy(f.region, cxlt_cxl_dev_name(cxlr), sizeof(f.region));
	cxlt_fail_queue(&f);
}

static void cxlt_probe_media(void *data, const void *cxlmd, int log, const void *cxlr,
			     u64 hpa, CXLT_MEDIA_ALIAS_PARAM const struct cxlt_media_hdr *rec)
{
	struct cxlt_fail f = {
		.dpa = le64_to_cpu(rec->phys_addr) & CXLT_POISON_ADDR_MASK,
		.hpa = hpa,
		.len = CXLT_POISON_LEN_MULT,
		.cause = CXLTIER_CAUSE_MEDIA,
		.t0 = ktime_get(),
	};

	if (!(rec->descriptor & CXLT_MEDIA_UNCORRECTABLE) || !cxlt_fence_enabled())
		return;
	strscpy(f.blade, cxlt_cxl_dev_name(cxlmd), sizeof(f.blade));
	strscpy(f.region, cxlt_cxl_dev_name(cxlr), sizeof(f.region));
	cxlt_fail_queue(&f);
}

static void cxlt_probe_uncorrectable(void *data, const void *cxlmd, u32 status, u32 fe,
				     u32 *hl)
{
	struct cxlt_fail f = {
		.dpa = U64_MAX, .hpa = U64_MAX,
		.cause = CXLTIER_CAUSE_UNCORRECTABLE, .whole = true, .t0 = ktime_get(),
	};
	unsigned long flags;

	strscpy(f.blade, cxlt_cxl_dev_name(cxlmd), sizeof(f.blade));
	spin_lock_irqsave(&cxlt_fail.lock, flags);
	strscpy(cxlt_fail.uncorr_blade, f.blade, sizeof(cxlt_fail.uncorr_blade));
	cxlt_fail.uncorr_ns = ktime_get_ns();
	spin_unlock_irqrestore(&cxlt_fail.lock, flags);
	if (cxlt_fence_enabled() && READ_ONCE(uncorrectable_fences_blade))
		cxlt_fail_queue(&f);
}

static const struct {
	const char *name;
	void *probe;
} cxlt_probes[] = {
	{ "cxl_poison", cxlt_probe_poison },
	{ "cxl_general_media", cxlt_probe_media },
	{ "cxl_dram", cxlt_probe_media },
	{ "cxl_aer_uncorrectable_error", cxlt_probe_uncorrectable },
};

/* The tracepoints our probes are attached to, NULL where none; under cxlt_tp_lock. */
static struct tracepoint *cxlt_tp[ARRAY_SIZE(cxlt_probes)];
static DEFINE_MUTEX(cxlt_tp_lock);

static void cxlt_attach_tp(struct tracepoint *tp, void *priv)
{
	int i, rc;

	lockdep_assert_held(&cxlt_tp_lock);
	for (i = 0; i < ARRAY_SIZE(cxlt_probes); i++) {
		if (cxlt_tp[i] || strcmp(tp->name, cxlt_probes[i].name))
			continue;
		rc = tracepoint_probe_register(tp, cxlt_probes[i].probe, NULL);
		if (rc)
			pr_warn("cannot attach to tracepoint %s: %d\n", tp->name, rc);
		else
			cxlt_tp[i] = tp;
	}
}

static void cxlt_detach_tp(struct tracepoint *tp)
{
	int i;

	lockdep_assert_held(&cxlt_tp_lock);
	for (i = 0; i < ARRAY_SIZE(cxlt_probes); i++) {
		if (cxlt_tp[i] != tp)
			continue;
		tracepoint_probe_unregister(tp, cxlt_probes[i].probe, NULL);
		cxlt_tp[i] = NULL;
	}
}

/*
 * The CXL core's tracepoints are in vmlinux where it is built in (Debian's kernels),
 * in cxl_core.ko where it is a module: attach when that module comes (also when it
 * was loaded before us: registering the notifier replays it), detach when it goes.
 */
static int cxlt_tp_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int i;

	guard(mutex)(&cxlt_tp_lock);
	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (val == MODULE_STATE_COMING)
			cxlt_attach_tp(tp, NULL);
		else if (val == MODULE_STATE_GOING)
			cxlt_detach_tp(tp);
	}
	return NOTIFY_OK;
}

static struct notifier_block cxlt_tp_module_nb = {
	.notifier_call = cxlt_tp_module_notify,
};

/* --- acting on reports --------------------------------------------------------------- */

/* Was the last uncorrectable error @blade's, recently? */
static bool cxlt_recent_uncorrectable(const char *blade)
{
	unsigned long flags;
	bool recent;

	spin_lock_irqsave(&cxlt_fail.lock, flags);
	recent = !strcmp(cxlt_fail.uncorr_blade, blade) &&
		 ktime_get_ns() - cxlt_fail.uncorr_ns < CXLT_UNCORR_WINDOW_NS;
	spin_unlock_irqrestore(&cxlt_fail.lock, flags);
	return recent;
}

/*
 * Poison the pages of [@pa, @pa + @len), host addresses that a tier with memory on
 * @blade covers (never other System RAM, whatever a device reported); returns how
 * many were not poisoned yet.
 */
static u64 cxlt_poison_range(const char *blade, u64 pa, u64 len)
{
	unsigned long pfn, end = PHYS_PFN(pa + max_t(u64, len, 1) - 1);
	struct cxlt_blade_name names[CXLT_MAX_WAYS];
	struct page *page;
	u64 n = 0;
	int k, nb;

	for (pfn = PHYS_PFN(pa); pfn <= end; pfn++) {
		nb = cxlt_pfn_blades(pfn, names, CXLT_MAX_WAYS);
		for (k = 0; k < nb && strcmp(names[k].name, blade); k++)
			;
		if (k == nb)
			continue;
		page = pfn_to_online_page(pfn);
		if (!page || PageHWPoison(page))
			continue;
		if (!memory_failure(pfn, 0))
			n++;
	}
	return n;
}

/*
 * Poison a range of device addresses of @blade in @region.  Consecutive device
 * addresses are consecutive host addresses only within one interleave granule; the
 * next granule of the blade is ways granules further on the host.  So each granule
 * is translated on its own, and the range stops at the end of the blade's part of
 * the region (a device's length is not trusted).  *@first is the host address of
 * the first byte, U64_MAX if none translates.
 */
static u64 cxlt_poison_dpa(const struct cxlt_fail *f, u64 *first)
{
	u64 dpa = f->dpa, left = f->len ?: 1, gran, chunk, pa, n = 0;

	*first = U64_MAX;
	if (cxlt_tier_granularity(f->region, &gran))
		return 0;
	while (left) {
		if (cxlt_tier_dpa_to_phys(f->region, f->blade, dpa, &pa))
			break;
		if (*first == U64_MAX)
			*first = pa;
		chunk = min(left, gran - dpa % gran);
		n += cxlt_poison_range(f->blade, pa, chunk);
		dpa += chunk;
		left -= chunk;
		cond_resched();
	}
	return n;
}

static void cxlt_fail_one(const struct cxlt_fail *f)
{
	struct cxlt_event_args ev = {
		.type = CXLTIER_EVENT_POISON, .cause = f->cause, .blade = f->blade,
		.offset = f->hpa, .pages = DIV_ROUND_UP(f->len, PAGE_SIZE),
	};
	struct cxlt_health *h;
	u64 pa = f->hpa, n = 0;
	int rc;

	if (f->whole) {
		rc = cxlt_fence_blade(f->blade, f->cause, f->t0);
		if (rc && rc != -EALREADY && rc != -ENOENT)
			pr_warn("%s: cannot fence after an uncorrectable error: %d\n", f->blade,
				rc);
		return;
	}
	if (pa != U64_MAX)
		n = cxlt_poison_range(f->blade, pa, f->len);
	else if (*f->region)
		n = cxlt_poison_dpa(f, &pa);
	ev.offset = pa;
	h = cxlt_health_find(f->blade, true);
	if (h && n)
		atomic64_add(n, &h->poisoned);
	/* A list read reports every record again: log only what is new. */
	if (n || pa == U64_MAX) {
		cxlt_event_log(&ev);
		pr_warn("%s: %s at device address %#llx (+%llu bytes), host address %#llx: %llu pages poisoned\n",
			f->blade, cxlt_cause_name(f->cause), f->dpa, f->len, pa, n);
	}
	if (h && poison_fence_blade && atomic64_read(&h->poisoned) >= poison_fence_blade &&
	    !cxlt_blade_fenced(f->blade)) {
		pr_warn("%s: %lld pages poisoned (poison_fence_blade=%u): fencing the blade\n",
			f->blade, atomic64_read(&h->poisoned), poison_fence_blade);
		cxlt_fence_blade(f->blade, f->cause, f->t0);
	}
}

static void cxlt_fail_workfn(struct work_struct *work)
{
	unsigned long flags, dropped;
	struct cxlt_fail f;

	for (;;) {
		spin_lock_irqsave(&cxlt_fail.lock, flags);
		if (!cxlt_fail.nr) {
			dropped = cxlt_fail.dropped;
			cxlt_fail.dropped = 0;
			spin_unlock_irqrestore(&cxlt_fail.lock, flags);
			break;
		}
		f = cxlt_fail.q[cxlt_fail.head];
		cxlt_fail.head = (cxlt_fail.head + 1) % CXLT_FAIL_QUEUE;
		cxlt_fail.nr--;
		spin_unlock_irqrestore(&cxlt_fail.lock, flags);
		cxlt_fail_one(&f);
	}
	if (dropped)
		pr_warn("%lu device error reports dropped: too many at once\n", dropped);
}

/**
 * cxlt_failure_bus_event() - the CXL bus notifier's part in fencing
 * @dev: the device the event is about
 * @action: BUS_NOTIFY_*
 *
 * See DOC: failure triggers.
 *
 * Context: the CXL bus notifier: process context, @dev's lock held; sleeps.
 */
void cxlt_failure_bus_event(struct device *dev, unsigned long action)
{
	ktime_t t0 = ktime_get();
	const char *name = dev_name(dev);
	u32 cause;

	if (action != BUS_NOTIFY_UNBIND_DRIVER)
		return;
	/*
	 * A pool's memory going away is not a policy matter: its mappings must go
	 * before the memory does, whatever the fence parameter says.
	 */
	if (cxlt_dev_is_type(dev, "cxl_memdev"))
		cxlt_pools_blade_lost(name, false);
	else if (cxlt_dev_is_type(dev, "cxl_region"))
		cxlt_pools_region_lost(dev);
	if (!cxlt_fence_enabled())
		return;
	if (cxlt_dev_is_type(dev, "cxl_memdev")) {
		if (!cxlt_tier_has_blade(name) || cxlt_blade_fenced(name))
			return;
		cause = cxlt_recent_uncorrectable(name) ? CXLTIER_CAUSE_UNCORRECTABLE :
							  CXLTIER_CAUSE_UNBIND;
		pr_warn("blade %s is going away while tiers have memory on it: fencing\n", name);
		cxlt_fence_blade(name, cause, t0);
	} else if (cxlt_dev_is_type(dev, "cxl_region") && cxlt_tier_registered(dev)) {
		pr_warn("cxl region %s is going away while it is a tier: fencing it\n", name);
		cxlt_fence_cxl_region(dev, CXLTIER_CAUSE_UNBIND, t0);
	}
}

void cxlt_failure_init(void)
{
	int i, rc;

	INIT_WORK(&cxlt_fail.work, cxlt_fail_workfn);
	scoped_guard(mutex, &cxlt_tp_lock)
		for_each_kernel_tracepoint(cxlt_attach_tp, NULL);
	rc = register_tracepoint_module_notifier(&cxlt_tp_module_nb);
	if (rc)
		pr_warn("cannot watch modules for the CXL core's tracepoints: %d\n", rc);
	guard(mutex)(&cxlt_tp_lock);
	for (i = 0; i < ARRAY_SIZE(cxlt_probes); i++)
		if (!cxlt_tp[i])
			pr_info("no tracepoint %s yet: its errors fence once it appears\n",
				cxlt_probes[i].name);
}

void cxlt_failure_exit(void)
{
	int i;

	unregister_tracepoint_module_notifier(&cxlt_tp_module_nb);
	scoped_guard(mutex, &cxlt_tp_lock)
		for (i = 0; i < ARRAY_SIZE(cxlt_probes); i++)
			if (cxlt_tp[i])
				cxlt_detach_tp(cxlt_tp[i]);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&cxlt_fail.work);
}
