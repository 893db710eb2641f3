/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcxltier: userspace access to the cxltier tiered CXL memory module.
 *
 * Conventions, shared by every function below:
 *  - Objects are opaque.  A context (struct cxltier_ctx) owns a snapshot of
 *    the module's sysfs tree (Documentation/ABI/testing/sysfs-kernel-cxltier);
 *    blades and CXL regions belong to that snapshot.
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
 */
#ifndef CXLTIER_H
#define CXLTIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sysfs layout version (abi_version) this library understands. */
#define CXLTIER_SYSFS_ABI_VERSION 1

/* Default sysfs root and the environment variable that overrides it. */
#define CXLTIER_SYSFS_ROOT "/sys/kernel/cxltier"
#define CXLTIER_SYSFS_ENV "CXLTIER_SYSFS"

struct cxltier_ctx;
struct cxltier_blade;
struct cxltier_cxl_region;

/* Blade (CXL memdev) state; values are ABI, new ones are only ever appended. */
enum cxltier_blade_state {
	CXLTIER_BLADE_STATE_UNKNOWN = 0, /* text this library does not know */
	CXLTIER_BLADE_STATE_ONLINE = 1,  /* bound to cxl_mem */
	CXLTIER_BLADE_STATE_OFFLINE = 2, /* not bound */
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
 * Names of the CXL regions that map part of @blade, as a NULL-terminated
 * array; *count (if @count is not NULL) gets their number.
 */
const char *const *cxltier_blade_get_cxl_regions(const struct cxltier_blade *blade,
						  size_t *count);

/* "online", "offline" or "unknown". */
const char *cxltier_blade_state_name(enum cxltier_blade_state state);

#define for_each_cxltier_blade(ctx, blade)                                     \
	for ((blade) = cxltier_blade_get_first(ctx); (blade);                  \
	     (blade) = cxltier_blade_get_next(blade))

/* --- CXL regions, in region number order ---------------------------------- */

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
/* NUMA node of the region's address range, -1 when unknown. */
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
 * themselves (memory tier, capacity, access coordinates, interleave weight) are
 * read from the kernel's standard sysfs, /sys unless the environment variable
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
/* Physical address range, bytes. */
uint64_t cxltier_tier_get_start(const struct cxltier_tier *tier);
uint64_t cxltier_tier_get_size(const struct cxltier_tier *tier);
/* Blade names in interleave position order, NULL-terminated; see the blades above. */
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

/* The standard sysfs root this context reads NUMA nodes from ("/sys"). */
const char *cxltier_get_sys_root(const struct cxltier_ctx *ctx);

/* Online NUMA nodes (DRAM and tiers alike), in node id order. */
struct cxltier_node *cxltier_node_get_first(struct cxltier_ctx *ctx);
struct cxltier_node *cxltier_node_get_next(struct cxltier_node *node);
struct cxltier_node *cxltier_node_get_by_id(struct cxltier_ctx *ctx, int id);
struct cxltier_ctx *cxltier_node_get_ctx(const struct cxltier_node *node);

int cxltier_node_get_id(const struct cxltier_node *node);
/* N of the memory_tier<N> the node is in; -1 when in none (no memory, or no tiering). */
int cxltier_node_get_memory_tier(const struct cxltier_node *node);
/* MemTotal and MemFree of the node's meminfo, bytes. */
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

#ifdef __cplusplus
}
#endif

#endif /* CXLTIER_H */
