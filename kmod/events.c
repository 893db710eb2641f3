// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the event log
 *
 * Every fence (of a blade, or of region pages after a media error), every
 * replacement of fenced pages, every poison or error report a blade makes, and every
 * drain and restore is a record in a ring of the newest CXLTIER_EVENTS_KEPT, numbered
 * from 1, and a cxltier:cxlt_event tracepoint.  CXLTIER_IOC_EVENTS reads the ring
 * from a record number on, and may sleep until a new record comes (cxltierctl
 * events --follow).  Records are small and rare (one per fence, not per page), so a
 * spinlock and a copy per reader are enough.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cxltier.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "events.h"
#include "trace.h"

static struct {
	spinlock_t lock;	/* @ring, @next: taken from process context only */
	u64 next;		/* number of the next record; records 1..next-1 exist */
	struct cxltier_event ring[CXLTIER_EVENTS_KEPT];
	wait_queue_head_t wait;	/* readers of CXLTIER_EVENTS_WAIT */
} cxlt_events = {
	.lock = __SPIN_LOCK_UNLOCKED(cxlt_events.lock),
	.next = 1,
	.wait = __WAIT_QUEUE_HEAD_INITIALIZER(cxlt_events.wait),
};

static const char *const cxlt_cause_names[] = {
	[0] = "none",
	[CXLTIER_CAUSE_ADMIN] = "admin",
	[CXLTIER_CAUSE_UNBIND] = "unbind",
	[CXLTIER_CAUSE_POISON] = "poison",
	[CXLTIER_CAUSE_MEDIA] = "media",
	[CXLTIER_CAUSE_UNCORRECTABLE] = "uncorrectable",
	[CXLTIER_CAUSE_PEER] = "peer",
};

const char *cxlt_cause_name(u32 cause)
{
	return cause <= CXLTIER_CAUSE_MAX ? cxlt_cause_names[cause] : "unknown";
}

/**
 * cxlt_event_log() - add a record to the log and fire the tracepoint
 * @ev: what happened
 *
 * Context: process context; takes a spinlock.
 */
void cxlt_event_log(const struct cxlt_event_args *ev)
{
	struct cxltier_event rec = {
		.time_ns = ktime_get_real_ns(),
		.type = ev->type,
		.cause = ev->cause,
		.region_id = ev->region_id,
		.offset = ev->offset,
		.pages = ev->pages,
		.ram_pages = ev->ram_pages,
		.duration_ns = ev->duration_ns,
	};

	if (ev->blade)
		strscpy(rec.blade, ev->blade, sizeof(rec.blade));
	if (ev->region)
		strscpy(rec.region, ev->region, sizeof(rec.region));
	scoped_guard(spinlock, &cxlt_events.lock) {
		struct cxltier_event *prev =
			&cxlt_events.ring[(cxlt_events.next - 1) % CXLTIER_EVENTS_KEPT];

		/*
		 * A job replaces its fenced pages one fault at a time: replacements of
		 * one region within a second are one record (the first offset, the
		 * sum of the pages), so that they do not push the fences out of the log.
		 */
		if (rec.type == CXLTIER_EVENT_REPLACE && cxlt_events.next > 1 &&
		    prev->type == CXLTIER_EVENT_REPLACE && prev->region_id == rec.region_id &&
		    rec.time_ns - prev->time_ns < NSEC_PER_SEC) {
			prev->pages += rec.pages;
			rec.seq = prev->seq;
		} else {
			rec.seq = cxlt_events.next++;
			cxlt_events.ring[rec.seq % CXLTIER_EVENTS_KEPT] = rec;
		}
	}
	trace_cxlt_event(rec.seq, rec.type, rec.cause, rec.blade, rec.region_id, rec.offset,
			 rec.pages, rec.duration_ns);
	wake_up_interruptible_all(&cxlt_events.wait);
}

static bool cxlt_events_after(u64 seq)
{
	return READ_ONCE(cxlt_events.next) > seq;
}

/**
 * cxlt_events_read() - CXLTIER_IOC_EVENTS, with @args copied in and checked
 * @args: see struct cxltier_events; @seq, @count, @lost are updated
 *
 * Context: process context; may sleep (CXLTIER_EVENTS_WAIT).
 * Return: 0; -EINTR when a signal came while waiting; -EFAULT; -ENOMEM.
 */
int cxlt_events_read(struct cxltier_events *args)
{
	struct cxltier_event __user *out = u64_to_user_ptr(args->events);
	u64 seq = args->seq, oldest;
	u32 n = 0, i;
	int rc;

	/* A signal ends the wait with EINTR (never restarted: the caller loops). */
	if ((args->flags & CXLTIER_EVENTS_WAIT) &&
	    wait_event_interruptible(cxlt_events.wait, cxlt_events_after(max_t(u64, seq, 1))))
		return -EINTR;

	struct cxltier_event *buf __free(kvfree) =
		kvmalloc_array(args->count, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	args->lost = 0;
	scoped_guard(spinlock, &cxlt_events.lock) {
		oldest = cxlt_events.next > CXLTIER_EVENTS_KEPT ?
			 cxlt_events.next - CXLTIER_EVENTS_KEPT : 1;
		/* 0: from the oldest kept, nothing lost; else exactly from @seq. */
		if (!seq)
			seq = oldest;
		if (seq < oldest) {
			args->lost = min_t(u64, oldest - seq, U32_MAX);
			seq = oldest;
		}
		for (; seq < cxlt_events.next && n < args->count; seq++)
			buf[n++] = cxlt_events.ring[seq % CXLTIER_EVENTS_KEPT];
	}
	for (i = 0, rc = 0; i < n && !rc; i++)
		rc = copy_to_user(&out[i], &buf[i], sizeof(*buf)) ? -EFAULT : 0;
	if (rc)
		return rc;
	args->seq = seq;
	args->count = n;
	return 0;
}

/**
 * cxlt_event_find_page() - the newest FENCE_PAGE record that covers a region byte
 * @region_id: the region
 * @offset: the byte
 * @blade: filled with the blade, @len bytes
 * @len: room in @blade
 * @time_ns: filled with the record's time
 * @cause: filled with its cause
 *
 * Context: any; takes a spinlock.
 * Return: true when found.
 */
bool cxlt_event_find_page(u32 region_id, u64 offset, char *blade, size_t len,
			  u64 *time_ns, u32 *cause)
{
	const struct cxltier_event *e;
	bool found = false;
	u64 seq;

	spin_lock(&cxlt_events.lock);
	for (seq = cxlt_events.next - 1;
	     seq >= 1 && seq + CXLTIER_EVENTS_KEPT >= cxlt_events.next; seq--) {
		e = &cxlt_events.ring[seq % CXLTIER_EVENTS_KEPT];
		if (e->type != CXLTIER_EVENT_FENCE_PAGE || e->region_id != region_id ||
		    offset < e->offset || offset >= e->offset + e->pages * PAGE_SIZE)
			continue;
		strscpy(blade, e->blade, len);
		*time_ns = e->time_ns;
		*cause = e->cause;
		found = true;
		break;
	}
	spin_unlock(&cxlt_events.lock);
	return found;
}
