/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct cxlt_region: the layout of a global region.  region.c allocates, names
 * and frees regions; region_mm.c gives them memory; cdev.c opens files on them.
 * Data only, so that all three can read a region without depending on each
 * other's code: each file's functions are in its own header (region.h,
 * region_mm.h, cdev.h).  See "DOC: global regions" in region.c.
 */
#ifndef _CXLT_REGION_TYPES_H
#define _CXLT_REGION_TYPES_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/nodemask.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/cxltier.h>

struct cxlt_pool;
struct cxlt_region;
struct cxlt_user;
struct inode;
struct mem_cgroup;

/**
 * struct cxlt_store_ops - what the region code asks of a persistent region's pool
 *	(pool.c sets &cxlt_region.store when it links a region to a pool): region.c
 *	and region_mm.c never call the pool's code by name, so the pool's code can
 *	call theirs
 * @destroy: the region left the name table (CXLTIER_IOC_DESTROY): free its entry,
 *	durably; nonzero: its pool is lost, nothing was written
 * @free: the last reference went: its space is free
 * @pool_name: its pool's name
 * @shared: its pool is shared by several hosts
 * @fault: ->fault of its mappings
 */
struct cxlt_store_ops {
	int (*destroy)(struct cxlt_region *r);
	void (*free)(struct cxlt_region *r);
	const char *(*pool_name)(const struct cxlt_region *r);
	bool (*shared)(const struct cxlt_region *r);
	vm_fault_t (*fault)(struct vm_fault *vmf);
};

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
 * @inode: the region's inode on the module's pseudo filesystem (region_mm.c); its
 *	i_mapping is the region's address_space: it holds the region's pages (as
 *	page-cache folios) and every mapping of the region is linked into it
 * @chunks: chunk number -> chunk of entries (region_mm.h); each set once
 *	(xa_cmpxchg()) and never cleared until the region is freed
 * @span_chunks: the highest chunk number in @chunks + 1: the part of the region
 *	that has ever had pages (the daemon lays out only that); only grows
 * @resident: entries PRESENT
 * @fenced: entries FENCED
 * @nr_maps: VMAs mapping the region
 * @nr_files: open region files
 * @mig: migration counters (STAT): written by the migrator, the daemon and the
 *	kernel's migrations of the region's pages
 *
 * A persistent region (pool.c) has memory on a pool instead of pages: no @chunks,
 * no charges, never migrated, and an @inode only while it has open files.
 * @pool: its pool, referenced; NULL for a volatile region
 * @store: its pool's operations, set with @pool
 * @pool_link: entry in the pool's list of regions, under the pool's rlock
 * @pool_entry: its entry in the pool's table
 * @pool_offset: byte offset of its memory in the pool
 * @pool_alloc: bytes of the pool it holds
 * @pool_uuid: its entry's uuid, made at create (a shared pool's entry may later
 *	hold another region)
 * @pool_inc: its shared pool's incarnation on this host when it was made (an
 *	earlier one than the pool's: this host's lease lapsed since, it is dead)
 * @pool_freed: its entry was freed (destroyed); it holds its space until it is
 *	freed; under the pool's lock
 * @pool_unlisted: its dropped pool took it out of the name table; under the
 *	pool's rlock
 * @lost: its pool's memory failed or went: faults get SIGBUS; set once, under
 *	the pool's gate
 * @nr_inode_users: open files of a persistent region; its @inode exists while
 *	there are any; under cxlt_pinode_lock (region_mm.c)
 */
struct cxlt_region {
	struct kref ref;
	struct work_struct put_work;	/* cxlt_region_put_async() */
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
	atomic_long_t span_chunks;
	atomic_long_t resident;
	atomic_long_t fenced;
	atomic_t nr_maps;
	atomic_t nr_files;
	struct cxlt_region_mig {
		atomic64_t promoted;
		atomic64_t demoted;
		atomic64_t pingpong;
		atomic64_t skipped_pinned;
		atomic64_t failed;
		atomic64_t moved_bytes;
		atomic64_t sampled;
		atomic64_t accessed;
	} mig;
	struct cxlt_pool *pool;
	const struct cxlt_store_ops *store;
	struct list_head pool_link;
	u32 pool_entry;
	u64 pool_offset;
	u64 pool_alloc;
	u8 pool_uuid[16];
	u32 pool_inc;
	bool pool_freed;
	bool pool_unlisted;
	bool lost;
	unsigned int nr_inode_users;
	unsigned long reclaim_pos;	/* reclaim.c: where its next scan starts; a hint (racy) */
};

#endif /* _CXLT_REGION_TYPES_H */
