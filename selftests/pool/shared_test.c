// SPDX-License-Identifier: GPL-2.0
/*
 * Two hosts of a shared pool (qemu/cluster, topology shared; tests/pool/pair.sh runs
 * it on both after attaching the pool): shared_test POOL in the shared folder, with
 * CXLT_HOST 0 (A) or 1 (B).  Coordination is by files in the folder (cwd); the data
 * goes through the pool, handed over with the library's publish/acquire.
 *
 *   A: creates "xfer" (8 MiB), writes checksummed data, publishes it;
 *   B: opens it by name and by handle, checks the data, writes a reply, publishes;
 *   A: acquires the reply and checks it; then both create and destroy regions at
 *      once for a while (no overlap, every region readable on both), and an open
 *      of a handle whose pool is not attached fails.
 *
 * Prints TAP; exit 0 when every case passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/cxltier.h>

#include <cxltier.h>

#define XFER_SIZE	(8u << 20)
#define DATA_OFF	4096u
#define DATA_LEN	(1u << 20)
#define REPLY_OFF	(4u << 20)
#define FLAG_A		0	/* A's flag: its own cache line */
#define FLAG_B		64	/* B's */
#define SUM_OFF		128
#define WAIT_MS		(300 * 1000)

static int host, failed, ncase;
static const char *pool;

static void tap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++ncase);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed += !ok;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void touch(const char *name)
{
	int fd = open(name, O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
}

static int wait_file(const char *name)
{
	double end = now_ms() + WAIT_MS;

	while (access(name, F_OK)) {
		if (now_ms() > end) {
			printf("# no %s after %d s\n", name, WAIT_MS / 1000);
			return -1;
		}
		usleep(20000);
	}
	return 0;
}

static uint64_t fnv(const unsigned char *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		memcpy(p + i, &seed, 8);
	}
}

static int open_map(struct cxltier_ctx *ctx, const char *name, struct cxltier_region **r,
		    unsigned char **p)
{
	int rc = cxltier_region_open(ctx, name, CXLTIER_REGION_RDWR, r);

	if (rc)
		return rc;
	rc = cxltier_region_map(*r, (void **)p);
	if (rc)
		cxltier_region_close(*r);
	return rc;
}

static void host_a(struct cxltier_ctx *ctx)
{
	struct cxltier_region *r;
	unsigned char *p;
	uint32_t id;
	double t0;
	int rc;

	t0 = now_ms();
	rc = cxltier_region_create_persistent(ctx, "xfer", XFER_SIZE, 0666, pool, &id);
	tap(!rc, "A creates xfer on %s (%.1f ms, id %#x)", pool, now_ms() - t0, id);
	if (rc || open_map(ctx, "xfer", &r, &p)) {
		tap(0, "A maps xfer");
		return;
	}
	fill(p + DATA_OFF, DATA_LEN, 42);
	*(uint64_t *)(p + SUM_OFF) = fnv(p + DATA_OFF, DATA_LEN);
	cxltier_flush(p + SUM_OFF, 8);
	cxltier_flush(p + DATA_OFF, DATA_LEN);
	cxltier_publish((uint64_t *)(p + FLAG_A), 1);
	t0 = now_ms();
	touch("a.published");

	rc = cxltier_acquire_range((uint64_t *)(p + FLAG_B), 1, WAIT_MS, p + REPLY_OFF, DATA_LEN);
	tap(!rc, "A acquires B's reply (%.0f ms after publishing)", now_ms() - t0);
	if (!rc) {
		unsigned char *want = malloc(DATA_LEN);

		for (size_t i = 0; want && i < DATA_LEN; i++)
			want[i] = p[DATA_OFF + i] ^ 0xff;
		tap(want && !memcmp(want, p + REPLY_OFF, DATA_LEN), "A reads B's reply intact");
		free(want);
	}
	cxltier_region_close(r);
}

static void host_b(struct cxltier_ctx *ctx)
{
	struct cxltier_region *r;
	unsigned char *p, *q;
	uint64_t handle;
	uint32_t id;
	double t0;
	int rc;

	if (wait_file("a.published")) {
		tap(0, "B sees A's region");
		return;
	}
	t0 = now_ms();
	rc = open_map(ctx, "xfer", &r, &p);
	tap(!rc, "B opens A's region by name (%.1f ms)", now_ms() - t0);
	if (rc)
		return;
	id = cxltier_region_get_id(r);
	tap(id >= CXLTIER_REGION_ID_SHARED, "B knows it under a shared id (%#x)", id);
	rc = cxltier_acquire_range((uint64_t *)(p + FLAG_A), 1, WAIT_MS, p, REPLY_OFF);
	tap(!rc, "B acquires A's data");
	tap(*(uint64_t *)(p + SUM_OFF) == fnv(p + DATA_OFF, DATA_LEN),
	    "B reads A's data intact (checksum %#" PRIx64 ")", *(uint64_t *)(p + SUM_OFF));

	rc = cxltier_handle_make(id, DATA_OFF, &handle);
	if (!rc)
		rc = cxltier_handle_resolve(ctx, handle, (void **)&q);
	tap(!rc && !memcmp(q, p + DATA_OFF, 4096), "B resolves A's handle %#" PRIx64 " to the same bytes",
	    handle);

	for (size_t i = 0; i < DATA_LEN; i++)
		p[REPLY_OFF + i] = p[DATA_OFF + i] ^ 0xff;
	cxltier_flush(p + REPLY_OFF, DATA_LEN);
	cxltier_publish((uint64_t *)(p + FLAG_B), 1);

	/* A handle of a pool number no attached pool has: not found. */
	rc = cxltier_handle_make(id ^ 0x100, 0, &handle);
	if (!rc)
		rc = cxltier_handle_resolve(ctx, handle, (void **)&q);
	tap(rc == -ENOENT, "a handle of a pool not attached here is not found (%d)", rc);
	cxltier_handle_cache_clear();
	cxltier_region_close(r);
}

/* Both hosts at once: create, check, destroy; regions of both never overlap. */
static void churn(struct cxltier_ctx *ctx, int rounds)
{
	char name[64], other[64];
	int bad = 0, seen = 0, i, rc;
	double t0 = now_ms();

	for (i = 0; i < rounds && !bad; i++) {
		struct cxltier_region *r;
		unsigned char *p;
		uint32_t id;

		snprintf(name, sizeof(name), "churn-%c-%d", 'a' + host, i);
		rc = cxltier_region_create_persistent(ctx, name, 2u << 20, 0666, pool, &id);
		if (rc) {
			printf("# create %s: %d\n", name, rc);
			bad++;
			break;
		}
		if (open_map(ctx, name, &r, &p)) {
			bad++;
			break;
		}
		/* Zeroed at create, then ours: a region overlapping another would show it. */
		for (size_t o = 0; o < (2u << 20); o += 4096) {
			cxltier_invalidate(p + o, 8);
			if (*(uint64_t *)(p + o)) {
				printf("# %s: offset %zu not zero at create\n", name, o);
				bad++;
				break;
			}
			*(uint64_t *)(p + o) = ((uint64_t)host << 32) | i;
		}
		cxltier_flush(p, 2u << 20);
		for (size_t o = 0; o < (2u << 20) && !bad; o += 4096) {
			cxltier_invalidate(p + o, 8);
			if (*(uint64_t *)(p + o) != (((uint64_t)host << 32) | i)) {
				printf("# %s: offset %zu overwritten by another region\n", name, o);
				bad++;
			}
		}
		cxltier_region_close(r);
		/* The other host's region of the same round, if it is there: readable. */
		snprintf(other, sizeof(other), "churn-%c-%d", 'b' - host, i);
		if (!open_map(ctx, other, &r, &p)) {
			seen++;
			cxltier_region_close(r);
		}
		rc = cxltier_region_destroy(ctx, name);
		if (rc) {
			printf("# destroy %s: %d\n", name, rc);
			bad++;
		}
	}
	tap(!bad, "host %c: %d creates and destroys alongside the other host (%.0f ms each; %d of its regions opened here)",
	    'A' + host, i, (now_ms() - t0) / (i ? i : 1), seen);
}

/*
 * shared_test --poke DEV OFFSET CHAR LEN / --peek DEV OFFSET LEN: write LEN bytes
 * CHAR at OFFSET of a device DAX (first 2 MiB), or print LEN bytes there: for the
 * attach refusals of a foreign superblock, before and after.
 */
static int poke_peek(int argc, char **argv)
{
	int poke = !strcmp(argv[1], "--poke"), fd;
	size_t off, len;
	unsigned char *p;

	if (argc != (poke ? 6 : 5))
		return 2;
	off = strtoul(argv[3], NULL, 0);
	len = strtoul(argv[poke ? 5 : 4], NULL, 0);
	if (off + len > (2u << 20))
		return 2;
	fd = open(argv[2], poke ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	/*
	 * Device DAX wants an address aligned to its 2 MiB; not every kernel's
	 * get_unmapped_area gives one (the debug kernel's did not): reserve 4 MiB and
	 * map at the aligned address inside.
	 */
	p = mmap(NULL, 4u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		unsigned char *a = (unsigned char *)(((uintptr_t)p + (2u << 20) - 1) &
						     ~(uintptr_t)((2u << 20) - 1));

		p = mmap(a, 2u << 20, poke ? PROT_READ | PROT_WRITE : PROT_READ,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	}
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (poke) {
		memset(p + off, argv[4][0], len);
		msync(p, 2u << 20, MS_SYNC);
	} else {
		fwrite(p + off, 1, len, stdout);
		printf("\n");
	}
	munmap(p, 2u << 20);
	return 0;
}

int main(int argc, char **argv)
{
	struct cxltier_ctx *ctx;
	const char *h = getenv("CXLT_HOST");
	int rounds = argc > 2 ? atoi(argv[2]) : 40;

	if (argc > 1 && (!strcmp(argv[1], "--poke") || !strcmp(argv[1], "--peek")))
		return poke_peek(argc, argv);
	if (argc < 2 || !h) {
		fprintf(stderr, "usage: CXLT_HOST=0|1 shared_test POOL [ROUNDS]\n");
		return 2;
	}
	pool = argv[1];
	host = atoi(h);
	if (cxltier_new(&ctx)) {
		printf("Bail out! no libcxltier context: %s\n", cxltier_get_last_error(NULL));
		return 1;
	}
	printf("TAP version 13\n");
	if (host == 0)
		host_a(ctx);
	else
		host_b(ctx);
	touch(host ? "b.xfer" : "a.xfer");
	if (!wait_file(host ? "a.xfer" : "b.xfer") && rounds > 0)
		churn(ctx, rounds);
	touch(host ? "b.churn" : "a.churn");
	wait_file(host ? "a.churn" : "b.churn");
	/* B let go of xfer before its churn: A's destroy frees it at once. */
	if (host == 0)
		tap(!cxltier_region_destroy(ctx, "xfer"), "A destroys xfer");
	printf("1..%d\n", ncase);
	cxltier_unref(ctx);
	return failed ? 1 : 0;
}
