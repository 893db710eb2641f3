// SPDX-License-Identifier: GPL-2.0
/*
 * Checkpoints on real pools (libcxltier; Documentation/persistence.rst).
 *
 * Theory of operation: the persist topology has two persistent devices, each with
 * a pool; a checkpoint with two copies has one on each.  The tests commit states
 * whose words derive from their generation, then damage one copy the ways a job
 * meets: the host flips bytes of its device file (a silent media error), its blade
 * is fenced while the checkpoint is open, its header says a newer format.  Restore
 * must return the last committed generation, verified, and say what was wrong.
 * Crashes are the crash loop's (make crash-test).
 */
#include <glob.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"
#include "cxlt_ckpt.h"

#define NAME	"ck-test"

FIXTURE(ckpt) {
	struct cxltier_ctx *ctx;
	struct cxltier_ckpt *ck;
	char pools[2][32];
	int dev;
};

FIXTURE_SETUP(ckpt)
{
	struct cxltier_ckpt_params *p;

	self->ctx = NULL;
	self->ck = NULL;
	self->dev = -1;
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (ck_two_pools(self->pools) < 2)
		SKIP(return, "needs two pools on two blades (the persist topology)");
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, cxltier_new(&self->ctx));
	cxltier_ckpt_drop(self->ctx, NAME);
	ASSERT_EQ(0, cxltier_ckpt_params_new(&p));
	ASSERT_EQ(0, cxltier_ckpt_params_set_capacity(p, CAP));
	ASSERT_EQ(0, cxltier_ckpt_params_set_copies(p, 2));
	ASSERT_EQ(0, cxltier_ckpt_params_set_pool(p, 0, self->pools[0]));
	ASSERT_EQ(0, cxltier_ckpt_params_set_pool(p, 1, self->pools[1]));
	ASSERT_EQ(0, cxltier_ckpt_create(self->ctx, NAME, p, &self->ck)) {
		TH_LOG("%s", cxltier_get_last_error(self->ctx));
	}
	cxltier_ckpt_params_free(p);
}

FIXTURE_TEARDOWN(ckpt)
{
	cxltier_ckpt_close(self->ck);
	if (self->ctx) {
		cxltier_ckpt_drop(self->ctx, NAME);
		cxltier_unref(self->ctx);
	}
	if (self->dev >= 0)
		close(self->dev);
}

/* Two copies on two blades; every generation restores whole, also after a reopen. */
TEST_F_TIMEOUT(ckpt, replicated, 120)
{
	struct cxltier_ckpt_info *info = NULL;
	size_t bad = 1;

	ASSERT_EQ(2, cxltier_ckpt_get_copies(self->ck));
	ASSERT_EQ(0, ck_commit(self->ck, 1, MiB + 24, 0));
	ASSERT_EQ(0, ck_commit(self->ck, 2, CAP, 1));
	ASSERT_EQ(0, ck_commit(self->ck, 3, 3 * MiB / 2, 0));
	EXPECT_EQ(2, cxltier_ckpt_get_durable_copies(self->ck));
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;

	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(3, ck_restore(self->ck, 3 * MiB / 2, &info, &bad));
	EXPECT_EQ(0, bad);
	ASSERT_NE(NULL, info);
	ASSERT_EQ(2, cxltier_ckpt_info_get_nr_copies(info));
	for (unsigned int i = 0; i < 2; i++) {
		EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, i));
		EXPECT_STREQ(self->pools[i], cxltier_ckpt_info_get_copy_pool(info, i));
	}
	cxltier_ckpt_info_free(info);
}

/*
 * The newest data of the copy restore reads first damaged on the device: detected,
 * the other copy used, and said so.
 */
TEST_F_TIMEOUT(ckpt, corrupt_copy, 120)
{
	struct cxltier_ckpt_info *info = NULL;
	char cmd[256], rname[64];
	uint64_t stride = 4096 + CAP;
	struct rstat s;
	size_t bad = 1;

	if (!getenv("CXLT_QMP_TTY") || system("command -v cxlt-corrupt >/dev/null"))
		SKIP(return, "no host corruption channel (cxlt-corrupt)");
	ASSERT_EQ(0, ck_commit(self->ck, 1, MiB, 0));
	ASSERT_EQ(0, ck_commit(self->ck, 2, MiB, 0));
	snprintf(rname, sizeof(rname), "%s@0", NAME);
	ASSERT_EQ(0, rg_stat(self->dev, rname, &s));
	/* 64 bytes into each slot's data (8192, 8192 + stride) of copy 0. */
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd), "cxlt-corrupt %s %llu 64 >/dev/null", s.st.pool,
			 (unsigned long long)(s.st.pool_offset + 8192 + k * stride + 64));
		ASSERT_EQ(0, system(cmd));
	}
	EXPECT_EQ(2, ck_restore(self->ck, MiB, &info, &bad));
	EXPECT_EQ(0, bad);
	ASSERT_NE(NULL, info);
	EXPECT_EQ(1, cxltier_ckpt_info_get_source(info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_BAD, cxltier_ckpt_info_get_copy_state(info, 0));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 1));
	EXPECT_NE(NULL, strstr(cxltier_get_last_error(self->ctx), "copy 0 bad")) {
		TH_LOG("message: %s", cxltier_get_last_error(self->ctx));
	}
	cxltier_ckpt_info_free(info);
	info = NULL;
	/* An operator's verify finds it too. */
	ASSERT_EQ(0, cxltier_ckpt_verify(self->ck, &info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_BAD, cxltier_ckpt_info_get_copy_state(info, 0));
	cxltier_ckpt_info_free(info);
}

/*
 * One copy's blade fenced while the checkpoint is open: restore and commit go on with
 * the other; back in service, the stale copy catches up at the next commit.
 */
TEST_F_TIMEOUT(ckpt, fenced_copy, 180)
{
	struct cxltier_ckpt_info *info = NULL;
	char blade[64];
	size_t bad = 1;

	ASSERT_EQ(0, cxlt_readf(blade, sizeof(blade), POOLS "/%s/%s", self->pools[1], "blades"));
	ASSERT_EQ(0, ck_commit(self->ck, 1, MiB, 0));
	ASSERT_EQ(0, ck_commit(self->ck, 2, MiB, 0));

	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_fence", blade));
	EXPECT_EQ(2, ck_restore(self->ck, MiB, &info, &bad));
	EXPECT_EQ(0, bad);
	ASSERT_NE(NULL, info);
	EXPECT_EQ(CXLTIER_CKPT_COPY_MISSING, cxltier_ckpt_info_get_copy_state(info, 1));
	cxltier_ckpt_info_free(info);
	info = NULL;
	ASSERT_EQ(0, ck_commit(self->ck, 3, MiB, 1));
	EXPECT_EQ(1, cxltier_ckpt_get_durable_copies(self->ck));

	/* A job that opens it now finds one copy and the last generation. */
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(3, ck_restore(self->ck, MiB, NULL, &bad));
	EXPECT_EQ(0, bad);
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;

	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/blade_restore", blade));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxlt_wait_pool_state(self->pools[1], "online", 10));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(3, ck_restore(self->ck, MiB, &info, &bad));
	ASSERT_NE(NULL, info);
	EXPECT_EQ(CXLTIER_CKPT_COPY_STALE, cxltier_ckpt_info_get_copy_state(info, 1));
	EXPECT_EQ(2, cxltier_ckpt_info_get_copy_generation(info, 1));
	cxltier_ckpt_info_free(info);
	info = NULL;
	ASSERT_EQ(0, ck_commit(self->ck, 4, MiB, 0));
	EXPECT_EQ(2, cxltier_ckpt_get_durable_copies(self->ck));
	EXPECT_EQ(4, ck_restore(self->ck, MiB, &info, &bad));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 1));
	cxltier_ckpt_info_free(info);
}

/* Map copy @k's region read-write through the module; NULL on failure. */
static uint8_t *map_copy(int dev, int k, size_t *len)
{
	char rname[64];
	struct rstat s;
	void *p;
	int fd;

	snprintf(rname, sizeof(rname), "%s@%d", NAME, k);
	if (rg_stat(dev, rname, &s))
		return NULL;
	fd = rg_open(dev, rname, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, s.st.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	*len = s.st.length;
	return p == MAP_FAILED ? NULL : p;
}

/* Bad input and foreign data: clear errors, nothing overwritten. */
TEST_F_TIMEOUT(ckpt, bad_input, 120)
{
	struct cxltier_ckpt *other = NULL;
	struct cxltier_ckpt_params *p;
	uint8_t *c0, *c1, *before;
	size_t len0, len1, bad = 1;
	void *staging;
	char small[16];

	/* Nothing committed yet. */
	EXPECT_EQ(-ENODATA, cxltier_ckpt_restore(self->ck, small, sizeof(small), NULL));
	EXPECT_EQ(-ENOENT, cxltier_ckpt_open(self->ctx, "ck-none", CXLTIER_REGION_READ, &other));
	EXPECT_EQ(-EFBIG, cxltier_ckpt_begin(self->ck, CAP + 1, &staging));
	ASSERT_EQ(0, cxltier_ckpt_params_new(&p));
	EXPECT_EQ(-EINVAL, cxltier_ckpt_params_set_capacity(p, 0));
	EXPECT_EQ(-EINVAL, cxltier_ckpt_params_set_copies(p, 3));
	cxltier_ckpt_params_free(p);
	ASSERT_EQ(0, ck_commit(self->ck, 1, MiB, 0));
	EXPECT_EQ(-ENOBUFS, cxltier_ckpt_restore(self->ck, small, sizeof(small), NULL));

	/* Both copies' headers say major 2: not read, not written. */
	c0 = map_copy(self->dev, 0, &len0);
	c1 = map_copy(self->dev, 1, &len1);
	ASSERT_NE(NULL, c0);
	ASSERT_NE(NULL, c1);
	c0[8] = 2;
	c1[8] = 2;
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;
	before = malloc(len0);
	ASSERT_NE(NULL, before);
	memcpy(before, c0, len0);
	if (!cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck)) {
		EXPECT_EQ(-EPROTONOSUPPORT,
			  cxltier_ckpt_restore(self->ck, small, sizeof(small), NULL));
		EXPECT_NE(0, cxltier_ckpt_begin(self->ck, MiB, &staging));
		EXPECT_NE(0, ck_commit(self->ck, 2, MiB, 1));
		cxltier_ckpt_close(self->ck);
		self->ck = NULL;
	}
	EXPECT_EQ(0, memcmp(before, c0, len0));
	free(before);

	/* Put the headers back: generation 1 is still there. */
	c0[8] = 1;
	c1[8] = 1;
	munmap(c0, len0);
	munmap(c1, len1);
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(1, ck_restore(self->ck, MiB, NULL, &bad));
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
