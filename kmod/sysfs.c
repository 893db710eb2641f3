// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: /sys/kernel/cxltier
 *
 * The module's sysfs tree, documented in Documentation/ABI/testing/sysfs-kernel-cxltier:
 *
 *   /sys/kernel/cxltier/
 *     abi_version, rescan, tier_add, tier_remove
 *     blades/<memdev>/       serial ram_size pmem_size pci_dev state cxl_regions
 *     cxl_regions/<region>/  mode start size interleave_ways interleave_granularity
 *                            blades numa_node state
 *     tiers/<region>/        node adistance adistance_source start size blades
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

static ssize_t cxlr_emit_state(const struct cxlt_cxl_region_info *info, char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlt_cxl_region_state_name(info->state));
}

static ssize_t cxlr_state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_cxl_region *cxlr = container_of(kobj, struct cxlt_cxl_region, kobj);

	/* The CXL core cannot know: our System RAM is not a dax device. */
	if (cxlt_tier_registered(cxlr->dev))
		return sysfs_emit(buf, "tier\n");
	return cxlr_show(kobj, buf, cxlr_emit_state);
}

static struct kobj_attribute cxlr_attr_state = __ATTR(state, 0444, cxlr_state_show, NULL);

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

/* --- tiers/<region>/ -------------------------------------------------------------- */

static struct kobject *cxlt_tiers_kobj;

static struct cxlt_tier *to_tier(struct kobject *kobj)
{
	return container_of(kobj, struct cxlt_tier, kobj);
}

static ssize_t tier_node_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_tier(kobj)->nid);
}

static ssize_t tier_adistance_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "%d\n", to_tier(kobj)->adist);
}

static ssize_t tier_adistance_source_show(struct kobject *kobj, struct kobj_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlt_adist_source_name(to_tier(kobj)->adist_src));
}

static ssize_t tier_start_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n", to_tier(kobj)->start);
}

static ssize_t tier_size_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_tier(kobj)->size);
}

static ssize_t tier_blades_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct cxlt_cxl_region_info *info;
	ssize_t rc;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	rc = cxlt_cxl_region_info(to_tier(kobj)->region, info);
	if (!rc)
		rc = cxlr_emit_blades(info, buf);
	kfree(info);
	return rc;
}

static struct kobj_attribute tier_attr_node = __ATTR(node, 0444, tier_node_show, NULL);
static struct kobj_attribute tier_attr_adistance =
	__ATTR(adistance, 0444, tier_adistance_show, NULL);
static struct kobj_attribute tier_attr_adistance_source =
	__ATTR(adistance_source, 0444, tier_adistance_source_show, NULL);
static struct kobj_attribute tier_attr_start = __ATTR(start, 0444, tier_start_show, NULL);
static struct kobj_attribute tier_attr_size = __ATTR(size, 0444, tier_size_show, NULL);
static struct kobj_attribute tier_attr_blades = __ATTR(blades, 0444, tier_blades_show, NULL);

static struct attribute *cxlt_tier_attrs[] = {
	&tier_attr_node.attr,
	&tier_attr_adistance.attr,
	&tier_attr_adistance_source.attr,
	&tier_attr_start.attr,
	&tier_attr_size.attr,
	&tier_attr_blades.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cxlt_tier);

static const struct kobj_type cxlt_tier_ktype = {
	.release = cxlt_tier_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cxlt_tier_groups,
};

/**
 * cxlt_tier_alloc() - allocate a tier with its kobject initialized
 *
 * Return: the tier, freed by kobject_put(), or NULL.
 */
struct cxlt_tier *cxlt_tier_alloc(void)
{
	struct cxlt_tier *tier = kzalloc(sizeof(*tier), GFP_KERNEL);

	if (tier)
		kobject_init(&tier->kobj, &cxlt_tier_ktype);
	return tier;
}

/**
 * cxlt_sysfs_add_tier() - create /sys/kernel/cxltier/tiers/<region>
 * @tier: the tier, from cxlt_tier_alloc()
 * @name: the region's name
 *
 * Return: 0 or a negative errno.
 */
int cxlt_sysfs_add_tier(struct cxlt_tier *tier, const char *name)
{
	return kobject_add(&tier->kobj, cxlt_tiers_kobj, "%s", name);
}

void cxlt_sysfs_del_tier(struct cxlt_tier *tier)
{
	kobject_del(&tier->kobj);
}

/*
 * "region0" or "region0 adistance=N": copy the name out of a write to tier_add or
 * tier_remove and parse the options (tier_remove takes none).
 */
static int cxlt_parse_tier_cmd(const char *buf, char *name, size_t len, int *adist)
{
	char *copy, *p, *tok;
	int rc = 0, val;

	copy = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	p = strim(copy);
	tok = strsep(&p, " \t");
	if (!tok || !*tok || strscpy(name, tok, len) < 0) {
		pr_info("tier: expected a CXL region name such as region0\n");
		rc = -EINVAL;
		goto out;
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
		rc = -EINVAL;
		goto out;
	}
out:
	kfree(copy);
	return rc;
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

static ssize_t tier_remove_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	char name[CXLT_NAME_LEN];
	int rc;

	rc = cxlt_parse_tier_cmd(buf, name, sizeof(name), NULL);
	if (!rc)
		rc = cxlt_tier_remove(name);
	return rc ? rc : count;
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
static struct kobj_attribute root_attr_tier_add = __ATTR_WO(tier_add);
static struct kobj_attribute root_attr_tier_remove = __ATTR_WO(tier_remove);

static struct attribute *cxlt_root_attrs[] = {
	&root_attr_abi_version.attr,
	&root_attr_rescan.attr,
	&root_attr_tier_add.attr,
	&root_attr_tier_remove.attr,
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
	cxlt_tiers_kobj = kobject_create_and_add("tiers", cxlt_root_kobj);
	if (!cxlt_tiers_kobj) {
		rc = -ENOMEM;
		goto err_put_cxl_regions;
	}
	return 0;

err_put_cxl_regions:
	kobject_put(cxlt_cxl_regions_kobj);
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
	kobject_put(cxlt_tiers_kobj);
	kobject_put(cxlt_cxl_regions_kobj);
	kobject_put(cxlt_blades_kobj);
	sysfs_remove_group(cxlt_root_kobj, &cxlt_root_group);
	kobject_put(cxlt_root_kobj);
}
