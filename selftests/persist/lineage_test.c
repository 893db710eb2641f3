// SPDX-License-Identifier: GPL-2.0
/*
 * Checkpoint lineage on real pools: a copy that comes back with commits the job
 * abandoned is never restored (libcxltier; Documentation/persistence.rst, "Lineage").
 *
 * Theory of operation: the persist topology has two persistent devices, each with a
 * pool on a blade of its own, and a checkpoint with a copy on each.  Fencing a blade
 * takes its pool away (the copy is missing); restoring the blade and a rescan bring
 * the pool back with its memory as it was.  Each state's words derive from a seed
 * that is not its generation, so that two commits of the same generation on two
 * timelines (A3 and B3 below) are told apart by their content.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"
#include "cxlt_region.h"
#include "cxlt_ckpt.h"

#define NAME	"ck-lineage"
#define SIZE	(MiB / 2)

FIXTURE(lineage) {
	struct cxltier_ctx *ctx;
	struct cxltier_ckpt *ck;
	char pools[2][32];
	char blades[2][64];
	int fenced[2];
};

/* Blade of copy @k out of service: its pool, and so the copy, goes away. */
static int fence_copy(FIXTURE_DATA(lineage) *self, int k)
{
	int rc = cxlt_write(CXLT_SYSFS "/blade_fence", self->blades[k]);

	if (!rc)
		self->fenced[k] = 1;
	return rc;
}

/* Blade of copy @k back: its pool online again with what it held. */
static int restore_copy(FIXTURE_DATA(lineage) *self, int k)
{
	int rc = cxlt_write(CXLT_SYSFS "/blade_restore", self->blades[k]);

	rc = rc ?: cxlt_write(CXLT_SYSFS "/rescan", "1");
	rc = rc ?: cxlt_wait_pool_state(self->pools[k], "online", 10 * cxlt_timeout_scale());
	if (!rc)
		self->fenced[k] = 0;
	return rc;
}

/* Commit the state of @seed; its generation, or -errno. */
static long long commit_seed(struct cxltier_ckpt *ck, uint64_t seed)
{
	uint64_t *s = ck_state(seed, SIZE), gen = 0;
	void *staging;
	int rc;

	if (!s)
		return -ENOMEM;
	rc = cxltier_ckpt_begin(ck, SIZE, &staging);
	if (!rc) {
		memcpy(staging, s, SIZE);
		rc = cxltier_ckpt_commit(ck, &gen);
	}
	free(s);
	return rc ?: (long long)gen;
}

/* Restore; the generation (or -errno), *@seed_ok whether it holds @seed's state. */
static long long restore_seed(struct cxltier_ckpt *ck, uint64_t seed, int *seed_ok,
			      struct cxltier_ckpt_info **info)
{
	uint64_t *buf = calloc(1, CAP);
	long long gen;
	int rc;

	*info = NULL;
	if (!buf)
		return -ENOMEM;
	rc = cxltier_ckpt_restore(ck, buf, CAP, info);
	gen = rc ?: (long long)cxltier_ckpt_info_get_generation(*info);
	*seed_ok = !rc && cxltier_ckpt_info_get_size(*info) == SIZE &&
		   !ck_bad_words(buf, SIZE, seed);
	free(buf);
	return gen;
}

FIXTURE_SETUP(lineage)
{
	struct cxltier_ckpt_params *p;

	self->ctx = NULL;
	self->ck = NULL;
	self->fenced[0] = self->fenced[1] = 0;
	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (ck_two_pools(self->pools) < 2)
		SKIP(return, "needs two pools on two blades (the persist topology)");
	for (int k = 0; k < 2; k++)
		ASSERT_EQ(0, cxlt_readf(self->blades[k], sizeof(self->blades[k]), POOLS "/%s/%s",
					self->pools[k], "blades"));
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

FIXTURE_TEARDOWN(lineage)
{
	cxltier_ckpt_close(self->ck);
	/* The next test (and group) wants both blades in service. */
	for (int k = 0; k < 2; k++)
		if (self->fenced[k])
			restore_copy(self, k);
	if (self->ctx) {
		cxltier_refresh(self->ctx);
		cxltier_ckpt_drop(self->ctx, NAME);
		cxltier_unref(self->ctx);
	}
}

/*
 * Issue 22's sequence with blades fenced: A1 on both copies; copy 1's blade fenced,
 * the job goes on with A2, A3; copy 1's blade back and copy 0's fenced, the job
 * restarts, restores generation 1 and commits B2, B3; both back: restore gives B3,
 * copy 0 is diverged, and the next commit makes both copies hold it.
 */
TEST_F_TIMEOUT(lineage, returning_copy_diverged, 180)
{
	struct cxltier_ckpt_info *info = NULL;
	int ok = 0;

	ASSERT_EQ(1, commit_seed(self->ck, 101));
	ASSERT_EQ(0, fence_copy(self, 1));
	ASSERT_EQ(2, commit_seed(self->ck, 102));
	EXPECT_EQ(1, cxltier_ckpt_get_durable_copies(self->ck));
	ASSERT_EQ(3, commit_seed(self->ck, 103));
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;

	ASSERT_EQ(0, restore_copy(self, 1));
	ASSERT_EQ(0, fence_copy(self, 0));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck)) {
		TH_LOG("%s", cxltier_get_last_error(self->ctx));
	}
	EXPECT_EQ(1, restore_seed(self->ck, 101, &ok, &info));
	EXPECT_TRUE(ok);
	ASSERT_NE(NULL, info);
	EXPECT_EQ(CXLTIER_CKPT_COPY_MISSING, cxltier_ckpt_info_get_copy_state(info, 0));
	cxltier_ckpt_info_free(info);
	ASSERT_EQ(2, commit_seed(self->ck, 202));
	ASSERT_EQ(3, commit_seed(self->ck, 203));
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;

	ASSERT_EQ(0, restore_copy(self, 0));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(3, restore_seed(self->ck, 203, &ok, &info));
	EXPECT_TRUE(ok) {
		TH_LOG("generation 3 restored is not B3 (A3, of the abandoned timeline?)");
	}
	ASSERT_NE(NULL, info);
	EXPECT_EQ(1, cxltier_ckpt_info_get_source(info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_DIVERGED, cxltier_ckpt_info_get_copy_state(info, 0));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 1));
	EXPECT_NE(NULL, strstr(cxltier_get_last_error(self->ctx), "copy 0 diverged")) {
		TH_LOG("message: %s", cxltier_get_last_error(self->ctx));
	}
	cxltier_ckpt_info_free(info);
	info = NULL;
	ASSERT_EQ(0, cxltier_ckpt_verify(self->ck, &info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_DIVERGED, cxltier_ckpt_info_get_copy_state(info, 0));
	cxltier_ckpt_info_free(info);
	info = NULL;

	/* The next commit resyncs copy 0: both hold it, and copy 0 alone gives it. */
	ASSERT_EQ(4, commit_seed(self->ck, 304));
	EXPECT_EQ(2, cxltier_ckpt_get_durable_copies(self->ck));
	ASSERT_EQ(0, cxltier_ckpt_verify(self->ck, &info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 0));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 1));
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;
	ASSERT_EQ(0, fence_copy(self, 1));
	ASSERT_EQ(0, cxlt_write(CXLT_SYSFS "/rescan", "1"));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_READ, &self->ck));
	EXPECT_EQ(4, restore_seed(self->ck, 304, &ok, &info));
	EXPECT_TRUE(ok);
	cxltier_ckpt_info_free(info);
}

/*
 * The plain case with a blade fenced: copy 1 away while the job goes on, then back:
 * behind (stale), not diverged, and caught up by the next commit.
 */
TEST_F_TIMEOUT(lineage, returning_copy_behind, 120)
{
	struct cxltier_ckpt_info *info = NULL;
	int ok = 0;

	ASSERT_EQ(1, commit_seed(self->ck, 11));
	ASSERT_EQ(0, fence_copy(self, 1));
	ASSERT_EQ(2, commit_seed(self->ck, 12));
	ASSERT_EQ(3, commit_seed(self->ck, 13));
	cxltier_ckpt_close(self->ck);
	self->ck = NULL;
	ASSERT_EQ(0, restore_copy(self, 1));
	ASSERT_EQ(0, cxltier_ckpt_open(self->ctx, NAME, CXLTIER_REGION_RDWR, &self->ck));
	EXPECT_EQ(3, restore_seed(self->ck, 13, &ok, &info));
	EXPECT_TRUE(ok);
	ASSERT_NE(NULL, info);
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 0));
	EXPECT_EQ(CXLTIER_CKPT_COPY_STALE, cxltier_ckpt_info_get_copy_state(info, 1));
	EXPECT_EQ(1, cxltier_ckpt_info_get_copy_generation(info, 1));
	cxltier_ckpt_info_free(info);
	info = NULL;
	ASSERT_EQ(4, commit_seed(self->ck, 14));
	ASSERT_EQ(0, cxltier_ckpt_verify(self->ck, &info));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 0));
	EXPECT_EQ(CXLTIER_CKPT_COPY_OK, cxltier_ckpt_info_get_copy_state(info, 1));
	cxltier_ckpt_info_free(info);
}

/*
 * One committer at a time across processes on the guest's module: while this
 * process has begun a commit, another process's begin gets -EBUSY.
 */
TEST_F_TIMEOUT(lineage, one_committer, 120)
{
	void *staging;
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, cxltier_ckpt_begin(self->ck, 4096, &staging));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct cxltier_ctx *c = NULL;
		struct cxltier_ckpt *mine = NULL;
		void *st;

		if (cxltier_new(&c) || cxltier_ckpt_open(c, NAME, CXLTIER_REGION_RDWR, &mine))
			_exit(2);
		_exit(cxltier_ckpt_begin(mine, 4096, &st) == -EBUSY ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	memset(staging, 7, 4096);
	EXPECT_EQ(0, cxltier_ckpt_commit(self->ck, NULL));
}

TEST_HARNESS_MAIN
