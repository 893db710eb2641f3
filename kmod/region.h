/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier global regions: internal interfaces of region.c (table, lifetime, access
 * control, the ioctl verbs), region_mm.c (page table, placement, mmap, faults) and
 * cdev.c (/dev/cxltier).  See "DOC: global regions" in region.c.
 *
 * Locks of this part, outermost first (the module-wide order is in cxltier.h):
 *   cxlt_regions.lock		mutex: the id/name table (region.c)
 *   cxlt_users.lock		mutex: per-user charges (user.c), at create/free
 *   mmap_lock / VMA lock	held by the mm around ->fault
 *   region page entry lock	CXLT_RP_LOCKED, a sleeping bit lock per page
 *   i_mmap_rwsem, PTL		taken by vm_insert_page(), unmap_mapping_range()
 *   region->lock		spinlock, leaf: policy, node mask, destroyed
 *   cxlt_tiers.lookup_lock	spinlock, leaf (tier.c)
 * Never take an entry lock while holding cxlt_regions.lock, i_mmap_rwsem or a PTL.
 */
#ifndef _CXLT_REGION_H
#define _CXLT_REGION_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/nodemask.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>
#include <linux/cxltier.h>

/*
 * The policy core decides what the region pages' spare bits (heat) are for; its
 * header and the module's (struct cxlt_tier in cxltier.h) must coexist in one file.
 */
#include "policy/cxlt_policy.h"

struct cxlt_blade_name;
struct dentry;
struct mem_cgroup;

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
 * struct cxlt_region - a global region
 * @ref: references: the name table's (until destroyed), each open region file,
 *	and each ioctl that is using the region
 * @all: entry in cxlt_regions.all, the list of every region that is not freed
 *	(destroyed ones included, which still have users and pages): what a
 *	migrator or fencer walks; under cxlt_regions.lock
 * @id: region id, 1 to CXLTIER_REGION_ID_MAX; free for reuse once destroyed
 * @name: NUL-terminated name; free for reuse once destroyed
 * @size: bytes
 * @nr_pages: @size in pages
 * @uid: owner, the creator's fsuid
 * @gid: group, the creator's fsgid
 * @mode: permission bits
 * @user: the creator's per-user charges (user.c)
 * @exempt_mem: the creator had CAP_IPC_LOCK: no per-user memory limit
 * @exempt_res: the creator had CAP_SYS_RESOURCE: no per-user region count or DRAM
 *	share limit
 * @memcg: the creator's memory cgroup, referenced; the region's pages and page
 *	table are charged to it
 * @lock: protects @policy, @nodes and @destroyed; a leaf lock
 * @policy: CXLTIER_POLICY_*
 * @nodes: allowed nodes; empty means any
 * @destroyed: the name and id are gone; set once, under cxlt_regions.lock too
 * @inode: the region's inode on the module's pseudo filesystem; its i_mapping is
 *	the region's address_space, which every mapping of the region is linked into
 * @chunks: chunk number -> chunk of entries; each set once (xa_cmpxchg()) and
 *	never cleared until the region is freed
 * @resident: entries PRESENT or MIGRATING
 * @fenced: entries FENCED
 * @nr_maps: VMAs mapping the region
 * @nr_files: open region files
 */
struct cxlt_region {
	struct kref ref;
	struct list_head all;
	u32 id;
	char name[CXLTIER_NAME_MAX];
	u64 size;
	unsigned long nr_pages;
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
	struct cxlt_user *user;
	bool exempt_mem;
	bool exempt_res;
	struct mem_cgroup *memcg;
	spinlock_t lock;	/* @policy, @nodes, @destroyed */
	u32 policy;
	nodemask_t nodes;
	bool destroyed;
	struct inode *inode;
	struct xarray chunks;
	atomic_long_t resident;
	atomic_long_t fenced;
	atomic_t nr_maps;
	atomic_t nr_files;
};

/**
 * struct cxlt_user - what one user's regions are charged (user.c)
 * @uid: the user, in the initial user namespace
 * @regions: regions not freed; under cxlt_users.lock
 * @pages: their length in pages, reserved at create; under cxlt_users.lock
 * @fast: their pages on the fast tier now (atomic: changed at faults and frees)
 *
 * Lives while the user has regions, so a region's @user pointer is valid until
 * the region is freed.
 */
struct cxlt_user {
	u32 uid;
	unsigned int regions;
	unsigned long pages;
	atomic_long_t fast;
};

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

/* region.c: the table, lifetime, access control and the ioctl verbs. */
void cxlt_region_put(struct cxlt_region *r);
int cxlt_region_create(const struct cxltier_create *args, u32 *id);
int cxlt_region_open(struct cxltier_open *args, struct file **filep);
int cxlt_region_destroy(const struct cxltier_destroy *args);
int cxlt_region_list(struct cxltier_list *args);
struct cxlt_region *cxlt_region_get(u32 flags, u32 id, const char *name);
int cxlt_region_stat(struct cxlt_region *r, struct cxltier_stat *args);
int cxlt_region_may_stat(struct cxlt_region *r);
int cxlt_region_set_policy(const struct cxltier_set_policy *args);
struct cxlt_region *cxlt_region_of_file(struct file *file);

/* region_mm.c: page table, placement, accounting, mmap and faults. */
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

/* user.c: per-user limits. */
int cxlt_user_charge(struct cxlt_region *r);
void cxlt_user_uncharge(struct cxlt_region *r);
void cxlt_users_init(struct dentry *dir);
void cxlt_users_exit(void);

/* cdev.c: /dev/cxltier. */
int cxlt_cdev_init(void);
void cxlt_cdev_exit(void);
long cxlt_region_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _CXLT_REGION_H */
