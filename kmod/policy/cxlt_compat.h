/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier placement policy: build environment shim.
 *
 * The policy core is compiled unchanged into the kernel module and into host
 * programs (unit tests, simulator).  This header is the only place that knows
 * the difference: it provides the kernel's fixed-size integer types, bool,
 * size_t and the errno values, and cxlt_yield(): in the kernel a loop over every
 * page (up to twice the host's memory) lets other work run now and then
 * (cond_resched(); the daemon's thread calls the core in process context), in a
 * host program it does nothing.
 */
#ifndef CXLT_COMPAT_H
#define CXLT_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/sched.h>
#define cxlt_yield()	cond_resched()
#else
#define cxlt_yield()	do { } while (0)
#include <stddef.h>
#include <errno.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/*
 * Exact-width types as the kernel spells them; plain C types, so the host
 * side needs no <stdint.h>.  Every host we build on is ILP32 or LP64.
 */
typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef signed int s32;
typedef unsigned long long u64;
typedef signed long long s64;
#endif /* __KERNEL__ */

#endif /* CXLT_COMPAT_H */
