// SPDX-License-Identifier: GPL-2.0
/*
 * Fencing of region pages whose memory failed.  The kernel's own memory-failure path
 * (MADV_HWPOISON runs memory_failure() on a page, as a machine check would) must
 * fence a region page: unmapped everywhere, never replaced by a fresh zeroed page,
 * SIGBUS BUS_MCEERR_AR with the address on the next access, reported by STAT and
 * PAGES; the other pages of the region keep their data.  Fencing a whole blade
 * (/sys/kernel/cxltier/blade_fence) does the same to every region page with data on
 * it, and nothing is placed on its memory again.
 *
 * A fence lasts until the module is unloaded, so this group removes its tiers and
 * reloads the module when it ends, for the groups after it.
 */
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"

#define PAGE		4096UL
#define NPAGES		16

static sigjmp_buf jb;
static volatile siginfo_t last;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	last = *si;
	siglongjmp(jb, 1);
}

/* Read one byte; true with last set when it faulted with SIGBUS. */
static bool read_faults(volatile char *p)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	struct sigaction old;
	bool faulted = false;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(jb, 1))
		(void)*p;
	else
		faulted = true;
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

FIXTURE(fence) {
	int dev;
	int fd;
	char name[CXLTIER_NAME_MAX];
	char *p;
};

FIXTURE_SETUP(fence)
{
	unsigned long i;

	self->fd = -1;
	self->p = MAP_FAILED;
	self->dev = dev_open();
	if (self->dev < 0)
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	snprintf(self->name, sizeof(self->name), "fence.%d", getpid());
	ASSERT_EQ(0, rg_create(self->dev, self->name, NPAGES * PAGE, CXLTIER_POLICY_FAST_FIRST,
			       -1, NULL));
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	for (i = 0; i < NPAGES; i++)
		memset(self->p + i * PAGE, 'a' + i, PAGE);
}

FIXTURE_TEARDOWN(fence)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, NPAGES * PAGE);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0) {
		rg_destroy(self->dev, self->name);
		close(self->dev);
	}
}

/* In a child (memory_failure() may signal the task that asked): poison one page. */
static int poison_child(void *addr)
{
	return madvise(addr, PAGE, MADV_HWPOISON) ? errno : 0;
}

/*
 * memory_failure() on a region page fences it: the region's address_space drops it
 * (->error_remove_folio) and the entry says FENCED, so a later access is SIGBUS
 * BUS_MCEERR_AR at that address, in this process and in one that maps the region
 * afterwards, and never a fresh page of zeroes.
 */
TEST_F_TIMEOUT(fence, hwpoison_fences_the_page, 30)
{
	const unsigned long victim = 5;
	struct rstat st;
	int32_t nodes[NPAGES];
	unsigned long i;
	char *q;
	int rc;

	rc = cxlt_in_child(poison_child, self->p + victim * PAGE);
	if (rc == EINVAL || rc == EPERM)
		SKIP(return, "MADV_HWPOISON is not available (%s)", strerror(rc));
	/* The child either returned or was killed by the kernel's SIGBUS: both are fine. */
	ASSERT_TRUE(rc == 0 || rc == 128 + SIGBUS) TH_LOG("madvise child: %d", rc);

	ASSERT_TRUE(read_faults(self->p + victim * PAGE + 17));
	EXPECT_EQ(SIGBUS, last.si_signo);
	EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
	EXPECT_EQ((void *)(self->p + victim * PAGE), (void *)((uintptr_t)last.si_addr & ~(PAGE - 1)));

	for (i = 0; i < NPAGES; i++) {
		if (i == victim)
			continue;
		ASSERT_FALSE(read_faults(self->p + i * PAGE));
		EXPECT_EQ('a' + i, self->p[i * PAGE + PAGE - 1]) TH_LOG("page %lu", i);
	}
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &st));
	EXPECT_EQ(1, st.st.fenced);
	EXPECT_EQ(NPAGES - 1, st.st.resident);
	ASSERT_EQ(NPAGES, rg_pages(self->fd, NULL, 0, NPAGES, nodes));
	EXPECT_EQ(CXLTIER_PAGE_FENCED, nodes[victim]);

	/* A new mapping (as another process would make) sees the fence too. */
	q = mmap(NULL, NPAGES * PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_TRUE(read_faults(q + victim * PAGE));
	EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
	EXPECT_FALSE(read_faults(q));
	munmap(q, NPAGES * PAGE);
}

/* --- fencing a blade (pool) ---------------------------------------------------------- */

#define BIG_PAGES	4096	/* 16 MiB */
#define MAX_TIERS	8

static char added[MAX_TIERS][64];
static int nr_added;
static pid_t main_pid;

static uint64_t pattern(unsigned long page, unsigned long word)
{
	return (page * 0x9E3779B97F4A7C15ULL) ^ (word << 3) ^ 0xfe11ce;
}

/* A tier on one blade only, and that blade's name; 0 when there is none. */
static int single_blade_tier(char *blade, size_t len)
{
	glob_t g;
	size_t i;
	int found = 0;

	if (glob(CXLT_SYSFS "/tiers/*/blades", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		char v[128];

		if (cxlt_read(g.gl_pathv[i], v, sizeof(v)) || !v[0] || strchr(v, ' '))
			continue;
		snprintf(blade, len, "%s", v);
		found = 1;
	}
	globfree(&g);
	return found;
}

static uint64_t blade_pages(const struct rstat *s, const char *blade)
{
	uint32_t i;

	for (i = 0; i < s->st.blade_count && i < 16; i++)
		if (!strcmp(s->blades[i].name, blade))
			return s->blades[i].pages;
	return 0;
}

/*
 * Fence a blade under a region interleaved over every tier: exactly the pages with
 * data on that blade are fenced (its own tier's, and its share of the interleaved
 * tier's); each of them is SIGBUS BUS_MCEERR_AR at its address, every other page
 * verifies; and new pages never land on memory that interleaves over the blade.
 */
TEST_F_TIMEOUT(fence, blade, 120)
{
	uint64_t *w, expect;
	struct rstat before, after;
	int32_t *nodes;
	unsigned long i, k, nfenced = 0;
	char blade[64], state[32], path[256], *q;
	int fd2;

	if (!single_blade_tier(blade, sizeof(blade)))
		SKIP(return, "no tier on a single blade");
	munmap(self->p, NPAGES * PAGE);
	close(self->fd);
	rg_destroy(self->dev, self->name);
	ASSERT_EQ(0, rg_create(self->dev, self->name, BIG_PAGES * PAGE,
			       CXLTIER_POLICY_INTERLEAVE, -1, NULL));
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, BIG_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	for (i = 0; i < BIG_PAGES; i++)
		for (w = (uint64_t *)(self->p + i * PAGE), k = 0; k < PAGE / 8; k++)
			w[k] = pattern(i, k);
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &before));
	expect = blade_pages(&before, blade);
	ASSERT_LT(0, expect) TH_LOG("no page on %s", blade);

	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	EXPECT_EQ(-EALREADY, cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	EXPECT_EQ(-ENOENT, cxlt_write(CXLT_SYSFS "/blade_fence", "mem999"));
	snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/state", blade);
	ASSERT_EQ(0, cxlt_read(path, state, sizeof(state)));
	EXPECT_STREQ("fenced", state);

	ASSERT_EQ(0, rg_stat(self->fd, NULL, &after));
	ksft_print_msg("%s held %llu of %d pages; fenced %llu\n", blade,
		       (unsigned long long)expect, BIG_PAGES,
		       (unsigned long long)after.st.fenced);
	EXPECT_EQ(expect, after.st.fenced);
	EXPECT_EQ(BIG_PAGES - expect, after.st.resident);

	nodes = calloc(BIG_PAGES, sizeof(*nodes));
	ASSERT_EQ(BIG_PAGES, rg_pages(self->fd, NULL, 0, BIG_PAGES, nodes));
	for (i = 0; i < BIG_PAGES; i++) {
		if (nodes[i] == CXLTIER_PAGE_FENCED) {
			nfenced++;
			ASSERT_TRUE(read_faults(self->p + i * PAGE + 8)) TH_LOG("page %lu", i);
			ASSERT_EQ(BUS_MCEERR_AR, last.si_code);
			ASSERT_EQ((void *)(self->p + i * PAGE),
				  (void *)((uintptr_t)last.si_addr & ~(PAGE - 1)));
			continue;
		}
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		for (w = (uint64_t *)(self->p + i * PAGE), k = 0; k < PAGE / 8; k++)
			ASSERT_EQ(pattern(i, k), w[k]) TH_LOG("page %lu word %lu", i, k);
	}
	EXPECT_EQ(expect, nfenced);

	/*
	 * New pages avoid every node whose memory interleaves over the fenced blade
	 * (when every tier is on it, as in single, there is no node left: SIGBUS).
	 */
	if (expect == BIG_PAGES)
		goto out;
	snprintf(path, sizeof(path), "%s.2", self->name);
	ASSERT_EQ(0, rg_create(self->dev, path, BIG_PAGES / 4 * PAGE, CXLTIER_POLICY_INTERLEAVE,
			       -1, NULL));
	fd2 = rg_open(self->dev, path, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd2);
	q = mmap(NULL, BIG_PAGES / 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	ASSERT_NE(MAP_FAILED, q);
	for (i = 0; i < BIG_PAGES / 4; i++)
		q[i * PAGE] = 1;
	ASSERT_EQ(0, rg_stat(fd2, NULL, &after));
	EXPECT_EQ(0, blade_pages(&after, blade));
	munmap(q, BIG_PAGES / 4 * PAGE);
	close(fd2);
	rg_destroy(self->dev, path);
out:
	free(nodes);
	munmap(self->p, BIG_PAGES * PAGE);
	self->p = MAP_FAILED;
}

/* At exit of the main process: the fence lasts until unload, so unload and reload. */
static void group_teardown(void)
{
	char params[1024];
	glob_t g;
	size_t i;
	int t;

	if (getpid() != main_pid || !cxlt_module_loaded())
		return;
	cxlt_module_params(params, sizeof(params));
	if (!glob(CXLT_SYSFS "/tiers/*", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			if (cxlt_write(CXLT_SYSFS "/tier_remove", strrchr(g.gl_pathv[i], '/') + 1))
				fprintf(stderr, "# cannot remove tier %s\n", g.gl_pathv[i]);
		globfree(&g);
	}
	for (t = 0; t < 200 && cxlt_rmmod(); t++)
		usleep(50000);
	if (cxlt_module_loaded())
		fprintf(stderr, "# cannot unload cxltier.ko: a fence stays for the groups after this one\n");
	else if (cxlt_insmod(params))
		fprintf(stderr, "# cannot load cxltier.ko again (%s)\n", params);
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	atexit(group_teardown);
	if (cxlt_module_loaded())
		nr_added = cxlt_add_ram_tiers(added, nr_added, MAX_TIERS);
	printf("# %d tier(s) added for this run\n", nr_added);
	fflush(stdout);
	return test_harness_run(argc, argv);
}
