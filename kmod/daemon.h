/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon.c: cxltierd, the migration daemon, and /sys/kernel/cxltier/daemon.
 */
#ifndef _CXLT_DAEMON_H
#define _CXLT_DAEMON_H

struct kobject;
struct cxltier_process;

int cxlt_daemon_init(struct kobject *root);
void cxlt_daemon_exit(void);
void cxlt_daemon_process(struct cxltier_process *rep);

#endif /* _CXLT_DAEMON_H */
