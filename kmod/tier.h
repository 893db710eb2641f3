/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tier.c: CXL RAM regions registered as NUMA nodes in a lower memory tier, and
 * /sys/kernel/cxltier/tiers/<region>.
 */
#ifndef _CXLT_TIER_H
#define _CXLT_TIER_H

#include <linux/nodemask.h>
#include <linux/types.h>

#include "cxltier.h"

struct device;
struct kobject;

int cxlt_tier_add(const char *name, int adist);
int cxlt_tier_remove(const char *name);
bool cxlt_tier_registered(struct device *region);
void cxlt_tier_nodes(nodemask_t *nodes);
long cxlt_node_room(int nid);
void cxlt_tier_count_move(unsigned long pfn, bool promoted);
/**
 * struct cxlt_fence_range - a tier's range and the interleave positions to fence
 * @start: first host physical address
 * @size: bytes
 * @ways: interleave ways
 * @granularity: interleave granularity in bytes
 * @pos: the positions (bits) whose memory failed
 * @nid: the tier's node
 * @region: the CXL region's name
 */
struct cxlt_fence_range {
	u64 start;
	u64 size;
	u32 ways;
	u32 granularity;
	unsigned long pos;
	int nid;
	char region[CXLT_NAME_LEN];
};

/**
 * struct cxlt_tier_ref - a tier by name, for a drain
 * @name: the CXL region's name
 * @nid: its node
 * @adist: abstract distance to register it with again (0: derive it)
 */
struct cxlt_tier_ref {
	char name[CXLT_NAME_LEN];
	int nid;
	int adist;
};

int cxlt_tiers_on_blade(const char *blade, struct cxlt_tier_ref *out, int max);
int cxlt_tiers_fence(const char *blade, struct device *region,
		     struct cxlt_fence_range *out, int max);
bool cxlt_ileave_hits(u64 start, u32 ways, u32 granularity, unsigned long pos, u64 pa);
bool cxlt_pfn_fenced(unsigned long pfn);
int cxlt_tier_take_offline(const char *name);
int cxlt_tier_dpa_to_phys(const char *region, const char *blade, u64 dpa, u64 *pa);
int cxlt_tier_granularity(const char *region, u64 *gran);
bool cxlt_tier_has_blade(const char *blade);
ssize_t cxlt_tiers_of_blade_show(const char *blade, char *buf);
int cxlt_node_fenced_blade(int nid, char *blade, size_t len);
int cxlt_tier_fenced_range(const char *name, struct cxlt_fence_range *fr);
int cxlt_pfn_blades(unsigned long pfn, struct cxlt_blade_name *names, int max);
void cxlt_tiers_auto_register(void);
void cxlt_tiers_start(struct kobject *dir);
void cxlt_tiers_exit(void);

#endif /* _CXLT_TIER_H */
