// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent CXL memory: what cxltier does with pmem regions.
 *
 * Theory of operation: the persist topology has a file-backed device with a volatile
 * and a persistent partition and creates one region over each.  A pmem region is
 * mirrored like any region but can never become a tier (its memory belongs to the
 * nvdimm stack, and System RAM would not keep it persistent).
 */
#include <glob.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"

FIXTURE(pmem) {
	char region[64];
};

FIXTURE_SETUP(pmem)
{
	glob_t g;
	size_t i;

	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	self->region[0] = '\0';
	if (glob(CXL_SYSFS "/region*/mode", 0, NULL, &g))
		SKIP(return, "no CXL regions");
	for (i = 0; i < g.gl_pathc && !self->region[0]; i++) {
		char mode[16], *dir = g.gl_pathv[i];

		if (cxlt_read(dir, mode, sizeof(mode)) || strcmp(mode, "pmem"))
			continue;
		*strrchr(dir, '/') = '\0';
		snprintf(self->region, sizeof(self->region), "%s", strrchr(dir, '/') + 1);
	}
	globfree(&g);
	if (!self->region[0])
		SKIP(return, "no pmem region in this topology");
}

FIXTURE_TEARDOWN(pmem)
{
}

/* A pmem region's blade is listed by cxltier, with no tier on it. */
TEST_F_TIMEOUT(pmem, blade_listed, 10)
{
	char dec[64], path[PATH_MAX], mem[64], tiers[64];

	ASSERT_EQ(0, cxlt_readf(dec, sizeof(dec), CXL_SYSFS "/%s/%s", self->region, "target0"));
	snprintf(path, sizeof(path), CXL_SYSFS "/%s/../uport", dec);
	ASSERT_EQ(0, cxlt_link_name(path, mem, sizeof(mem)));
	EXPECT_GT(cxlt_read_u64(CXL_SYSFS "/%s/%s", mem, "pmem/size"), 0);
	ASSERT_EQ(0, cxlt_readf(tiers, sizeof(tiers), CXLT_SYSFS "/blades/%s/%s", mem, "tiers"));
	EXPECT_STREQ("", tiers);
}

/* Registering a pmem region as a tier is refused with EINVAL and changes nothing. */
TEST_F_TIMEOUT(pmem, not_a_tier, 10)
{
	char path[PATH_MAX];

	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/tier_add", self->region));
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s", self->region);
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(1, cxlt_read_u64(CXL_SYSFS "/%s/%s", self->region, "commit"));
}

TEST_HARNESS_MAIN
