// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: /sys/kernel/cxltier
 *
 * The module's sysfs tree, documented in Documentation/ABI/testing/sysfs-kernel-cxltier:
 *
 *   /sys/kernel/cxltier/
 *     abi_version, rescan, tier_add, tier_remove, blade_fence, blade_drain,
 *     blade_restore
 *     blades/<memdev>/       device -> the memdev, state tiers fenced_pages fence_us
 *                            poisoned_pages drained_pages drain_left drain_us
 *     tiers/<region>/        device -> the CXL region, state node adistance
 *                            adistance_source promoted_pages demoted_pages
 *     daemon/                (daemon.c)
 *
 * One value per file, and only what cxltier knows: what the CXL core publishes
 * about a memdev or region is read there, through the "device" links.  This file
 * owns the root: its kobject, its files and the two directories.  The entries of
 * each directory belong to the file that owns their objects, which gets its
 * directory from main.c at init: blades/ to discover.c, tiers/ to tier.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/cxltier.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cxltier.h"
#include "discover.h"
#include "drain.h"
#include "fence.h"
#include "sysfs.h"
#include "tier.h"

/* 2: the copies of the CXL core's attributes (cxl_regions/, serial, size...) went. */
#define CXLT_SYSFS_ABI_VERSION	2

static struct kobject *cxlt_root_kobj;
static struct kobject *cxlt_blades_kobj;
static struct kobject *cxlt_tiers_kobj;

/**
 * cxlt_sysfs_blades_dir() - /sys/kernel/cxltier/blades
 *
 * Return: its kobject, valid from cxlt_sysfs_init() to cxlt_sysfs_exit().
 */
struct kobject *cxlt_sysfs_blades_dir(void)
{
	return cxlt_blades_kobj;
}

/**
 * cxlt_sysfs_root() - /sys/kernel/cxltier itself, for directories of its own
 *	that other files make (daemon/)
 *
 * Return: its kobject, valid from cxlt_sysfs_init() to cxlt_sysfs_exit().
 */
struct kobject *cxlt_sysfs_root(void)
{
	return cxlt_root_kobj;
}

/**
 * cxlt_sysfs_tiers_dir() - /sys/kernel/cxltier/tiers
 *
 * Return: its kobject, valid from cxlt_sysfs_init() to cxlt_sysfs_exit().
 */
struct kobject *cxlt_sysfs_tiers_dir(void)
{
	return cxlt_tiers_kobj;
}

/*
 * "region0" or "region0 adistance=N": copy the name out of a write to tier_add,
 * tier_remove or a blade command ("mem0") and parse the options (only tier_add has any).
 */
static int cxlt_parse_tier_cmd(const char *buf, char *name, size_t len, int *adist)
{
	char *copy __free(kfree) = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	char *p, *tok;
	int val;

	if (!copy)
		return -ENOMEM;
	p = strim(copy);
	tok = strsep(&p, " \t");
	if (!tok || !*tok || strscpy(name, tok, len) < 0) {
		pr_info("expected a name such as region0 or mem0\n");
		return -EINVAL;
	}
	while (p && (tok = strsep(&p, " \t"))) {
		if (!*tok)
			continue;
		if (adist && !strncmp(tok, "adistance=", 10) && !kstrtoint(tok + 10, 0, &val) &&
		    val > 0) {
			*adist = val;
			continue;
		}
		pr_info("tier %s: unknown or bad option '%s'\n", name, tok);
		return -EINVAL;
	}
	return 0;
}

static ssize_t tier_add_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	char name[CXLT_NAME_LEN];
	int rc, adist = 0;

	rc = cxlt_parse_tier_cmd(buf, name, sizeof(name), &adist);
	if (!rc)
		rc = cxlt_tier_add(name, adist);
	return rc ? rc : count;
}

/* A command file that takes a name (a region or a memdev) and runs @fn on it. */
static ssize_t cxlt_name_cmd(const char *buf, size_t count, int (*fn)(const char *name))
{
	char name[CXLT_NAME_LEN];
	int rc;

	rc = cxlt_parse_tier_cmd(buf, name, sizeof(name), NULL);
	if (!rc)
		rc = fn(name);
	return rc ? rc : count;
}

static int cxlt_fence_blade_admin(const char *name)
{
	return cxlt_fence_blade(name, CXLTIER_CAUSE_ADMIN, ktime_get());
}

static ssize_t blade_fence_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return cxlt_name_cmd(buf, count, cxlt_fence_blade_admin);
}

static ssize_t blade_drain_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return cxlt_name_cmd(buf, count, cxlt_blade_drain);
}

static ssize_t blade_restore_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return cxlt_name_cmd(buf, count, cxlt_blade_restore);
}

static ssize_t tier_remove_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return cxlt_name_cmd(buf, count, cxlt_tier_remove);
}

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%d\n", CXLT_SYSFS_ABI_VERSION);
}

static ssize_t rescan_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	bool val;
	int rc;

	rc = kstrtobool(buf, &val);
	if (rc || !val) {
		pr_info("rescan: write 1 to rescan\n");
		return -EINVAL;
	}
	rc = cxlt_rescan();
	return rc ? rc : count;
}

static struct kobj_attribute root_attr_abi_version = __ATTR_RO(abi_version);
static struct kobj_attribute root_attr_rescan = __ATTR_WO(rescan);
static struct kobj_attribute root_attr_tier_add = __ATTR_WO(tier_add);
static struct kobj_attribute root_attr_blade_fence = __ATTR_WO(blade_fence);
static struct kobj_attribute root_attr_blade_drain = __ATTR_WO(blade_drain);
static struct kobj_attribute root_attr_blade_restore = __ATTR_WO(blade_restore);
static struct kobj_attribute root_attr_tier_remove = __ATTR_WO(tier_remove);

static struct attribute *cxlt_root_attrs[] = {
	&root_attr_abi_version.attr,
	&root_attr_rescan.attr,
	&root_attr_tier_add.attr,
	&root_attr_blade_fence.attr,
	&root_attr_blade_drain.attr,
	&root_attr_blade_restore.attr,
	&root_attr_tier_remove.attr,
	NULL,
};

static const struct attribute_group cxlt_root_group = {
	.attrs = cxlt_root_attrs,
};

/**
 * cxlt_sysfs_init() - create /sys/kernel/cxltier and its directories
 *
 * The root's files work from here on: rescan and tier_add answer ENODEV or EAGAIN
 * until discovery and registration are up.
 *
 * Context: module init.
 * Return: 0 or a negative errno, with nothing left created.
 */
int cxlt_sysfs_init(void)
{
	int rc;

	cxlt_root_kobj = kobject_create_and_add("cxltier", kernel_kobj);
	if (!cxlt_root_kobj)
		return -ENOMEM;
	rc = sysfs_create_group(cxlt_root_kobj, &cxlt_root_group);
	if (rc)
		goto err_put_root;
	cxlt_blades_kobj = kobject_create_and_add("blades", cxlt_root_kobj);
	if (!cxlt_blades_kobj) {
		rc = -ENOMEM;
		goto err_remove_group;
	}
	cxlt_tiers_kobj = kobject_create_and_add("tiers", cxlt_root_kobj);
	if (!cxlt_tiers_kobj) {
		rc = -ENOMEM;
		goto err_put_blades;
	}
	return 0;

err_put_blades:
	kobject_put(cxlt_blades_kobj);
err_remove_group:
	sysfs_remove_group(cxlt_root_kobj, &cxlt_root_group);
err_put_root:
	kobject_put(cxlt_root_kobj);
	return rc;
}

/* Module exit, after the owners of the directories' entries removed them. */
void cxlt_sysfs_exit(void)
{
	kobject_put(cxlt_tiers_kobj);
	kobject_put(cxlt_blades_kobj);
	sysfs_remove_group(cxlt_root_kobj, &cxlt_root_group);
	kobject_put(cxlt_root_kobj);
}
