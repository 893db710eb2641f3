/* SPDX-License-Identifier: GPL-2.0 */
/*
 * discover.c: the mirror of CXL memdevs ("blades") and CXL regions, and
 * /sys/kernel/cxltier/blades/<memdev> and cxl_regions/<region>.
 */
#ifndef _CXLT_DISCOVER_H
#define _CXLT_DISCOVER_H

struct kobject;

int cxlt_discover_init(struct kobject *blades_dir);
void cxlt_discover_exit(void);
int cxlt_rescan(void);

#endif /* _CXLT_DISCOVER_H */
