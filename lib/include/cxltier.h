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
/* "uncommitted", "committed", "dax", "system-ram" or "unknown". */
const char *cxltier_cxl_region_state_name(enum cxltier_cxl_region_state state);

#define for_each_cxltier_cxl_region(ctx, region)                               \
	for ((region) = cxltier_cxl_region_get_first(ctx); (region);           \
	     (region) = cxltier_cxl_region_get_next(region))

#ifdef __cplusplus
}
#endif

#endif /* CXLTIER_H */
