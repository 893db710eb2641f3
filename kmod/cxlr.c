// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: a CXL region as the CXL core reports it
 *
 * What cxltier knows of a CXL region it reads from the region device when asked:
 * its mode, address range, interleave, targets (each an endpoint decoder, traced to
 * its memdev) and state, which follows from its commit attribute and from what
 * holds its dax device.  Nothing is cached, because a region changes while it is
 * configured.  The reads go through the shim (devattr.c); this file interprets
 * them.  The mirror (discover.c) shows the result under cxl_regions/, tier
 * registration (tier.c) decides with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cxltier.h"
#include "cxlr.h"
#include "devattr.h"

struct cxlt_child_of_type {
	const char *type_name;
	struct device *found;
};

/*
 * device_for_each_child() rather than device_find_child(), whose match callback takes
 * const data in 7.3 and not in 6.12: the iterator's callback is the same in both.
 */
static int cxlt_child_of_type_fn(struct device *dev, void *data)
{
	struct cxlt_child_of_type *c = data;

	if (!cxlt_dev_is_type(dev, c->type_name))
		return 0;
	c->found = get_device(dev);
	return 1;
}

/* The first child of @parent of device type @type_name, with a reference, or NULL. */
static struct device *cxlt_find_child_of_type(struct device *parent, const char *type_name)
{
	struct cxlt_child_of_type c = { .type_name = type_name };

	device_for_each_child(parent, &c, cxlt_child_of_type_fn);
	return c.found;
}

/*
 * dax_cxl puts a cxl_dax_region under the region and the dax device (daxX.Y) under it;
 * CXL dax devices bind to kmem (or to device_dax when an admin reconfigures them).
 */
static enum cxlt_cxl_region_state
cxlt_cxl_region_dax_state(struct device *region, char *dax_name, size_t len)
{
	enum cxlt_cxl_region_state state = CXLT_CXLR_COMMITTED;
	struct device *daxr, *dax;

	daxr = cxlt_find_child_of_type(region, "cxl_dax_region");
	if (!daxr)
		return state;
	dax = device_find_any_child(daxr);
	if (dax) {
		strscpy(dax_name, dev_name(dax), len);
		device_lock(dax);
		if (dax->driver)
			state = strcmp(dax->driver->name, "kmem") ? CXLT_CXLR_DAX :
								   CXLT_CXLR_SYSTEM_RAM;
		device_unlock(dax);
		put_device(dax);
	}
	put_device(daxr);
	return state;
}

/* The memdev behind endpoint decoder @name: decoder -> endpoint port -> its uport. */
static int cxlt_decoder_memdev(const char *name, char *out, size_t outlen)
{
	struct device *decoder, *memdev;
	int rc = -ENODEV;

	decoder = bus_find_device_by_name(&cxl_bus_type, NULL, name);
	if (!decoder)
		return -ENODEV;
	if (cxlt_dev_is_type(decoder, "cxl_decoder_endpoint") && decoder->parent) {
		memdev = cxlt_dev_link_target(decoder->parent, "uport");
		if (memdev) {
			if (cxlt_dev_is_type(memdev, "cxl_memdev"))
				rc = strscpy(out, dev_name(memdev), outlen) < 0 ? -EOVERFLOW : 0;
			put_device(memdev);
		}
	}
	put_device(decoder);
	return rc;
}

/* Where endpoint decoder @name's range starts on its device; 0 when unknown. */
static void cxlt_decoder_dpa_base(const char *name, u64 *base)
{
	struct device *dec __free(put_device) =
		bus_find_device_by_name(&cxl_bus_type, NULL, name);

	*base = 0;
	if (dec)
		cxlt_dev_attr_u64(dec, NULL, "dpa_resource", base);
}

/**
 * cxlt_cxl_region_info() - read the parameters of a CXL region
 * @region: a cxl_region device (the caller holds a reference)
 * @info: filled in
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno when the region's attributes cannot be read (for
 * example -EINTR, or -ENOENT if @region is not a CXL region).
 */
int cxlt_cxl_region_info(struct device *region, struct cxlt_cxl_region_info *info)
{
	char name[CXLT_NAME_LEN], attr[16];
	u64 commit, val;
	int rc, i;

	memset(info, 0, sizeof(*info));
	info->nid = NUMA_NO_NODE;

	rc = cxlt_dev_attr_read(region, NULL, "mode", info->mode, sizeof(info->mode));
	if (rc)
		return rc;
	rc = cxlt_dev_attr_u64(region, NULL, "resource", &info->start);
	if (rc)
		return rc;
	rc = cxlt_dev_attr_u64(region, NULL, "size", &info->size);
	if (rc)
		return rc;
	if (info->start == U64_MAX || !info->size) {
		info->start = 0;
		info->size = 0;
	}
	rc = cxlt_dev_attr_u64(region, NULL, "interleave_ways", &val);
	if (rc)
		return rc;
	info->ways = val;
	rc = cxlt_dev_attr_u64(region, NULL, "interleave_granularity", &val);
	if (rc)
		return rc;
	info->granularity = val;
	rc = cxlt_dev_attr_u64(region, NULL, "commit", &commit);
	if (rc)
		return rc;

	for (i = 0; i < min_t(u32, info->ways, CXLT_MAX_WAYS); i++) {
		snprintf(attr, sizeof(attr), "target%d", i);
		if (cxlt_dev_attr_read(region, NULL, attr, name, sizeof(name)) || !name[0])
			break;
		if (cxlt_decoder_memdev(name, info->blades[i], CXLT_NAME_LEN))
			break;
		cxlt_decoder_dpa_base(name, &info->dpa_base[i]);
		info->nr_blades++;
	}

	if (info->size)
		info->nid = phys_to_target_node(info->start);
	info->state = commit ? cxlt_cxl_region_dax_state(region, info->dax_dev,
							 sizeof(info->dax_dev)) :
			       CXLT_CXLR_UNCOMMITTED;
	return 0;
}
