// SPDX-License-Identifier: GPL-2.0
/*
 * cxlt_slurm_pool put|get NAME MIB: a Slurm job of the slurm group that uses the
 * cluster's shared pool, which the plugin names in CXLTIER_POOL (--cxl-pool).
 *
 *   put: creates persistent region NAME of MIB MiB on that pool, fills it with a
 *        pattern of NAME, writes it back and publishes it (libcxltier's rules for
 *        handing data between hosts: the device is not coherent across them);
 *   get: opens NAME by name (a job on another host), acquires it, checks every
 *        word of the pattern, then destroys the region.
 *
 * One line, "pool: put NAME MIB MiB on POOL" or "pool: got NAME MIB MiB from POOL:
 * N words checked"; on failure why, on stderr, and exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxltier.h>

#define DATA_OFF 4096u /* the flag has the first page to itself */
#define WAIT_MS (60 * 1000)

static int fail(struct cxltier_ctx *ctx, const char *what, int rc)
{
	const char *why = ctx ? cxltier_get_last_error(ctx) : "";

	fprintf(stderr, "cxlt_slurm_pool: %s: %s\n", what, *why ? why : cxltier_strerror(rc));
	return 1;
}

static uint64_t seed_of(const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

static uint64_t word(uint64_t seed, uint64_t i)
{
	return seed ^ (i * 0x9e3779b97f4a7c15ull);
}

int main(int argc, char **argv)
{
	struct cxltier_region *r = NULL;
	struct cxltier_ctx *ctx = NULL;
	const char *pool = getenv("CXLTIER_POOL");
	uint64_t size, n, i, seed, *data;
	unsigned long mib;
	uint32_t id;
	char *addr;
	int put, rc;

	if (argc != 4 || (strcmp(argv[1], "put") && strcmp(argv[1], "get")) ||
	    (mib = strtoul(argv[3], NULL, 0)) == 0) {
		fprintf(stderr, "usage: cxlt_slurm_pool put|get NAME MIB\n");
		return 2;
	}
	if (!pool || !*pool) {
		fprintf(stderr, "cxlt_slurm_pool: CXLTIER_POOL is not set (the job has no --cxl-pool)\n");
		return 1;
	}
	put = !strcmp(argv[1], "put");
	size = (uint64_t)mib << 20;
	n = (size - DATA_OFF) / sizeof(uint64_t);
	seed = seed_of(argv[2]);
	rc = cxltier_new(&ctx);
	if (rc)
		return fail(NULL, "cxltier_new", rc);
	if (put) {
		rc = cxltier_region_create_persistent(ctx, argv[2], size, 0600, pool, &id);
		if (rc)
			return fail(ctx, "create", rc);
	}
	rc = cxltier_region_open(ctx, argv[2], CXLTIER_REGION_RDWR, &r);
	if (rc)
		return fail(ctx, "open", rc);
	rc = cxltier_region_map(r, (void **)&addr);
	if (rc)
		return fail(ctx, "map", rc);
	data = (uint64_t *)(addr + DATA_OFF);
	if (put) {
		for (i = 0; i < n; i++)
			data[i] = word(seed, i);
		rc = cxltier_flush(data, n * sizeof(*data));
		if (rc)
			return fail(ctx, "flush", rc);
		cxltier_publish((uint64_t *)addr, 1);
		printf("pool: put %s %lu MiB on %s\n", argv[2], mib, pool);
	} else {
		rc = cxltier_acquire_range((uint64_t *)addr, 1, WAIT_MS, data, n * sizeof(*data));
		if (rc)
			return fail(ctx, "acquire (no put published it)", rc);
		for (i = 0; i < n; i++)
			if (data[i] != word(seed, i)) {
				fprintf(stderr, "cxlt_slurm_pool: word %" PRIu64 " of %s is %#" PRIx64
					", not %#" PRIx64 "\n", i, argv[2], data[i], word(seed, i));
				return 1;
			}
		cxltier_region_close(r);
		r = NULL;
		rc = cxltier_region_destroy(ctx, argv[2]);
		if (rc)
			return fail(ctx, "destroy", rc);
		printf("pool: got %s %lu MiB from %s: %" PRIu64 " words checked\n", argv[2], mib,
		       pool, n);
	}
	cxltier_region_close(r);
	cxltier_unref(ctx);
	return 0;
}
