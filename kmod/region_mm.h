/* SPDX-License-Identifier: GPL-2.0 */
/*
 * region_mm.c: a global region's memory: its inode (the address_space every
 * mapping of it joins), page table, placement, capacity accounting, mmap and
 * faults.
 */
#ifndef _CXLT_REGION_MM_H
#define _CXLT_REGION_MM_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/cxltier.h>

/* The daemon keeps the policy core's classes and hints in the entries' bits. */
#include "policy/cxlt_policy.h"

struct cxlt_blade_name;
struct folio;
struct cxlt_region;
struct dentry;

/**
 * DOC: region page table
 *
 * A region's pages are page-cache folios of the region's inode (one page each):
 * the inode's address_space maps a page offset to its folio, the rmap links every
 * mapping of it, and the folio lock is the per-page lock.  Beside that, every page
 * has one entry, struct cxlt_rpage, 32 bits that the module keeps for itself
 * (4 bytes per 4 KiB page: 0.1% of the region, half of what a long was).
 * Entries live in chunks of one page (1024 entries, 4 MiB of region)
 * allocated at the first fault (or hint) in the chunk and kept until the region is
 * freed; the chunks are found through an xarray indexed by chunk number, so a
 * region that is created but not touched costs nothing, and a sparse one only the
 * chunks it uses.
 *
 * @bits holds, from bit 0:
 *   state (bits 1-2)	enum cxlt_rp_state
 *   FAST (bit 3)	the page is charged to the DRAM budget (else to its node)
 *   hint (bits 4-5)	CXLTIER_HINT_* (NONE, HOT, COLD, PIN): application advice
 *   POLTIER (6-7)	the class the daemon last told the policy core
 *   POLHINT (8-9)	the hint the daemon last told the policy core
 *   ARMED (bit 10)	the daemon unmapped the page to sample it
 *   ACCESSED (bit 11)	a fault found it ARMED: the page was used since
 *   PROMOTED (bit 12)	the last move of the page was a promotion
 *   USED (bit 13)	the last window that sampled the page found it used
 *			(what reclaim.c demotes last)
 *   node (bits 14-23)	NUMA node of the folio (also kept for a fenced page;
 *			MAX_NUMNODES is at most 1024 where NODES_SHIFT is 10)
 *   moved (bits 24-31)	stamp of the daemon's period at its last move of the
 *			page, for the ping-pong count (cxlt_move_stamp(): 0 is
 *			none, stamps repeat every 255 periods)
 * Bits are changed with atomic operations only (cxlt_rp_update()), so that their
 * owners never lose each other's updates.  Owners:
 *   - state, FAST, node, PROMOTED and moved: whoever holds the lock of the folio
 *     in the page cache at that offset (the fault that inserts it, a migrator, the
 *     kernel's own migration through ->migrate_folio, region free), so they always
 *     describe that folio; EMPTY -> PRESENT is set by the fault that inserted the
 *     folio, before it unlocks it.  One exception: the daemon clears a moved stamp
 *     CXLT_PINGPONG_PERIODS old or older when it arms the page (cxlt_sync_entry()),
 *     without the lock, so that a stamp never outlives the 255 periods after which
 *     it would look young again.  Only the daemon's own moves, in the same thread,
 *     write a stamp other than 0, so the clear never takes a young one.
 *   - hint: the HINT ioctl.  POLTIER, POLHINT, ARMED, USED: the daemon.
 *   - ACCESSED: set by the fault path, cleared by the daemon.
 * A reader without the folio lock (stat, PAGES) sees a consistent state and node.
 *
 * States:
 *   EMPTY -> PRESENT		first touch: the fault handler allocates the folio on
 *				the node the policy picks, zeroes it and inserts it
 *				in the page cache
 *   PRESENT -> PRESENT		a move to another node (cxlt_migrate_run(), or the
 *				kernel's migration: compaction, memory offline,
 *				long-term pinning), under the folio locks
 *   PRESENT -> FENCED		the page's memory failed; a fault on it returns
 *				VM_FAULT_HWPOISON (SIGBUS BUS_MCEERR_AR)
 *   PRESENT -> EMPTY		region free
 */
enum cxlt_rp_state {
	CXLT_RP_EMPTY = 0,
	CXLT_RP_PRESENT = 1,
	CXLT_RP_FENCED = 3,
};

#define CXLT_RP_STATE_SHIFT	1
#define CXLT_RP_STATE_MASK	(3U << CXLT_RP_STATE_SHIFT)
#define CXLT_RP_FAST		BIT(3)
#define CXLT_RP_HINT_SHIFT	4
#define CXLT_RP_HINT_MASK	(3U << CXLT_RP_HINT_SHIFT)
#define CXLT_RP_POLTIER_SHIFT	6
#define CXLT_RP_POLTIER_MASK	(3U << CXLT_RP_POLTIER_SHIFT)
#define CXLT_RP_POLHINT_SHIFT	8
#define CXLT_RP_POLHINT_MASK	(3U << CXLT_RP_POLHINT_SHIFT)
#define CXLT_RP_ARMED		BIT(10)
#define CXLT_RP_ACCESSED	BIT(11)
#define CXLT_RP_PROMOTED	BIT(12)
#define CXLT_RP_USED		BIT(13)
#define CXLT_RP_NODE_SHIFT	14
#define CXLT_RP_NODE_MASK	(0x3ffU << CXLT_RP_NODE_SHIFT)
#define CXLT_RP_MOVED_SHIFT	24
#define CXLT_RP_MOVED_MASK	(0xffU << CXLT_RP_MOVED_SHIFT)

/**
 * struct cxlt_rpage - the module's word about one page of a region
 * @bits: see DOC: region page table
 */
struct cxlt_rpage {
	u32 bits;
};

#define CXLT_RP_PER_CHUNK	(PAGE_SIZE / sizeof(struct cxlt_rpage))

static inline u32 cxlt_rp_field(const struct cxlt_rpage *rp, u32 mask, int shift)
{
	return (READ_ONCE(rp->bits) & mask) >> shift;
}

static inline enum cxlt_rp_state cxlt_rp_state(const struct cxlt_rpage *rp)
{
	return cxlt_rp_field(rp, CXLT_RP_STATE_MASK, CXLT_RP_STATE_SHIFT);
}

static inline int cxlt_rp_node(const struct cxlt_rpage *rp)
{
	return cxlt_rp_field(rp, CXLT_RP_NODE_MASK, CXLT_RP_NODE_SHIFT);
}

static inline u32 cxlt_rp_hint(const struct cxlt_rpage *rp)
{
	return cxlt_rp_field(rp, CXLT_RP_HINT_MASK, CXLT_RP_HINT_SHIFT);
}

/* Replace the bits in @mask by @val, atomically. */
static inline void cxlt_rp_update(struct cxlt_rpage *rp, u32 mask, u32 val)
{
	u32 old = READ_ONCE(rp->bits);

	while (!try_cmpxchg(&rp->bits, &old, (old & ~mask) | val))
		;
}

/**
 * struct cxlt_census - a region's resident pages by node and blade (stat)
 * @node_pages: pages per node, nr_node_ids entries, zeroed by the caller
 * @fast: pages charged to the DRAM budget
 * @hinted: pages with a hint
 * @blades: pages per blade, room for @max_blades, zeroed by the caller
 * @nr_blades: entries of @blades in use
 * @max_blades: room in @blades
 * @names: scratch room for CXLT_MAX_WAYS blade names
 */
struct cxlt_census {
	u64 *node_pages;
	u64 fast;
	u64 hinted;
	struct cxltier_blade_pages *blades;
	int nr_blades;
	int max_blades;
	struct cxlt_blade_name *names;
};

/* Lockdep's map of region folio locks (region_mm.c). */
extern struct lockdep_map cxlt_page_lockdep_map;

/* The region's inode and its pseudo filesystem. */
int cxlt_region_inode_alloc(struct cxlt_region *r);
void cxlt_region_inode_free(struct cxlt_region *r);
struct file *cxlt_region_inode_file(struct cxlt_region *r, const char *name, int flags,
				    const struct file_operations *fops);

/* Page table, placement, accounting, mmap and faults. */
int cxlt_region_mm_init(struct dentry *dir);
void cxlt_region_mm_exit(void);
int cxlt_region_table_alloc(struct cxlt_region *r);
void cxlt_region_table_free(struct cxlt_region *r);
struct cxlt_rpage *cxlt_region_entry(struct cxlt_region *r, unsigned long pgoff,
				     bool alloc);
int cxlt_region_mmap(struct file *file, struct vm_area_struct *vma);
void cxlt_region_file_closed(struct cxlt_region *r);
void cxlt_region_zap(struct cxlt_region *r);
bool cxlt_node_is_fast(int nid);
void cxlt_region_census(struct cxlt_region *r, struct cxlt_census *c);
const char *cxlt_policy_name(u32 policy);
unsigned long cxlt_fast_budget_pages(void);
unsigned long cxlt_fast_used_pages(void);
unsigned long cxlt_node_pages(int nid);
long cxlt_fast_room_pages(void);

/* For the migrator (migrate.c): a target folio, allocated and charged, and back. */
struct folio *cxlt_region_alloc_target(struct cxlt_region *r, unsigned long pgoff,
				       bool fast, int *nidp);
void cxlt_region_uncharge(struct cxlt_region *r, int nid, bool fast);
void cxlt_region_fence_entry(struct cxlt_region *r, struct cxlt_rpage *rp);

#endif /* _CXLT_REGION_MM_H */
