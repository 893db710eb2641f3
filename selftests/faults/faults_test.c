// SPDX-License-Identifier: GPL-2.0
/*
 * Blade failures as the hardware reports them, injected through QEMU's monitor from
 * inside the guest (qemu/guest/cxlt-qmp, served by qemu/run): poison found by the
 * device's poison list, PCIe hot removal of a blade (device_del), an uncorrectable
 * (AER) error; and a fence while the migration daemon moves pages at full budget.
 * Each fences without an operator, before the data can be read stale.
 *
 * Every test but the first takes a blade out of service for good, so the group has
 * a boot of its own (config: pool:own) and reloads the module when it ends.
 */
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"
#include "cxlt_fence.h"

#define DAEMON		CXLT_SYSFS "/daemon/"


static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Wait up to @secs for @blade's state to read @want; the seconds it took, or -1. */
static double wait_state(const char *blade, const char *want, int secs)
{
	double t0 = now();
	char st[32];

	while (now() - t0 < secs) {
		blade_state(blade, st, sizeof(st));
		if (!strcmp(st, want))
			return now() - t0;
		usleep(20000);
	}
	return -1;
}

FIXTURE(faults) {
	int dev;
	int fd;
	char name[CXLTIER_NAME_MAX];
	char *p;
	unsigned long n;
	char blade[64];
	char qpath[128];
	int node;
};

FIXTURE_SETUP(faults)
{
	self->fd = -1;
	self->p = MAP_FAILED;
	self->dev = dev_open();
	if (self->dev < 0)
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
	if (cxlt_sh(NULL, 0, "cxlt-qmp query-status"))
		SKIP(return, "no QMP channel to the host (run under qemu/run)");
	if (!healthy_blade(self->blade, sizeof(self->blade), &self->node, NULL))
		SKIP(return, "no healthy single-blade tier left");
	ASSERT_EQ(0, cxlt_sh(self->qpath, sizeof(self->qpath), "cxlt-qmp --path-of %s",
			self->blade));
	snprintf(self->name, sizeof(self->name), "faults.%d", getpid());
	self->n = 256;
	ASSERT_EQ(0, region_on_node(self->dev, self->name, self->node, self->n, &self->fd,
				    &self->p));
}

FIXTURE_TEARDOWN(faults)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->n * PAGE);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0) {
		rg_destroy(self->dev, self->name);
		close(self->dev);
	}
}

static uint64_t read_u64_or0(const char *path)
{
	char v[32];

	return cxlt_read(path, v, sizeof(v)) ? 0 : strtoull(v, NULL, 0);
}

/* Every page faults with SIGBUS BUS_MCEERR_AR at its own address. */
static int all_fault(char *p, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (!read_faults(p + i * PAGE + 64) || last.si_code != BUS_MCEERR_AR ||
		    ((uintptr_t)last.si_addr & ~(PAGE - 1)) != (uintptr_t)(p + i * PAGE))
			return 0;
	return 1;
}

/*
 * The device's poison list (QMP cxl-inject-poison, then trigger_poison_list): the
 * poisoned page of a region is fenced, and only it.
 */
TEST_F_TIMEOUT(faults, poison_list, 120)
{
	const unsigned long victim = 17;
	struct cxltier_event ev;
	char path[256];
	uint64_t dpa, seq;
	unsigned long i;

	dpa = dpa_of(healthy_tier, self->p + victim * PAGE);
	ASSERT_NE(0, dpa);
	seq = events_next(self->dev);
	ASSERT_EQ(0, cxlt_sh(NULL, 0,
			"cxlt-qmp cxl-inject-poison '{\"path\": \"%s\", \"start\": %llu, \"length\": 64}'",
			self->qpath, (unsigned long long)dpa + 256));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/trigger_poison_list", self->blade);
	ASSERT_EQ(0, cxlt_write(path, "1"));
	ASSERT_EQ(0, wait_fenced(self->fd, victim, 20)) TH_LOG("page %lu not fenced", victim);
	ASSERT_TRUE(read_faults(self->p + victim * PAGE));
	EXPECT_EQ(BUS_MCEERR_AR, last.si_code);
	for (i = 0; i < self->n; i++) {
		if (i == victim)
			continue;
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 5), ((uint64_t *)(self->p + i * PAGE))[5]);
	}
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_POISON, self->blade, &ev));
	EXPECT_EQ(CXLTIER_CAUSE_POISON, ev.cause);
	ASSERT_EQ(0, event_find(self->dev, seq, CXLTIER_EVENT_FENCE_PAGE, self->blade, &ev));
	EXPECT_EQ(victim * PAGE, ev.offset);
	/* Reading the list again reports the same record: nothing new is poisoned. */
	ASSERT_EQ(0, cxlt_write(path, "1"));
	usleep(200000);
	EXPECT_EQ(1, blade_counter(self->blade, "poisoned_pages"));
}

/*
 * A job that checkpoints survives the fence of a blade under its data: with
 * libcxltier's fence handler it replaces each fenced page, restores it from its
 * checkpoint and finishes with every page verified (tools/examples/ckpt_job.cpp);
 * cxltierctl events shows the fence and the replacements.
 */
TEST_F_TIMEOUT(faults, library_recovery, 300)
{
	char line[512], out[64];
	int lost = 0, passes = 0, verified = 0, t;
	FILE *log;
	pid_t pid;

	if (access("/usr/bin/cxltier-ckpt-job", X_OK))
		SKIP(return, "cxltier-ckpt-job is not in the guest image");
	snprintf(out, sizeof(out), "/tmp/ckpt.%d", getpid());
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		freopen(out, "w", stdout);
		/* Long enough to outlast the fence on the debug kernel too. */
		execlp("cxltier-ckpt-job", "cxltier-ckpt-job", "--mib", "4", "--iterations", "40",
		       "--pause-ms", "400", NULL);
		_exit(127);
	}
	/* Fence once the job has done two passes. */
	for (t = 0; t < 600 && passes < 2; t++) {
		usleep(100000);
		passes = 0;
		log = fopen(out, "r");
		while (log && fgets(line, sizeof(line), log))
			passes += !!strstr(line, " done, ");
		if (log)
			fclose(log);
	}
	EXPECT_LE(2, passes);
	EXPECT_EQ(0, cxlt_sh(NULL, 0, "cxltierctl blade fence --force %s", self->blade));
	ASSERT_EQ(pid, waitpid(pid, &t, 0));
	log = fopen(out, "r");
	ASSERT_NE(NULL, log);
	while (fgets(line, sizeof(line), log)) {
		printf("# %s", line);
		lost += strstr(line, "fenced (blade ") && strstr(line, self->blade);
		verified += !!strstr(line, "every page verified");
	}
	fclose(log);
	unlink(out);
	EXPECT_TRUE(WIFEXITED(t) && !WEXITSTATUS(t)) TH_LOG("job status %#x", t);
	EXPECT_LT(0, lost);
	EXPECT_EQ(1, verified);
	EXPECT_EQ(0, cxlt_sh(line, sizeof(line),
			"cxltierctl events --json | grep -c '\\(\"fence\"\\|\"replace\"\\)'"));
	EXPECT_LE(2, atoi(line)) TH_LOG("events: %s", line);
}

/*
 * The daemon moves the region's pages between DRAM and the blade at full budget
 * while the blade is fenced: afterwards no page is on the blade, and every page
 * either verifies or is fenced; none comes back with other data.
 */
TEST_F_TIMEOUT(faults, fence_while_migrating, 300)
{
	struct cxltier_hint h = { .size = sizeof(h), .length = 0 };
	unsigned long i, fenced = 0, dram = 0, moved0;
	char saved[5][32];
	const char *knob[5] = { "enable", "period_ms", "budget_mbps", "wmark_low_mb",
				"wmark_high_mb" };
	const char *val[5] = { "1", "100", "4096", "0", "0" };
	int32_t *nodes;
	int k, status;
	pid_t pid;

	if (access(DAEMON "enable", F_OK))
		SKIP(return, "no migration daemon");
	/* A fast-first region the daemon manages, allowed on DRAM and this blade. */
	munmap(self->p, self->n * PAGE);
	close(self->fd);
	rg_destroy(self->dev, self->name);
	self->p = MAP_FAILED;
	self->n = 2048;
	{
		struct cxltier_create c = { .size = sizeof(c), .length = self->n * PAGE,
					    .policy = CXLTIER_POLICY_FAST_FIRST };

		snprintf(c.name, sizeof(c.name), "%s", self->name);
		c.nodes[self->node / 64] |= 1ULL << (self->node % 64);
		c.nodes[0] |= 1;	/* and DRAM (node 0) */
		ASSERT_EQ(0, xioctl(self->dev, CXLTIER_IOC_CREATE, &c));
	}
	self->fd = rg_open(self->dev, self->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, self->fd);
	self->p = mmap(NULL, self->n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fill(self->p, 0, self->n);
	for (k = 0; k < 5; k++) {
		char path[128];

		snprintf(path, sizeof(path), DAEMON "%s", knob[k]);
		ASSERT_EQ(0, cxlt_read(path, saved[k], sizeof(saved[k])));
	}
	for (k = 1; k < 5; k++) {
		char path[128];

		snprintf(path, sizeof(path), DAEMON "%s", knob[k]);
		cxlt_write(path, val[k]);
	}
	ASSERT_EQ(0, cxlt_write(DAEMON "enable", "1"));
	moved0 = blade_counter(self->blade, "fenced_pages");

	/* A child flips the halves hot and cold every 100 ms: the daemon keeps moving. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (k = 0; k < 600; k++) {
			h.offset = (k % 2) * (self->n / 2) * PAGE;
			h.length = self->n / 2 * PAGE;
			h.hint = CXLTIER_HINT_COLD;
			ioctl(self->fd, CXLTIER_IOC_HINT, &h);
			h.offset = ((k + 1) % 2) * (self->n / 2) * PAGE;
			h.hint = CXLTIER_HINT_HOT;
			ioctl(self->fd, CXLTIER_IOC_HINT, &h);
			usleep(100000);
		}
		_exit(0);
	}
	/* Fence once pages are on both sides, with moves in flight. */
	nodes = calloc(self->n, sizeof(*nodes));
	for (k = 0; k < 600; k++) {
		unsigned long on_blade = 0, on_dram = 0;

		usleep(100000);
		if (rg_pages(self->fd, NULL, 0, self->n, nodes) != (int)self->n)
			continue;
		for (i = 0; i < self->n; i++) {
			on_blade += nodes[i] == self->node;
			on_dram += nodes[i] == 0;
		}
		if (on_blade > self->n / 8 && on_dram > self->n / 8 &&
		    read_u64_or0(DAEMON "stats/promoted_pages") > 0)
			break;
	}
	EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_fence", self->blade));
	sleep(1);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (k = 0; k < 5; k++) {
		char path[128];

		snprintf(path, sizeof(path), DAEMON "%s", knob[k]);
		cxlt_write(path, saved[k]);
	}

	ASSERT_EQ((int)self->n, rg_pages(self->fd, NULL, 0, self->n, nodes));
	for (i = 0; i < self->n; i++) {
		if (nodes[i] == CXLTIER_PAGE_FENCED) {
			fenced++;
			ASSERT_TRUE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
			continue;
		}
		ASSERT_NE(self->node, nodes[i]) TH_LOG("page %lu is on the fenced blade", i);
		dram++;
		ASSERT_FALSE(read_faults(self->p + i * PAGE)) TH_LOG("page %lu", i);
		ASSERT_EQ(pattern(i, 9), ((uint64_t *)(self->p + i * PAGE))[9]) TH_LOG("page %lu", i);
	}
	ksft_print_msg("fenced %lu pages on %s, %lu elsewhere verified (%llu fenced on the blade before)\n",
		       fenced, self->blade, dram, (unsigned long long)moved0);
	EXPECT_LT(0, fenced);
	EXPECT_LT(0, dram);
	free(nodes);
}

/*
 * PCIe hot removal of the blade (QMP device_del): the guest's hotplug driver tears
 * the device down about 5 s later; cxltier fences it when its memdev is unbound,
 * before its decoders go, so the pages fault instead of reading zeroes.
 */
TEST_F_TIMEOUT(faults, device_del, 120)
{
	struct cxltier_event ev;
	uint64_t seq = events_next(self->dev);
	double t0 = now(), took;
	int secs = 60 * cxlt_timeout_scale();

	ASSERT_EQ(0, cxlt_sh(NULL, 0, "cxlt-qmp device_del '{\"id\": \"%s\"}'", self->qpath));
	took = wait_state(self->blade, "fenced", secs);
	ASSERT_LE(0, took) TH_LOG("%s not fenced within %d s", self->blade, secs);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, self->blade, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_UNBIND, ev.cause);
	EXPECT_LE(self->n, ev.pages);
	ksft_print_msg("device_del %s: fenced %.1f s after the request (hotplug delay), %llu pages in %llu us\n",
		       self->blade, now() - t0, (unsigned long long)ev.pages,
		       (unsigned long long)ev.duration_ns / 1000);
	EXPECT_TRUE(all_fault(self->p, self->n));
	/* Gone from the CXL bus, still listed as fenced. */
	usleep(500000);
	EXPECT_EQ(0, wait_state(self->blade, "fenced", 1) < 0);
}

/*
 * An uncorrectable error of the blade (QMP cxl-inject-uncorrectable-errors, after
 * clearing the AER mask QEMU and Linux leave set): the blade is fenced as a whole.
 */
TEST_F_TIMEOUT(faults, uncorrectable, 120)
{
	struct cxltier_event ev;
	uint64_t seq = events_next(self->dev);
	double took;

	ASSERT_EQ(0, cxlt_sh(NULL, 0, "cxlt-aer-unmask %s", self->blade));
	ASSERT_EQ(0, cxlt_sh(NULL, 0,
			"cxlt-qmp cxl-inject-uncorrectable-errors '{\"path\": \"%s\", \"errors\": [{\"type\": \"mem-data-ecc\", \"header\": []}]}'",
			self->qpath));
	took = wait_state(self->blade, "fenced", 60);
	ASSERT_LE(0, took) TH_LOG("%s not fenced within 60 s", self->blade);
	ASSERT_EQ(0, event_wait(self->dev, seq, CXLTIER_EVENT_FENCE, self->blade, &ev, 30));
	EXPECT_EQ(CXLTIER_CAUSE_UNCORRECTABLE, ev.cause);
	ksft_print_msg("uncorrectable error on %s: fenced within %.2f s, %llu pages in %llu us\n",
		       self->blade, took, (unsigned long long)ev.pages,
		       (unsigned long long)ev.duration_ns / 1000);
	EXPECT_TRUE(all_fault(self->p, self->n));
}

int main(int argc, char **argv)
{
	return cxlt_fence_group_main(argc, argv);
}
