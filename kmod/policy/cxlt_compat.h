/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier placement policy: build environment shim.
 *
 * The policy core is compiled unchanged into the kernel module and into host
 * programs (unit tests, simulator).  This header is the only place that knows
 * the difference: it provides the kernel's fixed-size integer types, bool,
 * size_t and the errno values, and nothing else.
 */
#ifndef CXLT_COMPAT_H
#define CXLT_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#else
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
