/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier.h is plain C11 and libcxltier.a links into a C program: builds a
 * one-blade tree in a temporary directory, lists it with the C iteration macros.
 * Exit 0 on success; prints what failed otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cxltier.h"

static char root[64];

static int put(const char *rel, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%s\n", value);
	return fclose(f);
}

static void cleanup(void)
{
	static const char *const files[] = {
		"cxltier/blades/mem0/state", "cxltier/blades/mem0/tiers",
		"cxltier/blades/mem0", "cxltier/blades", "cxltier/abi_version", "cxltier",
		"fake-libcxl/memdevs/mem0/serial", "fake-libcxl/memdevs/mem0/ram_size",
		"fake-libcxl/memdevs/mem0/pmem_size", "fake-libcxl/memdevs/mem0/host",
		"fake-libcxl/memdevs/mem0", "fake-libcxl/memdevs", "fake-libcxl", "",
	};
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		remove(path);
	}
}

/* A fence callback as a C program writes it. */
static enum cxltier_fence_action on_fence(const struct cxltier_fence_event *ev, void *arg)
{
	(void)arg;
	return ev->blade[0] && ev->cause != CXLTIER_EVENT_CAUSE_UNKNOWN ? CXLTIER_FENCE_RETRY_REPLACE
								      : CXLTIER_FENCE_DEFAULT;
}

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__,      \
				__LINE__, #cond);                              \
			return 1;                                              \
		}                                                              \
	} while (0)

static int run(void)
{
	struct cxltier_ctx *ctx = NULL;
	struct cxltier_daemon *daemon = NULL;
	enum cxltier_region_hint hint;
	struct cxltier_blade *blade;
	struct cxltier_cxl_region *region;
	const char *const *regions;
	size_t nregions = 1;
	int nblades = 0, rc;
	char dir[96];
	struct cxltier_pool *pool;
	struct cxltier_pool_host *host;
	struct cxltier_pool_entry *entry;
	static uint64_t flag;
	static unsigned char data[256];
	struct cxltier_placement *plan = NULL;
	enum cxltier_placement_policy policy;

	static const char *const dirs[] = {
		"cxltier", "cxltier/blades", "cxltier/blades/mem0",
		"fake-libcxl", "fake-libcxl/memdevs", "fake-libcxl/memdevs/mem0",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
		CHECK(mkdir(dir, 0755) == 0);
	}
	CHECK(put("cxltier/abi_version", "2") == 0);
	CHECK(put("cxltier/blades/mem0/state", "offline") == 0);
	CHECK(put("cxltier/blades/mem0/tiers", "") == 0);
	/* The memdev as the tests' fake libcxl reads it (fake_platform.cpp). */
	CHECK(put("fake-libcxl/memdevs/mem0/serial", "0x2a") == 0);
	CHECK(put("fake-libcxl/memdevs/mem0/ram_size", "268435456") == 0);
	CHECK(put("fake-libcxl/memdevs/mem0/pmem_size", "0") == 0);
	CHECK(put("fake-libcxl/memdevs/mem0/host", "0000:0d:00.0") == 0);
	snprintf(dir, sizeof(dir), "%s/cxltier", root);
	CHECK(setenv(CXLTIER_SYSFS_ENV, dir, 1) == 0);

	rc = cxltier_new(&ctx);
	if (rc < 0)
		fprintf(stderr, "cxltier_new: %s: %s\n", cxltier_strerror(rc),
			cxltier_get_last_error(NULL));
	CHECK(rc == 0);
	for_each_cxltier_blade(ctx, blade) {
		CHECK(strcmp(cxltier_blade_get_name(blade), "mem0") == 0);
		CHECK(cxltier_blade_get_serial(blade) == 42);
		CHECK(cxltier_blade_get_state(blade) == CXLTIER_BLADE_STATE_OFFLINE);
		regions = cxltier_blade_get_cxl_regions(blade, &nregions);
		CHECK(nregions == 0 && regions[0] == NULL);
		nblades++;
	}
	CHECK(nblades == 1);
	for_each_cxltier_cxl_region(ctx, region)
		CHECK(!"no CXL regions expected");
	/* A module without the migration daemon; hint names need no module. */
	CHECK(cxltier_daemon_read(ctx, &daemon) == -EOPNOTSUPP && daemon == NULL);
	CHECK(cxltier_region_hint_from_name("pin", &hint) == 0 && hint == CXLTIER_REGION_HINT_PIN);
	/* Blade counters, event names and the fence handler from C. */
	blade = cxltier_blade_get_first(ctx);
	CHECK(!cxltier_blade_has_recovery_counters(blade) && cxltier_blade_get_drain_left(blade) == 0);
	CHECK(strcmp(cxltier_event_type_name(CXLTIER_EVENT_TYPE_FENCE_PAGE), "fence-page") == 0);
	CHECK(cxltier_fence_handler_install(on_fence, NULL) == 0);
	CHECK(cxltier_fence_handler_remove() == 0);
	/* No pools here; the pool record macros compile and find none. */
	pool = cxltier_pool_get_first(ctx);
	CHECK(pool == NULL);
	for_each_cxltier_pool_host(pool, host)
		CHECK(!"no host records expected");
	for_each_cxltier_pool_entry(pool, entry)
		CHECK(!"no table entries expected");
	/* A handover through a flag, as between hosts (fences only off x86). */
	memset(data, 7, sizeof(data));
	rc = cxltier_flush(data, sizeof(data));
	CHECK(rc == 0 || rc == -EOPNOTSUPP);
	cxltier_publish(&flag, 1);
	rc = cxltier_acquire_range(&flag, 1, 0, data, sizeof(data));
	CHECK((rc == 0 || rc == -EOPNOTSUPP) && data[255] == 7);
	CHECK(cxltier_acquire(&flag, 2, 0) == -ETIMEDOUT);
	/* No NUMA node in this fake: a placement does not fit, and says where. */
	CHECK(cxltier_placement_policy_from_name("weighted", &policy) == 0 &&
	      policy == CXLTIER_PLACEMENT_WEIGHTED);
	CHECK(cxltier_placement_plan(ctx, 4096, 0, policy, 0, &plan) == -ENOSPC && plan == NULL);
	CHECK(strstr(cxltier_get_last_error(ctx), "no DRAM node") != NULL);
	cxltier_placement_free(plan);
	cxltier_unref(ctx);

	cleanup();
	CHECK(cxltier_new(&ctx) == -ENOENT && ctx == NULL);
	return 0;
}

int main(void)
{
	int rc;

	snprintf(root, sizeof(root), "/tmp/cxltier-c-abi-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	rc = run();
	cleanup();
	return rc;
}
