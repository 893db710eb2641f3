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
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"
#include "cxlt_fence.h"

#define NPAGES		16

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
 * What a poisoning child may end with: it returned, the kernel's SIGBUS killed it,
 * or EBUSY: memory_failure() could not free the page (a per-CPU LRU batch held a
 * reference for a moment), and it is poisoned and fenced all the same
 * (->error_remove_folio ran): what follows checks that.
 */
static bool poison_done(int rc)
{
	return rc == 0 || rc == 128 + SIGBUS || rc == EBUSY;
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
	ASSERT_TRUE(poison_done(rc)) TH_LOG("madvise child: %d", rc);

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

/* --- REPLACE under concurrency -------------------------------------------------------- */

#define RACE_PAGES	32
#define RACE_REPLACERS	8
#define RACE_WRITERS	2
#define RACE_MAPPERS	2
#define RACE_THREADS	(RACE_REPLACERS + RACE_WRITERS + RACE_MAPPERS)

struct race {
	int fd;
	char *p;
	unsigned long round;
	pthread_barrier_t go;
	volatile int stop;
	/* The page raced for now, and a count that changes with each new page. */
	volatile long cur;
	unsigned long gen;
	int done;			/* threads done with the current page */
	long replaced;			/* sum of what REPLACE reported, all threads */
	int written[RACE_PAGES];	/* victims a writer filled this round */
	int errors;
};

static bool race_victim(unsigned long i, unsigned long round)
{
	/* Half the pages, a different half each round (neighbours of live pages). */
	return ((i + round) & 1) == 0;
}

/* Wait for the next page to race for; 0 when told to stop. */
static unsigned long race_next(struct race *rc, unsigned long seen)
{
	unsigned long g;

	while (!rc->stop) {
		g = __atomic_load_n(&rc->gen, __ATOMIC_ACQUIRE);
		if (g != seen)
			return g;
		sched_yield();
	}
	return 0;
}

/* All replacers REPLACE the same page at once (every fourth time, the whole range). */
static void *race_replacer(void *arg)
{
	struct race *rc = arg;
	unsigned long g = 0;
	long n;

	pthread_barrier_wait(&rc->go);
	while ((g = race_next(rc, g))) {
		n = g % 4 ? rg_replace(rc->fd, rc->cur * PAGE, PAGE) :
			    rg_replace(rc->fd, 0, RACE_PAGES * PAGE);
		if (n < 0)
			__atomic_add_fetch(&rc->errors, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&rc->replaced, n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&rc->done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Map and unmap the region over and over: each mmap() and munmap() takes the
 * mapping's i_mmap_rwsem for writing, so a REPLACE that unmaps a page (which takes
 * it for reading) waits there, in the middle of its work, as on a busy host.
 */
static void *race_mapper(void *arg)
{
	struct race *rc = arg;
	void *q;

	pthread_barrier_wait(&rc->go);
	while (!rc->stop) {
		q = mmap(NULL, RACE_PAGES * PAGE, PROT_READ, MAP_SHARED, rc->fd, 0);
		if (q == MAP_FAILED) {
			__atomic_add_fetch(&rc->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		munmap(q, RACE_PAGES * PAGE);
	}
	return NULL;
}

/* Fill the page raced for the moment it is no longer fenced: a fault right after. */
static void *race_writer(void *arg)
{
	struct race *rc = arg;
	unsigned long g = 0, k;
	int32_t node;
	uint64_t *w;
	long pg;

	pthread_barrier_wait(&rc->go);
	while ((g = race_next(rc, g))) {
		pg = rc->cur;
		do {
			if (rg_pages(rc->fd, NULL, pg * PAGE, 1, &node) != 1) {
				__atomic_add_fetch(&rc->errors, 1, __ATOMIC_RELAXED);
				break;
			}
		} while (node == CXLTIER_PAGE_FENCED && !rc->stop);
		/* Both writers fill the page with the same bytes. */
		for (w = (uint64_t *)(rc->p + pg * PAGE), k = 0; k < PAGE / 8; k++)
			w[k] = pattern(pg, k) ^ rc->round;
		__atomic_store_n(&rc->written[pg], 1, __ATOMIC_RELEASE);
		__atomic_add_fetch(&rc->done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The module's accounting and the per-user charges (debugfs), one after the other. */
static int race_acct(char *buf, size_t len)
{
	size_t n;
	int rc = cxlt_read("/sys/kernel/debug/cxltier/accounting", buf, len);

	if (rc)
		return rc;
	n = strlen(buf);
	if (n + 2 >= len)
		return -ENOSPC;
	buf[n++] = '\n';
	return cxlt_read("/sys/kernel/debug/cxltier/users", buf + n, len - n);
}

/*
 * Eight threads REPLACE the same fenced pages while two others write each page the
 * moment it is replaced and two more map and unmap the region (which makes a
 * REPLACE wait inside its work), round after round.  REPLACE drops a folio only
 * while the page is still FENCED under its folio lock, so a live page that a fault
 * put in after another REPLACE is never dropped: every written page reads back, no
 * page is PRESENT without a folio (it would read as zeroes), each fenced page is
 * replaced exactly once, and the module's accounting and the owner's charges are
 * back where they were when the region is gone.
 */
TEST_F_TIMEOUT(fence, replace_races_faults, 300)
{
	const int rounds = cxlt_repeats(24);
	pthread_t th[RACE_THREADS];
	char name[CXLTIER_NAME_MAX], before[2048], after[2048];
	unsigned long i, k, victims, bad = 0;
	struct race rc = { .fd = -1 };
	unsigned long ver[RACE_PAGES] = { };	/* the round whose bytes a page holds */
	int32_t nodes[RACE_PAGES];
	struct rstat st;
	int r, t, rcode;

	ASSERT_EQ(0, race_acct(before, sizeof(before)));
	snprintf(name, sizeof(name), "fence.race.%d", getpid());
	ASSERT_EQ(0, rg_create(self->dev, name, RACE_PAGES * PAGE, CXLTIER_POLICY_FAST_FIRST,
			       -1, NULL));
	rc.fd = rg_open(self->dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, rc.fd);
	rc.p = mmap(NULL, RACE_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, rc.fd, 0);
	ASSERT_NE(MAP_FAILED, rc.p);
	fill(rc.p, 0, RACE_PAGES);

	for (r = 1; r <= rounds; r++) {
		rc.round = r;
		rc.stop = 0;
		rc.gen = 0;
		rc.replaced = 0;
		memset(rc.written, 0, sizeof(rc.written));
		victims = 0;
		for (i = 0; i < RACE_PAGES; i++) {
			if (!race_victim(i, r))
				continue;
			rcode = cxlt_in_child(poison_child, rc.p + i * PAGE);
			if (rcode == EINVAL || rcode == EPERM)
				SKIP(goto out, "MADV_HWPOISON is not available (%s)",
				     strerror(rcode));
			ASSERT_TRUE(poison_done(rcode)) TH_LOG("child: %d", rcode);
			victims++;
		}
		ASSERT_EQ(RACE_PAGES, rg_pages(rc.fd, NULL, 0, RACE_PAGES, nodes));
		for (i = 0, k = 0; i < RACE_PAGES; i++)
			k += race_victim(i, r) != (nodes[i] == CXLTIER_PAGE_FENCED);
		ASSERT_EQ(0, k) TH_LOG("round %d: %lu pages not fenced as poisoned", r, k);

		ASSERT_EQ(0, pthread_barrier_init(&rc.go, NULL, RACE_THREADS + 1));
		for (t = 0; t < RACE_THREADS; t++)
			ASSERT_EQ(0, pthread_create(&th[t], NULL,
						    t < RACE_REPLACERS ? race_replacer :
						    t < RACE_REPLACERS + RACE_WRITERS ? race_writer :
						    race_mapper, &rc));
		pthread_barrier_wait(&rc.go);
		/* One victim at a time: every replacer and writer on the same page. */
		for (i = 0; i < RACE_PAGES; i++) {
			if (!race_victim(i, r))
				continue;
			rc.cur = i;
			__atomic_store_n(&rc.done, 0, __ATOMIC_RELAXED);
			__atomic_add_fetch(&rc.gen, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&rc.done, __ATOMIC_ACQUIRE) <
			       RACE_REPLACERS + RACE_WRITERS)
				sched_yield();
		}
		rc.stop = 1;
		for (t = 0; t < RACE_THREADS; t++)
			pthread_join(th[t], NULL);
		pthread_barrier_destroy(&rc.go);

		ASSERT_EQ(0, rc.errors);
		EXPECT_EQ((long)victims, rc.replaced) TH_LOG("round %d", r);
		for (i = 0; i < RACE_PAGES; i++) {
			uint64_t *w = (uint64_t *)(rc.p + i * PAGE);

			if (race_victim(i, r))
				ver[i] = r;
			for (k = 0; k < PAGE / 8; k++)
				if (w[k] != (pattern(i, k) ^ ver[i])) {
					bad++;
					break;
				}
		}
		ASSERT_EQ(0, bad) TH_LOG("round %d: %lu pages lost their data", r, bad);
		ASSERT_EQ(0, rg_stat(rc.fd, NULL, &st));
		ASSERT_EQ(0, st.st.fenced) TH_LOG("round %d", r);
		ASSERT_EQ(RACE_PAGES, st.st.resident) TH_LOG("round %d", r);
	}
	ksft_print_msg("%d rounds of %d REPLACE threads against %d writers and %d mappers\n",
		       rounds, RACE_REPLACERS, RACE_WRITERS, RACE_MAPPERS);
out:
	munmap(rc.p, RACE_PAGES * PAGE);
	close(rc.fd);
	ASSERT_EQ(0, rg_destroy(self->dev, name));
	/* The region's pages are uncharged when its last file goes: at once here. */
	for (t = 0; t < 100 * cxlt_timeout_scale(); t++) {
		ASSERT_EQ(0, race_acct(after, sizeof(after)));
		if (!strcmp(before, after))
			break;
		usleep(50000);
	}
	EXPECT_STREQ(before, after);
}

/* --- fencing a blade (pool) ---------------------------------------------------------- */

#define BIG_PAGES	4096	/* 16 MiB */


/* MemTotal of NUMA node @node in KiB; 0 when the node has no memory (or is gone). */
static long node_mem_kb(int node)
{
	char path[128], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* --- fencing a blade under load (pool) ----------------------------------------------- */

#define WORKERS		4	/* 0-2 on the region over every blade, 3 elsewhere */
#define RAM_PAGES	256	/* system-RAM pages a numactl-style user has on the blade */

struct load {
	volatile int stop;
	volatile int passes[WORKERS + 1];
	int sigbus[WORKERS + 1];	/* pages that faulted with BUS_MCEERR_AR */
	int badsig[WORKERS + 1];	/* SIGBUS with another code or address */
	int mismatch[WORKERS + 1];	/* a word that did not verify */
	unsigned char seen[WORKERS][BIG_PAGES];	/* 1: the page faulted */
};

static volatile char *fault_page;

static void on_worker_sigbus(int sig, siginfo_t *si, void *uc)
{
	last = *si;
	siglongjmp(jb, 1);
}

/* Touch page @i (read two words, write one back); 1 when it faulted. */
static int touch(struct load *ld, int w, char *p, unsigned long i, unsigned long logical)
{
	volatile uint64_t *word = (volatile uint64_t *)(p + i * PAGE);

	fault_page = (volatile char *)word;
	if (sigsetjmp(jb, 1)) {
		if (last.si_code != BUS_MCEERR_AR ||
		    ((uintptr_t)last.si_addr & ~(PAGE - 1)) != (uintptr_t)fault_page)
			ld->badsig[w]++;
		return 1;
	}
	if (word[0] != pattern(logical, 0) || word[PAGE / 8 - 1] != pattern(logical, PAGE / 8 - 1))
		ld->mismatch[w]++;
	word[0] = pattern(logical, 0);
	return 0;
}

/* Worker @w: pages i % 3 == w of @p (@n pages), or all of them (w == 3). */
static int worker(struct load *ld, int w, char *p, unsigned long n)
{
	struct sigaction sa = { .sa_sigaction = on_worker_sigbus, .sa_flags = SA_SIGINFO };
	unsigned long i;
	int last_pass;

	sigaction(SIGBUS, &sa, NULL);
	do {
		last_pass = ld->stop;
		for (i = 0; i < n; i++) {
			if ((w < 3 && i % 3 != (unsigned long)w) || ld->seen[w][i])
				continue;
			if (touch(ld, w, p, i, i)) {
				ld->seen[w][i] = 1;
				ld->sigbus[w]++;
			}
		}
		ld->passes[w]++;
	} while (!last_pass);
	return 0;
}

/* A numactl-style user: RAM_PAGES of anonymous memory bound to @node. */
static int ram_user(struct load *ld, int node)
{
	struct sigaction sa = { .sa_sigaction = on_worker_sigbus, .sa_flags = SA_SIGINFO };
	unsigned long mask[16] = { }, i;
	char *p = mmap(NULL, RAM_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	mask[node / 64] = 1UL << (node % 64);
	if (p == MAP_FAILED || syscall(SYS_mbind, p, RAM_PAGES * PAGE, 2 /* MPOL_BIND */,
				       mask, 1024, 0))
		return 2;
	fill(p, 0, RAM_PAGES);
	sigaction(SIGBUS, &sa, NULL);
	ld->passes[WORKERS] = 1;
	while (!ld->stop)
		usleep(10000);
	for (i = 0; i < RAM_PAGES; i++) {
		if (touch(ld, WORKERS, p, i, i))
			ld->sigbus[WORKERS]++;
	}
	return 0;
}

/* Wait until every worker (and the RAM user: @min 1) has done @min passes. */
static int wait_passes(struct load *ld, int min, int secs)
{
	int w, t;

	for (t = 0; t < secs * 100; t++) {
		for (w = 0; w < WORKERS && ld->passes[w] >= min; w++)
			;
		if (w == WORKERS && ld->passes[WORKERS])
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * List @blade's own tier @tier after its interleaved tiers (remove it, add it
 * again): the fence queues the tiers in list order, and the own tier must not wait
 * for an interleaved tier's offline, whose page moves can pick free pages of the
 * failed blade's own tier as targets and are refused until offline_timeout_s (600 s
 * in CI).  The interleaved tiers' names into @names (space-separated); how many, or
 * -1.
 */
static int own_tier_last(const char *blade, const char *tier, char *names, size_t len)
{
	char v[256], path[256], *tok, *save = NULL;
	int n = 0;

	names[0] = 0;
	snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/tiers", blade);
	if (cxlt_read(path, v, sizeof(v)))
		return -1;
	for (tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (cxlt_read_u64(CXL_SYSFS "/%s/%s", tok, "interleave_ways") < 2)
			continue;
		snprintf(names + strlen(names), len - strlen(names), "%s%s", n ? " " : "", tok);
		n++;
	}
	if (cxlt_write(CXLT_SYSFS "/tier_remove", tier) || cxlt_write(CXLT_SYSFS "/tier_add", tier))
		return -1;
	return n;
}

/* Wait up to @secs (scaled) for tier @tier to say offline; 0 or -1. */
static int wait_offline(const char *tier, int secs)
{
	char path[256], state[32] = "";
	int k;

	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", tier);
	for (k = 0; k < secs * 10 * cxlt_timeout_scale(); k++) {
		if (!cxlt_read(path, state, sizeof(state)) && !strcmp(state, "offline"))
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * Fence blade A while four processes read and write: three share a region whose
 * pages are interleaved over every tier (each its third of the pages), one has a
 * region on another blade, and a fifth holds anonymous memory bound to A's node.
 * Every page with data on A faults with SIGBUS BUS_MCEERR_AR at its address, once
 * per process that touches it; every other page verifies; the process elsewhere is
 * undisturbed; the anonymous pages (system RAM on A) get the kernel's hwpoison
 * SIGBUS; and new pages never land on memory that interleaves over A.
 */
TEST_F_TIMEOUT(fence, blade, 1200)
{
	struct rstat before, after;
	struct cxltier_event ev;
	struct load *ld;
	int32_t *nodes;
	unsigned long i, nfenced = 0, share[3] = { };
	char blade[64], other[64], state[32], path[256], tier[64], ileaved[256], *q, *tok;
	int node, onode, fd2, w, k, status, rc = -1;
	pid_t pid[WORKERS + 1];
	time_t t_fence;
	uint64_t seq;

	if (!healthy_blade(blade, sizeof(blade), &node, NULL))
		SKIP(return, "no tier on a single blade");
	snprintf(tier, sizeof(tier), "%s", healthy_tier);
	if (!healthy_blade(other, sizeof(other), &onode, blade))
		SKIP(return, "no second blade (single topology)");
	ASSERT_LT(0, own_tier_last(blade, tier, ileaved, sizeof(ileaved)))
		TH_LOG("no interleaved tier on %s, or %s could not be added again", blade, tier);
	munmap(self->p, NPAGES * PAGE);
	close(self->fd);
	rg_destroy(self->dev, self->name);
	ASSERT_EQ(0, rg_create(self->dev, self->name, BIG_PAGES * PAGE,
			       CXLTIER_POLICY_INTERLEAVE, -1, NULL));
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, BIG_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fill(self->p, 0, BIG_PAGES);
	snprintf(path, sizeof(path), "%s.elsewhere", self->name);
	ASSERT_EQ(0, rg_create_on(self->dev, path, BIG_PAGES / 4 * PAGE, onode));
	fd2 = rg_open(self->dev, path, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd2);
	q = mmap(NULL, BIG_PAGES / 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	ASSERT_NE(MAP_FAILED, q);
	fill(q, 0, BIG_PAGES / 4);
	ASSERT_EQ(0, rg_stat(self->fd, NULL, &before));
	ASSERT_LT(0, blade_pages(&before, blade)) TH_LOG("no page on %s", blade);

	ld = mmap(NULL, sizeof(*ld), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ld);
	for (w = 0; w <= WORKERS; w++) {
		pid[w] = fork();
		if (pid[w] < 0) {
			ld->stop = 1;
			for (k = 0; k < w; k++)
				waitpid(pid[k], NULL, 0);
			ASSERT_LE(0, pid[w]);
		}
		if (!pid[w])
			_exit(w < 3 ? worker(ld, w, self->p, BIG_PAGES) :
			      w == 3 ? worker(ld, w, q, BIG_PAGES / 4) : ram_user(ld, node));
	}
	/* No ASSERT until the workers are reaped: they would spin on after the test. */
	EXPECT_EQ(0, wait_passes(ld, 1, 120)) TH_LOG("workers did not start");
	seq = events_next(self->dev);
	/*
	 * An offline that cannot finish holds for offline_timeout_s: long, so that a
	 * tier waiting behind another tier's stuck offline shows (the own tier's
	 * offline takes 1-6 s; 60 s below is a 10x margin).
	 */
	EXPECT_EQ(0, cxlt_write(CXLT_PARAMS "/offline_timeout_s", "600"));
	t_fence = time(NULL);
	EXPECT_EQ(0, rc = cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	if (!rc)
		EXPECT_EQ(0, wait_passes(ld, ld->passes[0] + 2, 120)) TH_LOG("workers stalled");
	ld->stop = 1;
	for (w = 0; w <= WORKERS; w++) {
		if (waitpid(pid[w], &status, 0) != pid[w])
			continue;
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %d: status %#x", w, status);
	}
	ASSERT_EQ(0, rc);

	EXPECT_EQ(-EALREADY, cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	EXPECT_EQ(-ENOENT, cxlt_write(CXLT_SYSFS "/blade_fence", "mem999"));
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("fenced", state);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, blade, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_ADMIN, ev.cause);
	EXPECT_LE(RAM_PAGES, ev.ram_pages);
	EXPECT_EQ(ev.pages, blade_counter(blade, "fenced_pages"));
	ksft_print_msg("%s fenced: %llu region + %llu system-RAM pages in %llu us\n", blade,
		       (unsigned long long)(ev.pages - ev.ram_pages),
		       (unsigned long long)ev.ram_pages,
		       (unsigned long long)ev.duration_ns / 1000);

	ASSERT_EQ(0, rg_stat(self->fd, NULL, &after));
	EXPECT_EQ(blade_pages(&before, blade), after.st.fenced);
	nodes = calloc(BIG_PAGES, sizeof(*nodes));
	ASSERT_EQ(BIG_PAGES, rg_pages(self->fd, NULL, 0, BIG_PAGES, nodes));
	for (i = 0; i < BIG_PAGES; i++) {
		if (nodes[i] != CXLTIER_PAGE_FENCED)
			continue;
		nfenced++;
		share[i % 3]++;
		EXPECT_TRUE(ld->seen[i % 3][i]) TH_LOG("fenced page %lu did not fault", i);
	}
	EXPECT_EQ(after.st.fenced, nfenced);
	for (w = 0; w < 3; w++) {
		EXPECT_EQ((int)share[w], ld->sigbus[w]) TH_LOG("worker %d", w);
		EXPECT_EQ(0, ld->badsig[w]) TH_LOG("worker %d", w);
		EXPECT_EQ(0, ld->mismatch[w]) TH_LOG("worker %d", w);
	}
	EXPECT_EQ(0, ld->sigbus[3] + ld->badsig[3] + ld->mismatch[3]);
	EXPECT_EQ(RAM_PAGES, ld->sigbus[WORKERS]);
	EXPECT_EQ(0, ld->badsig[WORKERS]);
	ksft_print_msg("faults per worker: %d %d %d, elsewhere %d, system RAM %d/%d\n",
		       ld->sigbus[0], ld->sigbus[1], ld->sigbus[2], ld->sigbus[3],
		       ld->sigbus[WORKERS], RAM_PAGES);

	/* Every other page verifies, here too. */
	for (i = 0; i < BIG_PAGES; i++)
		if (nodes[i] != CXLTIER_PAGE_FENCED)
			ASSERT_EQ(0, touch(ld, 0, self->p, i, i)) TH_LOG("page %lu", i);
	EXPECT_EQ(0, ld->mismatch[0]);

	/* New pages avoid every node whose memory interleaves over the fenced blade. */
	munmap(q, BIG_PAGES / 4 * PAGE);
	ASSERT_EQ(0, rg_destroy(self->dev, path));
	close(fd2);
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
	free(nodes);
	munmap(ld, sizeof(*ld));
	munmap(self->p, BIG_PAGES * PAGE);
	self->p = MAP_FAILED;

	/*
	 * Step 4: the blade's own tier goes offline, so that no free page of the failed
	 * blade is handed out again (its node has no memory left); "tier remove" then
	 * only unlists it, and its region cannot become a tier again while the blade is
	 * fenced.
	 */
	EXPECT_EQ(0, wait_offline(tier, 60)) TH_LOG("tier %s", tier);
	ksft_print_msg("tier %s offline %ld s after the fence began\n", tier,
		       (long)(time(NULL) - t_fence));
	/* The interleaved tiers too: their pages on healthy positions moved away. */
	for (tok = strtok(ileaved, " "); tok; tok = strtok(NULL, " ")) {
		EXPECT_EQ(0, wait_offline(tok, 60)) TH_LOG("interleaved tier %s", tok);
		ksft_print_msg("interleaved tier %s offline %ld s after the fence began\n", tok,
			       (long)(time(NULL) - t_fence));
	}
	cxlt_write(CXLT_PARAMS "/offline_timeout_s", "60");
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/state", tier);
	EXPECT_EQ(0, node_mem_kb(node)) TH_LOG("node %d", node);
	EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/tier_remove", tier));
	EXPECT_EQ(-EIO, cxlt_write(CXLT_SYSFS "/tier_add", tier));
	EXPECT_NE(0, access(path, F_OK));
}

/* Replace the fixture's region by one of @n pages on @node, filled with the pattern. */
static int region_on(struct __test_metadata *_metadata, FIXTURE_DATA(fence) *self, int node,
		     unsigned long n)
{
	munmap(self->p, NPAGES * PAGE);
	close(self->fd);
	rg_destroy(self->dev, self->name);
	self->p = MAP_FAILED;
	if (rg_create_on(self->dev, self->name, n * PAGE, node))
		return -1;
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (self->fd < 0)
		return -1;
	self->p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	if (self->p == MAP_FAILED)
		return -1;
	fill(self->p, 0, n);
	return 0;
}

/*
 * Poison reported by the device (here injected through the CXL core's debugfs,
 * which reports it as the poison list does) fences exactly the poisoned page of a
 * region: SIGBUS BUS_MCEERR_AR there, the rest verifies.  FENCED says which blade
 * and why; REPLACE gives a zeroed page in its place, and the job goes on; the event
 * log has the poison, the fence and the replacement.  Past poison_fence_blade
 * poisoned pages, the whole blade is fenced.
 */
TEST_F_TIMEOUT(fence, poison, 120)
{
	const unsigned long n = 64, victim = 9, second = 40;
	struct cxltier_fenced f;
	struct cxltier_event ev;
	char blade[64], state[32], path[256];
	uint64_t dpa, seq;
	unsigned long i;
	int node;

	if (!healthy_blade(blade, sizeof(blade), &node, NULL))
		SKIP(return, "no healthy single-blade tier left");
	snprintf(path, sizeof(path), "/sys/kernel/debug/cxl/%s/inject_poison", blade);
	if (access(path, W_OK))
		SKIP(return, "no %s", path);
	ASSERT_EQ(0, region_on(_metadata, self, node, n));
	dpa = dpa_of(healthy_tier, self->p + victim * PAGE);
	ASSERT_NE(0, dpa);
	seq = events_next(self->dev);
	ASSERT_EQ(0, inject_poison(blade, dpa + 128));
	ASSERT_EQ(0, wait_fenced(self->fd, victim, 20)) TH_LOG("page %lu not fenced", victim);

	ASSERT_TRUE(read_faults(self->p + victim * PAGE + 5));
	EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
	for (i = 0; i < n; i++)
		if (i != victim)
			ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
	ASSERT_EQ(0, rg_fenced(self->fd, victim * PAGE + 5, &f));
	EXPECT_EQ(1, f.fenced);
	EXPECT_STREQ(blade, f.blade);
	EXPECT_EQ(CXLTIER_CAUSE_POISON, f.cause);
	EXPECT_NE(0, f.time_ns);
	ASSERT_EQ(0, rg_fenced(self->fd, 0, &f));
	EXPECT_EQ(0, f.fenced);
	EXPECT_EQ(-EINVAL, rg_fenced(self->fd, n * PAGE, &f));
	/* The poison record comes once the pages are poisoned: after the fence. */
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_POISON, blade, &ev, 30));
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE_PAGE, blade, &ev, 30));
	EXPECT_EQ(victim * PAGE, ev.offset);
	EXPECT_EQ(1, ev.pages);
	EXPECT_STREQ(self->name, ev.region);
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("online", state);
	EXPECT_EQ(1, blade_counter(blade, "poisoned_pages"));

	/* The job restores the page from its checkpoint: a zeroed page first. */
	EXPECT_EQ(-EINVAL, rg_replace(self->fd, 1, PAGE));
	EXPECT_EQ(-EINVAL, rg_replace(self->fd, 0, (n + 1) * PAGE));
	EXPECT_EQ(1, rg_replace(self->fd, 0, n * PAGE));
	EXPECT_EQ(0, rg_replace(self->fd, 0, n * PAGE));
	ASSERT_FALSE(read_faults(self->p + victim * PAGE));
	EXPECT_EQ(0, self->p[victim * PAGE + 5]);
	fill(self->p + victim * PAGE, victim, 1);
	for (i = 0; i < n; i++)
		ASSERT_EQ(pattern(i, 7), ((uint64_t *)(self->p + i * PAGE))[7]);
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_REPLACE, NULL, &ev));
	EXPECT_EQ(1, ev.pages);

	/* Policy: with poison_fence_blade=2, a second poisoned page fences the blade. */
	ASSERT_EQ(0, cxlt_write(CXLT_PARAMS "/poison_fence_blade", "2"));
	dpa = dpa_of(healthy_tier, self->p + second * PAGE);
	ASSERT_EQ(0, inject_poison(blade, dpa));
	for (i = 0; i < 200; i++) {
		blade_state(blade, state, sizeof(state));
		if (!strcmp(state, "fenced"))
			break;
		usleep(50000);
	}
	cxlt_write(CXLT_PARAMS "/poison_fence_blade", "16");
	EXPECT_STREQ("fenced", state);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, blade, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_POISON, ev.cause);
	for (i = 0; i < n; i++)
		ASSERT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
}

/* A blade whose state is "fenced": its name; 0 if none. */
static int fenced_blade(char *blade, size_t len)
{
	char st[32];
	glob_t g;
	size_t i;
	int found = 0;

	if (glob(CXLT_SYSFS "/blades/*", GLOB_ONLYDIR, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		snprintf(blade, len, "%s", strrchr(g.gl_pathv[i], '/') + 1);
		blade_state(blade, st, sizeof(st));
		found = !strcmp(st, "fenced");
	}
	globfree(&g);
	return found;
}

/*
 * Drain a blade under a region on it: every page moves off (no SIGBUS, every page
 * verifies), the blade is out of service, progress counters add up; then restore.
 * Bad requests are refused with the reason and change nothing.
 */
TEST_F_TIMEOUT(fence, drain_and_restore, 300)
{
	const unsigned long n = 1024;
	struct cxltier_event ev;
	char blade[64], other[64], state[32], *q;
	int32_t *nodes;
	unsigned long i;
	uint64_t seq;
	int node, onode, fd;

	if (!healthy_blade(blade, sizeof(blade), &node, NULL))
		SKIP(return, "no healthy single-blade tier left");
	ASSERT_EQ(0, region_on(_metadata, self, node, n));
	seq = events_next(self->dev);
	EXPECT_EQ(-ENOENT, cxlt_write(CXLT_SYSFS "/blade_drain", "mem999"));
	EXPECT_EQ(-EALREADY, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_drain", blade));
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("out-of-service", state);
	EXPECT_EQ(-EALREADY, cxlt_write(CXLT_SYSFS "/blade_drain", blade));
	EXPECT_LE(n, blade_counter(blade, "drained_pages"));
	EXPECT_EQ(0, blade_counter(blade, "drain_left"));
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_DRAIN, blade, &ev));
	ksft_print_msg("%s drained: %llu pages in %llu ms\n", blade,
		       (unsigned long long)ev.pages,
		       (unsigned long long)ev.duration_ns / 1000000);

	nodes = calloc(n, sizeof(*nodes));
	ASSERT_EQ((int)n, rg_pages(self->fd, NULL, 0, n, nodes));
	for (i = 0; i < n; i++) {
		ASSERT_NE(node, nodes[i]) TH_LOG("page %lu is still on node %d", i, node);
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 3), ((uint64_t *)(self->p + i * PAGE))[3]);
	}
	free(nodes);

	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("online", state);
	EXPECT_EQ(-EALREADY, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_RESTORE, blade, &ev));
	/* Its tier is back: pages may go there again. */
	ASSERT_TRUE(healthy_blade(other, sizeof(other), &onode, NULL));
	ASSERT_EQ(0, rg_create_on(self->dev, "fence.restored", 4 * PAGE, node));
	fd = rg_open(self->dev, "fence.restored", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	q = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	q[0] = 1;
	ASSERT_EQ(1, rg_pages(fd, NULL, 0, 1, &onode));
	EXPECT_EQ(node, onode) TH_LOG("a page of a slow-only region on the restored tier");
	munmap(q, 4 * PAGE);
	close(fd);
	EXPECT_EQ(0, rg_destroy(self->dev, "fence.restored"));

	/* A fenced blade has nothing to drain (the blade test fenced one before). */
	ASSERT_TRUE(fenced_blade(other, sizeof(other)));
	EXPECT_EQ(-EIO, cxlt_write(CXLT_SYSFS "/blade_drain", other));
}

/*
 * The blade goes away (its memdev unbound from cxl_mem, as PCIe hot removal and the
 * error handler of an uncorrectable error do): cxltier fences it before the CXL core
 * tears its decoders down, so the pages on it fault instead of reading zeroes, those
 * of a region destroyed but still mapped too.
 */
TEST_F_TIMEOUT(fence, unbind_fences, 120)
{
	const unsigned long n = 64;
	struct cxltier_event ev;
	char blade[64], state[32], *gone;
	unsigned long i;
	uint64_t seq;
	int node, fd;

	if (!healthy_blade(blade, sizeof(blade), &node, NULL))
		SKIP(return, "no healthy single-blade tier left");
	ASSERT_EQ(0, region_on(_metadata, self, node, n));
	/* A destroyed region still mapped: its pages are fenced as well. */
	ASSERT_EQ(0, rg_create_on(self->dev, "fence.gone", n * PAGE, node));
	fd = rg_open(self->dev, "fence.gone", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	gone = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, gone);
	close(fd);
	fill(gone, 0, n);
	ASSERT_EQ(0, rg_destroy(self->dev, "fence.gone"));
	seq = events_next(self->dev);
	ASSERT_EQ(0, cxlt_write("/sys/bus/cxl/drivers/cxl_mem/unbind", blade));
	blade_state(blade, state, sizeof(state));
	EXPECT_STREQ("fenced", state);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, blade, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_UNBIND, ev.cause);
	/* Pages other regions of this group left on the blade count too. */
	EXPECT_LE(2 * n, ev.pages);
	ksft_print_msg("%s unbound: %llu pages fenced in %llu us\n", blade,
		       (unsigned long long)ev.pages, (unsigned long long)ev.duration_ns / 1000);
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(BUS_MCEERR_AR, last.si_code);
		ASSERT_TRUE(read_faults(gone + i * PAGE)) TH_LOG("destroyed region, page %lu", i);
		ASSERT_EQ(BUS_MCEERR_AR, last.si_code);
	}
	munmap(gone, n * PAGE);
	/* Restoring needs its tiers gone first. */
	EXPECT_EQ(-EBUSY, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	EXPECT_EQ(-EIO, cxlt_write(CXLT_SYSFS "/blade_drain", blade));
}

/*
 * The contrast, last (it leaves a blade gone and unfenced; the group reloads the
 * module): with the module's fencing off, a blade that goes away silently reads
 * as zeroes.
 */
TEST_F_TIMEOUT(fence, without_fencing_reads_zeroes, 120)
{
	const unsigned long n = 16;
	char blade[64], state[32];
	unsigned long i, zero = 0;
	int node;

	if (!healthy_blade(blade, sizeof(blade), &node, NULL))
		SKIP(return, "no healthy single-blade tier left");
	ASSERT_EQ(0, region_on(_metadata, self, node, n));
	ASSERT_EQ(0, cxlt_write(CXLT_PARAMS "/fence", "0"));
	ASSERT_EQ(0, cxlt_write("/sys/bus/cxl/drivers/cxl_mem/unbind", blade));
	cxlt_write(CXLT_PARAMS "/fence", "1");
	blade_state(blade, state, sizeof(state));
	EXPECT_STRNE("fenced", state);
	for (i = 0; i < n; i++) {
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		zero += ((uint64_t *)(self->p + i * PAGE))[3] == 0;
	}
	ksft_print_msg("without fencing, %lu of %lu pages of the removed %s read as zeroes\n",
		       zero, n, blade);
	EXPECT_EQ(n, zero);
}

int main(int argc, char **argv)
{
	return cxlt_fence_group_main(argc, argv);
}
