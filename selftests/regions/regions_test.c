// SPDX-License-Identifier: GPL-2.0
/*
 * Global regions: named memory in the CXL pool that any permitted process maps
 * through /dev/cxltier, placed page by page by the module, shared by name and by
 * handle, outliving its creator, and torn down only when its last user goes.
 *
 * Theory of operation: main() registers the topology's committed CXL RAM regions as
 * tiers (the slow tiers regions are placed on) and removes them again at the end,
 * so the group leaves the guest as it found it.  Each test works on regions named
 * after its process id.  Placement is read twice and compared: from the module
 * (CXLTIER_IOC_STAT, per node and per blade) and from the mm (move_pages(2) in
 * query mode).  Bad input is checked by errno; the reason is in the kernel log, and
 * the runner's guard fails the run on any kernel warning or oops.  Leaks are
 * checked against the nodes' free memory.  Timings are logged, never asserted.
 */
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <numaif.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"

#define MB		(1UL << 20)
#define PAGE		4096UL
#define BUDGET_PARAM	"/sys/module/cxltier/parameters/fast_budget_mb"
#define MAX_TIERS	8

/* The tiers main() registered, and their nodes (filled before any test runs). */
static int nr_tiers;
static int tier_nodes[MAX_TIERS];

static uint64_t stat_node(const struct rstat *s, int nid)
{
	uint32_t i;

	for (i = 0; i < s->st.node_count && i < 64; i++)
		if ((int)s->nodes[i].node == nid)
			return s->nodes[i].pages;
	return 0;
}

/* Is @name among the regions CXLTIER_IOC_LIST reports? */
static bool listed(int dev, const char *name)
{
	struct cxltier_list_entry e[256];
	struct cxltier_list l = { .size = sizeof(l), .count = 256, .entries = (uintptr_t)e };
	uint32_t i;

	if (xioctl(dev, CXLTIER_IOC_LIST, &l))
		return false;
	for (i = 0; i < l.count && i < 256; i++)
		if (!strcmp(e[i].name, name))
			return true;
	return false;
}

static void *map_region(int fd, size_t len, off_t off, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

/* --- memory helpers ----------------------------------------------------------------- */

static void fill(void *p, size_t len, unsigned long seed)
{
	unsigned long *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = (i * 2654435761UL) ^ seed;
}

static size_t mismatches(const void *p, size_t len, unsigned long seed)
{
	const unsigned long *w = p;
	size_t i, bad = 0;

	for (i = 0; i < len / sizeof(*w); i++)
		bad += w[i] != ((i * 2654435761UL) ^ seed);
	return bad;
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned long *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/* The node of each page of [p, p + len), by move_pages(2); -errno per page. */
static int page_nodes(void *p, size_t len, int *status)
{
	unsigned long n = len / PAGE, i;
	void **pages = calloc(n, sizeof(void *));
	int rc;

	for (i = 0; i < n; i++)
		pages[i] = (char *)p + i * PAGE;
	rc = move_pages(0, n, pages, NULL, status, 0) ? -errno : 0;
	free(pages);
	return rc;
}

static bool is_tier_node(int nid)
{
	int i;

	for (i = 0; i < nr_tiers; i++)
		if (tier_nodes[i] == nid)
			return true;
	return false;
}

/*
 * Free memory of node 0 and of every tier node, summed, in KiB: the zones' free
 * pages plus the pages on their per-CPU lists, which MemFree leaves out although
 * the allocator hands them out first (/proc/zoneinfo).
 */
static long free_kb(void)
{
	long pages = 0, v;
	char line[256];
	bool counted = false;
	FILE *f = fopen("/proc/zoneinfo", "r");
	int nid;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &nid) == 1)
			counted = nid == 0 || is_tier_node(nid);
		else if (counted && (sscanf(line, " pages free %ld", &v) == 1 ||
				     sscanf(line, " count: %ld", &v) == 1))
			pages += v;
	}
	fclose(f);
	return pages * (PAGE / 1024);
}

static int set_budget_mb(unsigned int mb)
{
	char v[32];

	snprintf(v, sizeof(v), "%u", mb);
	return cxlt_write(BUDGET_PARAM, v);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* --- FIXTURE(region): one region per test, per placement policy --------------------- */

FIXTURE(region) {
	int dev;
	int fd;
	char name[CXLTIER_NAME_MAX];
	uint32_t id;
	size_t len;
	char *p;
};

FIXTURE_VARIANT(region) {
	uint32_t policy;
	bool slow;		/* places on tier nodes: needs one */
};

FIXTURE_VARIANT_ADD(region, fast_first) {
	.policy = CXLTIER_POLICY_FAST_FIRST,
};

FIXTURE_VARIANT_ADD(region, slow_only) {
	.policy = CXLTIER_POLICY_SLOW_ONLY,
	.slow = true,
};

FIXTURE_VARIANT_ADD(region, interleave) {
	.policy = CXLTIER_POLICY_INTERLEAVE,
	.slow = true,
};

FIXTURE_VARIANT_ADD(region, pinned_fast) {
	.policy = CXLTIER_POLICY_PINNED_FAST,
};

FIXTURE_SETUP(region)
{
	self->dev = -1;
	self->fd = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	if (variant->slow && !nr_tiers)
		SKIP(return, "no CXL tier registered");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	self->len = 4 * MB;
	snprintf(self->name, sizeof(self->name), "selftest.%d", getpid());
	ASSERT_EQ(0, rg_create(self->dev, self->name, self->len, variant->policy, -1,
			       &self->id));
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(region)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0) {
		rg_destroy(self->dev, self->name);
		close(self->dev);
	}
}

/* A region maps, holds what is written to it, reads back zeroes where untouched,
 * and unmaps; a second mapping of a sub-range sees the same bytes. */
TEST_F_TIMEOUT(region, map_write_read_unmap, 40)
{
	char *q;

	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	EXPECT_TRUE(all_zero(self->p, self->len));
	fill(self->p, self->len / 2, 1);
	EXPECT_EQ(0, mismatches(self->p, self->len / 2, 1));
	EXPECT_TRUE(all_zero(self->p + self->len / 2, self->len / 2));

	q = map_region(self->fd, 4 * PAGE, 8 * PAGE, PROT_READ);
	ASSERT_NE(NULL, q);
	EXPECT_EQ(0, memcmp(q, self->p + 8 * PAGE, 4 * PAGE));
	EXPECT_EQ(0, munmap(q, 4 * PAGE));
	EXPECT_EQ(0, munmap(self->p, self->len));

	/* Unmapping keeps the data: it belongs to the region, not to the mapping. */
	self->p = map_region(self->fd, self->len, 0, PROT_READ);
	ASSERT_NE(NULL, self->p);
	EXPECT_EQ(0, mismatches(self->p, self->len / 2, 1));
	munmap(self->p, self->len);
}

/* Pages land where the policy says, and the module's per-node and per-blade counts
 * agree with where the mm finds them. */
TEST_F_TIMEOUT(region, placement, 30)
{
	unsigned long n = self->len / PAGE, i, on_fast = 0, on_tier = 0;
	int *status = calloc(n, sizeof(int));
	uint64_t blade_sum = 0;
	struct rstat s;
	int t;

	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, self->len, 2);
	ASSERT_EQ(0, page_nodes(self->p, self->len, status));
	for (i = 0; i < n; i++) {
		ASSERT_LE(0, status[i]) TH_LOG("page %lu: move_pages status %d", i, status[i]);
		if (is_tier_node(status[i]))
			on_tier++;
		else
			on_fast++;
	}
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &s));
	EXPECT_EQ(n, s.st.resident);
	EXPECT_EQ(on_fast, s.st.fast);
	for (i = 0; i < s.st.node_count; i++) {
		unsigned long mm = 0, k;

		for (k = 0; k < n; k++)
			mm += status[k] == (int)s.nodes[i].node;
		EXPECT_EQ(mm, s.nodes[i].pages) TH_LOG("node %u", s.nodes[i].node);
	}
	for (i = 0; i < s.st.blade_count; i++)
		blade_sum += s.blades[i].pages;

	switch (variant->policy) {
	case CXLTIER_POLICY_FAST_FIRST:
	case CXLTIER_POLICY_PINNED_FAST:
		EXPECT_EQ(n, on_fast);
		EXPECT_EQ(0, blade_sum);
		break;
	case CXLTIER_POLICY_SLOW_ONLY:
		/* One node after the other: 4 MiB fit in the first. */
		EXPECT_EQ(n, on_tier);
		EXPECT_EQ(1, s.st.node_count);
		EXPECT_LE(n, blade_sum);
		break;
	case CXLTIER_POLICY_INTERLEAVE:
		EXPECT_EQ(n, on_tier);
		EXPECT_EQ(nr_tiers, s.st.node_count);
		/* Page i goes to the (i % nodes)'th node. */
		for (t = 0; t < nr_tiers; t++)
			EXPECT_GE(1, labs((long)stat_node(&s, tier_nodes[t]) - (long)(n / nr_tiers)))
				TH_LOG("node %d", tier_nodes[t]);
		EXPECT_LE(n, blade_sum);
		break;
	}
	for (i = 0; i < s.st.blade_count; i++)
		TH_LOG("%s: %llu pages on %s", variant->policy == CXLTIER_POLICY_INTERLEAVE ?
		       "interleave" : "slow", (unsigned long long)s.blades[i].pages,
		       s.blades[i].name);
	munmap(self->p, self->len);
	free(status);
}

static int child_writes_by_name(void *arg)
{
	const char *name = arg;
	int dev = dev_open(), fd;
	char *p;

	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (fd < 0)
		return 10;
	p = map_region(fd, 4 * MB, 0, PROT_READ | PROT_WRITE);
	if (!p)
		return 11;
	if (mismatches(p, MB, 3))	/* the parent's writes */
		return 12;
	fill(p + MB, MB, 4);
	return 0;
}

/* Two processes that open the region by name see each other's writes. */
TEST_F_TIMEOUT(region, shared_by_name, 15)
{
	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, MB, 3);
	ASSERT_EQ(0, cxlt_in_child(child_writes_by_name, self->name));
	EXPECT_EQ(0, mismatches(self->p + MB, MB, 4));
	munmap(self->p, self->len);
}

/* A forked child shares the parent's mapping (MAP_SHARED), in both directions. */
TEST_F_TIMEOUT(region, fork, 15)
{
	int status;
	pid_t pid;

	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, MB, 5);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (mismatches(self->p, MB, 5))
			_exit(1);
		fill(self->p + 2 * MB, MB, 6);	/* not touched by the parent before */
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, mismatches(self->p + 2 * MB, MB, 6));
	munmap(self->p, self->len);
}

/* The library's handle encoding (include/uapi/linux/cxltier.h). */
static uint64_t make_handle(uint32_t id, uint64_t off)
{
	return (uint64_t)id << CXLTIER_HANDLE_ID_SHIFT | off;
}

/* A handle made in one process (region id and offset) resolves in another: the
 * other process opens the region by id, maps it, and finds the object there. */
TEST_F_TIMEOUT(region, handle_in_other_process, 10)
{
	uint64_t handle, off = 3 * MB + 123 * 8;	/* within 4 MiB */
	int pfd[2], status, rc;
	pid_t pid;

	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	strcpy(self->p + off, "object behind a handle");
	handle = make_handle(self->id, off);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* A fresh process image would not have the mapping: drop it. */
		uint64_t h;
		char *q;
		int dev, fd;

		munmap(self->p, self->len);
		if (read(pfd[0], &h, sizeof(h)) != sizeof(h))
			_exit(1);
		dev = dev_open();
		fd = rg_open(dev, NULL, h >> CXLTIER_HANDLE_ID_SHIFT, CXLTIER_OPEN_READ);
		if (fd < 0)
			_exit(2);
		q = map_region(fd, 4 * MB, 0, PROT_READ);
		if (!q)
			_exit(3);
		_exit(strcmp(q + (h & CXLTIER_HANDLE_OFFSET_MASK), "object behind a handle") ?
		      4 : 0);
	}
	rc = write(pfd[1], &handle, sizeof(handle));
	ASSERT_EQ(sizeof(handle), rc);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	munmap(self->p, self->len);
	close(pfd[0]);
	close(pfd[1]);
}

static int child_creates_and_exits(void *arg)
{
	const char *name = arg;
	int dev = dev_open(), fd;
	char *p;

	if (rg_create(dev, name, 4 * MB, CXLTIER_POLICY_FAST_FIRST, 0644, NULL))
		return 1;
	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	p = map_region(fd, 4 * MB, 0, PROT_READ | PROT_WRITE);
	if (!p)
		return 2;
	fill(p, 4 * MB, 7);
	return 0;	/* exit without closing or unmapping anything */
}

/* A region outlives the process that created it, with its data. */
TEST_F_TIMEOUT(region, survives_creator_exit, 10)
{
	char name[CXLTIER_NAME_MAX];
	int fd;
	char *p;

	snprintf(name, sizeof(name), "%s.orphan", self->name);
	ASSERT_EQ(0, cxlt_in_child(child_creates_and_exits, name));
	EXPECT_TRUE(listed(self->dev, name));
	fd = rg_open(self->dev, name, 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd);
	p = map_region(fd, 4 * MB, 0, PROT_READ);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, mismatches(p, 4 * MB, 7));
	munmap(p, 4 * MB);
	close(fd);
	EXPECT_EQ(0, rg_destroy(self->dev, name));
}

/* DESTROY with live mappings frees the name at once but the memory only when the
 * last mapping goes; until then the mapping keeps working. */
TEST_F_TIMEOUT(region, destroy_deferred, 40)
{
	long before, during, after;
	double t0;
	struct rstat s;
	uint32_t id2;
	int fd2;

	before = free_kb();
	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, self->len, 8);
	during = free_kb();
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, rg_destroy(self->dev, self->name));
	EXPECT_FALSE(listed(self->dev, self->name));
	EXPECT_EQ(-ENOENT, rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ));
	EXPECT_EQ(-ENOENT, rg_destroy(self->dev, self->name));
	/* The mapping still works, data intact. */
	EXPECT_EQ(0, mismatches(self->p, self->len, 8));
	fill(self->p, MB, 9);
	EXPECT_EQ(0, mismatches(self->p, MB, 9));

	/* The name is free again, for a new, empty region. */
	ASSERT_EQ(0, rg_create(self->dev, self->name, MB, CXLTIER_POLICY_FAST_FIRST, -1, &id2));
	EXPECT_NE(self->id, id2);
	fd2 = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, rg_stat(fd2, NULL, &s));
	EXPECT_EQ(0, s.st.resident);
	EXPECT_EQ(0, s.st.region_flags);
	close(fd2);

	EXPECT_EQ(0, munmap(self->p, self->len));
	/*
	 * The migration daemon may be looking at a fast-first region at this moment:
	 * it is then the region's last holder and lets go within its current step
	 * (milliseconds; longer on the debug kernel).
	 */
	for (t0 = now_ns(); (after = free_kb()) < before - 1024 && now_ns() - t0 < 5e9;)
		usleep(10000);
	TH_LOG("free KiB: %ld before, %ld while mapped, %ld after the last munmap (%.0f ms later)",
	       before, during, after, (now_ns() - t0) / 1e6);
	/* The region's pages, give or take what the rest of the system did meanwhile. */
	EXPECT_LE(labs(before - during - (long)(self->len / 1024)), 1024);
	EXPECT_LE(labs(before - after), 1024);
}

static int child_other_uid(void *arg)
{
	const char *name = arg;
	char name644[CXLTIER_NAME_MAX];
	struct rstat s;
	int dev, fd;
	char *p;

	snprintf(name644, sizeof(name644), "%s.644", name);
	if (cxlt_drop_to_nobody())
		return 1;
	dev = dev_open();
	if (dev < 0)
		return 2;
	if (rg_open(dev, name, 0, CXLTIER_OPEN_READ) != -EACCES)
		return 3;
	if (rg_open(dev, name644, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE) != -EACCES)
		return 4;
	if (rg_destroy(dev, name) != -EPERM || rg_destroy(dev, name644) != -EPERM)
		return 5;
	if (rg_set_policy(dev, name, CXLTIER_POLICY_SLOW_ONLY) != -EPERM)
		return 6;
	if (rg_stat(dev, name, &s) != -EACCES)
		return 7;
	if (rg_stat(dev, name644, &s) || s.st.uid != 0 || s.st.mode != 0644)
		return 11;
	fd = rg_open(dev, name644, 0, CXLTIER_OPEN_READ);
	if (fd < 0)
		return 8;
	if (mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) != MAP_FAILED ||
	    errno != EACCES)
		return 9;
	p = map_region(fd, MB, 0, PROT_READ);
	if (!p || mismatches(p, MB, 10))
		return 10;
	return 0;
}

/* Another uid is held to the mode like a file's: no access to a 0600 region, read
 * but not write to a 0644 one; it cannot destroy or re-policy either; it may stat
 * only what it may read. */
TEST_F_TIMEOUT(region, other_uid_denied, 15)
{
	char name644[CXLTIER_NAME_MAX];
	int fd;
	char *p;

	snprintf(name644, sizeof(name644), "%s.644", self->name);
	ASSERT_EQ(0, rg_create(self->dev, name644, MB, variant->policy, 0644, NULL));
	fd = rg_open(self->dev, name644, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = map_region(fd, MB, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, p);
	fill(p, MB, 10);
	EXPECT_EQ(0, cxlt_in_child(child_other_uid, self->name));
	munmap(p, MB);
	close(fd);
	EXPECT_EQ(0, rg_destroy(self->dev, name644));
}

static int module_refcnt(void)
{
	return (int)cxlt_read_u64("/sys/module/%s/%s", "cxltier", "refcnt");
}

/* The module cannot be unloaded while a region is mapped, even after the region was
 * destroyed and every file descriptor closed; the last munmap releases it. */
TEST_F_TIMEOUT(region, unload_refused_while_mapped, 20)
{
	int mapped;

	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, MB, 11);
	ASSERT_EQ(0, rg_destroy(self->dev, self->name));
	close(self->fd);
	self->fd = -1;
	close(self->dev);
	self->dev = -1;

	mapped = module_refcnt();
	EXPECT_LT(0, mapped);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "cxltier", O_NONBLOCK));
	EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY) TH_LOG("errno %d", errno);
	EXPECT_EQ(0, mismatches(self->p, MB, 11));
	/* The last munmap releases the region file and the region with it. */
	EXPECT_EQ(0, munmap(self->p, self->len));
	EXPECT_GT(mapped, module_refcnt());
}

/* fstat() on a region file shows its size, owner and mode, which neither ftruncate()
 * nor fchmod() can change; msync works; read() is not offered. */
TEST_F_TIMEOUT(region, file_semantics, 10)
{
	struct stat st;
	char c;

	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(self->len, st.st_size);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(-1, ftruncate(self->fd, PAGE));
	EXPECT_EQ(-1, fchmod(self->fd, 0666));
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(self->len, st.st_size);
	EXPECT_EQ(0600, st.st_mode & 0777);
	self->p = map_region(self->fd, self->len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, MB, 12);
	EXPECT_EQ(0, msync(self->p, MB, MS_SYNC));
	EXPECT_EQ(-1, read(self->fd, &c, 1));
	EXPECT_TRUE(fcntl(self->fd, F_GETFD) & FD_CLOEXEC);
	munmap(self->p, self->len);
}

/*
 * No invalidation path drops a region page: there is nothing to write it back to
 * (region_mm.c marks every page dirty and the mapping unevictable).  With nothing
 * mapping the pages, drop_caches, POSIX_FADV_DONTNEED on the region file and
 * MADV_PAGEOUT/MADV_COLD on a mapping leave every page resident with its bytes.
 */
TEST_F_TIMEOUT(region, no_invalidation_drops_a_page, 30)
{
	struct rstat st;
	uint64_t resident;

	self->p = map_region(self->fd, MB, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, MB, 21);
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	resident = st.st.resident;
	EXPECT_EQ(MB / PAGE, resident);
	ASSERT_EQ(0, madvise(self->p, MB, MADV_COLD));
	ASSERT_EQ(0, madvise(self->p, MB, MADV_PAGEOUT));
	EXPECT_EQ(0, munmap(self->p, MB));

	sync();
	ASSERT_EQ(0, cxlt_write("/proc/sys/vm/drop_caches", "3"));
	EXPECT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	EXPECT_EQ(resident, st.st.resident);

	self->p = map_region(self->fd, MB, 0, PROT_READ);
	ASSERT_NE(NULL, self->p);
	EXPECT_EQ(0, mismatches(self->p, MB, 21));
	munmap(self->p, MB);
}

/* --- FIXTURE(budget): the DRAM budget ------------------------------------------------ */

FIXTURE(budget) {
	int dev;
	char name[CXLTIER_NAME_MAX];
	char saved[32];
};

FIXTURE_SETUP(budget)
{
	self->dev = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	ASSERT_EQ(0, cxlt_read(BUDGET_PARAM, self->saved, sizeof(self->saved)));
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	snprintf(self->name, sizeof(self->name), "selftest.%d", getpid());
	ASSERT_EQ(0, set_budget_mb(4));
}

FIXTURE_TEARDOWN(budget)
{
	if (self->dev < 0)
		return;
	rg_destroy(self->dev, self->name);
	cxlt_write(BUDGET_PARAM, self->saved);
	close(self->dev);
}

static sigjmp_buf sigbus_jmp;
static siginfo_t sigbus_info;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	sigbus_info = *si;
	siglongjmp(sigbus_jmp, 1);
}

/* Pinned-fast pages stop at the DRAM budget: the next first touch gets SIGBUS
 * (BUS_ADRERR at the address), never an OOM kill; fast-first spills to CXL. */
TEST_F_TIMEOUT(budget, exhausted, 45)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	size_t len = 8 * MB;
	volatile size_t touched = 0;
	volatile char *p;
	struct rstat s;
	int fd;

	ASSERT_EQ(0, rg_create(self->dev, self->name, len, CXLTIER_POLICY_PINNED_FAST, -1, NULL));
	fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	p = map_region(fd, len, 0, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	if (!sigsetjmp(sigbus_jmp, 1)) {
		for (touched = 0; touched < len; touched += PAGE)
			p[touched] = 1;
	}
	signal(SIGBUS, SIG_DFL);
	EXPECT_LT(touched, len);
	EXPECT_EQ(BUS_ADRERR, sigbus_info.si_code);
	EXPECT_EQ((void *)(p + touched), sigbus_info.si_addr);
	ASSERT_EQ(0, rg_stat(fd, NULL, &s));
	EXPECT_EQ(touched / PAGE, s.st.resident);
	EXPECT_GE(4 * MB / PAGE, s.st.resident);

	/* Fast-first falls back to CXL for the rest of the same region. */
	if (nr_tiers) {
		ASSERT_EQ(0, rg_set_policy(self->dev, self->name, CXLTIER_POLICY_FAST_FIRST));
		for (; touched < len; touched += PAGE)
			p[touched] = 2;
		ASSERT_EQ(0, rg_stat(fd, NULL, &s));
		EXPECT_EQ(len / PAGE, s.st.resident);
		EXPECT_LT(s.st.fast, s.st.resident);
	}
	munmap((void *)p, len);
	close(fd);
}

/* --- FIXTURE(load): data integrity under load ----------------------------------------- */

#define LOAD_PROCS	4
#define LOAD_BLOCK	4096
#define LOAD_ITERS	1000

FIXTURE(load) {
	int dev;
	char name[CXLTIER_NAME_MAX];
	char saved[32];
};

FIXTURE_SETUP(load)
{
	self->dev = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	if (!nr_tiers)
		SKIP(return, "no CXL tier registered");
	ASSERT_EQ(0, cxlt_read(BUDGET_PARAM, self->saved, sizeof(self->saved)));
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	snprintf(self->name, sizeof(self->name), "selftest.%d", getpid());
	/* A small fast tier, so that the region spills over to CXL. */
	ASSERT_EQ(0, set_budget_mb(2));
}

FIXTURE_TEARDOWN(load)
{
	if (self->dev < 0)
		return;
	rg_destroy(self->dev, self->name);
	cxlt_write(BUDGET_PARAM, self->saved);
	close(self->dev);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A block: 8 bytes of checksum, then payload. */
static uint64_t block_sum(const uint64_t *b)
{
	uint64_t sum = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 1; i < LOAD_BLOCK / 8; i++)
		sum = (sum ^ b[i]) * 0x100000001b3ULL;
	return sum;
}

/* Worker @me writes random blocks of its own (block % LOAD_PROCS == me) and checks
 * random blocks of its own against the checksum it remembers. */
static int load_worker(const char *name, size_t len, int me)
{
	size_t nblocks = len / LOAD_BLOCK, mine = nblocks / LOAD_PROCS, i, k;
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (me + 1), *want;
	int dev = dev_open(), fd;
	char *p;

	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	p = map_region(fd, len, 0, PROT_READ | PROT_WRITE);
	want = calloc(mine, sizeof(*want));
	if (!p || !want)
		return 2;
	for (i = 0; i < LOAD_ITERS; i++) {
		size_t b = xorshift(&seed) % mine;
		uint64_t *blk = (uint64_t *)(p + (b * LOAD_PROCS + me) * LOAD_BLOCK);

		if (xorshift(&seed) % 4 == 0) {	/* one in four: verify */
			if (want[b] && blk[0] != want[b])
				return 3;
			if (want[b] && block_sum(blk) != want[b])
				return 4;
			continue;
		}
		for (k = 1; k < LOAD_BLOCK / 8; k++)
			blk[k] = xorshift(&seed);
		blk[0] = want[b] = block_sum(blk);
	}
	for (i = 0; i < mine; i++) {
		uint64_t *blk = (uint64_t *)(p + (i * LOAD_PROCS + me) * LOAD_BLOCK);

		if (want[i] && (blk[0] != want[i] || block_sum(blk) != want[i]))
			return 5;
	}
	return 0;
}

/* Four processes write random blocks with checksums over a region larger than the
 * fast tier for a fixed number of iterations; every checksum verifies, in the
 * workers and in a fresh mapping afterwards. */
TEST_F_TIMEOUT(load, random_writes_checksums, 60)
{
	size_t len = 8 * MB, b, written = 0, bad = 0;
	pid_t pids[LOAD_PROCS];
	struct rstat s;
	int i, status, fd;
	char *p;

	ASSERT_EQ(0, rg_create(self->dev, self->name, len, CXLTIER_POLICY_FAST_FIRST, -1, NULL));
	for (i = 0; i < LOAD_PROCS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(load_worker(self->name, len, i));
	}
	for (i = 0; i < LOAD_PROCS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status))
			TH_LOG("worker %d", i);
	}
	fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, fd);
	p = map_region(fd, len, 0, PROT_READ);
	ASSERT_NE(NULL, p);
	for (b = 0; b < len / LOAD_BLOCK; b++) {
		uint64_t *blk = (uint64_t *)(p + b * LOAD_BLOCK);

		if (!blk[0])
			continue;
		written++;
		bad += block_sum(blk) != blk[0];
	}
	ASSERT_EQ(0, rg_stat(fd, NULL, &s));
	TH_LOG("%zu blocks written, %zu bad; %llu pages resident, %llu on DRAM, %u nodes",
	       written, bad, (unsigned long long)s.st.resident,
	       (unsigned long long)s.st.fast, s.st.node_count);
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, written);
	EXPECT_LT(s.st.fast, s.st.resident);	/* it did spill over to CXL */
	munmap(p, len);
	close(fd);
}

/* --- FIXTURE(cost): the fault path ---------------------------------------------------- */

FIXTURE(cost) {
	int dev;
	char name[CXLTIER_NAME_MAX];
};

FIXTURE_SETUP(cost)
{
	self->dev = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	snprintf(self->name, sizeof(self->name), "selftest.%d", getpid());
}

FIXTURE_TEARDOWN(cost)
{
	if (self->dev < 0)
		return;
	rg_destroy(self->dev, self->name);
	close(self->dev);
}

/* ns per page of a first touch (one write per page) of @len bytes of a new region. */
static double first_touch_ns(int dev, const char *name, size_t len, uint32_t policy)
{
	volatile char *p;
	double t0, t1;
	size_t off;
	int fd;

	if (rg_create(dev, name, len, policy, -1, NULL))
		return -1;
	fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	p = map_region(fd, len, 0, PROT_READ | PROT_WRITE);
	if (!p)
		return -1;
	t0 = now_ns();
	for (off = 0; off < len; off += PAGE)
		p[off] = 1;
	t1 = now_ns();
	munmap((void *)p, len);
	close(fd);
	rg_destroy(dev, name);
	return (t1 - t0) / (len / PAGE);
}

/* ns per page of a first touch of @len bytes of anonymous memory bound to @nid. */
static double anon_touch_ns(size_t len, int nid)
{
	unsigned long mask = 1UL << nid;
	volatile char *a;
	double t0, t1;
	size_t off;

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return -1;
	madvise((void *)a, len, MADV_NOHUGEPAGE);
	if (mbind((void *)a, len, MPOL_BIND, &mask, 64, 0))
		return -1;
	t0 = now_ns();
	for (off = 0; off < len; off += PAGE)
		a[off] = 1;
	t1 = now_ns();
	munmap((void *)a, len);
	return (t1 - t0) / (len / PAGE);
}

/* The cost of a first-touch fault (allocate, zero, map) of a region on DRAM and on
 * CXL, next to the kernel's own anonymous first touch on the same nodes; logged,
 * not asserted.  (Under QEMU TCG, CXL memory is emulated I/O and zeroing a page
 * there dominates.) */
TEST_F_TIMEOUT(cost, first_touch, 20)
{
	double dram = 0, cxl = -1, anon_dram = 0, anon_cxl = -1;
	int r;

	for (r = 0; r < 2; r++) {	/* the first round warms caches and page tables */
		dram = first_touch_ns(self->dev, self->name, 8 * MB,
				      CXLTIER_POLICY_PINNED_FAST);
		ASSERT_LT(0, dram);
		anon_dram = anon_touch_ns(8 * MB, 0);
		ASSERT_LT(0, anon_dram);
	}
	if (nr_tiers) {
		cxl = first_touch_ns(self->dev, self->name, MB, CXLTIER_POLICY_SLOW_ONLY);
		ASSERT_LT(0, cxl);
		anon_cxl = anon_touch_ns(MB, tier_nodes[0]);
		ASSERT_LT(0, anon_cxl);
	}
	TH_LOG("first touch, ns/page: region DRAM %.0f, region CXL %.0f; anonymous DRAM %.0f, anonymous CXL %.0f",
	       dram, cxl, anon_dram, anon_cxl);
}

/* --- FIXTURE(bad_input): every wrong input gets a clear errno, nothing leaks ------------ */

FIXTURE(bad_input) {
	int dev;
	char name[CXLTIER_NAME_MAX];
};

FIXTURE_SETUP(bad_input)
{
	self->dev = -1;
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	snprintf(self->name, sizeof(self->name), "selftest.%d", getpid());
}

FIXTURE_TEARDOWN(bad_input)
{
	if (self->dev < 0)
		return;
	rg_destroy(self->dev, self->name);
	close(self->dev);
}

/* The ABI version answers, and it is the one this test was built for. */
TEST_F_TIMEOUT(bad_input, version, 10)
{
	EXPECT_EQ(CXLTIER_ABI_VERSION, ioctl(self->dev, CXLTIER_IOC_VERSION));
}

/* Zero, unaligned, beyond-the-ABI and beyond-the-limit sizes are refused; a large
 * but allowed size only costs its page table directory. */
TEST_F_TIMEOUT(bad_input, sizes, 10)
{
	EXPECT_EQ(-EINVAL, rg_create(self->dev, self->name, 0, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, self->name, PAGE + 1, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, self->name, 100, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, self->name, CXLTIER_LENGTH_MAX * 2, 0, -1,
				     NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, self->name, -PAGE, 0, -1, NULL));
	EXPECT_EQ(-EFBIG, rg_create(self->dev, self->name, 1ULL << 47, 0, -1, NULL));
	EXPECT_FALSE(listed(self->dev, self->name));
	EXPECT_EQ(0, rg_create(self->dev, self->name, 512ULL << 30, 0, -1, NULL));
	EXPECT_EQ(0, rg_destroy(self->dev, self->name));
}

/* Unknown flags, modes that are not permission bits, unknown policies, nodes that
 * cannot exist and nonzero reserved fields are refused. */
TEST_F_TIMEOUT(bad_input, flags_and_reserved, 10)
{
	struct cxltier_create c = { .size = sizeof(c), .length = MB };
	struct cxltier_open o = { .size = sizeof(o), .flags = CXLTIER_OPEN_READ };
	struct cxltier_destroy d = { .size = sizeof(d) };
	struct cxltier_list l = { .size = sizeof(l) };
	struct rstat s;

	snprintf(c.name, sizeof(c.name), "%s", self->name);
	c.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.flags = 0;
	c.mode = 0600;		/* without CXLTIER_CREATE_MODE */
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.flags = CXLTIER_CREATE_MODE;
	c.mode = 01777;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.flags = 0;
	c.mode = 0;
	c.policy = CXLTIER_POLICY_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.policy = 0;
	c.nodes[CXLTIER_NODE_WORDS - 1] = 1ULL << 63;	/* node 1023 */
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.nodes[CXLTIER_NODE_WORDS - 1] = 0;
	c.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.reserved = 0;
	c.pool[0] = 'x';	/* a pool without CXLTIER_CREATE_PERSISTENT */
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.pool[0] = 0;
	c.reserved0 = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.reserved0 = 0;
	EXPECT_FALSE(listed(self->dev, self->name));
	ASSERT_EQ(0, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));

	snprintf(o.name, sizeof(o.name), "%s", self->name);
	o.flags = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));
	o.flags = CXLTIER_OPEN_READ | (1U << 20);
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));
	o.flags = CXLTIER_OPEN_READ | CXLTIER_BY_ID;	/* by id, but a name given */
	o.id = c.id;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));
	memset(o.name, 0, sizeof(o.name));
	o.id = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));
	o.id = CXLTIER_REGION_ID_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));
	o.id = c.id;
	o.reserved[0] = 7;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_OPEN, &o));

	d.flags = 2;
	snprintf(d.name, sizeof(d.name), "%s", self->name);
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_DESTROY, &d));
	l.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_LIST, &l));
	l.flags = 0;
	l.count = 4;		/* room, but no array */
	EXPECT_EQ(-EFAULT, xioctl(self->dev, CXLTIER_IOC_LIST, &l));
	l.entries = 16;		/* an address nobody maps */
	EXPECT_EQ(-EFAULT, xioctl(self->dev, CXLTIER_IOC_LIST, &l));

	ASSERT_EQ(0, rg_stat(self->dev, self->name, &s));
	s.st.flags = 4;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_STAT, &s.st));
	EXPECT_EQ(-ENOTTY, ioctl(self->dev, _IO(CXLTIER_IOC_MAGIC, 0x0f)) ? -errno : 0);
	EXPECT_EQ(-ENOTTY, ioctl(self->dev, _IO('x', 1)) ? -errno : 0);
	EXPECT_TRUE(listed(self->dev, self->name));
}

/* A command whose encoded size is shorter than the struct, one whose size field
 * disagrees, and one that is longer with nonzero bytes beyond the struct are
 * refused; a longer one with zeroes there (a newer caller) works.  A wrong
 * direction is an unknown command. */
TEST_F_TIMEOUT(bad_input, ioctl_sizes, 10)
{
	struct {
		struct cxltier_create c;
		uint64_t newer[2];
	} big = { .c = { .size = sizeof(big), .length = MB } };
	struct cxltier_create c = { .size = sizeof(c), .length = MB };
	unsigned long dir = _IOC_READ | _IOC_WRITE;

	snprintf(c.name, sizeof(c.name), "%s", self->name);
	big.c.name[0] = 0;
	snprintf(big.c.name, sizeof(big.c.name), "%s", self->name);

	EXPECT_EQ(-EINVAL, xioctl(self->dev, _IOC(dir, CXLTIER_IOC_MAGIC, 1, sizeof(c) - 8), &c));
	EXPECT_EQ(-EINVAL, xioctl(self->dev, _IOC(dir, CXLTIER_IOC_MAGIC, 1, 4), &c));
	c.size = sizeof(c) + 8;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.size = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	c.size = sizeof(c);
	EXPECT_EQ(-ENOTTY, xioctl(self->dev, _IOW(CXLTIER_IOC_MAGIC, 1, struct cxltier_create),
				  &c));
	EXPECT_EQ(-EFAULT, xioctl(self->dev, CXLTIER_IOC_CREATE, (void *)16));
	big.newer[1] = 1;
	EXPECT_EQ(-E2BIG, xioctl(self->dev, _IOC(dir, CXLTIER_IOC_MAGIC, 1, sizeof(big)), &big));
	EXPECT_FALSE(listed(self->dev, self->name));
	big.newer[1] = 0;
	EXPECT_EQ(0, xioctl(self->dev, _IOC(dir, CXLTIER_IOC_MAGIC, 1, sizeof(big)), &big));
	EXPECT_NE(0, big.c.id);
	EXPECT_TRUE(listed(self->dev, self->name));
}

/* Names: empty, without a terminator (too long), with '/', blanks or control bytes,
 * or with garbage after the NUL are refused; 63 bytes is fine; a duplicate is
 * EEXIST. */
TEST_F_TIMEOUT(bad_input, names, 10)
{
	struct cxltier_create c = { .size = sizeof(c), .length = MB };
	char long63[64];

	EXPECT_EQ(-EINVAL, rg_create(self->dev, "", MB, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, "a/b", MB, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, "a b", MB, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, "tab\there", MB, 0, -1, NULL));
	EXPECT_EQ(-EINVAL, rg_create(self->dev, "\xff", MB, 0, -1, NULL));
	memset(c.name, 'x', sizeof(c.name));
	EXPECT_EQ(-ENAMETOOLONG, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	memset(c.name, 0, sizeof(c.name));
	strcpy(c.name, "ok");
	c.name[10] = 'z';
	EXPECT_EQ(-EINVAL, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	EXPECT_FALSE(listed(self->dev, "ok"));

	memset(long63, 'y', 63);
	long63[63] = 0;
	EXPECT_EQ(0, rg_create(self->dev, long63, MB, 0, -1, NULL));
	EXPECT_TRUE(listed(self->dev, long63));
	EXPECT_EQ(0, rg_destroy(self->dev, long63));

	EXPECT_EQ(0, rg_create(self->dev, self->name, MB, 0, -1, NULL));
	EXPECT_EQ(-EEXIST, rg_create(self->dev, self->name, 2 * MB, 0, -1, NULL));
	EXPECT_EQ(-ENOENT, rg_open(self->dev, "no.such.region", 0, CXLTIER_OPEN_READ));
	EXPECT_EQ(-ENOENT, rg_destroy(self->dev, "no.such.region"));
}

/* mmap: MAP_PRIVATE, ranges past the end, unaligned offsets and the control device
 * itself are refused; a read-only file cannot be mapped writable. */
TEST_F_TIMEOUT(bad_input, mmap, 10)
{
	int fd, ro;
	void *p;

	ASSERT_EQ(0, rg_create(self->dev, self->name, 4 * MB, 0, -1, NULL));
	fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, MB, PROT_READ, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4 * MB + PAGE, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 4 * MB));
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 4 * MB - PAGE));
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 100));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->dev, 0));
	EXPECT_EQ(ENODEV, errno);
	ro = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ);
	ASSERT_LE(0, ro);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0));
	EXPECT_EQ(EACCES, errno);
	/* mremap cannot grow a mapping past what mmap checked (VM_DONTEXPAND). */
	p = map_region(fd, MB, 0, PROT_READ);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(MAP_FAILED, mremap(p, MB, 2 * MB, MREMAP_MAYMOVE));
	munmap(p, MB);
	close(ro);
	close(fd);
}

/* A bounded loop of random commands of our type and others, with random payloads
 * and pointers, gets errnos only; afterwards the device works, no region was left
 * behind and the nodes' free memory is back. */
TEST_F_TIMEOUT(bad_input, fuzz, 10)
{
	static const unsigned int nrs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0x0f, 0xff };
	union {
		uint64_t w[64];
		uint32_t size;
		struct cxltier_open open;
	} buf;
	uint64_t seed = 0x5eed0f0cafeULL;
	long before = free_kb(), after;
	int i, k, ok = 0, opened = 0;

	TH_LOG("seed %#llx", (unsigned long long)seed);
	for (i = 0; i < 20000; i++) {
		unsigned int dir = xorshift(&seed) % 4, size, nr, cmd;
		void *arg;
		long rc;

		nr = nrs[xorshift(&seed) % (sizeof(nrs) / sizeof(nrs[0]))];
		size = xorshift(&seed) % 2 ? xorshift(&seed) % 400 :
		       (unsigned int[]){ sizeof(struct cxltier_create),
					 sizeof(struct cxltier_open),
					 sizeof(struct cxltier_stat) }[xorshift(&seed) % 3];
		cmd = _IOC(dir, xorshift(&seed) % 8 ? CXLTIER_IOC_MAGIC : xorshift(&seed) & 0xff,
			   nr, size);
		for (k = 0; k < 64; k++) {
			/* Mostly zeroes, so that some requests get past the first checks. */
			buf.w[k] = xorshift(&seed) % 3 ? 0 : xorshift(&seed);
		}
		if (size >= 4)
			buf.size = xorshift(&seed) % 2 ? size : xorshift(&seed);
		switch (xorshift(&seed) % 8) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(uintptr_t)xorshift(&seed);
			break;
		default:
			arg = &buf;
		}
		rc = ioctl(self->dev, cmd, arg);
		if (rc >= 0) {
			ok++;
			/* An OPEN that got through returned a descriptor. */
			if (_IOC_TYPE(cmd) == CXLTIER_IOC_MAGIC && _IOC_NR(cmd) == 2) {
				close(buf.open.fd);
				opened++;
			}
		} else {
			ASSERT_TRUE(errno == EINVAL || errno == EFAULT || errno == ENOTTY ||
				    errno == E2BIG || errno == ENOENT || errno == ENAMETOOLONG ||
				    errno == EEXIST || errno == EPERM || errno == EFBIG ||
				    errno == ENOMEM || errno == EACCES || errno == ENOSPC)
				TH_LOG("cmd %#x: errno %d", cmd, errno);
		}
	}
	TH_LOG("%d of 20000 random commands succeeded (%d opens)", ok, opened);

	/* Whatever the fuzzer created (all names it can make are odd), destroy it. */
	{
		struct cxltier_list_entry e[256];
		struct cxltier_list l = { .size = sizeof(l), .count = 256,
					  .entries = (uintptr_t)e };
		uint32_t n;

		ASSERT_EQ(0, xioctl(self->dev, CXLTIER_IOC_LIST, &l));
		for (n = 0; n < l.count && n < 256; n++) {
			struct cxltier_destroy d = { .size = sizeof(d), .flags = CXLTIER_BY_ID,
						     .id = e[n].id };

			if (strncmp(e[n].name, "selftest.", 9))
				EXPECT_EQ(0, xioctl(self->dev, CXLTIER_IOC_DESTROY, &d));
		}
	}
	EXPECT_EQ(CXLTIER_ABI_VERSION, ioctl(self->dev, CXLTIER_IOC_VERSION));
	ASSERT_EQ(0, rg_create(self->dev, self->name, MB, 0, -1, NULL));
	EXPECT_EQ(0, rg_destroy(self->dev, self->name));
	after = free_kb();
	TH_LOG("free KiB: %ld before, %ld after", before, after);
	EXPECT_LE(labs(before - after), 1024);
}

/* Creating, filling and destroying regions over and over gives all memory back. */
TEST_F_TIMEOUT(bad_input, no_leak_after_destroy, 60)
{
	long before, after;
	int i, fd;
	char *p;

	before = free_kb();
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, rg_create(self->dev, self->name, 2 * MB,
				       nr_tiers && i % 2 ? CXLTIER_POLICY_INTERLEAVE :
				       CXLTIER_POLICY_FAST_FIRST, -1, NULL));
		fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
		ASSERT_LE(0, fd);
		p = map_region(fd, 2 * MB, 0, PROT_READ | PROT_WRITE);
		ASSERT_NE(NULL, p);
		fill(p, 2 * MB, i);
		ASSERT_EQ(0, rg_destroy(self->dev, self->name));
		munmap(p, 2 * MB);
		close(fd);
	}
	after = free_kb();
	TH_LOG("free KiB: %ld before, %ld after 8 x 2 MiB", before, after);
	EXPECT_LE(labs(before - after), 1024);
}

/* --- main: register the slow tiers for the whole group -------------------------------- */

static char added[MAX_TIERS][64];
static int nr_added;

/*
 * Two tiers prove what five do (interleave across nodes, one node after the other), and
 * under TCG each tier costs seconds to add and to remove (onlining, then offlining
 * its memory): in pool, all five took some 25 s of the group.
 */
#define GROUP_TIERS	2

/* Register committed CXL RAM regions that are not tiers yet, up to GROUP_TIERS. */
static void tiers_setup(void)
{
	nr_added = cxlt_add_ram_tiers(added, nr_added, GROUP_TIERS);
	nr_tiers = cxlt_tier_nodes(tier_nodes, MAX_TIERS);
}

static pid_t main_pid;

/* At exit of the main process only (test processes are its forks). */
/* The daemon's enable switch before the group turned it off ("" when it has none). */
static char daemon_was[8];

static void tiers_teardown(void)
{
	if (getpid() != main_pid)
		return;
	cxlt_remove_tiers(added, nr_added);
	if (daemon_was[0])
		cxlt_write(CXLT_SYSFS "/daemon/enable", daemon_was);
}

int main(int argc, char **argv)
{
	int i;

	/* test_harness_run() exits; remove the tiers this group added then. */
	main_pid = getpid();
	atexit(tiers_teardown);
	/*
	 * These tests check where first touch puts pages (move_pages(2) and STAT must
	 * agree page by page): the migration daemon, which moves pages and unmaps them
	 * to sample them, is off for the group (selftests/migration tests it).
	 */
	if (!cxlt_read(CXLT_SYSFS "/daemon/enable", daemon_was, sizeof(daemon_was)))
		cxlt_write(CXLT_SYSFS "/daemon/enable", "0");
	if (cxlt_module_loaded())
		tiers_setup();
	printf("# %d tier node(s) for this run:", nr_tiers);
	for (i = 0; i < nr_tiers; i++)
		printf(" %d", tier_nodes[i]);
	printf("\n");
	fflush(stdout);
	return test_harness_run(argc, argv);
}
