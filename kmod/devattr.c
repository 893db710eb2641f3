// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: using other subsystems through their sysfs ABI
 *
 * This file is the one place where cxltier drives other subsystems through sysfs,
 * and why it must:
 *
 * - The CXL core keeps its objects (struct cxl_memdev, cxl_region, cxl_port, ...) in
 *   headers private to drivers/cxl, and their layout changes between kernel
 *   releases.  What it publishes as a stable contract is its sysfs ABI
 *   (Documentation/ABI/testing/sysfs-bus-cxl).  cxltier reads CXL devices' attributes
 *   and follows the "uport" link of an endpoint port to its memdev.
 * - Linux 6.12 exports neither device_online() nor lock_device_hotplug(), so the only
 *   way for a module to online hot-added memory into ZONE_MOVABLE is the memory
 *   block's "state" attribute (memblock.c), exactly as daxctl does for kmem.
 *
 * It goes through the VFS, on a private kernel mount of sysfs, never through kernfs
 * nodes or attribute methods directly: an open sysfs file holds kernfs active
 * protection, so the attribute's show() or store() runs only while its device is
 * registered (device_del() waits for it to finish), and nothing here depends on a
 * kernfs node's private pointer staying a live kobject.  The private mount does not
 * depend on where (or whether) the caller's mount namespace has sysfs, and files
 * are opened with the module's own kernel credentials, so what cxltier can read does
 * not depend on who triggered it (only root can write the attributes that lead here).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxltier.h"

/* A sysfs page, as show() methods emit. */
#define CXLT_ATTR_MAX	PAGE_SIZE

static struct vfsmount *cxlt_sysfs_mnt;
static const struct cred *cxlt_kcred;

/*
 * Open @path (relative to the sysfs root) with the module's credentials.  Returns
 * the file or an ERR_PTR.
 */
static struct file *cxlt_sysfs_open(const char *path, int flags)
{
	const struct cred *old;
	struct file *file;

	if (!cxlt_sysfs_mnt)
		return ERR_PTR(-ENODEV);
	old = override_creds(cxlt_kcred);
	file = file_open_root_mnt(cxlt_sysfs_mnt, path, flags, 0);
	revert_creds(old);
	return file;
}

/**
 * cxlt_sysfs_read() - read a sysfs attribute
 * @path: path below the sysfs root, e.g. "bus/cxl/devices/region0/mode"
 * @out: buffer for the value, without surrounding white space
 * @outlen: size of @out
 *
 * Context: process context; may sleep (the attribute's show() may take locks).
 * Return: 0; -ENOENT when there is no such (visible) attribute; -EOVERFLOW when the
 * value does not fit in @out; or the error of the read.
 */
int cxlt_sysfs_read(const char *path, char *out, size_t outlen)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t len;
	char *buf;

	buf = kmalloc(CXLT_ATTR_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	file = cxlt_sysfs_open(path, O_RDONLY);
	if (IS_ERR(file)) {
		len = PTR_ERR(file);
		goto out;
	}
	len = kernel_read(file, buf, CXLT_ATTR_MAX - 1, &pos);
	fput(file);
	if (len < 0)
		goto out;
	buf[len] = '\0';
	if (strscpy(out, strim(buf), outlen) < 0)
		len = -EOVERFLOW;
out:
	kfree(buf);
	return len < 0 ? len : 0;
}

/**
 * cxlt_sysfs_write() - write a sysfs attribute, as userspace would
 * @path: path below the sysfs root
 * @val: the string to write
 *
 * Context: process context; may sleep.
 * Return: 0 or the error of the open or the write (the attribute's store()).
 */
int cxlt_sysfs_write(const char *path, const char *val)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t rc;

	file = cxlt_sysfs_open(path, O_WRONLY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	rc = kernel_write(file, val, strlen(val), &pos);
	fput(file);
	return rc < 0 ? rc : 0;
}

/**
 * cxlt_sysfs_link_name() - the name of the directory a sysfs link points to
 * @path: path of the link below the sysfs root, e.g. "bus/cxl/devices/endpoint5/uport"
 * @out: the last component of the link's target, e.g. "mem0"
 * @outlen: size of @out
 *
 * Context: process context.
 * Return: 0; -ENOENT no such link; -EOVERFLOW @out too small.
 */
int cxlt_sysfs_link_name(const char *path, char *out, size_t outlen)
{
	const struct cred *old;
	struct path p;
	int rc;

	if (!cxlt_sysfs_mnt)
		return -ENODEV;
	old = override_creds(cxlt_kcred);
	rc = vfs_path_lookup(cxlt_sysfs_mnt->mnt_root, cxlt_sysfs_mnt, path, LOOKUP_FOLLOW,
			     &p);
	revert_creds(old);
	if (rc)
		return rc;
	/* %pd reads the name safely against a concurrent rename. */
	rc = snprintf(out, outlen, "%pd", p.dentry) >= outlen ? -EOVERFLOW : 0;
	path_put(&p);
	return rc;
}

/* "bus/cxl/devices/<dev>[/<group>]/<name>"; -ENAMETOOLONG when it does not fit. */
static int cxlt_cxl_attr_path(char *path, size_t len, struct device *dev,
			      const char *group, const char *name)
{
	int n;

	n = snprintf(path, len, "bus/cxl/devices/%s/%s%s%s", dev_name(dev),
		     group ?: "", group ? "/" : "", name);
	return n >= len ? -ENAMETOOLONG : 0;
}

/**
 * cxlt_dev_attr_read() - read one sysfs attribute of a CXL device
 * @dev: a device on the CXL bus (the caller holds a reference)
 * @group: attribute group name (e.g. "ram" for ram/size), NULL for top-level attributes
 * @name: attribute name
 * @out: buffer for the value, without the trailing newline
 * @outlen: size of @out
 *
 * Context: process context; may sleep (the show() methods take CXL core locks).
 * Return: as cxlt_sysfs_read().
 */
int cxlt_dev_attr_read(struct device *dev, const char *group, const char *name,
		       char *out, size_t outlen)
{
	char path[128];
	int rc;

	rc = cxlt_cxl_attr_path(path, sizeof(path), dev, group, name);
	return rc ?: cxlt_sysfs_read(path, out, outlen);
}

/**
 * cxlt_dev_attr_u64() - read a numeric sysfs attribute of a CXL device
 * @dev: the device
 * @group: attribute group name or NULL
 * @name: attribute name
 * @val: the value; decimal, 0x-prefixed hexadecimal and octal are accepted
 *
 * Return: 0 or a negative errno (-EINVAL when the value is not a number).
 */
int cxlt_dev_attr_u64(struct device *dev, const char *group, const char *name, u64 *val)
{
	char buf[32];
	int rc;

	rc = cxlt_dev_attr_read(dev, group, name, buf, sizeof(buf));
	if (rc)
		return rc;
	return kstrtou64(buf, 0, val);
}

/**
 * cxlt_dev_link_target() - follow a sysfs link of a CXL device to the CXL device
 * it names
 * @dev: a device on the CXL bus owning the link
 * @link: link name, e.g. "uport"
 *
 * Return: the target device, looked up on the CXL bus by name, with a reference the
 * caller drops with put_device(); NULL when there is no such link or the target is
 * not (or no longer) on the CXL bus.
 */
struct device *cxlt_dev_link_target(struct device *dev, const char *link)
{
	char path[128], name[CXLT_NAME_LEN];

	if (cxlt_cxl_attr_path(path, sizeof(path), dev, NULL, link) ||
	    cxlt_sysfs_link_name(path, name, sizeof(name)))
		return NULL;
	return bus_find_device_by_name(&cxl_bus_type, NULL, name);
}

/**
 * cxlt_dev_is_type() - test a device's type by name
 * @dev: device
 * @type_name: name of a struct device_type, e.g. "cxl_memdev"
 *
 * Return: true when @dev has a type called @type_name.
 */
bool cxlt_dev_is_type(struct device *dev, const char *type_name)
{
	return dev->type && dev->type->name && !strcmp(dev->type->name, type_name);
}

/**
 * cxlt_devattr_init() - mount the private sysfs instance
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int cxlt_devattr_init(void)
{
	struct file_system_type *fs;
	struct vfsmount *mnt;
	struct cred *cred;

	cred = prepare_kernel_cred(&init_task);
	if (!cred)
		return -ENOMEM;
	fs = get_fs_type("sysfs");
	if (!fs) {
		put_cred(cred);
		return -ENODEV;
	}
	mnt = kern_mount(fs);
	/* put_filesystem() is not exported; it is this, and sysfs is built in. */
	module_put(fs->owner);
	if (IS_ERR(mnt)) {
		put_cred(cred);
		return PTR_ERR(mnt);
	}
	cxlt_kcred = cred;
	cxlt_sysfs_mnt = mnt;
	return 0;
}

void cxlt_devattr_exit(void)
{
	kern_unmount(cxlt_sysfs_mnt);
	cxlt_sysfs_mnt = NULL;
	put_cred(cxlt_kcred);
	cxlt_kcred = NULL;
}
