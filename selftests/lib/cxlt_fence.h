/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fence selftests share: faulting reads that report SIGBUS, the data
 * pattern, finding a healthy blade and its tier, blade counters and states, the
 * event log, device addresses for poison injection, and unloading the module after
 * a group that fenced (a fence lasts until the blade is restored).
 */
#ifndef CXLT_FENCE_H
#define CXLT_FENCE_H

#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cxltier.h>

#include "cxlt_test.h"
#include "cxlt_region.h"

#define PAGE		4096UL

static sigjmp_buf jb;
static volatile siginfo_t last;

static inline void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	last = *si;
	siglongjmp(jb, 1);
}

/* Read one byte; true with last set when it faulted with SIGBUS. */
static inline bool read_faults(volatile char *p)
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

static inline uint64_t pattern(unsigned long page, unsigned long word)
{
	return (page * 0x9E3779B97F4A7C15ULL) ^ (word << 3) ^ 0xfe11ce;
}

/* A tier on one blade whose blade is in service: its blade, node and name; else 0. */
static char healthy_tier[64];	/* the tier healthy_blade() found last */

static inline int healthy_blade(char *blade, size_t len, int *node, const char *not)
{
	glob_t g;
	size_t i;
	int found = 0;

	if (glob(CXLT_SYSFS "/blades/*/tiers", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		char v[256], st[32], path[PATH_MAX], name[64], *tok, *save = NULL;

		snprintf(name, sizeof(name), "%.*s", (int)(strrchr(g.gl_pathv[i], '/') -
			 g.gl_pathv[i] - strlen(CXLT_SYSFS "/blades/")),
			 g.gl_pathv[i] + strlen(CXLT_SYSFS "/blades/"));
		snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/state", name);
		if (cxlt_read(path, st, sizeof(st)) || strcmp(st, "online") ||
		    (not && !strcmp(not, name)) || cxlt_read(g.gl_pathv[i], v, sizeof(v)))
			continue;
		/* A tier on this blade alone: its CXL region is one way. */
		for (tok = strtok_r(v, " ", &save); tok && !found; tok = strtok_r(NULL, " ", &save)) {
			if (cxlt_read_u64(CXL_SYSFS "/%s/%s", tok, "interleave_ways") != 1)
				continue;
			snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/node", tok);
			if (cxlt_read(path, st, sizeof(st)))
				continue;
			*node = atoi(st);
			snprintf(blade, len, "%s", name);
			snprintf(healthy_tier, sizeof(healthy_tier), "%s", tok);
			found = 1;
		}
	}
	globfree(&g);
	return found;
}

static inline uint64_t blade_pages(const struct rstat *s, const char *blade)
{
	uint32_t i;

	for (i = 0; i < s->st.blade_count && i < 16; i++)
		if (!strcmp(s->blades[i].name, blade))
			return s->blades[i].pages;
	return 0;
}

static inline uint64_t blade_counter(const char *blade, const char *file)
{
	return cxlt_read_u64(CXLT_SYSFS "/blades/%s/%s", blade, file);
}

static inline void blade_state(const char *blade, char *st, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/state", blade);
	if (cxlt_read(path, st, len))
		snprintf(st, len, "?");
}

/* The number of the next event record. */
static inline uint64_t events_next(int dev)
{
	struct cxltier_event ev[64];
	uint64_t seq = 1, next = 0;

	while (rg_events(dev, seq, ev, 64, &next) > 0)
		seq = next;
	return seq;
}

/* The first record from @seq of @type (and @blade, if not NULL); 0 or -ENOENT. */
static inline int event_find(int dev, uint64_t seq, uint32_t type, const char *blade,
		      struct cxltier_event *out)
{
	struct cxltier_event ev[64];
	uint64_t next = 0;
	int n, i;

	while ((n = rg_events(dev, seq, ev, 64, &next)) > 0) {
		for (i = 0; i < n; i++) {
			if (ev[i].type == type && (!blade || !strcmp(ev[i].blade, blade))) {
				*out = ev[i];
				return 0;
			}
		}
		seq = next;
	}
	return -ENOENT;
}

/*
 * Wait up to @secs for a record from @seq of @type and @blade (a blade's state reads
 * fenced from the barrier on; the record comes when the last page is fenced).
 */
static inline int event_wait(int dev, uint64_t seq, uint32_t type, const char *blade,
			     struct cxltier_event *out, int secs)
{
	int t;

	for (t = 0; t < secs * 20; t++) {
		if (!event_find(dev, seq, type, blade, out))
			return 0;
		usleep(50000);
	}
	return -ENOENT;
}

static inline void fill(char *p, unsigned long first, unsigned long n)
{
	unsigned long i, k;
	uint64_t *w;

	for (i = first; i < first + n; i++)
		for (w = (uint64_t *)(p + (i - first) * PAGE), k = 0; k < PAGE / 8; k++)
			w[k] = pattern(i, k);
}

/* The host physical address of this process's page at @addr; 0 if not mapped. */
static inline uint64_t cxlt_hpa_of(const void *addr)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, 8, (uintptr_t)addr / PAGE * 8) != 8)
		ent = 0;
	close(fd);
	if (!(ent >> 63) || !(ent & ((1ULL << 55) - 1)))
		return 0;
	return (ent & ((1ULL << 55) - 1)) * PAGE;
}

/*
 * The device physical address behind a byte of this process's memory, on the blade
 * of single-way tier @tier; 0 if unknown.
 */
static inline uint64_t dpa_of(const char *tier, const void *addr)
{
	uint64_t hpa = cxlt_hpa_of(addr), start, base;
	char target[64], path[256];

	if (!hpa)
		return 0;
	start = cxlt_read_u64(CXL_SYSFS "/%s/%s", tier, "resource");
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/target0", tier);
	if (cxlt_read(path, target, sizeof(target)))
		return 0;
	base = cxlt_read_u64(CXL_SYSFS "/%s/%s", target, "dpa_resource");
	return hpa - start + base;
}

static inline int inject_poison(const char *blade, uint64_t dpa)
{
	char path[256], val[32];

	snprintf(path, sizeof(path), "/sys/kernel/debug/cxl/%s/inject_poison", blade);
	snprintf(val, sizeof(val), "%#llx", (unsigned long long)dpa);
	return cxlt_write(path, val);
}

/* Wait up to @secs for page @i of the region to be fenced. */
static inline int wait_fenced(int fd, unsigned long i, int secs)
{
	int32_t node;
	int t;

	for (t = 0; t < secs * 20; t++) {
		if (rg_pages(fd, NULL, i * PAGE, 1, &node) == 1 && node == CXLTIER_PAGE_FENCED)
			return 0;
		usleep(50000);
	}
	return -1;
}

static pid_t cxlt_fence_main_pid;

/* At exit of the main process: the fence lasts until unload, so unload and reload. */
static inline void cxlt_fence_group_teardown(void)
{
	char params[1024];
	glob_t g;
	size_t i;
	int t;

	if (getpid() != cxlt_fence_main_pid || !cxlt_module_loaded())
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

/* A region @name of @n pages on @node, mapped at *@p and filled with the pattern. */
static inline int region_on_node(int dev, const char *name, int node, unsigned long n,
				 int *fd, char **p)
{
	if (rg_create_on(dev, name, n * PAGE, node))
		return -1;
	*fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (*fd < 0)
		return -1;
	*p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (*p == MAP_FAILED)
		return -1;
	fill(*p, 0, n);
	return 0;
}

/*
 * main() of a group that fences: add every free RAM region as a tier, run the tests,
 * and at exit remove the tiers and reload the module (cxlt_fence_group_teardown()).
 */
static inline int cxlt_fence_group_main(int argc, char **argv)
{
	char added[8][64];
	int nr = 0;

	cxlt_fence_main_pid = getpid();
	atexit(cxlt_fence_group_teardown);
	if (cxlt_module_loaded())
		nr = cxlt_add_ram_tiers(added, nr, 8);
	printf("# %d tier(s) added for this run\n", nr);
	fflush(stdout);
	return test_harness_run(argc, argv);
}

#endif /* CXLT_FENCE_H */
