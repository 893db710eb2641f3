/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcxltier: userspace access to the cxltier tiered CXL memory module.
 *
 * Conventions, shared by every function below:
 *  - Objects are opaque.  A context (struct cxltier_ctx) owns a snapshot of
 *    the module's sysfs tree (Documentation/ABI/testing/sysfs-kernel-cxltier)
 *    joined with the CXL topology as libcxl and libdaxctl report it and the
 *    NUMA nodes as libnuma reports them; blades, CXL regions, tiers and nodes
 *    belong to that snapshot.
 *  - Functions that can fail return 0 or a negative errno; the context then
 *    holds a one-line reason naming the file and value at fault, see
 *    cxltier_get_last_error().  Out-parameters come last.
 *  - Pointers to blades, CXL regions and their strings stay valid until the
 *    next successful cxltier_refresh() or until the context is released.
 *  - A context may be used by one thread at a time; separate contexts are
 *    independent.
 *
 * The sysfs root is /sys/kernel/cxltier unless the environment variable
 * CXLTIER_SYSFS names another directory (tests point it at a fake tree).
 * libcxl, libdaxctl and libnuma take no such root: they always read /sys.
 */
#ifndef CXLTIER_H
#define CXLTIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sysfs layout version (abi_version) this library understands. */
#define CXLTIER_SYSFS_ABI_VERSION 2

/* Default sysfs root and the environment variable that overrides it. */
#define CXLTIER_SYSFS_ROOT "/sys/kernel/cxltier"
#define CXLTIER_SYSFS_ENV "CXLTIER_SYSFS"

struct cxltier_ctx;
struct cxltier_blade;
struct cxltier_cxl_region;

/* Blade (CXL memdev) state; values are ABI, new ones are only ever appended. */
enum cxltier_blade_state {
	CXLTIER_BLADE_STATE_UNKNOWN = 0,        /* text this library does not know */
	CXLTIER_BLADE_STATE_ONLINE = 1,         /* bound to cxl_mem, in service */
	CXLTIER_BLADE_STATE_OFFLINE = 2,        /* not bound */
	CXLTIER_BLADE_STATE_DRAINING = 3,       /* its pages are being moved off (drain) */
	CXLTIER_BLADE_STATE_OUT_OF_SERVICE = 4, /* drained: nothing is placed on it */
	CXLTIER_BLADE_STATE_FENCED = 5,         /* fenced: its pages are lost, access SIGBUS */
};

/* CXL region mode. */
enum cxltier_cxl_region_mode {
	CXLTIER_CXL_REGION_MODE_UNKNOWN = 0,
	CXLTIER_CXL_REGION_MODE_RAM = 1,
	CXLTIER_CXL_REGION_MODE_PMEM = 2,
};

/* CXL region state. */
enum cxltier_cxl_region_state {
	CXLTIER_CXL_REGION_STATE_UNKNOWN = 0,
	CXLTIER_CXL_REGION_STATE_UNCOMMITTED = 1, /* decoders not committed */
	CXLTIER_CXL_REGION_STATE_COMMITTED = 2,   /* committed, no driver on it */
	CXLTIER_CXL_REGION_STATE_DAX = 3,         /* held by device_dax */
	CXLTIER_CXL_REGION_STATE_SYSTEM_RAM = 4,  /* onlined as System RAM by kmem */
	CXLTIER_CXL_REGION_STATE_TIER = 5,        /* registered with cxltier as a tier */
};

/* --- Context ------------------------------------------------------------- */

/*
 * Create a context and take a first snapshot of the module's sysfs tree.
 * Returns 0 and sets *ctx, or a negative errno and sets *ctx to NULL:
 *   -ENOENT           the sysfs root is missing (module not loaded)
 *   -EPROTONOSUPPORT  abi_version is not CXLTIER_SYSFS_ABI_VERSION
 *   -EBADMSG          a file is missing or holds a malformed value
 *   -ENOMEM, or the errno of a failed read (e.g. -EACCES)
 * On failure cxltier_get_last_error(NULL) gives the reason.
 */
int cxltier_new(struct cxltier_ctx **ctx);

/* Take another reference; returns @ctx. */
struct cxltier_ctx *cxltier_ref(struct cxltier_ctx *ctx);

/* Drop a reference; the last one frees the context.  NULL is ignored. */
void cxltier_unref(struct cxltier_ctx *ctx);

/*
 * Re-read the sysfs tree.  Returns 0 or a negative errno as cxltier_new().
 * On failure the previous snapshot, and every pointer into it, stays valid.
 */
int cxltier_refresh(struct cxltier_ctx *ctx);

/* The sysfs root directory this context reads. */
const char *cxltier_get_sysfs_root(const struct cxltier_ctx *ctx);

/* abi_version of the snapshot (CXLTIER_SYSFS_ABI_VERSION). */
unsigned int cxltier_get_abi_version(const struct cxltier_ctx *ctx);

/*
 * Static description of a negative errno returned by this library (the sign
 * is ignored).  Never NULL; thread-safe.
 */
const char *cxltier_strerror(int err);

/*
 * One-line reason for the last failure on @ctx, naming the file and value at
 * fault ("" if nothing has failed); like errno, only meaningful right after a
 * call failed.  With @ctx NULL: why the calling thread's last cxltier_new()
 * failed.  Valid until the next failure on the same context (or thread).
 */
const char *cxltier_get_last_error(const struct cxltier_ctx *ctx);

/* --- Blades (CXL memory devices), in memdev number order ------------------ */

/*
 * The blades are the module's (blades/<memdev>/), so a fenced blade whose memdev
 * went away is still listed.  Its state and counters are the module's; serial,
 * sizes, PCI device and CXL regions are the memdev's as libcxl reports it, and
 * read 0, 0, 0, "" and none when the CXL core no longer has the memdev (or
 * the device reports no serial).
 */
struct cxltier_blade *cxltier_blade_get_first(struct cxltier_ctx *ctx);
struct cxltier_blade *cxltier_blade_get_next(struct cxltier_blade *blade);
struct cxltier_blade *cxltier_blade_get_by_name(struct cxltier_ctx *ctx, const char *name);
struct cxltier_ctx *cxltier_blade_get_ctx(const struct cxltier_blade *blade);

const char *cxltier_blade_get_name(const struct cxltier_blade *blade);  /* "mem0" */
uint64_t cxltier_blade_get_serial(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_ram_size(const struct cxltier_blade *blade);  /* bytes */
uint64_t cxltier_blade_get_pmem_size(const struct cxltier_blade *blade); /* bytes */
const char *cxltier_blade_get_pci_dev(const struct cxltier_blade *blade); /* "0000:0d:00.0" */
enum cxltier_blade_state cxltier_blade_get_state(const struct cxltier_blade *blade);

/*
 * Names of the CXL regions that have @blade as a target, in region number
 * order, as a NULL-terminated array; *count (if @count is not NULL) gets their
 * number.
 */
const char *const *cxltier_blade_get_cxl_regions(const struct cxltier_blade *blade,
						  size_t *count);

/* "online", "offline", "draining", "out-of-service", "fenced" or "unknown". */
const char *cxltier_blade_state_name(enum cxltier_blade_state state);

/*
 * Fencing and draining counters of @blade as of the snapshot (files of
 * blades/<memdev>/).  A module older than blade drain has none of them: they read
 * 0 and cxltier_blade_has_recovery_counters() tells that apart.
 *   fenced_pages    pages fenced on the blade (global region pages and system RAM)
 *   fence_us        microseconds from the fence's trigger to its last page, 0 if
 *                   never fenced
 *   drained_pages   pages moved off the blade by the last (or current) drain
 *   drain_left      pages still on the blade while it drains, else 0
 *   drain_us        how long the last drain took, microseconds
 *   poisoned_pages  poisoned addresses the device reported
 */
uint64_t cxltier_blade_get_fenced_pages(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_fence_us(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_drained_pages(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_drain_left(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_drain_us(const struct cxltier_blade *blade);
uint64_t cxltier_blade_get_poisoned_pages(const struct cxltier_blade *blade);
/* 1 when the module reports the counters above for @blade, 0 when it predates them. */
int cxltier_blade_has_recovery_counters(const struct cxltier_blade *blade);

/*
 * Take a blade out of service and back (needs root).  @blade is a memdev name
 * ("mem0"); the snapshot is not refreshed (cxltier_refresh() shows the new
 * state).  0, or a negative errno with a one-line reason in
 * cxltier_get_last_error(@ctx):
 *   -EINVAL  bad name (empty, blanks or control characters, 32 bytes or more)
 *   -ENOENT  no such blade, or no tier has memory on it; also: module not loaded
 *   -EOPNOTSUPP  the module has no such operation (it predates it)
 *   -EACCES, -EPERM  needs root
 *
 * cxltier_blade_fence(): from now on nothing is placed on the blade and every
 * page with data on it is fenced: its data is gone and its next access is SIGBUS
 * (see cxltier_fence_handler_install()).  For a blade that failed.
 *   -EALREADY  fenced already
 *
 * cxltier_blade_drain(): moves every page off the blade, then takes it out of
 * service; returns when it is done (minutes for a large blade: call it from a
 * thread of its own to watch cxltier_blade_get_drain_left() meanwhile, with a
 * context of its own).  For a blade about to be removed; nothing is lost.
 *   -EALREADY  out of service already;  -EBUSY  a drain of it is running
 *   -EIO       the blade is fenced (there is nothing left to move)
 *   -ENOSPC    the rest of the pool has no room for its pages (nothing changed)
 *   -EINTR     a signal interrupted it: the blade is online again; the pages
 *              moved stay where they went
 *
 * cxltier_blade_restore(): back in service after a drain or a fence.
 *   -EALREADY  in service already (online)
 *   -EBUSY     fenced, and a tier still has memory on it: remove the tier first
 */
int cxltier_blade_fence(struct cxltier_ctx *ctx, const char *blade);
int cxltier_blade_drain(struct cxltier_ctx *ctx, const char *blade);
int cxltier_blade_restore(struct cxltier_ctx *ctx, const char *blade);

#define for_each_cxltier_blade(ctx, blade)                                     \
	for ((blade) = cxltier_blade_get_first(ctx); (blade);                  \
	     (blade) = cxltier_blade_get_next(blade))

/* --- CXL regions, in region number order ---------------------------------- */

/*
 * Every region libcxl finds under the CXL root decoders, whether cxltier uses it
 * or not.  The mode is that of the region's endpoint decoders (or, before any
 * target is attached, of a root decoder that takes only one kind of memory).
 */
struct cxltier_cxl_region *cxltier_cxl_region_get_first(struct cxltier_ctx *ctx);
struct cxltier_cxl_region *cxltier_cxl_region_get_next(struct cxltier_cxl_region *region);
struct cxltier_cxl_region *cxltier_cxl_region_get_by_name(struct cxltier_ctx *ctx,
							  const char *name);
struct cxltier_ctx *cxltier_cxl_region_get_ctx(const struct cxltier_cxl_region *region);

const char *cxltier_cxl_region_get_name(const struct cxltier_cxl_region *region);
enum cxltier_cxl_region_mode cxltier_cxl_region_get_mode(const struct cxltier_cxl_region *region);
/* Host physical address range; both 0 until the region has one. */
uint64_t cxltier_cxl_region_get_start(const struct cxltier_cxl_region *region);
uint64_t cxltier_cxl_region_get_size(const struct cxltier_cxl_region *region);
unsigned int cxltier_cxl_region_get_interleave_ways(const struct cxltier_cxl_region *region);
/* Bytes. */
unsigned int cxltier_cxl_region_get_interleave_granularity(const struct cxltier_cxl_region *region);
/* Target blade names in interleave position order, NULL-terminated; see above. */
const char *const *cxltier_cxl_region_get_blades(const struct cxltier_cxl_region *region,
						  size_t *count);
/*
 * NUMA node of the region's memory: a tier's node (cxltier_tier_get_node()),
 * else the target node of the region's device-dax instance (libdaxctl), else
 * -1.  (Before sysfs ABI version 2 the module also named the node of a
 * committed region without a dax device; that is now -1.)
 */
int cxltier_cxl_region_get_numa_node(const struct cxltier_cxl_region *region);
enum cxltier_cxl_region_state cxltier_cxl_region_get_state(const struct cxltier_cxl_region *region);

/* "ram", "pmem" or "unknown". */
const char *cxltier_cxl_region_mode_name(enum cxltier_cxl_region_mode mode);
/* "uncommitted", "committed", "dax", "system-ram", "tier" or "unknown". */
const char *cxltier_cxl_region_state_name(enum cxltier_cxl_region_state state);

#define for_each_cxltier_cxl_region(ctx, region)                               \
	for ((region) = cxltier_cxl_region_get_first(ctx); (region);           \
	     (region) = cxltier_cxl_region_get_next(region))

/* --- Tiers: CXL RAM regions registered as NUMA nodes ----------------------- */

/*
 * A tier is a CXL RAM region the module registered as a CPU-less NUMA node in a
 * lower memory tier (tiers/<region>/ in the module's sysfs tree).  The NUMA nodes
 * themselves come from libnuma (which nodes, capacity, CPUs), and what libnuma
 * does not offer (memory tier, access coordinates, interleave weight) from the
 * kernel's standard sysfs, /sys unless the environment variable
 * CXLTIER_SYS_ROOT names another directory (tests point it at a fake tree); they
 * belong to the same snapshot and follow the same lifetime rules as blades.
 */
#define CXLTIER_SYS_ROOT "/sys"
#define CXLTIER_SYS_ENV "CXLTIER_SYS_ROOT"

/* Abstract distances accepted by cxltier_tier_add(); memory_tier<N> holds N*128..N*128+127. */
#define CXLTIER_ADISTANCE_MAX 36864
#define CXLTIER_ADISTANCE_PER_MEMORY_TIER 128

struct cxltier_tier;
struct cxltier_node;

/* Where a tier's abstract distance came from (tiers/<region>/adistance_source). */
enum cxltier_adistance_source {
	CXLTIER_ADISTANCE_SOURCE_UNKNOWN = 0,  /* text this library does not know */
	CXLTIER_ADISTANCE_SOURCE_OVERRIDE = 1, /* adistance= given at registration */
	CXLTIER_ADISTANCE_SOURCE_CDAT = 2,     /* the region's CDAT/HMAT access coordinates */
	CXLTIER_ADISTANCE_SOURCE_PLATFORM = 3, /* a platform adistance algorithm */
	CXLTIER_ADISTANCE_SOURCE_DEFAULT = 4,  /* no performance data: 5x DRAM's, as kmem */
};

/* Tiers, in region number order. */
struct cxltier_tier *cxltier_tier_get_first(struct cxltier_ctx *ctx);
struct cxltier_tier *cxltier_tier_get_next(struct cxltier_tier *tier);
/* By CXL region name ("region0"). */
struct cxltier_tier *cxltier_tier_get_by_name(struct cxltier_ctx *ctx, const char *name);
struct cxltier_ctx *cxltier_tier_get_ctx(const struct cxltier_tier *tier);

/* The CXL region's name, "region0". */
const char *cxltier_tier_get_name(const struct cxltier_tier *tier);
/* The NUMA node of the tier's memory. */
int cxltier_tier_get_node(const struct cxltier_tier *tier);
int cxltier_tier_get_adistance(const struct cxltier_tier *tier);
enum cxltier_adistance_source cxltier_tier_get_adistance_source(const struct cxltier_tier *tier);
/*
 * Physical address range, bytes: the CXL region's (libcxl); 0 and 0 when the CXL
 * core no longer has the region.
 */
uint64_t cxltier_tier_get_start(const struct cxltier_tier *tier);
uint64_t cxltier_tier_get_size(const struct cxltier_tier *tier);
/*
 * Blade names in interleave position order (the CXL region's targets),
 * NULL-terminated; see the blades above.  Without the CXL region: the blades
 * whose module state lists the tier, in name order.
 */
const char *const *cxltier_tier_get_blades(const struct cxltier_tier *tier, size_t *count);

/* "override", "cdat", "platform", "default" or "unknown". */
const char *cxltier_adistance_source_name(enum cxltier_adistance_source source);

/*
 * Register the committed CXL RAM region @region as a tier (writes "<region>" or
 * "<region> adistance=N" to tier_add); @adistance 0 lets the module choose,
 * otherwise 1..CXLTIER_ADISTANCE_MAX.  Returns when the memory is online (seconds
 * for a large region): 0, or a negative errno with a one-line reason, saying what
 * to do where there is a fix, in cxltier_get_last_error():
 *   -EINVAL   bad name (empty, whitespace, 32 bytes or more) or adistance, or the
 *             module refused the region (not ram, not aligned to memory blocks)
 *   -ENOENT   no such CXL region;  -EEXIST  already a tier
 *   -ENXIO    not committed;  -ENODEV  no NUMA node for its range
 *   -EBUSY    held by device_dax or kmem, or its range is claimed by another driver
 *   -EACCES, -EPERM  needs root;  -EOPNOTSUPP  the module has no tier_add
 * The snapshot is not refreshed: call cxltier_refresh() to see the new tier.
 */
int cxltier_tier_add(struct cxltier_ctx *ctx, const char *region, int adistance);

/*
 * Offline and remove the tier of @region (writes it to tier_remove); the kernel
 * migrates its pages to other nodes first.  0 or a negative errno and a reason:
 *   -ENOENT  not a tier;  -EBUSY  some page could not be moved (the tier stays
 *   online, nothing was lost);  -EINTR  interrupted by a signal (nothing removed);
 *   -EINVAL  bad name;  -EACCES, -EPERM  needs root
 */
int cxltier_tier_remove(struct cxltier_ctx *ctx, const char *region);

#define for_each_cxltier_tier(ctx, tier)                                       \
	for ((tier) = cxltier_tier_get_first(ctx); (tier);                     \
	     (tier) = cxltier_tier_get_next(tier))

/*
 * The standard sysfs root this context reads memory tiers, node bandwidths and
 * interleave weights from ("/sys"); libnuma always reads /sys.
 */
const char *cxltier_get_sys_root(const struct cxltier_ctx *ctx);

/*
 * Online NUMA nodes (DRAM and tiers alike), in node id order: libnuma's, and the
 * node of every tier (libnuma learns its nodes once, when the process starts).
 */
struct cxltier_node *cxltier_node_get_first(struct cxltier_ctx *ctx);
struct cxltier_node *cxltier_node_get_next(struct cxltier_node *node);
struct cxltier_node *cxltier_node_get_by_id(struct cxltier_ctx *ctx, int id);
struct cxltier_ctx *cxltier_node_get_ctx(const struct cxltier_node *node);

int cxltier_node_get_id(const struct cxltier_node *node);
/* N of the memory_tier<N> the node is in; -1 when in none (no memory, or no tiering). */
int cxltier_node_get_memory_tier(const struct cxltier_node *node);
/* Total and free memory of the node (libnuma's numa_node_size64()), bytes. */
uint64_t cxltier_node_get_mem_total(const struct cxltier_node *node);
uint64_t cxltier_node_get_mem_free(const struct cxltier_node *node);
/* CPUs on the node; 0 for a tier and any other CPU-less node. */
unsigned int cxltier_node_get_nr_cpus(const struct cxltier_node *node);
/*
 * Read bandwidth from the node's nearest initiators in MB/s, as firmware reports
 * it (access0/initiators/read_bandwidth, from HMAT or CDAT); 0 when not reported.
 */
unsigned int cxltier_node_get_read_bandwidth(const struct cxltier_node *node);
/* Weighted-interleave weight (1..255); 0 when the kernel has no weighted interleave. */
unsigned int cxltier_node_get_weight(const struct cxltier_node *node);

/*
 * Set the weighted-interleave weight of NUMA node @node (1..255), written to
 * /sys/kernel/mm/mempolicy/weighted_interleave/node<N>.  0 or a negative errno:
 * -EINVAL bad weight or node; -ENOENT the kernel has no weighted interleave, or no
 * such node; -EACCES, -EPERM needs root.  Does not refresh the snapshot.
 */
int cxltier_node_set_weight(struct cxltier_ctx *ctx, int node, unsigned int weight);

/*
 * Weighted-interleave weights proportional to the @nr bandwidths (any unit):
 * integers in 1..255, the smallest as small as possible while every ratio
 * matches within 2% (or as closely as 255 allows), with no common divisor, so
 * equal bandwidths all get 1.  A bandwidth of 0 means unknown and gets weight 0
 * (leave that node's weight alone).  Returns 0, or -EINVAL when @nr is 0 or an
 * array is NULL.  Pure: no context, no I/O, thread-safe.
 */
int cxltier_interleave_weights(size_t nr, const uint64_t *bandwidth, unsigned int *weights);

#define for_each_cxltier_node(ctx, node)                                       \
	for ((node) = cxltier_node_get_first(ctx); (node);                     \
	     (node) = cxltier_node_get_next(node))

/* --- Job placement: the NUMA nodes a job's memory goes to ------------------ */

/*
 * A job that does not use this library (its heap is anonymous memory) is placed
 * by the NUMA memory policy it starts with: cxltier_placement_plan() picks the
 * nodes that have room for it now, and cxltier_placement_apply() sets the
 * policy in the process that is about to exec the job.  `cxltierctl run` does
 * both; a scheduler placing jobs does the same.
 *
 * Nodes are of two kinds.  DRAM: a node with memory that is not a tier and has
 * CPUs, or is CPU-less in a memory tier no slower than that of a node with CPUs
 * (memory-only DRAM, HBM).  CXL: the node of one of cxltier's tiers, unless the
 * tier is not usable: fenced, or a blade under it is not online (fenced,
 * draining, out of service, unbound), since nothing new should go there.  The
 * plan lists every node it left out with the reason (unusable tiers, nodes
 * without free memory, CPU-less memory that is not a tier, such as a CXL region
 * onlined by kmem).  The room on a node is its free memory in the context's
 * snapshot (cxltier_node_get_mem_free(); cxltier_refresh() first for a fresh
 * figure): other processes may take some meanwhile, and the kernel keeps some
 * back (its watermarks), so a plan that just fits may still spill over.
 */
enum cxltier_placement_policy {
	/*
	 * MPOL_PREFERRED_MANY over the plan's DRAM nodes: pages go there while
	 * they have room, then where the kernel falls back to (nearest first, so
	 * the tiers once DRAM is full).  With no fast part, over the CXL nodes.
	 */
	CXLTIER_PLACEMENT_PREFERRED = 0,
	/* MPOL_INTERLEAVE: page by page, round-robin over the plan's nodes. */
	CXLTIER_PLACEMENT_INTERLEAVE = 1,
	/*
	 * MPOL_WEIGHTED_INTERLEAVE (Linux 6.9): round-robin, each node taking
	 * its weight in pages at a time, weights in proportion to read bandwidth.
	 */
	CXLTIER_PLACEMENT_WEIGHTED = 2,
};

/* The kind of memory a node has. */
enum cxltier_memory_kind {
	CXLTIER_MEMORY_UNKNOWN = 0, /* neither: CPU-less memory that is not a tier */
	CXLTIER_MEMORY_DRAM = 1,
	CXLTIER_MEMORY_CXL = 2,	    /* a tier's node */
};

/*
 * The kind of memory on @node as the planner sees it (above): CXL for a tier's
 * node, usable or not; DRAM; UNKNOWN for other CPU-less memory and for a node
 * without memory.
 */
enum cxltier_memory_kind cxltier_node_get_kind(const struct cxltier_node *node);

/* Where a plan's interleave weights come from. */
enum cxltier_placement_weights {
	CXLTIER_PLACEMENT_WEIGHTS_NONE = 0,	 /* preferred: no interleave */
	CXLTIER_PLACEMENT_WEIGHTS_EQUAL = 1,	 /* interleave: 1 for every node */
	/* weighted: cxltier_interleave_weights() of the nodes' read bandwidths */
	CXLTIER_PLACEMENT_WEIGHTS_BANDWIDTH = 2,
	/*
	 * weighted, but a node reports no read bandwidth: the weights the kernel
	 * has now (1 for every node unless an administrator set them, e.g. with
	 * cxltierctl tier weights --set); cxltier_placement_get_note() says so.
	 */
	CXLTIER_PLACEMENT_WEIGHTS_KERNEL = 3,
};

struct cxltier_placement; /* a plan */

/*
 * Plan where a job goes that has @fast_bytes of memory that wants DRAM and
 * @slow_bytes that may live on CXL, under @policy.  @flags: 0.  *@placement gets
 * the plan, to free with cxltier_placement_free().
 *
 * PREFERRED: the DRAM nodes must have @fast_bytes free between them, and the
 * CXL nodes @slow_bytes.  The plan has every DRAM node with free memory when
 * @fast_bytes is not 0 and every CXL node with free memory when @slow_bytes is
 * not 0; the bytes of each node are an estimate, filled from the node with the
 * most free memory on (the kernel picks among the preferred nodes the nearest
 * to the CPU that allocates).
 *
 * INTERLEAVE, WEIGHTED: the total, @fast_bytes + @slow_bytes, is spread over
 * the DRAM nodes (when @fast_bytes is not 0) and the CXL nodes (when
 * @slow_bytes is not 0) in proportion to their weights, so the split between
 * DRAM and CXL follows the weights, not the two sizes.  Each node must have
 * room for its share: one that has not is left out (listed as skipped) and the
 * shares are computed again, as long as each kind of memory asked for keeps a
 * node.
 *
 * 0, or a negative errno with the reason in cxltier_get_last_error(@ctx):
 *   -ENOSPC  it does not fit; the reason says how much is missing where, e.g.
 *            "cannot place slow 4 GiB: CXL is 3.0 GiB short (1000 MiB free on
 *            node 2; region1 on node 3 skipped: blade mem4 is fenced)"
 *   -EINVAL  both sizes 0, an unknown policy or flags, @ctx or @placement NULL
 */
int cxltier_placement_plan(struct cxltier_ctx *ctx, uint64_t fast_bytes, uint64_t slow_bytes,
			   enum cxltier_placement_policy policy, unsigned int flags,
			   struct cxltier_placement **placement);
/* NULL is ignored. */
void cxltier_placement_free(struct cxltier_placement *placement);

enum cxltier_placement_policy cxltier_placement_get_policy(const struct cxltier_placement *p);
uint64_t cxltier_placement_get_fast_bytes(const struct cxltier_placement *p);
uint64_t cxltier_placement_get_slow_bytes(const struct cxltier_placement *p);
enum cxltier_placement_weights cxltier_placement_get_weights(const struct cxltier_placement *p);
/* One line on a choice made for want of data ("" when none), e.g. about the weights. */
const char *cxltier_placement_get_note(const struct cxltier_placement *p);

/*
 * The plan's nodes, in id order.  Node @i (-1, UNKNOWN, "" or 0 past the end):
 *   node       its id
 *   kind       DRAM or CXL
 *   tier       the tier's CXL region name for a CXL node, "" for DRAM
 *   free       its free memory when planned, bytes
 *   bytes      the job's memory planned on it, bytes (see above)
 *   bandwidth  its reported read bandwidth, MB/s; 0 when not reported
 *   weight     its interleave weight (1..255); 0 for PREFERRED
 */
size_t cxltier_placement_get_nr_nodes(const struct cxltier_placement *p);
int cxltier_placement_get_node(const struct cxltier_placement *p, size_t i);
enum cxltier_memory_kind cxltier_placement_get_node_kind(const struct cxltier_placement *p,
							 size_t i);
const char *cxltier_placement_get_node_tier(const struct cxltier_placement *p, size_t i);
uint64_t cxltier_placement_get_node_free(const struct cxltier_placement *p, size_t i);
uint64_t cxltier_placement_get_node_bytes(const struct cxltier_placement *p, size_t i);
unsigned int cxltier_placement_get_node_bandwidth(const struct cxltier_placement *p, size_t i);
unsigned int cxltier_placement_get_node_weight(const struct cxltier_placement *p, size_t i);

/*
 * Nodes left out, in id order: node id, the tier's name ("" for a node that is
 * no tier) and why ("blade mem4 is fenced", "no free memory", ...).  -1 and ""
 * past the end.
 */
size_t cxltier_placement_get_nr_skipped(const struct cxltier_placement *p);
int cxltier_placement_get_skipped_node(const struct cxltier_placement *p, size_t i);
const char *cxltier_placement_get_skipped_tier(const struct cxltier_placement *p, size_t i);
const char *cxltier_placement_get_skipped_reason(const struct cxltier_placement *p, size_t i);

/*
 * Set the calling thread's memory policy to @p's with set_mempolicy(2) (libnuma's
 * wrapper): meant for the process about to exec the job, between fork() and
 * execve(), since children inherit the policy and execve() keeps it; other
 * threads of the caller keep theirs.  For WEIGHTED, the kernel's interleave
 * weights of the plan's nodes are written first
 * (/sys/kernel/mm/mempolicy/weighted_interleave/node<N>, under the context's
 * standard sysfs root, see CXLTIER_SYS_ENV) unless they are already in the
 * plan's proportions; those weights are shared by every process that uses
 * weighted interleave.  @flags: 0.  0, or a negative errno with the reason in
 * cxltier_get_last_error(@ctx):
 *   -EACCES, -EPERM  the weights need writing, which needs root; or
 *                    set_mempolicy is not permitted here (a seccomp filter)
 *   -EOPNOTSUPP  the kernel has no weighted interleave (Linux 6.9)
 *   -EINVAL  the kernel refused the policy: none of the plan's nodes is in the
 *            caller's cpuset (or, for PREFERRED, the kernel predates
 *            MPOL_PREFERRED_MANY, Linux 5.15); bad flags; @ctx or @p NULL
 */
int cxltier_placement_apply(struct cxltier_ctx *ctx, const struct cxltier_placement *p,
			    unsigned int flags);

/* "preferred", "interleave", "weighted", or "unknown". */
const char *cxltier_placement_policy_name(enum cxltier_placement_policy policy);
/* The policy named @name (as above); -EINVAL when none is. */
int cxltier_placement_policy_from_name(const char *name, enum cxltier_placement_policy *policy);
/* "dram", "cxl", or "unknown". */
const char *cxltier_memory_kind_name(enum cxltier_memory_kind kind);
/* "none", "equal", "bandwidth", "kernel", or "unknown". */
const char *cxltier_placement_weights_name(enum cxltier_placement_weights weights);

/* --- Global regions (/dev/cxltier) ---------------------------------------- */

/*
 * A global region is named memory that the module places on tiers page by page
 * and that any permitted process maps; see Documentation/ABI/testing/dev-cxltier.
 * These functions talk to /dev/cxltier, or to the file the environment variable
 * CXLTIER_DEV names (tests); the context only holds the last error, so they work
 * whatever the sysfs snapshot says.  Errors are negative errnos with a one-line
 * reason in cxltier_get_last_error(ctx):
 *   -EINVAL  bad argument (checked here first: name of 1..63 printable ASCII bytes
 *            without '/' or blanks; size a nonzero multiple of the page size up to
 *            CXLTIER_REGION_SIZE_MAX; mode at most 0777; nodes 0..1023)
 *   -ENOENT  no such region, or no /dev/cxltier (cxltier.ko not loaded)
 *   -EEXIST  the name is taken;  -EACCES  the region's mode denies the access
 *   -EPERM   only the owner or CAP_SYS_ADMIN may destroy or change the policy
 *   -EFBIG   larger than the module's max_region_gb;  -ENOSPC  no free region id
 *   -EPROTONOSUPPORT  the module speaks another ioctl ABI version
 * Regions, infos and lists are used by one thread at a time, as their context.
 */
#define CXLTIER_DEV_PATH "/dev/cxltier"
#define CXLTIER_DEV_ENV "CXLTIER_DEV"

/* Bytes of a region name, without the terminating NUL. */
#define CXLTIER_REGION_NAME_MAX 63
/* Largest region a handle can address: 2^48 bytes. */
#define CXLTIER_REGION_SIZE_MAX (UINT64_C(1) << 48)

/* Where first-touched pages go; values are ABI (the module's CXLTIER_POLICY_*). */
enum cxltier_region_policy {
	CXLTIER_REGION_POLICY_FAST_FIRST = 0,  /* DRAM within the module's budget, then CXL */
	CXLTIER_REGION_POLICY_SLOW_ONLY = 1,   /* CXL only, one node after the other */
	CXLTIER_REGION_POLICY_INTERLEAVE = 2,  /* CXL only, page by page over the nodes */
	CXLTIER_REGION_POLICY_PINNED_FAST = 3, /* DRAM only; SIGBUS past the budget */
};

/* Access asked for by cxltier_region_open(): READ or RDWR (mapping needs read). */
#define CXLTIER_REGION_READ 1
#define CXLTIER_REGION_WRITE 2
#define CXLTIER_REGION_RDWR (CXLTIER_REGION_READ | CXLTIER_REGION_WRITE)

struct cxltier_region;      /* an open region, mapped or not */
struct cxltier_region_info; /* a snapshot of one region's state (stat) */
struct cxltier_region_list; /* a snapshot of the regions that exist */

/*
 * Create region @name of @size bytes.  @mode: permission bits, 0 for 0600.
 * @nodes/@nr_nodes: the NUMA nodes pages may go to, NULL/0 for any.  *@id (if
 * not NULL) gets the region id.  The region belongs to nobody: it stays until
 * cxltier_region_destroy().
 */
int cxltier_region_create(struct cxltier_ctx *ctx, const char *name, uint64_t size,
			  enum cxltier_region_policy policy, unsigned int mode,
			  const int *nodes, size_t nr_nodes, uint32_t *id);

/*
 * Destroy region @name: the name is free at once, the memory goes when the last
 * process unmaps and closes it.  Owner or CAP_SYS_ADMIN.
 */
int cxltier_region_destroy(struct cxltier_ctx *ctx, const char *name);

/* Change where pages touched from now on go (pages in place stay).  Owner only. */
int cxltier_region_set_policy(struct cxltier_ctx *ctx, const char *name,
			      enum cxltier_region_policy policy, const int *nodes,
			      size_t nr_nodes);

/*
 * Open region @name (or the region with id @id) for @access (CXLTIER_REGION_READ,
 * _WRITE or _RDWR), checked against the region's mode like a file's.  The region
 * object keeps a reference on @ctx, where its own errors go.
 */
int cxltier_region_open(struct cxltier_ctx *ctx, const char *name, int access,
			struct cxltier_region **region);
int cxltier_region_open_id(struct cxltier_ctx *ctx, uint32_t id, int access,
			   struct cxltier_region **region);

/* Unmap (see cxltier_region_unmap()) and close.  NULL is ignored. */
void cxltier_region_close(struct cxltier_region *region);

/*
 * Map the whole region MAP_SHARED, readable, and writable when opened for writing;
 * *@addr gets the address.  A mapped region returns its address again.  Pages are
 * allocated at first touch; a touch the module cannot place gets SIGBUS.
 */
int cxltier_region_map(struct cxltier_region *region, void **addr);

/* Unmap; pointers into the region become invalid.  0 when it was not mapped. */
int cxltier_region_unmap(struct cxltier_region *region);

uint32_t cxltier_region_get_id(const struct cxltier_region *region);
const char *cxltier_region_get_name(const struct cxltier_region *region);
uint64_t cxltier_region_get_size(const struct cxltier_region *region);
/* The mapping, NULL when not mapped. */
void *cxltier_region_get_addr(const struct cxltier_region *region);
/* The region file descriptor, for a mapping of one's own (any page-aligned range). */
int cxltier_region_get_fd(const struct cxltier_region *region);

/* "fast-first", "slow-only", "interleave", "pinned-fast", or "unknown". */
const char *cxltier_region_policy_name(enum cxltier_region_policy policy);
/* The policy named @name (as above); -EINVAL when none is. */
int cxltier_region_policy_from_name(const char *name, enum cxltier_region_policy *policy);

/*
 * A snapshot of region @name, or of an open region (which also works once it has
 * been destroyed).  Free it with cxltier_region_info_free().
 */
int cxltier_region_stat(struct cxltier_ctx *ctx, const char *name,
			struct cxltier_region_info **info);
int cxltier_region_stat_open(struct cxltier_region *region, struct cxltier_region_info **info);
void cxltier_region_info_free(struct cxltier_region_info *info);

uint32_t cxltier_region_info_get_id(const struct cxltier_region_info *info);
const char *cxltier_region_info_get_name(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_size(const struct cxltier_region_info *info);
enum cxltier_region_policy cxltier_region_info_get_policy(const struct cxltier_region_info *info);
unsigned int cxltier_region_info_get_mode(const struct cxltier_region_info *info);
uint32_t cxltier_region_info_get_uid(const struct cxltier_region_info *info);
uint32_t cxltier_region_info_get_gid(const struct cxltier_region_info *info);
/* Destroyed, but still mapped or open somewhere. */
int cxltier_region_info_is_destroyed(const struct cxltier_region_info *info);
/* Pages allocated, on DRAM, and fenced (lost with a failed blade). */
uint64_t cxltier_region_info_get_resident(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_fast(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_fenced(const struct cxltier_region_info *info);
/* Mappings (VMAs) and open region files, in all processes. */
unsigned int cxltier_region_info_get_maps(const struct cxltier_region_info *info);
unsigned int cxltier_region_info_get_files(const struct cxltier_region_info *info);
/* The nodes the policy may use, in node order; none means any. */
const int *cxltier_region_info_get_allowed_nodes(const struct cxltier_region_info *info,
						 size_t *count);
/*
 * Migration counters of the region since it was created (the daemon, hints and
 * the kernel's own moves of its pages).  A module without the migration daemon
 * leaves them 0.
 *   promoted, demoted  pages moved to the fast tier, to a slow tier
 *   pingpong           moves that undid a recent one of the same page
 *   skipped_pinned     moves skipped: the page was pinned (O_DIRECT, io_uring, RDMA)
 *   failed             moves that failed (no memory on the target, poison)
 *   moved_bytes        bytes copied by moves
 *   sampled, accessed  the daemon's page observations, and those that found the
 *                      page accessed (accessed / sampled is how hot the region is)
 *   hinted             pages that have a hint now (cxltier_region_set_hint())
 */
uint64_t cxltier_region_info_get_promoted(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_demoted(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_pingpong(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_skipped_pinned(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_failed(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_moved_bytes(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_sampled(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_accessed(const struct cxltier_region_info *info);
uint64_t cxltier_region_info_get_hinted(const struct cxltier_region_info *info);
/* Resident pages per node (nodes with pages only, in node order). */
size_t cxltier_region_info_get_nr_nodes(const struct cxltier_region_info *info);
int cxltier_region_info_get_node(const struct cxltier_region_info *info, size_t i,
				 int *node, uint64_t *pages);
/*
 * Resident pages per blade.  A page interleaved over blades at a granularity
 * below the page size counts on each.  -ERANGE past the end.
 */
size_t cxltier_region_info_get_nr_blades(const struct cxltier_region_info *info);
int cxltier_region_info_get_blade(const struct cxltier_region_info *info, size_t i,
				  const char **name, uint64_t *pages);

/* What an application knows about a range; values are ABI (CXLTIER_HINT_*). */
enum cxltier_region_hint {
	CXLTIER_REGION_HINT_NONE = 0, /* forget earlier hints: heat decides */
	CXLTIER_REGION_HINT_HOT = 1,  /* move to the fast tier first; never demoted */
	CXLTIER_REGION_HINT_COLD = 2, /* move to a slow tier first; never promoted */
	CXLTIER_REGION_HINT_PIN = 3,  /* never move, from where it is now */
};

/*
 * Advise the migration daemon about [@offset, @offset + @length) of @region, which
 * must be open for writing: the pages of the range that exist now and those
 * touched later.  The daemon acts on it at its next period.  Errors, with the
 * reason in the region's context:
 *   -EINVAL      unknown hint; offset not a multiple of the page size; length not a
 *                nonzero multiple of it; range not within the region (all checked
 *                here first), or the module refused the range
 *   -EACCES      the region was opened read-only
 *   -EOPNOTSUPP  the module has no migration daemon (no hints)
 */
int cxltier_region_set_hint(struct cxltier_region *region, uint64_t offset, uint64_t length,
			    enum cxltier_region_hint hint);

/* "none", "hot", "cold", "pin", or "unknown". */
const char *cxltier_region_hint_name(enum cxltier_region_hint hint);
/* The hint named @name (as above); -EINVAL when none is. */
int cxltier_region_hint_from_name(const char *name, enum cxltier_region_hint *hint);

/* Values in cxltier_region_get_page_nodes()' output other than a node id. */
#define CXLTIER_REGION_PAGE_NONE (-1)	/* not allocated yet */
#define CXLTIER_REGION_PAGE_FENCED (-2) /* fenced: access gets SIGBUS */

/*
 * Where each of @count pages from @offset (a multiple of the page size, within
 * the region) is now: nodes[i] gets the NUMA node of page i, or
 * CXLTIER_REGION_PAGE_NONE or _FENCED.  The range is cut at the region's end;
 * *@reported gets the number of pages written.  A snapshot: the daemon may move a
 * page right after.  -EINVAL for a bad offset or a NULL array, -EOPNOTSUPP when
 * the module cannot tell (no migration daemon).
 */
int cxltier_region_get_page_nodes(struct cxltier_region *region, uint64_t offset, size_t count,
				  int *nodes, size_t *reported);

/* The regions that exist (not destroyed), in id order. */
int cxltier_region_list_new(struct cxltier_ctx *ctx, struct cxltier_region_list **list);
void cxltier_region_list_free(struct cxltier_region_list *list);
size_t cxltier_region_list_get_count(const struct cxltier_region_list *list);
/* Entry @i; 0, NULL or 0 past the end. */
uint32_t cxltier_region_list_get_id(const struct cxltier_region_list *list, size_t i);
const char *cxltier_region_list_get_name(const struct cxltier_region_list *list, size_t i);
uint64_t cxltier_region_list_get_size(const struct cxltier_region_list *list, size_t i);
enum cxltier_region_policy cxltier_region_list_get_policy(const struct cxltier_region_list *list,
							  size_t i);

/*
 * Persistent regions.  A persistent region lives on a pool (below): persistent CXL
 * memory whose regions, with their names, owners, modes and contents, survive a
 * crash, a reboot and the module's unload.  It is opened, mapped and destroyed like
 * any region; it is never migrated, so policies, hints and page nodes do not apply
 * (-EINVAL).  Its memory is mapped directly: a store is durable once written back
 * from the CPU caches (CLWB or CLFLUSHOPT, then SFENCE), which the checkpoints
 * below do.  Destroying one removes it from its pool durably at once.
 *
 * Create persistent region @name of @size bytes (a nonzero multiple of the page
 * size) on pool @pool ("region3", see cxltier_pool_get_first()), or, with @pool
 * NULL or "", on the online pool with the most free space.  @mode and *@id as
 * cxltier_region_create().  Besides the errors of regions:
 *   -EINVAL  @pool is not a pool name (empty is fine: any pool)
 *   -ENODEV  no such pool online (none at all, for any pool)
 *   -EROFS   the pool is degraded: nothing is created on it
 *   -ENOSPC  no free table entry or no contiguous space on the pool (regions take
 *            space in units of 2 MiB)
 */
int cxltier_region_create_persistent(struct cxltier_ctx *ctx, const char *name, uint64_t size,
				     unsigned int mode, const char *pool, uint32_t *id);

/* 1 for a persistent region, else 0. */
int cxltier_region_info_is_persistent(const struct cxltier_region_info *info);
/* 1 for a persistent region whose pool's device failed or went: access gets SIGBUS. */
int cxltier_region_info_is_lost(const struct cxltier_region_info *info);
/* A persistent region's pool ("region3"), "" for other regions. */
const char *cxltier_region_info_get_pool(const struct cxltier_region_info *info);
/* A persistent region's byte offset in its pool's CXL region, 0 for other regions. */
uint64_t cxltier_region_info_get_pool_offset(const struct cxltier_region_info *info);
/*
 * 1 for a region of a shared pool (cxltier_pool_attach()): every host attached to
 * the pool knows it under the same id (and so the same handles), else 0.
 */
int cxltier_region_info_is_shared(const struct cxltier_region_info *info);

/* --- Pools: persistent CXL memory for persistent regions ------------------ */

/*
 * A pool is a CXL pmem region the module keeps persistent regions on, or a CXL RAM
 * region of a shared device attached as a shared pool (cxltier_pool_attach(),
 * below); pools/<region>/ in the module's sysfs tree.  Pools belong to the
 * context's snapshot like blades (cxltier_refresh() reads them again); a module
 * without pools has none.
 */
struct cxltier_pool;

/* Pool state; values are ABI, new ones are only ever appended. */
enum cxltier_pool_state {
	CXLTIER_POOL_STATE_UNKNOWN = 0,     /* text this library does not know */
	CXLTIER_POOL_STATE_UNFORMATTED = 1, /* holds no pool: cxltier_pool_format() it */
	CXLTIER_POOL_STATE_ONLINE = 2,      /* in service: persistent regions may be made */
	CXLTIER_POOL_STATE_BAD = 3,         /* not usable, nothing is written to it (see the error) */
	CXLTIER_POOL_STATE_LOST = 4,        /* its device failed or went: regions are lost */
	CXLTIER_POOL_STATE_BUSY = 5,        /* another driver claimed its memory */
	CXLTIER_POOL_STATE_DEGRADED = 6,    /* online, but a table entry fails its checksum:
					     * its regions work, none is created or destroyed */
	CXLTIER_POOL_STATE_UNCOMMITTED = 7, /* the CXL region has no memory yet */
};

/* Pools, in region number order. */
struct cxltier_pool *cxltier_pool_get_first(struct cxltier_ctx *ctx);
struct cxltier_pool *cxltier_pool_get_next(struct cxltier_pool *pool);
struct cxltier_pool *cxltier_pool_get_by_name(struct cxltier_ctx *ctx, const char *name);
struct cxltier_ctx *cxltier_pool_get_ctx(const struct cxltier_pool *pool);

/* The CXL pmem region's name, "region3". */
const char *cxltier_pool_get_name(const struct cxltier_pool *pool);
enum cxltier_pool_state cxltier_pool_get_state(const struct cxltier_pool *pool);
/* Bytes usable for persistent regions, and of those not in use. */
uint64_t cxltier_pool_get_size(const struct cxltier_pool *pool);
uint64_t cxltier_pool_get_free(const struct cxltier_pool *pool);
/* Persistent regions on it. */
unsigned int cxltier_pool_get_nr_regions(const struct cxltier_pool *pool);
/* The blades (memdevs) its memory is on, NULL-terminated, in interleave order. */
const char *const *cxltier_pool_get_blades(const struct cxltier_pool *pool, size_t *count);
/* The pool's uuid, "" unless online or lost. */
const char *cxltier_pool_get_uuid(const struct cxltier_pool *pool);
/* Its on-device format ("1.0"), "" when unformatted. */
const char *cxltier_pool_get_format(const struct cxltier_pool *pool);
/* Why it is bad, busy or degraded (one line), else "". */
const char *cxltier_pool_get_error(const struct cxltier_pool *pool);
/* "unformatted", "online", "bad", "lost", "busy", "degraded", "uncommitted" or "unknown". */
const char *cxltier_pool_state_name(enum cxltier_pool_state state);

#define for_each_cxltier_pool(ctx, pool)                                       \
	for ((pool) = cxltier_pool_get_first(ctx); (pool);                     \
	     (pool) = cxltier_pool_get_next(pool))

/* cxltier_pool_format(): overwrite a pool that is there (its regions are lost). */
#define CXLTIER_POOL_FORMAT_FORCE 1

/*
 * Format the CXL pmem region @pool as an empty pool (needs root; writes pool_format);
 * it is online when this returns.  The snapshot is not refreshed.  0, or a negative
 * errno with a one-line reason:
 *   -EINVAL  bad name or unknown @flags;  -ENODEV  no such CXL pmem region
 *   -EEXIST  it holds a pool, or data that is not one: CXLTIER_POOL_FORMAT_FORCE
 *            overwrites it, destroying every persistent region on it
 *   -EBUSY   a pool with persistent regions (destroy them first), or its memory is
 *            claimed or not committed
 *   -EACCES, -EPERM  needs root;  -EOPNOTSUPP  the module has no pools
 */
int cxltier_pool_format(struct cxltier_ctx *ctx, const char *pool, unsigned int flags);

/*
 * Shared pools.  A CXL RAM region of a shared (multi-headed) CXL device can be
 * attached as a pool by several hosts at once; its persistent regions are the same
 * on every host (same names, ids and handles, cxltier_region_info_is_shared()).
 * Each host has a record in the pool under an id of its own (1 to 63) with a
 * heartbeat; a host whose heartbeat stops for the module's lease (its parameter
 * pool_lease_ms) is "expired" for the others.  The device is not cache coherent
 * across hosts: data handed between hosts must be written back and invalidated
 * explicitly, see "Sharing memory between hosts" below.  Format the pool on one
 * host (cxltier_pool_format() once it shows as unformatted), attach it on all.
 *
 * Attach CXL RAM region @region as a shared pool of this host (needs root), with
 * host record @host_id (1 to 63), or with @host_id 0 the module parameter host_id.
 * The region's dax devices that device_dax holds are unbound from it first (the
 * module cannot claim memory a driver holds); if the attach then fails they are
 * bound again.  A dax device onlined as System RAM (kmem) is refused.  The
 * snapshot is not refreshed.  0, or a negative errno with a one-line reason:
 *   -EINVAL  bad name, @host_id above 63, or no id at all (@host_id 0 and the
 *            module parameter 0)
 *   -ENODEV  no such CXL region, or not a RAM region
 *   -EBUSY   its memory is System RAM here or claimed by another driver, or host
 *            record @host_id belongs to another host whose heartbeat is live
 *   -EEXIST  attached already
 *   -EACCES, -EPERM  needs root;  -EOPNOTSUPP  the module has no shared pools
 */
int cxltier_pool_attach(struct cxltier_ctx *ctx, const char *region, unsigned int host_id);

/*
 * Detach shared pool @region from this host (needs root): its regions leave this
 * host (they stay on the device for the others) and its host record is marked
 * detached.  The region's dax devices are not bound again.  0, or:
 *   -ENOENT  no shared pool of that name is attached here
 *   -EBUSY   a region of it is open or mapped on this host
 *   -EACCES, -EPERM  needs root;  -EOPNOTSUPP  the module has no shared pools
 */
int cxltier_pool_detach(struct cxltier_ctx *ctx, const char *region);

/*
 * The module parameters of shared pools, read now: host_id (the record id an
 * attach without one uses, 0: none) and pool_lease_ms (a host whose heartbeat
 * does not move for that long is expired by the others).  0, or -ENOENT (module
 * not loaded), -EOPNOTSUPP (the module has no shared pools), -EBADMSG.
 */
int cxltier_get_host_id(struct cxltier_ctx *ctx, unsigned int *host_id);
int cxltier_get_pool_lease_ms(struct cxltier_ctx *ctx, unsigned int *lease_ms);

/* 1 for a shared pool (attached with cxltier_pool_attach()), 0 for one of this host's pmem. */
int cxltier_pool_is_shared(const struct cxltier_pool *pool);
/* This host's record id in a shared pool (1 to 63), 0 for other pools. */
unsigned int cxltier_pool_get_host(const struct cxltier_pool *pool);
/*
 * A shared pool's lease and grace in ms, as its device says (written at format,
 * the same on every host): a host whose heartbeat stands still for the lease is
 * judged expired, and the others go on without it a grace later.  0 for other
 * pools, and for modules that do not say (older ones: see cxltier_get_pool_lease_ms()).
 */
unsigned int cxltier_pool_get_lease_ms(const struct cxltier_pool *pool);
unsigned int cxltier_pool_get_grace_ms(const struct cxltier_pool *pool);

/*
 * A shared pool's host records in use (pools/<region>/hosts), in the module's
 * order; none for other pools and for modules without shared pools.  They belong
 * to the snapshot like the pool.
 */
struct cxltier_pool_host;
struct cxltier_pool_host *cxltier_pool_host_get_first(struct cxltier_pool *pool);
struct cxltier_pool_host *cxltier_pool_host_get_next(struct cxltier_pool_host *host);
struct cxltier_pool *cxltier_pool_host_get_pool(const struct cxltier_pool_host *host);

/* Its record id, 1 to 63. */
unsigned int cxltier_pool_host_get_id(const struct cxltier_pool_host *host);
/*
 * "live" (its heartbeat moved within the lease), "expired" (it did not: the host
 * died or hung; its mappings no longer hold regions) or "detached"; a newer module
 * may have other words.
 */
const char *cxltier_pool_host_get_state(const struct cxltier_pool_host *host);
/* The host's node name. */
const char *cxltier_pool_host_get_name(const struct cxltier_pool_host *host);
/* Its heartbeat counter, and milliseconds since this host saw the counter move. */
uint64_t cxltier_pool_host_get_heartbeat(const struct cxltier_pool_host *host);
uint64_t cxltier_pool_host_get_age_ms(const struct cxltier_pool_host *host);
/* 1 for this host's own record. */
int cxltier_pool_host_is_self(const struct cxltier_pool_host *host);

#define for_each_cxltier_pool_host(pool, host)                                 \
	for ((host) = cxltier_pool_host_get_first(pool); (host);               \
	     (host) = cxltier_pool_host_get_next(host))

/*
 * A pool's table entries in use, as the table on the device has them
 * (pools/<region>/table), in the module's order; none for modules that predate it.
 */
struct cxltier_pool_entry;
struct cxltier_pool_entry *cxltier_pool_entry_get_first(struct cxltier_pool *pool);
struct cxltier_pool_entry *cxltier_pool_entry_get_next(struct cxltier_pool_entry *entry);
struct cxltier_pool *cxltier_pool_entry_get_pool(const struct cxltier_pool_entry *entry);

/* Its index in the table. */
unsigned int cxltier_pool_entry_get_number(const struct cxltier_pool_entry *entry);
/*
 * "used", or "dying" (destroyed, its space held until no host has it open); a
 * newer module may have other words.
 */
const char *cxltier_pool_entry_get_state(const struct cxltier_pool_entry *entry);
/* The region's name, byte offset in the pool's CXL region and length. */
const char *cxltier_pool_entry_get_name(const struct cxltier_pool_entry *entry);
uint64_t cxltier_pool_entry_get_offset(const struct cxltier_pool_entry *entry);
uint64_t cxltier_pool_entry_get_length(const struct cxltier_pool_entry *entry);
uint32_t cxltier_pool_entry_get_uid(const struct cxltier_pool_entry *entry);
uint32_t cxltier_pool_entry_get_gid(const struct cxltier_pool_entry *entry);
/* Permission bits, as cxltier_region_info_get_mode(). */
unsigned int cxltier_pool_entry_get_mode(const struct cxltier_pool_entry *entry);
/*
 * The region id: in a shared pool the same on every host (at least
 * 0x8000, CXLTIER_REGION_ID_SHARED in <linux/cxltier.h>), else this host's.
 */
uint32_t cxltier_pool_entry_get_id(const struct cxltier_pool_entry *entry);
/*
 * The ids of the hosts that have it open (shared pools only), *@count of them (if
 * @count is not NULL); not NULL-terminated.
 */
const unsigned int *cxltier_pool_entry_get_hosts(const struct cxltier_pool_entry *entry,
						 size_t *count);

#define for_each_cxltier_pool_entry(pool, entry)                               \
	for ((entry) = cxltier_pool_entry_get_first(pool); (entry);            \
	     (entry) = cxltier_pool_entry_get_next(entry))

/*
 * Check @pool's structures on the device (needs root; pools/<region>/check):
 * both superblocks and every table entry, and in a shared pool the host records
 * (open bits of entries not in use, a table update left half done).  Nothing is
 * changed unless @repair is nonzero: then the module first mends what it can
 * without losing a region (frees dying entries no attached host has open, closes
 * a half-done update; an expired host's regions stay held until it attaches again
 * or is evicted),
 * and what is left is reported.  Returns the number of problems found (left, with
 * @repair), 0 for none; with @report not NULL, *@report gets the module's text
 * ("problem: <text>" lines, then "<N> problems"), to be released with free().
 * Or a negative errno with a one-line reason (*@report is then NULL):
 *   -ENODEV  the pool is not online;  -EACCES, -EPERM  needs root
 *   -EOPNOTSUPP  the module cannot check pools;  -EBADMSG  text not understood
 */
int cxltier_pool_check(struct cxltier_pool *pool, int repair, char **report);

/* --- Sharing memory between hosts ------------------------------------------ */

/*
 * The memory of a shared pool is mapped by every host attached to it, but the
 * device keeps no host's CPU caches coherent with another's: a store stays in the
 * writing CPU's cache until the line is written back, and a load may be served
 * from a line this CPU cached before another host changed the memory.  (Within
 * one host, CPUs are coherent as usual.)  Data handed from one host to another
 * therefore follows these rules, with a flag: a uint64_t in the shared memory,
 * 8-byte aligned, best alone on its cache line (64 bytes), written by one side
 * only:
 *
 *   writer:  write the data;
 *            cxltier_flush(data, len);       data written back to the device
 *            cxltier_publish(&flag, seq);    then the flag, written back too
 *   reader:  cxltier_acquire(&flag, seq, timeout_ms);   the flag read from the device
 *            cxltier_invalidate(data, len);  stale lines of the data dropped
 *            read the data.
 *
 * (cxltier_acquire_range() does the reader's two calls in one.)  A cache line must
 * have one writer at a time: invalidating a line this CPU wrote and did not flush
 * writes it back over the other host's data, and a line shared by two writers
 * loses one's stores.  Use a new value (a sequence number) for each handover, as
 * a reader cannot tell an old flag from a new one of the same value.  The same
 * calls serve data handed between processes or threads of one host, where they
 * only cost time.  On a CPU without cache line instructions (not x86) they are
 * only memory barriers: enough within one host, not across hosts, and
 * cxltier_flush() and cxltier_invalidate() return -EOPNOTSUPP there.
 * These calls need no context and are thread-safe.
 */

/*
 * Write the cache lines of [@addr, @addr + @len) back to memory: CLWB (which may
 * keep the line cached), else CLFLUSHOPT, else CLFLUSH; then SFENCE, so that the
 * write-backs are complete when it returns.  0; -EINVAL for @addr NULL with a
 * length or a range that wraps; -EOPNOTSUPP as above.
 */
int cxltier_flush(const void *addr, size_t len);

/*
 * Drop the cache lines of [@addr, @addr + @len) from this CPU's caches, writing back
 * those this CPU changed: MFENCE, CLFLUSHOPT (else CLFLUSH) on each line, MFENCE.
 * Loads after it read memory.  Errors as cxltier_flush().
 */
int cxltier_invalidate(const void *addr, size_t len);

/*
 * Publish @value in *@flag: SFENCE (any write-backs begun before, such as the
 * data's cxltier_flush(), are complete first), store @value, write the flag's
 * line back, SFENCE.  On return the flag is in memory.  It does not write back
 * the data: call cxltier_flush() on it first.  @flag must be 8-byte aligned.
 */
void cxltier_publish(uint64_t *flag, uint64_t value);

/*
 * Wait until *@flag, read from memory (its line invalidated before each read),
 * equals @value: 0 once it does, with loads after the call ordered after that
 * read; -ETIMEDOUT after @timeout_ms milliseconds (0: one look; negative: no
 * limit); -EINVAL for @flag NULL or not 8-byte aligned.  It polls busily for the
 * first 0.2 ms, then sleeps between reads (up to 1 ms).  The data the flag
 * guards must then be invalidated before it is read (cxltier_invalidate()).
 */
int cxltier_acquire(const uint64_t *flag, uint64_t value, int timeout_ms);

/*
 * cxltier_acquire(), then cxltier_invalidate(@buf, @len): on 0 the buffer can be
 * read.  Errors of both (-EINVAL for a bad range before waiting).
 */
int cxltier_acquire_range(const uint64_t *flag, uint64_t value, int timeout_ms, const void *buf,
			  size_t len);

/* --- Checkpoints on persistent regions ---------------------------------------- */

/*
 * A checkpoint is a named store of one blob of state (a job's) on persistent
 * regions, of which a commit is atomic: after a crash at any moment, restore gives
 * the last committed generation or, if the crash came during a commit, possibly the
 * one being committed, whole; never a mix.  Copy k of checkpoint NAME is the
 * persistent region "NAME@k"; with two copies on pools of different blades, losing
 * one blade loses no committed generation.  Each copy holds two slots, the newest
 * generation and the one being written.  Data and records carry CRC32C checksums;
 * each commit also records the commit it was built on (its lineage), and restore
 * takes the newest generation whose data verifies in some copy on the timeline of
 * the newest commit: a copy that comes back holding commits the job abandoned
 * (it restored an older generation while that copy was away) is "diverged", never
 * read, and rewritten by the next commit.  The format is
 * Documentation/persistence.rst, "Checkpoint format" and "Lineage".
 *
 * A checkpoint object is used by one thread at a time (its asynchronous commit runs
 * on a thread of its own, see cxltier_ckpt_commit_async()).  One commit at a time
 * runs on a checkpoint: a commit holds flock(LOCK_EX) on its copies' region files
 * from cxltier_ckpt_begin() (or _commit_async()) until it ends, and a commit of
 * another process or checkpoint object meanwhile fails with -EBUSY (it does not
 * wait).  Errors are those of regions (through the region calls, with their
 * reasons) and:
 *   -EINVAL   bad name (1..CXLTIER_CKPT_NAME_MAX printable ASCII bytes, no '/', '@'
 *             or blanks), capacity 0 or beyond CXLTIER_CKPT_CAPACITY_MAX, copies not
 *             1 or 2, the same pool twice, a shared pool (volatile memory shared
 *             between hosts: never a copy's pool)
 *   -ENOENT   no such checkpoint;  -EEXIST  the name is taken
 *   -EFBIG    a size beyond the capacity
 *   -EBUSY    an asynchronous commit is running, or a commit has begun, on this
 *             object or (begin, commit_async) by another committer
 *   -ENODATA  nothing committed verifies (restore)
 *   -EPROTONOSUPPORT  a copy holds a checkpoint header or slot of a newer format
 *             (written by a newer libcxltier): it is never written over
 *   -ENODEV   no (or no second) pool online on blades of its own
 */
#define CXLTIER_CKPT_NAME_MAX 61
/* Largest capacity: a copy of it still fits in a region. */
#define CXLTIER_CKPT_CAPACITY_MAX ((UINT64_C(1) << 47) - 16384)
/* Largest number of copies. */
#define CXLTIER_CKPT_COPIES_MAX 2

struct cxltier_ckpt;        /* an open checkpoint */
struct cxltier_ckpt_params; /* how to create one */
struct cxltier_ckpt_info;   /* what restore, verify or stat found */
struct cxltier_ckpt_list;   /* the checkpoints that exist */

/*
 * Parameters of cxltier_ckpt_create(): capacity (bytes of state, required), copies
 * (1 by default), the pool of each copy (default: chosen, see below) and the mode
 * of the regions (0600 by default).  Setters check their value: -EINVAL.
 */
int cxltier_ckpt_params_new(struct cxltier_ckpt_params **params);
void cxltier_ckpt_params_free(struct cxltier_ckpt_params *params);
int cxltier_ckpt_params_set_capacity(struct cxltier_ckpt_params *params, uint64_t capacity);
int cxltier_ckpt_params_set_copies(struct cxltier_ckpt_params *params, unsigned int copies);
/* The pool of copy @copy ("region3"); NULL or "": chosen. */
int cxltier_ckpt_params_set_pool(struct cxltier_ckpt_params *params, unsigned int copy,
				 const char *pool);
int cxltier_ckpt_params_set_mode(struct cxltier_ckpt_params *params, unsigned int mode);

/*
 * Create checkpoint @name: its copies' persistent regions, each formatted with an
 * empty store (no generation), and open it for writing in *@ckpt.  Pools not given
 * are chosen from the context's snapshot: the online pools with the most free
 * space, not shared, each copy on blades no other copy uses (-ENODEV when there are
 * not enough such pools; one copy with no pool online leaves the choice to the
 * module).  On
 * failure nothing is left behind.
 */
int cxltier_ckpt_create(struct cxltier_ctx *ctx, const char *name,
			const struct cxltier_ckpt_params *params, struct cxltier_ckpt **ckpt);

/*
 * Open checkpoint @name for CXLTIER_REGION_READ or CXLTIER_REGION_RDWR.  Works
 * while a copy is missing (its region gone, or lost with its pool) or bad, as long
 * as one copy has a usable header; a commit then writes the copies that are left.
 */
int cxltier_ckpt_open(struct cxltier_ctx *ctx, const char *name, int access,
		      struct cxltier_ckpt **ckpt);
/* Waits for an asynchronous commit, then unmaps and closes.  NULL is ignored. */
void cxltier_ckpt_close(struct cxltier_ckpt *ckpt);
/* Destroy the copies' regions: every generation is gone.  -ENOENT when none exists. */
int cxltier_ckpt_drop(struct cxltier_ctx *ctx, const char *name);

const char *cxltier_ckpt_get_name(const struct cxltier_ckpt *ckpt);
uint64_t cxltier_ckpt_get_capacity(const struct cxltier_ckpt *ckpt);
/* Copies the checkpoint was created with (some may be missing now). */
unsigned int cxltier_ckpt_get_copies(const struct cxltier_ckpt *ckpt);
/* The newest generation committed as of the open or the last commit; 0 none. */
uint64_t cxltier_ckpt_get_generation(const struct cxltier_ckpt *ckpt);
/* Copies the last commit made durable (fewer than the copies when some are missing). */
unsigned int cxltier_ckpt_get_durable_copies(const struct cxltier_ckpt *ckpt);

/*
 * Synchronous commit in three calls.  cxltier_ckpt_begin() prepares a slot for @size
 * bytes (at most the capacity) and sets *@staging to its memory, persistent memory
 * of the first copy: write the state there directly, or with cxltier_ckpt_write(),
 * which copies @len bytes from @buf to offset @off.  cxltier_ckpt_commit()
 * checksums the state, copies it to the other copy, writes it all back and then
 * the slots' records: when it returns, generation *@generation (if not NULL) is
 * durable in every copy that is there.  cxltier_ckpt_abort() forgets a begun commit
 * (the last committed generation stays).  The staging memory is valid until the
 * commit or abort.
 *
 * With @staging NULL the state goes only through cxltier_ckpt_write(), which then
 * writes every copy itself and, for writes in order from offset 0, checksums the
 * state on the way: the commit does not read persistent memory back (the fastest
 * synchronous commit from a buffer in DRAM).
 */
int cxltier_ckpt_begin(struct cxltier_ckpt *ckpt, uint64_t size, void **staging);
int cxltier_ckpt_write(struct cxltier_ckpt *ckpt, uint64_t off, const void *buf, size_t len);
int cxltier_ckpt_commit(struct cxltier_ckpt *ckpt, uint64_t *generation);
int cxltier_ckpt_abort(struct cxltier_ckpt *ckpt);

/*
 * Asynchronous commit: copies @size bytes of @state into a buffer of the library's
 * and returns; a thread of its own then writes, checksums, writes back and commits
 * them, as cxltier_ckpt_commit() does.  The job is stalled only for the copy.  One
 * at a time (-EBUSY while one runs, also for begin, restore and verify on the same
 * object).  cxltier_ckpt_wait() waits for it and returns its result: 0 and its
 * generation, or its error (the reason in the context).  cxltier_ckpt_poll() does
 * not wait: -EINPROGRESS while it runs, else as wait.  Both: -ENOENT when no
 * commit was started since the last wait.
 */
int cxltier_ckpt_commit_async(struct cxltier_ckpt *ckpt, const void *state, uint64_t size);
int cxltier_ckpt_wait(struct cxltier_ckpt *ckpt, uint64_t *generation);
int cxltier_ckpt_poll(struct cxltier_ckpt *ckpt, uint64_t *generation);

/*
 * Restore: the newest generation whose data verifies in some copy, on the timeline
 * of the newest commit, read into @buf (@bufsize bytes); the next commit of this
 * object is built on it.  Data is read until a copy verifies (once, when nothing is
 * wrong); *@info (if not NULL; free it with cxltier_ckpt_info_free()) tells each
 * copy's state, from its records for a copy whose data was not read
 * (cxltier_ckpt_verify() reads them all).  On success, when a copy is bad,
 * missing, of a newer format or diverged, cxltier_get_last_error() of the context
 * says which and why (else it is "").
 *   -ENODATA  nothing committed verifies (or nothing was ever committed); the
 *             reason says what each copy holds
 *   -ENOBUFS  @bufsize is smaller than the generation's size
 * *@info is set whenever the copies could be read, also with -ENODATA and -ENOBUFS
 * (cxltier_ckpt_info_get_size() says how big a buffer is needed).
 */
int cxltier_ckpt_restore(struct cxltier_ckpt *ckpt, void *buf, uint64_t bufsize,
			 struct cxltier_ckpt_info **info);

/* Check everything restore would, reading nothing out: every copy's data. */
int cxltier_ckpt_verify(struct cxltier_ckpt *ckpt, struct cxltier_ckpt_info **info);
/* The records only (fast, no data read): states assume the data checksums hold. */
int cxltier_ckpt_stat(struct cxltier_ckpt *ckpt, struct cxltier_ckpt_info **info);

/* A copy's state; values are ABI. */
enum cxltier_ckpt_copy_state {
	CXLTIER_CKPT_COPY_OK = 0,           /* holds the restored generation, verified */
	CXLTIER_CKPT_COPY_STALE = 1,        /* holds an older generation, or none */
	CXLTIER_CKPT_COPY_BAD = 2,          /* its header or newest data fails its checksum */
	CXLTIER_CKPT_COPY_MISSING = 3,      /* its region is gone, or lost with its pool */
	CXLTIER_CKPT_COPY_NEWER_FORMAT = 4, /* written by a newer libcxltier: not read */
	CXLTIER_CKPT_COPY_DIVERGED = 5,     /* its newest commit is on an abandoned timeline */
};
/* "ok", "stale", "bad", "missing", "newer-format", "diverged" or "unknown". */
const char *cxltier_ckpt_copy_state_name(enum cxltier_ckpt_copy_state state);

void cxltier_ckpt_info_free(struct cxltier_ckpt_info *info);
/* The generation found (0: none), its size in bytes and commit time (CLOCK_REALTIME ns). */
uint64_t cxltier_ckpt_info_get_generation(const struct cxltier_ckpt_info *info);
uint64_t cxltier_ckpt_info_get_size(const struct cxltier_ckpt_info *info);
uint64_t cxltier_ckpt_info_get_time_ns(const struct cxltier_ckpt_info *info);
/* The copy it was read from, -1 if none. */
int cxltier_ckpt_info_get_source(const struct cxltier_ckpt_info *info);
/* Copies (as created); per copy @i: state, newest good generation, region, pool, why. */
unsigned int cxltier_ckpt_info_get_nr_copies(const struct cxltier_ckpt_info *info);
enum cxltier_ckpt_copy_state cxltier_ckpt_info_get_copy_state(const struct cxltier_ckpt_info *info,
							      unsigned int i);
uint64_t cxltier_ckpt_info_get_copy_generation(const struct cxltier_ckpt_info *info,
					       unsigned int i);
const char *cxltier_ckpt_info_get_copy_region(const struct cxltier_ckpt_info *info,
					      unsigned int i);
/* "" when unknown (the region is missing). */
const char *cxltier_ckpt_info_get_copy_pool(const struct cxltier_ckpt_info *info, unsigned int i);
/* Why the copy is bad, missing or newer; "" otherwise (and past the end). */
const char *cxltier_ckpt_info_get_copy_message(const struct cxltier_ckpt_info *info,
					       unsigned int i);

/*
 * The checkpoints that exist: names of which a region "NAME@0" or "NAME@1" exists,
 * in name order.
 */
int cxltier_ckpt_list_new(struct cxltier_ctx *ctx, struct cxltier_ckpt_list **list);
void cxltier_ckpt_list_free(struct cxltier_ckpt_list *list);
size_t cxltier_ckpt_list_get_count(const struct cxltier_ckpt_list *list);
/* Entry @i, NULL past the end. */
const char *cxltier_ckpt_list_get_name(const struct cxltier_ckpt_list *list, size_t i);

/* --- The event log -------------------------------------------------------- */

/*
 * The module logs what happens to blades and to region pages: fences, pages
 * fenced and replaced, poison reports, drains and restores.  It keeps the newest
 * CXLTIER_EVENT_LOG_SIZE records, numbered from 1 in the order they happened;
 * anyone who may open /dev/cxltier may read them.  Read through /dev/cxltier (or CXLTIER_DEV) with
 * CXLTIER_IOC_EVENTS, as the global regions above, and with their errors.
 * Values are ABI (the module's CXLTIER_EVENT_* and CXLTIER_CAUSE_*); a newer
 * module may report values this library has no name for.
 */
enum cxltier_event_type {
	CXLTIER_EVENT_TYPE_UNKNOWN = 0,
	CXLTIER_EVENT_TYPE_FENCE = 1,      /* a blade was fenced */
	CXLTIER_EVENT_TYPE_FENCE_PAGE = 2, /* region pages were fenced (a media error) */
	CXLTIER_EVENT_TYPE_REPLACE = 3,    /* fenced pages were replaced by fresh ones */
	CXLTIER_EVENT_TYPE_POISON = 4,     /* a blade reported poison or an error */
	CXLTIER_EVENT_TYPE_DRAIN = 5,      /* a blade was drained: out of service */
	CXLTIER_EVENT_TYPE_RESTORE = 6,    /* a blade is back in service */
};

enum cxltier_event_cause {
	CXLTIER_EVENT_CAUSE_UNKNOWN = 0,
	CXLTIER_EVENT_CAUSE_ADMIN = 1,         /* asked for (sysfs, cxltierctl, an ioctl) */
	CXLTIER_EVENT_CAUSE_UNBIND = 2,        /* the memdev or its CXL region went away */
	CXLTIER_EVENT_CAUSE_POISON = 3,        /* poison records (poison list, injection) */
	CXLTIER_EVENT_CAUSE_MEDIA = 4,         /* general media or DRAM event records */
	CXLTIER_EVENT_CAUSE_UNCORRECTABLE = 5, /* an uncorrectable (AER) error */
	CXLTIER_EVENT_CAUSE_PEER = 6, /* another host of a shared pool fenced the blade */
};

/* "fence", "fence-page", "replace", "poison", "drain", "restore", or "unknown". */
const char *cxltier_event_type_name(enum cxltier_event_type type);
/* "admin", "unbind", "poison", "media", "uncorrectable", "peer", or "unknown". */
const char *cxltier_event_cause_name(enum cxltier_event_cause cause);

/* Records the module keeps; older ones are dropped (lost to a late reader). */
#define CXLTIER_EVENT_LOG_SIZE 1024

struct cxltier_event_list; /* records read from the log at once */

/* cxltier_event_list_read(): wait until there is a record to return. */
#define CXLTIER_EVENT_READ_WAIT 1

/*
 * Read the records numbered @seq and later, at most CXLTIER_EVENT_LOG_SIZE
 * (@seq 0: from the oldest kept; from 1 on exactly, the records no longer kept
 * counted in cxltier_event_list_get_lost()); *@list gets them, possibly none.  Read
 * again from cxltier_event_list_get_next_seq() for the next ones.  With
 * CXLTIER_EVENT_READ_WAIT, sleeps until a record numbered @seq or later exists.
 * Free the list with cxltier_event_list_free().  Errors besides those of global
 * regions: -EINVAL unknown @flags; -EINTR a signal handler ran during the wait;
 * -EOPNOTSUPP the module has no event log.
 */
int cxltier_event_list_read(struct cxltier_ctx *ctx, uint64_t seq, unsigned int flags,
			    struct cxltier_event_list **list);
void cxltier_event_list_free(struct cxltier_event_list *list);
size_t cxltier_event_list_get_count(const struct cxltier_event_list *list);
/* The @seq to read the records after these from. */
uint64_t cxltier_event_list_get_next_seq(const struct cxltier_event_list *list);
/* Records from the @seq asked for that the log no longer kept (read too late). */
uint64_t cxltier_event_list_get_lost(const struct cxltier_event_list *list);

/*
 * Record @i of the list (0, "" or UNKNOWN past the end):
 *   seq          its number
 *   time_ns      when it happened, CLOCK_REALTIME nanoseconds
 *   blade        the memdev ("mem0"), "" for REPLACE
 *   region_id, region  the global region (FENCE_PAGE, REPLACE), else 0 and ""
 *   offset       byte offset in the region (FENCE_PAGE, REPLACE); the host
 *                physical address for POISON; else 0
 *   pages        pages fenced (region and system-RAM pages), replaced or drained
 *   ram_pages    of those, system-RAM pages (FENCE)
 *   duration_ns  from the trigger to the last page fenced or drained
 */
uint64_t cxltier_event_list_get_seq(const struct cxltier_event_list *list, size_t i);
uint64_t cxltier_event_list_get_time_ns(const struct cxltier_event_list *list, size_t i);
enum cxltier_event_type cxltier_event_list_get_type(const struct cxltier_event_list *list,
						    size_t i);
enum cxltier_event_cause cxltier_event_list_get_cause(const struct cxltier_event_list *list,
						      size_t i);
const char *cxltier_event_list_get_blade(const struct cxltier_event_list *list, size_t i);
uint32_t cxltier_event_list_get_region_id(const struct cxltier_event_list *list, size_t i);
const char *cxltier_event_list_get_region(const struct cxltier_event_list *list, size_t i);
uint64_t cxltier_event_list_get_offset(const struct cxltier_event_list *list, size_t i);
uint64_t cxltier_event_list_get_pages(const struct cxltier_event_list *list, size_t i);
uint64_t cxltier_event_list_get_ram_pages(const struct cxltier_event_list *list, size_t i);
uint64_t cxltier_event_list_get_duration_ns(const struct cxltier_event_list *list, size_t i);

/* --- Recovery from fenced pages (SIGBUS) ----------------------------------- */

/*
 * A page of a global region whose memory failed (poison, a media error, a fenced
 * blade) is fenced: its data is gone, and the next access to it, in every process
 * that maps it, is SIGBUS with si_code BUS_MCEERR_AR and the address (never a page
 * of made-up data).  A program that can rebuild such data installs a process-wide
 * SIGBUS handler with cxltier_fence_handler_install(): for a fault in a region
 * mapped with cxltier_region_map() (or cxltier_handle_resolve()), the handler asks
 * the module which blade the page was on, when and why it was fenced
 * (CXLTIER_IOC_FENCED), and calls @cb, which says what to do:
 *
 *   CXLTIER_FENCE_RETRY_REPLACE  the library replaces the fenced page with a fresh
 *       one (CXLTIER_IOC_REPLACE; the region must be open for writing), then
 *       returns from the handler, and the access runs again: it reads zeroes (a
 *       write lands on the fresh page).  The program must then restore the data,
 *       e.g. after @cb noted what was lost.
 *   CXLTIER_FENCE_DEFAULT  what would have happened without this handler: the
 *       previous SIGBUS action runs (a handler of the program's, or the default:
 *       the process dies of SIGBUS).
 *
 * Any other SIGBUS (another si_code, an address in no such mapping) goes to the
 * previous action untouched: a handler installed before (with its sa_flags and
 * sa_mask honoured), SIG_IGN (a fault from the kernel is not ignored, as the
 * kernel would not), or SIG_DFL (the process dies of SIGBUS with the original
 * siginfo).  The same goes for a replacement that fails.  A fault on a page that
 * is no longer fenced (another thread's handler replaced it meanwhile) is retried
 * once without calling @cb.
 *
 * @cb runs in the signal handler, in the thread that faulted, possibly in several
 * threads at once and on an alternate signal stack: it may only do what a signal
 * handler may (async-signal-safe functions, lock-free atomics, writes to memory
 * of its own; no malloc, no stdio, no locks, no libcxltier calls).  The event and
 * its strings are valid until @cb returns.  Mappings a program makes itself from
 * cxltier_region_get_fd() are not covered; at most 1024 mappings at a time are
 * (others get the previous action).  Unmapping a region while another thread
 * faults on it is the program's bug.
 */
struct cxltier_fence_event {
	uint32_t region_id;  /* the global region */
	const char *region;  /* its name */
	uint64_t offset;     /* byte offset of the fault in the region */
	void *addr;          /* the faulting address (si_addr) */
	const char *blade;   /* the blade the page was on ("mem1"), "" if the module cannot tell */
	uint64_t time_ns;    /* when the page was fenced, CLOCK_REALTIME; 0 if unknown */
	enum cxltier_event_cause cause; /* why it was fenced; UNKNOWN if the module cannot tell */
	int si_code;         /* BUS_MCEERR_AR (an access), or BUS_MCEERR_AO (reported ahead) */
};

enum cxltier_fence_action {
	CXLTIER_FENCE_DEFAULT = 0,       /* the previous SIGBUS action */
	CXLTIER_FENCE_RETRY_REPLACE = 1, /* a fresh zeroed page, and the access again */
};

typedef enum cxltier_fence_action (*cxltier_fence_cb)(const struct cxltier_fence_event *ev,
						       void *arg);

/*
 * Install the handler for SIGBUS (SA_SIGINFO | SA_ONSTACK | SA_NODEFER, and
 * SA_RESTART if the previous action had it), keeping the previous action to pass
 * other faults on to.  Installing again only changes @cb and @arg.  0, or -EINVAL
 * (@cb NULL), or the errno of sigaction().  Regions mapped before and after are
 * covered alike.
 */
int cxltier_fence_handler_install(cxltier_fence_cb cb, void *arg);

/*
 * Put back the SIGBUS action that was there before the install.  0; -ENOENT when
 * not installed; -EBUSY when another SIGBUS handler was installed over this one
 * (it is left in place: removing this one would lose it).
 */
int cxltier_fence_handler_remove(void);

/* --- The migration daemon (cxltierd) -------------------------------------- */

/*
 * The module's migration daemon moves pages of global regions between the fast
 * tier and the slow ones; its tunables, counters and heat histogram are files of
 * daemon/ in the module's sysfs tree, and each tier counts its own promotions and
 * demotions (tiers/<region>/promoted_pages, demoted_pages).  A reading takes all
 * of them at one moment, so that two readings give rates.  Tunables and counters
 * are named after their files ("period_ms", "promoted_pages"); the documented ones
 * come first, in the order Documentation/ABI/testing/sysfs-kernel-cxltier lists
 * them, then any others the module has, by name.
 */
struct cxltier_daemon;

/* Heat histogram: buckets of pages by heat (0-65535), each this wide. */
#define CXLTIER_HEAT_BUCKETS 16
#define CXLTIER_HEAT_BUCKET_SPAN 4096

/*
 * Read daemon/ and the tiers' counters now.  0, or a negative errno with the
 * reason in @ctx: -ENOENT the module is not loaded; -EOPNOTSUPP the module has no
 * migration daemon (no daemon/); -EBADMSG a file is missing or malformed; the
 * errno of a failed read.  Free the reading with cxltier_daemon_free().
 */
int cxltier_daemon_read(struct cxltier_ctx *ctx, struct cxltier_daemon **daemon);
void cxltier_daemon_free(struct cxltier_daemon *daemon);

/* When the reading was taken: CLOCK_MONOTONIC, nanoseconds. */
uint64_t cxltier_daemon_get_time_ns(const struct cxltier_daemon *daemon);

/* Tunables: the number, entry @i (-ERANGE past the end), and one by name (-ENOENT). */
size_t cxltier_daemon_get_nr_tunables(const struct cxltier_daemon *daemon);
int cxltier_daemon_get_tunable_at(const struct cxltier_daemon *daemon, size_t i,
				  const char **name, uint64_t *value);
int cxltier_daemon_get_tunable(const struct cxltier_daemon *daemon, const char *name,
			       uint64_t *value);

/* Counters since the module was loaded (daemon/stats/), likewise. */
size_t cxltier_daemon_get_nr_counters(const struct cxltier_daemon *daemon);
int cxltier_daemon_get_counter_at(const struct cxltier_daemon *daemon, size_t i,
				  const char **name, uint64_t *value);
int cxltier_daemon_get_counter(const struct cxltier_daemon *daemon, const char *name,
			       uint64_t *value);

/*
 * The heat histogram of tier @tier ("fast" or "slow") at the daemon's last period:
 * CXLTIER_HEAT_BUCKETS page counts, bucket k holding heats k * SPAN to
 * (k + 1) * SPAN - 1.  NULL when the module reports no such tier.
 */
const uint64_t *cxltier_daemon_get_heat(const struct cxltier_daemon *daemon, const char *tier);

/*
 * Per tier (in region number order): region pages moved off it to the fast tier
 * (@promoted) and onto it (@demoted) since it was added.  -ERANGE past the end.
 */
size_t cxltier_daemon_get_nr_tiers(const struct cxltier_daemon *daemon);
int cxltier_daemon_get_tier(const struct cxltier_daemon *daemon, size_t i, const char **name,
			    uint64_t *promoted, uint64_t *demoted);

/*
 * Set @n tunables (needs root).  Every name and value is checked before anything is
 * written: the name must be a tunable the module has, the value within its
 * documented range (cxltier_daemon_tunable_range()), and wmark_low_mb <=
 * wmark_high_mb <= the module parameter fast_budget_mb once all are applied.  The
 * writes go in an order that keeps the watermarks ordered at every step; if the
 * module refuses one, the tunables already written get their old values back.
 * 0, or a negative errno with the reason (naming the tunable and value) in @ctx:
 *   -EINVAL   unknown or repeated name, value out of range (nothing written), or
 *             the module refused a value (the earlier ones were restored)
 *   -EACCES, -EPERM  needs root;  -EOPNOTSUPP  no migration daemon;
 *   -ENOENT   the module is not loaded
 */
int cxltier_daemon_set_tunables(struct cxltier_ctx *ctx, size_t n, const char *const *names,
				const uint64_t *values);

/*
 * The documented range of tunable @name, inclusive; -ENOENT for a name this library
 * does not know (the module checks those itself).  The watermarks' upper bound
 * is the module's fast budget, not known here: UINT64_MAX.  Pure, thread-safe.
 */
int cxltier_daemon_tunable_range(const char *name, uint64_t *min, uint64_t *max);

/* --- Global handles ------------------------------------------------------- */

/*
 * A handle names a byte of a region in every process: region id (16 bits) << 48
 * | offset (48 bits).  0 is never a valid handle (no region has id 0).  The three
 * encoding functions are pure and thread-safe.
 */
#define CXLTIER_HANDLE_NULL UINT64_C(0)

/* -EINVAL when @id is 0 or above 65535, or @offset does not fit in 48 bits. */
int cxltier_handle_make(uint32_t id, uint64_t offset, uint64_t *handle);
uint32_t cxltier_handle_get_id(uint64_t handle);
uint64_t cxltier_handle_get_offset(uint64_t handle);

/*
 * The handle of @addr, which must lie in a region this process mapped through
 * this library (cxltier_region_map() or cxltier_handle_resolve()).  -ENOENT when
 * it does not.  Thread-safe.
 */
int cxltier_handle_from_addr(struct cxltier_ctx *ctx, const void *addr, uint64_t *handle);

/*
 * The address of @handle in this process.  When no region of that id is mapped
 * through this library, opens it by id (read-write, or read-only when the mode
 * allows only that) and maps it; such regions stay mapped until
 * cxltier_handle_cache_clear() or exit.  -EINVAL for a handle past the region's
 * end.  Thread-safe (errors of concurrent calls go to their own contexts).
 */
int cxltier_handle_resolve(struct cxltier_ctx *ctx, uint64_t handle, void **addr);

/* Unmap and close the regions cxltier_handle_resolve() opened itself. */
void cxltier_handle_cache_clear(void);

/* --- Object allocator on a region (cxltier_alloc) ------------------------- */

/*
 * Many small objects in a region: memkind's fixed-area heap (jemalloc) over
 * [@offset, @offset + @size) of a mapped region.  The heap's state lives in this
 * process: one allocator at a time may manage a given range, across all processes;
 * other processes read and write the objects through handles.  Objects outlive the
 * allocator as bytes in the region.
 */
struct cxltier_alloc;

/*
 * An allocator over a page-aligned range of @region, which is mapped writable
 * first if it is not.  @size 0 means up to the region's end.  -EINVAL for a range
 * outside the region or a region opened read-only; -ENOMEM when memkind cannot
 * make the heap.
 */
int cxltier_alloc_create(struct cxltier_region *region, uint64_t offset, uint64_t size,
			 struct cxltier_alloc **alloc);
/* Forget the heap (the bytes stay in the region).  NULL is ignored. */
void cxltier_alloc_destroy(struct cxltier_alloc *alloc);

/* NULL with errno ENOMEM when the range is full. */
void *cxltier_alloc_malloc(struct cxltier_alloc *alloc, size_t size);
/* Zeroed. */
void *cxltier_alloc_calloc(struct cxltier_alloc *alloc, size_t nmemb, size_t size);
/* @align a power of two, at least sizeof(void *); 0, -EINVAL or -ENOMEM. */
int cxltier_alloc_aligned(struct cxltier_alloc *alloc, size_t align, size_t size, void **ptr);
void cxltier_alloc_free(struct cxltier_alloc *alloc, void *ptr);
size_t cxltier_alloc_usable_size(struct cxltier_alloc *alloc, void *ptr);
/* The region the allocator works in. */
struct cxltier_region *cxltier_alloc_get_region(const struct cxltier_alloc *alloc);

#ifdef __cplusplus
}
#endif

#endif /* CXLTIER_H */
