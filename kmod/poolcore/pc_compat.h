/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier pool core: build environment shim.
 *
 * The pool core (the on-device format, table slots, host records, leases and the
 * cross-host lock) is compiled unchanged into the kernel module and into the host
 * tests, which run it over a simulated device with per-host caches.  This header
 * is the only place that knows the difference: in the kernel it includes what the
 * core uses, on the host tests/poolcore/pc_host.h spells the same.
 */
#ifndef CXLT_PC_COMPAT_H
#define CXLT_PC_COMPAT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/*
 * CRC-32C without inversion: __crc32c_le() in 6.12, crc32c() in 7.3 (where the CRC
 * library was reworked).  kmod/Kbuild looks for __crc32c_le in the kernel's crc32.h
 * (see kmod/compat.h for why headers rather than version numbers).
 */
static inline u32 cxlt_pc_crc32c(const void *p, size_t len)
{
#ifdef CXLT_HAVE___CRC32C_LE
	return ~__crc32c_le(~0U, p, len);
#else
	return ~crc32c(~0U, p, len);
#endif
}
#else
/* The host's spelling of the same (tests/poolcore/, on the include path there). */
#include "pc_host.h"
#endif /* __KERNEL__ */

#endif /* CXLT_PC_COMPAT_H */
