// SPDX-License-Identifier: GPL-2.0
/*
 * Tiers: a CXL RAM region registered with cxltier becomes a NUMA node in a memory tier
 * below DRAM that every NUMA interface of the kernel can use, and goes away again
 * without losing data.
 *
 * Theory of operation: the fixture registers the first committed RAM region through
 * /sys/kernel/cxltier/tier_add and removes it in teardown, so every test starts and
 * ends with the region unregistered.  Placement is checked with move_pages(2) in query
 * mode, which reports the node of each page.  Bad input is checked by errno of the
 * sysfs write; the reason is in the kernel log.
 *
 * Under TCG every access to CXL memory is an emulated MMIO access (about 1 MB/s for a
 * first touch, page zeroing included), so the data that lands on a CXL node is sized in
 * single MiB: a page placed or moved proves what 4096 do.  Each test's timeout is 10x
 * or more its time measured in the guest on Debian's kernel (a floor of 10 s).
 */
#include <dirent.h>
#include <glob.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"

#define MB		(1UL << 20)
#define NB_DEBUG	"/sys/kernel/debug/sched/numa_balancing"
#define PAGE		4096UL

static int tier_cmd(const char *file, const char *arg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), CXLT_SYSFS "/%s", file);
	return cxlt_write(path, arg);
}

/* The dax driver holding CXL region @r's memory ("kmem", "device_dax"), or "". */
static void region_holder(const char *r, char *out, size_t len)
{
	char pattern[PATH_MAX];
	glob_t g;

	out[0] = '\0';
	snprintf(pattern, sizeof(pattern), CXL_SYSFS "/%s/dax_region*/dax*/driver", r);
	if (glob(pattern, 0, NULL, &g))
		return;
	if (g.gl_pathc)
		cxlt_link_name(g.gl_pathv[0], out, len);
	globfree(&g);
}

/*
 * The first committed CXL RAM region of the CXL core that is free ("committed": no
 * tier, no dax driver holds it) or a tier ("tier"); 0, or -1 when there is none.
 */
static int find_region(const char *state, char *name, size_t len)
{
	glob_t g;
	size_t i;
	int rc = -1;

	if (glob(CXL_SYSFS "/region*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && rc; i++) {
		const char *r = strrchr(g.gl_pathv[i], '/') + 1;
		char path[PATH_MAX], v[32];
		bool tier;

		snprintf(path, sizeof(path), "%s/commit", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)) || strcmp(v, "1"))
			continue;
		snprintf(path, sizeof(path), "%s/mode", g.gl_pathv[i]);
		if (cxlt_read(path, v, sizeof(v)) || strcmp(v, "ram"))
			continue;
		snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s", r);
		tier = !access(path, F_OK);
		region_holder(r, v, sizeof(v));
		if (strcmp(state, "tier") ? tier || v[0] : !tier)
			continue;
		snprintf(name, len, "%s", r);
		rc = 0;
	}
	globfree(&g);
	return rc;
}

static int tier_node(const char *region)
{
	return (int)cxlt_read_u64(CXLT_SYSFS "/tiers/%s/%s", region, "node");
}

/*
 * Is @nid in a node list such as "0-1,5"?  (libnuma's parser only knows the nodes that
 * existed when the process started; tiers come later.)
 */
static bool in_nodelist(const char *list, int nid)
{
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return false;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (nid >= a && nid <= b)
			return true;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return false;
}

/* The memory tier id (memory_tierN) whose nodelist contains @nid, or -1. */
static int memtier_of(int nid)
{
	glob_t g;
	size_t i;
	int tier = -1;

	if (glob("/sys/devices/virtual/memory_tiering/memory_tier*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		char path[PATH_MAX], list[256];

		snprintf(path, sizeof(path), "%s/nodelist", g.gl_pathv[i]);
		if (cxlt_read(path, list, sizeof(list)))
			continue;
		if (in_nodelist(list, nid))
			tier = atoi(strrchr(g.gl_pathv[i], '/') + strlen("/memory_tier"));
	}
	globfree(&g);
	return tier;
}

/* Count the pages of [p, p + len) on @nid; all pages must be resident. */
static long pages_on(void *p, size_t len, int nid)
{
	unsigned long n = len / PAGE, i;
	void **pages = calloc(n, sizeof(void *));
	int *status = calloc(n, sizeof(int));
	long count = 0;

	for (i = 0; i < n; i++)
		pages[i] = (char *)p + i * PAGE;
	if (move_pages(0, n, pages, NULL, status, 0))
		count = -errno;
	for (i = 0; count >= 0 && i < n; i++)
		if (status[i] == nid)
			count++;
	free(pages);
	free(status);
	return count;
}

static void fill(void *p, size_t len, unsigned int seed)
{
	unsigned long *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = (i * 2654435761UL) ^ seed;
}

static size_t mismatches(void *p, size_t len, unsigned int seed)
{
	unsigned long *w = p;
	size_t i, bad = 0;

	for (i = 0; i < len / sizeof(*w); i++)
		bad += w[i] != ((i * 2654435761UL) ^ seed);
	return bad;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t vmstat(const char *key)
{
	char line[256];
	uint64_t v = 0, sum = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char k[128];

		if (sscanf(line, "%127s %lu", k, &v) == 2 && !strncmp(k, key, strlen(key)))
			sum += v;
	}
	fclose(f);
	return sum;
}

FIXTURE(tier) {
	char region[64];
	int nid;
};

FIXTURE_SETUP(tier)
{
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (find_region("committed", self->region, sizeof(self->region)))
		SKIP(return, "no committed CXL RAM region");
	ASSERT_EQ(0, tier_cmd("tier_add", self->region));
	self->nid = tier_node(self->region);
	ASSERT_GT(self->nid, 0);
}

FIXTURE_TEARDOWN(tier)
{
	if (self->region[0] && tier_node(self->region) >= 0)
		EXPECT_EQ(0, tier_cmd("tier_remove", self->region));
}

/* The region becomes a memory-only node whose memory tier is below DRAM's. */
TEST_F_TIMEOUT(tier, node_in_lower_tier, 20)
{
	char path[PATH_MAX], state[16];
	long long size = numa_node_size64(self->nid, NULL);

	EXPECT_EQ(cxlt_read_u64(CXL_SYSFS "/%s/%s", self->region, "size"), size);
	ASSERT_GE(memtier_of(0), 0);
	EXPECT_GT(memtier_of(self->nid), memtier_of(0));
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", self->region);
	ASSERT_EQ(0, cxlt_read(path, state, sizeof(state)));
	EXPECT_STREQ("online", state);
	EXPECT_EQ(0, system("grep -q 'System RAM (cxltier)' /proc/iomem"));
	EXPECT_EQ(0, system("numactl -H | grep -q \"^node $(cat " CXLT_SYSFS
			    "/tiers/*/node | head -n1) size: [1-9]\""));
}

/* MPOL_BIND to the tier's node puts every page there. */
TEST_F_TIMEOUT(tier, membind_places_pages, 15)
{
	size_t len = MB;
	unsigned long mask = 1UL << self->nid;
	char *p = map_anon(len);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mbind(p, len, MPOL_BIND, &mask, 64, 0));
	fill(p, len, 1);
	EXPECT_EQ(len / PAGE, pages_on(p, len, self->nid));
	EXPECT_EQ(0, mismatches(p, len, 1));
	munmap(p, len);
}

/* numactl --membind runs a whole job on the node (numa_maps shows N<nid>= pages). */
TEST_F_TIMEOUT(tier, numactl_membind_job, 30)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "numactl --membind=%d sh -c 'dd if=/dev/zero bs=64k count=16 2>/dev/null | "
		 "cat >/dev/null; grep -q \" N%d=\" /proc/$$/numa_maps'", self->nid, self->nid);
	EXPECT_EQ(0, system(cmd));
}

/* MPOL_INTERLEAVE over DRAM and the tier alternates pages between them. */
TEST_F_TIMEOUT(tier, interleave_alternates, 10)
{
	size_t len = 2 * MB;
	unsigned long mask = 1UL | (1UL << self->nid);
	char *p = map_anon(len);
	long on0, onN;

	ASSERT_NE(NULL, p);
	/* Small pages: a 2 MiB mapping may be THP-aligned, one huge page on one node. */
	madvise(p, len, MADV_NOHUGEPAGE);
	ASSERT_EQ(0, mbind(p, len, MPOL_INTERLEAVE, &mask, 64, 0));
	fill(p, len, 2);
	on0 = pages_on(p, len, 0);
	onN = pages_on(p, len, self->nid);
	EXPECT_EQ(len / PAGE, on0 + onN);
	EXPECT_GE(onN, (long)(len / PAGE) * 45 / 100);
	EXPECT_GE(on0, (long)(len / PAGE) * 45 / 100);
	munmap(p, len);
}

/* MPOL_PREFERRED for the tier puts pages there while it has room. */
TEST_F_TIMEOUT(tier, preferred_uses_node, 15)
{
	size_t len = MB;
	unsigned long mask = 1UL << self->nid;
	char *p = map_anon(len);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mbind(p, len, MPOL_PREFERRED, &mask, 64, 0));
	fill(p, len, 3);
	EXPECT_EQ(len / PAGE, pages_on(p, len, self->nid));
	munmap(p, len);
}

/* mbind(MPOL_MF_MOVE) moves a populated DRAM range to the tier, data intact. */
TEST_F_TIMEOUT(tier, mbind_moves_range, 20)
{
	size_t len = MB;
	unsigned long dram = 1UL, mask = 1UL << self->nid;
	char *p = map_anon(len);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mbind(p, len, MPOL_BIND, &dram, 64, 0));
	fill(p, len, 4);
	ASSERT_EQ(len / PAGE, pages_on(p, len, 0));
	ASSERT_EQ(0, mbind(p, len, MPOL_BIND, &mask, 64, MPOL_MF_MOVE));
	EXPECT_EQ(len / PAGE, pages_on(p, len, self->nid));
	EXPECT_EQ(0, mismatches(p, len, 4));
	munmap(p, len);
}

/* Removing a tier in use migrates its pages, mlock'd ones included: nothing is lost. */
TEST_F_TIMEOUT(tier, remove_keeps_data, 15)
{
	size_t len = MB;
	unsigned long mask = 1UL << self->nid;
	char *p = map_anon(len);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mbind(p, len, MPOL_PREFERRED, &mask, 64, 0));
	fill(p, len, 5);
	ASSERT_EQ(0, mlock(p, len / 2));
	ASSERT_EQ(len / PAGE, pages_on(p, len, self->nid));

	ASSERT_EQ(0, tier_cmd("tier_remove", self->region));
	EXPECT_EQ(0, pages_on(p, len, self->nid));
	EXPECT_EQ(0, mismatches(p, len, 5));
	EXPECT_EQ(0, numa_node_size64(self->nid, NULL) > 0);
	munlock(p, len / 2);
	munmap(p, len);
}

/* Twenty add/remove cycles (five on the debug kernel) under a running workload: the
 * node's memory comes back whole each time and DRAM does not shrink. */
TEST_F_TIMEOUT(tier, add_remove_loop_under_load, 120)
{
	long long total = numa_node_size64(self->nid, NULL), dram = numa_node_size64(0, NULL);
	pid_t child;
	int i, status;

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		unsigned long mask = 1UL << self->nid;
		size_t len = 2 * MB;

		/* Keep allocating, touching and freeing memory that prefers the tier. */
		set_mempolicy(MPOL_PREFERRED, &mask, 64);
		for (;;) {
			char *p = map_anon(len);

			if (p) {
				/*
				 * Linux 6.12 tries THP faults on a preferred node even when it
				 * is offline and logs a stack trace for it (mm/mempolicy.c);
				 * small pages fall back quietly.
				 */
				madvise(p, len, MADV_NOHUGEPAGE);
				fill(p, len, 6);
				if (mismatches(p, len, 6))
					_exit(1);
				munmap(p, len);
			}
		}
	}
	for (i = 0; i < cxlt_repeats(20); i++) {
		ASSERT_EQ(0, tier_cmd("tier_remove", self->region)) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, tier_cmd("tier_add", self->region)) TH_LOG("cycle %d", i);
		EXPECT_EQ(total, numa_node_size64(tier_node(self->region), NULL));
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("workload saw corrupted memory");
	EXPECT_EQ(dram, numa_node_size64(0, NULL));
}

/* Every committed region becomes a node of its own: in pool, one per blade plus the
 * interleaved set, each with the size and blades of its region. */
TEST_F_TIMEOUT(tier, every_region_its_own_node, 15)
{
	char names[16][64];
	int n = 0, i, j, nodes[16];

	names[n][0] = 0;
	while (n < 16 && !find_region("committed", names[n], sizeof(names[n]))) {
		ASSERT_EQ(0, tier_cmd("tier_add", names[n]));
		n++;
	}
	TH_LOG("registered %d more region(s) besides %s", n, self->region);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], a[PATH_MAX], b[PATH_MAX];

		nodes[i] = tier_node(names[i]);
		EXPECT_GT(nodes[i], 0);
		EXPECT_NE(self->nid, nodes[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(nodes[j], nodes[i]);
		EXPECT_EQ(cxlt_read_u64(CXL_SYSFS "/%s/%s", names[i], "size"),
			  numa_node_size64(nodes[i], NULL));
		/* The tier's device link is its CXL region. */
		snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/device", names[i]);
		ASSERT_NE(NULL, realpath(path, a));
		snprintf(path, sizeof(path), CXL_SYSFS "/%s", names[i]);
		ASSERT_NE(NULL, realpath(path, b));
		EXPECT_STREQ(a, b);
		EXPECT_GT(memtier_of(nodes[i]), memtier_of(0));
	}
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, tier_cmd("tier_remove", names[i]));
}

/* An operator's adistance puts the node in the tier that distance names. */
TEST_F_TIMEOUT(tier, adistance_override, 10)
{
	char arg[96];

	ASSERT_EQ(0, tier_cmd("tier_remove", self->region));
	snprintf(arg, sizeof(arg), "%s adistance=1000", self->region);
	ASSERT_EQ(0, tier_cmd("tier_add", arg));
	EXPECT_EQ(1000, cxlt_read_u64(CXLT_SYSFS "/tiers/%s/%s", self->region, "adistance"));
	EXPECT_EQ(1000 >> 7, memtier_of(tier_node(self->region)));
}

/* Bad input gets a clear errno and changes nothing. */
TEST_F_TIMEOUT(tier, bad_input, 10)
{
	char arg[128];

	EXPECT_EQ(-EEXIST, tier_cmd("tier_add", self->region));
	EXPECT_EQ(-ENOENT, tier_cmd("tier_add", "region999"));
	EXPECT_EQ(-ENOENT, tier_cmd("tier_add", "mem0"));
	EXPECT_EQ(-ENOENT, tier_cmd("tier_remove", "region999"));
	EXPECT_EQ(-EINVAL, tier_cmd("tier_add", "\n"));
	EXPECT_EQ(-EINVAL, tier_cmd("tier_add", "region0123456789012345678901234567890123456789"));
	snprintf(arg, sizeof(arg), "%s colour=blue", self->region);
	EXPECT_EQ(-EINVAL, tier_cmd("tier_add", arg));
	snprintf(arg, sizeof(arg), "%s adistance=0", self->region);
	EXPECT_EQ(-EINVAL, tier_cmd("tier_add", arg));
	snprintf(arg, sizeof(arg), "%s adistance=99999999", self->region);
	EXPECT_EQ(-EINVAL, tier_cmd("tier_add", arg));
	snprintf(arg, sizeof(arg), "%s adistance=1000", self->region);
	EXPECT_EQ(-EINVAL, tier_cmd("tier_remove", arg));
	/* Still registered, still usable. */
	EXPECT_EQ(self->nid, tier_node(self->region));
}

/* A region that is not committed is refused with ENXIO. */
TEST_F_TIMEOUT(tier, uncommitted_refused, 10)
{
	char root[PATH_MAX], r[64], path[PATH_MAX];

	snprintf(root, sizeof(root), CXL_SYSFS "/decoder0.0/create_ram_region");
	ASSERT_EQ(0, cxlt_read(root, r, sizeof(r)));
	ASSERT_EQ(0, cxlt_write(root, r));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	EXPECT_EQ(-ENXIO, tier_cmd("tier_add", r));
	snprintf(path, sizeof(path), CXL_SYSFS "/decoder0.0/delete_region");
	EXPECT_EQ(0, cxlt_write(path, r));
}

/* Seconds since @t0. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

#define HUGEPAGES0	"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"

/*
 * With demotion on, DRAM pressure demotes pages to the tier instead of OOM; with
 * numa_balancing=2, hot pages on the tier come back to DRAM.  Prints the vmstat
 * counters it saw.
 *
 * Under TCG each page demoted or promoted costs milliseconds (a copy to or from CXL
 * memory), so the test demotes little: huge pages reserved on node 0 take DRAM away
 * but 64 MiB (off the LRU: reclaim scans only the small buffer; Debian's kernel zeroes
 * them at reservation, init_on_alloc, as a first touch would), lowered watermarks
 * make reclaim stop soon, and 16 MiB over what is free, bound to DRAM, are enough
 * pressure.  The hot pages are placed on the tier directly (not left to the LRU's
 * choice of what to demote), so promotion always has pages to move.
 */
TEST_F_TIMEOUT(tier, demotion_and_promotion, 320)
{
	uint64_t dem0 = vmstat("pgdemote_"), pro0;
	char saved_hp[32] = "0", saved_min[32] = "", saved_wsf[32] = "", v[32];
	unsigned long mask = 1UL << self->nid, dram = 1UL;
	size_t len, hot_len = 2 * MB, i;
	long long dram_free;
	struct timespec t0;
	char *p, *hot;
	int round;

	/* Minutes there for the kernel's own reclaim and NUMA balancing, not our code. */
	if (cxlt_debug_kernel())
		SKIP(return, "debug kernel: demotion and promotion are the kernel's code (Debian's kernel runs this)");

	/* The hot pages: on the tier, with the default policy (promotion may move them). */
	hot = map_anon(hot_len);
	ASSERT_NE(NULL, hot);
	madvise(hot, hot_len, MADV_NOHUGEPAGE);
	ASSERT_EQ(0, mbind(hot, hot_len, MPOL_BIND, &mask, 64, 0));
	fill(hot, hot_len, 7);
	ASSERT_EQ(0, mbind(hot, hot_len, MPOL_DEFAULT, NULL, 0, 0));
	ASSERT_EQ(hot_len / PAGE, pages_on(hot, hot_len, self->nid));

	/* DRAM pressure. */
	cxlt_read(HUGEPAGES0, saved_hp, sizeof(saved_hp));
	cxlt_read("/proc/sys/vm/min_free_kbytes", saved_min, sizeof(saved_min));
	cxlt_read("/proc/sys/vm/watermark_scale_factor", saved_wsf, sizeof(saved_wsf));
	ASSERT_EQ(0, cxlt_write("/sys/kernel/mm/numa/demotion_enabled", "1"));
	cxlt_write("/proc/sys/vm/min_free_kbytes", "2048");
	cxlt_write("/proc/sys/vm/watermark_scale_factor", "1");
	numa_node_size64(0, &dram_free);
	if (dram_free > 96 * (long long)MB) {
		snprintf(v, sizeof(v), "%lld", (dram_free - 64 * (long long)MB) / (2 * (long long)MB));
		cxlt_write(HUGEPAGES0, v);	/* as many as it gets */
		numa_node_size64(0, &dram_free);
	}
	/*
	 * More than DRAM has free, less than DRAM free + the tier.  64 MiB over: with
	 * 4 or 16, reclaim on the debug kernel found enough elsewhere and demoted
	 * nothing (KASAN keeps freed objects in a quarantine of up to 1/32 of memory).
	 */
	len = (size_t)dram_free + 64 * MB;
	if (len > (size_t)numa_node_size64(self->nid, NULL) + (size_t)dram_free - 32 * MB)
		SKIP(goto out, "tier too small for the pressure test");
	p = map_anon(len);
	ASSERT_NE(NULL, p);
	madvise(p, len, MADV_NOHUGEPAGE);
	/* On DRAM only: else the allocator would fall back to the tier without reclaim. */
	ASSERT_EQ(0, mbind(p, len, MPOL_BIND, &dram, 64, 0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < len; i += PAGE)
		p[i] = 1;
	TH_LOG("pgdemote_* +%lu after touching %zu MB with %lld MB DRAM free (%.1f s)",
	       vmstat("pgdemote_") - dem0, len / MB, dram_free / (long long)MB, since(&t0));
	EXPECT_GT(vmstat("pgdemote_"), dem0);
	munmap(p, len);
	/* Promotion needs room in DRAM: it promotes only into a node above its high
	 * watermark. */
	cxlt_write(HUGEPAGES0, saved_hp);
	EXPECT_EQ(0, mismatches(hot, hot_len, 7));

	/*
	 * NUMA balancing scans a task's memory from the scheduler tick, so stay on the
	 * CPU (a sleeping task is hardly scanned), and scan often while the test runs.
	 */
	pro0 = vmstat("pgpromote_success");
	ASSERT_EQ(0, cxlt_write("/proc/sys/kernel/numa_balancing", "2"));
	cxlt_write(NB_DEBUG "/scan_delay_ms", "0");
	cxlt_write(NB_DEBUG "/scan_period_min_ms", "100");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < 120 && vmstat("pgpromote_success") == pro0; round++) {
		struct timespec r0;

		clock_gettime(CLOCK_MONOTONIC, &r0);
		do {
			for (i = 0; i < hot_len; i += PAGE)
				hot[i]++;
		} while (since(&r0) < 0.25);
	}
	TH_LOG("pgpromote_success +%lu after %d rounds (%.1f s), %ld of %lu hot pages on the tier",
	       vmstat("pgpromote_success") - pro0, round, since(&t0),
	       pages_on(hot, hot_len, self->nid), hot_len / PAGE);
	EXPECT_GT(vmstat("pgpromote_success"), pro0);
out:
	munmap(hot, hot_len);
	cxlt_write(HUGEPAGES0, saved_hp);
	if (saved_min[0])
		cxlt_write("/proc/sys/vm/min_free_kbytes", saved_min);
	if (saved_wsf[0])
		cxlt_write("/proc/sys/vm/watermark_scale_factor", saved_wsf);
	cxlt_write(NB_DEBUG "/scan_delay_ms", "1000");
	cxlt_write(NB_DEBUG "/scan_period_min_ms", "1000");
	cxlt_write("/proc/sys/kernel/numa_balancing", "0");
	cxlt_write("/sys/kernel/mm/numa/demotion_enabled", "0");
}

/*
 * A region held by the stock CXL path (dax_cxl + kmem) is refused with EBUSY, and once
 * freed the way the kernel log says, it registers.
 */
FIXTURE(stock) {
	char region[64];
};

FIXTURE_SETUP(stock)
{
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (find_region("committed", self->region, sizeof(self->region)))
		SKIP(return, "no committed CXL RAM region");
	if (system("modprobe -a dax_cxl kmem"))
		SKIP(return, "dax_cxl/kmem modules are missing");
}

FIXTURE_TEARDOWN(stock)
{
	char arg[96];

	if (self->region[0] && !access(CXLT_SYSFS "/tiers", F_OK)) {
		snprintf(arg, sizeof(arg), CXLT_SYSFS "/tiers/%s", self->region);
		if (!access(arg, F_OK))
			tier_cmd("tier_remove", self->region);
	}
	system("modprobe -r kmem dax_cxl 2>/dev/null");
}

TEST_F_TIMEOUT(stock, kmem_held_region_refused_then_freed, 30)
{
	char path[PATH_MAX], state[32], cmd[512];
	int i;

	/* kmem binds the region's dax device asynchronously. */
	for (i = 0; i < 50; i++) {
		region_holder(self->region, state, sizeof(state));
		if (!strcmp(state, "kmem"))
			break;
		usleep(100 * 1000);
	}
	ASSERT_STREQ("kmem", state);
	EXPECT_EQ(-EBUSY, tier_cmd("tier_add", self->region));

	/* The kernel log names the dax device and the commands that free it. */
	snprintf(cmd, sizeof(cmd),
		 "dmesg | grep 'tier add %s:' | tail -n1 | sed -n 's/.*free it with: //p' >/tmp/freecmd",
		 self->region);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, cxlt_read("/tmp/freecmd", cmd, sizeof(cmd)));
	ASSERT_NE(NULL, strstr(cmd, "daxctl offline-memory dax")) TH_LOG("%s", cmd);
	TH_LOG("running: %s", cmd);
	ASSERT_EQ(0, system(cmd));
	region_holder(self->region, state, sizeof(state));
	EXPECT_STREQ("", state);
	EXPECT_EQ(0, tier_cmd("tier_add", self->region));
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", self->region);
	ASSERT_EQ(0, cxlt_read(path, state, sizeof(state)));
	EXPECT_STREQ("online", state);
	EXPECT_GT(tier_node(self->region), 0);
}

TEST_HARNESS_MAIN
