// SPDX-License-Identifier: GPL-2.0
/*
 * preload_worker CASE: an unmodified program (it knows nothing of cxltier) for
 * libcxltier-preload.so's tests: the host's (tests/preload/preload_test.cpp, against
 * fake_dev.c) and the guest's (selftests/regions, against the module).  Where an
 * allocation landed is read from /proc/self/maps: "region" when the mapping holding
 * it is a region's (a file whose name has "region" or "cxltier" in it), else "heap".
 * Each case prints lines "NAME WHERE" and ends with "ok", exit 0; a wrong byte or a
 * failed call prints "FAIL ..." and exits 1.
 *
 *   basic       every allocation function, small and large; data kept across realloc
 *   reuse       a freed block is given again, calloc() of it reads zero
 *   threads N   N threads allocate, fill, check and free blocks at random
 *   fork        the child sees the parent's data and writes its own copy; the
 *               parent's is unchanged; the child's large allocations are its own
 *   full        more than the region holds: the rest comes from the heap
 *   hold S      one large allocation, "holding", then sleep S seconds (S "-": until
 *               the end of its standard input), then free it and exit
 *   exec        one large allocation, then exec itself with "basic"
 *   doublefree  frees a large block twice (the preload aborts)
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1UL << 20)

static int failed;

static void fail(const char *what)
{
	printf("FAIL %s\n", what);
	fflush(stdout);
	failed = 1;
}

/* "region" or "heap": the mapping @p is in, from /proc/self/maps. */
static const char *where(const void *p)
{
	static char kind[16];
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(kind, sizeof(kind), "unmapped");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || (uintptr_t)p < lo || (uintptr_t)p >= hi)
			continue;
		snprintf(kind, sizeof(kind), "%s",
			 strstr(line, "region") || strstr(line, "cxltier") ? "region" : "heap");
		break;
	}
	if (f)
		fclose(f);
	return kind;
}

/* The stores before it happen: a compiler may drop stores to memory freed next. */
static void keep(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i += 512)
		p[i] = (unsigned char)(seed + i / 512);
	if (n && (n - 1) % 512)
		p[n - 1] = (unsigned char)seed;
	keep(p);
}

static int check(const unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i += 512)
		if (p[i] != (unsigned char)(seed + i / 512))
			return 0;
	return !n || !((n - 1) % 512) || p[n - 1] == (unsigned char)seed;
}

static void report(const char *name, const void *p)
{
	printf("%s %s\n", name, where(p));
}

static void basic(void)
{
	void *a = malloc(4 * MiB), *s = malloc(100), *c = calloc(1, 2 * MiB), *m = NULL;
	void *al = aligned_alloc(2 * MiB, 3 * MiB), *v = valloc(2 * MiB);
	unsigned char *r = malloc(1000);

	report("malloc-4M", a);
	report("malloc-100", s);
	report("calloc-2M", c);
	if (posix_memalign(&m, 8192, 2 * MiB))
		fail("posix_memalign");
	report("posix_memalign-2M", m);
	if ((uintptr_t)m % 8192 || (uintptr_t)al % (2 * MiB) || (uintptr_t)v % 4096)
		fail("alignment");
	report("aligned_alloc-3M", al);
	for (size_t i = 0; i < 2 * MiB; i += 4096)
		if (((unsigned char *)c)[i])
			fail("calloc reads non-zero");
	if (malloc_usable_size(a) < 4 * MiB)
		fail("malloc_usable_size");
	/* realloc: a small block grown past the threshold keeps its bytes. */
	fill(r, 1000, 7);
	r = realloc(r, 3 * MiB);
	report("realloc-small-to-3M", r);
	if (!r || !check(r, 1000, 7))
		fail("realloc lost the small block's bytes");
	fill(r, 3 * MiB, 9);
	r = realloc(r, 9 * MiB);
	report("realloc-3M-to-9M", r);
	if (!r || !check(r, 3 * MiB, 9))
		fail("realloc lost the large block's bytes");
	r = reallocarray(r, 2, 5 * MiB);
	if (!r || !check(r, 3 * MiB, 9))
		fail("reallocarray");
	free(a);
	free(s);
	free(c);
	free(m);
	free(al);
	free(v);
	free(r);
	free(NULL);
}

static void reuse(void)
{
	unsigned char *a = malloc(4 * MiB), *b;

	memset(a, 0xaa, 4 * MiB);
	keep(a);
	free(a);
	b = calloc(4, MiB);
	report("calloc-after-free", b);
	if (b != a)
		printf("note: not the same block\n");
	for (size_t i = 0; i < 4 * MiB; i += 1024)
		if (b[i])
			return fail("calloc of a reused block reads non-zero");
	free(b);
}

struct worker {
	unsigned int seed, rounds;
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	unsigned char *blocks[8] = { 0 };
	size_t sizes[8] = { 0 };
	unsigned int seed = w->seed;

	for (unsigned int i = 0; i < w->rounds; i++) {
		unsigned int k = rand_r(&seed) % 8;

		if (blocks[k]) {
			if (!check(blocks[k], sizes[k], w->seed + k))
				fail("a block's bytes changed under another thread");
			free(blocks[k]);
		}
		sizes[k] = MiB + rand_r(&seed) % (3 * MiB);
		blocks[k] = malloc(sizes[k]);
		if (!blocks[k]) {
			fail("malloc");
			break;
		}
		fill(blocks[k], sizes[k], w->seed + k);
	}
	for (unsigned int k = 0; k < 8; k++) {
		if (blocks[k] && !check(blocks[k], sizes[k], w->seed + k))
			fail("a block's bytes changed under another thread");
		free(blocks[k]);
	}
	return NULL;
}

static void threads(unsigned int n)
{
	pthread_t t[16];
	struct worker w[16];

	if (n > 16)
		n = 16;
	for (unsigned int i = 0; i < n; i++) {
		w[i] = (struct worker){ .seed = 100 * (i + 1), .rounds = 200 };
		pthread_create(&t[i], NULL, thread_main, &w[i]);
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads %u\n", n);
}

static void do_fork(void)
{
	unsigned char *p = malloc(8 * MiB);
	int status;
	pid_t pid;

	report("parent-block", p);
	fill(p, 8 * MiB, 1);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (!pid) {
		unsigned char *q;

		if (!check(p, 8 * MiB, 1))
			_exit(2);
		fill(p, 8 * MiB, 2);
		q = malloc(4 * MiB);
		fill(q, 4 * MiB, 3);
		printf("child-block %s\n", where(p));
		printf("child-new %s\n", where(q));
		free(q);
		free(p);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the child did not see the parent's data");
	if (!check(p, 8 * MiB, 1))
		fail("the child's writes reached the parent");
	report("parent-after", p);
	free(p);
}

static void full(void)
{
	unsigned int region = 0, heap = 0;
	void *p[40];

	for (int i = 0; i < 40; i++) {
		p[i] = malloc(8 * MiB);
		if (!p[i])
			return fail("malloc");
		if (!strcmp(where(p[i]), "region"))
			region++;
		else
			heap++;
		memset(p[i], i, 8 * MiB);
	}
	for (int i = 0; i < 40; i++) {
		if (((unsigned char *)p[i])[8 * MiB - 1] != (unsigned char)i)
			fail("data");
		free(p[i]);
	}
	printf("full region=%u heap=%u\n", region, heap);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "basic")) {
		basic();
	} else if (!strcmp(c, "reuse")) {
		reuse();
	} else if (!strcmp(c, "threads")) {
		threads(argc > 2 ? (unsigned int)atoi(argv[2]) : 4);
	} else if (!strcmp(c, "fork")) {
		do_fork();
	} else if (!strcmp(c, "full")) {
		full();
	} else if (!strcmp(c, "hold")) {
		void *p = malloc(2 * MiB);

		memset(p, 1, 2 * MiB);
		keep(p);
		report("held", p);
		printf("holding\n");
		if (argc > 2 && !strcmp(argv[2], "-")) {
			char c;

			while (read(0, &c, 1) > 0)	/* until stdin's end */
				;
		} else {
			sleep(argc > 2 ? (unsigned int)atoi(argv[2]) : 60);
		}
		free(p);
	} else if (!strcmp(c, "exec")) {
		void *p = malloc(2 * MiB);

		report("before-exec", p);
		execl("/proc/self/exe", argv[0], "basic", (char *)NULL);
		fail("exec");
	} else if (!strcmp(c, "doublefree")) {
		void *volatile p = malloc(2 * MiB);	/* volatile: the compiler may not drop it */

		free(p);
		free(p);
	} else {
		fprintf(stderr, "usage: preload_worker basic|reuse|threads N|fork|full|hold S|exec|doublefree\n");
		return 2;
	}
	if (failed)
		return 1;
	printf("ok\n");
	return 0;
}
