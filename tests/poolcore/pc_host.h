/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool core's host build (kmod/poolcore/pc_compat.h includes this outside the
 * kernel): the kernel's little-endian types and helpers (every host we build on is
 * little endian), READ_ONCE()/WRITE_ONCE() and CRC32C.
 */
#ifndef CXLT_PC_HOST_H
#define CXLT_PC_HOST_H

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include "cxlt_compat.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the pool core's host build assumes a little-endian host"
#endif

typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
#define cpu_to_le16(x)	((__le16)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define cpu_to_le64(x)	((__le64)(x))
#define le16_to_cpu(x)	((u16)(x))
#define le32_to_cpu(x)	((u32)(x))
#define le64_to_cpu(x)	((u64)(x))
#define U64_MAX		(~0ULL)
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define __packed	__attribute__((packed))
/* The host tests run one host's core at a time: plain accesses are enough. */
#define READ_ONCE(x)	(x)
#define WRITE_ONCE(x, v) ((x) = (v))
#ifndef __cplusplus
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#endif

/* Bitwise CRC32C (Castagnoli), initial value and final XOR ~0: the kernel's. */
static inline u32 cxlt_pc_crc32c(const void *p, size_t len)
{
	const u8 *b = (const u8 *)p;
	u32 crc = ~0U;

	while (len--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	return ~crc;
}
#endif /* CXLT_PC_HOST_H */
