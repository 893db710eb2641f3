// SPDX-License-Identifier: GPL-2.0
/*
 * The migration daemon (cxltierd) in a guest: hot pages of a fast-first region move
 * to DRAM and cold ones to CXL, hints steer it, data survives migration under
 * concurrent writers, a page pinned with a FOLL_LONGTERM pin (io_uring fixed buffers)
 * is moved by the kernel or skipped by the daemon but never hangs or corrupts,
 * teardown during migration leaks nothing, and the tunables refuse bad values.
 *
 * Pages are checked one by one with CXLTIER_IOC_PAGES.  "Fast" nodes are those that
 * are not CXL tiers.  Each test speeds the daemon up (period_ms 100, a budget far
 * above what the tests move) and puts every tunable back afterwards.
 */
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <numaif.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"

#define MB		(1UL << 20)
#define PAGE		4096UL
#define PARAM		"/sys/module/cxltier/parameters/"
#define DAEMON		CXLT_SYSFS "/daemon/"
#define ACCOUNTING	"/sys/kernel/debug/cxltier/accounting"
#define MAX_TIERS	8
#define GROUP_TIERS	2

static int nr_tiers;
static int tier_nodes[MAX_TIERS];

static bool is_tier_node(int nid)
{
	int i;

	for (i = 0; i < nr_tiers; i++)
		if (tier_nodes[i] == nid)
			return true;
	return false;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t read_u64(const char *path)
{
	return cxlt_read_u64("%s%s", path, "");
}

static int write_u64(const char *path, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return cxlt_write(path, buf);
}

#define HUGEPAGES0	"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"

/*
 * Tunables the tests change, fast_budget_mb, and what the DRAM pressure tests
 * change: huge pages reserved on node 0 and the kernel's watermark scale.
 */
static const char *const saved_names[] = {
	DAEMON "enable", DAEMON "period_ms", DAEMON "budget_mbps", DAEMON "sample_mb",
	DAEMON "wmark_low_mb", DAEMON "wmark_high_mb", DAEMON "min_resid",
	PARAM "fast_budget_mb", HUGEPAGES0, "/proc/sys/vm/watermark_scale_factor",
};
#define NR_SAVED	(sizeof(saved_names) / sizeof(saved_names[0]))

/* Pages of [@first, @first + @n) of a region on fast nodes, slow nodes, nowhere. */
struct where {
	int fast;
	int slow;
	int none;
};

static int where(int fd, unsigned long first, unsigned long n, struct where *w)
{
	int32_t *nodes = calloc(n, sizeof(*nodes));
	unsigned long i;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!nodes)
		return -ENOMEM;
	rc = rg_pages(fd, NULL, first * PAGE, n, nodes);
	for (i = 0; rc >= 0 && i < (unsigned long)rc; i++) {
		if (nodes[i] < 0)
			w->none++;
		else if (is_tier_node(nodes[i]))
			w->slow++;
		else
			w->fast++;
	}
	free(nodes);
	return rc < 0 ? rc : 0;
}

/*
 * The kernel's own answer for where pages of a mapping are: move_pages(2) in query
 * mode, after a read of each page (the daemon unmaps pages to sample them, and an
 * unmapped page has no answer).  Counts like where(); a page the kernel could not
 * place after a few tries counts as none.
 */
static int kernel_where(const char *p, unsigned long first, unsigned long n,
			struct where *w)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	volatile char sink;
	unsigned long i;
	int rc = 0, t;

	memset(w, 0, sizeof(*w));
	if (!pages || !status) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		pages[i] = (void *)(p + (first + i) * PAGE);
	for (t = 0; t < 5; t++) {
		for (i = 0; i < n; i++)
			sink = *(volatile const char *)pages[i];
		(void)sink;
		if (move_pages(0, n, pages, NULL, status, 0)) {
			rc = -errno;
			goto out;
		}
		for (i = 0; i < n && status[i] >= 0; i++)
			;
		if (i == n)
			break;
	}
	for (i = 0; i < n; i++) {
		if (status[i] < 0)
			w->none++;
		else if (is_tier_node(status[i]))
			w->slow++;
		else
			w->fast++;
	}
out:
	free(pages);
	free(status);
	return rc;
}

/* One u64 per word: generation, page and word mixed, so a stale or moved page shows. */
static uint64_t pattern(uint64_t gen, unsigned long page, unsigned long word)
{
	return (gen << 40) ^ (page * 0x9E3779B97F4A7C15ULL) ^ word;
}

static void fill(char *p, unsigned long page, uint64_t gen)
{
	uint64_t *w = (uint64_t *)(p + page * PAGE);
	unsigned long i;

	for (i = 0; i < PAGE / 8; i++)
		w[i] = pattern(gen, page, i);
}

static bool check(const char *p, unsigned long page, uint64_t gen)
{
	const uint64_t *w = (const uint64_t *)(p + page * PAGE);
	unsigned long i;

	for (i = 0; i < PAGE / 8; i++)
		if (w[i] != pattern(gen, page, i))
			return false;
	return true;
}

/*
 * In a child: flip the hint of a whole region between COLD and HOT every @periods of
 * the daemon's decision periods, until killed.  Counted in periods, not in time: a
 * flip every fixed interval can alias with the period (stretched under load) so that
 * the daemon sees one hint only, and @periods above min_resid lets every page move.
 */
static pid_t start_flipper(const char *name, uint64_t len, unsigned int periods)
{
	pid_t pid = fork();
	uint32_t hint = CXLTIER_HINT_COLD;
	uint64_t last = 0, now;
	int dev;

	if (pid)
		return pid;
	dev = dev_open();
	for (;;) {
		now = read_u64(DAEMON "stats/periods");
		if (now == UINT64_MAX)
			_exit(1);
		if (!last || now >= last + periods) {
			rg_hint(dev, name, 0, len, hint);
			hint = hint == CXLTIER_HINT_COLD ? CXLTIER_HINT_HOT : CXLTIER_HINT_COLD;
			last = now;
		}
		sleep_ms(10);
	}
}

static void stop_child(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * The module's accounting file on one line (';' between its lines), for comparing
 * before and after and for a failure message that shows all of it; never empty (it
 * always has fast_pages).
 */
static int accounting(char *buf, size_t len)
{
	int rc = cxlt_read(ACCOUNTING, buf, len);
	char *s;

	if (rc)
		return rc;
	for (s = strchr(buf, '\n'); s && s[1]; s = strchr(s, '\n'))
		*s = ';';
	return buf[0] ? 0 : -ENODATA;
}

/* The accounting's count of regions whose pages are not freed yet; -1 if unread. */
static long acct_regions(void)
{
	char buf[512], *s;

	if (accounting(buf, sizeof(buf)))
		return -1;
	s = strstr(buf, "regions ");
	return s ? strtol(s + 8, NULL, 10) : -1;
}

FIXTURE(mig) {
	int dev;
	int fd;
	char name[CXLTIER_NAME_MAX];
	size_t len;
	char *p;
	uint64_t saved[NR_SAVED];
	long regions;	/* regions not freed when the test began (debugfs) */
};

FIXTURE_SETUP(mig)
{
	unsigned int i;

	self->dev = -1;
	self->fd = -1;
	self->p = MAP_FAILED;
	self->regions = -1;
	if (access(DEV, F_OK) || access(DAEMON "enable", F_OK))
		SKIP(return, "cxltier.ko with its daemon is not loaded");
	for (i = 0; i < NR_SAVED; i++)
		self->saved[i] = read_u64(saved_names[i]);
	ASSERT_EQ(0, write_u64(DAEMON "period_ms", 100));
	ASSERT_EQ(0, write_u64(DAEMON "budget_mbps", 4096));
	ASSERT_EQ(0, write_u64(DAEMON "wmark_low_mb", 0));
	ASSERT_EQ(0, write_u64(DAEMON "wmark_high_mb", 0));
	ASSERT_EQ(0, write_u64(DAEMON "min_resid", 2));
	ASSERT_EQ(0, write_u64(DAEMON "enable", 1));
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	snprintf(self->name, sizeof(self->name), "mig.%d", getpid());
	self->regions = acct_regions();
}

/* Make, open and map the test's region: @len bytes, fast-first. */
static int mig_region(FIXTURE_DATA(mig) *self, size_t len)
{
	int rc = rg_create(self->dev, self->name, len, CXLTIER_POLICY_FAST_FIRST, -1, NULL);

	if (rc)
		return rc;
	self->len = len;
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (self->fd < 0)
		return self->fd;
	self->p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	return self->p == MAP_FAILED ? -errno : 0;
}

FIXTURE_TEARDOWN(mig)
{
	long now = acct_regions();
	unsigned int i;
	double t0;

	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0) {
		rg_destroy(self->dev, self->name);
		close(self->dev);
	}
	/*
	 * The test's regions' pages are freed when their last user lets go, which may
	 * be the daemon at the end of its period: the next test's baseline must not
	 * see them go (teardown_during_migration compares the accounting before and
	 * after).  Within the test's timeout: 5 s, scaled.
	 */
	for (t0 = now_s(); self->regions >= 0 && now > self->regions &&
	     now_s() - t0 < 5 * cxlt_timeout_scale(); sleep_ms(50))
		now = acct_regions();
	if (self->regions >= 0 && now >= 0)
		EXPECT_GE(self->regions, now) TH_LOG("the test's regions not freed in %.1f s",
						     now_s() - t0);
	/* Not in saved_names: it reads as Y or N.  On is its default. */
	cxlt_write(PARAM "dram_reclaim", "1");
	/* wmark_high before wmark_low: each store checks the pair. */
	write_u64(DAEMON "wmark_high_mb", self->saved[5]);
	for (i = 0; i < NR_SAVED; i++)
		if (self->saved[i] != UINT64_MAX)
			write_u64(saved_names[i], self->saved[i]);
}

/* Wait until the daemon's period count reaches @until (120 s at most). */
static int wait_period(uint64_t until)
{
	double t0 = now_s();

	while (read_u64(DAEMON "stats/periods") < until && now_s() - t0 < 120)
		sleep_ms(10);
	return read_u64(DAEMON "stats/periods") < until ? -1 : 0;
}

/* The daemon's time in the parts of its periods (stats/), in this order. */
static const char *const phase_names[] = { "arm_ns", "harvest_ns", "decide_ns", "move_ns" };
#define NR_PHASES	(sizeof(phase_names) / sizeof(phase_names[0]))

static int phases(uint64_t *ns)
{
	unsigned int i;

	for (i = 0; i < NR_PHASES; i++) {
		ns[i] = cxlt_read_u64(DAEMON "stats/%s%s", phase_names[i], "");
		if (ns[i] == UINT64_MAX)
			return -1;
	}
	return 0;
}

/*
 * The skewed workload's region: 4 MiB of DRAM budget, @pages of region touched in
 * order (so the first 4 MiB are in DRAM), the daemon sampling 4 MiB a period (a
 * quarter of 16 MiB: the policy decides once per four).  Non-zero unless the hot
 * pages [@hot0, @hot0 + @nhot) start on CXL.
 */
static int skewed_region(FIXTURE_DATA(mig) *self, unsigned long pages, unsigned long hot0,
			 unsigned long nhot)
{
	struct where hot;
	unsigned long i;

	if (write_u64(PARAM "fast_budget_mb", 4) || write_u64(DAEMON "sample_mb", 4) ||
	    mig_region(self, pages * PAGE))
		return -1;
	for (i = 0; i < pages; i++)
		self->p[i * PAGE] = 1;
	if (where(self->fd, hot0, nhot, &hot))
		return -1;
	return hot.slow == (int)nhot ? 0 : -1;
}

/*
 * Read pages [@hot0, @hot0 + @nhot) of the test's region over and over until 90% of
 * them are in DRAM, or for 120 s; where they are in *@hot, the seconds in *@t.
 */
static int read_until_promoted(FIXTURE_DATA(mig) *self, unsigned long hot0,
			       unsigned long nhot, struct where *hot, double *t)
{
	double t0 = now_s();
	volatile char sink;
	unsigned long i;
	int rc;

	do {
		for (i = 0; i < nhot; i++)
			sink = self->p[(hot0 + i) * PAGE];
		(void)sink;
		sleep_ms(20);
		rc = where(self->fd, hot0, nhot, hot);
		*t = now_s() - t0;
	} while (!rc && hot->fast < (int)nhot * 9 / 10 && *t < 120);
	return rc;
}

/*
 * A skewed workload: 4 MiB of DRAM budget, 16 MiB of region, first-touched in order
 * (so its first 4 MiB are in DRAM and never used again), then 2 MiB far in the CXL
 * part read over and over.  The hot pages end up in DRAM, and cold ones made room.
 * The daemon samples 4 MiB per period, so this also covers sampling in turns.
 */
TEST_F_TIMEOUT(mig, hot_up_cold_down, 300)
{
	const unsigned long pages = 16 * MB / PAGE, hot0 = 2048, nhot = 512;
	uint64_t ph0[NR_PHASES], ph1[NR_PHASES], sum = 0;
	unsigned long i;
	struct where hot, cold, khot;
	double t, t0;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, skewed_region(self, pages, hot0, nhot))
		TH_LOG("the hot set should start on CXL");

	ASSERT_EQ(0, phases(ph0));
	t0 = now_s();
	ASSERT_EQ(0, read_until_promoted(self, hot0, nhot, &hot, &t));
	/*
	 * Each part of the daemon's periods had its time, none more than there was.
	 * A phase adds its time when it ends: the next period's start says the moves
	 * that promoted the pages have.
	 */
	ASSERT_EQ(0, wait_period(read_u64(DAEMON "stats/periods") + 1));
	ASSERT_EQ(0, phases(ph1));
	for (i = 0; i < NR_PHASES; i++) {
		EXPECT_LT(ph0[i], ph1[i]) TH_LOG("stats/%s did not grow", phase_names[i]);
		sum += ph1[i] - ph0[i];
	}
	/* A phase under way at the first reading counts whole: one period's slack. */
	EXPECT_GE((uint64_t)((now_s() - t0 + 2 * cxlt_timeout_scale()) * 1e9), sum)
		TH_LOG("the phases overlap");
	ksft_print_msg("daemon: arm %.0f ms, harvest %.0f ms, decide %.0f ms, move %.0f ms\n",
		       (ph1[0] - ph0[0]) / 1e6, (ph1[1] - ph0[1]) / 1e6, (ph1[2] - ph0[2]) / 1e6,
		       (ph1[3] - ph0[3]) / 1e6);
	ASSERT_EQ(0, where(self->fd, 0, 1024, &cold));
	ASSERT_EQ(0, kernel_where(self->p, hot0, nhot, &khot));
	ksft_print_msg("after %.1f s: hot pages in DRAM %d/%lu (kernel: %d); first-touched cold pages moved to CXL %d/1024\n",
		       t, hot.fast, nhot, khot.fast, cold.slow);
	EXPECT_GE(hot.fast, (int)nhot * 9 / 10);
	EXPECT_GE(khot.fast, (int)nhot * 9 / 10);
	/* The budget is full: every promotion needed a cold page to leave. */
	EXPECT_GE(cold.slow, hot.fast - 16);
	for (i = 0; i < pages; i++)
		ASSERT_EQ(1, self->p[i * PAGE]) TH_LOG("page %lu lost its data", i);
}

/*
 * Hint @n pages of the region from @first @hint and wait (60 s at most) until all
 * of them are in DRAM (@fast) or on tiers.  Returns the daemon's period count then,
 * or 0 if they did not all get there.
 */
static uint64_t hint_and_wait(FIXTURE_DATA(mig) *self, unsigned long first, int n,
			      int hint, bool fast)
{
	double t0 = now_s();
	struct where w;

	if (rg_hint(self->fd, NULL, first * PAGE, n * PAGE, hint))
		return 0;
	do {
		sleep_ms(10);
		if (where(self->fd, first, n, &w))
			return 0;
	} while ((fast ? w.fast : w.slow) < n && now_s() - t0 < 60);
	return (fast ? w.fast : w.slow) == n ? read_u64(DAEMON "stats/periods") : 0;
}

/* COLD demotes a page and keeps it on CXL; PIN holds a page where it is. */
TEST_F_TIMEOUT(mig, hints, 200)
{
	const unsigned long pages = 512, half = 256;
	struct where pin, cold, kpin, kcold;
	double t0 = now_s();
	unsigned long i;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, mig_region(self, pages * PAGE));
	for (i = 0; i < pages; i++)
		fill(self->p, i, 1);
	ASSERT_EQ(0, where(self->fd, 0, pages, &pin));
	ASSERT_EQ(pages, pin.fast) TH_LOG("a fresh region with room starts in DRAM");

	ASSERT_EQ(0, rg_hint(self->fd, NULL, 0, half * PAGE, CXLTIER_HINT_PIN));
	ASSERT_EQ(0, rg_hint(self->dev, self->name, half * PAGE, half * PAGE,
			     CXLTIER_HINT_COLD));
	do {
		sleep_ms(100);
		ASSERT_EQ(0, where(self->fd, half, half, &cold));
	} while (cold.slow < (int)half && now_s() - t0 < 60);
	ASSERT_EQ(0, where(self->fd, 0, half, &pin));
	ASSERT_EQ(0, kernel_where(self->p, half, half, &kcold));
	ASSERT_EQ(0, kernel_where(self->p, 0, half, &kpin));
	ksft_print_msg("after %.1f s: COLD pages on CXL %d/%lu, PIN pages in DRAM %d/%lu (kernel: %d, %d)\n",
		       now_s() - t0, cold.slow, half, pin.fast, half, kcold.slow, kpin.fast);
	EXPECT_EQ(half, cold.slow);
	EXPECT_EQ(half, pin.fast);
	EXPECT_EQ(half, kcold.slow);
	EXPECT_EQ(half, kpin.fast);

	/* HOT brings them back. */
	EXPECT_NE(0, hint_and_wait(self, half, half, CXLTIER_HINT_HOT, true));
	for (i = 0; i < pages; i++)
		ASSERT_TRUE(check(self->p, i, 1)) TH_LOG("page %lu changed", i);
}

static uint64_t pingpong(FIXTURE_DATA(mig) *self)
{
	struct rstat st;

	return rg_stat(self->fd, NULL, &st) ? UINT64_MAX : st.st.pingpong;
}

/*
 * Ping-pong is a move that undoes the page's last move made fewer than 16 periods
 * before (CXLT_PINGPONG_PERIODS), and only that: hints move all the pages of a
 * region down and up.  A promotion right after a demotion counts, once per page; a
 * demotion 20 periods after the promotion does not; nor does one 255 to 266
 * periods after it, where the entry's 8-bit stamp of the promotion's period would
 * look young again had the daemon not cleared it when it grew old.
 */
TEST_F_TIMEOUT(mig, pingpong_counts_quick_returns_only, 120)
{
	const unsigned long pages = 64;
	uint64_t q, d;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, mig_region(self, pages * PAGE));
	memset(self->p, 1, pages * PAGE);
	/* First touch put them in DRAM: leaving it undoes no move. */
	ASSERT_NE(0, hint_and_wait(self, 0, pages, CXLTIER_HINT_COLD, false));
	EXPECT_EQ(0, pingpong(self));
	q = hint_and_wait(self, 0, pages, CXLTIER_HINT_HOT, true);
	ASSERT_NE(0, q);
	EXPECT_EQ(pages, pingpong(self));

	ASSERT_EQ(0, wait_period(q + 20));
	ASSERT_NE(0, hint_and_wait(self, 0, pages, CXLTIER_HINT_COLD, false));
	EXPECT_EQ(pages, pingpong(self)) TH_LOG("a demotion 20 periods on counted");
	q = hint_and_wait(self, 0, pages, CXLTIER_HINT_HOT, true);
	ASSERT_NE(0, q);
	EXPECT_EQ(2 * pages, pingpong(self));

	/* 240 short periods, then the last ones at 100 ms, to hit the stamp's repeat. */
	ASSERT_EQ(0, write_u64(DAEMON "period_ms", 10));
	ASSERT_EQ(0, wait_period(q + 240));
	ASSERT_EQ(0, write_u64(DAEMON "period_ms", 100));
	ASSERT_EQ(0, wait_period(q + 255));
	d = hint_and_wait(self, 0, pages, CXLTIER_HINT_COLD, false);
	ASSERT_NE(0, d);
	TH_LOG("promoted by period %llu, demoted by period %llu: %llu periods on",
	       (unsigned long long)q, (unsigned long long)d, (unsigned long long)(d - q));
	EXPECT_GE(266, d - q) TH_LOG("the demotion came too late to test the stamp's repeat");
	EXPECT_EQ(2 * pages, pingpong(self)) TH_LOG("a demotion %llu periods on counted",
						      (unsigned long long)(d - q));
}

/*
 * A managed region too large for the daemon (over twice the host's memory, never
 * touched) next to a normal one: the normal one is still managed.  The big one is
 * left out of the policy's layout, and the layout stays put from period to period
 * (it once changed every period, which threw the policy's state away before it
 * could rank anything: hints still worked, heat never did).  The workload is
 * hot_up_cold_down's; where the hot pages went is the kernel's answer
 * (move_pages(2)) as well as ours.
 */
TEST_F_TIMEOUT(mig, oversize_region_next_to_normal, 300)
{
	const unsigned long pages = 16 * MB / PAGE, hot0 = 2048, nhot = 512;
	unsigned long long ram_kb = 0;
	char big[CXLTIER_NAME_MAX];
	struct where hot, khot;
	char line[256];
	uint64_t big_len, p0;
	unsigned long i;
	double t;
	FILE *f;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	f = fopen("/proc/meminfo", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &ram_kb) == 1)
			break;
	fclose(f);
	ASSERT_NE(0, ram_kb);
	/* Twice the host's memory and 64 MiB more, in whole MiB. */
	big_len = (2 * ram_kb * 1024 + 64 * MB) & ~(MB - 1);
	snprintf(big, sizeof(big), "mig.big.%d", getpid());
	ASSERT_EQ(0, rg_create(self->dev, big, big_len, CXLTIER_POLICY_FAST_FIRST, -1, NULL));

	ASSERT_EQ(0, skewed_region(self, pages, hot0, nhot))
		TH_LOG("the hot set should start on CXL");
	p0 = read_u64(DAEMON "stats/periods");
	ASSERT_EQ(0, read_until_promoted(self, hot0, nhot, &hot, &t));
	ASSERT_EQ(0, kernel_where(self->p, hot0, nhot, &khot));
	ksft_print_msg("next to a %llu MiB region: hot pages in DRAM %d/%lu (kernel: %d) after %.1f s, %llu periods\n",
		       (unsigned long long)(big_len / MB), hot.fast, nhot, khot.fast, t,
		       (unsigned long long)(read_u64(DAEMON "stats/periods") - p0));
	EXPECT_GE(hot.fast, (int)nhot * 9 / 10);
	EXPECT_GE(khot.fast, (int)nhot * 9 / 10);
	for (i = 0; i < pages; i++)
		ASSERT_EQ(1, self->p[i * PAGE]) TH_LOG("page %lu lost its data", i);
	EXPECT_EQ(0, rg_destroy(self->dev, big));
}

/*
 * A sparse region: 1 GiB, of which a program uses the first 16 MiB (the preload's
 * region is as large as the host's memory, whatever the program holds).  The daemon
 * lays out what the region has used, rounded up to a power of two: its metadata is
 * that span's (policy state of 6 bytes a page: 24 KiB), not the length's (1.5 MiB), and
 * it samples the used pages as often as in a region of their size, so the hot
 * set is promoted as soon (hot_up_cold_down's workload and limit).
 */
TEST_F_TIMEOUT(mig, sparse_region_costs_its_span, 300)
{
	const unsigned long pages = 16 * MB / PAGE, hot0 = 2048, nhot = 512;
	const uint64_t len = 1024 * MB;
	uint64_t meta, managed;
	struct where hot, khot;
	unsigned long i;
	double t;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, write_u64(PARAM "fast_budget_mb", 4));
	ASSERT_EQ(0, write_u64(DAEMON "sample_mb", 4));
	ASSERT_EQ(0, mig_region(self, len));
	for (i = 0; i < pages; i++)
		self->p[i * PAGE] = 1;
	ASSERT_EQ(0, where(self->fd, hot0, nhot, &hot));
	ASSERT_EQ(nhot, hot.slow) TH_LOG("the hot set should start on CXL");
	ASSERT_EQ(0, read_until_promoted(self, hot0, nhot, &hot, &t));
	ASSERT_EQ(0, kernel_where(self->p, hot0, nhot, &khot));
	meta = read_u64(DAEMON "stats/metadata_bytes");
	managed = read_u64(DAEMON "stats/managed_pages");
	ksft_print_msg("1 GiB region, 16 MiB used: hot pages in DRAM %d/%lu (kernel: %d) after %.1f s; metadata %llu bytes for %llu managed pages\n",
		       hot.fast, nhot, khot.fast, t, (unsigned long long)meta,
		       (unsigned long long)managed);
	EXPECT_GE(hot.fast, (int)nhot * 9 / 10);
	EXPECT_GE(khot.fast, (int)nhot * 9 / 10);
	EXPECT_EQ(pages, managed);
	/*
	 * The used pages' policy state (6 bytes each) and page-table entries (4), and
	 * 64 KiB for the rest; laid out by its length it would be 1.5 MiB and more.
	 */
	EXPECT_LE(meta, 10 * pages + 64 * 1024);
	for (i = 0; i < pages; i++)
		ASSERT_EQ(1, self->p[i * PAGE]) TH_LOG("page %lu lost its data", i);
}

/* move_pages(2) of [@p, @p + @n pages) to @node: 0 when every status is @want. */
static int move_all(char *p, unsigned long n, int node, int want)
{
	void *pages[64];
	int nodes[64] = { }, status[64];
	unsigned long i;

	if (n > 64)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		pages[i] = p + i * PAGE;
		nodes[i] = node;
		status[i] = 1;
	}
	if (move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE) < 0)
		return -errno;
	for (i = 0; i < n; i++)
		if (status[i] != want)
			return status[i] < 0 ? status[i] : 1000 + status[i];
	return 0;
}

struct sharer {
	const char *name;
	unsigned long n;
	int node;
};

/* In a child, as user nobody: map the region read-only and ask to move it. */
static int sharer_moves(void *arg)
{
	const struct sharer *sh = arg;
	int dev, fd, rc;
	char *q;

	if (cxlt_drop_to_nobody())
		return 100;
	dev = dev_open();
	if (dev < 0)
		return 101;
	fd = rg_open(dev, sh->name, 0, CXLTIER_OPEN_READ);
	if (fd < 0)
		return 102;
	q = mmap(NULL, sh->n * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (q == MAP_FAILED)
		return 103;
	rc = move_all(q, sh->n, sh->node, -EFAULT);
	return rc ? 104 : 0;
}

/*
 * Where a region's pages live is the module's call: move_pages(2) and
 * mbind(MPOL_MF_MOVE) on a region mapping move nothing, for the owner and for a
 * read-only sharer (whose own pages need no CAP_SYS_NICE to move), so nobody goes
 * past the region's policy or the DRAM budget that way.  The kernel confirms the
 * pages stayed (move_pages(2) query), and the data is intact.
 */
TEST_F_TIMEOUT(mig, move_pages_refused, 60)
{
	const unsigned long pages = 64;
	unsigned long mask[16] = { };
	struct sharer sh = { .name = self->name, .n = pages };
	struct where w, kw;
	unsigned long i;
	int rc;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, write_u64(DAEMON "enable", 0));
	ASSERT_EQ(0, rg_create(self->dev, self->name, pages * PAGE, CXLTIER_POLICY_FAST_FIRST,
			       0644, NULL));
	self->len = pages * PAGE;
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	for (i = 0; i < pages; i++)
		fill(self->p, i, 1);
	ASSERT_EQ(0, kernel_where(self->p, 0, pages, &kw));
	ASSERT_EQ(pages, kw.fast) TH_LOG("a fresh region with room starts in DRAM");

	/* The owner, to a CXL node: every page's status is EFAULT. */
	EXPECT_EQ(0, move_all(self->p, pages, tier_nodes[0], -EFAULT));
	/* mbind(): STRICT says it could not; without, it moves nothing. */
	mask[tier_nodes[0] / 64] |= 1UL << (tier_nodes[0] % 64);
	rc = mbind(self->p, self->len, MPOL_BIND, mask, 1024, MPOL_MF_MOVE | MPOL_MF_STRICT);
	EXPECT_EQ(-1, rc);
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(0, mbind(self->p, self->len, MPOL_BIND, mask, 1024, MPOL_MF_MOVE));
	/* A read-only sharer, as user nobody. */
	sh.node = tier_nodes[0];
	EXPECT_EQ(0, cxlt_in_child(sharer_moves, &sh));

	ASSERT_EQ(0, kernel_where(self->p, 0, pages, &kw));
	ASSERT_EQ(0, where(self->fd, 0, pages, &w));
	EXPECT_EQ(pages, kw.fast);
	EXPECT_EQ(pages, w.fast);
	for (i = 0; i < pages; i++)
		ASSERT_TRUE(check(self->p, i, 1)) TH_LOG("page %lu changed", i);
}

/* A policy's name, for messages. */
static const char *cxlt_policy_label(uint32_t policy)
{
	switch (policy) {
	case CXLTIER_POLICY_FAST_FIRST: return "fast-first";
	case CXLTIER_POLICY_SLOW_ONLY: return "slow-only";
	case CXLTIER_POLICY_INTERLEAVE: return "interleave";
	case CXLTIER_POLICY_PINNED_FAST: return "pinned-fast";
	}
	return "?";
}

/*
 * The daemon manages fast-first regions only: pinned-fast, slow-only and interleave
 * regions stay where their policy put them, hinted HOT and COLD in turn and read hot,
 * while a fast-first region next to them, hinted COLD, moves (the daemon was at
 * work).
 */
TEST_F_TIMEOUT(mig, only_fast_first_managed, 120)
{
	static const uint32_t policies[] = { CXLTIER_POLICY_PINNED_FAST,
					     CXLTIER_POLICY_SLOW_ONLY,
					     CXLTIER_POLICY_INTERLEAVE };
	const unsigned long pages = 64;
	int32_t before[3][64], after[64];
	char names[3][CXLTIER_NAME_MAX];
	volatile char sink;
	struct rstat st;
	struct where w;
	pid_t flip[3];
	char *q[3];
	int fd[3], k;
	unsigned long i;
	double t0;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	for (k = 0; k < 3; k++) {
		snprintf(names[k], sizeof(names[k]), "mig.unmanaged%d.%d", k, getpid());
		ASSERT_EQ(0, rg_create(self->dev, names[k], pages * PAGE, policies[k], -1, NULL));
		fd[k] = rg_open(self->dev, names[k], 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
		ASSERT_LE(0, fd[k]);
		q[k] = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd[k], 0);
		ASSERT_NE(MAP_FAILED, q[k]);
		for (i = 0; i < pages; i++)
			fill(q[k], i, 3);
		ASSERT_EQ((int)pages, rg_pages(fd[k], NULL, 0, pages, before[k]));
		flip[k] = start_flipper(names[k], pages * PAGE, 1);
	}
	ASSERT_EQ(0, mig_region(self, pages * PAGE));
	for (i = 0; i < pages; i++)
		fill(self->p, i, 1);
	ASSERT_EQ(0, rg_hint(self->fd, NULL, 0, pages * PAGE, CXLTIER_HINT_COLD));
	t0 = now_s();
	do {
		for (k = 0; k < 3; k++)
			for (i = 0; i < pages; i++)
				sink = q[k][i * PAGE];
		(void)sink;
		sleep_ms(20);
		ASSERT_EQ(0, where(self->fd, 0, pages, &w));
	} while ((w.slow < (int)pages || now_s() - t0 < 3) && now_s() - t0 < 60);
	EXPECT_EQ(pages, w.slow) TH_LOG("the fast-first region's COLD pages");
	for (k = 0; k < 3; k++) {
		stop_child(flip[k]);
		ASSERT_EQ((int)pages, rg_pages(fd[k], NULL, 0, pages, after));
		EXPECT_EQ(0, memcmp(before[k], after, sizeof(after)))
			TH_LOG("%s moved", cxlt_policy_label(policies[k]));
		ASSERT_EQ(0, rg_stat(fd[k], NULL, &st));
		EXPECT_EQ(0, st.st.promoted + st.st.demoted)
			TH_LOG("%s moved", cxlt_policy_label(policies[k]));
		for (i = 0; i < pages; i++)
			ASSERT_TRUE(check(q[k], i, 3));
		munmap(q[k], pages * PAGE);
		close(fd[k]);
		EXPECT_EQ(0, rg_destroy(self->dev, names[k]));
	}
}

/* Bad hints are refused. */
TEST_F_TIMEOUT(mig, hint_bad_input, 20)
{
	int ro;

	ASSERT_EQ(0, mig_region(self, 1 * MB));
	EXPECT_EQ(-EINVAL, rg_hint(self->fd, NULL, 0, MB, CXLTIER_HINT_MAX + 1));
	EXPECT_EQ(-EINVAL, rg_hint(self->fd, NULL, 1, PAGE, CXLTIER_HINT_HOT));
	EXPECT_EQ(-EINVAL, rg_hint(self->fd, NULL, 0, 0, CXLTIER_HINT_HOT));
	EXPECT_EQ(-EINVAL, rg_hint(self->fd, NULL, 0, 2 * MB, CXLTIER_HINT_HOT));
	EXPECT_EQ(-EINVAL, rg_hint(self->fd, NULL, MB, PAGE, CXLTIER_HINT_HOT));
	EXPECT_EQ(-ENOENT, rg_hint(self->dev, "no.such.region", 0, PAGE, CXLTIER_HINT_HOT));
	/* A region file open for reading only may not steer placement. */
	ro = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, rg_hint(ro, NULL, 0, PAGE, CXLTIER_HINT_COLD));
	close(ro);
	EXPECT_EQ(0, rg_hint(self->fd, NULL, 0, MB, CXLTIER_HINT_NONE));
}


/*
 * Node 0 from /proc/zoneinfo, in bytes: its room as the module counts it
 * (cxlt_node_room()): per zone, free pages less the high watermark and less what the
 * zone keeps from movable allocations (the ZONE_MOVABLE entry of "protection"), for
 * zones with more free than that; and, in *@pcp unless NULL, the free pages on its
 * per-CPU lists (the pagesets' "count"), which are in neither "pages free" nor
 * meminfo's MemFree, so no room either.
 */
static long long zone0(long long *pcp)
{
	long long free = 0, high = 0, room = 0, lists = 0, c, p[5];
	bool node0 = false, zone = false;
	char line[256];
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return LLONG_MIN;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Node ", 5)) {
			node0 = !strncmp(line, "Node 0,", 7);
			zone = false;
		} else if (node0 && sscanf(line, " pages free %lld", &free) == 1) {
			zone = true;
		} else if (node0 && zone && sscanf(line, " high %lld", &high) == 1) {
			;
		} else if (node0 && zone &&
			   sscanf(line, " protection: (%lld, %lld, %lld, %lld, %lld)",
				  &p[0], &p[1], &p[2], &p[3], &p[4]) == 5) {
			/* p[3]: ZONE_MOVABLE, the class of a region page's allocation. */
			if (free > p[3])
				room += free - p[3] - high;
			zone = false;
		} else if (node0 && sscanf(line, " count: %lld", &c) == 1) {
			lists += c;
		}
	}
	fclose(f);
	if (pcp)
		*pcp = lists * (long long)PAGE;
	return room * (long long)PAGE;
}

static long long dram_room(void)
{
	return zone0(NULL);
}

/* Node 0's /sys meminfo and per-CPU free lists, for where DRAM went in a pressure test. */
#define MEM0_FIELDS 64
struct mem0 {
	int n;
	char name[MEM0_FIELDS][32];
	long long kb[MEM0_FIELDS];
	long long pcp;	/* per-CPU lists, zone0() */
};

static void mem0_read(struct mem0 *m)
{
	FILE *f = fopen("/sys/devices/system/node/node0/meminfo", "r");
	char line[128];

	m->n = 0;
	zone0(&m->pcp);
	while (f && m->n < MEM0_FIELDS && fgets(line, sizeof(line), f))
		if (sscanf(line, "Node 0 %31[^:]: %lld", m->name[m->n], &m->kb[m->n]) == 2)
			m->n++;
	if (f)
		fclose(f);
}

/*
 * Log the fields of node 0's meminfo that moved by a MiB or more from @a to @b, and
 * its per-CPU free lists.
 */
static void mem0_log(struct __test_metadata *_metadata, const struct mem0 *a,
		     const struct mem0 *b)
{
	char out[1024];
	size_t len = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < a->n && i < b->n && len < sizeof(out) - 64; i++)
		if (llabs(b->kb[i] - a->kb[i]) >= 1024)
			len += snprintf(out + len, sizeof(out) - len, " %s %+lld",
					a->name[i], (b->kb[i] - a->kb[i]) / 1024);
	TH_LOG("node 0 meminfo, MiB moved:%s; its per-CPU free lists: %lld KiB, then %lld KiB",
	       len ? out : " none by a MiB", a->pcp / 1024, b->pcp / 1024);
}

/*
 * The two DRAM pressure tests below: another process takes the DRAM room and
 * BURST_MORE bytes more; the region must give back BURST_GIVEN_BACK of them.  The
 * kernel finds the rest elsewhere: the gap between its high and min watermarks,
 * and memory that earlier tests freed late (RCU, the debug kernel's KASAN
 * quarantine) after the room was measured.  It found 40 MiB of 120 in a
 * debug-kernel run of the burst test alone, 67 MiB in one after the whole
 * migration group, and in one CI run all of the 104 MiB but 512 KiB.  How much it
 * finds is the kernel's business, not what these tests are about: so the process
 * goes on, a MiB at a time, until the region has given BURST_GIVEN_BACK, or until
 * it has taken BURST_EXTRA more (then the test fails: the region kept its DRAM
 * though the host needed it).  Without the module giving DRAM back, the OOM killer
 * takes the process first.
 */
#define BURST_MORE (104 * MB)
#define BURST_GIVEN_BACK (16 * MB)
#define BURST_EXTRA (128 * MB)

struct burst {
	size_t len;	/* taken in any case */
	size_t paced;	/* of which the last bytes at @ms a MiB */
	int ms;
	size_t give;	/* region bytes on tiers after which the extra stops */
	size_t extra;	/* at most this much more, paced too */
};

/*
 * The other user of DRAM in the pressure tests: in a child, bound to node 0 and the
 * OOM killer's first choice, mlock @len bytes a MiB at a time (mlocked pages are
 * unevictable: reclaim cannot make room by demoting them), the last @paced bytes at
 * @ms a MiB; then, while fewer than @give bytes of the region on @fd (@n pages) are
 * on tiers, a MiB more, paced the same, up to @extra bytes more.  Writes the bytes
 * it holds to @done when it is through, then holds them until killed.
 */
static pid_t start_dram_user(const struct burst *b, int fd, size_t n, int done)
{
	size_t len = b->len + b->extra, off;
	unsigned long dram = 1UL;
	pid_t pid = fork();
	struct where w;
	char *p;

	if (pid)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) ||
	    cxlt_write("/proc/self/oom_score_adj", "1000") ||
	    set_mempolicy(MPOL_BIND, &dram, 64))
		_exit(2);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += MB) {
		if (off >= b->len && (where(fd, 0, n, &w) || (size_t)w.slow >= b->give / PAGE))
			break;
		if (mlock(p + off, MB))
			_exit(4);
		if (off + b->paced >= b->len)
			sleep_ms(b->ms);
	}
	if (write(done, &off, sizeof(off)) != sizeof(off))
		_exit(5);
	for (;;)
		pause();
}

/*
 * The start of the DRAM pressure tests: a fast-first region of @len bytes, every
 * page written (generation 1) and in DRAM, then huge pages reserved on node 0 (the
 * fixture's teardown gives them back) so that DRAM has about 24 MiB of room left.
 * Returns the room, or LLONG_MIN when the setup failed.
 */
static long long squeezed_region(struct __test_metadata *_metadata,
				 FIXTURE_DATA(mig) *self, size_t len)
{
	size_t n = len / PAGE, i;
	long long room;
	struct where w;
	char v[32];

	if (mig_region(self, len))
		return LLONG_MIN;
	for (i = 0; i < n; i++)
		fill(self->p, i, 1);
	room = dram_room();
	if (where(self->fd, 0, n, &w) || w.fast != (int)n || room < 48 * (long long)MB) {
		TH_LOG("region: %d of %zu pages in DRAM; DRAM room %lld MiB: no pressure to test",
		       w.fast, n, room / (long long)MB);
		return LLONG_MIN;
	}
	/* Again while memory that was just freed (an earlier test's) comes back. */
	for (i = 0; i < 5 && room > 32 * (long long)MB; i++) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)read_u64(HUGEPAGES0) +
			 (room - 24 * (long long)MB) / (2 * (long long)MB));
		if (cxlt_write(HUGEPAGES0, v))
			return LLONG_MIN;
		sleep_ms(200);
		room = dram_room();
	}
	TH_LOG("region: %zu MiB in DRAM; %s huge pages on node 0; DRAM room now %lld MiB",
	       len / MB, v, room / (long long)MB);
	return room;
}

/*
 * Another user takes the room and BURST_MORE bytes more of DRAM, and more while the
 * region has not given BURST_GIVEN_BACK (start_dram_user()).  Returns its pid once
 * it holds them all, with *@status 0; else its wait status.
 */
static pid_t other_user(struct __test_metadata *_metadata, FIXTURE_DATA(mig) *self,
			long long room, size_t paced, int ms, int *status)
{
	struct burst b = {
		/* Whole MiBs: each mlock() takes one. */
		.len = ((room > 0 ? room : 0) + BURST_MORE + MB - 1) / MB * MB,
		.paced = paced, .ms = ms,
		.give = BURST_GIVEN_BACK, .extra = BURST_EXTRA,
	};
	size_t held = 0;
	int pipefd[2];
	double t0;
	pid_t pid;

	*status = 0;
	if (pipe(pipefd))
		return -1;
	t0 = now_s();
	pid = start_dram_user(&b, self->fd, self->len / PAGE, pipefd[1]);
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], &held, sizeof(held)) != sizeof(held))
		waitpid(pid, status, 0);	/* it ended without its memory */
	close(pipefd[0]);
	TH_LOG("the other user %s %zu MiB (room %lld MiB + %zu + %zu) in %.1f s (%s %d)",
	       *status ? "did not get" : "mlocked", (*status ? b.len : held) / MB,
	       room / (long long)MB, BURST_MORE / MB,
	       held > b.len ? (held - b.len) / MB : 0, now_s() - t0,
	       WIFSIGNALED(*status) ? "killed by signal" : "exit",
	       WIFSIGNALED(*status) ? WTERMSIG(*status) : WEXITSTATUS(*status));
	return pid;
}

/*
 * A region's DRAM yields to other users.  Reclaim cannot demote region pages (they
 * are dirty page cache, which the multi-gen LRU never evicts; DOC: region memory in
 * region_mm.c), so the module gives DRAM back itself.  The daemon's room is DRAM
 * free above the kernel's high watermarks: 128 MiB of region in DRAM, 24 MiB of
 * room left, then a process mlocks that room and 104 MiB more, the last 96 MiB paced
 * at 50 ms a MiB (and more while the region has not given 16 MiB: the kernel
 * finds some of it elsewhere, see BURST_MORE).  It must
 * get it all (before, the OOM killer took it: the region held on to its DRAM), the
 * region must have given at least 16 MiB back, with its data intact, and
 * while the process holds its memory the region must not grow in DRAM by more than
 * the room there was (1 MiB of slack), though its pages are read all the while.
 * Only the region's own growth counts: the room falls for others too (on the debug
 * kernel, by 21 MiB in 3 s once in CI, when the region had only 14 MiB in DRAM).
 * 30-55 s here.
 */
TEST_F_TIMEOUT(mig, yields_dram_to_others, 600)
{
	size_t len = 128 * MB, n = len / PAGE, i, bad = 0;
	long long room0, room, grown, excess, had, low = LLONG_MAX, over = LLONG_MIN;
	struct mem0 m0, mlow;
	struct where w;
	int status, fast0;
	pid_t pid;
	double t0;

	ASSERT_EQ(0, write_u64(DAEMON "wmark_high_mb", 4));
	ASSERT_EQ(0, write_u64(DAEMON "wmark_low_mb", 2));
	room0 = squeezed_region(_metadata, self, len);
	ASSERT_NE(LLONG_MIN, room0);
	pid = other_user(_metadata, self, room0, 96 * MB, 50, &status);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, status);

	/*
	 * DRAM is back above its watermarks soon after (the daemon demotes at its
	 * copy rate), and stays there while the process holds its memory, though
	 * the region is read all the while: its pages want DRAM, but there is none.
	 */
	t0 = now_s();
	while ((room = dram_room()) < 0 && now_s() - t0 < 30)
		sleep_ms(100);
	TH_LOG("DRAM room %lld KiB %.1f s later", room / 1024, now_s() - t0);
	EXPECT_LE(0, room);
	/*
	 * Then the region may grow in DRAM by the room there is, and by no more than
	 * 1 MiB beyond it (a period's promotions may overshoot by a little).  @had:
	 * the most room there would have been without the region's growth so far
	 * (room that others took later was room all the same).
	 */
	ASSERT_EQ(0, where(self->fd, 0, n, &w));
	fast0 = w.fast;
	had = dram_room();
	mem0_read(&m0);
	mlow = m0;
	t0 = now_s();
	while (now_s() - t0 < 3) {
		for (i = 0; i < n; i++)
			bad += !check(self->p, i, 1);
		room = dram_room();
		ASSERT_EQ(0, where(self->fd, 0, n, &w));
		grown = (long long)(w.fast - fast0) * PAGE;
		if (room + grown > had)
			had = room + grown;
		excess = grown - (had > 0 ? had : 0);
		if (excess > over)
			over = excess;
		if (room < low) {
			low = room;
			mem0_read(&mlow);
		}
	}
	TH_LOG("region: %d pages in DRAM (%+d while read for 3 s), %d on tiers; DRAM room then: lowest %lld KiB, last %lld KiB; the region's growth beyond the room: %lld KiB",
	       w.fast, w.fast - fast0, w.slow, low / 1024, room / 1024, over / 1024);
	mem0_log(_metadata, &m0, &mlow);	/* to the lowest room */
	EXPECT_GE((size_t)w.slow, BURST_GIVEN_BACK / PAGE);
	EXPECT_LT(over, 1 * (long long)MB);
	stop_child(pid);
	for (i = 0; i < n; i++)
		bad += !check(self->p, i, 1);
	EXPECT_EQ(0, bad);
}

/*
 * A burst, with the daemon off: only reclaim's call to the module's shrinker
 * (reclaim.c) can give DRAM back, synchronously, in the allocation that needs it.
 * 128 MiB of region in DRAM, 24 MiB of room, a process mlocks that room and 104
 * MiB more as fast as it can (and more while the region has not given 16 MiB, see
 * BURST_MORE).  It must get it all, the shrinker must have demoted
 * at least 16 MiB, the region's data intact.  Without the shrinker the OOM killer
 * takes the process.
 */
TEST_F_TIMEOUT(mig, reclaim_demotes_in_a_burst, 300)
{
	size_t len = 128 * MB, n = len / PAGE, i, bad = 0;
	uint64_t demoted0 = read_u64(DAEMON "stats/reclaim_demoted_pages"), demoted;
	long long room0;
	struct where w;
	int status;
	pid_t pid;

	ASSERT_NE(UINT64_MAX, demoted0);
	ASSERT_EQ(0, write_u64(DAEMON "enable", 0));
	room0 = squeezed_region(_metadata, self, len);
	ASSERT_NE(LLONG_MIN, room0);
	pid = other_user(_metadata, self, room0, 0, 0, &status);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, status);
	demoted = read_u64(DAEMON "stats/reclaim_demoted_pages") - demoted0;
	ASSERT_EQ(0, where(self->fd, 0, n, &w));
	TH_LOG("reclaim demoted %llu pages; region: %d pages in DRAM, %d on tiers; DRAM room %lld KiB",
	       (unsigned long long)demoted, w.fast, w.slow, dram_room() / 1024);
	EXPECT_GE(demoted, BURST_GIVEN_BACK / PAGE);
	EXPECT_GE((size_t)w.slow, BURST_GIVEN_BACK / PAGE);
	stop_child(pid);
	for (i = 0; i < n; i++)
		bad += !check(self->p, i, 1);
	EXPECT_EQ(0, bad);
}

/*
 * About 160 MiB of DRAM free: huge pages reserved on node 0 take the rest.  The
 * fixture's teardown puts them back.  Returns 0, or -1 when they could not be set.
 */
static int dram_down_to_160(void)
{
	long long room0 = dram_room();
	char v[32];

	if (room0 <= 192 * (long long)MB)
		return 0;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)read_u64(HUGEPAGES0) +
		 (room0 - 160 * (long long)MB) / (2 * (long long)MB));
	return cxlt_write(HUGEPAGES0, v) ? -1 : 0;
}

/*
 * The kernel's watermarks raised above what is free (watermark_scale_factor 3000:
 * each step 30% of memory), with free pages enough for the allocator all the same
 * (above the min watermark, which the scale does not move).  The fixture's teardown
 * puts the scale back.  Returns DRAM's room then, LLONG_MIN when it could not be set.
 */
static long long raise_watermarks(void)
{
	return cxlt_write("/proc/sys/vm/watermark_scale_factor", "3000") ? LLONG_MIN :
	       dram_room();
}

/*
 * DRAM short of its high watermarks, with free pages all the same: about 160 MiB
 * free (dram_down_to_160()), then the watermarks raised above that
 * (raise_watermarks()).  Returns 0, or -1 when DRAM still has room.
 */
static int short_of_dram(struct __test_metadata *_metadata)
{
	long long room0, room;

	if (dram_down_to_160())
		return -1;
	room0 = dram_room();
	room = raise_watermarks();
	TH_LOG("DRAM room %lld MiB before, %lld MiB with watermark_scale_factor 3000",
	       room0 / (long long)MB, room / (long long)MB);
	return room < 0 ? 0 : -1;
}

/*
 * The daemon's room is DRAM above the kernel's high watermarks, whatever its own
 * budget says: DRAM short of them (short_of_dram()) makes it demote the region's
 * pages, with the shrinker off (dram_reclaim=0, so that only the daemon moves
 * them).  Before, it kept them: its budget
 * (fast_budget_mb) had room.
 */
TEST_F_TIMEOUT(mig, daemon_gives_dram_back, 200)
{
	size_t len = 16 * MB, n = len / PAGE, i, bad = 0;
	struct where w = { 0 };
	double t0;

	ASSERT_EQ(0, mig_region(self, len));
	for (i = 0; i < n; i++)
		fill(self->p, i, 1);
	ASSERT_EQ(0, where(self->fd, 0, n, &w));
	ASSERT_EQ((int)n, w.fast);
	/* The fixture's teardown turns the shrinker back on. */
	ASSERT_EQ(0, cxlt_write(PARAM "dram_reclaim", "0"));
	ASSERT_EQ(0, short_of_dram(_metadata));
	t0 = now_s();
	while (now_s() - t0 < 60 && !where(self->fd, 0, n, &w) && w.fast)
		sleep_ms(200);
	TH_LOG("after %.1f s: %d pages in DRAM, %d on tiers", now_s() - t0, w.fast, w.slow);
	EXPECT_EQ(0, w.fast);
	for (i = 0; i < n; i++)
		bad += !check(self->p, i, 1);
	EXPECT_EQ(0, bad);
}

/*
 * A fast-first page takes DRAM only above the kernel's high watermarks, where taking
 * it makes reclaim take nothing from anyone; below them, it goes to a tier.  DRAM
 * is short of its watermarks (short_of_dram()), with free pages enough for the
 * allocator all the same, but no room.
 * The daemon is off: it must not move the page after its fault.  Before, the page
 * went to DRAM.
 */
TEST_F_TIMEOUT(mig, fast_first_fault_keeps_to_room, 120)
{
	struct where w;

	ASSERT_EQ(0, write_u64(DAEMON "enable", 0));
	ASSERT_EQ(0, short_of_dram(_metadata));
	EXPECT_EQ(0, mig_region(self, MB));
	if (self->p != MAP_FAILED) {
		self->p[0] = 1;
		EXPECT_EQ(0, where(self->fd, 0, 1, &w));
		TH_LOG("its page: %s", w.slow ? "on a tier" : w.fast ? "in DRAM" : "nowhere");
		EXPECT_EQ(1, w.slow);
	}
}

/* Wait until the daemon's period count stands still for 1 s (30 s at most). */
static int daemon_idle(void)
{
	uint64_t per = read_u64(DAEMON "stats/periods"), now;
	double t0 = now_s(), since = t0;

	while (now_s() - t0 < 30) {
		sleep_ms(50);
		now = read_u64(DAEMON "stats/periods");
		if (now != per) {
			per = now;
			since = now_s();
		} else if (now_s() - since >= 1) {
			return 0;
		}
	}
	return -1;
}

/*
 * A promotion takes DRAM only above the kernel's high watermarks, like a fast-first
 * fault (cxlt_alloc_fast()'s @spare): the policy's room is read when the period's
 * plan is made, and DRAM others take while its moves run (one period moves 32 MiB
 * here, 1-10 s under TCG) must stop the rest.  32 MiB of region on CXL, hinted HOT,
 * about 160 MiB of DRAM free (dram_down_to_160()): once the daemon's first run of
 * promotions is in, the watermarks go above what is free (raise_watermarks()), and
 * from then on the daemon promotes at most the run that had its pages already (32:
 * a run allocates all its targets before it moves any), the rest of its plan fails
 * for want of memory.  The shrinker is off (dram_reclaim=0): only the daemon moves.
 * Without @spare on this path the rest of the plan went on, down to the kernel's
 * min watermark (8143 more pages, checked).
 */
TEST_F_TIMEOUT(mig, promotion_keeps_to_room, 300)
{
	const size_t len = 32 * MB, n = len / PAGE;
	uint64_t p0, p1, p2, f0, f2, per;
	struct rstat st;
	long long room0, room;
	struct where w;
	size_t i, bad = 0;
	double t0;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, cxlt_write(PARAM "dram_reclaim", "0"));
	ASSERT_EQ(0, dram_down_to_160());
	ASSERT_EQ(0, mig_region(self, len));
	for (i = 0; i < n; i++)
		fill(self->p, i, 1);
	ASSERT_NE(0, hint_and_wait(self, 0, n, CXLTIER_HINT_COLD, false))
		TH_LOG("COLD should have moved the region to CXL");
	room0 = dram_room();
	ASSERT_LT(2 * (long long)len, room0) TH_LOG("DRAM room %lld MiB", room0 / (long long)MB);
	/*
	 * The daemon hears of a page's hint when it arms the page: a hint set while it
	 * arms reaches only part of that period's plan (123 pages, once, on the debug
	 * kernel).  So it is off while the hint is set, and its first period back plans
	 * all of them.
	 */
	ASSERT_EQ(0, write_u64(DAEMON "enable", 0));
	ASSERT_EQ(0, daemon_idle());
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	p0 = st.st.promoted;
	/*
	 * Failures count from here, not from the watermarks' rise: the rest of the
	 * plan fails within milliseconds of it (a refused target costs no copy), and
	 * a count read after the rise already held them (0 "failed", twice in CI).
	 */
	f0 = read_u64(DAEMON "stats/failed_pages");
	ASSERT_EQ(0, rg_hint(self->fd, NULL, 0, len, CXLTIER_HINT_HOT));
	ASSERT_EQ(0, write_u64(DAEMON "enable", 1));
	t0 = now_s();
	/* The region's count goes up with each move (the daemon's, after a region's all). */
	while (!rg_stat(self->fd, NULL, &st) && st.st.promoted == p0 && now_s() - t0 < 60)
		;
	room = raise_watermarks();
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	p1 = st.st.promoted;
	per = read_u64(DAEMON "stats/periods");
	ASSERT_LT(p0, p1) TH_LOG("no promotion within 60 s of the HOT hint");
	ASSERT_GT(0, room) TH_LOG("DRAM room %lld MiB with watermark_scale_factor 3000",
				  room / (long long)MB);
	/* The period under way ends, and one more (with no room, it promotes nothing). */
	ASSERT_EQ(0, wait_period(per + 2));
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	p2 = st.st.promoted;
	f2 = read_u64(DAEMON "stats/failed_pages");
	ASSERT_EQ(0, where(self->fd, 0, n, &w));
	TH_LOG("DRAM room %lld MiB, then %lld: %llu promoted before, %llu after, %llu failed; region: %d pages in DRAM, %d on tiers",
	       room0 / (long long)MB, room / (long long)MB, (unsigned long long)(p1 - p0),
	       (unsigned long long)(p2 - p1), (unsigned long long)(f2 - f0), w.fast, w.slow);
	EXPECT_GE(32, p2 - p1) TH_LOG("promotions went on below the watermarks");
	/* Else the plan was done before the room went, and nothing was tested. */
	EXPECT_LE(1024, (p2 - p1) + (f2 - f0))
		TH_LOG("the period's plan had fewer than 1024 promotions left when DRAM lost its room");
	for (i = 0; i < n; i++)
		bad += !check(self->p, i, 1);
	EXPECT_EQ(0, bad);
}

/*
 * Four processes write and check generations of data in their quarter of a shared
 * region while a fifth flips the whole region between COLD and HOT, so the daemon
 * moves pages back and forth at its full budget: no write is lost, no read is stale.
 * The writers go on until the daemon has moved pages both ways (at least 8 s): one
 * period's moves take 0.5 s in single and 5 s in pool, where every store to the
 * interleaved CXL memory is emulated.
 */
TEST_F_TIMEOUT(mig, data_survives_migration, 240)
{
	const unsigned long pages = 8 * MB / PAGE, per = pages / 4;
	struct rstat before, after;
	volatile int *stop;
	pid_t flip, w[4];
	int k, status, bad = 0;
	double t0;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	stop = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stop);
	ASSERT_EQ(0, mig_region(self, pages * PAGE));
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &before));
	/* min_resid is 2 periods: each hint holds for 3. */
	flip = start_flipper(self->name, self->len, 3);
	ASSERT_LT(0, flip);
	for (k = 0; k < 4; k++) {
		w[k] = fork();
		ASSERT_LE(0, w[k]);
		if (!w[k]) {
			unsigned long first = k * per, i;
			uint64_t gen = 0;

			while (!*stop) {
				for (i = first; i < first + per; i++) {
					if (gen && !check(self->p, i, gen))
						_exit(1);
					fill(self->p, i, gen + 1);
				}
				gen++;
			}
			for (i = first; i < first + per; i++)
				if (!check(self->p, i, gen))
					_exit(1);
			_exit(0);
		}
	}
	t0 = now_s();
	do {
		sleep_ms(200);
		ASSERT_EQ(0, rg_stat(self->fd, NULL, &after));
	} while (now_s() - t0 < 120 &&
		 (now_s() - t0 < 8 || after.st.promoted == before.st.promoted ||
		  after.st.demoted == before.st.demoted));
	*stop = 1;
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(w[k], waitpid(w[k], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	stop_child(flip);
	munmap((void *)stop, PAGE);
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &after));
	ksft_print_msg("moves during %.1f s: %llu promoted, %llu demoted, %llu skipped pinned, %llu failed\n",
		       now_s() - t0,
		       (unsigned long long)(after.st.promoted - before.st.promoted),
		       (unsigned long long)(after.st.demoted - before.st.demoted),
		       (unsigned long long)after.st.skipped_pinned,
		       (unsigned long long)after.st.failed);
	EXPECT_EQ(0, bad) TH_LOG("%d writer(s) saw lost or stale data", bad);
	EXPECT_LT(0, after.st.promoted - before.st.promoted);
	EXPECT_LT(0, after.st.demoted - before.st.demoted);
}

static int uring_register(void *buf, size_t len)
{
	struct io_uring_params prm = { 0 };
	struct iovec iov = { buf, len };
	int ring = syscall(__NR_io_uring_setup, 4, &prm);

	if (ring < 0)
		return -errno;
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1)) {
		int rc = -errno;

		close(ring);
		return rc;
	}
	return ring;
}

/*
 * A page of a region on CXL (ZONE_MOVABLE) registered as an io_uring fixed buffer, a
 * FOLL_LONGTERM pin: the kernel moves it to DRAM first (the pin succeeds, it never
 * loops); while pinned the daemon skips it instead of copying it under the pinner;
 * released, it moves again.  Its data never changes.
 */
TEST_F_TIMEOUT(mig, longterm_pin, 200)
{
	struct where w;
	struct rstat st;
	double t0;
	int ring;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	/* No DRAM for regions: first touch lands on CXL. */
	ASSERT_EQ(0, write_u64(PARAM "fast_budget_mb", 0));
	ASSERT_EQ(0, mig_region(self, 4 * PAGE));
	fill(self->p, 0, 7);
	ASSERT_EQ(0, where(self->fd, 0, 1, &w));
	ASSERT_EQ(1, w.slow);

	t0 = now_s();
	ring = uring_register(self->p, PAGE);
	if (ring == -ENOSYS || ring == -EPERM)
		SKIP(return, "io_uring is not available (%s)", strerror(-ring));
	ASSERT_LE(0, ring) TH_LOG("IORING_REGISTER_BUFFERS: %s", strerror(-ring));
	ASSERT_EQ(0, where(self->fd, 0, 1, &w));
	ksft_print_msg("pinned in %.2f s; the page is now on a %s node\n", now_s() - t0,
		       w.fast ? "DRAM" : "CXL");
	EXPECT_EQ(1, w.fast) TH_LOG("a long-term pin moves a ZONE_MOVABLE page to DRAM");
	ASSERT_TRUE(check(self->p, 0, 7));

	/* Over the (zero) budget, the daemon wants it out, and may not move it. */
	t0 = now_s();
	do {
		sleep_ms(100);
		ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	} while (!st.st.skipped_pinned && now_s() - t0 < 30);
	EXPECT_LT(0, st.st.skipped_pinned);
	ASSERT_EQ(0, where(self->fd, 0, 1, &w));
	EXPECT_EQ(1, w.fast);
	ASSERT_TRUE(check(self->p, 0, 7));

	close(ring);
	t0 = now_s();
	do {
		sleep_ms(100);
		ASSERT_EQ(0, where(self->fd, 0, 1, &w));
	} while (!w.slow && now_s() - t0 < 60);
	ksft_print_msg("unpinned page back on CXL after %.1f s\n", now_s() - t0);
	EXPECT_EQ(1, w.slow);
	ASSERT_TRUE(check(self->p, 0, 7));
}

/*
 * Regions destroyed, and processes exiting, while their pages are being moved (the
 * daemon did move them: its counters say so): once everything is gone the module's
 * accounting is what it was.
 */
TEST_F_TIMEOUT(mig, teardown_during_migration, 200)
{
	char before[512], after[512];
	uint64_t moved = 0;
	struct rstat st;
	double t0;
	int round;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, accounting(before, sizeof(before)));
	ASSERT_EQ(0, write_u64(PARAM "fast_budget_mb", 2));
	for (round = 0; round < 3; round++) {
		pid_t flip, kid;
		unsigned long i;

		ASSERT_EQ(0, mig_region(self, 4 * MB));
		flip = start_flipper(self->name, self->len, 3);
		kid = fork();
		ASSERT_LE(0, kid);
		if (!kid) {
			for (;;)
				for (i = 0; i < self->len / PAGE; i++)
					self->p[i * PAGE]++;
		}
		sleep_ms(700);
		ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
		moved += st.st.promoted + st.st.demoted;
		/* Destroyed while mapped, written and moved; then its users go. */
		ASSERT_EQ(0, rg_destroy(self->dev, self->name));
		/* Its pages live on, and the accounting counts it, until they go. */
		EXPECT_LT(self->regions, acct_regions());
		sleep_ms(300);
		stop_child(kid);
		munmap(self->p, self->len);
		self->p = MAP_FAILED;
		close(self->fd);
		self->fd = -1;
		stop_child(flip);
	}
	ksft_print_msg("%llu pages moved in the regions before they were destroyed\n",
		       (unsigned long long)moved);
	EXPECT_LT(0, moved);
	t0 = now_s();
	do {
		sleep_ms(100);
		ASSERT_EQ(0, accounting(after, sizeof(after)));
	} while (strcmp(before, after) && now_s() - t0 < 20 * cxlt_timeout_scale());
	EXPECT_STREQ(before, after);
}

/*
 * Bad tunable values are refused with EINVAL and the old value stays ("\n": an empty
 * value; writing no bytes at all never reaches the kernel).
 */
TEST_F_TIMEOUT(mig, tunables, 30)
{
	static const struct {
		const char *name;
		const char *bad[4];
	} cases[] = {
		{ "enable", { "2", "-1", "yes", "\n" } },
		{ "period_ms", { "9", "60001", "0", "1.5" } },
		{ "budget_mbps", { "65537", "-5", "x", "99999999999" } },
		{ "sample_mb", { "0", "1048577", "abc", "\n" } },
		{ "decay_shift", { "0", "9", "\n", "-1" } },
		{ "idle_bits", { "31", "-1", "z", "\n" } },
		{ "burst_bits", { "31", "100", "\n", "q" } },
		{ "confidence", { "256", "-1", "\n", "1e3" } },
		{ "hyst_steps", { "256", "\n", "-3", "s" } },
		{ "min_resid", { "256", "\n", "-1", "0x" } },
		{ "idle_fdr", { "0", "256", "\n", "x" } },
		{ "burst_fdr", { "0", "256", "-1", "\n" } },
	};
	char path[256];
	unsigned int i, k;
	uint64_t old;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), DAEMON "%s", cases[i].name);
		old = read_u64(path);
		ASSERT_NE(UINT64_MAX, old) TH_LOG("%s unreadable", path);
		for (k = 0; k < 4; k++) {
			EXPECT_EQ(-EINVAL, cxlt_write(path, cases[i].bad[k]))
				TH_LOG("%s accepted \"%s\"", cases[i].name, cases[i].bad[k]);
			EXPECT_EQ(old, read_u64(path));
		}
	}
	/* The watermarks: low <= high <= fast_budget_mb. */
	ASSERT_EQ(0, write_u64(DAEMON "wmark_high_mb", 8));
	ASSERT_EQ(0, write_u64(DAEMON "wmark_low_mb", 4));
	EXPECT_EQ(-EINVAL, write_u64(DAEMON "wmark_low_mb", 9));
	EXPECT_EQ(-EINVAL, write_u64(DAEMON "wmark_high_mb", 3));
	EXPECT_EQ(-EINVAL, write_u64(DAEMON "wmark_high_mb",
				     read_u64(PARAM "fast_budget_mb") + 1));
	EXPECT_EQ(4, read_u64(DAEMON "wmark_low_mb"));
	EXPECT_EQ(8, read_u64(DAEMON "wmark_high_mb"));
}

/* Disabled, the daemon does nothing: no period ends; enabled again, it goes on. */
TEST_F_TIMEOUT(mig, enable, 60)
{
	uint64_t a, b;
	unsigned long i;

	ASSERT_EQ(0, mig_region(self, 1 * MB));
	for (i = 0; i < MB / PAGE; i++)
		self->p[i * PAGE] = 1;
	sleep_ms(500);
	ASSERT_EQ(0, write_u64(DAEMON "enable", 0));
	sleep_ms(300);	/* a period in flight ends */
	a = read_u64(DAEMON "stats/periods");
	sleep_ms(1000);
	b = read_u64(DAEMON "stats/periods");
	EXPECT_EQ(a, b) TH_LOG("periods went on while disabled");
	ASSERT_EQ(0, write_u64(DAEMON "enable", 1));
	sleep_ms(1000);
	EXPECT_LT(b, read_u64(DAEMON "stats/periods"));
}

static char added[MAX_TIERS][64];
static int nr_added;
static pid_t main_pid;

/*
 * Unload right after the last region went while its pages were being moved: the
 * daemon lets go of the region within a period, and then the module unloads (tiers
 * pin the module, so they go first), loads again and works.
 */
TEST_F_TIMEOUT(mig, unload_after_migration, 300)
{
	char params[1024], names[MAX_TIERS][64];
	int n = 0, rc, i;
	unsigned long k;
	double t0;
	pid_t flip;
	glob_t g;

	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, cxlt_module_params(params, sizeof(params)));
	ASSERT_EQ(0, mig_region(self, 2 * MB));
	for (k = 0; k < 2 * MB / PAGE; k++)
		self->p[k * PAGE] = 1;
	flip = start_flipper(self->name, self->len, 3);
	sleep_ms(1000);
	stop_child(flip);
	munmap(self->p, self->len);
	self->p = MAP_FAILED;
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, rg_destroy(self->dev, self->name));
	close(self->dev);
	self->dev = -1;

	ASSERT_EQ(0, glob(CXLT_SYSFS "/tiers/*", 0, NULL, &g));
	for (k = 0; k < g.gl_pathc && n < MAX_TIERS; k++) {
		snprintf(names[n], sizeof(names[n]), "%s", strrchr(g.gl_pathv[k], '/') + 1);
		rc = cxlt_write(CXLT_SYSFS "/tier_remove", names[n]);
		ASSERT_EQ(0, rc) TH_LOG("tier_remove %s: %s", names[n], strerror(-rc));
		n++;
	}
	globfree(&g);
	t0 = now_s();
	while ((rc = cxlt_rmmod()) && now_s() - t0 < 20)
		sleep_ms(50);
	ksft_print_msg("unloaded %.2f s after the region went\n", now_s() - t0);
	ASSERT_EQ(0, rc) TH_LOG("rmmod: %s", strerror(-rc));
	ASSERT_EQ(0, cxlt_insmod(params)) TH_LOG("insmod %s", params);
	ASSERT_EQ(0, access(DAEMON "stats/periods", F_OK));
	/* Back as before: the same tiers; teardown removes the ones this group added. */
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/tier_add", names[i]));
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
}

static void tiers_setup(void)
{
	nr_added = cxlt_add_ram_tiers(added, nr_added, GROUP_TIERS);
	nr_tiers = cxlt_tier_nodes(tier_nodes, MAX_TIERS);
}

/* At exit of the main process only (test processes are its forks). */
static void tiers_teardown(void)
{
	if (getpid() == main_pid)
		cxlt_remove_tiers(added, nr_added);
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	atexit(tiers_teardown);
	if (cxlt_module_loaded())
		tiers_setup();
	printf("# %d tier node(s) for this run\n", nr_tiers);
	fflush(stdout);
	return test_harness_run(argc, argv);
}
