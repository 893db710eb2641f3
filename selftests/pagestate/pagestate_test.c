// SPDX-License-Identifier: GPL-2.0
/*
 * Page state when two things happen at once, on the interleaved tier of the pool
 * topology (4 ways at 4 KiB: each page is on one blade):
 *  - the device's poison list names a run of device addresses: exactly the host
 *    frames of those addresses are poisoned, one interleave granule at a time, not
 *    the neighbours of the first one on the host;
 *  - MADV_HWPOISON while the daemon moves the same pages at full budget: every
 *    poisoned page is fenced, none is healed by a copy;
 *  - a blade of the tier is fenced while pipes hold every page of a region on it
 *    (vmsplice(2)): the fence, a tier removal and a drain end in bounded time
 *    (offline_timeout_s) with EBUSY instead of spinning, the fenced pages SIGBUS,
 *    the others keep their data, and once the pipes are closed the tier goes and
 *    nothing is reported in the kernel log (run_tests' guard);
 *  - the CXL region under a tier is unbound: the tier's range is fenced first.
 *
 * The group fences a blade for good, so it has a boot of its own and reloads the
 * module when it ends (cxlt_fence_group_main()).
 */
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <numaif.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"
#include "cxlt_fence.h"

#define DAEMON		CXLT_SYSFS "/daemon/"
#define PARAMS		CXLT_PARAMS "/"
/* The bound this group gives a tier's offline step, and what it allows for. */
#define OFFLINE_S	5

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* The interleaved tier: its name, node, start, ways and granularity. */
struct itier {
	char name[64];
	int node;
	uint64_t start;
	uint32_t ways;
	uint64_t gran;
};

static int find_itier(struct itier *t)
{
	char v[32];
	glob_t g;
	size_t i;
	int found = 0;

	memset(t, 0, sizeof(*t));
	if (glob(CXLT_SYSFS "/tiers/*", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		const char *name = strrchr(g.gl_pathv[i], '/') + 1;
		char path[PATH_MAX];

		if (cxlt_read_u64(CXL_SYSFS "/%s/%s", name, "interleave_ways") < 2)
			continue;
		snprintf(path, sizeof(path), "%s/state", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)) || strcmp(v, "online"))
			continue;
		snprintf(path, sizeof(path), "%s/node", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)))
			continue;
		snprintf(t->name, sizeof(t->name), "%s", name);
		t->node = atoi(v);
		t->start = cxlt_read_u64(CXL_SYSFS "/%s/%s", name, "resource");
		t->ways = cxlt_read_u64(CXL_SYSFS "/%s/%s", name, "interleave_ways");
		t->gran = cxlt_read_u64(CXL_SYSFS "/%s/%s", name, "interleave_granularity");
		found = 1;
	}
	globfree(&g);
	return found;
}

/* Interleave position @pos of tier @t: its blade and the device address of its part. */
static int itier_target(const struct itier *t, unsigned int pos, char *blade, size_t len,
			uint64_t *dpa_base)
{
	char path[PATH_MAX], dec[64], real[PATH_MAX], *m;

	snprintf(path, sizeof(path), CXL_SYSFS "/%s/target%u", t->name, pos);
	if (cxlt_read(path, dec, sizeof(dec)))
		return -1;
	/* The endpoint decoder's port is the endpoint, whose uport is the memdev. */
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/../uport", dec);
	if (!realpath(path, real))
		return -1;
	m = strrchr(real, '/');
	if (!m || strncmp(m + 1, "mem", 3))
		return -1;
	snprintf(blade, len, "%s", m + 1);
	*dpa_base = cxlt_read_u64(CXL_SYSFS "/%s/%s", dec, "dpa_resource");
	return 0;
}

/* Is the frame at host address @hpa poisoned (/proc/kpageflags KPF_HWPOISON)? */
static int frame_poisoned(uint64_t hpa)
{
	uint64_t flags = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);

	if (fd < 0)
		return -1;
	if (pread(fd, &flags, 8, hpa / PAGE * 8) != 8) {
		close(fd);
		return -1;
	}
	close(fd);
	return !!(flags & (1ULL << 19));
}

FIXTURE(ps) {
	int dev;
	int fd;
	char name[CXLTIER_NAME_MAX];
	char *p;
	unsigned long n;
	struct itier t;
	uint64_t saved_timeout;
};

FIXTURE_SETUP(ps)
{
	self->fd = -1;
	self->p = MAP_FAILED;
	self->dev = dev_open();
	ASSERT_LE(0, self->dev) TH_LOG(DEV " is missing (cxltier.ko not loaded)");
	snprintf(self->name, sizeof(self->name), "ps.%d", getpid());
	self->saved_timeout = cxlt_read_u64(PARAMS "%s%s", "offline_timeout_s", "");
}

FIXTURE_TEARDOWN(ps)
{
	char v[32];

	if (self->p != MAP_FAILED)
		munmap(self->p, self->n * PAGE);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0) {
		rg_destroy(self->dev, self->name);
		close(self->dev);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)self->saved_timeout);
	cxlt_write(PARAMS "offline_timeout_s", v);
}

/* A region of @n pages on @node (slow-only there), mapped and filled. */
static int ps_region(FIXTURE_DATA(ps) *self, int node, unsigned long n)
{
	self->n = n;
	return region_on_node(self->dev, self->name, node, n, &self->fd, &self->p);
}

/*
 * A region of @n pages on the interleaved tier (self->t), each page's host address in
 * @hpa, and the first of them on interleave position 1: its blade (@blade), the
 * blade's QMP path (@qpath), the page's host address (*@first) and the device address
 * of its granule on the blade (*@dpa).  NULL, or why not.
 */
static const char *on_position_1(FIXTURE_DATA(ps) *self, unsigned long n, uint64_t *hpa,
				 char *blade, size_t blen, char *qpath, size_t qlen,
				 uint64_t *first, uint64_t *dpa)
{
	static char why[160];
	uint64_t dpa_base, off;
	unsigned long i;

	if (!find_itier(&self->t))
		return "no interleaved tier in service";
	if (itier_target(&self->t, 1, blade, blen, &dpa_base))
		return "no blade at interleave position 1";
	if (cxlt_sh(qpath, qlen, "cxlt-qmp --path-of %s", blade))
		return "cxlt-qmp --path-of failed";
	if (ps_region(self, self->t.node, n))
		return "cannot make the region on the interleaved tier";
	*first = 0;
	for (i = 0; i < n; i++) {
		hpa[i] = cxlt_hpa_of(self->p + i * PAGE);
		if (!hpa[i]) {
			snprintf(why, sizeof(why), "no host address for page %lu", i);
			return why;
		}
		off = hpa[i] - self->t.start;
		if (!*first && (off / self->t.gran) % self->t.ways == 1)
			*first = hpa[i];
	}
	if (!*first) {
		snprintf(why, sizeof(why), "no page of the region on position 1 (%s)", blade);
		return why;
	}
	off = *first - self->t.start;
	*dpa = dpa_base + off / self->t.gran / self->t.ways * self->t.gran;
	return NULL;
}

/*
 * The poison list names three granules of one blade's device addresses.  Their host
 * frames are ways granules apart; the frames between them are other blades' and stay
 * unpoisoned.  The region's pages on those frames are fenced (SIGBUS), the rest
 * verify.
 */
TEST_F_TIMEOUT(ps, poison_granules, 120)
{
	const unsigned long n = 64, run = 3;
	uint64_t hpa[64], first = 0, dpa, h;
	char blade[64], qpath[128], path[PATH_MAX];
	const char *why;
	unsigned long i, k, fenced = 0;
	int32_t nodes[64];
	int rc, t;

	if (cxlt_sh(NULL, 0, "cxlt-qmp query-status"))
		SKIP(return, "no QMP channel to the host (the group runs under qemu/run)");
	why = on_position_1(self, n, hpa, blade, sizeof(blade), qpath, sizeof(qpath), &first, &dpa);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	ASSERT_EQ(PAGE, self->t.gran) TH_LOG("the pool topology interleaves at 4 KiB");
	ASSERT_EQ(0, cxlt_sh(NULL, 0,
			"cxlt-qmp cxl-inject-poison '{\"path\": \"%s\", \"start\": %llu, \"length\": %llu}'",
			qpath, (unsigned long long)dpa,
			(unsigned long long)(run * self->t.gran)));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/trigger_poison_list", blade);
	ASSERT_EQ(0, cxlt_write(path, "1"));
	h = first + (run - 1) * self->t.ways * self->t.gran;
	for (t = 0; t < 200 * cxlt_timeout_scale() && frame_poisoned(h) != 1; t++)
		usleep(50000);
	/* Every frame of the run's host span: poisoned exactly when it is the blade's. */
	for (h = first; h <= first + (run - 1) * self->t.ways * self->t.gran; h += PAGE) {
		bool want = (h - first) % (self->t.ways * self->t.gran) == 0;

		rc = frame_poisoned(h);
		EXPECT_EQ(want, rc) TH_LOG("frame %#llx (+%llu granules)",
					   (unsigned long long)h,
					   (unsigned long long)((h - first) / self->t.gran));
	}
	ASSERT_EQ((int)n, rg_pages(self->fd, NULL, 0, n, nodes));
	for (i = 0; i < n; i++) {
		bool hit = false;

		for (k = 0; k < run; k++)
			hit |= hpa[i] == first + k * self->t.ways * self->t.gran;
		if (hit) {
			fenced++;
			EXPECT_EQ(CXLTIER_PAGE_FENCED, nodes[i]) TH_LOG("page %lu", i);
			EXPECT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			continue;
		}
		EXPECT_NE(CXLTIER_PAGE_FENCED, nodes[i]) TH_LOG("page %lu", i);
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 9), ((uint64_t *)(self->p + i * PAGE))[9]);
	}
	ksft_print_msg("%s: %lu granules poisoned from %#llx, %lu of the region's pages fenced\n",
		       blade, run, (unsigned long long)dpa, fenced);
	EXPECT_LE(1, fenced);
}

/*
 * Media event records (QMP cxl-inject-general-media-event and -dram-event, which the
 * guest's CXL core reads from the device's failure log and traces as cxl_general_media
 * and cxl_dram): on the interleaved tier, a record flagged uncorrectable fences the
 * region page at its device address, as the CXL core translates it; a correctable
 * one fences nothing.  The three records name three granules of one blade, ways
 * granules apart on the host; the correctable one comes first in the same log, so
 * once the last page is fenced it has been read.
 */
TEST_F_TIMEOUT(ps, media_events, 120)
{
	const unsigned long n = 64;
	const char *kinds[] = { "general-media", "general-media", "dram" };
	const int uncorrectable[] = { 0, 1, 1 };
	uint64_t hpa[64], first = 0, off, dpa, step, target[3];
	char blade[64], qpath[128];
	const char *why;
	struct cxltier_event ev;
	unsigned long i, k;
	int32_t nodes[64];
	uint64_t seq;
	int t;

	if (cxlt_sh(NULL, 0, "cxlt-qmp query-status"))
		SKIP(return, "no QMP channel to the host (the group runs under qemu/run)");
	why = on_position_1(self, n, hpa, blade, sizeof(blade), qpath, sizeof(qpath), &first, &dpa);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	/* Three granules of the blade in a row: pages of the region or not. */
	step = self->t.ways * self->t.gran;
	seq = events_next(self->dev);
	for (k = 0; k < 3; k++) {
		target[k] = first + k * step;
		ASSERT_EQ(0, cxlt_sh(NULL, 0,
				"cxlt-qmp cxl-inject-%s-event '{\"path\": \"%s\", \"log\": \"failure\", "
				"\"flags\": 1, \"dpa\": %llu, \"descriptor\": %d, \"type\": 0, "
				"\"transaction-type\": 0}'",
				kinds[k], qpath,
				(unsigned long long)(dpa + k * self->t.gran + 128),
				uncorrectable[k]))
			TH_LOG("%s event %lu", kinds[k], k);
	}
	for (t = 0; t < 200 * cxlt_timeout_scale() && frame_poisoned(target[2]) != 1; t++)
		usleep(50000);
	EXPECT_EQ(0, frame_poisoned(target[0])) TH_LOG("the correctable record poisoned its frame");
	EXPECT_EQ(1, frame_poisoned(target[1])) TH_LOG("general media record");
	EXPECT_EQ(1, frame_poisoned(target[2])) TH_LOG("DRAM record");
	/* Nothing between them: those frames are the other blades'. */
	for (off = target[1] + PAGE; off < target[2]; off += PAGE)
		EXPECT_EQ(0, frame_poisoned(off)) TH_LOG("frame %#llx", (unsigned long long)off);
	ASSERT_EQ((int)n, rg_pages(self->fd, NULL, 0, n, nodes));
	for (i = 0; i < n; i++) {
		bool hit = hpa[i] == target[1] || hpa[i] == target[2];

		if (hit) {
			EXPECT_EQ(CXLTIER_PAGE_FENCED, nodes[i]) TH_LOG("page %lu", i);
			EXPECT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			continue;
		}
		EXPECT_NE(CXLTIER_PAGE_FENCED, nodes[i]) TH_LOG("page %lu", i);
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 9), ((uint64_t *)(self->p + i * PAGE))[9]);
	}
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_POISON, blade, &ev));
	EXPECT_EQ(CXLTIER_CAUSE_MEDIA, ev.cause);
	/* The host address of the record's byte: in its first granule's page. */
	EXPECT_EQ(target[1], ev.offset & ~(uint64_t)(PAGE - 1))
		TH_LOG("the first record logged is the first uncorrectable one");
}

/* --- MADV_HWPOISON against the daemon ------------------------------------------------ */

static int poison_child(void *addr)
{
	return madvise(addr, PAGE, MADV_HWPOISON) ? errno : 0;
}

/* In a child: flip a region's hint between HOT and COLD every daemon period. */
static pid_t start_flipper(const char *name, uint64_t len)
{
	uint32_t hint = CXLTIER_HINT_COLD;
	uint64_t last = 0, cur;
	pid_t pid = fork();
	int dev;

	if (pid)
		return pid;
	dev = dev_open();
	for (;;) {
		cur = cxlt_read_u64(DAEMON "stats/%s%s", "periods", "");
		if (cur != last) {
			rg_hint(dev, name, 0, len, hint);
			hint = hint == CXLTIER_HINT_COLD ? CXLTIER_HINT_HOT : CXLTIER_HINT_COLD;
			last = cur;
		}
		usleep(5000);
	}
}

/*
 * The daemon moves every page of a region back and forth at full budget while pages
 * are poisoned one by one (MADV_HWPOISON runs memory_failure() on the page, as a
 * machine check would).  Each poisoned page ends up fenced and SIGBUS, none is
 * healed by a move's copy; every other page keeps its data; the counts are exact.
 */
TEST_F_TIMEOUT(ps, hwpoison_during_migration, 300)
{
	const unsigned long n = 256, nvictims = cxlt_repeats(24);
	char saved[6][32];
	const char *knobs[] = { DAEMON "enable", DAEMON "period_ms", DAEMON "budget_mbps",
				DAEMON "min_resid", PARAMS "fast_budget_mb", NULL };
	unsigned long i, moved0, victims[64];
	struct rstat st;
	int32_t nodes[256];
	bool hit[256] = { };
	pid_t flipper;
	int k, rc;

	for (k = 0; knobs[k]; k++)
		ASSERT_EQ(0, cxlt_read(knobs[k], saved[k], sizeof(saved[k])));
	ASSERT_EQ(0, cxlt_write(DAEMON "period_ms", "100"));
	ASSERT_EQ(0, cxlt_write(DAEMON "budget_mbps", "4096"));
	ASSERT_EQ(0, cxlt_write(DAEMON "min_resid", "1"));
	ASSERT_EQ(0, cxlt_write(PARAMS "fast_budget_mb", "64"));
	ASSERT_EQ(0, cxlt_write(DAEMON "enable", "1"));
	self->n = n;
	ASSERT_EQ(0, rg_create(self->dev, self->name, n * PAGE, CXLTIER_POLICY_FAST_FIRST, -1,
			       NULL));
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fill(self->p, 0, n);
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	moved0 = st.st.promoted + st.st.demoted;

	flipper = start_flipper(self->name, n * PAGE);
	ASSERT_LT(0, flipper);
	/* Let the moves get going, then poison pages while they go on. */
	usleep(500000);
	for (i = 0; i < nvictims; i++) {
		victims[i] = (i * 97 + 13) % n;
		rc = cxlt_in_child(poison_child, self->p + victims[i] * PAGE);
		if (rc == EINVAL || rc == EPERM) {
			kill(flipper, SIGKILL);
			waitpid(flipper, NULL, 0);
			SKIP(goto out, "MADV_HWPOISON is not available (%s)", strerror(rc));
		}
		/*
		 * EBUSY: memory_failure() could not free the page (someone held it
		 * for a moment); the page is poisoned and must be fenced all the same.
		 */
		EXPECT_TRUE(rc == 0 || rc == 128 + SIGBUS || rc == EBUSY) TH_LOG("child: %d", rc);
		hit[victims[i]] = true;
		usleep(30000);
	}
	kill(flipper, SIGKILL);
	waitpid(flipper, NULL, 0);

	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	ksft_print_msg("%lu pages poisoned while the daemon moved %llu pages\n", nvictims,
		       (unsigned long long)(st.st.promoted + st.st.demoted - moved0));
	EXPECT_LT(moved0 + 16, st.st.promoted + st.st.demoted)
		TH_LOG("the daemon hardly moved anything: the test did not race");
	EXPECT_EQ(nvictims, st.st.fenced);
	EXPECT_EQ(n - nvictims, st.st.resident);
	ASSERT_EQ((int)n, rg_pages(self->fd, NULL, 0, n, nodes));
	for (i = 0; i < n; i++) {
		if (hit[i]) {
			EXPECT_EQ(CXLTIER_PAGE_FENCED, nodes[i]) TH_LOG("page %lu healed", i);
			EXPECT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
			continue;
		}
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		for (k = 0; k < (int)(PAGE / 8); k += 64)
			ASSERT_EQ(pattern(i, k), ((uint64_t *)(self->p + i * PAGE))[k])
				TH_LOG("page %lu word %d", i, k);
	}
out:
	for (k = 0; knobs[k]; k++)
		cxlt_write(knobs[k], saved[k]);
}

/* --- pages held by pipes ------------------------------------------------------------- */

/* Pipes that hold every page of [@p, @p + @n pages) (vmsplice(2) takes references). */
struct holders {
	int fds[2][16];
	int nr;
};

static int hold_pages(struct holders *h, char *p, unsigned long n)
{
	unsigned long i = 0, per;
	struct iovec iov;
	ssize_t rc;
	int pfd[2];

	h->nr = 0;
	while (i < n) {
		if (h->nr == 16 || pipe(pfd))
			return -1;
		h->fds[0][h->nr] = pfd[0];
		h->fds[1][h->nr++] = pfd[1];
		/* As large as allowed (pipe-max-size, 1 MiB by default). */
		rc = fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20);
		per = rc > 0 ? (unsigned long)rc / PAGE : 16;
		for (; per-- && i < n; i++) {
			iov.iov_base = p + i * PAGE;
			iov.iov_len = PAGE;
			if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)PAGE)
				return -1;
		}
	}
	return 0;
}

static void release_pages(struct holders *h)
{
	int i;

	for (i = 0; i < h->nr; i++) {
		close(h->fds[0][i]);
		close(h->fds[1][i]);
	}
	h->nr = 0;
}

/* Frames of the failed position whose poisoning fence_with_pipes checks. */
#define FRAMES		1024

/* A sysfs write and how long it took. */
static int timed_write(const char *path, const char *val, double *secs)
{
	double t0 = now();
	int rc = cxlt_write(path, val);

	*secs = now() - t0;
	return rc;
}

/*
 * Every page of a region on the interleaved tier sits in pipes (vmsplice(2)); a
 * blade under the tier is fenced.  The fence returns at once; its offline step
 * cannot move the held pages and gives up within offline_timeout_s instead of
 * spinning with the tier lock held; "tier remove" says EBUSY within the bound too
 * (a fenced page of it is still held).  Pages on the fenced blade SIGBUS, the others
 * read back intact, none reads as zeroes.  Once the pipes are closed the tier goes,
 * its healthy pages move to other nodes with their data, and the kernel log stays
 * clean (run_tests' guard).
 */
TEST_F_TIMEOUT(ps, fence_with_pipes, 300)
{
	const unsigned long n = 256;
	const double bound = OFFLINE_S * cxlt_timeout_scale() + 30;
	unsigned long i, on_blade = 0, zeros = 0, poisoned = 0;
	char blade[64], state[32], path[PATH_MAX], v[16];
	struct holders h = { };
	uint64_t dpa_base, off;
	bool hit[256];
	double secs;
	int rc, t;

	ASSERT_TRUE(find_itier(&self->t)) TH_LOG("no interleaved tier in service");
	ASSERT_EQ(0, itier_target(&self->t, 2, blade, sizeof(blade), &dpa_base));
	blade_state(blade, state, sizeof(state));
	ASSERT_STREQ("online", state);
	snprintf(v, sizeof(v), "%d", OFFLINE_S * cxlt_timeout_scale());
	ASSERT_EQ(0, cxlt_write(PARAMS "offline_timeout_s", v));
	ASSERT_EQ(0, ps_region(self, self->t.node, n));
	for (i = 0; i < n; i++) {
		off = cxlt_hpa_of(self->p + i * PAGE) - self->t.start;
		hit[i] = (off / self->t.gran) % self->t.ways == 2;
		on_blade += hit[i];
	}
	ASSERT_LT(0, on_blade);
	ASSERT_GT(n, on_blade);
	ASSERT_EQ(0, hold_pages(&h, self->p, n));

	rc = timed_write(CXLT_SYSFS "/blade_fence", blade, &secs);
	ASSERT_EQ(0, rc);
	ksft_print_msg("fence of %s with %lu region pages in pipes: %.2f s\n", blade, n, secs);
	EXPECT_GT(bound, secs);
	/* The offline step runs after: wait for it to give up (the tier stays "fenced"). */
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", self->t.name);
	rc = timed_write(CXLT_SYSFS "/tier_remove", self->t.name, &secs);
	ksft_print_msg("tier remove while the pipes hold its pages: %s after %.2f s\n",
		       strerror(-rc), secs);
	EXPECT_EQ(-EBUSY, rc);
	EXPECT_GT(bound, secs);
	ASSERT_EQ(0, cxlt_read(path, state, sizeof(state)));
	EXPECT_STREQ("fenced", state);
	/*
	 * Its memory could not go offline, so the fence poisoned the free frames of the
	 * failed position instead: every frame there is poisoned (region pages by the
	 * fence, free ones by that fallback), within the bound.
	 */
	for (t = 0; t < bound * 10; t++) {
		for (i = 0, poisoned = 0; i < FRAMES; i++)
			poisoned += frame_poisoned(self->t.start +
						   (i * self->t.ways + 2) * self->t.gran) == 1;
		if (poisoned == FRAMES)
			break;
		usleep(100000);
	}
	ksft_print_msg("frames of %s's position poisoned: %lu of the first %d\n", blade,
		       poisoned, FRAMES);
	EXPECT_EQ(FRAMES, poisoned);

	for (i = 0; i < n; i++) {
		if (hit[i]) {
			EXPECT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
			continue;
		}
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		zeros += ((uint64_t *)(self->p + i * PAGE))[3] == 0;
		ASSERT_EQ(pattern(i, 3), ((uint64_t *)(self->p + i * PAGE))[3]) TH_LOG("page %lu", i);
	}
	EXPECT_EQ(0, zeros);

	/* The pipes go: now the tier can go, its healthy pages moved elsewhere. */
	release_pages(&h);
	for (t = 0; t < 20; t++) {
		rc = timed_write(CXLT_SYSFS "/tier_remove", self->t.name, &secs);
		if (rc != -EBUSY)
			break;
		usleep(500000);
	}
	ksft_print_msg("tier remove after the pipes closed: %s (%.2f s, %d retries)\n",
		       rc ? strerror(-rc) : "ok", secs, t);
	ASSERT_EQ(0, rc);
	for (i = 0; i < n; i++) {
		if (hit[i]) {
			EXPECT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			continue;
		}
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 5), ((uint64_t *)(self->p + i * PAGE))[5]) TH_LOG("page %lu", i);
	}
}

/*
 * A drain of a blade whose tier's pages sit in pipes: EBUSY within the bound, the
 * blade back in service and the data where it was; once the pipes close, the drain
 * moves everything and the blade is restored.
 */
TEST_F_TIMEOUT(ps, drain_with_pipes, 300)
{
	const unsigned long n = 256;
	const double bound = OFFLINE_S * cxlt_timeout_scale() + 30;
	char blade[64], state[32], v[16];
	struct holders h = { };
	unsigned long i;
	double secs;
	int node, rc;

	ASSERT_TRUE(healthy_blade(blade, sizeof(blade), &node, NULL))
		TH_LOG("no healthy single-blade tier");
	snprintf(v, sizeof(v), "%d", OFFLINE_S * cxlt_timeout_scale());
	ASSERT_EQ(0, cxlt_write(PARAMS "offline_timeout_s", v));
	ASSERT_EQ(0, ps_region(self, node, n));
	ASSERT_EQ(0, hold_pages(&h, self->p, n));

	rc = timed_write(CXLT_SYSFS "/blade_drain", blade, &secs);
	ksft_print_msg("drain of %s with %lu region pages in pipes: %s after %.2f s\n", blade,
		       n, strerror(-rc), secs);
	EXPECT_EQ(-EBUSY, rc);
	EXPECT_GT(bound, secs);
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("online", state);
	for (i = 0; i < n; i++) {
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 7), ((uint64_t *)(self->p + i * PAGE))[7]) TH_LOG("page %lu", i);
	}

	release_pages(&h);
	rc = timed_write(CXLT_SYSFS "/blade_drain", blade, &secs);
	ksft_print_msg("drain after the pipes closed: %s (%.2f s)\n", rc ? strerror(-rc) : "ok",
		       secs);
	ASSERT_EQ(0, rc);
	for (i = 0; i < n; i++) {
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 7), ((uint64_t *)(self->p + i * PAGE))[7]) TH_LOG("page %lu", i);
	}
	EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
}

/*
 * The CXL region under a tier goes away (its cxl_region driver unbound, as decommit
 * and teardown do): the tier's whole range is fenced before the CXL core stops
 * decoding it, so its pages fault with SIGBUS BUS_MCEERR_AR instead of reading what
 * an undecoded range returns; the blade itself stays in service; the event names the
 * region, with cause UNBIND.
 */
TEST_F_TIMEOUT(ps, region_unbind_fences, 120)
{
	const unsigned long n = 64;
	char blade[64], tier[64], state[32], path[PATH_MAX];
	struct cxltier_event ev;
	unsigned long i;
	uint64_t seq;
	int node;

	ASSERT_TRUE(healthy_blade(blade, sizeof(blade), &node, NULL))
		TH_LOG("no healthy single-blade tier");
	snprintf(tier, sizeof(tier), "%s", healthy_tier);
	ASSERT_EQ(0, ps_region(self, node, n));
	seq = events_next(self->dev);
	ASSERT_EQ(0, cxlt_write("/sys/bus/cxl/drivers/cxl_region/unbind", tier));
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", tier);
	ASSERT_EQ(0, cxlt_read(path, state, sizeof(state)));
	EXPECT_STRNE("online", state);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, tier, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_UNBIND, ev.cause);
	EXPECT_LE(n, ev.pages);
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(BUS_MCEERR_AR, last.si_code);
	}
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("online", state);
	ksft_print_msg("%s unbound: %llu pages fenced, blade %s %s\n", tier,
		       (unsigned long long)ev.pages, blade, state);
}

int main(int argc, char **argv)
{
	return cxlt_fence_group_main(argc, argv);
}
