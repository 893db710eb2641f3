// SPDX-License-Identifier: GPL-2.0
/*
 * Access control and accounting of global regions on a shared host: who may open
 * /dev/cxltier, what a user's regions may cost (per-user memory limit in the manner
 * of RLIMIT_MEMLOCK, per-user region count, per-user share of the DRAM budget),
 * that region pages are charged to the creator's memory cgroup, and that STAT of
 * someone else's region needs read permission.
 *
 * Theory of operation: the guest image has a "cxltier" group and applies the
 * shipped udev rule with mdev (/dev/cxltier root:cxltier 0660).  Each test forks
 * children that drop to user nobody, with or without that group, after the root
 * parent set their RLIMIT_MEMLOCK or the module's parameters; the children report
 * through their exit status.  Module parameters are put back by the fixture's
 * teardown.  No CXL tier is registered: regions here live in DRAM, so the tests are
 * quick, and a page with nowhere to go is a SIGBUS the children count.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"

#define MB		(1UL << 20)
#define PAGE		4096UL
#define PARAM		"/sys/module/cxltier/parameters/"
#define ACCOUNTING	"/sys/kernel/debug/cxltier/accounting"
#define USERS		"/sys/kernel/debug/cxltier/users"
#define CGROOT		"/sys/fs/cgroup"
#define CG		CGROOT "/cxlt-access"
/* Measured here: the whole group takes ~2 s on the normal kernel. */
#define TIMEOUT		60

static int set_param(const char *name, unsigned long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PARAM "%s", name);
	snprintf(buf, sizeof(buf), "%lu", val);
	return cxlt_write(path, buf);
}

static unsigned long get_param(const char *name)
{
	return cxlt_read_u64(PARAM "%s%s", name, "");
}

static int set_memlock(unsigned long bytes)
{
	struct rlimit rl = { bytes, bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

/* A debugfs counter line "name value" of the accounting file; 0 when absent. */
static long accounting(const char *name)
{
	return cxlt_key_value(ACCOUNTING, name, 0);
}

/* Lines of the per-user charges file, without its header: users with regions. */
static int charged_users(void)
{
	char line[128];
	int n = 0;
	FILE *f = fopen(USERS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#';
	fclose(f);
	return n;
}

/*
 * A region's memory, and its charges, go when its last holder lets go: the migration
 * daemon may hold it a moment after the last munmap (longer on the debug kernel).
 * Poll a counter until it reads @want, for up to 5 s.
 */
static long settles(long (*get)(const char *), const char *name, long want)
{
	long v = get(name);
	int t;

	for (t = 0; t < 250 && v != want; t++) {
		usleep(20000);
		v = get(name);
	}
	return v;
}

static long users_of(const char *unused)
{
	return charged_users();
}

/* Touch @len bytes page by page; return how many pages were touched before SIGBUS. */
static sigjmp_buf bus_jmp;
static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

static unsigned long touch_until_sigbus(char *p, size_t len)
{
	volatile unsigned long i = 0;
	struct sigaction sa = { .sa_handler = on_sigbus };

	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(bus_jmp, 1))
		return i;
	for (; i < len / PAGE; i++)
		p[i * PAGE] = 1;
	return i;
}

FIXTURE(access) {
	int dev;
	unsigned long user_limit_mb, user_max_regions, fast_budget_mb, fast_user_pct;
	char name[CXLTIER_NAME_MAX];
};

FIXTURE_SETUP(access)
{
	self->dev = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	if (!getgrnam(CXLT_GROUP))
		SKIP(return, "no group " CXLT_GROUP " in this system");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	self->user_limit_mb = get_param("user_limit_mb");
	self->user_max_regions = get_param("user_max_regions");
	self->fast_budget_mb = get_param("fast_budget_mb");
	self->fast_user_pct = get_param("fast_user_pct");
	snprintf(self->name, sizeof(self->name), "access.%d", getpid());
}

FIXTURE_TEARDOWN(access)
{
	char name[CXLTIER_NAME_MAX];
	int i;

	if (self->dev < 0)
		return;
	set_param("user_limit_mb", self->user_limit_mb);
	set_param("user_max_regions", self->user_max_regions);
	set_param("fast_budget_mb", self->fast_budget_mb);
	set_param("fast_user_pct", self->fast_user_pct);
	/* Whatever a test left: as root, which may destroy any region. */
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "%s.%d", self->name, i);
		rg_destroy(self->dev, name);
	}
	rg_destroy(self->dev, self->name);
	close(self->dev);
}

static int child_open_without_group(void *arg)
{
	if (cxlt_drop_to_user(0))
		return 1;
	if (dev_open() >= 0)
		return 2;
	return errno == EACCES ? 0 : 3;
}

static int child_open_in_group(void *arg)
{
	const char *name = arg;
	int dev;

	if (cxlt_drop_to_user(1))
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	if (rg_create(dev, name, MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL))
		return 3;
	return rg_destroy(dev, name) ? 4 : 0;
}

/* /dev/cxltier is root:cxltier 0660: a user outside the group cannot open it; a
 * member can, and can create and destroy a region of its own. */
TEST_F_TIMEOUT(access, device_for_group_only, TIMEOUT)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV, &st));
	EXPECT_EQ(0660, st.st_mode & 0777);
	EXPECT_EQ(getgrnam(CXLT_GROUP)->gr_gid, st.st_gid);
	EXPECT_EQ(0, cxlt_in_child(child_open_without_group, NULL));
	EXPECT_EQ(0, cxlt_in_child(child_open_in_group, self->name));
}

struct limit_args {
	const char *name;
	unsigned long memlock;
};

/*
 * As a group member with RLIMIT_MEMLOCK of 4 MiB: 4 MiB of regions fit, one page
 * more does not (EDQUOT), neither does a single 8 MiB region; a destroyed region
 * that is still mapped still counts, and once unmapped its room is back.
 */
static int child_memlock(void *arg)
{
	const struct limit_args *a = arg;
	char n0[CXLTIER_NAME_MAX], n1[CXLTIER_NAME_MAX];
	int dev, fd, rc, k;
	void *p;

	snprintf(n0, sizeof(n0), "%s.0", a->name);
	snprintf(n1, sizeof(n1), "%s.1", a->name);
	if (set_memlock(a->memlock) || cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	if (rg_create(dev, n0, 8 * MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL) != -EDQUOT)
		return 3;
	if (rg_create(dev, n0, 3 * MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL))
		return 4;
	if (rg_create(dev, n1, MB + PAGE, CXLTIER_POLICY_FAST_FIRST, -1, NULL) != -EDQUOT)
		return 5;
	if (rg_create(dev, n1, MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL))
		return 6;
	/* Full.  Map n1, destroy it: its memory is still there and still counts. */
	fd = rg_open(dev, n1, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (fd < 0)
		return 7;
	p = mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 8;
	memset(p, 1, MB);
	if (rg_destroy(dev, n1))
		return 9;
	if (rg_create(dev, n1, PAGE, CXLTIER_POLICY_FAST_FIRST, -1, NULL) != -EDQUOT)
		return 10;
	munmap(p, MB);
	close(fd);
	/* The daemon may hold n1's memory a moment longer (see settles()). */
	for (k = 0; (rc = rg_create(dev, n1, MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL)) == -EDQUOT &&
	     k < 250; k++)
		usleep(20000);
	if (rc)
		return 11;
	if (rg_destroy(dev, n0) || rg_destroy(dev, n1))
		return 12;
	return 0;
}

/* The per-user memory limit follows the creator's RLIMIT_MEMLOCK. */
TEST_F_TIMEOUT(access, memlock_limit, TIMEOUT)
{
	struct limit_args a = { self->name, 4 * MB };

	ASSERT_EQ(0, set_param("user_limit_mb", 0));
	EXPECT_EQ(0, cxlt_in_child(child_memlock, &a));
	EXPECT_EQ(0, settles(users_of, "", 0));
}

/* user_limit_mb, when set, replaces RLIMIT_MEMLOCK for every user. */
TEST_F_TIMEOUT(access, user_limit_mb_replaces_rlimit, TIMEOUT)
{
	struct limit_args a = { self->name, 1UL << 40 };

	ASSERT_EQ(0, set_param("user_limit_mb", 4));
	EXPECT_EQ(0, cxlt_in_child(child_memlock, &a));
}

/* CAP_IPC_LOCK is exempt from the memory limit, as for mlock(). */
TEST_F_TIMEOUT(access, cap_ipc_lock_exempt, TIMEOUT)
{
	ASSERT_EQ(0, set_param("user_limit_mb", 1));
	EXPECT_EQ(0, rg_create(self->dev, self->name, 64 * MB, CXLTIER_POLICY_FAST_FIRST, -1,
			       NULL));
	EXPECT_EQ(0, rg_destroy(self->dev, self->name));
}

static int child_region_cap(void *arg)
{
	const char *base = arg;
	char name[CXLTIER_NAME_MAX];
	int dev, i;

	if (set_memlock(64 * MB) || cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s.%d", base, i);
		if (rg_create(dev, name, PAGE, CXLTIER_POLICY_FAST_FIRST, -1, NULL))
			return 3;
	}
	snprintf(name, sizeof(name), "%s.%d", base, 3);
	if (rg_create(dev, name, PAGE, CXLTIER_POLICY_FAST_FIRST, -1, NULL) != -EDQUOT)
		return 4;
	/* Leave the three: the parent checks root is not limited by them. */
	return 0;
}

/* A user may have user_max_regions regions; root (CAP_SYS_RESOURCE) may have more,
 * and another user is not affected by the first one's count. */
TEST_F_TIMEOUT(access, region_cap, TIMEOUT)
{
	char name[CXLTIER_NAME_MAX];
	int i;

	ASSERT_EQ(0, set_param("user_max_regions", 3));
	EXPECT_EQ(0, cxlt_in_child(child_region_cap, self->name));
	for (i = 4; i < 8; i++) {
		snprintf(name, sizeof(name), "%s.%d", self->name, i);
		EXPECT_EQ(0, rg_create(self->dev, name, PAGE, CXLTIER_POLICY_FAST_FIRST, -1,
				       NULL));
	}
	EXPECT_EQ(2, charged_users());
}

static int child_stat(void *arg)
{
	const char *base = arg;
	char n600[CXLTIER_NAME_MAX], n644[CXLTIER_NAME_MAX];
	struct rstat s;
	int dev;

	snprintf(n600, sizeof(n600), "%s.0", base);
	snprintf(n644, sizeof(n644), "%s.1", base);
	if (cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	if (rg_stat(dev, n600, &s) != -EACCES)
		return 3;
	if (rg_stat(dev, n644, &s) || s.st.mode != 0644)
		return 4;
	if (rg_stat(dev, "no.such.region", &s) != -ENOENT)
		return 5;
	return 0;
}

/* STAT of another user's region needs read permission on it. */
TEST_F_TIMEOUT(access, stat_needs_read_permission, TIMEOUT)
{
	char n600[CXLTIER_NAME_MAX], n644[CXLTIER_NAME_MAX];

	snprintf(n600, sizeof(n600), "%s.0", self->name);
	snprintf(n644, sizeof(n644), "%s.1", self->name);
	ASSERT_EQ(0, rg_create(self->dev, n600, MB, CXLTIER_POLICY_FAST_FIRST, 0600, NULL));
	ASSERT_EQ(0, rg_create(self->dev, n644, MB, CXLTIER_POLICY_FAST_FIRST, 0644, NULL));
	EXPECT_EQ(0, cxlt_in_child(child_stat, self->name));
}

static int child_fast_share(void *arg)
{
	const char *name = arg;
	unsigned long touched;
	int dev, fd;
	char *p;

	if (set_memlock(64 * MB) || cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	if (rg_create(dev, name, 6 * MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL))
		return 3;
	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	p = mmap(NULL, 6 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || p == MAP_FAILED)
		return 4;
	/* 50% of 8 MiB: 4 MiB of DRAM, then nowhere to go (no tier): SIGBUS. */
	touched = touch_until_sigbus(p, 6 * MB);
	munmap(p, 6 * MB);
	close(fd);
	if (rg_destroy(dev, name))
		return 5;
	return touched == 4 * MB / PAGE ? 0 : 10;
}

/* One user gets at most fast_user_pct of the DRAM budget; root is not limited. */
TEST_F_TIMEOUT(access, fast_budget_share, TIMEOUT)
{
	unsigned long touched;
	int fd;
	char *p;

	ASSERT_EQ(0, set_param("fast_budget_mb", 8));
	ASSERT_EQ(0, set_param("fast_user_pct", 50));
	EXPECT_EQ(0, cxlt_in_child(child_fast_share, self->name));
	EXPECT_EQ(0, settles(accounting, "fast_pages", 0));

	/* Root may use the whole budget. */
	ASSERT_EQ(0, rg_create(self->dev, self->name, 8 * MB, CXLTIER_POLICY_FAST_FIRST, -1,
			       NULL));
	fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 8 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	touched = touch_until_sigbus(p, 8 * MB);
	EXPECT_EQ(8 * MB / PAGE, touched);
	munmap(p, 8 * MB);
	close(fd);
	EXPECT_EQ(0, rg_destroy(self->dev, self->name));
	EXPECT_EQ(0, settles(accounting, "fast_pages", 0));
}

/* The bytes a cgroup is charged, from memory.current. */
static long cg_current(void)
{
	return (long)cxlt_read_u64(CG "/%s%s", "memory.current", "");
}

static int child_memcg_create(void *arg)
{
	const char *name = arg;
	char pid[16];
	int dev;

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cxlt_write(CG "/cgroup.procs", pid))
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	return rg_create(dev, name, 12 * MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL) ? 3 : 0;
}

/*
 * A region's pages are charged to its creator's memory cgroup, whoever touches
 * them, and uncharged when the region is freed; the cgroup's memory.max holds.
 */
TEST_F_TIMEOUT(access, memcg_charges_creator, TIMEOUT)
{
	long before, touched_4, after;
	unsigned long n;
	char max[32];
	int fd;
	char *p;

	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
		SKIP(return, "cannot mount cgroup2 at " CGROOT);
	cxlt_write(CGROOT "/cgroup.subtree_control", "+memory");
	rmdir(CG);
	ASSERT_EQ(0, mkdir(CG, 0755));
	if (access(CG "/memory.current", F_OK)) {
		rmdir(CG);
		SKIP(return, "no memory controller");
	}
	/* The creator moves into the cgroup and exits: the region stays charged there. */
	ASSERT_EQ(0, cxlt_in_child(child_memcg_create, self->name));
	before = cg_current();
	fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 12 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, 4 * MB);
	touched_4 = cg_current();
	TH_LOG("memory.current: %ld before, %ld after touching 4 MiB", before, touched_4);
	/*
	 * memory.current counts what each CPU's charge stock holds ahead (memcg charges
	 * in batches of 64 pages, MEMCG_CHARGE_BATCH): pages charged from a stock the
	 * creator filled do not raise it.  Seen on the debug kernel: 960 of 1024 pages.
	 */
	EXPECT_LE(before + (long)(4 * MB) - sysconf(_SC_NPROCESSORS_ONLN) * 64 * PAGE, touched_4);

	/* Room for 1 MiB more: the rest of the region cannot be allocated. */
	snprintf(max, sizeof(max), "%ld", touched_4 + (long)MB);
	ASSERT_EQ(0, cxlt_write(CG "/memory.max", max));
	n = touch_until_sigbus(p + 4 * MB, 4 * MB);
	TH_LOG("%lu of 1024 more pages fit under memory.max", n);
	EXPECT_GT(1024UL, n);
	EXPECT_LE(128UL, n);
	/*
	 * At the limit, a page whose page-table chunk (4 MiB of region: 8 to 12 MiB)
	 * does not exist yet needs that chunk first (the cgroup may have freed a page
	 * or two since: then it fits, else SIGBUS); neither it nor the pages before
	 * invoked the cgroup's OOM killer (memory.events "oom" counts every invocation,
	 * whether or not it finds a task to kill).
	 */
	touch_until_sigbus(p + 8 * MB, 4 * MB);
	EXPECT_EQ(0, cxlt_key_value(CG "/memory.events", "oom", -1));

	munmap(p, 12 * MB);
	close(fd);
	ASSERT_EQ(0, rg_destroy(self->dev, self->name));
	/* Uncharged when the pages are freed: the daemon may hold them a moment (settles()). */
	after = cg_current();
	for (n = 0; n < 500 && after >= before + (long)MB; n++) {
		usleep(20000);
		after = cg_current();
	}
	TH_LOG("memory.current %ld after destroy (%lu ms)", after, n * 20);
	EXPECT_GT(before + (long)MB, after);
	EXPECT_EQ(0, rmdir(CG));
}

/* MemAvailable of /proc/meminfo, KiB. */
static long mem_available_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Creating a region costs no memory until it is touched: 64 regions of 1 TiB (the
 * old page-table directory took 8 MiB each at create) leave MemAvailable alone. */
TEST_F_TIMEOUT(access, untouched_regions_cost_nothing, TIMEOUT)
{
	char name[CXLTIER_NAME_MAX];
	long before, after;
	int i, created = 0;

	before = mem_available_kb();
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "%s.tb%d", self->name, i);
		created += !rg_create(self->dev, name, 1ULL << 40, CXLTIER_POLICY_FAST_FIRST, -1,
				      NULL);
	}
	after = mem_available_kb();
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "%s.tb%d", self->name, i);
		rg_destroy(self->dev, name);
	}
	TH_LOG("64 x 1 TiB regions: MemAvailable %ld KiB before, %ld KiB after", before, after);
	EXPECT_EQ(64, created);
	/* A few KiB per region for the object and its inode; 8 MiB each would be 512 MiB. */
	EXPECT_GT(8 * 1024L, before - after);
}

/* A region of root's that nobody may open (bad_requests_are_quiet). */
#define QUIET_PRIVATE	"access.quiet.private"

/* Lines in the kernel log now. */
static int dmesg_lines(void)
{
	char line[512];
	int n = 0;
	FILE *f = popen("dmesg", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	pclose(f);
	return n;
}

/*
 * Prints the kernel log's lines after the first @from (up to 20) and returns how
 * many there are, and in *@ours how many of them are the module's or a warning.
 */
static int dmesg_after(int from, int *ours)
{
	char line[512];
	int n = 0, fresh = 0;
	FILE *f = popen("dmesg", "r");

	*ours = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (n++ < from)
			continue;
		fresh++;
		if (strstr(line, "cxlt") || strstr(line, "WARNING") || strstr(line, "BUG"))
			(*ours)++;
		if (fresh <= 20)
			ksft_print_msg("new kernel log line: %s", line);
	}
	pclose(f);
	return fresh;
}

static int child_bad_requests(void *arg)
{
	const char *name = arg;
	struct cxltier_create c = { .size = sizeof(c), .length = 12345 };
	int dev, i, fd, rc;

	if (cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	/* Write-only is refused: a region file is always mapped with read access. */
	if (rg_open(dev, name, 0, CXLTIER_OPEN_WRITE) != -EINVAL)
		return 3;
	for (i = 0; i < 2000; i++) {
		snprintf(c.name, sizeof(c.name), "bad.%d", i);
		if (xioctl(dev, CXLTIER_IOC_CREATE, &c) != -EINVAL)
			return 4;
		if (rg_open(dev, "no.such.region", 0, CXLTIER_OPEN_READ) != -ENOENT)
			return 5;
		if (xioctl(dev, _IO(0xC7, 0x0E), NULL) != -ENOTTY)
			return 6;
	}
	/* Refusals of every other kind, as often: a name taken, another's region. */
	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ);
	if (fd < 0)
		return 7;
	for (i = 0; i < 500; i++) {
		if (rg_create(dev, name, MB, CXLTIER_POLICY_FAST_FIRST, -1, NULL) != -EEXIST)
			return 8;
		if (rg_destroy(dev, name) != -EPERM)
			return 9;
		if (rg_open(dev, QUIET_PRIVATE, 0, CXLTIER_OPEN_READ) != -EACCES)
			return 10;
		/* 2 TiB: over max_region_gb (1024), within what a handle addresses. */
		rc = rg_create(dev, "bad.huge", 1ULL << 41, CXLTIER_POLICY_FAST_FIRST, -1, NULL);
		if (rc != -EFBIG && rc != -EDQUOT)
			return 11;
		if (mmap(NULL, MB, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED || errno != EINVAL)
			return 12;
		if (mmap(NULL, 2 * MB, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED ||
		    errno != ENXIO)
			return 13;
	}
	return 0;
}

/*
 * A user's bad requests get errnos, and write nothing to the kernel log: malformed
 * ones, and refusals (a name taken, another's region to destroy or open, a size over
 * max_region_gb or the user's limit, a private or too long mapping).
 *
 * The guest's kernel logs by itself too (the debug kernel under TCG once logged a
 * line during the loop, CI, 2026-12-03).  A line that names the module or is a
 * warning fails at once; another line fails only if the next round of the same
 * requests logs again, since a line the requests cause comes back with them.
 */
TEST_F_TIMEOUT(access, bad_requests_are_quiet, TIMEOUT)
{
	int round, before, fresh = 0, ours = 0;

	ASSERT_EQ(0, rg_create(self->dev, self->name, MB, CXLTIER_POLICY_FAST_FIRST, 0666,
			       NULL));
	ASSERT_EQ(0, rg_create(self->dev, QUIET_PRIVATE, MB, CXLTIER_POLICY_FAST_FIRST, 0600,
			       NULL));
	for (round = 0; round < 2; round++) {
		before = dmesg_lines();
		ASSERT_LE(0, before);
		EXPECT_EQ(0, cxlt_in_child(child_bad_requests, self->name));
		fresh = dmesg_after(before, &ours);
		ASSERT_LE(0, fresh);
		EXPECT_EQ(0, ours);
		if (!fresh || ours)
			break;
	}
	EXPECT_EQ(0, fresh);
	EXPECT_EQ(0, rg_destroy(self->dev, QUIET_PRIVATE));
}

TEST_HARNESS_MAIN
