/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reclaim.c: region pages give DRAM back when reclaim needs it.  See "DOC: giving
 * DRAM back under memory pressure" in reclaim.c.
 */
#ifndef _CXLT_RECLAIM_H
#define _CXLT_RECLAIM_H

#include <linux/types.h>

int cxlt_reclaim_init(void);
void cxlt_reclaim_exit(void);
u64 cxlt_reclaim_demoted(void);

#endif /* _CXLT_RECLAIM_H */
