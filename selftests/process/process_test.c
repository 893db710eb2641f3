// SPDX-License-Identifier: GPL-2.0
/*
 * Process mode: cxltier-procd tiers the anonymous memory of processes opted in with
 * `cxltierctl manage`.  A managed process with a skewed access pattern gets its hot
 * pages promoted to DRAM and its cold pages demoted to CXL; an unmanaged one is left
 * alone; one that exits mid-migration leaves nothing behind; mlocked and pinned pages
 * stay where they are; bad pids and cgroups are refused; `cxltierctl run` places a
 * job or refuses it.
 *
 * The service is started as its systemd unit starts it (/usr/sbin/cxltier-procd, no
 * options, state in /run/cxltier) and stopped after each test.  The workloads are
 * children of the test; their pages are checked one by one with move_pages(2)
 * queries.  Fast nodes are those that are not CXL tiers.
 *
 * The service chooses 4 KiB pages, and move_pages(2) moves a transparent huge page
 * whole (the guest's THP is "always"; a workload gets huge pages where its node has
 * free 2 MiB blocks): the tests that count what the service demotes page by page
 * give their workload small pages (MADV_NOHUGEPAGE), or 2 MiB would move for any
 * page chosen, hot ones with cold.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <numaif.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"

#define MB		(1UL << 20)
#define PAGE		4096UL
#define DAEMON		CXLT_SYSFS "/daemon/"
#define PROCD		"/usr/sbin/cxltier-procd"
#define STATE		"/run/cxltier"
#define DAMON_STAT	"/sys/module/damon_stat/parameters/enabled"
#define MAX_TIERS	8

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run a shell command; its exit status, its first output line in @out. */
static int sh(const char *cmd, char *out, size_t len)
{
	char line[512];
	FILE *f = popen(cmd, "r");
	int rc;

	if (!f)
		return -1;
	if (out && len)
		out[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (out && len && !out[0])
			snprintf(out, len, "%s", line);
	rc = pclose(f);
	if (out)
		out[strcspn(out, "\n")] = 0;
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/*
 * A workload: @mb MiB of anonymous memory (in small pages with @small) first touched
 * on @node, the first @hot_mb MiB read and written in a loop until killed.  Pages
 * [@lock_from, @lock_to) MiB are mlocked, and @pin pages at @pin_at MiB are spliced
 * into a pipe nobody reads (the pipe holds references to them: migration cannot move
 * them).
 */
struct work {
	pid_t pid;
	char *p;
	size_t len, hot;
};

struct work_args {
	int mb, hot_mb, node;
	bool small;
	int lock_from, lock_to;
	int pin, pin_at;
};

static int start_work(struct work *w, const struct work_args *a)
{
	int ready[2];
	char *p;

	w->len = (size_t)a->mb * MB;
	w->hot = (size_t)a->hot_mb * MB;
	if (pipe(ready))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		unsigned long mask = 1UL << a->node;
		volatile char *v;
		int pp[2];
		size_t i;

		close(ready[0]);
		p = mmap(NULL, w->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		/* Small pages (see the top): fails only where the kernel has no THP. */
		if (a->small)
			madvise(p, w->len, MADV_NOHUGEPAGE);
		if (mbind(p, w->len, MPOL_BIND, &mask, 64, 0))
			_exit(1);
		memset(p, 1, w->len);
		/* Placed: from now on it may move anywhere. */
		if (mbind(p, w->len, MPOL_DEFAULT, NULL, 0, 0))
			_exit(1);
		if (a->lock_to > a->lock_from &&
		    mlock(p + a->lock_from * MB, (size_t)(a->lock_to - a->lock_from) * MB))
			_exit(1);
		if (a->pin) {
			struct iovec iov = { p + a->pin_at * MB, (size_t)a->pin * PAGE };

			if (pipe(pp) || fcntl(pp[1], F_SETPIPE_SZ, 1 << 20) < 0 ||
			    vmsplice(pp[1], &iov, 1, 0) != (ssize_t)iov.iov_len)
				_exit(1);
		}
		if (write(ready[1], &p, sizeof(p)) != sizeof(p))
			_exit(1);
		v = p;
		for (;;)
			for (i = 0; i < w->hot; i += PAGE)
				v[i]++;
	}
	close(ready[1]);
	if (read(ready[0], &w->p, sizeof(w->p)) != sizeof(w->p)) {
		close(ready[0]);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
		return -1;
	}
	close(ready[0]);
	return 0;
}

static void stop_work(struct work *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	w->pid = 0;
}

/* Where pages of @w are: counts on fast and slow nodes. */
struct where {
	int fast, slow, other;
};

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

/* The @n pages of @w from byte @off on. */
static struct where where_pages(const struct work *w, size_t off, size_t n)
{
	struct where r = { 0 };
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	size_t i;

	for (i = 0; i < n; i++)
		pages[i] = w->p + off + i * PAGE;
	if (move_pages(w->pid, n, pages, NULL, status, 0)) {
		r.other = n;
	} else {
		for (i = 0; i < n; i++) {
			if (status[i] < 0)
				r.other++;
			else if (is_tier_node(status[i]))
				r.slow++;
			else
				r.fast++;
		}
	}
	free(pages);
	free(status);
	return r;
}

/* The pages [from, to) MiB of @w. */
static struct where where(const struct work *w, size_t from_mb, size_t to_mb)
{
	return where_pages(w, from_mb * MB, (to_mb - from_mb) * MB / PAGE);
}

static int manage(pid_t pid, const char *extra)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cxltierctl manage --pid %d %s 2>&1", pid, extra ? extra : "");
	return sh(cmd, NULL, 0);
}

static bool opted_in(pid_t pid)
{
	char path[128];

	snprintf(path, sizeof(path), STATE "/managed/pid-%d", pid);
	return !access(path, F_OK);
}

FIXTURE(proc) {
	pid_t procd;
	char added[MAX_TIERS][64];
	int nr_added;
	int fast_node, slow_node;
	uint64_t budget;
	struct work w[2];
};

FIXTURE_SETUP(proc)
{
	char v[32];
	int i;

	memset(self->w, 0, sizeof(self->w));
	self->procd = 0;
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (access(PROCD, X_OK))
		SKIP(return, PROCD " is not installed");
	if (access("/sys/kernel/mm/damon/admin/kdamonds", F_OK))
		SKIP(return, "the kernel has no DAMON sysfs interface");
	self->nr_added = cxlt_add_ram_tiers(self->added, 0, MAX_TIERS);
	nr_tiers = cxlt_tier_nodes(tier_nodes, MAX_TIERS);
	if (nr_tiers < 1)
		SKIP(return, "no CXL RAM tier");
	self->slow_node = tier_nodes[0];
	ASSERT_EQ(0, cxlt_read("/sys/devices/system/node/has_cpu", v, sizeof(v)));
	self->fast_node = atoi(v);
	ASSERT_FALSE(is_tier_node(self->fast_node));
	self->budget = cxlt_read_u64(DAEMON "%s%s", "budget_mbps", "");
	/*
	 * DAMON_STAT (on by default in Debian's 7.3) holds DAMON for itself; an admin
	 * turns it off for the service (cxltier-procd(8)), and so does the test.
	 */
	if (!access(DAMON_STAT, F_OK)) {
		ASSERT_EQ(0, cxlt_read(DAMON_STAT, v, sizeof(v)));
		if (v[0] == 'Y')
			ASSERT_EQ(0, cxlt_write(DAMON_STAT, "N"));
	}

	/* The service, as its unit starts it. */
	ASSERT_EQ(0, sh("rm -rf " STATE, NULL, 0));
	self->procd = fork();
	ASSERT_LE(0, self->procd);
	if (!self->procd) {
		execl(PROCD, PROCD, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200 && sh("cxltierctl managed 2>&1 | grep -q 'not running'", NULL, 0) == 0; i++)
		usleep(50000);
	ASSERT_LT(i, 200) TH_LOG("cxltier-procd did not start");
}

FIXTURE_TEARDOWN(proc)
{
	char v[32];
	int i;

	for (i = 0; i < 2; i++)
		stop_work(&self->w[i]);
	if (self->procd > 0) {
		kill(self->procd, SIGTERM);
		waitpid(self->procd, NULL, 0);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)self->budget);
	if (self->budget)
		cxlt_write(DAEMON "budget_mbps", v);
	cxlt_remove_tiers(self->added, self->nr_added);
}

/* Wait up to @secs for @cond, polling every 0.5 s; true if it held. */
#define WAIT_FOR(secs, cond) ({					\
	double __end = now_s() + (secs);			\
	bool __ok;						\
	while (!(__ok = (cond)) && now_s() < __end)		\
		usleep(500000);					\
	__ok;							\
})

/*
 * A managed process on CXL gets its hot 2 MiB promoted, most of its cold 14 MiB stays;
 * the same workload unmanaged is left where it is.
 */
TEST_F_TIMEOUT(proc, hot_pages_promoted, 600)
{
	struct work_args a = { .mb = 16, .hot_mb = 2, .node = self->slow_node };
	struct where hot, cold, other;
	double t0;

	ASSERT_EQ(0, start_work(&self->w[0], &a));
	ASSERT_EQ(0, start_work(&self->w[1], &a));
	ASSERT_EQ(0, manage(self->w[0].pid, NULL));
	t0 = now_s();
	/* Measured: the hot pages are on DRAM 3-5 s after the opt-in. */
	EXPECT_TRUE(WAIT_FOR(120, where(&self->w[0], 0, 2).fast >= 512 * 9 / 10));
	hot = where(&self->w[0], 0, 2);
	cold = where(&self->w[0], 2, 16);
	other = where(&self->w[1], 0, 16);
	ksft_print_msg("hot pages on DRAM after %.1f s: %d of 512; cold: %d of 3584 on DRAM; unmanaged: %d of 4096 on DRAM\n",
		       now_s() - t0, hot.fast, cold.fast, other.fast);
	EXPECT_GE(hot.fast, 512 * 9 / 10);
	/* DAMON's regions are coarser than pages: some neighbours of the hot range go too. */
	EXPECT_LE(cold.fast, 3584 / 4);
	EXPECT_EQ(0, other.fast);
	EXPECT_EQ(4096, other.slow);
}

/*
 * What the service moved is in the daemon's counters (and the process_* ones), and
 * CXLTIER_IOC_PROCESS refuses reports that cannot be.
 */
TEST_F_TIMEOUT(proc, moves_counted_by_the_module, 600)
{
	struct work_args a = { .mb = 8, .hot_mb = 1, .node = self->slow_node };
	struct cxltier_process r = { .size = sizeof(r), .processes = 1, .period_ns = 1000000000 };
	uint64_t promoted0 = cxlt_read_u64(DAEMON "stats/%s%s", "promoted_pages", "");
	uint64_t proc0 = cxlt_read_u64(DAEMON "stats/%s%s", "process_promoted_pages", "");
	uint64_t promoted, proc;
	int dev, hot;

	ASSERT_EQ(0, start_work(&self->w[0], &a));
	ASSERT_EQ(0, manage(self->w[0].pid, NULL));
	EXPECT_TRUE(WAIT_FOR(120, where(&self->w[0], 0, 1).fast >= 256 * 9 / 10));
	hot = where(&self->w[0], 0, 1).fast;
	/* The report of the period that moved them comes right after the moves. */
	EXPECT_TRUE(WAIT_FOR(10, cxlt_read_u64(DAEMON "stats/%s%s", "process_promoted_pages", "") -
				 proc0 >= (uint64_t)hot));
	promoted = cxlt_read_u64(DAEMON "stats/%s%s", "promoted_pages", "") - promoted0;
	proc = cxlt_read_u64(DAEMON "stats/%s%s", "process_promoted_pages", "") - proc0;
	ksft_print_msg("%d hot pages on DRAM; process_promoted_pages +%llu, promoted_pages +%llu\n",
		       hot, (unsigned long long)proc, (unsigned long long)promoted);
	EXPECT_GE(promoted, proc);
	EXPECT_EQ(1, cxlt_read_u64(DAEMON "stats/%s%s", "process_processes", ""));

	dev = open("/dev/cxltier", O_RDWR);
	ASSERT_LE(0, dev);
	r.period_ns = 0;
	EXPECT_EQ(-1, ioctl(dev, CXLTIER_IOC_PROCESS, &r));
	EXPECT_EQ(EINVAL, errno);
	r.period_ns = 1000000000;
	r.managed_pages = 10;
	r.fast_pages = 11;
	EXPECT_EQ(-1, ioctl(dev, CXLTIER_IOC_PROCESS, &r));
	EXPECT_EQ(EINVAL, errno);
	r.fast_pages = 0;
	r.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(dev, CXLTIER_IOC_PROCESS, &r));
	EXPECT_EQ(EINVAL, errno);
	r.reserved[1] = 0;
	r.budget = 5;
	EXPECT_EQ(-1, ioctl(dev, CXLTIER_IOC_PROCESS, &r));
	EXPECT_EQ(EINVAL, errno);
	/* A good one: the budget is at most budget_mbps for the period. */
	r.budget = 0;
	EXPECT_EQ(0, ioctl(dev, CXLTIER_IOC_PROCESS, &r));
	EXPECT_LE(r.budget, self->budget * 256);
	close(dev);
}

/*
 * A managed process on DRAM limited to 6 MiB of it (manage --fast): its cold pages
 * go to CXL until it fits, and its hot 2 MiB end up on DRAM.  What is promised is
 * where it settles, not that no hot page ever leaves: the first periods must demote
 * 10 MiB before DAMON has split its first regions, which average hot pages with cold
 * ones, so some hot pages can go down with them (132 of 512 in one run of 16).  They
 * are then hotter than fast pages and come back, in exchange for cold ones.
 */
static bool settled(const struct work *w, struct where *hot, struct where *all)
{
	*hot = where(w, 0, 2);
	*all = where(w, 0, 16);
	return all->fast <= 6 * 256 && hot->fast >= 512 * 9 / 10;
}

TEST_F_TIMEOUT(proc, cold_pages_demoted, 600)
{
	struct work_args a = { .mb = 16, .hot_mb = 2, .node = self->fast_node, .small = true };
	struct where hot, all;
	double t0;

	ASSERT_EQ(0, start_work(&self->w[0], &a));
	ASSERT_EQ(0, manage(self->w[0].pid, "--fast 6M"));
	t0 = now_s();
	EXPECT_TRUE(WAIT_FOR(120, where(&self->w[0], 0, 16).fast <= 6 * 256));
	all = where(&self->w[0], 0, 16);
	hot = where(&self->w[0], 0, 2);
	ksft_print_msg("within --fast after %.1f s: %d of 4096 pages on DRAM, hot: %d of 512\n",
		       now_s() - t0, all.fast, hot.fast);
	EXPECT_TRUE(WAIT_FOR(60, settled(&self->w[0], &hot, &all)));
	ksft_print_msg("settled after %.1f s: %d of 4096 pages on DRAM, hot: %d of 512\n",
		       now_s() - t0, all.fast, hot.fast);
	/* A few more periods: it stays settled. */
	sleep(3);
	settled(&self->w[0], &hot, &all);
	ksft_print_msg("3 s later: %d of 4096 pages on DRAM, hot: %d of 512\n", all.fast, hot.fast);
	EXPECT_LE(all.fast, 6 * 256);
	EXPECT_GE(hot.fast, 512 * 9 / 10);
}

/*
 * mlocked pages and pages a pipe holds stay on DRAM while the rest is brought down to
 * the process's --fast, coldest first.  --fast limits the memory the service counts
 * and may move: mlocked memory is not in it (it is the status's "skipped"), pinned
 * pages are (they fail to move).  So of the 16 MiB the 12 MiB outside the locked 4 MiB
 * must get down to 7 MiB on DRAM (less the process's few other anonymous pages): 1280
 * of its 3072 pages or more go to CXL.  Which cold pages go is not promised, only that
 * the hot ones go last.
 */
TEST_F_TIMEOUT(proc, locked_and_pinned_stay, 600)
{
	struct work_args a = { .mb = 16, .hot_mb = 2, .node = self->fast_node, .small = true,
			       .lock_from = 8, .lock_to = 12, .pin = 16, .pin_at = 14 };
	struct where hot, low, high, locked, pinned;
	char out[256];
	double t0;

	ASSERT_EQ(0, start_work(&self->w[0], &a));
	ASSERT_EQ(0, manage(self->w[0].pid, "--fast 7M"));
	t0 = now_s();
	/* Measured: within the limit 7.6-12.8 s after the opt-in (two periods of moves). */
	EXPECT_TRUE(WAIT_FOR(150, where(&self->w[0], 0, 8).fast + where(&self->w[0], 12, 16).fast <=
				  7 * 256));
	ksft_print_msg("within --fast after %.1f s\n", now_s() - t0);
	/* A few more periods: nothing locked or pinned moves, nothing comes back past it. */
	sleep(3);
	hot = where(&self->w[0], 0, 2);
	low = where(&self->w[0], 0, 8);
	high = where(&self->w[0], 12, 16);
	locked = where(&self->w[0], 8, 12);
	pinned = where_pages(&self->w[0], a.pin_at * MB, a.pin);
	ksft_print_msg("unlocked on DRAM: %d of 3072 (0-8 MiB %d, 12-16 MiB %d; limit 1792), hot: %d of 512; locked on DRAM: %d of 1024; pinned: %d of 16\n",
		       low.fast + high.fast, low.fast, high.fast, hot.fast, locked.fast, pinned.fast);
	EXPECT_LE(low.fast + high.fast, 7 * 256);
	EXPECT_GE(hot.fast, 512 * 9 / 10);
	EXPECT_EQ(1024, locked.fast);
	EXPECT_EQ(16, pinned.fast);
	EXPECT_EQ(0, sh("cxltierctl managed --json | grep -q '\"skipped\": *1024'", out, sizeof(out)));
}

/* A managed process that exits while its pages move leaves nothing behind. */
TEST_F_TIMEOUT(proc, exit_mid_migration, 600)
{
	struct work_args a = { .mb = 16, .hot_mb = 12, .node = self->slow_node };
	char out[256];

	/* 1 MB/s: the 12 MiB take a dozen periods. */
	ASSERT_EQ(0, cxlt_write(DAEMON "budget_mbps", "1"));
	ASSERT_EQ(0, start_work(&self->w[0], &a));
	ASSERT_EQ(0, manage(self->w[0].pid, NULL));
	EXPECT_TRUE(WAIT_FOR(120, where(&self->w[0], 0, 12).fast > 0));
	EXPECT_LT(where(&self->w[0], 0, 12).fast, 12 * 256);
	stop_work(&self->w[0]);
	/* Its opt-in goes within a few periods; the service runs on, with nothing. */
	EXPECT_TRUE(WAIT_FOR(30, !opted_in(self->w[0].pid)));
	EXPECT_EQ(0, kill(self->procd, 0));
	EXPECT_TRUE(WAIT_FOR(30, sh("cxltierctl managed --json", out, sizeof(out)) == 0 &&
			     sh("cxltierctl managed --json | grep -q '\"targets\": *\\[\\]'", NULL, 0) == 0));
	EXPECT_TRUE(WAIT_FOR(30, sh("grep -qx off /sys/kernel/mm/damon/admin/kdamonds/0/state", NULL, 0) == 0));
}

/* Bad pids and cgroups are refused with a message; nothing is opted in. */
TEST_F_TIMEOUT(proc, bad_input_refused, 120)
{
	static const char *const bad[] = {
		"manage --pid 0", "manage --pid -1", "manage --pid abc", "manage --pid 4194304",
		"manage --pid 2", "manage --cgroup /no/such/cgroup", "manage --cgroup /proc",
		"manage", "unmanage --pid 999999",
	};
	char cmd[128], out[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(cmd, sizeof(cmd), "cxltierctl %s 2>&1", bad[i]);
		EXPECT_NE(0, sh(cmd, out, sizeof(out))) TH_LOG("%s was accepted", bad[i]);
		EXPECT_NE(0, out[0]) TH_LOG("%s: no message", bad[i]);
		ksft_print_msg("cxltierctl %s: %s\n", bad[i], out);
	}
	EXPECT_NE(0, sh("ls " STATE "/managed | grep -q .", NULL, 0));
}

/* cxltierctl run: placed as asked, refused when it cannot fit, --manage opts it in. */
TEST_F_TIMEOUT(proc, run_places_and_refuses, 300)
{
	char out[256];

	EXPECT_EQ(0, sh("cxltierctl run --fast 4M -- true 2>&1", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(0, sh("cxltierctl run --fast 1T -- true 2>&1", out, sizeof(out)));
	ksft_print_msg("run --fast 1T: %s\n", out);
	/* The job sees its own opt-in while it runs; it is gone after. */
	EXPECT_EQ(0, sh("cxltierctl run --manage --fast 4M -- sh -c 'test -e " STATE "/managed/pid-$$' 2>&1",
			out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(0, sh("ls " STATE "/managed | grep -q .", NULL, 0));
}

TEST_HARNESS_MAIN
