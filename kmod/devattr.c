// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: using devices through their sysfs ABI
 *
 * The CXL core keeps its objects (struct cxl_memdev, cxl_region, cxl_port, ...) in
 * headers private to drivers/cxl, and their layout changes between kernel releases.
 * What it publishes as a stable contract is the sysfs ABI
 * (Documentation/ABI/testing/sysfs-bus-cxl).  cxltier therefore reads CXL devices
 * through their own attribute show() methods: it sees exactly the values userspace
 * sees, takes the locks the CXL core takes for them, and depends on no struct layout.
 * The only non-attribute fact used is the sysfs "uport" link of a port, which names the
 * memdev behind an endpoint port.
 *
 * Memory blocks are the same story in 6.12: device_online() and lock_device_hotplug()
 * are not exported, so the only way for a module to online hot-added memory into
 * ZONE_MOVABLE is the memory block's "state" attribute, whose store() takes the
 * hotplug lock and sets the online type exactly as a write from userspace does.
 */
#include <linux/gfp.h>
#include <linux/kernfs.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "cxltier.h"

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

static struct device_attribute *cxlt_find_attr(const struct attribute_group *const *groups,
					       struct device *dev, const char *group,
					       const char *name)
{
	const struct attribute_group *grp;
	int i;

	for (; groups && *groups; groups++) {
		grp = *groups;
		if (group ? !grp->name || strcmp(grp->name, group) : !!grp->name)
			continue;
		for (i = 0; grp->attrs && grp->attrs[i]; i++) {
			struct attribute *attr = grp->attrs[i];

			if (strcmp(attr->name, name))
				continue;
			/* Hidden attributes (e.g. targetN beyond the ways) do not exist. */
			if (grp->is_visible && !grp->is_visible(&dev->kobj, attr, i))
				return NULL;
			return container_of(attr, struct device_attribute, attr);
		}
	}
	return NULL;
}

/**
 * cxlt_dev_attr_read() - read one sysfs attribute of a CXL device
 * @dev: the device (the caller holds a reference)
 * @group: attribute group name (e.g. "ram" for ram/size), NULL for top-level attributes
 * @name: attribute name
 * @out: buffer for the value, without the trailing newline
 * @outlen: size of @out
 *
 * Context: process context; may sleep (the show() methods take CXL core locks).
 * Return: 0, -ENOENT when the device has no such (visible) attribute, -EOVERFLOW when
 * the value does not fit in @out, or the error of the show() method.
 */
int cxlt_dev_attr_read(struct device *dev, const char *group, const char *name,
		       char *out, size_t outlen)
{
	struct device_attribute *dattr = NULL;
	unsigned long page;
	ssize_t len;

	if (dev->type)
		dattr = cxlt_find_attr(dev->type->groups, dev, group, name);
	if (!dattr)
		dattr = cxlt_find_attr(dev->groups, dev, group, name);
	if (!dattr || !dattr->show)
		return -ENOENT;

	/* show() methods use sysfs_emit(), which insists on a whole, aligned page. */
	page = __get_free_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	len = dattr->show(dev, dattr, (char *)page);
	if (len < 0)
		goto out;
	len = min_t(ssize_t, len, PAGE_SIZE - 1);
	((char *)page)[len] = '\0';
	if (strscpy(out, strim((char *)page), outlen) < 0)
		len = -EOVERFLOW;
out:
	free_page(page);
	return len < 0 ? len : 0;
}

/**
 * cxlt_dev_attr_store() - write one sysfs attribute of a device
 * @dev: the device (the caller holds a reference)
 * @group: attribute group name or NULL
 * @name: attribute name
 * @val: the string to write, as userspace would
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOENT when there is no such writable attribute, or the error of the
 * store() method.
 */
int cxlt_dev_attr_store(struct device *dev, const char *group, const char *name,
			const char *val)
{
	struct device_attribute *dattr = NULL;
	ssize_t rc;

	if (dev->type)
		dattr = cxlt_find_attr(dev->type->groups, dev, group, name);
	if (!dattr)
		dattr = cxlt_find_attr(dev->groups, dev, group, name);
	if (!dattr || !dattr->store)
		return -ENOENT;
	rc = dattr->store(dev, dattr, val, strlen(val));
	return rc < 0 ? rc : 0;
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
 * cxlt_dev_link_target() - follow a sysfs link of a device to the device it names
 * @dev: the device owning the link
 * @link: link name, e.g. "uport"
 *
 * Return: the target device with a reference the caller drops with put_device(), or
 * NULL when there is no such link or its target is going away.
 */
struct device *cxlt_dev_link_target(struct device *dev, const char *link)
{
	struct kernfs_node *kn;
	struct kobject *kobj;
	struct device *target = NULL;

	kn = kernfs_find_and_get(dev->kobj.sd, link);
	if (!kn)
		return NULL;
	if (kernfs_type(kn) == KERNFS_LINK && kn->symlink.target_kn) {
		/*
		 * A sysfs directory's kernfs node points at its kobject; the link keeps
		 * the node alive but not the kobject, hence the _unless_zero.
		 */
		kobj = kn->symlink.target_kn->priv;
		if (kobj && kobject_get_unless_zero(kobj))
			target = kobj_to_dev(kobj);
	}
	kernfs_put(kn);
	return target;
}
