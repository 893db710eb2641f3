// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: /sys/kernel/cxltier
 *
 * The module's sysfs tree, documented in Documentation/ABI/testing/sysfs-kernel-cxltier:
 *
 *   /sys/kernel/cxltier/
 *     abi_version, rescan
 *     blades/<memdev>/       serial ram_size pmem_size pci_dev state cxl_regions
 *     cxl_regions/<region>/  mode start size interleave_ways interleave_granularity
 *                            blades numa_node state
 *
 * One value per file.  Blade facts are cached at discovery; CXL region attributes are
 * read from the region when asked, because a region changes while it is configured.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cxltier.h"

static struct kobject *cxlt_root_kobj;
static struct kobject *cxlt_blades_kobj;
static struct kobject *cxlt_cxl_regions_kobj;

/* --- blades/<memdev>/ ------------------------------------------------------------- */

static struct cxlt_blade *to_blade(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_blade, kobj);
}

static ssize_t serial_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n", to_blade(kobj)->serial);
}

static ssize_t ram_size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_blade(kobj)->ram_size);
}

static ssize_t pmem_size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_blade(kobj)->pmem_size);
}

static ssize_t pci_dev_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_blade(kobj)->pci_dev);
}

static ssize_t blade_state_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlt_blade_online(to_blade(kobj)) ? "online" : "offline");
}

static ssize_t blade_cxl_regions_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	return cxlt_blade_cxl_regions(to_blade(kobj), buf);
}

static struct kobj_attribute blade_attr_serial = __ATTR_RO(serial);
static struct kobj_attribute blade_attr_ram_size = __ATTR_RO(ram_size);
static struct kobj_attribute blade_attr_pmem_size = __ATTR_RO(pmem_size);
static struct kobj_attribute blade_attr_pci_dev = __ATTR_RO(pci_dev);
static struct kobj_attribute blade_attr_state = __ATTR(state, 0444, blade_state_show, NULL);
static struct kobj_attribute blade_attr_cxl_regions =
	__ATTR(cxl_regions, 0444, blade_cxl_regions_show, NULL);

static struct attribute *cxlt_blade_attrs[] = {
	&blade_attr_serial.attr,
	&blade_attr_ram_size.attr,
	&blade_attr_pmem_size.attr,
	&blade_attr_pci_dev.attr,
	&blade_attr_state.attr,
	&blade_attr_cxl_regions.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_blade);

static const struct kobj_type cxlt_blade_ktype = {
	.release = cxlt_blade_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_blade_groups,
};

/**
 * cxlt_sysfs_add_blade() - create /sys/kernel/cxltier/blades/<memdev>
 * @blade: the blade, all fields but @kobj set
 *
 * Return: 0 or a negative errno; on error the caller drops @blade with kobject_put().
 */
int cxlt_sysfs_add_blade(struct cxlt_blade *blade)
{
	return kobject_init_and_add(&blade->kobj, &cxlt_blade_ktype, cxlt_blades_kobj,
				    "%s", dev_name(blade->dev));
}

/* --- cxl_regions/<region>/ -------------------------------------------------------- */

/*
 * Every region attribute needs the region's parameters; read them all at once.  The
 * info is too large for the stack of a sysfs read.
 */
static ssize_t cxlr_show(struct kobject *kobj, char *buf,
			 ssize_t (*emit)(const struct cxlt_cxl_region_info *info, char *buf))
{
	struct cxlt_cxl_region *cxlr = container_of(kobj, struct cxlt_cxl_region, kobj);
	struct cxlt_cxl_region_info *info;
	ssize_t rc;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	rc = cxlt_cxl_region_info(cxlr->dev, info);
	if (!rc)
		rc = emit(info, buf);
	kfree(info);
	return rc;
}

#define CXLR_ATTR(_name, _fmt, ...)							\
static ssize_t cxlr_emit_##_name(const struct cxlt_cxl_region_info *info, char *buf)	\
{											\
	return sysfs_emit(buf, _fmt "\n", __VA_ARGS__);					\
}											\
static ssize_t cxlr_##_name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
				   char *buf)						\
{											\
	return cxlr_show(kobj, buf, cxlr_emit_##_name);					\
}											\
static struct kobj_attribute cxlr_attr_##_name = __ATTR(_name, 0444, cxlr_##_name##_show, NULL)

CXLR_ATTR(mode, "%s", info->mode);
CXLR_ATTR(start, "%#llx", info->start);
CXLR_ATTR(size, "%llu", info->size);
CXLR_ATTR(interleave_ways, "%u", info->ways);
CXLR_ATTR(interleave_granularity, "%u", info->granularity);
CXLR_ATTR(numa_node, "%d", info->nid);
CXLR_ATTR(state, "%s", cxlt_cxl_region_state_name(info->state));

static ssize_t cxlr_emit_blades(const struct cxlt_cxl_region_info *info, char *buf)
{
	ssize_t len = 0;
	u32 i;

	for (i = 0; i < info->nr_blades; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "", info->blades[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t cxlr_blades_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return cxlr_show(kobj, buf, cxlr_emit_blades);
}

static struct kobj_attribute cxlr_attr_blades = __ATTR(blades, 0444, cxlr_blades_show, NULL);

static struct attribute *cxlt_cxl_region_attrs[] = {
	&cxlr_attr_mode.attr,
	&cxlr_attr_start.attr,
	&cxlr_attr_size.attr,
	&cxlr_attr_interleave_ways.attr,
	&cxlr_attr_interleave_granularity.attr,
	&cxlr_attr_blades.attr,
	&cxlr_attr_numa_node.attr,
	&cxlr_attr_state.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_cxl_region);

static const struct kobj_type cxlt_cxl_region_ktype = {
	.release = cxlt_cxl_region_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_cxl_region_groups,
};

/**
 * cxlt_sysfs_add_cxl_region() - create /sys/kernel/cxltier/cxl_regions/<region>
 * @cxlr: the mirror object, @dev set
 *
 * Return: 0 or a negative errno; on error the caller drops @cxlr with kobject_put().
 */
int cxlt_sysfs_add_cxl_region(struct cxlt_cxl_region *cxlr)
{
	return kobject_init_and_add(&cxlr->kobj, &cxlt_cxl_region_ktype,
				    cxlt_cxl_regions_kobj, "%s", dev_name(cxlr->dev));
}

/* --- the root ----------------------------------------------------------------------- */

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

static struct attribute *cxlt_root_attrs[] = {
	&root_attr_abi_version.attr,
	&root_attr_rescan.attr,
	NULL,
};

static const struct attribute_group cxlt_root_group = {
	.attrs = cxlt_root_attrs,
};

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
	cxlt_cxl_regions_kobj = kobject_create_and_add("cxl_regions", cxlt_root_kobj);
	if (!cxlt_cxl_regions_kobj) {
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

void cxlt_sysfs_exit(void)
{
	kobject_put(cxlt_cxl_regions_kobj);
	kobject_put(cxlt_blades_kobj);
	sysfs_remove_group(cxlt_root_kobj, &cxlt_root_group);
	kobject_put(cxlt_root_kobj);
}
