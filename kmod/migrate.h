/* SPDX-License-Identifier: GPL-2.0 */
/*
 * migrate.c: moving pages of a global region between the fast and slow tiers.
 */
#ifndef _CXLT_MIGRATE_H
#define _CXLT_MIGRATE_H

#include <linux/bits.h>
#include <linux/types.h>

struct cxlt_region;

/**
 * enum cxlt_move_result - what became of one requested move
 * @CXLT_MV_MOVED: the page is on the target tier now
 * @CXLT_MV_THERE: it already was on that tier (a stale request, or the kernel
 *	moved it meanwhile); nothing copied
 * @CXLT_MV_GONE: nothing to move: the page is not resident, is fenced or being
 *	poisoned (also when that happened during the copy: the copy is dropped), or
 *	has a PIN hint; or the target was fenced during the copy
 * @CXLT_MV_BUSY: the folio was locked or referenced by someone else for a moment
 *	(a fault, the kernel's own migration, a per-CPU LRU cache); try again later
 * @CXLT_MV_PINNED: get_user_pages() holds the page (O_DIRECT, io_uring fixed
 *	buffers, RDMA): it is not copied under the pinner
 * @CXLT_MV_NOMEM: no node of the target tier had room (or the DRAM budget is used)
 * @CXLT_MV_POISON: the copy hit a memory error in the source page
 */
enum cxlt_move_result {
	CXLT_MV_MOVED,
	CXLT_MV_THERE,
	CXLT_MV_GONE,
	CXLT_MV_BUSY,
	CXLT_MV_PINNED,
	CXLT_MV_NOMEM,
	CXLT_MV_POISON,
	CXLT_MV_NR,
};

/**
 * struct cxlt_move - one page to move
 * @pgoff: (in) page offset in the region
 * @result: (out) enum cxlt_move_result
 * @nid: (out) the page's node after the move (CXLT_MV_MOVED)
 */
struct cxlt_move {
	unsigned long pgoff;
	u8 result;
	int nid;
};

/* Moves that undo a move of the same page younger than this count as ping-pong. */
#define CXLT_PINGPONG_PERIODS	16

/*
 * A page's entry keeps the period of the daemon's last move of it in 8 bits
 * (CXLT_RP_MOVED_MASK): the period's number modulo 255, plus one, so that 0 says
 * "no daemon move" (a first touch, reclaim's moves, which pass period 0).  The
 * daemon's period numbers skip 0 only when they wrap at 2^32, and 255 divides
 * 2^32 - 1, so the stamps of consecutive periods are consecutive there too.
 * Stamps repeat every 255 periods: the daemon clears one once it is
 * CXLT_PINGPONG_PERIODS old (DOC: region page table).
 */
static inline u32 cxlt_move_stamp(u32 period)
{
	return period ? period % 255 + 1 : 0;
}

/* Periods from stamp @then to stamp @now, both non-zero: 0 to 254. */
static inline u32 cxlt_stamp_age(u32 now, u32 then)
{
	return (now + 255 - then) % 255;
}

/* cxlt_migrate_batch() flags: take folio locks only if they are free. */
#define CXLT_MIG_TRYLOCK	BIT(0)

void cxlt_migrate_batch(struct cxlt_region *r, struct cxlt_move *mv, unsigned int nr,
			bool fast, u32 period, unsigned int flags);

#endif /* _CXLT_MIGRATE_H */
