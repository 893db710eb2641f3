// SPDX-License-Identifier: GPL-2.0
/*
 * Pool core: host records, leases that fence their holder, and the cross-host lock.
 *
 * The model is sanlock's delta lease.  Each attached host renews its heartbeat
 * every lease / 10 and notes when the renewal it just made started (@renewed).
 * It writes to the device only while cxlt_pc_may_write() says its lease holds:
 * renewed less than the lease ago by its own clock, and no live host has judged
 * it expired.  Another host that sees a heartbeat stand still for the lease
 * judges that host expired (a bit in its own record: the expired host stops at
 * its next check even if its clock stood still while it was paused) and goes on
 * without it a grace period after that.  So a store lands before anyone acts on
 * the expiry when the check that allowed it and the store are less than the
 * grace apart; everywhere else a host may pause for any time.
 *
 * The lock is Lamport's bakery over the host records (reads and writes only: no
 * read-modify-write works across hosts).  A judged host is still waited for until
 * its grace is over; an expired one is not.
 */
#include "cxlt_pc.h"

static u64 cxlt_pc_host_off(u32 id)
{
	return CXLT_POOL_HOST_OFFSET + (u64)id * CXLT_POOL_HOST_SIZE;
}

#define cxlt_pc_field(id, f)	(cxlt_pc_host_off(id) + offsetof(struct cxlt_pool_host, f))

/* Write one word of this host's record, write it back, and order it before what follows. */
static void cxlt_pc_own_write(struct cxlt_pc *pc, u64 off, u64 v)
{
	__le64 le = cpu_to_le64(v);

	pc->ops->write(pc->ctx, off, &le, sizeof(le));
	pc->ops->wb(pc->ctx, off, sizeof(le));
	/* The bakery needs this store before the loads that follow (store-load order). */
	pc->ops->fence(pc->ctx);
}

/**
 * cxlt_pc_read_host() - read host record @id from the device
 * @pc: the view
 * @id: 1 to 63
 * @rec: the record (zeroes when unreadable)
 *
 * Return: false when the media is poisoned.
 */
bool cxlt_pc_read_host(struct cxlt_pc *pc, u32 id, struct cxlt_pool_host *rec)
{
	pc->ops->inval(pc->ctx, cxlt_pc_host_off(id), sizeof(*rec));
	if (!pc->ops->read(pc->ctx, cxlt_pc_host_off(id), rec, sizeof(*rec)))
		return true;
	memset(rec, 0, sizeof(*rec));
	return false;
}

u32 cxlt_pc_host_state(const struct cxlt_pool_host *rec)
{
	return le32_to_cpu(rec->magic) == CXLT_POOL_HOST_MAGIC ? le32_to_cpu(rec->state) :
		CXLT_POOL_HOST_NONE;
}

/* Whether host record @id says attached: its first two words only (poisoned: no). */
static bool cxlt_pc_attached(struct cxlt_pc *pc, u32 id)
{
	struct {
		__le32 magic;
		__le32 state;
	} head;

	static_assert(offsetof(struct cxlt_pool_host, state) == sizeof(__le32));
	pc->ops->inval(pc->ctx, cxlt_pc_host_off(id), sizeof(head));
	return !pc->ops->read(pc->ctx, cxlt_pc_host_off(id), &head, sizeof(head)) &&
	       le32_to_cpu(head.magic) == CXLT_POOL_HOST_MAGIC &&
	       le32_to_cpu(head.state) == CXLT_POOL_HOST_ATTACHED;
}

/* Renewed within the lease by this host's clock; no other host's opinion. */
static bool cxlt_pc_own_clock_ok(struct cxlt_pc *pc, u64 now)
{
	if (READ_ONCE(pc->dead))
		return false;
	if (now - READ_ONCE(pc->renewed) < pc->lease_ms)
		return true;
	WRITE_ONCE(pc->dead, true);
	return false;
}

/* Set or clear this host's verdict on @id in its record; under ops->lock. */
static void cxlt_pc_verdict(struct cxlt_pc *pc, u32 id, bool on)
{
	u64 v = on ? pc->judged | BIT_ULL(id) : pc->judged & ~BIT_ULL(id);

	if (v == pc->judged)
		return;
	pc->judged = v;
	cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, judged), v);
}

/* Time from @t to @now; 0 when another thread stamped @t after @now was read. */
static u64 cxlt_pc_age(u64 now, u64 t)
{
	return now > t ? now - t : 0;
}

/**
 * cxlt_pc_observe() - note what @rec, just read, says of host @id
 * @pc: the view
 * @id: the record's host
 * @rec: the record
 * @judge: judge it expired if its heartbeat stood still for the lease (and this
 *	host's own lease holds: a host back from a pause judges nobody)
 * @before: this host's clock read before @rec was read
 *
 * A change is stamped with the clock read after the record (it happened no later),
 * a verdict is decided with the clock read before it (the record is no older): a
 * host paused between the read and the clock never judges a heartbeat it did not
 * see stand still (the SPIN model's finding, tests/model/).
 *
 * Return: how this host sees it now.
 */
enum cxlt_pc_liveness cxlt_pc_observe(struct cxlt_pc *pc, u32 id,
				      const struct cxlt_pool_host *rec, bool judge, u64 before)
{
	struct cxlt_pc_peer *p = &pc->peers[id];
	u64 hb = le64_to_cpu(rec->heartbeat), after = pc->ops->now_ms(pc->ctx);
	u32 st = cxlt_pc_host_state(rec);
	enum cxlt_pc_liveness live;

	pc->ops->lock(pc->ctx);
	if (memcmp(p->uuid, rec->uuid, sizeof(p->uuid))) {
		/* It attached again: a new incarnation, judged afresh. */
		memcpy(p->uuid, rec->uuid, sizeof(p->uuid));
		p->judged_at = 0;
		p->moved = after;
		if (id != pc->id && pc->registered)
			cxlt_pc_verdict(pc, id, false);
	}
	if (hb != p->hb || st != p->state) {
		p->hb = hb;
		p->state = st;
		p->moved = after;
	}
	if (st != CXLT_POOL_HOST_ATTACHED) {
		live = CXLT_PC_GONE;
		if (id != pc->id && pc->registered)
			cxlt_pc_verdict(pc, id, false);
	} else if (id == pc->id) {
		live = CXLT_PC_LIVE;
	} else if (p->judged_at) {
		live = cxlt_pc_age(before, p->judged_at) >= pc->grace_ms ? CXLT_PC_EXPIRED :
			CXLT_PC_JUDGED;
	} else if (cxlt_pc_age(before, p->moved) < pc->lease_ms) {
		live = CXLT_PC_LIVE;
	} else if (judge && pc->registered && cxlt_pc_own_clock_ok(pc, before)) {
		/* On the device before the grace starts: it stops at its next check. */
		cxlt_pc_verdict(pc, id, true);
		p->judged_at = pc->ops->now_ms(pc->ctx) ?: 1;
		live = CXLT_PC_JUDGED;
	} else {
		/* Not judged by this host: still waited for. */
		live = CXLT_PC_JUDGED;
	}
	pc->ops->unlock(pc->ctx);
	return live;
}

/**
 * cxlt_pc_peek() - read host record @id and note what it says (cxlt_pc_observe())
 * @pc: the view
 * @id: the host
 * @rec: the record read
 * @judge: as cxlt_pc_observe()
 * @live: how this host sees it
 *
 * Return: false when the record is unreadable (poisoned): @live is not set.
 */
bool cxlt_pc_peek(struct cxlt_pc *pc, u32 id, struct cxlt_pool_host *rec, bool judge,
		  enum cxlt_pc_liveness *live)
{
	u64 before = pc->ops->now_ms(pc->ctx);

	if (!cxlt_pc_read_host(pc, id, rec))
		return false;
	*live = cxlt_pc_observe(pc, id, rec, judge, before);
	return true;
}

/**
 * cxlt_pc_may_write() - may this host store to the shared pool now?
 * @pc: the view
 *
 * Its lease holds: not dead, renewed less than the lease ago by its own clock,
 * and no host whose heartbeat it saw move within the lease and grace has judged
 * it expired.  Once false, false until cxlt_pc_register() makes a new incarnation.
 * The store it allows must follow within the grace (see the file's comment).
 */
bool cxlt_pc_may_write(struct cxlt_pc *pc)
{
	enum cxlt_pc_liveness live;
	struct cxlt_pool_host rec;
	u64 now, attached = 0;
	u32 j;

	if (READ_ONCE(pc->dead))
		return false;
	/*
	 * Which hosts could judge this one (any may have attached while it was
	 * paused): two words of each record, then the whole records of those only.
	 */
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++)
		if (j != pc->id && cxlt_pc_attached(pc, j))
			attached |= BIT_ULL(j);
	/*
	 * Their verdicts, read last: a pause before any of these reads is caught by
	 * the read itself (the judge wrote its verdict before it went on), even if
	 * this host's clock did not see the pause.
	 */
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		now = pc->ops->now_ms(pc->ctx);
		if (!(attached & BIT_ULL(j)) || !cxlt_pc_peek(pc, j, &rec, false, &live))
			continue;
		if (!(le64_to_cpu(rec.judged) & BIT_ULL(pc->id)) ||
		    cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
			continue;
		/* A judge that stood still itself for the lease and grace is not heeded. */
		if (cxlt_pc_age(now, READ_ONCE(pc->peers[j].moved)) <
		    (u64)pc->lease_ms + pc->grace_ms) {
			WRITE_ONCE(pc->dead, true);
			return false;
		}
	}
	/*
	 * The clock last: a pause anywhere in the reads above, if the clock saw it,
	 * is caught here, and nothing but the caller's store follows.
	 */
	return cxlt_pc_own_clock_ok(pc, pc->ops->now_ms(pc->ctx));
}

/**
 * cxlt_pc_heartbeat() - renew this host's lease, and watch the others
 * @pc: the view, registered
 *
 * Context: the heartbeat's own thread; never waits for the pool's locks.
 * Return: 0; -ETIMEDOUT the lease lapsed: this incarnation is dead, attach again.
 */
int cxlt_pc_heartbeat(struct cxlt_pc *pc)
{
	enum cxlt_pc_liveness live;
	struct cxlt_pool_host rec;
	u64 t0;
	u32 j;

	if (READ_ONCE(pc->attaching))
		return 0;
	t0 = pc->ops->now_ms(pc->ctx);
	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, heartbeat), ++pc->hb);
	WRITE_ONCE(pc->renewed, t0);
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++)
		if (j != pc->id)
			cxlt_pc_peek(pc, j, &rec, true, &live);
	return 0;
}

/**
 * cxlt_pc_lock() - take a shared pool's lock across hosts
 * @pc: the view, under the caller's pool mutex
 *
 * Lamport's bakery: take a number above every number in the host records, then
 * wait until no host that is still waited for is choosing or has a lower
 * (number, id).
 *
 * Return: 0; -ETIMEDOUT this host's lease lapsed; -EINTR killed while waiting.
 */
int cxlt_pc_lock(struct cxlt_pc *pc)
{
	struct cxlt_pool_host rec;
	u64 max = 0, mine, n;
	enum cxlt_pc_liveness live;
	int rc;
	u32 j;

	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, choosing), 1);
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++)
		if (j != pc->id && cxlt_pc_read_host(pc, j, &rec))
			max = max(max, (u64)le64_to_cpu(rec.number));
	mine = max + 1;
	cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, number), mine);
	cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, choosing), 0);

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pc->id)
			continue;
		for (;;) {
			if (!cxlt_pc_peek(pc, j, &rec, true, &live))
				break;	/* poisoned: no host can use it either */
			if (live == CXLT_PC_GONE || live == CXLT_PC_EXPIRED)
				break;
			if (!rec.choosing) {
				n = le64_to_cpu(rec.number);
				if (!n || n > mine || (n == mine && j > pc->id))
					break;
			}
			rc = READ_ONCE(pc->dead) ? -ETIMEDOUT : pc->ops->relax(pc->ctx);
			if (rc) {
				cxlt_pc_unlock(pc);
				return rc;
			}
		}
	}
	/* Every store under the lock checks the lease again: nothing to check here. */
	return 0;
}

/* Give the lock back.  A dead incarnation leaves its number: nobody waits for it. */
void cxlt_pc_unlock(struct cxlt_pc *pc)
{
	if (!READ_ONCE(pc->dead))
		cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, number), 0);
}

/* Is any host that this host still heeds judging @pc->id expired? */
static bool cxlt_pc_judged_by_any(struct cxlt_pc *pc)
{
	enum cxlt_pc_liveness live;
	struct cxlt_pool_host rec;
	u32 j;

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pc->id || !cxlt_pc_peek(pc, j, &rec, false, &live))
			continue;
		if (live == CXLT_PC_LIVE &&
		    (le64_to_cpu(rec.judged) & BIT_ULL(pc->id)))
			return true;
	}
	return false;
}

/* Watch record @id for the lease and grace: did its heartbeat move?  -EINTR. */
static int cxlt_pc_watch(struct cxlt_pc *pc, u32 id, u64 hb0)
{
	u64 t0 = pc->ops->now_ms(pc->ctx);
	struct cxlt_pool_host rec;
	int rc;

	while (pc->ops->now_ms(pc->ctx) - t0 < (u64)pc->lease_ms + pc->grace_ms) {
		rc = pc->ops->relax(pc->ctx);
		if (rc)
			return rc;
		if (cxlt_pc_read_host(pc, id, &rec) && le64_to_cpu(rec.heartbeat) != hb0)
			return 1;
	}
	return 0;
}

/**
 * cxlt_pc_register() - take this host's record: attach, or attach again
 * @pc: the view; @id, @uuid (new) and @name set; under the caller's pool mutex
 * @again: this host's own record from an incarnation that lapsed (its regions
 *	are unmapped and written back): no need to watch it
 * @busy_hb: set to the heartbeat seen move when the record is another host's
 *
 * A record that says attached under another uuid is watched for the lease and
 * grace: if its heartbeat moves, another host has that id (-EBUSY); if not, it
 * is this host's previous life (a crash) and is taken over.  Then the record is
 * written afresh (no open bits, no ticket), and this waits until no live host
 * still judges this id expired (they clear their verdicts when they see the new
 * uuid, at their next heartbeat).
 *
 * Return: 0; -EBUSY; -EINTR; -EAGAIN a host still judges this id after the
 * lease and grace (try again later).
 */
int cxlt_pc_register(struct cxlt_pc *pc, bool again, u32 *busy_hb)
{
	u64 off = cxlt_pc_host_off(pc->id), t0, period = pc->lease_ms / 10, beat;
	struct cxlt_pool_host old, rec;
	int rc;
	u32 j;

	WRITE_ONCE(pc->attaching, true);
	cxlt_pc_read_host(pc, pc->id, &old);
	if (!again && cxlt_pc_host_state(&old) == CXLT_POOL_HOST_ATTACHED) {
		rc = cxlt_pc_watch(pc, pc->id, le64_to_cpu(old.heartbeat));
		if (rc) {
			WRITE_ONCE(pc->attaching, false);
			if (rc > 0 && busy_hb)
				*busy_hb = 1;
			return rc > 0 ? -EBUSY : rc;
		}
	}
	memset(&rec, 0, sizeof(rec));
	rec.magic = cpu_to_le32(CXLT_POOL_HOST_MAGIC);
	rec.state = cpu_to_le32(CXLT_POOL_HOST_ATTACHED);
	/* Another value than before: the others see the new incarnation move at once. */
	pc->hb = (le32_to_cpu(old.magic) == CXLT_POOL_HOST_MAGIC ?
		  le64_to_cpu(old.heartbeat) : 0) + 1;
	rec.heartbeat = cpu_to_le64(pc->hb);
	/* The log goes on: the others' cursors stay valid. */
	pc->fence_head = le32_to_cpu(old.magic) == CXLT_POOL_HOST_MAGIC ?
			 (u32)le64_to_cpu(old.fence_head) : 0;
	rec.fence_head = cpu_to_le64(pc->fence_head);
	memcpy(rec.uuid, pc->uuid, sizeof(rec.uuid));
	memcpy(rec.name, pc->name, sizeof(rec.name));
	pc->judged = 0;
	memset(pc->open_words, 0, sizeof(pc->open_words));
	t0 = pc->ops->now_ms(pc->ctx);
	pc->ops->write(pc->ctx, off, &rec, sizeof(rec));
	pc->ops->wb(pc->ctx, off, sizeof(rec));
	/* The record is out before this host reads the others' (bakery, open bits). */
	pc->ops->fence(pc->ctx);
	WRITE_ONCE(pc->renewed, t0);
	pc->ops->lock(pc->ctx);
	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		memset(&pc->peers[j], 0, sizeof(pc->peers[j]));
		pc->peers[j].moved = t0;
	}
	pc->registered = true;
	pc->ops->unlock(pc->ctx);
	WRITE_ONCE(pc->dead, false);

	/* Verdicts on the old incarnation go when the judges see the new uuid. */
	beat = t0;
	for (;;) {
		if (!cxlt_pc_judged_by_any(pc))
			break;
		if (pc->ops->now_ms(pc->ctx) - t0 >= (u64)pc->lease_ms + pc->grace_ms) {
			WRITE_ONCE(pc->dead, true);
			WRITE_ONCE(pc->attaching, false);
			return -EAGAIN;
		}
		if (pc->ops->now_ms(pc->ctx) - beat >= period) {
			beat = pc->ops->now_ms(pc->ctx);
			cxlt_pc_own_write(pc, cxlt_pc_field(pc->id, heartbeat), ++pc->hb);
			WRITE_ONCE(pc->renewed, beat);
		}
		rc = pc->ops->relax(pc->ctx);
		if (rc) {
			WRITE_ONCE(pc->dead, true);
			WRITE_ONCE(pc->attaching, false);
			return rc;
		}
	}
	WRITE_ONCE(pc->attaching, false);
	return 0;
}

/* Leave cleanly: no open bits, no ticket, detached.  This host's own lines only. */
void cxlt_pc_detach(struct cxlt_pc *pc)
{
	u64 off = cxlt_pc_host_off(pc->id);
	struct cxlt_pool_host rec;

	if (!cxlt_pc_read_host(pc, pc->id, &rec) ||
	    memcmp(rec.uuid, pc->uuid, sizeof(rec.uuid)))
		return;		/* evicted, or taken over: not this host's any more */
	memset(rec.open, 0, sizeof(rec.open));
	rec.number = 0;
	rec.choosing = 0;
	rec.judged = 0;
	rec.state = cpu_to_le32(CXLT_POOL_HOST_DETACHED);
	pc->ops->write(pc->ctx, off, &rec, sizeof(rec));
	pc->ops->wb(pc->ctx, off, sizeof(rec));
	pc->ops->fence(pc->ctx);
	WRITE_ONCE(pc->dead, true);
}

/**
 * cxlt_pc_evict_watch() - before an eviction: has host @id stood still?
 * @pc: the view (no lock needed: this only reads)
 * @id: the host
 * @hb: set to the heartbeat it stood still at
 *
 * Return: 0 it did for the lease and grace; -EBUSY it moved; -ENOENT it is not
 * attached; -EINTR.
 */
int cxlt_pc_evict_watch(struct cxlt_pc *pc, u32 id, u64 *hb)
{
	struct cxlt_pool_host rec;
	int rc;

	if (id == pc->id || !cxlt_pc_read_host(pc, id, &rec) ||
	    cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
		return -ENOENT;
	*hb = le64_to_cpu(rec.heartbeat);
	rc = cxlt_pc_watch(pc, id, *hb);
	return rc > 0 ? -EBUSY : rc;
}

/**
 * cxlt_pc_evict() - an operator says host @id is dead: release what it holds
 * @pc: the view, the lock held
 * @id: the host
 * @hb: its heartbeat as cxlt_pc_evict_watch() saw it stand still
 *
 * Its record stood still for the lease and grace, so nothing else writes it: it
 * is cleared (no open bits, no ticket, no uuid: the host, were it only paused,
 * finds itself dead and attaches again).
 *
 * Return: 0; -EBUSY its heartbeat moved since; -ENOENT it is not attached;
 * -ETIMEDOUT this host's lease lapsed.
 */
int cxlt_pc_evict(struct cxlt_pc *pc, u32 id, u64 hb)
{
	u64 off = cxlt_pc_host_off(id);
	struct cxlt_pool_host rec;

	if (!cxlt_pc_may_write(pc))
		return -ETIMEDOUT;
	if (id == pc->id || !cxlt_pc_read_host(pc, id, &rec) ||
	    cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
		return -ENOENT;
	if (le64_to_cpu(rec.heartbeat) != hb)
		return -EBUSY;
	rec.state = cpu_to_le32(CXLT_POOL_HOST_EXPIRED);
	rec.choosing = 0;
	rec.number = 0;
	rec.judged = 0;
	memset(rec.uuid, 0, sizeof(rec.uuid));
	memset(rec.open, 0, sizeof(rec.open));
	pc->ops->write(pc->ctx, off, &rec, sizeof(rec));
	pc->ops->wb(pc->ctx, off, sizeof(rec));
	/* Cleared before any entry it held is freed. */
	pc->ops->fence(pc->ctx);
	return 0;
}

/**
 * cxlt_pc_others_live() - is another host attached to this pool and alive?
 * @pc: the view (lease and grace known)
 * @who: set to one such host's id
 *
 * Every record other than this host's that says attached is watched for the
 * lease and grace.  For format: a pool with a live host is never wiped.
 *
 * Return: hosts whose heartbeat moved; -EINTR.
 */
int cxlt_pc_others_live(struct cxlt_pc *pc, u32 *who)
{
	u64 hb0[CXLT_POOL_HOST_SLOTS] = { 0 }, watch = 0, t0 = pc->ops->now_ms(pc->ctx);
	struct cxlt_pool_host rec;
	int live = 0, rc;
	u32 j;

	for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
		if (j == pc->id || !cxlt_pc_read_host(pc, j, &rec) ||
		    cxlt_pc_host_state(&rec) != CXLT_POOL_HOST_ATTACHED)
			continue;
		watch |= BIT_ULL(j);
		hb0[j] = le64_to_cpu(rec.heartbeat);
	}
	while (watch && pc->ops->now_ms(pc->ctx) - t0 < (u64)pc->lease_ms + pc->grace_ms) {
		rc = pc->ops->relax(pc->ctx);
		if (rc)
			return rc;
		for (j = 1; j < CXLT_POOL_HOST_SLOTS; j++) {
			if (!(watch & BIT_ULL(j)) || !cxlt_pc_read_host(pc, j, &rec) ||
			    le64_to_cpu(rec.heartbeat) == hb0[j])
				continue;
			watch &= ~BIT_ULL(j);
			live++;
			*who = j;
		}
	}
	return live;
}
