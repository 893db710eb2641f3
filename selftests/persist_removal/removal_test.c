// SPDX-License-Identifier: GPL-2.0
/*
 * A persistent device hot-removed (QMP device_del) under a job that has a
 * checkpoint open in two copies and a persistent region of the device mapped.
 *
 * Theory of operation: the guest's PCIe hotplug tears the device down a few
 * seconds after the request; its memdev is unbound, and cxltier makes the device's
 * pool lost from the CXL bus notifier, before the memory goes: the mapping faults
 * (SIGBUS) instead of reading the zeroes a removed device returns.  The checkpoint
 * goes on with the copy that is left: restore returns the last committed
 * generation, commits keep working on one copy.  A boot of its own: the device
 * does not come back.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cxlt_ckpt.h"
#include "cxlt_region.h"

#define NAME	"rm-ckpt"
#define REGION	"rm-region"

static int sh(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	int rc;

	if (!f)
		return -1;
	if (!out || !fgets(out, len, f))
		out = NULL;
	while (fgetc(f) != EOF)
		;
	rc = pclose(f);
	if (out)
		out[strcspn(out, "\n")] = 0;
	return rc;
}

FIXTURE(removal) {
	int unused;
};

FIXTURE_SETUP(removal)
{
}

FIXTURE_TEARDOWN(removal)
{
}

TEST_F_TIMEOUT(removal, device_del, 240)
{
	char pools[2][32], blade[64], cmd[256], qpath[128];
	struct cxltier_ckpt_params *p;
	struct cxltier_ckpt_info *info = NULL;
	struct cxltier_create c = { .size = sizeof(c), .length = 2 * MiB,
				    .flags = CXLTIER_CREATE_PERSISTENT };
	struct cxltier_ctx *ctx;
	struct cxltier_ckpt *ck;
	size_t bad = 1;
	struct rstat s;
	uint64_t *m;
	int dev, fd, i;

	if (!cxlt_module_loaded())
		SKIP(return, "cxltier.ko is not loaded");
	if (ck_two_pools(pools) < 2)
		SKIP(return, "needs two pools on two blades (the persist topology)");
	ASSERT_EQ(0, cxlt_readf(blade, sizeof(blade), POOLS "/%s/%s", pools[1], "blades"));
	snprintf(cmd, sizeof(cmd), "cxlt-qmp --path-of %s", blade);
	ASSERT_EQ(0, sh(cmd, qpath, sizeof(qpath)));

	/* The job: a checkpoint in two copies, a region of the doomed pool mapped. */
	ASSERT_EQ(0, cxltier_new(&ctx));
	ASSERT_EQ(0, cxltier_ckpt_params_new(&p));
	ASSERT_EQ(0, cxltier_ckpt_params_set_capacity(p, CAP));
	ASSERT_EQ(0, cxltier_ckpt_params_set_copies(p, 2));
	ASSERT_EQ(0, cxltier_ckpt_params_set_pool(p, 0, pools[0]));
	ASSERT_EQ(0, cxltier_ckpt_params_set_pool(p, 1, pools[1]));
	ASSERT_EQ(0, cxltier_ckpt_create(ctx, NAME, p, &ck)) {
		TH_LOG("%s", cxltier_get_last_error(ctx));
	}
	cxltier_ckpt_params_free(p);
	ASSERT_EQ(0, ck_commit(ck, 1, MiB, 0));
	ASSERT_EQ(0, ck_commit(ck, 2, MiB, 1));
	dev = dev_open();
	ASSERT_LE(0, dev);
	snprintf(c.name, sizeof(c.name), REGION);
	snprintf(c.pool, sizeof(c.pool), "%s", pools[1]);
	ASSERT_EQ(0, xioctl(dev, CXLTIER_IOC_CREATE, &c));
	fd = rg_open(dev, REGION, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	m[0] = 42;

	snprintf(cmd, sizeof(cmd), "cxlt-qmp device_del '{\"id\": \"%s\"}'", qpath);
	ASSERT_EQ(0, sh(cmd, NULL, 0));
	for (i = 0; i < 600; i++) {
		ASSERT_EQ(0, rg_stat(fd, NULL, &s));
		if (s.st.region_flags & CXLTIER_REGION_LOST)
			break;
		usleep(100000);
	}
	ASSERT_LT(i, 600) TH_LOG("the region was not lost within 60 s of device_del");
	ksft_print_msg("device_del of %s (%s): pool %s lost after %.1f s\n", blade, qpath,
		       pools[1], i / 10.0);
	EXPECT_EQ(1, cxlt_reads_sigbus(m));

	/* The checkpoint, open all along: the last generation from the copy left. */
	EXPECT_EQ(2, ck_restore(ck, MiB, &info, &bad));
	EXPECT_EQ(0, bad);
	ASSERT_NE(NULL, info);
	EXPECT_EQ(CXLTIER_CKPT_COPY_MISSING, cxltier_ckpt_info_get_copy_state(info, 1));
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(0, ck_commit(ck, 3, MiB, 0));
	EXPECT_EQ(1, cxltier_ckpt_get_durable_copies(ck));
	cxltier_ckpt_close(ck);

	/* A job started now: the copy is gone for good, generation 3 is there. */
	ck = NULL;
	ASSERT_EQ(0, cxltier_ckpt_open(ctx, NAME, CXLTIER_REGION_RDWR, &ck));
	EXPECT_EQ(3, ck_restore(ck, MiB, NULL, &bad));
	EXPECT_EQ(0, bad);
	cxltier_ckpt_close(ck);
	munmap(m, 2 * MiB);
	close(fd);
	cxltier_ckpt_drop(ctx, NAME);
	cxltier_unref(ctx);
	close(dev);
}

TEST_HARNESS_MAIN
