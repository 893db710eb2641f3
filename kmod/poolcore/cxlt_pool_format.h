/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-device format of a pool: what a CXL pmem region holds so that the
 * persistent regions on it survive crashes and reboots.  Documentation/persistence.rst
 * ("Pool format") is the reference; this file is its code.  Little endian, fixed
 * offsets from the start of the pool's CXL region, every record with a CRC32C
 * (Castagnoli, initial value and final XOR ~0) of its other bytes.
 *
 *   0x000000  superblock, copy A (512 bytes used of a 4 KiB block)
 *   0x001000  superblock, copy B (the same bytes; either one that verifies is used)
 *   0x002000  host area: the table generation and 63 host records (shared pools,
 *             format 1.1 with CXLT_POOL_SB_SHARED; zero in a pool of one host)
 *   0x004000  region table: @table_entries entries of two 256-byte slots
 *   0x024000  fence log (shared pools): 16 notices per host record
 *   @data_offset  region data, in units of @unit bytes (2 MiB)
 *
 * The superblock never changes after format.  A table entry changes by writing its
 * slot that is not current (sequence number one higher, CRC over the rest) and
 * writing it back to the persistence domain: a torn write leaves a slot whose CRC
 * fails and the other slot, the entry as it was, stays current.  Which space is in
 * use follows from the entries alone, so one entry update is a whole transaction.
 *
 * A shared pool (format 1.1, CXLT_POOL_SB_SHARED) is attached by several hosts
 * through a multi-headed device that need not be cache-coherent across them: every
 * 64-byte line of the metadata has one writer at a time (a host record its host,
 * the generation and the table the holder of the pool lock), which writes it back
 * after writing; readers invalidate before reading.  The pool lock is Lamport's
 * bakery algorithm over the host records (no atomic read-modify-write works across
 * hosts), with a lease: a host whose heartbeat does not move for the lease is
 * judged expired, and after a grace period more the others go on without it,
 * while it stops writing on its own (see poolcore/lease.c).
 */
#ifndef _CXLT_POOL_FORMAT_H
#define _CXLT_POOL_FORMAT_H

#include "pc_compat.h"

#define CXLT_POOL_MAGIC		"CXLTPOOL"
#define CXLT_POOL_MAJOR		1	/* readers refuse a newer major */
#define CXLT_POOL_MINOR		0	/* newer minors only add what older ones ignore */
/* Shared pools: host records, DYING entries, the lease and the fence log (1.1: refused). */
#define CXLT_POOL_MINOR_SHARED	2

/* Superblock flags: a reader refuses flags it does not know. */
#define CXLT_POOL_SB_SHARED	BIT(0)		/* a shared pool (pool_shared.c) */
#define CXLT_POOL_SB_FLAGS	CXLT_POOL_SB_SHARED

#define CXLT_POOL_SB_A		0x0000
#define CXLT_POOL_SB_B		0x1000
#define CXLT_POOL_HOST_OFFSET	0x2000
#define CXLT_POOL_HOST_SLOTS	64	/* slot 0: the table generation */
#define CXLT_POOL_HOST_SIZE	128
#define CXLT_POOL_TABLE_OFFSET	0x4000
#define CXLT_POOL_ENTRIES	256
#define CXLT_POOL_SLOT_SIZE	256
#define CXLT_POOL_ENTRY_SIZE	(2 * CXLT_POOL_SLOT_SIZE)
#define CXLT_POOL_UNIT		(2ULL << 20)
#define CXLT_POOL_SERIALS	16
#define CXLT_POOL_FLOG_OFFSET	0x24000
#define CXLT_POOL_FLOG_NOTES	16	/* per host: a ring of its newest fence notices */
#define CXLT_POOL_FLOG_SIZE	(CXLT_POOL_FLOG_NOTES * 16)

/**
 * struct cxlt_pool_sb - the superblock
 * @magic: CXLT_POOL_MAGIC
 * @major: format major version
 * @minor: format minor version
 * @flags: CXLT_POOL_SB_* (0 for a pool of one host)
 * @uuid: the pool's identity, made at format
 * @pool_size: size of the CXL region at format, bytes
 * @ways: its interleave ways at format
 * @granularity: its interleave granularity at format, bytes
 * @serials: serial numbers of its devices in interleave position order; the
 *	layout that maps pool offsets to device media.  A region assembled
 *	differently puts other bytes at those offsets: the pool is then refused.
 * @table_offset: byte offset of the region table
 * @table_entries: entries in it
 * @entry_size: bytes per entry (two slots)
 * @data_offset: byte offset of the first data unit
 * @data_size: bytes of data units
 * @unit: allocation unit, bytes
 * @host_slots: records in the host area (slot 0: the table generation)
 * @host_offset: byte offset of the host area
 * @host_size: bytes per host record
 * @pool_no: a shared pool's number (1 to 127), in the ids of its regions; 0
 * @format_ns: when it was formatted, CLOCK_REALTIME
 * @lease_ms: shared pools: a host whose heartbeat stands still this long is
 *	judged expired, and a host that did not renew for this long stops writing
 * @grace_ms: shared pools: how long after judging a host expired the others
 *	wait before they go on without it (its last store in flight lands first)
 * @fence_offset: shared pools: byte offset of the fence log
 * @reserved: zero
 * @crc: CRC32C of the bytes before it
 */
struct cxlt_pool_sb {
	u8 magic[8];
	__le16 major;
	__le16 minor;
	__le32 flags;
	u8 uuid[16];
	__le64 pool_size;
	__le32 ways;
	__le32 granularity;
	__le64 serials[CXLT_POOL_SERIALS];
	__le64 table_offset;
	__le32 table_entries;
	__le32 entry_size;
	__le64 data_offset;
	__le64 data_size;
	__le32 unit;
	__le32 host_slots;
	__le64 host_offset;
	__le32 host_size;
	__le32 pool_no;
	__le64 format_ns;
	__le32 lease_ms;
	__le32 grace_ms;
	__le64 fence_offset;
	u8 reserved[252];
	__le32 crc;
} __packed;

#define CXLT_POOL_ENTRY_MAGIC	0x52544c43	/* "CLTR" */
#define CXLT_POOL_ENTRY_FREE	0
#define CXLT_POOL_ENTRY_USED	1
#define CXLT_POOL_ENTRY_DYING	2	/* shared: destroyed, held while a host has it open */

/**
 * struct cxlt_pool_slot - one slot of a region table entry
 * @magic: CXLT_POOL_ENTRY_MAGIC
 * @major: format major version that wrote it
 * @minor: format minor version that wrote it
 * @seq: update number of the entry; the valid slot with the higher one is current
 * @state: CXLT_POOL_ENTRY_FREE, _USED or (shared pools) _DYING
 * @flags: zero
 * @offset: byte offset of the region's data in the pool (a multiple of @unit)
 * @length: the region's size in bytes
 * @alloc: bytes allocated at @offset (@length rounded up to @unit)
 * @uid: owner (initial user namespace)
 * @gid: group
 * @mode: permission bits
 * @host: host record id of the host that wrote it (0: a pool of one host)
 * @ctime_ns: when the region was created, CLOCK_REALTIME
 * @uuid: the region's identity, made at create
 * @name: its name, NUL-terminated
 * @reserved: zero
 * @crc: CRC32C of the bytes before it
 */
struct cxlt_pool_slot {
	__le32 magic;
	__le16 major;
	__le16 minor;
	__le64 seq;
	__le32 state;
	__le32 flags;
	__le64 offset;
	__le64 length;
	__le64 alloc;
	__le32 uid;
	__le32 gid;
	__le32 mode;
	__le32 host;
	__le64 ctime_ns;
	u8 uuid[16];
	char name[64];
	u8 reserved[100];
	__le32 crc;
} __packed;

#define CXLT_POOL_GEN_MAGIC	0x4e45474c	/* "LGEN" */

/**
 * struct cxlt_pool_gen - host slot 0 of a shared pool: the table's generation
 * @magic: CXLT_POOL_GEN_MAGIC
 * @reserved0: zero
 * @gen: incremented by the lock holder before and after each table update: odd
 *	while one is in progress (or was cut short by its host's death)
 * @reserved: zero
 */
struct cxlt_pool_gen {
	__le32 magic;
	__le32 reserved0;
	__le64 gen;
	u8 reserved[112];
} __packed;

#define CXLT_POOL_HOST_MAGIC	0x54534f48	/* "HOST" */
#define CXLT_POOL_HOST_NONE	0
#define CXLT_POOL_HOST_ATTACHED	1
#define CXLT_POOL_HOST_DETACHED	2	/* left cleanly */
#define CXLT_POOL_HOST_EXPIRED	3	/* its lease ran out; another host cleared it */
#define CXLT_POOL_OPEN_WORDS	(CXLT_POOL_ENTRIES / 64)

/**
 * struct cxlt_pool_host - host slot 1 to 63 of a shared pool: one host's record,
 *	written by that host only (and by the lock holder once the lease expired)
 * @magic: CXLT_POOL_HOST_MAGIC
 * @state: CXLT_POOL_HOST_*
 * @heartbeat: incremented by the host every lease / 10 while attached
 * @choosing: bakery: nonzero while the host picks its @number
 * @number: bakery: its ticket while it wants or holds the pool lock, else 0
 * @judged: bit n: this host judged host n expired (its heartbeat stood still
 *	for the lease); host n stops writing when it sees the bit, and the
 *	bit is cleared when host n attaches again (a new @uuid)
 * @fence_head: notices this host appended to its fence log (the newest is
 *	number @fence_head, in ring slot (@fence_head - 1) % CXLT_POOL_FLOG_NOTES)
 * @uuid: made at each attach: tells a new attach from an old one
 * @name: the host's node name, NUL-terminated
 * @open: bit n: the host has table entry n's region open or mapped
 */
struct cxlt_pool_host {
	__le32 magic;
	__le32 state;
	__le64 heartbeat;
	__le64 choosing;
	__le64 number;
	__le64 judged;
	__le64 fence_head;
	u8 uuid[16];
	char name[32];
	__le64 open[CXLT_POOL_OPEN_WORDS];
} __packed;

/**
 * struct cxlt_pool_fnote - one notice of a host's fence log (shared pools): the
 *	host fenced a blade of the pool
 * @seq: its number in the host's log, from 1; 0: never written
 * @tag: the first four bytes of the writer's record @uuid when it wrote it: a
 *	notice is in force while its writer is attached under that uuid
 * @serial: the blade's serial number
 */
struct cxlt_pool_fnote {
	__le32 seq;
	u8 tag[4];
	__le64 serial;
} __packed;

static_assert(sizeof(struct cxlt_pool_sb) == 512);
static_assert(sizeof(struct cxlt_pool_fnote) * CXLT_POOL_FLOG_NOTES == CXLT_POOL_FLOG_SIZE);
static_assert(CXLT_POOL_TABLE_OFFSET + CXLT_POOL_ENTRIES * CXLT_POOL_ENTRY_SIZE <=
	      CXLT_POOL_FLOG_OFFSET);
static_assert(sizeof(struct cxlt_pool_gen) == CXLT_POOL_HOST_SIZE);
static_assert(sizeof(struct cxlt_pool_host) == CXLT_POOL_HOST_SIZE);
static_assert(sizeof(struct cxlt_pool_slot) == CXLT_POOL_SLOT_SIZE);
static_assert(CXLT_POOL_HOST_OFFSET + CXLT_POOL_HOST_SLOTS * CXLT_POOL_HOST_SIZE <=
	      CXLT_POOL_TABLE_OFFSET);

#endif /* _CXLT_POOL_FORMAT_H */
