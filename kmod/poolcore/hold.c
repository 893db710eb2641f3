// SPDX-License-Identifier: GPL-2.0
/*
 * Pool core: open bits, what they hold, the cache maintenance of a region's data
 * between hosts, and the fence log.
 *
 * Destroy marks an entry DYING and frees it only when no attached host's record
 * has its open bit; a host sets its bit, then reads the entry again (and the
 * destroyer writes DYING, then reads the bits), so one of them sees the other.
 * An expired host's bits hold too: it may only be paused, its processes still
 * mapping the region.
 *
 * The device need not be coherent across hosts, so a region's data is handed over
 * through the open bits: the last close on a host writes back and drops its
 * lines of the region before it clears its bit (after which the space may be
 * freed and given to a new region: no dirty line of the old one lands on it
 * later), and the first open drops whatever lines of that space the host still
 * has from an earlier region (none of its old bytes show through the new one).
 */
#include "cxlt_pc.h"

static void cxlt_pc_write_open(struct cxlt_pc *pc, u32 w)
{
	u64 off = CXLT_POOL_HOST_OFFSET + (u64)pc->id * CXLT_POOL_HOST_SIZE +
		  offsetof(struct cxlt_pool_host, open) + w * sizeof(__le64);
	__le64 v = cpu_to_le64(pc->open_words[w]);

	pc->ops->write(pc->ctx, off, &v, sizeof(v));
	pc->ops->wb(pc->ctx, off, sizeof(v));
	/* Out before this host reads the entry (open) or its space is reused (close). */
	pc->ops->fence(pc->ctx);
}

/**
 * cxlt_pc_open() - the first open on this host of entry @idx's region
 * @pc: the view
 * @idx: the entry
 * @uuid: the region's uuid (a new region in the same entry is another region)
 * @off: its data's offset
 * @len: its allocated bytes
 *
 * Return: 0; -ENOENT destroyed (on any host) meanwhile; -ETIMEDOUT this host's
 * lease lapsed.
 */
int cxlt_pc_open(struct cxlt_pc *pc, u32 idx, const u8 *uuid, u64 off, u64 len)
{
	struct cxlt_pool_slot s;
	struct cxlt_pool_ent ent;
	bool ok;

	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	pc->open_words[idx / 64] |= BIT_ULL(idx % 64);
	cxlt_pc_write_open(pc, idx / 64);
	pc->ops->inval(pc->ctx, cxlt_pc_slot_offset(pc, idx, 0), CXLT_POOL_ENTRY_SIZE);
	ok = cxlt_pc_read_entry(pc, idx, &ent, &s) && ent.state == CXLT_POOL_ENTRY_USED &&
	     !memcmp(ent.uuid, uuid, sizeof(ent.uuid));
	if (!ok) {
		pc->open_words[idx / 64] &= ~BIT_ULL(idx % 64);
		cxlt_pc_write_open(pc, idx / 64);
		return -ENOENT;
	}
	pc->ops->inval(pc->ctx, off, len);
	return 0;
}

/**
 * cxlt_pc_reserve() - hold entry @idx's space while this host creates a region there
 * @pc: the view, the lock held
 * @idx: the entry, free
 * @on: before the entry says DYING (space held, no region), or after it says USED
 *
 * A create writes its entry DYING under this host's open bit, zeroes the space,
 * then writes it USED.  A zeroing store that lands late (its host paused between
 * the check and the store) lands on space this bit still holds: an expired host's
 * bits hold until it attaches again, which waits for the create to end.
 *
 * Return: 0; -ETIMEDOUT the lease lapsed (setting only).
 */
int cxlt_pc_reserve(struct cxlt_pc *pc, u32 idx, bool on)
{
	if (on && !cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	if (!on && READ_ONCE(pc->dead))
		return 0;	/* held until the next incarnation */
	if (on)
		pc->open_words[idx / 64] |= BIT_ULL(idx % 64);
	else
		pc->open_words[idx / 64] &= ~BIT_ULL(idx % 64);
	cxlt_pc_write_open(pc, idx / 64);
	return 0;
}

/**
 * cxlt_pc_close() - the last close on this host of entry @idx's region
 * @pc: the view
 * @idx: the entry
 * @off: its data's offset
 * @len: its allocated bytes
 *
 * Its lines are written back and dropped while the bit still holds the space.  A
 * dead incarnation leaves its bit: cxlt_pc_register() clears them all.
 */
void cxlt_pc_close(struct cxlt_pc *pc, u32 idx, u64 off, u64 len)
{
	pc->ops->inval(pc->ctx, off, len);
	pc->ops->fence(pc->ctx);
	if (READ_ONCE(pc->dead))
		return;
	pc->open_words[idx / 64] &= ~BIT_ULL(idx % 64);
	cxlt_pc_write_open(pc, idx / 64);
}

/**
 * cxlt_pc_held() - does an attached host, live or expired, have entry @idx open?
 * @pc: the view (the lock held for a decision that frees)
 * @idx: the entry
 *
 * An unreadable record holds everything: what it had open is unknown.
 */
bool cxlt_pc_held(struct cxlt_pc *pc, u32 idx)
{
	struct cxlt_pool_host rec;
	u32 j;

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (!cxlt_pc_read_host(pc, j, &rec))
			return true;
		if (cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
			continue;
		if (le64_to_cpu(rec.open[idx / 64]) & BIT_ULL(idx % 64))
			return true;
	}
	return false;
}

/* --- the fence log ----------------------------------------------------------------- */

static u64 cxlt_pc_note_off(const struct cxlt_pc *pc, u32 id, u32 seq)
{
	return pc->fence_offset + (u64)id * CXLT_POOL_FLOG_SIZE +
	       ((seq - 1) % CXLT_POOL_FLOG_NOTES) * sizeof(struct cxlt_pool_fnote);
}

/**
 * cxlt_pc_fence_note() - this host fenced the blade @serial: tell the others
 * @pc: the view
 * @serial: the blade's serial number
 *
 * The notice goes into this host's own log (a ring of the newest 16), then the
 * record's head moves: a reader that sees the head sees the notice.
 *
 * Return: 0; -ETIMEDOUT this host's lease lapsed.
 */
int cxlt_pc_fence_note(struct cxlt_pc *pc, u64 serial)
{
	struct cxlt_pool_fnote n = { 0 };
	u32 seq = pc->fence_head + 1;
	u64 off = cxlt_pc_note_off(pc, pc->id, seq);
	__le64 head = cpu_to_le64(seq);
	u64 hoff = CXLT_POOL_HOST_OFFSET + (u64)pc->id * CXLT_POOL_HOST_SIZE +
		   offsetof(struct cxlt_pool_host, fence_head);

	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	n.seq = cpu_to_le32(seq);
	memcpy(n.tag, pc->uuid, sizeof(n.tag));
	n.serial = cpu_to_le64(serial);
	pc->ops->write(pc->ctx, off, &n, sizeof(n));
	pc->ops->wb(pc->ctx, off, sizeof(n));
	pc->ops->fence(pc->ctx);
	pc->ops->write(pc->ctx, hoff, &head, sizeof(head));
	pc->ops->wb(pc->ctx, hoff, sizeof(head));
	pc->ops->fence(pc->ctx);
	pc->fence_head = seq;
	return 0;
}

/**
 * cxlt_pc_fence_poll() - the other hosts' fence notices this host has not taken
 * @pc: the view
 * @in_force: at attach: instead of the new ones, every notice still in force (its
 *	writer attached under the incarnation that wrote it)
 * @fn: called for each
 * @arg: passed to @fn
 *
 * Each host's log is read to this host's own cursor, so two fences between two
 * polls are both taken.  A log more than 16 notices ahead lost its oldest (a pool
 * has at most 16 blades: the newest 16 name every blade still fenced).
 */
void cxlt_pc_fence_poll(struct cxlt_pc *pc, bool in_force, cxlt_pc_fence_fn fn, void *arg)
{
	struct cxlt_pool_host rec;
	struct cxlt_pool_fnote n;
	u32 j, head, seq, from;

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pc->id || !cxlt_pc_read_host(pc, j, &rec) ||
		    cxlt_pc_host_state(&rec) == CXLT_POOL_HOST_NONE)
			continue;
		head = (u32)le64_to_cpu(rec.fence_head);
		if (in_force && cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED) {
			pc->peers[j].fence_cur = head;
			continue;
		}
		from = in_force ? 1 : pc->peers[j].fence_cur + 1;
		if (head >= CXLT_POOL_FLOG_NOTES && from <= head - CXLT_POOL_FLOG_NOTES)
			from = head - CXLT_POOL_FLOG_NOTES + 1;
		if (head >= from)
			pc->ops->inval(pc->ctx, pc->fence_offset + (u64)j * CXLT_POOL_FLOG_SIZE,
				       CXLT_POOL_FLOG_SIZE);
		for (seq = from; seq <= head && seq; seq++) {
			if (pc->ops->read(pc->ctx, cxlt_pc_note_off(pc, j, seq), &n, sizeof(n)) ||
			    le32_to_cpu(n.seq) != seq)
				continue;
			if (in_force && memcmp(n.tag, rec.uuid, sizeof(n.tag)))
				continue;
			fn(arg, j, le64_to_cpu(n.serial));
		}
		pc->peers[j].fence_cur = head;
	}
}
