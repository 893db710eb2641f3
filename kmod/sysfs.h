/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs.c: /sys/kernel/cxltier, its files and the directories whose entries other
 * files own (main.c hands each directory to its owner).
 */
#ifndef _CXLT_SYSFS_H
#define _CXLT_SYSFS_H

struct kobject;

int cxlt_sysfs_init(void);
void cxlt_sysfs_exit(void);
struct kobject *cxlt_sysfs_blades_dir(void);
struct kobject *cxlt_sysfs_tiers_dir(void);
struct kobject *cxlt_sysfs_root(void);

#endif /* _CXLT_SYSFS_H */
