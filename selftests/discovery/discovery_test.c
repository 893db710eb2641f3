// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery: cxltier has a blade for every CXL memdev under /sys/kernel/cxltier,
 * holding only what cxltier knows (its state, the tiers on it, counters) and a link
 * to the memdev; nothing the CXL core publishes is copied (sysfs ABI 2).  The booted
 * topology is complete, and regions that come and go are usable without a rescan.
 *
 * Theory of operation: the CXL core's sysfs is the reference; each test walks it and
 * compares cxltier's view.  The topology's expectations come from the environment
 * qemu/run sets (CXLT_BLADES, CXLT_REGIONS: one word per region, the blades' serials
 * joined by commas, in interleave order, "pmem:" in front for a pmem region).
 */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"

#define MAX_ITEMS 32

struct names {
	int n;
	char name[MAX_ITEMS][64];
};

static void list_dir(const char *pattern, struct names *out)
{
	glob_t g;
	size_t i;

	out->n = 0;
	if (glob(pattern, 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc && out->n < MAX_ITEMS; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');

		snprintf(out->name[out->n++], 64, "%s", base ? base + 1 : g.gl_pathv[i]);
	}
	globfree(&g);
}

/* The memdev behind endpoint decoder @dec: its parent is the endpoint port, whose uport
 * link names the memdev. */
static int decoder_memdev(const char *dec, char *out, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *slash;

	snprintf(path, sizeof(path), CXL_SYSFS "/%s", dec);
	if (!realpath(path, real))
		return -errno;
	slash = strrchr(real, '/');
	if (!slash)
		return -EINVAL;
	snprintf(slash, sizeof(real) - (slash - real), "/uport");
	return cxlt_link_name(real, out, len);
}

/* "mem1 mem3" of the CXL core for region @r, in position order. */
static void core_region_blades(const char *r, char *out, size_t len)
{
	char attr[32], dec[64], mem[64];
	uint64_t ways = cxlt_read_u64(CXL_SYSFS "/%s/%s", r, "interleave_ways");
	uint64_t i;

	out[0] = '\0';
	for (i = 0; i < ways && i < 16; i++) {
		snprintf(attr, sizeof(attr), "target%llu", (unsigned long long)i);
		if (cxlt_readf(dec, sizeof(dec), CXL_SYSFS "/%s/%s", r, attr) || !dec[0])
			break;
		if (decoder_memdev(dec, mem, sizeof(mem)))
			break;
		if (out[0])
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, mem, len - strlen(out) - 1);
	}
}

static int wait_for_path(const char *path, bool present, int ms)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	for (; ms > 0; ms -= 50) {
		if ((access(path, F_OK) == 0) == present)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

FIXTURE(discovery) {
	struct names blades;	/* memdevs of the CXL core */
	struct names regions;	/* regions of the CXL core */
};

FIXTURE_SETUP(discovery)
{
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	list_dir(CXL_SYSFS "/mem*", &self->blades);
	list_dir(CXL_SYSFS "/region*", &self->regions);
}

FIXTURE_TEARDOWN(discovery)
{
}

/*
 * Every CXL memdev is a blade whose "device" link is that memdev, with a state that
 * follows its driver, and no copy of what the CXL core publishes.
 */
TEST_F_TIMEOUT(discovery, blades_link_cxl_core, 10)
{
	static const char *const gone[] = { "serial", "ram_size", "pmem_size", "pci_dev",
					    "cxl_regions" };
	struct names mirror;
	char path[PATH_MAX], a[PATH_MAX], b[PATH_MAX], state[32];
	unsigned int k;
	int i;

	EXPECT_EQ(2, cxlt_read_u64(CXLT_SYSFS "/%s%s", "abi_version", ""));
	EXPECT_NE(0, access(CXLT_SYSFS "/cxl_regions", F_OK));
	list_dir(CXLT_SYSFS "/blades/*", &mirror);
	ASSERT_EQ(self->blades.n, mirror.n);
	for (i = 0; i < self->blades.n; i++) {
		const char *m = self->blades.name[i];

		snprintf(path, sizeof(path), CXL_SYSFS "/%s", m);
		ASSERT_NE(NULL, realpath(path, a));
		snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/device", m);
		ASSERT_NE(NULL, realpath(path, b)) TH_LOG("%s has no device link", m);
		EXPECT_STREQ(a, b);
		for (k = 0; k < sizeof(gone) / sizeof(gone[0]); k++) {
			snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/%s", m, gone[k]);
			EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s is still there", path);
		}
		snprintf(path, sizeof(path), CXL_SYSFS "/%s/driver", m);
		ASSERT_EQ(0, cxlt_readf(state, sizeof(state), CXLT_SYSFS "/blades/%s/%s", m, "state"));
		EXPECT_STREQ(access(path, F_OK) ? "offline" : "online", state);
	}
}

/*
 * A blade's "tiers" lists the tiers whose CXL regions have it as a target; a tier's
 * "device" link is its CXL region.
 */
TEST_F_TIMEOUT(discovery, blade_lists_its_tiers, 60)
{
	char r[64] = "", blades[256], got[256], padded[260], me[70], path[PATH_MAX], a[PATH_MAX];
	int i;

	for (i = 0; i < self->regions.n && !r[0]; i++) {
		if (cxlt_readf(got, sizeof(got), CXL_SYSFS "/%s/%s", self->regions.name[i],
			       "mode") || strcmp(got, "ram"))
			continue;
		if (!cxlt_write(CXLT_SYSFS "/tier_add", self->regions.name[i]))
			snprintf(r, sizeof(r), "%s", self->regions.name[i]);
	}
	if (!r[0])
		SKIP(return, "no RAM region could be registered");
	core_region_blades(r, blades, sizeof(blades));
	snprintf(padded, sizeof(padded), " %s ", blades);
	for (i = 0; i < self->blades.n; i++) {
		const char *m = self->blades.name[i];
		char tiers[260];

		bool target, listed;

		ASSERT_EQ(0, cxlt_readf(got, sizeof(got), CXLT_SYSFS "/blades/%s/%s", m, "tiers"));
		snprintf(tiers, sizeof(tiers), " %s ", got);
		snprintf(me, sizeof(me), " %s ", m);
		target = strstr(padded, me);
		snprintf(me, sizeof(me), " %s ", r);
		listed = strstr(tiers, me);
		EXPECT_EQ(target, listed)
			TH_LOG("%s: tiers '%s', region %s over %s", m, got, r, blades);
	}
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s/device", r);
	ASSERT_NE(NULL, realpath(path, got));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s", r);
	ASSERT_NE(NULL, realpath(path, a));
	EXPECT_STREQ(a, got);
	ASSERT_EQ(0, cxlt_readf(got, sizeof(got), CXLT_SYSFS "/tiers/%s/%s", r, "state"));
	EXPECT_STREQ("online", got);
	EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/tier_remove", r));
}

/* Everything the booted topology defines is found: its blades and, for each region spec,
 * a region of that mode over exactly those blades in that order (the tiers group checks
 * that each RAM region becomes a NUMA node of its own). */
TEST_F_TIMEOUT(discovery, topology_complete, 10)
{
	const char *nblades = getenv("CXLT_BLADES"), *specs = getenv("CXLT_REGIONS");
	char *list, *spec, *save = NULL;
	int i;

	if (!nblades || !specs)
		SKIP(return, "not booted by qemu/run (CXLT_BLADES/CXLT_REGIONS unset)");
	EXPECT_EQ(atoi(nblades), self->blades.n);

	list = strdup(specs);
	for (spec = strtok_r(list, " ", &save); spec; spec = strtok_r(NULL, " ", &save)) {
		char want[256] = "", *serial, *s2 = NULL, *copy;
		const char *mode = "ram";
		bool found = false;

		/* "[pmem:]SERIAL[,SERIAL...]" */
		if (!strncmp(spec, "pmem:", 5)) {
			spec += 5;
			mode = "pmem";
		}
		copy = strdup(spec);

		/* Translate serials to memdev names through the memdevs' serial files. */
		for (serial = strtok_r(copy, ",", &s2); serial; serial = strtok_r(NULL, ",", &s2)) {
			uint64_t sn = strtoull(serial, NULL, 0);

			for (i = 0; i < self->blades.n; i++)
				if (cxlt_read_u64(CXL_SYSFS "/%s/%s", self->blades.name[i],
						  "serial") == sn)
					break;
			ASSERT_LT(i, self->blades.n) TH_LOG("no blade with serial %s", serial);
			if (want[0])
				strcat(want, " ");
			strcat(want, self->blades.name[i]);
		}
		free(copy);
		for (i = 0; i < self->regions.n && !found; i++) {
			char got[256];

			core_region_blades(self->regions.name[i], got, sizeof(got));
			if (strcmp(got, want))
				continue;
			if (cxlt_readf(got, sizeof(got), CXL_SYSFS "/%s/%s",
				       self->regions.name[i], "mode") || strcmp(got, mode))
				continue;
			found = true;
		}
		EXPECT_TRUE(found) TH_LOG("no region over blades %s (spec %s)", want, spec);
	}
	free(list);
}

/* rescan takes "1" and refuses anything else with EINVAL. */
TEST_F_TIMEOUT(discovery, rescan_input, 10)
{
	EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/rescan", "0"));
	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/rescan", "banana"));
	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/rescan", "\n"));
}

/* Blade files refuse writes and rescan refuses reads, even for root. */
TEST_F_TIMEOUT(discovery, files_read_only, 10)
{
	struct names mirror;
	char path[PATH_MAX];

	list_dir(CXLT_SYSFS "/blades/*", &mirror);
	if (!mirror.n)
		SKIP(return, "no blades");
	snprintf(path, sizeof(path), CXLT_SYSFS "/blades/%s/state", mirror.name[0]);
	EXPECT_EQ(-EACCES, cxlt_write(path, "fenced"));
	EXPECT_EQ(-EACCES, cxlt_read(CXLT_SYSFS "/rescan", path, sizeof(path)));
}

/*
 * A region that is torn down and created again can be a tier at once, without a
 * rescan: cxltier reads regions from the CXL bus, it keeps no copy.  Uses the region
 * created last (its endpoint decoders are the last allocated, so its DPA can be freed)
 * and recreates it as it was.
 */
TEST_F_TIMEOUT(discovery, region_teardown_and_recreate, 30)
{
	const char *specs = getenv("CXLT_REGIONS");
	char r[64], path[PATH_MAX], real[PATH_MAX], root[64], cmd[512], targets[16][64];
	char *last, *slash;
	uint64_t ways, i;
	int best = -1, k;

	if (!specs || !self->regions.n)
		SKIP(return, "no region to tear down");
	for (k = 0; k < self->regions.n; k++)
		if (best < 0 || atoi(self->regions.name[k] + 6) > atoi(self->regions.name[best] + 6))
			best = k;
	snprintf(r, sizeof(r), "%s", self->regions.name[best]);
	ways = cxlt_read_u64(CXL_SYSFS "/%s/%s", r, "interleave_ways");
	for (i = 0; i < ways; i++) {
		char attr[16];

		snprintf(attr, sizeof(attr), "target%llu", (unsigned long long)i);
		ASSERT_EQ(0, cxlt_readf(targets[i], sizeof(targets[i]), CXL_SYSFS "/%s/%s", r, attr));
	}
	snprintf(path, sizeof(path), CXL_SYSFS "/%s", r);
	ASSERT_NE(NULL, realpath(path, real));
	*strrchr(real, '/') = '\0';
	slash = strrchr(real, '/');
	snprintf(root, sizeof(root), "%s", slash + 1);

	/* Tear down: unbind, decommit, delete, then free the endpoints' DPA. */
	ASSERT_EQ(0, cxlt_write("/sys/bus/cxl/drivers/cxl_region/unbind", r));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/commit", r);
	ASSERT_EQ(0, cxlt_write(path, "0"));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/delete_region", root);
	ASSERT_EQ(0, cxlt_write(path, r));
	for (i = 0; i < ways; i++) {
		snprintf(path, sizeof(path), CXL_SYSFS "/%s/dpa_size", targets[i]);
		ASSERT_EQ(0, cxlt_write(path, "0")) TH_LOG("%s", targets[i]);
	}
	snprintf(path, sizeof(path), CXL_SYSFS "/%s", r);
	EXPECT_EQ(0, wait_for_path(path, false, 3000)) TH_LOG("%s still there", r);

	/* Recreate it from the topology's last spec. */
	last = strrchr(specs, ' ');
	last = last ? last + 1 : (char *)specs;
	snprintf(cmd, sizeof(cmd), "cxlt-mkregion -m %s $(echo %s | tr , ' ') >/tmp/newregion",
		 strncmp(last, "pmem:", 5) ? "ram" : "pmem",
		 strncmp(last, "pmem:", 5) ? last : last + 5);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, cxlt_read("/tmp/newregion", r, sizeof(r)));
	if (strncmp(last, "pmem:", 5)) {
		EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/tier_add", r)) TH_LOG("%s", r);
		EXPECT_EQ(0, cxlt_write(CXLT_SYSFS "/tier_remove", r)) TH_LOG("%s", r);
	}
}

TEST_HARNESS_MAIN
