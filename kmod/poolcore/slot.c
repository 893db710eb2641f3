// SPDX-License-Identifier: GPL-2.0
/*
 * Pool core: the superblock, table slots and the table generation.
 *
 * A table entry changes by writing its slot that is not current (sequence one
 * higher, CRC over the rest) and writing it back: a torn write leaves a slot whose
 * CRC fails and the other slot, the entry as it was, stays current.  On a shared
 * pool every store here is made only while this host's lease holds.
 */
#include "cxlt_pc.h"

u32 cxlt_pc_crc(const void *p, size_t len)
{
	return cxlt_pc_crc32c(p, len);
}

bool cxlt_pc_sb_ok(const struct cxlt_pool_sb *sb)
{
	return !memcmp(sb->magic, CXLT_POOL_MAGIC, sizeof(sb->magic)) &&
	       le32_to_cpu(sb->crc) == cxlt_pc_crc(sb, offsetof(struct cxlt_pool_sb, crc));
}

/**
 * cxlt_pc_layout() - take a verified superblock's layout
 * @pc: the view to fill (ops, ctx and shared set)
 * @sb: the superblock, cxlt_pc_sb_ok()
 * @size: bytes of the device
 * @why: set to the reason on failure
 *
 * Return: 0; -EPROTONOSUPPORT a format this core does not read; -EINVAL an
 * impossible layout.
 */
int cxlt_pc_layout(struct cxlt_pc *pc, const struct cxlt_pool_sb *sb, u64 size,
		   const char **why)
{
	u32 n = le32_to_cpu(sb->table_entries);
	u64 data = le64_to_cpu(sb->data_offset);

	if (le16_to_cpu(sb->major) != CXLT_POOL_MAJOR) {
		*why = "a format major this module does not read";
		return -EPROTONOSUPPORT;
	}
	if (le32_to_cpu(sb->flags) & ~CXLT_POOL_SB_FLAGS) {
		*why = "unknown superblock flags";
		return -EPROTONOSUPPORT;
	}
	if (le64_to_cpu(sb->table_offset) != CXLT_POOL_TABLE_OFFSET || !n ||
	    n > CXLT_POOL_ENTRIES || le32_to_cpu(sb->entry_size) != CXLT_POOL_ENTRY_SIZE ||
	    le32_to_cpu(sb->unit) != CXLT_POOL_UNIT ||
	    data < CXLT_POOL_TABLE_OFFSET + (u64)n * CXLT_POOL_ENTRY_SIZE || data > size ||
	    le64_to_cpu(sb->data_size) > size - data) {
		*why = "superblock has an impossible layout";
		return -EINVAL;
	}
	pc->table_offset = CXLT_POOL_TABLE_OFFSET;
	pc->entries = n;
	pc->data_offset = data;
	pc->data_size = le64_to_cpu(sb->data_size);
	if (!pc->shared)
		return 0;
	if (le16_to_cpu(sb->minor) < CXLT_POOL_MINOR_SHARED) {
		*why = "format 1.1 (no lease on the device): detach everywhere, format again";
		return -EPROTONOSUPPORT;
	}
	pc->lease_ms = le32_to_cpu(sb->lease_ms);
	pc->grace_ms = le32_to_cpu(sb->grace_ms);
	pc->fence_offset = le64_to_cpu(sb->fence_offset);
	if (pc->lease_ms < CXLT_PC_LEASE_MIN_MS || !pc->grace_ms ||
	    pc->grace_ms > pc->lease_ms || pc->fence_offset != CXLT_POOL_FLOG_OFFSET ||
	    data < CXLT_POOL_FLOG_OFFSET + CXLT_POOL_HOST_SLOTS * CXLT_POOL_FLOG_SIZE) {
		*why = "superblock has an impossible lease or fence log";
		return -EINVAL;
	}
	return 0;
}

u64 cxlt_pc_slot_offset(const struct cxlt_pc *pc, u32 idx, int s)
{
	return pc->table_offset + (u64)idx * CXLT_POOL_ENTRY_SIZE + s * CXLT_POOL_SLOT_SIZE;
}

static bool cxlt_pc_slot_ok(const struct cxlt_pool_slot *s)
{
	return le32_to_cpu(s->magic) == CXLT_POOL_ENTRY_MAGIC &&
	       le16_to_cpu(s->major) == CXLT_POOL_MAJOR &&
	       le32_to_cpu(s->crc) == cxlt_pc_crc(s, offsetof(struct cxlt_pool_slot, crc)) &&
	       le32_to_cpu(s->state) <= CXLT_POOL_ENTRY_DYING;
}

static bool cxlt_pc_all_zero(const void *p, size_t len)
{
	const u8 *b = (const u8 *)p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/**
 * cxlt_pc_read_entry() - the current slot of entry @idx, as this host's cache has it
 * @pc: the view
 * @idx: the entry
 * @ent: what it says
 * @out: its current slot
 *
 * The caller invalidates first when another host may have written it.  A slot on
 * poisoned media reads as one that fails its checksum.
 *
 * Return: false when no slot verifies (@ent->bad: one was written, so the space
 * it held is unknown).
 */
bool cxlt_pc_read_entry(struct cxlt_pc *pc, u32 idx, struct cxlt_pool_ent *ent,
			struct cxlt_pool_slot *out)
{
	struct cxlt_pool_slot s[2];
	bool ok[2], poisoned = false;
	int i;

	memset(ent, 0, sizeof(*ent));
	ent->cur = -1;
	for (i = 0; i < 2; i++) {
		if (pc->ops->read(pc->ctx, cxlt_pc_slot_offset(pc, idx, i), &s[i], sizeof(s[i]))) {
			memset(&s[i], 0, sizeof(s[i]));
			poisoned = true;
			ok[i] = false;
			continue;
		}
		ok[i] = cxlt_pc_slot_ok(&s[i]);
	}
	if (!ok[0] && !ok[1]) {
		/* Never written is free; anything else lost its contents. */
		ent->bad = poisoned || !cxlt_pc_all_zero(s, sizeof(s));
		return false;
	}
	i = ok[0] && ok[1] ? le64_to_cpu(s[1].seq) > le64_to_cpu(s[0].seq) : ok[1];
	ent->cur = i;
	ent->seq = le64_to_cpu(s[i].seq);
	ent->state = le32_to_cpu(s[i].state);
	if (ent->state != CXLT_POOL_ENTRY_FREE) {
		ent->offset = le64_to_cpu(s[i].offset);
		ent->alloc = le64_to_cpu(s[i].alloc);
		memcpy(ent->uuid, s[i].uuid, sizeof(ent->uuid));
	}
	*out = s[i];
	return true;
}

/* A used entry that describes space outside the data area, or no region, is not sane. */
bool cxlt_pc_slot_sane(const struct cxlt_pc *pc, const struct cxlt_pool_slot *s)
{
	u64 data_lo = pc->data_offset, data_hi = data_lo + pc->data_size;
	u64 off = le64_to_cpu(s->offset), len = le64_to_cpu(s->length);
	u64 alloc = le64_to_cpu(s->alloc);

	return s->name[0] && strnlen(s->name, sizeof(s->name)) < sizeof(s->name) &&
	       len && !(len & 4095) && alloc >= len && off >= data_lo && off <= data_hi &&
	       alloc <= data_hi - off && !(off % CXLT_POOL_UNIT) &&
	       le32_to_cpu(s->mode) <= 0777;
}

/* A shared pool's stores need this host's lease; a pool of one host has no lease. */
static bool cxlt_pc_writable(struct cxlt_pc *pc)
{
	return !pc->shared || cxlt_pc_may_write(pc);
}

/**
 * cxlt_pc_write_entry() - write entry @idx's next slot from @s, durably
 * @pc: the view; a shared pool's lock held, within cxlt_pc_update_begin()
 * @idx: the entry
 * @ent: this host's copy of it, updated
 * @s: the slot (magic, version, seq and crc filled in here)
 *
 * On a shared pool the lease check that allows this store is the one of
 * cxlt_pc_update_begin() just before (no device read comes between them).
 *
 * Return: 0, the slot is on the device.
 */
int cxlt_pc_write_entry(struct cxlt_pc *pc, u32 idx, struct cxlt_pool_ent *ent,
			struct cxlt_pool_slot *s)
{
	int to = ent->cur < 0 ? 0 : !ent->cur;
	u64 dst = cxlt_pc_slot_offset(pc, idx, to);

	s->magic = cpu_to_le32(CXLT_POOL_ENTRY_MAGIC);
	s->major = cpu_to_le16(CXLT_POOL_MAJOR);
	s->minor = cpu_to_le16(pc->shared ? CXLT_POOL_MINOR_SHARED : CXLT_POOL_MINOR);
	s->seq = cpu_to_le64(ent->seq + 1);
	s->crc = cpu_to_le32(cxlt_pc_crc(s, offsetof(struct cxlt_pool_slot, crc)));
	pc->ops->write(pc->ctx, dst, s, sizeof(*s));
	pc->ops->wb(pc->ctx, dst, sizeof(*s));
	pc->ops->fence(pc->ctx);
	ent->cur = to;
	ent->seq++;
	ent->state = le32_to_cpu(s->state);
	ent->offset = le64_to_cpu(s->offset);
	ent->alloc = le64_to_cpu(s->alloc);
	memcpy(ent->uuid, s->uuid, sizeof(ent->uuid));
	return 0;
}

/**
 * cxlt_pc_format_table() - a new table: every entry's slot 0 a valid free slot
 * @pc: the view (layout set), the pool being formatted
 *
 * An entry's first update then goes to slot 1: a crash that tears it leaves
 * slot 0, free, current.  (A table of zeroes would leave an entry whose only
 * written slot is torn, which reads as lost contents.)
 */
void cxlt_pc_format_table(struct cxlt_pc *pc)
{
	struct cxlt_pool_slot s;
	u32 i;

	memset(&s, 0, sizeof(s));
	s.magic = cpu_to_le32(CXLT_POOL_ENTRY_MAGIC);
	s.major = cpu_to_le16(CXLT_POOL_MAJOR);
	s.minor = cpu_to_le16(pc->shared ? CXLT_POOL_MINOR_SHARED : CXLT_POOL_MINOR);
	s.state = cpu_to_le32(CXLT_POOL_ENTRY_FREE);
	s.crc = cpu_to_le32(cxlt_pc_crc(&s, offsetof(struct cxlt_pool_slot, crc)));
	for (i = 0; i < pc->entries; i++)
		pc->ops->write(pc->ctx, cxlt_pc_slot_offset(pc, i, 0), &s, sizeof(s));
	pc->ops->wb(pc->ctx, pc->table_offset, (u64)pc->entries * CXLT_POOL_ENTRY_SIZE);
	pc->ops->fence(pc->ctx);
}

/* Drop this host's cached lines of the table: the next reads see the device. */
void cxlt_pc_inval_table(struct cxlt_pc *pc)
{
	pc->ops->inval(pc->ctx, pc->table_offset, (u64)pc->entries * CXLT_POOL_ENTRY_SIZE);
}

/**
 * cxlt_pc_zero() - zero a new region's space and write it back
 * @pc: the view; a shared pool's lock held
 * @off: first byte
 * @len: bytes
 *
 * Before its entry says USED: a region never shows another's old data.  On a
 * shared pool the lease is checked before each chunk, so a host paused in the
 * middle never zeroes space another host gave a region meanwhile.
 *
 * Return: 0; -ETIMEDOUT the lease lapsed, or what ops->yield() stopped it with
 * (part of the space may be zeroed).
 */
int cxlt_pc_zero(struct cxlt_pc *pc, u64 off, u64 len)
{
	u64 done, n;
	int rc;

	for (done = 0; done < len; done += n) {
		n = min(len - done, (u64)CXLT_PC_ZERO_CHUNK);
		rc = done ? pc->ops->yield(pc->ctx) : 0;
		if (rc)
			return rc;
		if (!cxlt_pc_writable(pc))
			return -ETIMEDOUT;
		pc->ops->zero(pc->ctx, off + done, n);
		pc->ops->wb(pc->ctx, off + done, n);
		/* Another host may have this space's old lines in its cache: see hold.c. */
	}
	pc->ops->fence(pc->ctx);
	return 0;
}

/* --- the generation (shared pools: host slot 0) --------------------------------------- */

static u64 cxlt_pc_gen_off(void)
{
	return CXLT_POOL_HOST_OFFSET + offsetof(struct cxlt_pool_gen, gen);
}

/* The generation on the device; U64_MAX when it cannot be read. */
u64 cxlt_pc_read_gen(struct cxlt_pc *pc)
{
	__le64 v;

	pc->ops->inval(pc->ctx, cxlt_pc_gen_off(), sizeof(v));
	if (pc->ops->read(pc->ctx, cxlt_pc_gen_off(), &v, sizeof(v)))
		return U64_MAX;
	return le64_to_cpu(v);
}

static int cxlt_pc_write_gen(struct cxlt_pc *pc, u64 gen)
{
	__le64 v = cpu_to_le64(gen);

	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	pc->ops->write(pc->ctx, cxlt_pc_gen_off(), &v, sizeof(v));
	pc->ops->wb(pc->ctx, cxlt_pc_gen_off(), sizeof(v));
	pc->ops->fence(pc->ctx);
	return 0;
}

/**
 * cxlt_pc_update_begin() - the generation goes odd before a table update
 * @pc: the view, the lock held
 *
 * An odd one found here was left by a holder that died or lapsed: the table is
 * consistent (one slot write per update), so it is closed by going on from it.
 *
 * Return: 0; -ETIMEDOUT the lease lapsed; -EIO the generation is unreadable.
 */
int cxlt_pc_update_begin(struct cxlt_pc *pc)
{
	u64 gen = cxlt_pc_read_gen(pc);

	if (gen == U64_MAX)
		return -EIO;
	gen += gen & 1;
	pc->gen = gen + 1;
	return cxlt_pc_write_gen(pc, pc->gen);
}

/**
 * cxlt_pc_update_end() - the generation goes even after a table update
 * @pc: the view, the lock held, cxlt_pc_update_begin() done
 *
 * If the device no longer has the generation this host wrote, another host took
 * the lock from it (this host was judged expired): this incarnation is dead, and
 * nothing is written, so the generation never goes back.
 *
 * Return: 0; -ETIMEDOUT.
 */
int cxlt_pc_update_end(struct cxlt_pc *pc)
{
	if (cxlt_pc_read_gen(pc) != pc->gen) {
		WRITE_ONCE(pc->dead, true);
		return -ETIMEDOUT;
	}
	pc->gen++;
	return cxlt_pc_write_gen(pc, pc->gen);
}
