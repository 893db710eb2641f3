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
 * (daxctl writes "online_movable" there for kmem).  See devattr.c.
 *
 * The memory block devices are the directories of /sys/devices/system/memory; the
 * module finds that directory through the CPU subsystem's parent, /sys/devices/system.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kernfs.h>
#include <linux/memory.h>
#include <linux/sched/signal.h>

#include "cxltier.h"

/* The kernfs node of /sys/devices/system/memory, referenced. */
static struct kernfs_node *cxlt_memory_dir(void)
{
	struct device *cpu = get_cpu_device(0);
	struct kobject *system;

	if (!cpu || !cpu->kobj.parent || !cpu->kobj.parent->parent)
		return NULL;
	system = cpu->kobj.parent->parent;	/* /sys/devices/system */
	return kernfs_find_and_get(system->sd, "memory");
}

/*
 * Memory block devices have no parent device (their sysfs directory comes from the
 * subsystem's root), so look them up by directory name.
 */
static struct device *cxlt_memblock_get(struct kernfs_node *dir, const char *name)
{
	struct kobject *kobj = NULL;
	struct kernfs_node *kn;

	kn = kernfs_find_and_get(dir, name);
	if (!kn)
		return NULL;
	if (kernfs_type(kn) == KERNFS_DIR && kn->priv && kobject_get_unless_zero(kn->priv))
		kobj = kn->priv;
	kernfs_put(kn);
	return kobj ? kobj_to_dev(kobj) : NULL;
}

/*
 * The store() takes the device hotplug lock with a trylock and, when it is busy,
 * asks for a syscall restart (it sets TIF_SIGPENDING).  We are not its syscall: undo
 * that flag and retry, unless a real signal is pending.
 */
static int cxlt_memblock_store(struct device *blk, const char *state)
{
	/* A task's own sighand only changes in exec, which cannot run under us. */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, 1);
	int rc;

	for (;;) {
		rc = cxlt_dev_attr_store(blk, NULL, "state", state);
		if (rc != -ERESTARTNOINTR)
			return rc;
		spin_lock_irq(&sighand->siglock);
		recalc_sigpending();
		spin_unlock_irq(&sighand->siglock);
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

static int cxlt_memblock_online_movable(struct device *blk)
{
	char state[16], zones[64];
	int rc;

	rc = cxlt_dev_attr_read(blk, NULL, "state", state, sizeof(state));
	if (rc)
		return rc;
	if (!strcmp(state, "online")) {
		/* Auto-onlined by the system's policy: fine if it chose Movable. */
		rc = cxlt_dev_attr_read(blk, NULL, "valid_zones", zones, sizeof(zones));
		if (rc)
			return rc;
		if (!strcmp(zones, "Movable"))
			return 0;
		rc = cxlt_memblock_store(blk, "offline");
		if (rc)
			return rc;
	}
	return cxlt_memblock_store(blk, "online_movable");
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
	struct kernfs_node *dir;
	struct device *blk;
	char name[32];
	u64 addr;
	int rc = 0;

	dir = cxlt_memory_dir();
	if (!dir)
		return -ENODEV;
	for (addr = start; addr < start + size; addr += bsz) {
		snprintf(name, sizeof(name), "memory%llu", addr / bsz);
		blk = cxlt_memblock_get(dir, name);
		if (!blk) {
			rc = -ENODEV;
			break;
		}
		rc = cxlt_memblock_online_movable(blk);
		put_device(blk);
		if (rc) {
			pr_warn("%s (%#llx): cannot online movable: %d\n", name, addr, rc);
			break;
		}
	}
	kernfs_put(dir);
	return rc;
}
