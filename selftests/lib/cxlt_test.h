/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the cxltier selftests: reading sysfs files and the
 * topology description that qemu/run exports to the guest (CXLT_TOPOLOGY,
 * CXLT_BLADES, CXLT_REGIONS).
 */
#ifndef CXLT_TEST_H
#define CXLT_TEST_H

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define CXLT_SYSFS	"/sys/kernel/cxltier"
#define CXLT_PARAMS	"/sys/module/cxltier/parameters"
#define CXL_SYSFS	"/sys/bus/cxl/devices"

/*
 * The debug kernel (qemu/run exports CXLT_KERNEL=debug): its checkers report a bad
 * access or lock order the first time it happens, and every call costs 5-10x, so a
 * test that repeats a path to shake out races on Debian's kernel repeats it less.
 */
static inline int cxlt_debug_kernel(void)
{
	const char *k = getenv("CXLT_KERNEL");

	return k && !strcmp(k, "debug");
}

/* How much slower than Debian's this kernel runs (CXLT_TIMEOUT_SCALE, at least 1). */
static inline int cxlt_timeout_scale(void)
{
	const char *e = getenv("CXLT_TIMEOUT_SCALE");
	int s = e ? atoi(e) : 1;

	return s < 1 ? 1 : s;
}

/* @n repeats on Debian's kernel, a quarter (at least one) on the debug kernel. */
static inline int cxlt_repeats(int n)
{
	return cxlt_debug_kernel() ? (n + 3) / 4 : n;
}

/* Run a shell command; its output's first line into @out (if not NULL); its status. */
static inline int cxlt_sh(char *out, size_t len, const char *fmt, ...)
{
	char cmd[1024], line[512] = "";
	va_list ap;
	FILE *f;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	while (fgetc(f) != EOF)
		;
	rc = pclose(f);
	line[strcspn(line, "\n")] = 0;
	if (out)
		snprintf(out, len, "%s", line);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The value of a line "@name value" of a counters file; @absent when no such line. */
static inline long cxlt_key_value(const char *path, const char *name, long absent)
{
	char line[128], key[64];
	long val, ret = absent;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &val) == 2 && !strcmp(key, name))
			ret = val;
	fclose(f);
	return ret;
}

/* Read a whole (small) file into buf without the trailing newline; -errno on error. */
static inline int cxlt_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static inline int cxlt_readf(char *buf, size_t len, const char *fmt, const char *a,
			     const char *b)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), fmt, a, b);
	return cxlt_read(path, buf, len);
}

/* Read a number in any base strtoull accepts; returns -1 (all ones) on error. */
static inline uint64_t cxlt_read_u64(const char *fmt, const char *a, const char *b)
{
	char buf[64], *end;
	uint64_t v;

	if (cxlt_readf(buf, sizeof(buf), fmt, a, b))
		return UINT64_MAX;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return UINT64_MAX;
	return v;
}

static inline int cxlt_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* The last path component of a symlink's target, e.g. "mem0"; -errno on error. */
static inline int cxlt_link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	char *base;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

static inline int cxlt_module_loaded(void)
{
	return access(CXLT_SYSFS, F_OK) == 0;
}

/*
 * "name=value ..." of every readable parameter: what to load the module with again.
 * Whole entries only: 0, or -ENOSPC when they do not all fit in @len (then @out has
 * the ones that fit; loading with those would silently drop the others).
 */
static inline int cxlt_module_params(char *out, size_t len)
{
	size_t n = 0, i, k;
	int rc = 0;
	glob_t g;

	out[0] = 0;
	if (glob(CXLT_PARAMS "/*", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		char v[128];

		if (cxlt_read(g.gl_pathv[i], v, sizeof(v)) || strchr(v, ' ') || !v[0])
			continue;
		k = snprintf(out + n, len - n, "%s%s=%s", n ? " " : "",
			     strrchr(g.gl_pathv[i], '/') + 1, v);
		if (n + k >= len) {
			out[n] = 0;
			rc = -ENOSPC;
			break;
		}
		n += k;
	}
	globfree(&g);
	return rc;
}

/* Unload cxltier.ko without waiting: 0, or -EWOULDBLOCK/-EBUSY while it is in use. */
static inline int cxlt_rmmod(void)
{
	return syscall(SYS_delete_module, "cxltier", O_NONBLOCK) ? -errno : 0;
}

/* Load the guest's cxltier.ko with @params ("name=value ..."); 0 or -errno. */
static inline int cxlt_insmod(const char *params)
{
	char path[256];
	struct utsname u;
	int fd, rc;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/cxltier.ko", u.release);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return rc;
}

/* Does reading *@p kill a child with SIGBUS?  1 yes, 0 no, -1 when fork fails. */
static inline int cxlt_reads_sigbus(volatile uint64_t *p)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		(void)*p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

/* Poll /sys/kernel/cxltier/pools/@pool/state until it reads @want; 0, or -1 after @secs. */
static inline int cxlt_wait_pool_state(const char *pool, const char *want, int secs)
{
	char state[32];

	for (int i = 0; i < secs * 10; i++) {
		if (!cxlt_readf(state, sizeof(state), CXLT_SYSFS "/pools/%s/%s", pool, "state") &&
		    !strcmp(state, want))
			return 0;
		usleep(100000);
	}
	return -1;
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * Test timeouts and times.  Every test names its timeout (TEST_F_TIMEOUT, with a wide
 * margin over its time on Debian's kernel; lib.mk refuses a test without one).  The
 * guest exports CXLT_TIMEOUT_SCALE (qemu/run: 1 on Debian's kernel, more on the slower
 * debug kernel), and every timeout is multiplied by it.  The harness prints nothing
 * per test about time, so each test prints its wall time (fixture setup and teardown
 * included, as the timeout counts them) when it ends without failing an ASSERT.
 */
#include <time.h>

#define CXLT_MAX_TESTS	256

static struct {
	struct __test_metadata *t;
	void (*fn)(struct __test_metadata *, struct __fixture_variant_metadata *);
} cxlt_timed[CXLT_MAX_TESTS];

static void cxlt_timed_fn(struct __test_metadata *t, struct __fixture_variant_metadata *v)
{
	struct timespec a, b;
	int i;

	for (i = 0; i < CXLT_MAX_TESTS && cxlt_timed[i].t != t; i++)
		;
	if (i == CXLT_MAX_TESTS)
		abort();
	clock_gettime(CLOCK_MONOTONIC, &a);
	cxlt_timed[i].fn(t, v);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ksft_print_msg("      time  %s%s%s.%s: %.2f s (timeout %d s)\n", t->fixture->name,
		       v->name[0] ? "." : "", v->name, t->name,
		       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, t->timeout);
	fflush(stdout);
}

/* After the harness's constructors have registered every test. */
static void __attribute__((constructor(KSELFTEST_PRIO_XFAIL + 1))) cxlt_tests_init(void)
{
	int scale = cxlt_timeout_scale(), n = 0;
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next) {
		for (t = f->tests; t; t = t->next) {
			t->timeout *= scale;
			if (n < CXLT_MAX_TESTS) {
				cxlt_timed[n].t = t;
				cxlt_timed[n].fn = t->fn;
				t->fn = cxlt_timed_fn;
				n++;
			}
		}
	}
}
#endif /* __KSELFTEST_HARNESS_H */

/*
 * Register committed CXL RAM regions that are not tiers yet, appending their names to
 * @added (which holds @nr) until it holds @max.  Returns the new count.
 */
static inline int cxlt_add_ram_tiers(char added[][64], int nr, int max)
{
	glob_t g;
	size_t i;

	if (glob(CXL_SYSFS "/region*", 0, NULL, &g))
		return nr;
	for (i = 0; i < g.gl_pathc && nr < max; i++) {
		const char *name = strrchr(g.gl_pathv[i], '/') + 1;
		char path[PATH_MAX], v[16];

		/* Committed RAM regions of the CXL core that are not tiers yet. */
		snprintf(path, sizeof(path), "%s/commit", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)) || strcmp(v, "1"))
			continue;
		snprintf(path, sizeof(path), "%s/mode", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)) || strcmp(v, "ram"))
			continue;
		snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s", name);
		if (!access(path, F_OK) || cxlt_write(CXLT_SYSFS "/tier_add", name))
			continue;
		snprintf(added[nr++], 64, "%s", name);
	}
	globfree(&g);
	return nr;
}

/* The NUMA nodes of the registered tiers, up to @max; returns how many. */
static inline int cxlt_tier_nodes(int *nodes, int max)
{
	glob_t g;
	size_t i;
	int n = 0;

	if (glob(CXLT_SYSFS "/tiers/*/node", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && n < max; i++) {
		char v[16];

		if (!cxlt_read(g.gl_pathv[i], v, sizeof(v)))
			nodes[n++] = atoi(v);
	}
	globfree(&g);
	return n;
}

/* Remove the @nr tiers a group added (cxlt_add_ram_tiers()), saying which fail. */
static inline void cxlt_remove_tiers(char added[][64], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (cxlt_write(CXLT_SYSFS "/tier_remove", added[i]))
			fprintf(stderr, "# cannot remove tier %s\n", added[i]);
}

#endif /* CXLT_TEST_H */
