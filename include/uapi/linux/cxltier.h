/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cxltier global regions: the ioctl ABI of /dev/cxltier and of region file
 * descriptors.  Shared by the module, libcxltier and the selftests; documented in
 * Documentation/ABI/testing/dev-cxltier.
 *
 * Conventions of every command that takes a struct:
 *  - The struct starts with @size, which the caller sets to sizeof() the struct it
 *    was built with, and the command number encodes the same size.  A caller built
 *    against an older, shorter version of a struct keeps working; a newer, longer
 *    one works as long as the fields this module does not know are zero (else
 *    E2BIG).
 *  - @flags takes only the bits defined for that command (else EINVAL).
 *  - Fields named reserved* must be zero (else EINVAL).
 *  - Names are NUL-terminated within their array (else EINVAL).
 *  - Only fixed-size types; no implicit padding, so i386 and x86_64 agree.
 */
#ifndef _UAPI_LINUX_CXLTIER_H
#define _UAPI_LINUX_CXLTIER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The misc device: /dev/cxltier. */
#define CXLTIER_DEVICE_NAME		"cxltier"

/* Returned by CXLTIER_IOC_VERSION; incremented only by incompatible changes. */
#define CXLTIER_ABI_VERSION		1

/* A region name: 1 to 63 printable bytes other than '/' and blanks, then NUL. */
#define CXLTIER_NAME_MAX		64
/* A blade (CXL memdev) name with its NUL, e.g. "mem0". */
#define CXLTIER_BLADE_NAME_MAX		32
/* A pool (a CXL pmem region that holds persistent regions) with its NUL, "region3". */
#define CXLTIER_POOL_NAME_MAX		24
/* Node masks have room for 1024 NUMA nodes, the kernel's largest MAX_NUMNODES. */
#define CXLTIER_NODE_WORDS		16

/*
 * A global handle names a byte of a region in every process:
 * region id (16 bits) << 48 | offset (48 bits).  Id 0 is never a region.
 */
#define CXLTIER_HANDLE_ID_SHIFT		48
#define CXLTIER_HANDLE_OFFSET_MASK	((1ULL << CXLTIER_HANDLE_ID_SHIFT) - 1)
#define CXLTIER_REGION_ID_MAX		0xffff
/*
 * Ids from CXLTIER_REGION_ID_SHARED up name regions of shared pools, the same on every
 * host: CXLTIER_REGION_ID_SHARED | pool number << 8 | table entry.  A host's own
 * regions get ids below it.
 */
#define CXLTIER_REGION_ID_SHARED	0x8000
/* Largest region length the ABI can address with a handle. */
#define CXLTIER_LENGTH_MAX		(1ULL << CXLTIER_HANDLE_ID_SHIFT)

/* Placement policies: where the page behind a first touch is allocated. */
#define CXLTIER_POLICY_FAST_FIRST	0	/* DRAM within its budget, then CXL */
#define CXLTIER_POLICY_SLOW_ONLY	1	/* CXL only, filling one node after another */
#define CXLTIER_POLICY_INTERLEAVE	2	/* CXL only, page by page across nodes */
#define CXLTIER_POLICY_PINNED_FAST	3	/* DRAM only, never moved */
#define CXLTIER_POLICY_MAX		CXLTIER_POLICY_PINNED_FAST

/* Flags of commands that name a region: select it by @id instead of @name. */
#define CXLTIER_BY_ID			(1U << 0)

/**
 * struct cxltier_create - CXLTIER_IOC_CREATE
 * @size: (in) sizeof(struct cxltier_create)
 * @flags: (in) CXLTIER_CREATE_MODE: @mode is set; otherwise the mode is 0600.
 *	CXLTIER_CREATE_PERSISTENT: a persistent region, on a pool
 * @length: (in) bytes, a nonzero multiple of the page size
 * @policy: (in) CXLTIER_POLICY_*; 0 for a persistent region
 * @mode: (in) permission bits (at most 0777) with CXLTIER_CREATE_MODE, else 0
 * @nodes: (in) NUMA nodes pages may be placed on; all zero: any node.  All zero
 *	for a persistent region
 * @name: (in) the region's name, unique among regions not destroyed
 * @id: (out) the region id: below CXLTIER_REGION_ID_SHARED, or from it up for a
 *	region of a shared pool (the same on every host attached to the pool)
 * @reserved0: must be zero
 * @pool: (in) with CXLTIER_CREATE_PERSISTENT: the pool to put it on (its CXL
 *	region's name: a pmem region, or a shared pool attached with pool_attach),
 *	or empty for the online pmem pool with the most free space (never a shared
 *	pool); without: empty
 * @reserved: must be zero
 *
 * A persistent region lives on persistent CXL memory (a pool, see
 * Documentation/persistence.rst): its name, owner, mode, size and contents
 * survive a crash, a reboot and the module's unload.  It is created zeroed and
 * durably (the call returns once its record is in the pool's persistence
 * domain); it is never migrated; its memory is mapped directly (VM_PFNMAP), so
 * writes are durable once written back from the CPU caches (CLWB/CLFLUSHOPT +
 * SFENCE).  ENODEV: no such pool online; ENOSPC: no room for it in the pool.
 * On a shared pool the region is every attached host's (Documentation/
 * persistence.rst, "Shared pools"); EEXIST also when another host has a region
 * of that name.
 */
struct cxltier_create {
	__u32 size;
	__u32 flags;
	__u64 length;
	__u32 policy;
	__u32 mode;
	__u64 nodes[CXLTIER_NODE_WORDS];
	char name[CXLTIER_NAME_MAX];
	__u32 id;
	__u32 reserved0;
	char pool[CXLTIER_POOL_NAME_MAX];
	__u64 reserved;
};

#define CXLTIER_CREATE_MODE		(1U << 0)
#define CXLTIER_CREATE_PERSISTENT	(1U << 1)
#define CXLTIER_CREATE_FLAGS		(CXLTIER_CREATE_MODE | CXLTIER_CREATE_PERSISTENT)

/**
 * struct cxltier_open - CXLTIER_IOC_OPEN
 * @size: (in) sizeof(struct cxltier_open)
 * @flags: (in) CXLTIER_OPEN_READ (required: mmap() needs read access), optionally
 *	CXLTIER_OPEN_WRITE, and CXLTIER_BY_ID to select the region by @id
 * @id: (in) with CXLTIER_BY_ID; (out) the region id
 * @fd: (out) a new file descriptor (O_CLOEXEC) bound to the region; mmap() it
 * @length: (out) the region's size in bytes
 * @name: (in) without CXLTIER_BY_ID; (out) the region's name
 * @reserved: must be zero
 *
 * Access is checked against the region's owner, group and mode like a file's.
 */
struct cxltier_open {
	__u32 size;
	__u32 flags;
	__u32 id;
	__s32 fd;
	__u64 length;
	char name[CXLTIER_NAME_MAX];
	__u64 reserved[4];
};

#define CXLTIER_OPEN_READ		(1U << 1)
#define CXLTIER_OPEN_WRITE		(1U << 2)
#define CXLTIER_OPEN_FLAGS		(CXLTIER_BY_ID | CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE)

/**
 * struct cxltier_destroy - CXLTIER_IOC_DESTROY
 * @size: (in) sizeof(struct cxltier_destroy)
 * @flags: (in) CXLTIER_BY_ID or 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @reserved0: must be zero
 * @name: (in) without CXLTIER_BY_ID, else empty
 * @reserved: must be zero
 *
 * The name and id are free for reuse at once; the memory goes when the last file
 * descriptor and mapping of the region go.  Owner or CAP_SYS_ADMIN only.
 */
struct cxltier_destroy {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved0;
	char name[CXLTIER_NAME_MAX];
	__u64 reserved[2];
};

#define CXLTIER_DESTROY_FLAGS		CXLTIER_BY_ID

/**
 * struct cxltier_list_entry - one region in CXLTIER_IOC_LIST's output
 * @id: (out) region id
 * @policy: (out) CXLTIER_POLICY_*
 * @length: (out) size in bytes
 * @name: (out) name
 */
struct cxltier_list_entry {
	__u32 id;
	__u32 policy;
	__u64 length;
	char name[CXLTIER_NAME_MAX];
};

/**
 * struct cxltier_list - CXLTIER_IOC_LIST: the regions not destroyed, by id
 * @size: (in) sizeof(struct cxltier_list)
 * @flags: (in) 0
 * @count: (in) room in @entries; (out) number of regions, which may exceed the room
 *	(only that many were written; call again with more room)
 * @reserved0: must be zero
 * @entries: (in) user address of an array of struct cxltier_list_entry; may be 0
 *	when @count is 0
 * @reserved: must be zero
 */
struct cxltier_list {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 reserved0;
	__u64 entries;
	__u64 reserved[2];
};

/**
 * struct cxltier_node_pages - resident pages of a region on one NUMA node
 * @node: (out) node id
 * @reserved: (out) zero
 * @pages: (out) pages of the region on @node
 */
struct cxltier_node_pages {
	__u32 node;
	__u32 reserved;
	__u64 pages;
};

/**
 * struct cxltier_blade_pages - resident pages of a region on one blade
 * @name: (out) the blade's memdev name
 * @pages: (out) pages with data on the blade; a page interleaved over several
 *	blades at a granularity below the page size counts on each of them
 */
struct cxltier_blade_pages {
	char name[CXLTIER_BLADE_NAME_MAX];
	__u64 pages;
};

/**
 * struct cxltier_stat - CXLTIER_IOC_STAT
 * @size: (in) sizeof(struct cxltier_stat)
 * @flags: (in) on /dev/cxltier: CXLTIER_BY_ID or 0; on a region fd: 0 (the fd
 *	selects the region, which may be destroyed)
 * @id: (in) with CXLTIER_BY_ID; (out) region id
 * @region_flags: (out) CXLTIER_REGION_DESTROYED, CXLTIER_REGION_PERSISTENT,
 *	CXLTIER_REGION_LOST
 * @name: (in) on /dev/cxltier without CXLTIER_BY_ID; (out) name
 * @length: (out) size in bytes
 * @policy: (out) CXLTIER_POLICY_*
 * @mode: (out) permission bits
 * @uid: (out) owner, in the caller's user namespace
 * @gid: (out) group, in the caller's user namespace
 * @nodes: (out) allowed nodes; all zero: any
 * @resident: (out) pages allocated (a persistent region: all of them)
 * @fenced: (out) pages fenced (their memory failed; access gets SIGBUS); a lost
 *	persistent region: all of them
 * @fast: (out) pages on DRAM (fast) nodes
 * @nr_maps: (out) mappings (VMAs) of the region, in all processes
 * @nr_files: (out) open region file descriptions, in all processes
 * @node_count: (in) room in @node_pages; (out) entries available (nodes with pages)
 * @blade_count: (in) room in @blade_pages; (out) entries available
 * @node_pages: (in) user address of struct cxltier_node_pages[@node_count], or 0
 * @blade_pages: (in) user address of struct cxltier_blade_pages[@blade_count], or 0
 * @pool: (in) must be zero; (out) a persistent region's pool, else empty
 * @pool_offset: (in) must be zero; (out) a persistent region's byte offset in its
 *	pool (from the start of the pool's CXL region), else 0
 * @reserved: must be zero
 *
 * Migration counters of the region since it was created (the migration daemon,
 * hints and the kernel's own migrations of its pages):
 * @promoted: (out) pages moved to the fast tier
 * @demoted: (out) pages moved to a slow tier
 * @pingpong: (out) moves that undid one of the same page within the daemon's
 *	ping-pong window (a promotion soon after a demotion or the reverse)
 * @skipped_pinned: (out) moves skipped because the page had extra references
 *	(get_user_pages() pins: O_DIRECT, io_uring fixed buffers, RDMA)
 * @failed: (out) moves that failed (no memory on the target, a copy that hit
 *	poison)
 * @moved_bytes: (out) bytes copied by moves
 * @sampled: (out) page observations by the daemon (pages armed for sampling)
 * @accessed: (out) observations that found the page accessed
 * @hinted: (out) pages that have a hint (HOT, COLD or PIN) now, allocated or not
 * @reserved2: must be zero
 */
struct cxltier_stat {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 region_flags;
	char name[CXLTIER_NAME_MAX];
	__u64 length;
	__u32 policy;
	__u32 mode;
	__u32 uid;
	__u32 gid;
	__u64 nodes[CXLTIER_NODE_WORDS];
	__u64 resident;
	__u64 fenced;
	__u64 fast;
	__u32 nr_maps;
	__u32 nr_files;
	__u32 node_count;
	__u32 blade_count;
	__u64 node_pages;
	__u64 blade_pages;
	char pool[CXLTIER_POOL_NAME_MAX];
	__u64 pool_offset;
	/* Since ABI 1 as well; a shorter struct (without these) still works. */
	__u64 promoted;
	__u64 demoted;
	__u64 pingpong;
	__u64 skipped_pinned;
	__u64 failed;
	__u64 moved_bytes;
	__u64 sampled;
	__u64 accessed;
	__u64 hinted;
	__u64 reserved2[3];
};

#define CXLTIER_STAT_FLAGS		CXLTIER_BY_ID
#define CXLTIER_REGION_DESTROYED	(1U << 0)
/* On a pool: survives crashes and reboots (CXLTIER_CREATE_PERSISTENT). */
#define CXLTIER_REGION_PERSISTENT	(1U << 1)
/* A persistent region whose pool's device failed or went: access gets SIGBUS. */
#define CXLTIER_REGION_LOST		(1U << 2)
/* On a shared pool: every host attached to it sees the region under the same id. */
#define CXLTIER_REGION_SHARED		(1U << 3)

/**
 * struct cxltier_set_policy - CXLTIER_IOC_SET_POLICY
 * @size: (in) sizeof(struct cxltier_set_policy)
 * @flags: (in) CXLTIER_BY_ID or 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @policy: (in) CXLTIER_POLICY_*
 * @name: (in) without CXLTIER_BY_ID, else empty
 * @nodes: (in) allowed nodes; all zero: any
 * @reserved: must be zero
 *
 * Applies to pages allocated from now on; pages already placed stay where they are.
 * Owner or CAP_SYS_ADMIN only.
 */
struct cxltier_set_policy {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 policy;
	char name[CXLTIER_NAME_MAX];
	__u64 nodes[CXLTIER_NODE_WORDS];
	__u64 reserved[2];
};

#define CXLTIER_SET_POLICY_FLAGS	CXLTIER_BY_ID

/* Hints: what an application knows about a range of a region. */
#define CXLTIER_HINT_NONE		0	/* forget earlier hints: heat decides */
#define CXLTIER_HINT_HOT		1	/* move to the fast tier first; never demoted */
#define CXLTIER_HINT_COLD		2	/* move to a slow tier first; never promoted */
#define CXLTIER_HINT_PIN		3	/* never move, from where it is now */
#define CXLTIER_HINT_MAX		CXLTIER_HINT_PIN

/**
 * struct cxltier_hint - CXLTIER_IOC_HINT: advice for the migration daemon
 * @size: (in) sizeof(struct cxltier_hint)
 * @flags: (in) on /dev/cxltier: CXLTIER_BY_ID or 0; on a region fd: 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @hint: (in) CXLTIER_HINT_*
 * @name: (in) on /dev/cxltier without CXLTIER_BY_ID, else empty
 * @offset: (in) first byte, a multiple of the page size, within the region
 * @length: (in) bytes, a nonzero multiple of the page size, within the region
 * @reserved: must be zero
 * Applies to the pages of the range that exist now and to those touched later;
 * the daemon acts on it at its next period.  Needs write access to the region
 * (on a region fd: an fd opened with CXLTIER_OPEN_WRITE).
 */
struct cxltier_hint {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 hint;
	char name[CXLTIER_NAME_MAX];
	__u64 offset;
	__u64 length;
	__u64 reserved[2];
};

#define CXLTIER_HINT_FLAGS		CXLTIER_BY_ID

/* Values in struct cxltier_pages' @nodes other than a node id. */
#define CXLTIER_PAGE_NONE		(-1)	/* not allocated yet */
#define CXLTIER_PAGE_FENCED		(-2)	/* fenced: access gets SIGBUS */

/**
 * struct cxltier_pages - CXLTIER_IOC_PAGES: where each page of a range is
 * @size: (in) sizeof(struct cxltier_pages)
 * @flags: (in) on /dev/cxltier: CXLTIER_BY_ID or 0; on a region fd: 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @reserved0: must be zero
 * @name: (in) on /dev/cxltier without CXLTIER_BY_ID, else empty
 * @offset: (in) first byte, a multiple of the page size, within the region
 * @count: (in) pages to report, at least 1, at most CXLTIER_PAGES_MAX; the
 *	range is cut at the region's end; (out) pages reported
 * @reserved1: must be zero
 * @nodes: (in) user address of __s32[@count]: each page's NUMA node, or
 *	CXLTIER_PAGE_NONE or CXLTIER_PAGE_FENCED
 * @reserved: must be zero
 * A snapshot: the daemon may move a page right after.  Needs read access (as STAT).
 */
struct cxltier_pages {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved0;
	char name[CXLTIER_NAME_MAX];
	__u64 offset;
	__u32 count;
	__u32 reserved1;
	__u64 nodes;
	__u64 reserved[2];
};

#define CXLTIER_PAGES_FLAGS		CXLTIER_BY_ID
#define CXLTIER_PAGES_MAX		(1U << 20)

/**
 * struct cxltier_replace - CXLTIER_IOC_REPLACE: fresh pages for fenced ones
 * @size: (in) sizeof(struct cxltier_replace)
 * @flags: (in) on /dev/cxltier: CXLTIER_BY_ID or 0; on a region fd: 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @reserved0: must be zero
 * @name: (in) on /dev/cxltier without CXLTIER_BY_ID, else empty
 * @offset: (in) first byte, a multiple of the page size, within the region
 * @length: (in) bytes, a nonzero multiple of the page size, within the region
 * @replaced: (out) fenced pages of the range that were replaced
 * @reserved: must be zero
 * Every fenced page of the range becomes unallocated again: the next access
 * allocates a zeroed page on a healthy node (as a first touch does) instead of
 * getting SIGBUS, in every process that maps the region (a decision for the whole
 * region, taken by a writer).  The data is gone; the application restores it.  Pages that are
 * not fenced are left alone.  Needs write access to the region.
 */
struct cxltier_replace {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved0;
	char name[CXLTIER_NAME_MAX];
	__u64 offset;
	__u64 length;
	__u64 replaced;
	__u64 reserved[2];
};

#define CXLTIER_REPLACE_FLAGS		CXLTIER_BY_ID

/* What struct cxltier_event records. */
#define CXLTIER_EVENT_FENCE		1	/* a blade was fenced */
#define CXLTIER_EVENT_FENCE_PAGE	2	/* region pages were fenced (media error) */
#define CXLTIER_EVENT_REPLACE		3	/* fenced pages were replaced */
#define CXLTIER_EVENT_POISON		4	/* a blade reported poison or an error */
#define CXLTIER_EVENT_DRAIN		5	/* a blade was drained: out of service */
#define CXLTIER_EVENT_RESTORE		6	/* a blade is back in service */
#define CXLTIER_EVENT_MAX		CXLTIER_EVENT_RESTORE

/* Why: struct cxltier_event's @cause. */
#define CXLTIER_CAUSE_ADMIN		1	/* asked for (sysfs, cxltierctl) */
#define CXLTIER_CAUSE_UNBIND		2	/* the memdev or its CXL region went away */
#define CXLTIER_CAUSE_POISON		3	/* poison records (poison list, inject) */
#define CXLTIER_CAUSE_MEDIA		4	/* general media / DRAM event records */
#define CXLTIER_CAUSE_UNCORRECTABLE	5	/* an uncorrectable (AER) error */
#define CXLTIER_CAUSE_PEER		6	/* another host of a shared pool fenced it */
#define CXLTIER_CAUSE_MAX		CXLTIER_CAUSE_PEER

/**
 * struct cxltier_event - one record of the event log
 * @seq: its number, from 1, increasing by one per record
 * @time_ns: when it happened, CLOCK_REALTIME
 * @type: CXLTIER_EVENT_*
 * @cause: CXLTIER_CAUSE_*
 * @blade: the memdev, e.g. "mem0"; for the fence of a tier whose CXL region went
 *	away, that CXL region ("region4"); empty for REPLACE
 * @region_id: the global region (FENCE_PAGE, REPLACE), else 0
 * @reserved0: zero
 * @region: its name, else empty
 * @offset: byte offset in the region (FENCE_PAGE, REPLACE); the host physical
 *	address for POISON; else 0
 * @pages: pages fenced (region pages and system-RAM pages), replaced or drained
 * @ram_pages: of @pages, system-RAM pages (FENCE)
 * @duration_ns: from the trigger to the last page fenced or drained
 * @reserved: zero
 */
struct cxltier_event {
	__u64 seq;
	__u64 time_ns;
	__u32 type;
	__u32 cause;
	char blade[CXLTIER_BLADE_NAME_MAX];
	__u32 region_id;
	__u32 reserved0;
	char region[CXLTIER_NAME_MAX];
	__u64 offset;
	__u64 pages;
	__u64 ram_pages;
	__u64 duration_ns;
	__u64 reserved[2];
};

/**
 * struct cxltier_events - CXLTIER_IOC_EVENTS: read the event log
 * @size: (in) sizeof(struct cxltier_events)
 * @flags: (in) CXLTIER_EVENTS_WAIT: sleep (interruptibly) until a record @seq or
 *	later exists
 * @seq: (in) the first record wanted: 0 for the oldest kept (@lost is then 0),
 *	else exactly that one (@lost counts the records from it that are gone);
 *	(out) the number to ask for next: the record after the last one returned
 *	(with none returned: the @seq asked for, or the oldest kept)
 * @count: (in) room in @events, at least 1, at most CXLTIER_EVENTS_MAX; (out)
 *	records written
 * @lost: (out) records from the @seq asked for that are no longer kept
 * @events: (in) user address of struct cxltier_event[@count]
 * @reserved: must be zero
 * The log keeps the newest CXLTIER_EVENTS_KEPT records; replacements of one region
 * within a second are one record (its @pages grow).  A signal ends a wait with
 * EINTR.  Anyone who may open /dev/cxltier may read it.
 */
struct cxltier_events {
	__u32 size;
	__u32 flags;
	__u64 seq;
	__u32 count;
	__u32 lost;
	__u64 events;
	__u64 reserved[2];
};

#define CXLTIER_EVENTS_WAIT		(1U << 0)
#define CXLTIER_EVENTS_FLAGS		CXLTIER_EVENTS_WAIT
#define CXLTIER_EVENTS_MAX		1024
#define CXLTIER_EVENTS_KEPT		1024

/**
 * struct cxltier_fenced - CXLTIER_IOC_FENCED: why a page is fenced
 * @size: (in) sizeof(struct cxltier_fenced)
 * @flags: (in) on /dev/cxltier: CXLTIER_BY_ID or 0; on a region fd: 0
 * @id: (in) with CXLTIER_BY_ID, else 0
 * @fenced: (out) 1 when the page at @offset is fenced, else 0 (the rest is zero)
 * @name: (in) on /dev/cxltier without CXLTIER_BY_ID, else empty
 * @offset: (in) a byte of the region
 * @time_ns: (out) when it was fenced, CLOCK_REALTIME
 * @cause: (out) CXLTIER_CAUSE_*
 * @reserved0: zero
 * @blade: (out) the blade it was on (the first, for a page interleaved over
 *	several)
 * @reserved: must be zero
 * Async-signal-safe to call (one system call): a SIGBUS handler asks it.  Needs
 * read access.
 */
struct cxltier_fenced {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 fenced;
	char name[CXLTIER_NAME_MAX];
	__u64 offset;
	__u64 time_ns;
	__u32 cause;
	__u32 reserved0;
	char blade[CXLTIER_BLADE_NAME_MAX];
	__u64 reserved[2];
};

#define CXLTIER_FENCED_FLAGS		CXLTIER_BY_ID

/**
 * struct cxltier_process - CXLTIER_IOC_PROCESS: process mode reports a period
 * @size: (in) sizeof(struct cxltier_process)
 * @flags: (in) 0
 * @processes: (in) processes managed now
 * @reserved0: zero
 * @period_ns: (in) the time this report covers, 1 ms to 60 s
 * @managed_pages: (in) pages of the managed processes now
 * @fast_pages: (in) of those, pages on DRAM now
 * @promoted: (in) pages moved to DRAM in the period
 * @demoted: (in) pages moved to CXL in the period
 * @failed: (in) pages that did not move (pinned, busy, gone)
 * @budget: (out) pages the service may move in each direction in its next period
 *	of @period_ns: the daemon's budget_mbps, less what the daemon itself moved
 *	since the last report (0 while the daemon is disabled)
 * @reserved: must be zero
 *
 * cxltier-procd, the service of process mode, reports what it did so that its
 * moves are in the daemon's counters (daemon/stats/: promoted_pages, ... and
 * process_*) and tracepoint (cxltier:cxlt_process_period), and takes its budget
 * from the same budget as the daemon.  Needs CAP_SYS_ADMIN.
 */
struct cxltier_process {
	__u32 size;
	__u32 flags;
	__u32 processes;
	__u32 reserved0;
	__u64 period_ns;
	__u64 managed_pages;
	__u64 fast_pages;
	__u64 promoted;
	__u64 demoted;
	__u64 failed;
	__u64 budget;
	__u64 reserved[2];
};

/* ioctl type 0xC7, numbers 0x00-0x0F (free in ioctl-number.rst as of Linux 6.12). */
#define CXLTIER_IOC_MAGIC		0xC7

/* /dev/cxltier.  VERSION takes no argument and returns CXLTIER_ABI_VERSION. */
#define CXLTIER_IOC_VERSION		_IO(CXLTIER_IOC_MAGIC, 0x00)
#define CXLTIER_IOC_CREATE		_IOWR(CXLTIER_IOC_MAGIC, 0x01, struct cxltier_create)
#define CXLTIER_IOC_OPEN		_IOWR(CXLTIER_IOC_MAGIC, 0x02, struct cxltier_open)
#define CXLTIER_IOC_DESTROY		_IOW(CXLTIER_IOC_MAGIC, 0x03, struct cxltier_destroy)
#define CXLTIER_IOC_LIST		_IOWR(CXLTIER_IOC_MAGIC, 0x04, struct cxltier_list)
/* Also on a region fd. */
#define CXLTIER_IOC_STAT		_IOWR(CXLTIER_IOC_MAGIC, 0x05, struct cxltier_stat)
#define CXLTIER_IOC_SET_POLICY		_IOW(CXLTIER_IOC_MAGIC, 0x06, struct cxltier_set_policy)
/* Also on a region fd. */
#define CXLTIER_IOC_HINT		_IOW(CXLTIER_IOC_MAGIC, 0x07, struct cxltier_hint)
#define CXLTIER_IOC_PAGES		_IOWR(CXLTIER_IOC_MAGIC, 0x08, struct cxltier_pages)
/* Also on a region fd. */
#define CXLTIER_IOC_REPLACE		_IOWR(CXLTIER_IOC_MAGIC, 0x09, struct cxltier_replace)
#define CXLTIER_IOC_EVENTS		_IOWR(CXLTIER_IOC_MAGIC, 0x0A, struct cxltier_events)
/* Also on a region fd. */
#define CXLTIER_IOC_FENCED		_IOWR(CXLTIER_IOC_MAGIC, 0x0B, struct cxltier_fenced)
#define CXLTIER_IOC_PROCESS		_IOWR(CXLTIER_IOC_MAGIC, 0x0C, struct cxltier_process)

#endif /* _UAPI_LINUX_CXLTIER_H */
