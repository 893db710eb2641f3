/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: pool core
 *
 * The part of pools that must be proven: table slots, the table generation, host
 * records, leases, the cross-host lock, open bits, the fence log and the cache
 * maintenance they need.  Plain C, compiled into the module (pool.c and
 * pool_shared.c are its glue: mapping, sysfs, region objects) and into the host
 * tests (tests/poolcore/), which run it over a simulated device where every host
 * has its own cache: a store stays in that cache until written back, another
 * host sees it only after its own invalidate, and at a crash unflushed lines are
 * lost or land in any order.
 *
 * Every access to the device goes through &struct cxlt_pc_ops.  The rules the
 * core keeps, whatever the device's coherence:
 *
 *  - a line of metadata has one writer at a time (a host record its host, the
 *    generation and the table the lock holder), which writes it back and fences
 *    after writing; a reader invalidates before reading;
 *  - a host writes to a shared pool only while its lease holds
 *    (cxlt_pc_may_write()): it renewed within the lease, and no live host has
 *    judged it expired.  A host that finds its lease lapsed writes nothing more
 *    under that incarnation (@dead) until it attaches again;
 *  - another host judges it expired when its heartbeat stood still for the lease
 *    (and says so in its own record, @judged), and goes on without it only a
 *    grace period later: a store the expired host checked just before it
 *    stopped has landed by then, as long as the check and its store are less
 *    than the grace apart (the one assumption: see Documentation/design.rst);
 *  - region space held by any attached host's open bit, live or expired, is never
 *    freed: an expired host may only be paused, and its processes may still
 *    have the region mapped.  It is released when that host attaches again (it
 *    unmaps its regions first) or when an operator evicts it.
 *
 * Locking (in the kernel): @lock (ops->lock) is a leaf spinlock over @peers and
 * this host's writes of its own @judged word; the table, the generation and the
 * bakery words are written under the caller's pool mutex; the heartbeat by one
 * work item.  Nothing here sleeps except through ops->relax() and ops->yield().
 */
#ifndef CXLT_PC_H
#define CXLT_PC_H

#include "cxlt_pool_format.h"

/**
 * struct cxlt_pc_ops - how the core reaches the device
 * @read: copy @len bytes at device offset @off into @buf, through this host's
 *	cache; -EIO when the media is poisoned (the kernel: copy_mc_to_kernel())
 * @write: store @len bytes at @off: they are in this host's cache, not on the
 *	device, until written back
 * @zero: store zeroes over [@off, @off + @len)
 * @wb: write back the dirty lines of the range, keeping them (CLWB)
 * @inval: write back the dirty lines of the range and drop them all, so the next
 *	read comes from the device (CLFLUSHOPT)
 * @fence: the write-backs before it are done before anything after it (SFENCE),
 *	and earlier stores are ordered before later loads (MFENCE)
 * @now_ms: a monotonic clock that counts suspend, in milliseconds
 * @relax: sleep a little in a wait loop; -EINTR when the caller was killed
 * @yield: between the chunks of long work: let others run (the kernel: take no
 *	lock for long); nonzero stops the work with that error
 * @lock: take the leaf lock over &cxlt_pc.peers and this host's @judged word
 * @unlock: give it back
 */
struct cxlt_pc_ops {
	int (*read)(void *ctx, u64 off, void *buf, u32 len);
	void (*write)(void *ctx, u64 off, const void *buf, u32 len);
	void (*zero)(void *ctx, u64 off, u64 len);
	void (*wb)(void *ctx, u64 off, u64 len);
	void (*inval)(void *ctx, u64 off, u64 len);
	void (*fence)(void *ctx);
	u64 (*now_ms)(void *ctx);
	int (*relax)(void *ctx);
	int (*yield)(void *ctx);
	void (*lock)(void *ctx);
	void (*unlock)(void *ctx);
};

/* What the module keeps of a table entry; the device has the rest. */
struct cxlt_pool_ent {
	u64 seq;
	u64 offset;
	u64 alloc;
	s8 cur;		/* the current slot, -1 when neither verifies */
	u8 state;	/* CXLT_POOL_ENTRY_* */
	bool bad;	/* a slot was written, neither verifies: space unknown */
	u8 uuid[16];	/* the region's (shared pools: tells a new region from an old one) */
};

/* How this host sees another host's record (cxlt_pc_peer_state()). */
enum cxlt_pc_liveness {
	CXLT_PC_GONE,		/* not attached (none, detached, evicted) */
	CXLT_PC_LIVE,		/* attached, its heartbeat moved within the lease */
	CXLT_PC_JUDGED,		/* judged expired, the grace not over: still waited for */
	CXLT_PC_EXPIRED,	/* judged expired a grace period ago: not waited for */
};

/**
 * struct cxlt_pc_peer - what this host saw of one host record
 * @hb: its heartbeat as last read
 * @state: its state as last read (CXLT_POOL_HOST_*)
 * @uuid: its uuid as last read (a new one: it attached again)
 * @moved: now_ms when this host last saw @hb, @state or @uuid change
 * @judged_at: now_ms when this host judged it expired; 0: not judged
 * @fence_cur: its fence notices this host has taken
 */
struct cxlt_pc_peer {
	u64 hb;
	u32 state;
	u8 uuid[16];
	u64 moved;
	u64 judged_at;
	u32 fence_cur;
};

/**
 * struct cxlt_pc - one host's view of one pool
 * @ops: device access
 * @ctx: passed to @ops
 * @table_offset: from the superblock
 * @entries: table entries
 * @data_offset: first data byte
 * @data_size: data bytes
 * @shared: a shared pool: the rest below is used
 * @lease_ms: from the superblock
 * @grace_ms: from the superblock
 * @fence_offset: the fence log, from the superblock
 * @id: this host's record, 1 to 63
 * @uuid: this host's record's uuid: made at each attach
 * @name: this host's name, in its record
 * @hb: the heartbeat count last written
 * @renewed: now_ms just before the last heartbeat that landed
 * @dead: this incarnation's lease lapsed: it writes nothing more
 * @attaching: cxlt_pc_register() is at work: the heartbeat leaves the record alone
 * @registered: this host's record is written: it may judge others
 * @judged: this host's verdicts, as written to its record
 * @open_words: this host's open bits, as written to its record
 * @gen: the table generation this holder wrote at update begin
 * @fence_head: notices in this host's fence log
 * @peers: per host record, under ops->lock
 */
struct cxlt_pc {
	const struct cxlt_pc_ops *ops;
	void *ctx;
	u64 table_offset;
	u32 entries;
	u64 data_offset;
	u64 data_size;

	bool shared;
	u32 lease_ms;
	u32 grace_ms;
	u64 fence_offset;
	u32 id;
	u8 uuid[16];
	char name[32];
	u64 hb;
	u64 renewed;
	bool dead;
	bool attaching;
	bool registered;
	u64 judged;
	u64 open_words[CXLT_POOL_OPEN_WORDS];
	u64 gen;
	u32 fence_head;
	struct cxlt_pc_peer peers[CXLT_POOL_HOST_SLOTS];
};

/* A store of the zeroing loop checks the lease this often (bytes). */
#define CXLT_PC_ZERO_CHUNK	(256 * 1024)
/* Default lease and grace of a new shared pool, and the least a format accepts. */
#define CXLT_PC_LEASE_MS	10000
#define CXLT_PC_LEASE_MIN_MS	1000

/* slot.c: superblock, table slots, the generation */
u32 cxlt_pc_crc(const void *p, size_t len);
bool cxlt_pc_sb_ok(const struct cxlt_pool_sb *sb);
int cxlt_pc_layout(struct cxlt_pc *pc, const struct cxlt_pool_sb *sb, u64 size,
		   const char **why);
u64 cxlt_pc_slot_offset(const struct cxlt_pc *pc, u32 idx, int s);
bool cxlt_pc_read_entry(struct cxlt_pc *pc, u32 idx, struct cxlt_pool_ent *ent,
			struct cxlt_pool_slot *out);
bool cxlt_pc_slot_sane(const struct cxlt_pc *pc, const struct cxlt_pool_slot *s);
int cxlt_pc_write_entry(struct cxlt_pc *pc, u32 idx, struct cxlt_pool_ent *ent,
			struct cxlt_pool_slot *s);
void cxlt_pc_format_table(struct cxlt_pc *pc);
void cxlt_pc_inval_table(struct cxlt_pc *pc);
int cxlt_pc_zero(struct cxlt_pc *pc, u64 off, u64 len);
u64 cxlt_pc_read_gen(struct cxlt_pc *pc);
int cxlt_pc_update_begin(struct cxlt_pc *pc);
int cxlt_pc_update_end(struct cxlt_pc *pc);

/* lease.c: host records, leases, the lock */
bool cxlt_pc_read_host(struct cxlt_pc *pc, u32 id, struct cxlt_pool_host *rec);
u32 cxlt_pc_host_state(const struct cxlt_pool_host *rec);
enum cxlt_pc_liveness cxlt_pc_observe(struct cxlt_pc *pc, u32 id,
				      const struct cxlt_pool_host *rec, bool judge, u64 before);
bool cxlt_pc_peek(struct cxlt_pc *pc, u32 id, struct cxlt_pool_host *rec, bool judge,
		  enum cxlt_pc_liveness *live);
bool cxlt_pc_may_write(struct cxlt_pc *pc);
int cxlt_pc_heartbeat(struct cxlt_pc *pc);
int cxlt_pc_lock(struct cxlt_pc *pc);
void cxlt_pc_unlock(struct cxlt_pc *pc);
int cxlt_pc_register(struct cxlt_pc *pc, bool again, u32 *busy_hb);
void cxlt_pc_detach(struct cxlt_pc *pc);
int cxlt_pc_evict_watch(struct cxlt_pc *pc, u32 id, u64 *hb);
int cxlt_pc_evict(struct cxlt_pc *pc, u32 id, u64 hb);
int cxlt_pc_others_live(struct cxlt_pc *pc, u32 *who);

/* hold.c: open bits, what they hold, region cache maintenance, the fence log */
int cxlt_pc_open(struct cxlt_pc *pc, u32 idx, const u8 *uuid, u64 off, u64 len);
void cxlt_pc_close(struct cxlt_pc *pc, u32 idx, u64 off, u64 len);
int cxlt_pc_reserve(struct cxlt_pc *pc, u32 idx, bool on);
bool cxlt_pc_held(struct cxlt_pc *pc, u32 idx);
int cxlt_pc_fence_note(struct cxlt_pc *pc, u64 serial);
typedef void (*cxlt_pc_fence_fn)(void *arg, u32 peer, u64 serial);
void cxlt_pc_fence_poll(struct cxlt_pc *pc, bool in_force, cxlt_pc_fence_fn fn, void *arg);

#endif /* CXLT_PC_H */
