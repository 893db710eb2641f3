/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain.c: taking a blade out of service without losing a page, and back.
 */
#ifndef _CXLT_DRAIN_H
#define _CXLT_DRAIN_H

int cxlt_blade_drain(const char *blade);
int cxlt_blade_restore(const char *blade);
void cxlt_drain_init(void);

#endif /* _CXLT_DRAIN_H */
