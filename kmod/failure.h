/* SPDX-License-Identifier: GPL-2.0 */
/*
 * failure.c: what makes cxltier fence: a blade or a tier's CXL region going away
 * (CXL bus notifier), poison records, media error events and uncorrectable errors
 * (the CXL core's tracepoints).
 */
#ifndef _CXLT_FAILURE_H
#define _CXLT_FAILURE_H

struct device;

void cxlt_failure_bus_event(struct device *dev, unsigned long action);
void cxlt_failure_init(void);
void cxlt_failure_exit(void);

#endif /* _CXLT_FAILURE_H */
