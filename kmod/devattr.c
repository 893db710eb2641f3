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
 *
 * Every access runs on a worker of the module's own workqueue while the caller
 * waits (killably), never in the caller's context: the callers are often inside a
 * sysfs show() or store() of cxltier's own, which holds that file's kernfs and
 * seq_file locks, and reading another sysfs file there would nest locks of the same
 * classes (lockdep reports it as recursive locking, and rightly treats the
 * dependency as one).  The worker holds no lock of ours or of the caller's; a
 * caller killed while it waits leaves the request to finish on its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "cxltier.h"
#include "devattr.h"

/* A sysfs page, as show() methods emit. */
#define CXLT_ATTR_MAX	PAGE_SIZE

static struct vfsmount *cxlt_sysfs_mnt;
static const struct cred *cxlt_kcred;
static struct workqueue_struct *cxlt_sysfs_wq;

enum cxlt_sysfs_op {
	CXLT_SYSFS_READ,
	CXLT_SYSFS_WRITE,
	CXLT_SYSFS_LINK,
};

/**
 * struct cxlt_sysfs_req - one access, run by cxlt_sysfs_workfn()
 * @work: on cxlt_sysfs_wq
 * @done: completed by the worker
 * @ref: the caller's and the worker's
 * @cancelled: the caller was killed and no longer waits
 * @op: what to do
 * @rc: the result
 * @outlen: room at the start of @buf for a read's value or a link's name
 * @path: the path, in @buf after the result
 * @val: the value to write, in @buf after the path; NULL for reads
 * @buf: the result, the path and the value
 */
struct cxlt_sysfs_req {
	struct work_struct work;
	struct completion done;
	refcount_t ref;
	bool cancelled;
	enum cxlt_sysfs_op op;
	int rc;
	size_t outlen;
	char *path;
	char *val;
	char buf[];
};

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

/* Read @path into @out (the worker's side of cxlt_sysfs_read()). */
static int __cxlt_sysfs_read(const char *path, char *out, size_t outlen)
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

/*
 * Write @val to @path (the worker's side of cxlt_sysfs_write()).  A store that
 * wants a busy lock asks for a syscall restart (memory blocks' state takes the
 * device hotplug lock with a trylock and sets TIF_SIGPENDING): this worker is not
 * a syscall, so clear the flag again and retry, until the caller gives up.
 */
static int __cxlt_sysfs_write(struct cxlt_sysfs_req *req)
{
	/* A kernel thread's sighand never changes under it. */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, 1);
	struct file *file;
	loff_t pos;
	ssize_t rc;

	file = cxlt_sysfs_open(req->path, O_WRONLY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	for (;;) {
		pos = 0;
		rc = kernel_write(file, req->val, strlen(req->val), &pos);
		if (rc != -ERESTARTNOINTR)
			break;
		spin_lock_irq(&sighand->siglock);
		recalc_sigpending();
		spin_unlock_irq(&sighand->siglock);
		if (READ_ONCE(req->cancelled)) {
			rc = -EINTR;
			break;
		}
		schedule_timeout_uninterruptible(1);
	}
	fput(file);
	return rc < 0 ? rc : 0;
}

/* The target's name of the link @path (the worker's side of cxlt_sysfs_link_name()). */
static int __cxlt_sysfs_link_name(const char *path, char *out, size_t outlen)
{
	const struct cred *old;
	struct path p;
	int rc;

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

static void cxlt_sysfs_req_put(struct cxlt_sysfs_req *req)
{
	if (refcount_dec_and_test(&req->ref))
		kfree(req);
}

static void cxlt_sysfs_workfn(struct work_struct *work)
{
	struct cxlt_sysfs_req *req = container_of(work, struct cxlt_sysfs_req, work);

	switch (req->op) {
	case CXLT_SYSFS_READ:
		req->rc = __cxlt_sysfs_read(req->path, req->buf, req->outlen);
		break;
	case CXLT_SYSFS_WRITE:
		req->rc = __cxlt_sysfs_write(req);
		break;
	case CXLT_SYSFS_LINK:
		req->rc = __cxlt_sysfs_link_name(req->path, req->buf, req->outlen);
		break;
	}
	complete(&req->done);
	cxlt_sysfs_req_put(req);
}

/*
 * Run one access on the worker and wait for it.  @out/@outlen: where a read's value
 * or a link's name goes; @val: what a write writes.
 */
static int cxlt_sysfs_call(enum cxlt_sysfs_op op, const char *path, const char *val,
			   char *out, size_t outlen)
{
	size_t plen = strlen(path) + 1, vlen = val ? strlen(val) + 1 : 0;
	struct cxlt_sysfs_req *req;
	int rc;

	if (!cxlt_sysfs_mnt)
		return -ENODEV;
	/* @buf holds the result first (outlen bytes), then the path and the value. */
	req = kzalloc(struct_size(req, buf, outlen + plen + vlen), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	INIT_WORK(&req->work, cxlt_sysfs_workfn);
	init_completion(&req->done);
	refcount_set(&req->ref, 2);
	req->op = op;
	req->outlen = outlen;
	req->path = req->buf + outlen;
	memcpy(req->path, path, plen);
	if (val) {
		req->val = req->path + plen;
		memcpy(req->val, val, vlen);
	}
	queue_work(cxlt_sysfs_wq, &req->work);
	if (wait_for_completion_killable(&req->done)) {
		WRITE_ONCE(req->cancelled, true);
		cxlt_sysfs_req_put(req);
		return -EINTR;
	}
	rc = req->rc;
	if (!rc && out)
		memcpy(out, req->buf, outlen);
	cxlt_sysfs_req_put(req);
	return rc;
}

/**
 * cxlt_sysfs_read() - read a sysfs attribute
 * @path: path below the sysfs root, e.g. "bus/cxl/devices/region0/mode"
 * @out: buffer for the value, without surrounding white space
 * @outlen: size of @out
 *
 * Context: process context; sleeps until the attribute's show() returned.
 * Return: 0; -ENOENT when there is no such (visible) attribute; -EOVERFLOW when the
 * value does not fit in @out; -EINTR when killed; or the error of the read.
 */
int cxlt_sysfs_read(const char *path, char *out, size_t outlen)
{
	return cxlt_sysfs_call(CXLT_SYSFS_READ, path, NULL, out, outlen);
}

/**
 * cxlt_sysfs_write() - write a sysfs attribute, as userspace would
 * @path: path below the sysfs root
 * @val: the string to write
 *
 * Context: process context; sleeps until the attribute's store() returned.
 * Return: 0; -EINTR when killed; or the error of the open or the store().
 */
int cxlt_sysfs_write(const char *path, const char *val)
{
	return cxlt_sysfs_call(CXLT_SYSFS_WRITE, path, val, NULL, 0);
}

/**
 * cxlt_sysfs_link_name() - the name of the directory a sysfs link points to
 * @path: path of the link below the sysfs root, e.g. "bus/cxl/devices/endpoint5/uport"
 * @out: the last component of the link's target, e.g. "mem0"
 * @outlen: size of @out
 *
 * Context: process context.
 * Return: 0; -ENOENT no such link; -EOVERFLOW @out too small; -EINTR when killed.
 */
int cxlt_sysfs_link_name(const char *path, char *out, size_t outlen)
{
	return cxlt_sysfs_call(CXLT_SYSFS_LINK, path, NULL, out, outlen);
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

	int rc;

	cred = prepare_kernel_cred(&init_task);
	if (!cred)
		return -ENOMEM;
	fs = get_fs_type("sysfs");
	if (!fs) {
		rc = -ENODEV;
		goto err_cred;
	}
	mnt = kern_mount(fs);
	/* put_filesystem() is not exported; it is this, and sysfs is built in. */
	module_put(fs->owner);
	if (IS_ERR(mnt)) {
		rc = PTR_ERR(mnt);
		goto err_cred;
	}
	/* Unbound: a slow store (onlining memory) must not hold up other accesses. */
	cxlt_sysfs_wq = alloc_workqueue("cxltier_sysfs", WQ_UNBOUND, 0);
	if (!cxlt_sysfs_wq) {
		rc = -ENOMEM;
		goto err_unmount;
	}
	cxlt_kcred = cred;
	cxlt_sysfs_mnt = mnt;
	return 0;

err_unmount:
	kern_unmount(mnt);
err_cred:
	put_cred(cred);
	return rc;
}

void cxlt_devattr_exit(void)
{
	/* Requests of killed callers may still run. */
	destroy_workqueue(cxlt_sysfs_wq);
	kern_unmount(cxlt_sysfs_mnt);
	cxlt_sysfs_mnt = NULL;
	put_cred(cxlt_kcred);
	cxlt_kcred = NULL;
}
