/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxlr.c: a CXL region's parameters and state, as the CXL core reports them.  Used
 * by the mirror (discover.c) and by tier registration (tier.c).
 */
#ifndef _CXLT_CXLR_H
#define _CXLT_CXLR_H

#include <linux/types.h>

#include "cxltier.h"

struct device;

enum cxlt_cxl_region_state {
	CXLT_CXLR_UNCOMMITTED,	/* decoders not committed */
	CXLT_CXLR_COMMITTED,	/* committed, memory not in use by any driver */
	CXLT_CXLR_DAX,		/* held by device_dax (a daxX.Y exists) */
	CXLT_CXLR_SYSTEM_RAM,	/* onlined as System RAM by kmem */
};

/**
 * struct cxlt_cxl_region_info - a snapshot of one CXL region's parameters
 * @mode: "ram" or "pmem" (other CXL decoder modes are reported as named by the core)
 * @state: see enum cxlt_cxl_region_state
 * @start: first host physical address, 0 when no address range is assigned yet
 * @size: size in bytes, 0 when no address range is assigned yet
 * @ways: interleave ways
 * @granularity: interleave granularity in bytes
 * @nid: node of the address range (its CXL window's), NUMA_NO_NODE when unknown
 * @nr_blades: targets set so far
 * @blades: memdev names of the targets, in interleave position order
 * @dpa_base: first device physical address of each target's endpoint decoder
 * @dax_dev: the region's dax device (dax0.0) when dax_cxl made one, else empty
 */
struct cxlt_cxl_region_info {
	char mode[8];
	enum cxlt_cxl_region_state state;
	u64 start;
	u64 size;
	u32 ways;
	u32 granularity;
	int nid;
	u32 nr_blades;
	char blades[CXLT_MAX_WAYS][CXLT_NAME_LEN];
	u64 dpa_base[CXLT_MAX_WAYS];
	char dax_dev[CXLT_NAME_LEN];
};

/* Does not know about tiers: a registered region reads as committed here. */
int cxlt_cxl_region_info(struct device *region, struct cxlt_cxl_region_info *info);

#endif /* _CXLT_CXLR_H */
