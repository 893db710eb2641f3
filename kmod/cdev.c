// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: /dev/cxltier and region files
 *
 * The misc device through which processes create, open, destroy, list and stat
 * global regions (include/uapi/linux/cxltier.h, Documentation/ABI/testing/
 * dev-cxltier), and the region files that OPEN returns: every file_operations of
 * the module is here, and the verbs they call are region.c's.  Opening the device
 * is the right to create regions, which costs the host unevictable memory, so it
 * is not for everyone: devtmpfs creates it mode dev_mode (default 0660) owned by
 * root, and the udev rule the project ships (udev/60-cxltier.rules) gives it to the
 * group "cxltier".  Access to each region is then checked per region (region.c)
 * and charged per user (user.c).
 *
 * Every command is handled the same way: copy the struct in (its size comes from
 * the command number and must match its @size field; a longer struct from a newer
 * caller is accepted when the part this module does not know is zero), validate
 * everything (flags, reserved fields, names, sizes, node masks), then call one
 * function per verb, then copy the result out.  Bad input gets a clear errno; the
 * reason goes to the kernel log at debug level only (dynamic debug), because any
 * user of the device can send bad input at will.
 *
 * A region file is a file on the region's inode (region_mm.c), so that every
 * mapping of the region joins one address_space.  It holds a reference on the
 * region, and on the module through its file_operations' owner; it is mapped with
 * mmap() (region_mm.c) and answers CXLTIER_IOC_STAT about its region.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxltier.h"
#include "cdev.h"
#include "daemon.h"
#include "events.h"
#include "pool.h"
#include "region.h"
#include "region_mm.h"

static unsigned int dev_mode = 0660;
module_param(dev_mode, uint, 0444);
MODULE_PARM_DESC(dev_mode,
		 "Mode of /dev/cxltier as devtmpfs creates it (default 0660: root and, with the shipped udev rule, group cxltier)");

/* Why a request was refused, for whoever enabled dynamic debug. */
#define cxlt_bad(verb, fmt, ...)						\
	pr_debug("ioctl %s (%s[%d]): " fmt "\n", verb, current->comm,		\
		 task_pid_nr(current), ##__VA_ARGS__)

/*
 * Copy in the struct of a command.  @cmd's direction and type were matched by the
 * caller; its size is the caller's struct size, which must be at least the first
 * version's, @kmin (STAT has grown since; the others are at their first version),
 * and equal to @size, the struct's first field.
 */
static int cxlt_copy_in_min(const char *verb, unsigned int cmd, void *karg, size_t ksize,
			    size_t kmin, const void __user *uarg)
{
	u32 usize = _IOC_SIZE(cmd);
	int rc;

	if (usize < kmin) {
		cxlt_bad(verb, "struct of %u bytes, version 1 has %zu", usize, kmin);
		return -EINVAL;
	}
	rc = copy_struct_from_user(karg, ksize, uarg, usize);
	if (rc == -E2BIG)
		cxlt_bad(verb, "struct of %u bytes is nonzero beyond the %zu known bytes",
			 usize, ksize);
	if (rc)
		return rc;
	if (*(u32 *)karg != usize) {
		cxlt_bad(verb, "size field %u does not match the command's struct size %u",
			 *(u32 *)karg, usize);
		return -EINVAL;
	}
	return 0;
}

/* A struct that has not grown since version 1: its size is its minimum. */
static int cxlt_copy_in(const char *verb, unsigned int cmd, void *karg, size_t ksize,
			const void __user *uarg)
{
	return cxlt_copy_in_min(verb, cmd, karg, ksize, ksize, uarg);
}

static int cxlt_copy_out(unsigned int cmd, void __user *uarg, const void *karg,
			 size_t ksize)
{
	return copy_to_user(uarg, karg, min_t(size_t, _IOC_SIZE(cmd), ksize)) ? -EFAULT : 0;
}

static int cxlt_check_flags(const char *verb, u32 flags, u32 known)
{
	if (flags & ~known) {
		cxlt_bad(verb, "unknown flags %#x", flags & ~known);
		return -EINVAL;
	}
	return 0;
}

static int cxlt_check_zero(const char *verb, const void *p, size_t len)
{
	if (memchr_inv(p, 0, len)) {
		cxlt_bad(verb, "reserved fields are not zero");
		return -EINVAL;
	}
	return 0;
}

/*
 * A name: 1-63 bytes of printable ASCII other than '/' and space, NUL-terminated in
 * its array and zero after the NUL (so an uninitialised buffer is caught).
 */
static int cxlt_check_name(const char *verb, const char *name)
{
	size_t len = strnlen(name, CXLTIER_NAME_MAX), i;

	if (len == CXLTIER_NAME_MAX) {
		cxlt_bad(verb, "name has no NUL within %d bytes (at most %d bytes)",
			 CXLTIER_NAME_MAX, CXLTIER_NAME_MAX - 1);
		return -ENAMETOOLONG;
	}
	if (!len) {
		cxlt_bad(verb, "empty name");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		u8 c = name[i];

		/* Printable ASCII; the kernel's isgraph() also takes Latin-1. */
		if (c <= ' ' || c >= 0x7f || c == '/') {
			cxlt_bad(verb, "name has byte %#x at %zu (not printable ASCII, or '/')",
				 c, i);
			return -EINVAL;
		}
	}
	if (memchr_inv(name + len, 0, CXLTIER_NAME_MAX - len)) {
		cxlt_bad(verb, "name has nonzero bytes after its NUL");
		return -EINVAL;
	}
	return 0;
}

/*
 * The region selector of a command: an id with CXLTIER_BY_ID, else a name.  Where
 * the id is an input only (@id_in, DESTROY and SET_POLICY), it must be 0 when the
 * name selects, so that it can be given a meaning later; where it is also an
 * output (OPEN, STAT), its input value is ignored.
 */
static int cxlt_check_sel(const char *verb, u32 flags, u32 id, bool id_in,
			  const char *name)
{
	if (!(flags & CXLTIER_BY_ID)) {
		if (id_in && id) {
			cxlt_bad(verb, "id %u without CXLTIER_BY_ID", id);
			return -EINVAL;
		}
		return cxlt_check_name(verb, name);
	}
	if (!id || id > CXLTIER_REGION_ID_MAX) {
		cxlt_bad(verb, "region id %u is out of range (1-%u)", id, CXLTIER_REGION_ID_MAX);
		return -EINVAL;
	}
	return cxlt_check_zero(verb, name, CXLTIER_NAME_MAX);
}

static int cxlt_check_policy(const char *verb, u32 policy)
{
	if (policy > CXLTIER_POLICY_MAX) {
		cxlt_bad(verb, "unknown policy %u", policy);
		return -EINVAL;
	}
	return 0;
}

static int cxlt_check_nodes(const char *verb, const __u64 *words)
{
	int bit;

	for (bit = nr_node_ids; bit < CXLTIER_NODE_WORDS * 64; bit++) {
		if (words[bit / 64] & BIT_ULL(bit % 64)) {
			cxlt_bad(verb, "node %d is not possible (nr_node_ids %u)", bit,
				 nr_node_ids);
			return -EINVAL;
		}
	}
	return 0;
}

/* --- region files ------------------------------------------------------------------ */

static long cxlt_region_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

static int cxlt_region_file_release(struct inode *inode, struct file *file)
{
	struct cxlt_region *r = file->private_data;

	atomic_dec(&r->nr_files);
	cxlt_region_file_closed(r);
	cxlt_pool_region_close(r);
	cxlt_region_put(r);
	return 0;
}

/*
 * msync(MS_SYNC) and fsync(): a volatile region has nothing to write back; a
 * persistent one has its range written back from the CPU caches.
 */
static int cxlt_region_file_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct cxlt_region *r = file->private_data;

	return r->pool ? cxlt_pool_sync(r, start, end) : 0;
}

static const struct file_operations cxlt_region_fops = {
	.owner = THIS_MODULE,
	.mmap = cxlt_region_mmap,
	.release = cxlt_region_file_release,
	.unlocked_ioctl = cxlt_region_file_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.fsync = cxlt_region_file_fsync,
	.llseek = noop_llseek,
};

/*
 * OPEN: a region file for the region @args selects, if the caller may access it.
 * Returns a reserved file descriptor (O_CLOEXEC), with the file in *@filep, not
 * installed yet: the caller installs it once it has copied the result out, or
 * drops both with fput() and put_unused_fd().  Errors: -ENOENT no such region;
 * -EACCES permission denied; -EMFILE; -ENOMEM.
 */
static int cxlt_region_file_open(struct cxltier_open *args, struct file **filep)
{
	char dname[CXLTIER_NAME_MAX + 8];
	struct cxlt_region *r;
	struct file *file;
	int fflags, fd, rc;

	rc = cxlt_region_open(args, &r);
	if (rc == -ENOENT) {
		/* Made on another host of a shared pool since this one last looked? */
		cxlt_pools_sync_shared();
		rc = cxlt_region_open(args, &r);
	}
	if (rc)
		return rc;
	/* A shared pool's region: held open on the device, or destroyed elsewhere. */
	rc = cxlt_pool_region_open(r);
	if (rc) {
		cxlt_region_put(r);
		return rc;
	}
	fflags = !(args->flags & CXLTIER_OPEN_WRITE) ? O_RDONLY :
		 args->flags & CXLTIER_OPEN_READ ? O_RDWR : O_WRONLY;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		rc = fd;
		goto err_put;
	}
	snprintf(dname, sizeof(dname), "cxltier:%s", r->name);
	/*
	 * alloc_file_pseudo() does not take the reference on the fops' owner that
	 * the file's last fput() drops; we run inside an ioctl of our own device,
	 * so the module is live.
	 */
	__module_get(THIS_MODULE);
	file = cxlt_region_inode_file(r, dname, fflags, &cxlt_region_fops);
	if (IS_ERR(file)) {
		rc = PTR_ERR(file);
		module_put(THIS_MODULE);
		goto err_put_fd;
	}
	file->private_data = r;		/* the file now owns our reference */
	atomic_inc(&r->nr_files);

	args->fd = fd;
	*filep = file;
	return fd;

err_put_fd:
	put_unused_fd(fd);
err_put:
	cxlt_pool_region_close(r);
	cxlt_region_put(r);
	return rc;
}

/* --- /dev/cxltier ------------------------------------------------------------------- */

static long cxlt_ioc_create(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "create";
	struct cxltier_create a;
	int rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg);
	if (rc)
		return rc;
	rc = cxlt_check_flags(verb, a.flags, CXLTIER_CREATE_FLAGS) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, &a.reserved, sizeof(a.reserved)) ?:
	     cxlt_check_name(verb, a.name) ?:
	     cxlt_check_policy(verb, a.policy) ?:
	     cxlt_check_nodes(verb, a.nodes);
	if (rc)
		return rc;
	if (!a.length || !PAGE_ALIGNED(a.length)) {
		cxlt_bad(verb, "length %llu is not a nonzero multiple of %lu", a.length, PAGE_SIZE);
		return -EINVAL;
	}
	if (a.length > CXLTIER_LENGTH_MAX) {
		cxlt_bad(verb, "length %llu is beyond what a handle can address (%llu)", a.length,
			 CXLTIER_LENGTH_MAX);
		return -EINVAL;
	}
	if (strnlen(a.pool, sizeof(a.pool)) == sizeof(a.pool) ||
	    memchr_inv(a.pool + strlen(a.pool), 0, sizeof(a.pool) - strlen(a.pool))) {
		cxlt_bad(verb, "pool name has no NUL within %zu bytes, or bytes after it",
			 sizeof(a.pool));
		return -EINVAL;
	}
	if (!(a.flags & CXLTIER_CREATE_PERSISTENT) && a.pool[0]) {
		cxlt_bad(verb, "a pool without CXLTIER_CREATE_PERSISTENT");
		return -EINVAL;
	}
	if ((a.flags & CXLTIER_CREATE_PERSISTENT) &&
	    (a.policy || memchr_inv(a.nodes, 0, sizeof(a.nodes)))) {
		cxlt_bad(verb, "a persistent region takes no policy or nodes");
		return -EINVAL;
	}
	if (a.flags & CXLTIER_CREATE_MODE ? a.mode & ~0777 : a.mode) {
		cxlt_bad(verb, "mode %#o: not permission bits, or no CXLTIER_CREATE_MODE",
			 a.mode);
		return -EINVAL;
	}
	rc = a.flags & CXLTIER_CREATE_PERSISTENT ? cxlt_pool_create(&a, &a.id) :
		cxlt_region_create(&a, &a.id);
	if (rc)
		return rc;
	/*
	 * The region exists even if the id cannot be copied out; the caller can
	 * still open it by name or destroy it.
	 */
	return cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

static long cxlt_ioc_open(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "open";
	struct cxltier_open a;
	struct file *file;
	int rc, fd;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg);
	if (rc)
		return rc;
	rc = cxlt_check_flags(verb, a.flags, CXLTIER_OPEN_FLAGS) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved)) ?:
	     cxlt_check_sel(verb, a.flags, a.id, false, a.name);
	if (rc)
		return rc;
	if (!(a.flags & CXLTIER_OPEN_READ)) {
		/* mmap() of any file needs read access; a write-only file is useless. */
		cxlt_bad(verb, "no CXLTIER_OPEN_READ (mapping needs read access)");
		return -EINVAL;
	}
	fd = cxlt_region_file_open(&a, &file);
	if (fd < 0)
		return fd;
	rc = cxlt_copy_out(cmd, uarg, &a, sizeof(a));
	if (rc) {
		fput(file);
		put_unused_fd(fd);
		return rc;
	}
	fd_install(fd, file);
	return 0;
}

static long cxlt_ioc_destroy(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "destroy";
	struct cxltier_destroy a;
	int rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg);
	if (rc)
		return rc;
	rc = cxlt_check_flags(verb, a.flags, CXLTIER_DESTROY_FLAGS) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved)) ?:
	     cxlt_check_sel(verb, a.flags, a.id, true, a.name);
	if (rc)
		return rc;
	return cxlt_region_destroy(&a);
}

static long cxlt_ioc_list(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "list";
	struct cxltier_list a;
	int rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg);
	if (rc)
		return rc;
	rc = cxlt_check_flags(verb, a.flags, 0) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (rc)
		return rc;
	if (a.count && !a.entries) {
		cxlt_bad(verb, "room for %u entries at address 0", a.count);
		return -EFAULT;
	}
	/* There are never more regions than ids. */
	a.count = min_t(u32, a.count, CXLTIER_REGION_ID_MAX);
	/* What other hosts of a shared pool made or destroyed since the last heartbeat. */
	cxlt_pools_sync_shared();
	rc = cxlt_region_list(&a);
	if (rc)
		return rc;
	return cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

/* STAT on /dev/cxltier (@r NULL: select by the struct) or on a region file (@r). */
static long cxlt_ioc_stat(unsigned int cmd, void __user *uarg, struct cxlt_region *r)
{
	static const char verb[] = "stat";
	struct cxltier_stat *a __free(kfree) = kmalloc(sizeof(*a), GFP_KERNEL);
	struct cxlt_region *found __free(cxlt_region_put) = NULL;
	long rc;

	if (!a)
		return -ENOMEM;
	/* Version 1 ended at @pool_offset (then reserved); the migration counters came later. */
	rc = cxlt_copy_in_min(verb, cmd, a, sizeof(*a),
			      offsetofend(struct cxltier_stat, pool_offset), uarg) ?:
	     cxlt_check_flags(verb, a->flags, r ? 0 : CXLTIER_STAT_FLAGS) ?:
	     cxlt_check_zero(verb, a->pool, offsetofend(typeof(*a), pool_offset) -
			     offsetof(typeof(*a), pool));
	if (!rc && !r)
		rc = cxlt_check_sel(verb, a->flags, a->id, false, a->name);
	if (rc)
		return rc;
	if ((a->node_count && !a->node_pages) || (a->blade_count && !a->blade_pages)) {
		cxlt_bad(verb, "room for %u nodes and %u blades with an array at address 0",
			 a->node_count, a->blade_count);
		return -EFAULT;
	}
	if (!r) {
		found = cxlt_region_get(a->flags & CXLTIER_BY_ID, a->id, a->name);
		if (!found)
			return -ENOENT;
		rc = cxlt_region_may_stat(found);
		if (rc) {
			cxlt_bad(verb, "no read permission on region %s", found->name);
			return rc;
		}
		r = found;
	}
	return cxlt_region_stat(r, a) ?: cxlt_copy_out(cmd, uarg, a, sizeof(*a));
}

static long cxlt_ioc_set_policy(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "set-policy";
	struct cxltier_set_policy *a __free(kfree) = kmalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	return cxlt_copy_in(verb, cmd, a, sizeof(*a), uarg) ?:
	       cxlt_check_flags(verb, a->flags, CXLTIER_SET_POLICY_FLAGS) ?:
	       cxlt_check_zero(verb, a->reserved, sizeof(a->reserved)) ?:
	       cxlt_check_sel(verb, a->flags, a->id, true, a->name) ?:
	       cxlt_check_policy(verb, a->policy) ?:
	       cxlt_check_nodes(verb, a->nodes) ?:
	       cxlt_region_set_policy(a);
}

/* A page-aligned, nonempty byte range: checked before the region is looked up. */
static int cxlt_check_aligned(const char *verb, u64 offset, u64 length)
{
	if (!PAGE_ALIGNED(offset) || !PAGE_ALIGNED(length) || !length) {
		cxlt_bad(verb, "offset %#llx, length %#llx: not nonzero page multiples",
			 offset, length);
		return -EINVAL;
	}
	return 0;
}

/* ...and within the region: checked once it is found. */
static int cxlt_check_range(const char *verb, struct cxlt_region *r, u64 offset, u64 length)
{
	if (offset >= r->size || length > r->size - offset) {
		cxlt_bad(verb, "range %#llx+%#llx is beyond the end of region %s (%#llx bytes)",
			 offset, length, r->name, r->size);
		return -EINVAL;
	}
	return 0;
}

/* On a region file, the file selects the region: no id, no name. */
static int cxlt_check_no_sel(const char *verb, u32 id, const char *name)
{
	if (id || name[0]) {
		cxlt_bad(verb, "a region file selects the region: id and name must be empty");
		return -EINVAL;
	}
	return 0;
}

/*
 * The selection of a command that works on /dev/cxltier (@r NULL: @flags among
 * @known, then @id or @name) and on a region file (@r: flags 0, id and name empty).
 */
static int cxlt_check_target(const char *verb, struct cxlt_region *r, u32 flags, u32 known,
			     u32 id, const char *name)
{
	if (r)
		return cxlt_check_flags(verb, flags, 0) ?: cxlt_check_no_sel(verb, id, name);
	return cxlt_check_flags(verb, flags, known) ?: cxlt_check_sel(verb, flags, id, true, name);
}

/*
 * The region a command on /dev/cxltier (@r NULL) selects, referenced in *@found,
 * with access @mask checked; or @r, a region file's, whose access is its mode.
 */
static struct cxlt_region *cxlt_ioc_region(const char *verb, struct file *file,
					   struct cxlt_region *r, u32 flags, u32 id,
					   const char *name, int mask,
					   struct cxlt_region **found)
{
	int rc;

	if (r) {
		if ((mask & MAY_WRITE) && !(file->f_mode & FMODE_WRITE)) {
			cxlt_bad(verb, "region file of %s is not open for writing", r->name);
			return ERR_PTR(-EBADF);
		}
		return r;
	}
	*found = cxlt_region_get(flags & CXLTIER_BY_ID, id, name);
	if (!*found)
		return ERR_PTR(-ENOENT);
	rc = mask & MAY_WRITE ? cxlt_region_may_write(*found) : cxlt_region_may_stat(*found);
	if (rc) {
		cxlt_bad(verb, "no %s permission on region %s",
			 mask & MAY_WRITE ? "write" : "read", (*found)->name);
		return ERR_PTR(rc);
	}
	return *found;
}

/* Verbs about pages and placement: a persistent region has neither. */
static int cxlt_check_volatile(const char *verb, struct cxlt_region *r)
{
	if (r->pool) {
		cxlt_bad(verb, "region %s is persistent: no pages, hints or placement", r->name);
		return -EINVAL;
	}
	return 0;
}

/* HINT on /dev/cxltier (@r NULL: select by the struct) or on a region file (@r). */
static long cxlt_ioc_hint(struct file *file, unsigned int cmd, void __user *uarg,
			  struct cxlt_region *r)
{
	static const char verb[] = "hint";
	struct cxlt_region *found __free(cxlt_region_put) = NULL;
	struct cxltier_hint a;
	long rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_target(verb, r, a.flags, CXLTIER_HINT_FLAGS, a.id, a.name) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (!rc && a.hint > CXLTIER_HINT_MAX) {
		cxlt_bad(verb, "unknown hint %u", a.hint);
		rc = -EINVAL;
	}
	if (!rc)
		rc = cxlt_check_aligned(verb, a.offset, a.length);
	if (rc)
		return rc;
	r = cxlt_ioc_region(verb, file, r, a.flags, a.id, a.name, MAY_WRITE, &found);
	if (IS_ERR(r))
		return PTR_ERR(r);
	return cxlt_check_volatile(verb, r) ?: cxlt_check_range(verb, r, a.offset, a.length) ?:
	       cxlt_region_hint(r, &a);
}

/* PAGES on /dev/cxltier (@r NULL: select by the struct) or on a region file (@r). */
static long cxlt_ioc_pages(struct file *file, unsigned int cmd, void __user *uarg,
			   struct cxlt_region *r)
{
	static const char verb[] = "pages";
	struct cxlt_region *found __free(cxlt_region_put) = NULL;
	struct cxltier_pages a;
	long rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_target(verb, r, a.flags, CXLTIER_PAGES_FLAGS, a.id, a.name) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, &a.reserved1, sizeof(a.reserved1)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (!rc && (!a.count || a.count > CXLTIER_PAGES_MAX)) {
		cxlt_bad(verb, "count %u is out of range (1-%u)", a.count, CXLTIER_PAGES_MAX);
		rc = -EINVAL;
	}
	if (!rc)
		rc = cxlt_check_aligned(verb, a.offset, PAGE_SIZE);
	if (rc)
		return rc;
	r = cxlt_ioc_region(verb, file, r, a.flags, a.id, a.name, MAY_READ, &found);
	if (IS_ERR(r))
		return PTR_ERR(r);
	return cxlt_check_volatile(verb, r) ?: cxlt_check_range(verb, r, a.offset, PAGE_SIZE) ?:
	       cxlt_region_pages(r, &a) ?: cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

/* REPLACE on /dev/cxltier (@r NULL: select by the struct) or on a region file (@r). */
static long cxlt_ioc_replace(struct file *file, unsigned int cmd, void __user *uarg,
			     struct cxlt_region *r)
{
	static const char verb[] = "replace";
	struct cxlt_region *found __free(cxlt_region_put) = NULL;
	struct cxltier_replace a;
	long rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_target(verb, r, a.flags, CXLTIER_REPLACE_FLAGS, a.id, a.name) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, &a.replaced, sizeof(a.replaced)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (!rc)
		rc = cxlt_check_aligned(verb, a.offset, a.length);
	if (rc)
		return rc;
	r = cxlt_ioc_region(verb, file, r, a.flags, a.id, a.name, MAY_WRITE, &found);
	if (IS_ERR(r))
		return PTR_ERR(r);
	return cxlt_check_volatile(verb, r) ?: cxlt_check_range(verb, r, a.offset, a.length) ?:
	       cxlt_region_replace(r, &a) ?: cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

/* FENCED on /dev/cxltier (@r NULL: select by the struct) or on a region file (@r). */
static long cxlt_ioc_fenced(struct file *file, unsigned int cmd, void __user *uarg,
			    struct cxlt_region *r)
{
	static const char verb[] = "fenced";
	struct cxlt_region *found __free(cxlt_region_put) = NULL;
	struct cxltier_fenced a;
	long rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_target(verb, r, a.flags, CXLTIER_FENCED_FLAGS, a.id, a.name) ?:
	     cxlt_check_zero(verb, &a.fenced, sizeof(a.fenced)) ?:
	     cxlt_check_zero(verb, &a.time_ns, offsetof(typeof(a), reserved) -
			     offsetof(typeof(a), time_ns)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (rc)
		return rc;
	r = cxlt_ioc_region(verb, file, r, a.flags, a.id, a.name, MAY_READ, &found);
	if (IS_ERR(r))
		return PTR_ERR(r);
	rc = cxlt_check_range(verb, r, a.offset & PAGE_MASK, PAGE_SIZE);
	if (rc)
		return rc;
	cxlt_region_fenced(r, &a);
	return cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

static long cxlt_ioc_events(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "events";
	struct cxltier_events a;
	long rc;

	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_flags(verb, a.flags, CXLTIER_EVENTS_FLAGS) ?:
	     cxlt_check_zero(verb, &a.lost, sizeof(a.lost)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (!rc && (!a.count || a.count > CXLTIER_EVENTS_MAX)) {
		cxlt_bad(verb, "count %u is out of range (1-%u)", a.count, CXLTIER_EVENTS_MAX);
		rc = -EINVAL;
	}
	if (rc)
		return rc;
	return cxlt_events_read(&a) ?: cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

static long cxlt_ioc_process(unsigned int cmd, void __user *uarg)
{
	static const char verb[] = "process";
	struct cxltier_process a;
	long rc;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	rc = cxlt_copy_in(verb, cmd, &a, sizeof(a), uarg) ?:
	     cxlt_check_flags(verb, a.flags, 0) ?:
	     cxlt_check_zero(verb, &a.reserved0, sizeof(a.reserved0)) ?:
	     cxlt_check_zero(verb, &a.budget, sizeof(a.budget)) ?:
	     cxlt_check_zero(verb, a.reserved, sizeof(a.reserved));
	if (rc)
		return rc;
	if (a.period_ns < NSEC_PER_MSEC || a.period_ns > 60 * NSEC_PER_SEC) {
		cxlt_bad(verb, "period_ns %llu is out of range (1 ms - 60 s)", a.period_ns);
		return -EINVAL;
	}
	if (a.fast_pages > a.managed_pages || a.managed_pages > totalram_pages()) {
		cxlt_bad(verb, "%llu fast of %llu managed pages, %lu pages of RAM",
			 a.fast_pages, a.managed_pages, totalram_pages());
		return -EINVAL;
	}
	/* More than a period of the largest budget (65536 MiB/s) is not a report. */
	if (a.promoted > (65536ULL << 20) / PAGE_SIZE * 60 ||
	    a.demoted > (65536ULL << 20) / PAGE_SIZE * 60 ||
	    a.failed > (65536ULL << 20) / PAGE_SIZE * 60) {
		cxlt_bad(verb, "promoted %llu, demoted %llu, failed %llu: over a period's most",
			 a.promoted, a.demoted, a.failed);
		return -EINVAL;
	}
	cxlt_daemon_process(&a);
	return cxlt_copy_out(cmd, uarg, &a, sizeof(a));
}

/* Direction and size checks are per verb; the number selects the verb. */
static bool cxlt_cmd_is(unsigned int cmd, unsigned int want)
{
	return _IOC_TYPE(cmd) == _IOC_TYPE(want) && _IOC_NR(cmd) == _IOC_NR(want) &&
	       _IOC_DIR(cmd) == _IOC_DIR(want);
}

static long cxlt_cdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (cmd == CXLTIER_IOC_VERSION)
		return CXLTIER_ABI_VERSION;
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_CREATE))
		return cxlt_ioc_create(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_OPEN))
		return cxlt_ioc_open(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_DESTROY))
		return cxlt_ioc_destroy(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_LIST))
		return cxlt_ioc_list(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_STAT))
		return cxlt_ioc_stat(cmd, uarg, NULL);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_SET_POLICY))
		return cxlt_ioc_set_policy(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_HINT))
		return cxlt_ioc_hint(file, cmd, uarg, NULL);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_PAGES))
		return cxlt_ioc_pages(file, cmd, uarg, NULL);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_REPLACE))
		return cxlt_ioc_replace(file, cmd, uarg, NULL);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_EVENTS))
		return cxlt_ioc_events(cmd, uarg);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_FENCED))
		return cxlt_ioc_fenced(file, cmd, uarg, NULL);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_PROCESS))
		return cxlt_ioc_process(cmd, uarg);
	cxlt_bad("?", "unknown command %#x", cmd);
	return -ENOTTY;
}

/**
 * cxlt_region_file_ioctl() - ioctl of a region file: STAT, HINT, PAGES, REPLACE
 *	and FENCED
 * @file: the region file
 * @cmd: command
 * @arg: user address of its struct
 *
 * Return: as the command; -ENOTTY for any other command.
 */
static long cxlt_region_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (cxlt_cmd_is(cmd, CXLTIER_IOC_STAT))
		return cxlt_ioc_stat(cmd, uarg, file->private_data);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_HINT))
		return cxlt_ioc_hint(file, cmd, uarg, file->private_data);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_PAGES))
		return cxlt_ioc_pages(file, cmd, uarg, file->private_data);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_REPLACE))
		return cxlt_ioc_replace(file, cmd, uarg, file->private_data);
	if (cxlt_cmd_is(cmd, CXLTIER_IOC_FENCED))
		return cxlt_ioc_fenced(file, cmd, uarg, file->private_data);
	cxlt_bad("?", "unknown command %#x on a region file", cmd);
	return -ENOTTY;
}

static const struct file_operations cxlt_cdev_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = cxlt_cdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice cxlt_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = CXLTIER_DEVICE_NAME,
	.fops = &cxlt_cdev_fops,
};

int cxlt_cdev_init(void)
{
	/* Read and write bits only: an executable or setuid device node is a typo. */
	if (dev_mode & ~0666) {
		pr_err("dev_mode=%#o: only read and write permission bits are allowed\n",
		       dev_mode);
		return -EINVAL;
	}
	cxlt_miscdev.mode = dev_mode;
	return misc_register(&cxlt_miscdev);
}

void cxlt_cdev_exit(void)
{
	misc_deregister(&cxlt_miscdev);
}
