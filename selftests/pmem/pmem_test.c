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
	if (glob(CXLT_SYSFS "/cxl_regions/*/mode", 0, NULL, &g))
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

/* A pmem region is mirrored with mode pmem and its blade. */
TEST_F_TIMEOUT(pmem, mirrored, 10)
{
	char blades[64];

	ASSERT_EQ(0, cxlt_readf(blades, sizeof(blades), CXLT_SYSFS "/cxl_regions/%s/%s",
				self->region, "blades"));
	EXPECT_NE(0, blades[0]);
	EXPECT_GT(cxlt_read_u64(CXLT_SYSFS "/blades/%s/%s", blades, "pmem_size"), 0);
}

/* Registering a pmem region as a tier is refused with EINVAL and changes nothing. */
TEST_F_TIMEOUT(pmem, not_a_tier, 10)
{
	char path[PATH_MAX], state[32];

	EXPECT_EQ(-EINVAL, cxlt_write(CXLT_SYSFS "/tier_add", self->region));
	snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s", self->region);
	EXPECT_NE(0, access(path, F_OK));
	ASSERT_EQ(0, cxlt_readf(state, sizeof(state), CXLT_SYSFS "/cxl_regions/%s/%s",
				self->region, "state"));
	EXPECT_STREQ("committed", state);
}

TEST_HARNESS_MAIN
