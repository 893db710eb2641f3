/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lease.pml - a SPIN model of a shared pool's lock and leases (tests/model/run.sh).
 *
 * What is modelled (Documentation/persistence.rst, "The lease protocol,
 * model-checked"): N hosts share one device.  The device holds, per host, a record
 * (heartbeat, the bakery's choosing and number, the open bit of one table entry E)
 * and the entry E itself (FREE, USED, DYING).  Every read and every write of one of
 * these variables is its own atomic step; steps of all hosts interleave freely.
 *
 * Each host has three threads, each a process: Main (the bakery, the critical
 * section: create, destroy, chores, unlock), Oc (open and close of E) and Hb (the
 * heartbeat, and the re-attach of a host whose lease lapsed).  A process that is not
 * scheduled is a paused thread; a host paused as a whole is all three not scheduled.
 * Crash is an action after which a host takes no step at all.
 *
 * Time: one global clock (every host's clock runs at the same rate as it: the model
 * assumes equal clock rates), kept as capped ages rather than absolute values, so
 * the state space is finite:
 *   rage[h]       ticks since h's last renewal (the start of its last successful
 *                 heartbeat), capped at L: h's lease is valid iff !dead[h] && rage < L;
 *   mage[r*N+w]   ticks since r last saw w's heartbeat change, capped at L+G;
 *   ?pend[h]      0: no checked write pending in that thread; k > 0: a write was
 *                 lease-checked k-1 ticks ago and has not landed.  The clock does not
 *                 tick past W while one is pending (a store lands within W of its check).
 * A heartbeat value is only ever compared with the last value seen, so it is kept as
 * "changed since r last read it" bits (hbnew[r*N+w]): an unbounded counter, exactly.
 *
 * Every device write by a host is a check step (lease valid?  if not: dead, its
 * mappings zapped, the thread stops) followed by a separate store step.
 *
 * Properties (assertions; LTL for liveness):
 *   P1  a table write by h lands only while h is in its critical section and no other
 *       host is in its critical section able to write (lease valid, or a table store
 *       already checked and in flight): a late write of a host judged dead fails it;
 *   P2  E becomes FREE only when no host has it mapped;
 *   LIVE a host waiting in the bakery eventually stops waiting (enters, or its own
 *       lease lapses and it re-attaches), under weak fairness.
 *
 * Variants (spin -D...; tests/model/run.sh runs them, and those marked "must fail"
 * are negative controls whose counterexample the run requires):
 *   -DN=3                     three hosts
 *   -DW=3                     a store may land 3 ticks after its check: W > G, must fail
 *   -DNOCHECK_TABLE           no lease check before table writes: must fail
 *   -DIGNORE_EXPIRED_BITS     destroy and chores ignore the open bits of hosts they see
 *                             expired: must fail
 *   -DSTALE_EXPIRY            the wait loop reads a peer's heartbeat, then decides
 *                             "expired" with a clock read after the read: must fail
 *
 * Reductions for three hosts (run.sh's hosts3 set).  Each is sound for P1 and P2:
 * every run of the model without it has a counterpart with it, with the same device
 * writes and assertions at least as strict (runs may be added, none is lost), so a
 * pass with it is a pass without it, and a negative control still fails:
 *   -DWRITER_AGES             one age per heartbeat writer instead of one per
 *                             (reader, writer) pair, and the wait's clock read and
 *                             heartbeat read in one step (see hbage, M_WSAMPLE)
 *   -DTABLE_ANY               no opener (OPENERS=0): E is not kept, a critical
 *                             section writes the table once or twice at will
 *   -DMAXCRASH=0              no crash: a crashed host is, to the others, a host
 *                             paused for good right before its pending check (the
 *                             check is a step of its own: no device write), and P1
 *                             and P2 only get stricter when it is not crashed
 */

#ifndef N
#define N 2		/* hosts */
#endif
#ifndef L
#define L 4		/* lease, ticks */
#endif
#ifndef G
#define G 2		/* grace, ticks */
#endif
#ifndef W
#define W 1		/* a checked store lands within W ticks of its check */
#endif
#ifndef MAXT
#define MAXT 3		/* highest bakery ticket explored (see M_NUMLAND) */
#endif
#ifndef OPENERS
#define OPENERS 1	/* hosts 0 .. OPENERS-1 open and close E */
#endif
#ifndef MAXCRASH
#define MAXCRASH (N - 1)	/* hosts that may crash for good (0: see the header) */
#endif
#define EXP (L + G)
#if defined(TABLE_ANY) && OPENERS != 0
#error "TABLE_ANY drops E, which openers read"
#endif
#if defined(WRITER_AGES) && (defined(STALE_EXPIRY) || defined(IGNORE_EXPIRED_BITS))
#error "WRITER_AGES keeps no per-reader ages, which STALE_EXPIRY and IGNORE_EXPIRED_BITS read"
#endif	/* a peer whose heartbeat stood still this long is expired */

#define FREE	0
#define USED	1
#define DYING	2

#define IX(r, w) ((r) * N + (w))

/* ---- the device ---- */
byte E = FREE;
bool choosing[N];
byte number[N];
bool obit[N];		/* host h's open bit for E */
bool hbnew[N * N];	/* hbnew[IX(r, w)]: w wrote its heartbeat since r last read it */

/* ---- each host's own state ---- */
byte rage[N];		/* ticks since renewed, capped at L */
bool dead[N];		/* sticky: this incarnation's lease lapsed */
bool crashed[N];
byte ncrash;
#ifndef WRITER_AGES
byte mage[N * N];	/* mage[IX(r, w)]: ticks since r saw w's heartbeat change, capped at EXP */
#else
/*
 * WRITER_AGES: hbage[w] stands for the largest mage[IX(r, w)] over the readers r
 * that read w's last heartbeat (0 while none has): it is 0 when w's heartbeat lands,
 * stands still while no reader has read it, then ages like the largest of them.
 * So every reader's own age of w's heartbeat is at most hbage[w], and a reader may
 * judge w expired (or not) whenever hbage[w] >= EXP: every verdict the per-reader
 * ages allow, in N ages instead of N * (N - 1).  Not with STALE_EXPIRY or
 * IGNORE_EXPIRED_BITS, which read the per-reader ages after the heartbeat read.
 */
byte hbage[N];
#endif

/* ---- ghosts ---- */
bool mapped[N];		/* h's processes can access E */
bool incs[N];		/* h passed the bakery's wait and has not unlocked (or re-attached) */

/* ---- Main thread ---- */
#define M_IDLE		0
#define M_CH1		1	/* store choosing := 1 */
#define M_MAX		2	/* read number[mk] */
#define M_NUMCHK	3
#define M_NUMLAND	4	/* store number := mx + 1 */
#define M_CH0CHK	5
#define M_CH0LAND	6	/* store choosing := 0 */
#define M_WSAMPLE	7	/* wait for mk: take the clock */
#define M_WHB		8	/* wait for mk: read its heartbeat (expired?) */
#define M_WCH		9	/* wait for mk: read choosing[mk] */
#define M_WNUM		10	/* wait for mk: read number[mk] */
#define M_CSREAD	11	/* in the CS: read E, decide */
#define M_TWCHK		12
#define M_TWLAND	13	/* table write: E := mwv */
#define M_BITS		14	/* read obit[mk] */
#define M_UNCHK		15
#define M_UNLAND	16	/* store number := 0 (unlock) */
#define M_WDEC		17	/* STALE_EXPIRY only: decide after the read */
#define PARK		99	/* a check failed: wait for the re-attach */
byte mpc[N], mk[N], mx[N], mwv[N], mpend[N];
bool mdm[N], movf[N];

/* ---- Oc thread ---- */
#define O_IDLE		0
#define O_SETLAND	1	/* store obit := 1 */
#define O_READ		2	/* read E */
#define O_MAPPED	3
#define O_CLRCHK	4
#define O_CLRLAND	5	/* store obit := 0 */
byte opc[N], opend[N];

/* ---- Hb thread ---- */
#define H_IDLE		0
#define H_LAND		1	/* store heartbeat + 1 */
byte hpc[N], hpend[N];

byte tx;		/* scratch inside d_steps, 0 between steps */

#define VALID(h)	(!dead[h] && rage[h] < L)
/*
 * h could still write the table: in its critical section, not crashed, and a table
 * store checked and in flight, or its lease valid, or a heartbeat checked and in
 * flight (its landing makes the lease valid again, from the check's time, without
 * any check of h having failed in between).
 */
#define CANWRITE(h)	(!crashed[h] && incs[h] && \
			 (mpc[h] == M_TWLAND || !dead[h] && (rage[h] < L || hpend[h] > 0)))

/*
 * A failed check: h is dead, its mappings are zapped, and every thread of h without
 * a checked store in flight parks until the re-attach (PARKDEAD).  A dead thread
 * takes no step but its landing, and the re-attach resets all it holds, so its pc,
 * mk, mx, mwv, mdm, movf are dead variables, and incs[h] is read only by P1 while
 * a table store is in flight: set to one value (fewer states, the same runs).
 */
#define DIE(h)	dead[h] = 1; rage[h] = 0; mapped[h] = 0; PARKDEAD(h)
#define PARKDEAD(h) \
	if \
	:: mpend[h] == 0 -> mpc[h] = PARK; incs[h] = 0; \
		mk[h] = 0; mx[h] = 0; mwv[h] = 0; mdm[h] = 0; movf[h] = 0 \
	:: else \
	fi; \
	if :: opend[h] == 0 -> opc[h] = PARK :: else fi; \
	if :: hpend[h] == 0 -> hpc[h] = PARK :: else fi
/* A store of a dead thread landed: it parks. */
#define LANDED(h)	if :: dead[h] -> PARKDEAD(h) :: else fi

/* The lease check before a store: pass (the store is now pending) or die. */
#define CHECK(h, pend, pc, okpc) \
	if \
	:: VALID(h) -> pend[h] = 1; pc[h] = okpc \
	:: else -> DIE(h) \
	fi

#define FIRSTPEER(h)	mk[h] = (h == 0 -> 1 : 0)
#define NEXTPEER(h)	mk[h]++; if :: mk[h] == h -> mk[h]++ :: else fi

/* The bakery passed peer mk: on to the next, or into the critical section. */
#define PASS(h) \
	NEXTPEER(h); \
	if \
	:: mk[h] >= N -> mk[h] = 0; incs[h] = 1; mpc[h] = M_CSREAD \
	:: else -> mpc[h] = M_WSAMPLE \
	fi

/* Read w's heartbeat as r: a new value moves "moved" to now. */
#define READHB(r, w) \
	if \
	:: hbnew[IX(r, w)] -> hbnew[IX(r, w)] = 0; MAGE0(r, w) \
	:: else \
	fi

/*
 * While hbnew[IX(r, w)] is set, r's next read of w's heartbeat sets mage[IX(r, w)]
 * to 0 before anything uses it, so it is kept at 0 (fewer states).  Not with
 * STALE_EXPIRY, which uses it after the read.
 */
#ifdef WRITER_AGES
#define MAGE0(r, w)	skip
#define CANON(r, w)	hbage[w] = 0
#elif !defined(STALE_EXPIRY)
#define MAGE0(r, w)	mage[IX(r, w)] = 0
#define CANON(r, w)	mage[IX(r, w)] = 0
#define FROZEN(x)	hbnew[x]
#else
#define MAGE0(r, w)	mage[IX(r, w)] = 0
#define CANON(r, w)	skip
#define FROZEN(x)	false
#endif

/* P1, at a table write by h. */
#define ASSERT_P1(h) \
	assert(incs[h]); \
	tx = 0; \
	do \
	:: tx < N -> assert(tx == h || !CANWRITE(tx)); tx++ \
	:: else -> tx = 0; break \
	od

/* P2, at E := FREE. */
#define ASSERT_P2 \
	tx = 0; \
	do \
	:: tx < N -> assert(!mapped[tx]); tx++ \
	:: else -> tx = 0; break \
	od

/* The stores of the host's own bakery fields (the pc moves on inside). */
#define ST_CH1		choosing[i] = 1; mx[i] = 0; FIRSTPEER(i); mpc[i] = M_MAX
/*
 * Tickets are bounded for a finite model: a host that would take one above MAXT
 * writes 0 instead, then clears choosing and gives up this attempt (back to idle,
 * as if it had not tried).  Executions with larger tickets are not explored.
 */
#define ST_NUM \
	if \
	:: mx[i] + 1 > MAXT -> number[i] = 0; movf[i] = 1 \
	:: else -> number[i] = mx[i] + 1 \
	fi; \
	mx[i] = 0; mpc[i] = M_CH0CHK
#define ST_CH0 \
	choosing[i] = 0; \
	if \
	:: movf[i] -> movf[i] = 0; mpc[i] = M_IDLE \
	:: else -> FIRSTPEER(i); mpc[i] = M_WSAMPLE \
	fi
#define ST_UNLOCK	number[i] = 0; incs[i] = 0; mpc[i] = M_IDLE

/*
 * A write of the host's own bakery fields.  With SPLIT_BAKERY it is a check step
 * and a store step like every other write; by default the two are one step (the
 * store lands at its check).  Why that loses nothing for P1 and P2: a bakery store
 * only changes what other hosts wait for; a host that passes this one by expiry
 * stops reading its fields, and a host still waiting for it waits at most until it
 * is expired; the store of a lapsed lease can only let a peer into a critical
 * section this host cannot write in any more (its table writes are all checked).
 * SPLIT_BAKERY is not in tests/model/run.sh: its state space is too large for
 * make check's time.
 */
#ifdef SPLIT_BAKERY
#define BAKERY_WRITE(frompc, landpc, BODY) \
	:: d_step { mpc[i] == frompc && !crashed[i] && !dead[i] -> \
		CHECK(i, mpend, mpc, landpc) } \
	:: d_step { mpc[i] == landpc && !crashed[i] -> mpend[i] = 0; BODY; LANDED(i) }
#else
#define BAKERY_WRITE(frompc, landpc, BODY) \
	:: d_step { mpc[i] == frompc && !crashed[i] && !dead[i] -> \
		if \
		:: VALID(i) -> BODY \
		:: else -> DIE(i) \
		fi }
#endif

proctype Main(byte i)
{
	do
	/* lock: check, then choosing := 1 */
#ifndef ABSTRACT_LOCK
	BAKERY_WRITE(M_IDLE, M_CH1, ST_CH1)
#else
	/*
	 * The lock as P1 states it, not as the bakery implements it: a host with a
	 * valid lease enters whenever no other host could write the table (none in its
	 * critical section with a valid lease or a checked table store in flight).
	 * This admits every entry the bakery admits and more (it enters at once when
	 * the holder's lease lapses, without waiting L + G), so P2 checked with it holds
	 * with the bakery too, given P1 (checked with the bakery).
	 */
	:: d_step { mpc[i] == M_IDLE && !crashed[i] && !dead[i] && VALID(i) ->
		tx = 0;
		do
		:: tx < N && (tx == i || !CANWRITE(tx)) -> tx++
		:: tx < N && tx != i && CANWRITE(tx) -> break
		:: tx >= N -> break
		od;
		if
		:: tx >= N -> incs[i] = 1; mpc[i] = M_CSREAD
		:: else
		fi;
		tx = 0 }
#endif
	/* number := 1 + max over the others' numbers, read one by one */
	:: d_step { mpc[i] == M_MAX && !crashed[i] && !dead[i] ->
		if :: number[mk[i]] > mx[i] -> mx[i] = number[mk[i]] :: else fi;
		NEXTPEER(i);
		if :: mk[i] >= N -> mpc[i] = M_NUMCHK :: else fi }
	BAKERY_WRITE(M_NUMCHK, M_NUMLAND, ST_NUM)
	BAKERY_WRITE(M_CH0CHK, M_CH0LAND, ST_CH0)
	/* wait for each peer mk: expired, or not choosing and not ahead */
#ifndef STALE_EXPIRY
	/* take the clock, then read the heartbeat: expired iff it was the same at
	 * the read as when last seen changed, and that was EXP before the clock. */
#ifdef WRITER_AGES
	/*
	 * The clock taken and the heartbeat read in one step.  The clock read taken
	 * at the heartbeat read is the latest it can be: an unchanged heartbeat has
	 * only aged since an earlier clock read, so this admits every verdict of the
	 * two steps (a changed one is not expired either way).  i's own age of mk's
	 * heartbeat is at most hbage[mk]: "expired" only if that is EXP, and then
	 * either verdict (i may have seen the change later than another reader).
	 */
	:: d_step { mpc[i] == M_WSAMPLE && !crashed[i] && !dead[i] ->
		READHB(i, mk[i]); mpc[i] = M_WCH }
	:: d_step { mpc[i] == M_WSAMPLE && !crashed[i] && !dead[i] &&
		    !hbnew[IX(i, mk[i])] && hbage[mk[i]] >= EXP -> PASS(i) }
#else
	:: d_step { mpc[i] == M_WSAMPLE && !crashed[i] && !dead[i] ->
		mdm[i] = (mage[IX(i, mk[i])] >= EXP); mpc[i] = M_WHB }
	:: d_step { mpc[i] == M_WHB && !crashed[i] && !dead[i] ->
		if
		:: hbnew[IX(i, mk[i])] -> READHB(i, mk[i]); mdm[i] = 0; mpc[i] = M_WCH
		:: else ->
			if
			:: mdm[i] -> mdm[i] = 0; PASS(i)
			:: else -> mdm[i] = 0; mpc[i] = M_WCH
			fi
		fi }
#endif
#else
	/* the wrong order: read the heartbeat, then take the clock */
	:: d_step { mpc[i] == M_WSAMPLE && !crashed[i] && !dead[i] -> mpc[i] = M_WHB }
	:: d_step { mpc[i] == M_WHB && !crashed[i] && !dead[i] ->
		READHB(i, mk[i]); mpc[i] = M_WDEC }
	:: d_step { mpc[i] == M_WDEC && !crashed[i] && !dead[i] ->
		if
		:: mage[IX(i, mk[i])] >= EXP -> PASS(i)
		:: else -> mpc[i] = M_WCH
		fi }
#endif
	:: d_step { mpc[i] == M_WCH && !crashed[i] && !dead[i] ->
		if
		:: choosing[mk[i]] -> mpc[i] = M_WSAMPLE
		:: else -> mpc[i] = M_WNUM
		fi }
	:: d_step { mpc[i] == M_WNUM && !crashed[i] && !dead[i] ->
		if
		:: number[mk[i]] == 0 || number[mk[i]] > number[i] ||
		   (number[mk[i]] == number[i] && mk[i] > i) -> PASS(i)
		:: else -> mpc[i] = M_WSAMPLE
		fi }
	/* critical section: read the table, decide */
#ifndef TABLE_ANY
	:: d_step { mpc[i] == M_CSREAD && !crashed[i] && !dead[i] ->
		if
		:: E == FREE -> mwv[i] = USED; mpc[i] = M_TWCHK	/* create */
		:: E == USED -> mwv[i] = DYING; mpc[i] = M_TWCHK	/* destroy */
		:: E == DYING -> mk[i] = 0; mpc[i] = M_BITS		/* chores */
		fi }
#else
	/* one table write (create, or chores' free) or two (destroy, free) */
	:: d_step { mpc[i] == M_CSREAD && !crashed[i] && !dead[i] ->
		mwv[i] = USED; mpc[i] = M_TWCHK }
	:: d_step { mpc[i] == M_CSREAD && !crashed[i] && !dead[i] ->
		mwv[i] = DYING; mpc[i] = M_TWCHK }
#endif
	:: d_step { mpc[i] == M_TWCHK && !crashed[i] && !dead[i] ->
#ifndef NOCHECK_TABLE
		CHECK(i, mpend, mpc, M_TWLAND)
#else
		mpc[i] = M_TWLAND	/* no check, so no bound on when it lands */
#endif
		}
#ifndef TABLE_ANY
	:: d_step { mpc[i] == M_TWLAND && !crashed[i] ->
		ASSERT_P1(i);
		if :: mwv[i] == FREE -> ASSERT_P2 :: else fi;
		E = mwv[i]; mpend[i] = 0;
		if
		:: mwv[i] == DYING -> mk[i] = 0; mpc[i] = M_BITS
		:: else -> mpc[i] = M_UNCHK
		fi;
		mwv[i] = 0; LANDED(i) }
#else
	/* E is not kept; destroy's reads of the open bits read 0s (no opener) */
	:: d_step { mpc[i] == M_TWLAND && !crashed[i] ->
		ASSERT_P1(i);
		mpend[i] = 0;
		if
		:: mwv[i] == DYING -> mwv[i] = FREE; mpc[i] = M_TWCHK
		:: else -> mwv[i] = 0; mpc[i] = M_UNCHK
		fi;
		LANDED(i) }
#endif
	/* read every host's open bit, its own and expired hosts' included */
	:: d_step { mpc[i] == M_BITS && !crashed[i] && !dead[i] ->
#ifdef IGNORE_EXPIRED_BITS
		if
		:: mk[i] != i -> READHB(i, mk[i])
		:: else
		fi;
		if
		:: obit[mk[i]] && (mk[i] == i || mage[IX(i, mk[i])] < EXP) ->
#else
		if
		:: obit[mk[i]] ->
#endif
			mk[i] = 0; mpc[i] = M_UNCHK	/* held: leave it dying */
		:: else ->
			mk[i]++;
			if
			:: mk[i] >= N -> mk[i] = 0; mwv[i] = FREE; mpc[i] = M_TWCHK
			:: else
			fi
		fi }
#ifndef ABSTRACT_LOCK
	BAKERY_WRITE(M_UNCHK, M_UNLAND, ST_UNLOCK)
#else
	:: d_step { mpc[i] == M_UNCHK && !crashed[i] && !dead[i] -> incs[i] = 0; mpc[i] = M_IDLE }
#endif
	/* crash for good: nothing of this host runs again, no pending store lands */
	:: d_step { !crashed[i] && ncrash < MAXCRASH ->
		crashed[i] = 1; ncrash++;
		mpend[i] = 0; opend[i] = 0; hpend[i] = 0;
		mpc[i] = 0; opc[i] = 0; hpc[i] = 0; mk[i] = 0; mx[i] = 0; mwv[i] = 0;
		mdm[i] = 0; movf[i] = 0; mapped[i] = 0; incs[i] = 0; dead[i] = 0; rage[i] = 0;
		tx = 0;
		do
		:: tx < N -> MAGE0(i, tx); hbnew[IX(i, tx)] = 0; tx++
		:: else -> tx = 0; break
		od; skip }
	od
}

proctype Oc(byte i)
{
	do
	/* open: check, set the open bit, then read E */
	:: d_step { opc[i] == O_IDLE && !crashed[i] && !dead[i] ->
		CHECK(i, opend, opc, O_SETLAND) }
	:: d_step { opc[i] == O_SETLAND && !crashed[i] ->
		obit[i] = 1; opend[i] = 0; opc[i] = O_READ; LANDED(i) }
	:: d_step { opc[i] == O_READ && !crashed[i] && !dead[i] ->
		if
		:: E == USED -> mapped[i] = 1; opc[i] = O_MAPPED
		:: else -> opc[i] = O_CLRCHK	/* not there: clear the bit, fail */
		fi }
	/* close: unmap, then clear the open bit */
	:: d_step { opc[i] == O_MAPPED && !crashed[i] && !dead[i] ->
		mapped[i] = 0; opc[i] = O_CLRCHK }
	:: d_step { opc[i] == O_CLRCHK && !crashed[i] && !dead[i] ->
		CHECK(i, opend, opc, O_CLRLAND) }
	:: d_step { opc[i] == O_CLRLAND && !crashed[i] ->
		obit[i] = 0; opend[i] = 0; opc[i] = O_IDLE; LANDED(i) }
	od
}

proctype Hb(byte i)
{
	do
	/* heartbeat: t0 := now and check (one step), store, renewed := t0 */
	:: d_step { hpc[i] == H_IDLE && !crashed[i] && !dead[i] ->
		CHECK(i, hpend, hpc, H_LAND) }
	:: d_step { hpc[i] == H_LAND && !crashed[i] ->
		tx = 0;
		do
		:: tx < N ->
			if :: tx != i -> hbnew[IX(tx, i)] = 1; CANON(tx, i) :: else fi;
			tx++
		:: else -> tx = 0; break
		od;
		if	/* renewed := t0, the check's time (dead: the re-attach sets it) */
		:: !dead[i] -> rage[i] = hpend[i] - 1
		:: else
		fi;
		hpend[i] = 0; hpc[i] = H_IDLE; LANDED(i) }
	/*
	 * Re-attach once this incarnation is dead (its mappings were zapped when that
	 * was found) and no store of it is still in flight: a fresh record (choosing 0,
	 * number 0, open bit 0, heartbeat + 1) whose write starts the new lease.  The
	 * old incarnation's critical section, if any, is abandoned.
	 */
	:: d_step { dead[i] && !crashed[i] && mpend[i] == 0 && opend[i] == 0 && hpend[i] == 0 ->
		choosing[i] = 0; number[i] = 0; obit[i] = 0;
		tx = 0;
		do
		:: tx < N ->
			if :: tx != i -> hbnew[IX(tx, i)] = 1; CANON(tx, i) :: else fi;
			tx++
		:: else -> tx = 0; break
		od;
		rage[i] = 0; dead[i] = 0; incs[i] = 0; mapped[i] = 0;
		mpc[i] = M_IDLE; mk[i] = 0; mx[i] = 0; mwv[i] = 0; mdm[i] = 0; movf[i] = 0;
		opc[i] = O_IDLE; hpc[i] = H_IDLE }
	od
}

/* The clock: ticks whenever no checked store has been pending for W ticks. */
#define PEND_OK(p)	(p[0] <= W && (N < 2 || p[1] <= W) && (N < 3 || p[2] <= W) && (N < 4 || p[3] <= W))
#define AGE(v, cap)	if :: v < cap -> v++ :: else fi
/* some reader has read w's last heartbeat (N <= 4) */
#define HBREAD(w)	((w != 0 && !hbnew[IX(0, w)]) || (w != 1 && !hbnew[IX(1, w)]) || \
			 (N > 2 && w != 2 && !hbnew[IX(2 % N, w)]) || (N > 3 && w != 3 && !hbnew[IX(3 % N, w)]))
#define AGEP(v)		if :: v > 0 -> v++ :: else fi

proctype Clock()
{
	do
	:: d_step { PEND_OK(mpend) && PEND_OK(opend) && PEND_OK(hpend) ->
		tx = 0;
		do
		:: tx < N ->
			if
			:: !crashed[tx] && !dead[tx] -> AGE(rage[tx], L)
			:: else
			fi;
			AGEP(mpend[tx]); AGEP(opend[tx]); AGEP(hpend[tx]);
			tx++
		:: else -> tx = 0; break
		od;
		tx = 0;
#ifndef WRITER_AGES
		do
		:: tx < N * N ->
			if
			:: !crashed[tx / N] && tx / N != tx % N && !FROZEN(tx) -> AGE(mage[tx], EXP)
			:: else
			fi;
			tx++
		:: else -> tx = 0; break
		od; skip }
#else
		/* hbage[w] stands still while every reader has w's change unread */
		do
		:: tx < N ->
			if
			:: HBREAD(tx) -> AGE(hbage[tx], EXP)
			:: else
			fi;
			tx++
		:: else -> tx = 0; break
		od; skip }
#endif
	od
}

init
{
	atomic {
		byte h;
		for (h : 0 .. N - 1) {
			run Main(h);
			if
			:: h < OPENERS -> run Oc(h)
			:: else
			fi;
			run Hb(h)
		}
		run Clock()
	}
}

#ifdef LIVE
/* The lowest-priority host (ties go to the lower id) never waits forever. */
#define WAITLAST	(mpc[N - 1] >= M_WSAMPLE && mpc[N - 1] <= M_WNUM)
ltl live { [] (WAITLAST -> <> !WAITLAST) }
#endif
