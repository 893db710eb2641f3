// SPDX-License-Identifier: GPL-2.0
/*
 * The guest helper of tests/pool/pause_test.sh (tests/pool/pause_guest.sh runs it on
 * both hosts of a shared pool).  Every region it touches is 2 MiB and carries the
 * pattern of its name: word i (8 bytes) = tag(name) << 32 | i, tag a 32-bit hash of
 * the name (never 0), so a wrong word says whose it is (zeros, another region's tag,
 * or ours at another index).
 *
 *   pause_worker create POOL NAME
 *	create the region in POOL, check it reads zero, write the pattern, write it
 *	back (cxltier_flush), read it again.  Exit 0: done; 1: the create failed;
 *	2: done, but the pattern did not read back; 3: SIGBUS; 4: done, but the new
 *	region was not zero; 5: the create returned but the region did not open or map
 *	(tried for 15 s).  On success it
 *	prints "time C A": ms in the create call, ms in all.  With CXLT_PAUSE_MARK=FILE
 *	it appends "calling NAME" to FILE just before the create call.
 *   pause_worker verify NAME...
 *	open each by name, read every word; one line per region ("intact NAME",
 *	"missing NAME (error)", "wrong NAME: ..."); exit 0 when all are intact.
 *   pause_worker hold POOL NAME LOG STOP RESULT
 *	create NAME as above (not zero at create or a pattern that did not read back
 *	count as foreign words), append "created NAME" to LOG, then until the file STOP
 *	exists: read a sixteenth of it (the next, in turn), rewrite one 4 KiB page of
 *	that (the same values), write it back, sleep 100 ms.  A SIGBUS drops the
 *	mapping, after which it reopens the region by name (every 200 ms until it can)
 *	and reads all of it.  At the end it reads all of it and writes one line to
 *	RESULT: "NAME passes P sigbus S reopens R reopen_failures F zero Z foreign X
 *	misplaced M" (word counts of what it read that was not its pattern).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cxltier.h>

#define SIZE	(2u << 20)
#define WORDS	(SIZE / 8)
#define PAGE	4096u
#define SLICES	16	/* a holder reads 1/SLICES of its region a pass */

static sigjmp_buf env;
static volatile sig_atomic_t armed;

static void on_sigbus(int sig)
{
	(void)sig;
	if (armed) {
		armed = 0;
		siglongjmp(env, 1);
	}
	_exit(3);
}

static uint32_t tag_of(const char *name)
{
	uint32_t h = 2166136261u;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h ? h : 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* What a pass read that was not the pattern. */
struct tally {
	uint64_t zero, foreign, misplaced;
	long first;		/* first wrong word, -1: none */
	uint64_t first_got;
};

/* Words [from, to) of the region at p. */
static void scan_range(const volatile uint64_t *p, uint32_t tag, uint32_t from, uint32_t to,
		       struct tally *t)
{
	memset(t, 0, sizeof(*t));
	t->first = -1;
	cxltier_invalidate((const void *)(p + from), (size_t)(to - from) * 8);
	for (uint32_t i = from; i < to; i++) {
		uint64_t v = p[i], want = (uint64_t)tag << 32 | i;

		if (v == want)
			continue;
		if (!v)
			t->zero++;
		else if ((uint32_t)(v >> 32) != tag)
			t->foreign++;
		else
			t->misplaced++;
		if (t->first < 0) {
			t->first = i;
			t->first_got = v;
		}
	}
}

static void scan(const volatile uint64_t *p, uint32_t tag, struct tally *t)
{
	scan_range(p, tag, 0, WORDS, t);
}

static uint64_t wrong(const struct tally *t)
{
	return t->zero + t->foreign + t->misplaced;
}

static void describe(const char *name, uint32_t tag, const struct tally *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %" PRIu64 " of %u words wrong (zero %" PRIu64 ", foreign %" PRIu64
		 ", misplaced %" PRIu64 "; first word %ld: 0x%016" PRIx64 ", want 0x%016" PRIx64 ")",
		 name, wrong(t), WORDS, t->zero, t->foreign, t->misplaced, t->first, t->first_got,
		 (uint64_t)tag << 32 | (uint64_t)t->first);
}

static int open_map(struct cxltier_ctx *ctx, const char *name, struct cxltier_region **r,
		    uint64_t **p)
{
	int rc = cxltier_region_open(ctx, name, CXLTIER_REGION_RDWR, r);

	if (rc)
		return rc;
	rc = cxltier_region_map(*r, (void **)p);
	if (rc) {
		cxltier_region_close(*r);
		*r = NULL;
	}
	return rc;
}

static void fill(volatile uint64_t *p, uint32_t tag, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < from + n; i++)
		p[i] = (uint64_t)tag << 32 | i;
	cxltier_flush((const void *)(p + from), (size_t)n * 8);
}

static double create_ms;	/* the create call's time */

/* Create NAME in POOL with its pattern; 0 or the exit status of "create". */
static int create(struct cxltier_ctx *ctx, const char *pool, const char *name,
		  struct cxltier_region **r, uint64_t **p)
{
	uint32_t tag = tag_of(name), id;
	struct tally t;
	char buf[256];
	int rc, ret = 0;

	const char *mark = getenv("CXLT_PAUSE_MARK");
	double t0;

	/* For a host that wants to stop this one inside the create call. */
	if (mark) {
		FILE *f = fopen(mark, "a");

		if (f) {
			fprintf(f, "calling %s\n", name);
			fclose(f);
		}
	}
	t0 = now_ms();
	rc = cxltier_region_create_persistent(ctx, name, SIZE, 0666, pool, &id);
	if (rc) {
		printf("create %s: %s\n", name, strerror(-rc));
		return 1;
	}
	create_ms = now_ms() - t0;
	/*
	 * A create that returned is there.  Its host may be between a lapse of its
	 * lease and its attach again: open until 15 s have passed.
	 */
	while ((rc = open_map(ctx, name, r, p)) && now_ms() - t0 < 15000)
		usleep(200000);
	if (rc) {
		printf("create %s: returned, but the region does not open (15 s): %s\n", name,
		       strerror(-rc));
		return 5;
	}
	/* A new region reads zero: anything else is another region's data. */
	memset(&t, 0, sizeof(t));
	t.first = -1;
	cxltier_invalidate(*p, SIZE);
	for (uint32_t i = 0; i < WORDS; i++) {
		if ((*p)[i]) {
			t.foreign++;
			if (t.first < 0) {
				t.first = i;
				t.first_got = (*p)[i];
			}
		}
	}
	if (t.foreign) {
		printf("create %s: %" PRIu64 " words not zero at create (first word %ld: 0x%016" PRIx64 ")\n",
		       name, t.foreign, t.first, t.first_got);
		ret = 4;
	}
	fill(*p, tag, 0, WORDS);
	scan(*p, tag, &t);
	if (wrong(&t)) {
		describe(name, tag, &t, buf, sizeof(buf));
		printf("create %s: the pattern did not read back: %s\n", name, buf);
		ret = 2;
	}
	return ret;
}

static int do_verify(struct cxltier_ctx *ctx, int n, char **names)
{
	volatile int bad = 0;

	for (int k = 0; k < n; k++) {
		struct cxltier_region *r;
		struct tally t;
		uint64_t *p;
		char buf[256];
		int rc = open_map(ctx, names[k], &r, &p);

		if (rc) {
			printf("missing %s (%s)\n", names[k], strerror(-rc));
			bad++;
			continue;
		}
		armed = 1;
		if (sigsetjmp(env, 1)) {
			printf("wrong %s: SIGBUS reading it\n", names[k]);
			bad++;
			cxltier_region_close(r);
			continue;
		}
		scan(p, tag_of(names[k]), &t);
		armed = 0;
		if (wrong(&t)) {
			describe(names[k], tag_of(names[k]), &t, buf, sizeof(buf));
			printf("wrong %s\n", buf);
			bad++;
		} else {
			printf("intact %s\n", names[k]);
		}
		cxltier_region_close(r);
	}
	return bad ? 1 : 0;
}

/* State of "hold" that a SIGBUS must not lose. */
static struct cxltier_region *volatile hr;
static uint64_t *volatile hp;
static volatile unsigned long passes, sigbus, reopens, reopen_failures;
static volatile uint64_t zero, foreign, misplaced;

/* Count what a scan found that was not the pattern, and say so. */
static void note(const char *name, uint32_t tag, const struct tally *t)
{
	char buf[256];

	if (!wrong(t))
		return;
	zero += t->zero;
	foreign += t->foreign;
	misplaced += t->misplaced;
	describe(name, tag, t, buf, sizeof(buf));
	printf("pass %lu: %s\n", passes, buf);
}

static int do_hold(struct cxltier_ctx *ctx, const char *pool, const char *name, const char *log,
		   const char *stop, const char *result)
{
	uint32_t tag = tag_of(name);
	struct cxltier_region *r;
	volatile double lost_at = 0;
	uint64_t *p;
	FILE *f;
	int rc;

	rc = create(ctx, pool, name, &r, &p);
	if (rc == 1 || rc == 5)
		return rc;
	/* Created, but not zero at first or the pattern did not read back: other data. */
	if (rc)
		foreign++;
	f = fopen(log, "a");
	if (!f || fprintf(f, "created %s\n", name) < 0 || fclose(f)) {
		perror(log);
		return 1;
	}
	hr = r;
	hp = p;
	while (access(stop, F_OK)) {
		if (sigsetjmp(env, 1)) {
			sigbus++;
			lost_at = now_ms();
			printf("%s: SIGBUS in pass %lu\n", name, passes);
			fflush(stdout);
			/* The mapping is dead, so is the file: close both, reopen by name. */
			cxltier_region_close(hr);
			hr = NULL;
			hp = NULL;
		}
		armed = 0;
		if (!hp) {
			rc = open_map(ctx, name, &r, &p);
			if (rc) {
				reopen_failures++;
				usleep(200000);
				continue;
			}
			reopens++;
			printf("%s: reopened by name %.0f ms after the SIGBUS\n", name,
			       now_ms() - lost_at);
			fflush(stdout);
			hr = r;
			hp = p;
			/* All of it again, at once: the data must have stayed. */
			{
				struct tally t;

				armed = 1;
				scan(hp, tag, &t);
				armed = 0;
				note(name, tag, &t);
			}
		}
		armed = 1;
		{
			/* A slice a pass (under TCG a whole 2 MiB is ~0.4 s of a vCPU). */
			uint32_t from = (passes % SLICES) * (WORDS / SLICES);
			struct tally t;

			scan_range(hp, tag, from, from + WORDS / SLICES, &t);
			note(name, tag, &t);
			fill(hp, tag, from + (passes / SLICES % (SIZE / SLICES / PAGE)) * (PAGE / 8),
			     PAGE / 8);
		}
		armed = 0;
		passes++;
		usleep(100000);
	}
	/* A last look at all of it, when it is mapped. */
	if (hp && !sigsetjmp(env, 1)) {
		struct tally t;

		armed = 1;
		scan(hp, tag, &t);
		armed = 0;
		note(name, tag, &t);
	} else if (hp) {
		sigbus++;
		printf("%s: SIGBUS in the last scan\n", name);
	}
	armed = 0;
	cxltier_region_close(hr);
	f = fopen(result, "w");
	if (!f)
		return 1;
	fprintf(f, "%s passes %lu sigbus %lu reopens %lu reopen_failures %lu zero %" PRIu64
		" foreign %" PRIu64 " misplaced %" PRIu64 "\n", name, passes, sigbus, reopens,
		reopen_failures, zero, foreign, misplaced);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct cxltier_ctx *ctx;
	struct cxltier_region *r;
	uint64_t *p;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (argc < 3 || (!strcmp(argv[1], "create") && argc != 4) ||
	    (!strcmp(argv[1], "hold") && argc != 7)) {
		fprintf(stderr, "usage: pause_worker create POOL NAME | verify NAME... | hold POOL NAME LOG STOP RESULT\n");
		return 64;
	}
	if (cxltier_new(&ctx)) {
		printf("no libcxltier context: %s\n", cxltier_get_last_error(NULL));
		return 1;
	}
	if (!strcmp(argv[1], "create")) {
		double t0 = now_ms();

		rc = create(ctx, argv[2], argv[3], &r, &p);
		if (rc != 1 && rc != 5)
			cxltier_region_close(r);
		if (!rc)
			printf("time %.0f %.0f\n", create_ms, now_ms() - t0);
	} else if (!strcmp(argv[1], "verify")) {
		rc = do_verify(ctx, argc - 2, argv + 2);
	} else if (!strcmp(argv[1], "hold")) {
		rc = do_hold(ctx, argv[2], argv[3], argv[4], argv[5], argv[6]);
	} else {
		fprintf(stderr, "pause_worker: unknown command %s\n", argv[1]);
		rc = 64;
	}
	cxltier_unref(ctx);
	return rc;
}
