/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.c: the log of fences, replacements, drains and device errors that
 * CXLTIER_IOC_EVENTS reads (cxltierctl events).
 */
#ifndef _CXLT_EVENTS_H
#define _CXLT_EVENTS_H

#include <linux/types.h>

struct cxltier_events;

/**
 * struct cxlt_event_args - what a record says, besides its number and time
 * @type: CXLTIER_EVENT_*
 * @cause: CXLTIER_CAUSE_*
 * @blade: memdev name or NULL
 * @region: global region name or NULL
 * @region_id: its id, or 0
 * @offset: byte offset in the region, or host physical address (POISON)
 * @pages: pages fenced, replaced or drained
 * @ram_pages: of @pages, system-RAM pages
 * @duration_ns: trigger to last page
 */
struct cxlt_event_args {
	u32 type;
	u32 cause;
	const char *blade;
	const char *region;
	u32 region_id;
	u64 offset;
	u64 pages;
	u64 ram_pages;
	u64 duration_ns;
};

void cxlt_event_log(const struct cxlt_event_args *ev);
int cxlt_events_read(struct cxltier_events *args);
bool cxlt_event_find_page(u32 region_id, u64 offset, char *blade, size_t len,
			  u64 *time_ns, u32 *cause);
const char *cxlt_cause_name(u32 cause);

#endif /* _CXLT_EVENTS_H */
