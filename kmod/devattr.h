/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devattr.c and memblock.c: the one place where cxltier drives other subsystems
 * (the CXL core, memory hotplug) through their sysfs ABI; devattr.c says why.
 */
#ifndef _CXLT_DEVATTR_H
#define _CXLT_DEVATTR_H

#include <linux/types.h>

struct device;

/* devattr.c */
int cxlt_devattr_init(void);
void cxlt_devattr_exit(void);
int cxlt_sysfs_read(const char *path, char *out, size_t outlen);
int cxlt_sysfs_write(const char *path, const char *val);
int cxlt_sysfs_link_name(const char *path, char *out, size_t outlen);
int cxlt_dev_attr_read(struct device *dev, const char *group, const char *name,
		       char *out, size_t outlen);
int cxlt_dev_attr_u64(struct device *dev, const char *group, const char *name,
		      u64 *val);
struct device *cxlt_dev_link_target(struct device *dev, const char *link);
bool cxlt_dev_is_type(struct device *dev, const char *type_name);

/* memblock.c */
int cxlt_memblocks_online_movable(u64 start, u64 size);

#endif /* _CXLT_DEVATTR_H */
