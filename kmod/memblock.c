// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: onlining hot-added memory into ZONE_MOVABLE
 *
 * A tier's memory must be onlined movable: only ZONE_MOVABLE memory can be offlined
 * again reliably (the kernel never places unmovable allocations there), which is what
 * makes "cxltier tier remove" and, later, draining a failing blade possible.  Linux
 * 6.12 gives a module no call for this (add_memory_driver_managed() follows the
 * system's default online policy, and device_online() is not exported), so cxltier
 * drives each memory block's "state" attribute exactly as userspace tools do
 * (daxctl writes "online_movable" there for kmem), through the VFS like any other
 * sysfs access of the module (devattr.c says why and how).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memory.h>

#include "cxltier.h"
#include "devattr.h"

/* Read (@out) or write (@val) an attribute of memory block @dir ("memory42"). */
static int cxlt_memblock_attr(const char *dir, const char *attr, char *out, size_t len,
			      const char *val)
{
	char path[64];

	snprintf(path, sizeof(path), "devices/system/memory/%s/%s", dir, attr);
	return val ? cxlt_sysfs_write(path, val) : cxlt_sysfs_read(path, out, len);
}

static int cxlt_memblock_online_movable(const char *dir)
{
	char state[16], zones[64];
	int rc;

	rc = cxlt_memblock_attr(dir, "state", state, sizeof(state), NULL);
	if (rc)
		return rc;
	if (!strcmp(state, "online")) {
		/* Auto-onlined by the system's policy: fine if it chose Movable. */
		rc = cxlt_memblock_attr(dir, "valid_zones", zones, sizeof(zones), NULL);
		if (rc)
			return rc;
		if (!strcmp(zones, "Movable"))
			return 0;
		rc = cxlt_memblock_attr(dir, "state", NULL, 0, "offline");
		if (rc)
			return rc;
	}
	return cxlt_memblock_attr(dir, "state", NULL, 0, "online_movable");
}

/**
 * cxlt_memblocks_online_movable() - online the memory blocks of a range movable
 * @start: first physical address, memory block aligned
 * @size: size in bytes, a multiple of the memory block size
 *
 * Blocks the system's policy already onlined into another zone are offlined and
 * onlined again movable.
 *
 * Context: process context, may sleep; no locks held (takes the device hotplug lock).
 * Return: 0, or the first error; blocks onlined before it stay online (the caller
 * undoes the whole range with offline_and_remove_memory()).
 */
int cxlt_memblocks_online_movable(u64 start, u64 size)
{
	unsigned long bsz = memory_block_size_bytes();
	char name[32];
	u64 addr;
	int rc = 0;

	for (addr = start; addr < start + size; addr += bsz) {
		snprintf(name, sizeof(name), "memory%llu", addr / bsz);
		rc = cxlt_memblock_online_movable(name);
		if (rc) {
			pr_warn("%s (%#llx): cannot online movable: %d\n", name, addr, rc);
			break;
		}
	}
	return rc;
}
