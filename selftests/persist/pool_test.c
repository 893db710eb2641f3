// SPDX-License-Identifier: GPL-2.0
/*
 * Pools and persistent regions (Documentation/persistence.rst).
 *
 * Theory of operation: the persist topology has a CXL pmem region per persistent
 * device; each is a pool (formatted here if it is not yet).  A persistent region is
 * created on a pool, mapped like any region, and its contents outlive the module:
 * the reload test unloads cxltier.ko and loads it again, and the region is listed
 * with its data.  Reboots and crashes are the crash loop's (make crash-test, tests/crash/).
 */
#include <glob.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"

#define POOLS	CXLT_SYSFS "/pools"
#define MiB	(1ULL << 20)

/* The first pool that is online (formatting an unformatted one first); 0 or -1. */
static int online_pool(char *name, size_t len)
{
	char state[32];
	glob_t g;
	size_t i;
	int rc = -1;

	if (glob(POOLS "/*/state", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && rc; i++) {
		char *dir = g.gl_pathv[i], *pool;

		*strrchr(dir, '/') = '\0';
		pool = strrchr(dir, '/') + 1;
		if (cxlt_readf(state, sizeof(state), POOLS "/%s/%s", pool, "state"))
			continue;
		if (!strcmp(state, "unformatted") && !cxlt_write(CXLT_SYSFS "/pool_format", pool))
			cxlt_readf(state, sizeof(state), POOLS "/%s/%s", pool, "state");
		if (!strcmp(state, "online")) {
			snprintf(name, len, "%s", pool);
			rc = 0;
		}
	}
	globfree(&g);
	return rc;
}

static int pcreate(int dev, const char *name, uint64_t len, const char *pool, uint32_t *id)
{
	struct cxltier_create c = { .size = sizeof(c), .length = len,
				    .flags = CXLTIER_CREATE_PERSISTENT };
	int rc;

	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.pool, sizeof(c.pool), "%s", pool);
	rc = xioctl(dev, CXLTIER_IOC_CREATE, &c);
	if (!rc && id)
		*id = c.id;
	return rc;
}

static uint64_t pool_u64(const char *pool, const char *attr)
{
	return cxlt_read_u64(POOLS "/%s/%s", pool, attr);
}

/* Word i of a region's pattern @seed: what each test writes and expects back. */
static uint64_t pat(uint64_t seed, size_t i)
{
	return (seed * 0x9e3779b97f4a7c15ULL) ^ (i * 0xff51afd7ed558ccdULL);
}

static void fill(uint64_t *p, size_t words, uint64_t seed)
{
	for (size_t i = 0; i < words; i++)
		p[i] = pat(seed, i);
}

static size_t check(const uint64_t *p, size_t words, uint64_t seed)
{
	size_t bad = 0;

	for (size_t i = 0; i < words; i++)
		bad += p[i] != pat(seed, i);
	return bad;
}

/* Unload and load cxltier.ko again, with the parameters it has; 0 or -errno. */
static int reload(void)
{
	char params[1024];
	int rc;

	if (cxlt_module_params(params, sizeof(params)))
		return -1;
	for (int i = 0; i < 50 && (rc = cxlt_rmmod()) == -EAGAIN; i++)
		usleep(100000);
	return rc ?: cxlt_insmod(params);
}

/* reload() with /dev/cxltier closed around it: *@dev is open again after; 0 or -1. */
static int reload_dev(int *dev)
{
	if (*dev >= 0)
		close(*dev);
	*dev = -1;
	if (reload())
		return -1;
	*dev = dev_open();
	return *dev < 0 ? -1 : 0;
}

/* Have the host flip @len bytes at @off of pool @pool's device file; 0 or -1. */
static int corrupt(const char *pool, uint64_t off, uint64_t len)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cxlt-corrupt %s %llu %llu >/dev/null", pool,
		 (unsigned long long)off, (unsigned long long)len);
	return system(cmd) ? -1 : 0;
}

static int can_corrupt(void)
{
	return getenv("CXLT_QMP_TTY") && !system("command -v cxlt-corrupt >/dev/null");
}

FIXTURE(persist) {
	char pool[64];
	int dev;
};

FIXTURE_SETUP(persist)
{
	self->dev = -1;
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (online_pool(self->pool, sizeof(self->pool)))
		SKIP(return, "no pool (CXL pmem region) in this topology");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	/* Leftovers of an earlier run (the device files persist between runs). */
	rg_destroy(self->dev, "pt-a");
	rg_destroy(self->dev, "pt-b");
}

FIXTURE_TEARDOWN(persist)
{
	if (self->dev < 0)
		return;
	rg_destroy(self->dev, "pt-a");
	rg_destroy(self->dev, "pt-b");
	close(self->dev);
}

/* A pool describes itself: online, its blade, a uuid, a format, room. */
TEST_F_TIMEOUT(persist, pool_attributes, 10)
{
	char buf[128], path[PATH_MAX];

	ASSERT_EQ(0, cxlt_readf(buf, sizeof(buf), POOLS "/%s/%s", self->pool, "format"));
	EXPECT_STREQ("1.0", buf);
	ASSERT_EQ(0, cxlt_readf(buf, sizeof(buf), POOLS "/%s/%s", self->pool, "uuid"));
	EXPECT_EQ(36, strlen(buf));
	ASSERT_EQ(0, cxlt_readf(buf, sizeof(buf), POOLS "/%s/%s", self->pool, "blades"));
	EXPECT_EQ(0, strncmp(buf, "mem", 3));
	EXPECT_GE(pool_u64(self->pool, "size"), 64 * MiB);
	EXPECT_LE(pool_u64(self->pool, "free"), pool_u64(self->pool, "size"));
	ASSERT_EQ(0, cxlt_readf(buf, sizeof(buf), POOLS "/%s/%s", self->pool, "error"));
	EXPECT_STREQ("", buf);
	snprintf(path, sizeof(path), POOLS "/%s/device", self->pool);
	ASSERT_EQ(0, cxlt_link_name(path, buf, sizeof(buf)));
	EXPECT_STREQ(self->pool, buf);
}

/* Created zeroed on the pool, mapped, written, read back; STAT says where it is. */
TEST_F_TIMEOUT(persist, create_map_stat, 30)
{
	uint64_t before = pool_u64(self->pool, "free"), *p;
	struct rstat s;
	uint32_t id;
	int fd;

	ASSERT_EQ(0, pcreate(self->dev, "pt-a", 3 * MiB, self->pool, &id));
	/* Space is taken in 2 MiB units. */
	EXPECT_EQ(before - 4 * MiB, pool_u64(self->pool, "free"));
	ASSERT_EQ(0, rg_stat(self->dev, "pt-a", &s));
	EXPECT_EQ(CXLTIER_REGION_PERSISTENT, s.st.region_flags);
	EXPECT_STREQ(self->pool, s.st.pool);
	EXPECT_NE(0, s.st.pool_offset);
	EXPECT_EQ(0, s.st.pool_offset % (2 * MiB));
	EXPECT_EQ(3 * MiB / 4096, s.st.resident);
	EXPECT_EQ(0, s.st.fenced);

	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 3 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* Zeroed at create. */
	for (size_t i = 0; i < 3 * MiB / 8; i++)
		ASSERT_EQ(0, p[i]);
	fill(p, 3 * MiB / 8, 1);
	EXPECT_EQ(0, msync(p, 3 * MiB, MS_SYNC));
	EXPECT_EQ(0, check(p, 3 * MiB / 8, 1));
	ASSERT_EQ(0, rg_stat(fd, NULL, &s));
	EXPECT_EQ(1, s.st.nr_maps);
	munmap(p, 3 * MiB);
	close(fd);

	/* Another open maps the same memory. */
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 3 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check(p, 3 * MiB / 8, 1));
	munmap(p, 3 * MiB);
	close(fd);

	ASSERT_EQ(0, rg_destroy(self->dev, "pt-a"));
	EXPECT_EQ(before, pool_u64(self->pool, "free"));
}

/* A destroyed region's space is reused only zeroed, and only once it is unmapped. */
TEST_F_TIMEOUT(persist, destroy_while_mapped, 30)
{
	uint64_t before = pool_u64(self->pool, "free"), *p, *q;
	struct rstat s;
	int fd, fd2;

	ASSERT_EQ(0, pcreate(self->dev, "pt-a", 2 * MiB, self->pool, NULL));
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, 2 * MiB / 8, 2);
	ASSERT_EQ(0, rg_destroy(self->dev, "pt-a"));
	/* Still held: a new region gets other space, zeroed. */
	EXPECT_EQ(before - 2 * MiB, pool_u64(self->pool, "free"));
	ASSERT_EQ(0, pcreate(self->dev, "pt-b", 2 * MiB, self->pool, NULL));
	fd2 = rg_open(self->dev, "pt-b", 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd2);
	q = mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd2, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0, q[0] | q[2 * MiB / 8 - 1]);
	EXPECT_EQ(0, check(p, 2 * MiB / 8, 2));
	ASSERT_EQ(0, rg_stat(fd, NULL, &s));
	EXPECT_EQ(CXLTIER_REGION_PERSISTENT | CXLTIER_REGION_DESTROYED, s.st.region_flags);
	munmap(q, 2 * MiB);
	close(fd2);
	munmap(p, 2 * MiB);
	close(fd);
	ASSERT_EQ(0, rg_destroy(self->dev, "pt-b"));
	EXPECT_EQ(before, pool_u64(self->pool, "free"));
}

/* Bad requests: clear errnos, nothing written to the pool. */
TEST_F_TIMEOUT(persist, bad_input, 30)
{
	uint64_t before = pool_u64(self->pool, "free");
	struct cxltier_create c = { .size = sizeof(c), .length = MiB,
				    .flags = CXLTIER_CREATE_PERSISTENT };
	struct cxltier_hint h = { .size = sizeof(h), .length = 4096, .hint = 1 };
	int fd;

	EXPECT_EQ(-ENODEV, pcreate(self->dev, "pt-a", MiB, "region999", NULL));
	EXPECT_EQ(-ENOSPC, pcreate(self->dev, "pt-a", pool_u64(self->pool, "size") + 2 * MiB,
				   self->pool, NULL));
	/* A policy, nodes or a pool without the flag. */
	snprintf(c.name, sizeof(c.name), "pt-a");
	c.policy = CXLTIER_POLICY_INTERLEAVE;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.policy = 0;
	c.nodes[0] = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.nodes[0] = 0;
	c.flags = 0;
	snprintf(c.pool, sizeof(c.pool), "%s", self->pool);
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	memset(c.pool, 'x', sizeof(c.pool));
	c.flags = CXLTIER_CREATE_PERSISTENT;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	EXPECT_EQ(before, pool_u64(self->pool, "free"));

	/* A taken name: refused before the pool is touched. */
	ASSERT_EQ(0, pcreate(self->dev, "pt-a", MiB, "", NULL));
	EXPECT_EQ(-EEXIST, pcreate(self->dev, "pt-a", MiB, self->pool, NULL));
	EXPECT_EQ(-EEXIST, rg_create(self->dev, "pt-a", MiB, 0, -1, NULL));
	EXPECT_EQ(before - 2 * MiB, pool_u64(self->pool, "free"));

	/* No pages, hints or policy on a persistent region. */
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, xioctl(fd, CXLTIER_IOC_HINT, &h));
	EXPECT_EQ(-EINVAL, rg_set_policy(self->dev, "pt-a", CXLTIER_POLICY_SLOW_ONLY));
	EXPECT_EQ(-EINVAL, rg_replace(fd, 0, 4096));
	/* MAP_PRIVATE and a range past the end, as for any region. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd, 0));
	close(fd);

	/* pool_format: bad words, and a pool in use. */
	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/pool_format", " "));
	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/pool_format", "region0 now"));
	EXPECT_EQ(-ENODEV, cxlt_write(CXLT_SYSFS "/pool_format", "region999"));
	EXPECT_EQ(-EBUSY, cxlt_write(CXLT_SYSFS "/pool_format", self->pool));
	ASSERT_EQ(0, rg_destroy(self->dev, "pt-a"));
	EXPECT_EQ(-EEXIST, cxlt_write(CXLT_SYSFS "/pool_format", self->pool));
	EXPECT_EQ(before, pool_u64(self->pool, "free"));
}

/* Unload and load the module: the region is listed again, with its data. */
TEST_F_TIMEOUT(persist, survives_reload, 60)
{
	struct rstat s;
	uint64_t *p;
	int fd;

	ASSERT_EQ(0, pcreate(self->dev, "pt-a", 2 * MiB, self->pool, NULL));
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, 2 * MiB / 8, 3);
	ASSERT_EQ(0, msync(p, 2 * MiB, MS_SYNC));
	munmap(p, 2 * MiB);
	close(fd);
	close(self->dev);
	self->dev = -1;

	/* Persistent regions nobody has open do not pin the module. */
	ASSERT_EQ(0, reload_dev(&self->dev));
	ASSERT_EQ(0, rg_stat(self->dev, "pt-a", &s));
	EXPECT_EQ(CXLTIER_REGION_PERSISTENT, s.st.region_flags);
	EXPECT_EQ(2 * MiB, s.st.length);
	EXPECT_STREQ(self->pool, s.st.pool);
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check(p, 2 * MiB / 8, 3));
	munmap(p, 2 * MiB);
	close(fd);
}

/*
 * A fenced blade loses its pools: mappings go, access gets SIGBUS, the regions
 * leave the name table; restored, the pool comes back with the data.
 */
TEST_F_TIMEOUT(persist, fence_loses_pool, 60)
{
	char blade[64], err[128];
	struct cxltier_fenced f = { .size = sizeof(f) };
	struct rstat s;
	uint64_t *p;
	int fd;

	ASSERT_EQ(0, cxlt_readf(blade, sizeof(blade), POOLS "/%s/%s", self->pool, "blades"));
	ASSERT_EQ(NULL, strchr(blade, ' '));
	ASSERT_EQ(0, pcreate(self->dev, "pt-a", 2 * MiB, self->pool, NULL));
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, 2 * MiB / 8, 4);
	ASSERT_EQ(0, msync(p, 2 * MiB, MS_SYNC));
	EXPECT_EQ(0, cxlt_reads_sigbus(p));

	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	ASSERT_EQ(0, rg_stat(fd, NULL, &s));
	EXPECT_TRUE(s.st.region_flags & CXLTIER_REGION_LOST);
	EXPECT_EQ(2 * MiB / 4096, s.st.fenced);
	EXPECT_EQ(1, cxlt_reads_sigbus(p));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(-EIO, fsync(fd) ? -errno : 0);
	ASSERT_EQ(0, rg_fenced(fd, 0, &f));
	EXPECT_EQ(1, f.fenced);

	/* The next scan drops it; it is not attached again over a fenced blade. */
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pool, "bad", 10));
	ASSERT_EQ(0, cxlt_readf(err, sizeof(err), POOLS "/%s/%s", self->pool, "error"));
	EXPECT_NE(NULL, strstr(err, "fenced"));
	EXPECT_EQ(-ENOENT, rg_stat(self->dev, "pt-a", &s));
	EXPECT_EQ(-ENODEV, pcreate(self->dev, "pt-b", MiB, self->pool, NULL));
	munmap(p, 2 * MiB);
	close(fd);

	/* Back in service: the pool and its region return, data intact. */
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pool, "online", 10));
	fd = rg_open(self->dev, "pt-a", 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check(p, 2 * MiB / 8, 4));
	munmap(p, 2 * MiB);
	close(fd);
}

/* Write pattern @seed to new 2 MiB region @name; 0 or -1. */
static int make_region(int dev, const char *name, const char *pool, uint64_t seed)
{
	uint64_t *p;
	int fd;

	if (pcreate(dev, name, 2 * MiB, pool, NULL))
		return -1;
	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (fd < 0)
		return -1;
	p = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	fill(p, 2 * MiB / 8, seed);
	msync(p, 2 * MiB, MS_SYNC);
	munmap(p, 2 * MiB);
	return 0;
}

/* Bad words of region @name against pattern @seed, or -1 when it cannot be read. */
static long region_bad_words(int dev, const char *name, uint64_t seed)
{
	uint64_t *p;
	long bad;
	int fd;

	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ);
	if (fd < 0)
		return -1;
	p = mmap(NULL, 2 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	bad = check(p, 2 * MiB / 8, seed);
	munmap(p, 2 * MiB);
	return bad;
}

/*
 * A damaged superblock: one copy is enough; with both bad the pool is refused and
 * nothing is written to it, so undoing the damage brings everything back.
 */
TEST_F_TIMEOUT(persist, bad_superblock, 120)
{
	char err[128];

	if (!can_corrupt())
		SKIP(return, "no host corruption channel (cxlt-corrupt)");
	ASSERT_EQ(0, make_region(self->dev, "pt-a", self->pool, 5));

	/* Copy A's uuid bytes: its CRC fails, copy B is used. */
	ASSERT_EQ(0, corrupt(self->pool, 16, 4));
	ASSERT_EQ(0, reload_dev(&self->dev));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pool, "online", 10));
	EXPECT_EQ(0, region_bad_words(self->dev, "pt-a", 5));

	/* Both copies: refused, with a reason; format will not overwrite it. */
	ASSERT_EQ(0, corrupt(self->pool, 0x1000 + 16, 4));
	ASSERT_EQ(0, reload_dev(&self->dev));
	EXPECT_EQ(0, cxlt_wait_pool_state(self->pool, "bad", 10));
	ASSERT_EQ(0, cxlt_readf(err, sizeof(err), POOLS "/%s/%s", self->pool, "error"));
	EXPECT_NE(NULL, strstr(err, "superblock"));
	EXPECT_EQ(-1, region_bad_words(self->dev, "pt-a", 5));
	EXPECT_EQ(-EEXIST, cxlt_write(CXLT_SYSFS "/pool_format", self->pool));
	EXPECT_EQ(-ENODEV, pcreate(self->dev, "pt-b", MiB, self->pool, NULL));

	/* Undo (XOR again): nothing was written meanwhile. */
	ASSERT_EQ(0, corrupt(self->pool, 16, 4));
	ASSERT_EQ(0, corrupt(self->pool, 0x1000 + 16, 4));
	ASSERT_EQ(0, reload_dev(&self->dev));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pool, "online", 10));
	EXPECT_EQ(0, region_bad_words(self->dev, "pt-a", 5));
}

/*
 * Damaged table entries (both slots): the pool is degraded, nothing is created on
 * it; the undamaged table is as it was.
 */
TEST_F_TIMEOUT(persist, bad_table, 120)
{
	char err[128];

	if (!can_corrupt())
		SKIP(return, "no host corruption channel (cxlt-corrupt)");
	ASSERT_EQ(0, make_region(self->dev, "pt-a", self->pool, 6));

	/* Every slot of the 256 entries (0x4000 + 256 * 512 bytes). */
	ASSERT_EQ(0, corrupt(self->pool, 0x4000, 0x20000));
	ASSERT_EQ(0, reload_dev(&self->dev));
	EXPECT_EQ(0, cxlt_wait_pool_state(self->pool, "degraded", 10));
	ASSERT_EQ(0, cxlt_readf(err, sizeof(err), POOLS "/%s/%s", self->pool, "error"));
	EXPECT_NE(NULL, strstr(err, "unreadable"));
	EXPECT_EQ(-EROFS, pcreate(self->dev, "pt-b", MiB, self->pool, NULL));

	ASSERT_EQ(0, corrupt(self->pool, 0x4000, 0x20000));
	ASSERT_EQ(0, reload_dev(&self->dev));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pool, "online", 10));
	EXPECT_EQ(0, region_bad_words(self->dev, "pt-a", 6));
}

TEST_HARNESS_MAIN
