// SPDX-License-Identifier: GPL-2.0
/*
 * Fencing of region pages whose memory failed.  The kernel's own memory-failure path
 * (MADV_HWPOISON runs memory_failure() on a page, as a machine check would) must
 * fence a region page: unmapped everywhere, never replaced by a fresh zeroed page,
 * SIGBUS BUS_MCEERR_AR with the address on the next access, reported by STAT and
 * PAGES; the other pages of the region keep their data.
 */
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

TEST_HARNESS_MAIN
