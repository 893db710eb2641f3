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
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait_bit.h>
#include <linux/cxltier.h>

/*
 * The policy core decides what the region pages' spare bits (heat) are for; its
 * header and the module's must coexist in one file (region_mm.c includes both).
 */
#include "policy/cxlt_policy.h"

struct cxlt_blade_name;
struct cxlt_region;
struct dentry;

/**
 * DOC: region page table
 *
 * Every page of a region has one entry, struct cxlt_rpage, 16 bytes: the page
 * pointer and one word of bits.  Entries live in chunks of one page (256 entries,
 * 1 MiB of region) allocated at the first fault in the chunk and kept until the
 * region is freed, so an entry's address is stable and can carry a bit lock.  The
 * chunks are found through an xarray indexed by chunk number, so a region that is
 * created but not touched costs no page table at all, and a sparse one only the
 * xarray nodes of the chunks it uses.
 *
 * @bits holds, from bit 0:
 *   LOCKED (bit 0)	the entry lock: wait_on_bit_lock()/clear_and_wake_up_bit(),
 *			sleeping, because its holder allocates memory and maps pages
 *   state (bits 1-2)	enum cxlt_rp_state
 *   FAST (bit 3)	the page is charged to the DRAM budget (else to its node)
 *   hints (bits 4-7)	HOT, COLD, PIN: application advice for the migrator
 *   node (bits 16-31)	NUMA node of @page (also kept for a fenced page)
 *   bits 32-63		free for the hotness daemon (heat, epoch) on 64-bit
 * Only the lock holder changes @page, the state, FAST and the node; everything is
 * changed with atomic operations (cxlt_rp_update()), so bits owned by other users
 * (the lock bit, future heat) are never lost.  A reader that does not hold the lock
 * (stat) sees a consistent state and node, and at worst an old @page.
 *
 * States and who moves an entry between them (always under the entry lock):
 *   EMPTY -> PRESENT		the fault handler allocates, zeroes and maps a page
 *   PRESENT -> MIGRATING	a migrator: it unmaps the page from every process with
 *				unmap_mapping_range() on the region's address_space,
 *				may drop the entry lock while it copies, and
 *   MIGRATING -> PRESENT	puts the new page in and calls wake_up_var(entry);
 *				a fault that finds MIGRATING sleeps in wait_var_event()
 *   PRESENT -> FENCED		a fencer: it unmaps the page everywhere and takes the
 *				page (never freed back, never mapped again); a fault
 *				on a fenced entry returns VM_FAULT_HWPOISON, which the
 *				mm turns into SIGBUS BUS_MCEERR_AR with the address
 * Because the fault handler maps the page while it holds the entry lock, a
 * migrator or fencer that holds the lock and has unmapped the page knows that no
 * process can map the old page again.  Pages are mapped refcounted
 * (vm_insert_page()), so a page under get_user_pages() has a raised refcount a
 * migrator must check for.  There is no reverse map from a page to its entry: a
 * migrator or fencer walks cxlt_regions.all, taking a reference on each region with
 * kref_get_unless_zero() (one may be on its way out) and dropping
 * cxlt_regions.lock before it takes entry locks, and compares the page frame
 * numbers of each region's entries with the failed blade's ranges.
 */
enum cxlt_rp_state {
	CXLT_RP_EMPTY = 0,
	CXLT_RP_PRESENT = 1,
	CXLT_RP_MIGRATING = 2,
	CXLT_RP_FENCED = 3,
};

#define CXLT_RP_LOCKED		0
#define CXLT_RP_STATE_SHIFT	1
#define CXLT_RP_STATE_MASK	(3UL << CXLT_RP_STATE_SHIFT)
#define CXLT_RP_FAST		BIT(3)
#define CXLT_RP_HOT		BIT(4)
#define CXLT_RP_COLD		BIT(5)
#define CXLT_RP_PIN		BIT(6)
#define CXLT_RP_NODE_SHIFT	16
#define CXLT_RP_NODE_MASK	(0xffffUL << CXLT_RP_NODE_SHIFT)

/**
 * struct cxlt_rpage - one page of a region
 * @page: the page while PRESENT or MIGRATING (the old page), the fencer's page or
 *	NULL while FENCED, NULL while EMPTY
 * @bits: lock, state, flags and node; see DOC: region page table
 */
struct cxlt_rpage {
	struct page *page;
	unsigned long bits;
};

#define CXLT_RP_PER_CHUNK	(PAGE_SIZE / sizeof(struct cxlt_rpage))

/* For the module's own short walks (stat, free); faults use the killable lock. */
static inline void cxlt_rp_lock(struct cxlt_rpage *rp)
{
	wait_on_bit_lock(&rp->bits, CXLT_RP_LOCKED, TASK_UNINTERRUPTIBLE);
}

/* Return: 0 with the entry locked, or -EINTR when a fatal signal came first. */
static inline int cxlt_rp_lock_killable(struct cxlt_rpage *rp)
{
	return wait_on_bit_lock(&rp->bits, CXLT_RP_LOCKED, TASK_KILLABLE);
}

static inline void cxlt_rp_unlock(struct cxlt_rpage *rp)
{
	clear_and_wake_up_bit(CXLT_RP_LOCKED, &rp->bits);
}

static inline enum cxlt_rp_state cxlt_rp_state(const struct cxlt_rpage *rp)
{
	return (READ_ONCE(rp->bits) & CXLT_RP_STATE_MASK) >> CXLT_RP_STATE_SHIFT;
}

static inline int cxlt_rp_node(const struct cxlt_rpage *rp)
{
	return (READ_ONCE(rp->bits) & CXLT_RP_NODE_MASK) >> CXLT_RP_NODE_SHIFT;
}

/* Replace the bits in @mask by @val, atomically; caller holds the entry lock. */
static inline void cxlt_rp_update(struct cxlt_rpage *rp, unsigned long mask,
				  unsigned long val)
{
	unsigned long old = READ_ONCE(rp->bits);

	while (!try_cmpxchg(&rp->bits, &old, (old & ~mask) | val))
		;
}

/**
 * struct cxlt_census - a region's resident pages by node and blade (stat)
 * @node_pages: pages per node, nr_node_ids entries, zeroed by the caller
 * @fast: pages charged to the DRAM budget
 * @blades: pages per blade, room for @max_blades, zeroed by the caller
 * @nr_blades: entries of @blades in use
 * @max_blades: room in @blades
 * @names: scratch room for CXLT_MAX_WAYS blade names
 */
struct cxlt_census {
	u64 *node_pages;
	u64 fast;
	struct cxltier_blade_pages *blades;
	int nr_blades;
	int max_blades;
	struct cxlt_blade_name *names;
};

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
bool cxlt_node_is_fast(int nid);
void cxlt_region_census(struct cxlt_region *r, struct cxlt_census *c);
const char *cxlt_policy_name(u32 policy);

#endif /* _CXLT_REGION_MM_H */
