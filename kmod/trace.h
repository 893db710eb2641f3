/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the migration daemon (one per decision period, one per migration
 * batch) and of the event log (one per record: fences, replacements, drains, device
 * errors), in events/cxltier/ in tracefs.  daemon.c defines them
 * (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cxltier

#if !defined(_CXLT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CXLT_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(cxlt_period,
	    TP_PROTO(u32 period, u32 regions, u64 sampled, u64 accessed, u32 promote,
		     u32 demote, u32 candidates, u32 hot_heat, u64 ns),
	    TP_ARGS(period, regions, sampled, accessed, promote, demote, candidates,
		    hot_heat, ns),
	    TP_STRUCT__entry(__field(u32, period)
			     __field(u32, regions)
			     __field(u64, sampled)
			     __field(u64, accessed)
			     __field(u32, promote)
			     __field(u32, demote)
			     __field(u32, candidates)
			     __field(u32, hot_heat)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->period = period;
			   __entry->regions = regions;
			   __entry->sampled = sampled;
			   __entry->accessed = accessed;
			   __entry->promote = promote;
			   __entry->demote = demote;
			   __entry->candidates = candidates;
			   __entry->hot_heat = hot_heat;
			   __entry->ns = ns;),
	    TP_printk("period=%u regions=%u sampled=%llu accessed=%llu promote=%u demote=%u candidates=%u hot_heat=%u ns=%llu",
		      __entry->period, __entry->regions, __entry->sampled,
		      __entry->accessed, __entry->promote, __entry->demote,
		      __entry->candidates, __entry->hot_heat, __entry->ns)
);

TRACE_EVENT(cxlt_migrate_batch,
	    TP_PROTO(u32 region, unsigned long first, u32 nr, bool fast, u32 moved,
		     u32 pinned, u32 busy, u32 failed, u64 ns),
	    TP_ARGS(region, first, nr, fast, moved, pinned, busy, failed, ns),
	    TP_STRUCT__entry(__field(u32, region)
			     __field(unsigned long, first)
			     __field(u32, nr)
			     __field(bool, fast)
			     __field(u32, moved)
			     __field(u32, pinned)
			     __field(u32, busy)
			     __field(u32, failed)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->region = region;
			   __entry->first = first;
			   __entry->nr = nr;
			   __entry->fast = fast;
			   __entry->moved = moved;
			   __entry->pinned = pinned;
			   __entry->busy = busy;
			   __entry->failed = failed;
			   __entry->ns = ns;),
	    TP_printk("region=%u first=%lu nr=%u to=%s moved=%u pinned=%u busy=%u failed=%u ns=%llu",
		      __entry->region, __entry->first, __entry->nr,
		      __entry->fast ? "fast" : "slow", __entry->moved, __entry->pinned,
		      __entry->busy, __entry->failed, __entry->ns)
);

TRACE_EVENT(cxlt_process_period,
	    TP_PROTO(u32 processes, u64 managed, u64 fast, u64 promoted, u64 demoted,
		     u64 failed, u64 budget),
	    TP_ARGS(processes, managed, fast, promoted, demoted, failed, budget),
	    TP_STRUCT__entry(__field(u32, processes)
			     __field(u64, managed)
			     __field(u64, fast)
			     __field(u64, promoted)
			     __field(u64, demoted)
			     __field(u64, failed)
			     __field(u64, budget)),
	    TP_fast_assign(__entry->processes = processes;
			   __entry->managed = managed;
			   __entry->fast = fast;
			   __entry->promoted = promoted;
			   __entry->demoted = demoted;
			   __entry->failed = failed;
			   __entry->budget = budget;),
	    TP_printk("processes=%u managed=%llu fast=%llu promoted=%llu demoted=%llu failed=%llu budget=%llu",
		      __entry->processes, __entry->managed, __entry->fast, __entry->promoted,
		      __entry->demoted, __entry->failed, __entry->budget)
);

TRACE_EVENT(cxlt_event,
	    TP_PROTO(u64 seq, u32 type, u32 cause, const char *blade, u32 region, u64 offset,
		     u64 pages, u64 ns),
	    TP_ARGS(seq, type, cause, blade, region, offset, pages, ns),
	    TP_STRUCT__entry(__field(u64, seq)
			     __field(u32, type)
			     __field(u32, cause)
			     __string(blade, blade)
			     __field(u32, region)
			     __field(u64, offset)
			     __field(u64, pages)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->seq = seq;
			   __entry->type = type;
			   __entry->cause = cause;
			   __assign_str(blade);
			   __entry->region = region;
			   __entry->offset = offset;
			   __entry->pages = pages;
			   __entry->ns = ns;),
	    TP_printk("seq=%llu type=%s cause=%s blade=%s region=%u offset=%#llx pages=%llu ns=%llu",
		      __entry->seq,
		      __print_symbolic(__entry->type, { 1, "fence" }, { 2, "fence_page" },
				       { 3, "replace" }, { 4, "poison" }, { 5, "drain" },
				       { 6, "restore" }),
		      __print_symbolic(__entry->cause, { 0, "none" }, { 1, "admin" },
				       { 2, "unbind" }, { 3, "poison" }, { 4, "media" },
				       { 5, "uncorrectable" }),
		      __get_str(blade), __entry->region, __entry->offset, __entry->pages,
		      __entry->ns)
);

#endif /* _CXLT_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
