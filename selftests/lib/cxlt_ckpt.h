/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checkpoint helpers of the guest selftests (libcxltier): states whose words derive
 * from their generation, two online pools on two blades, commit and restore.
 */
#ifndef CXLT_CKPT_H
#define CXLT_CKPT_H

#include <glob.h>
#include <stdlib.h>

#include <cxltier.h>

#include "cxlt_test.h"

#define POOLS	CXLT_SYSFS "/pools"
#define MiB	(1ULL << 20)
#define CAP	(2 * MiB)	/* the checkpoints' capacity */

static inline uint64_t ck_word(uint64_t gen, size_t i)
{
	return (gen * 0x9e3779b97f4a7c15ULL) ^ (i * 0xc2b2ae3d27d4eb4fULL) ^ 0x5555;
}

static inline uint64_t *ck_state(uint64_t gen, size_t size)
{
	uint64_t *s = malloc(size);

	for (size_t i = 0; s && i < size / 8; i++)
		s[i] = ck_word(gen, i);
	return s;
}

static inline size_t ck_bad_words(const uint64_t *s, size_t size, uint64_t gen)
{
	size_t bad = 0;

	for (size_t i = 0; i < size / 8; i++)
		bad += s[i] != ck_word(gen, i);
	return bad;
}

/* Online pools on distinct blades, formatting unformatted ones; how many (max 2). */
static inline int ck_two_pools(char pools[2][32])
{
	char state[32], blades[2][64];
	int n = 0;
	glob_t g;

	if (glob(POOLS "/*/state", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < 2; i++) {
		char *dir = g.gl_pathv[i], *pool;

		*strrchr(dir, '/') = '\0';
		pool = strrchr(dir, '/') + 1;
		if (cxlt_readf(state, sizeof(state), POOLS "/%s/%s", pool, "state"))
			continue;
		if (!strcmp(state, "unformatted"))
			cxlt_write(CXLT_SYSFS "/pool_format", pool);
		if (cxlt_readf(state, sizeof(state), POOLS "/%s/%s", pool, "state") ||
		    strcmp(state, "online") ||
		    cxlt_readf(blades[n], sizeof(blades[n]), POOLS "/%s/%s", pool, "blades"))
			continue;
		if (n && !strcmp(blades[0], blades[1]))
			continue;
		snprintf(pools[n++], 32, "%s", pool);
	}
	globfree(&g);
	return n;
}

/* Commit generation @gen's state of @size bytes, synchronously or not; 0 or -errno. */
static inline int ck_commit(struct cxltier_ckpt *ck, uint64_t gen, size_t size, int async)
{
	uint64_t *s = ck_state(gen, size), got = 0;
	void *staging;
	int rc;

	if (!s)
		return -ENOMEM;
	if (async) {
		rc = cxltier_ckpt_commit_async(ck, s, size);
		/* The state was copied: the job may change it at once. */
		memset(s, 0xee, size);
		rc = rc ?: cxltier_ckpt_wait(ck, &got);
	} else {
		rc = cxltier_ckpt_begin(ck, size, &staging);
		if (!rc) {
			memcpy(staging, s, size / 2);
			rc = cxltier_ckpt_write(ck, size / 2, (char *)s + size / 2, size - size / 2) ?:
			     cxltier_ckpt_commit(ck, &got);
		}
	}
	free(s);
	return rc ?: got == gen ? 0 : -EIO;
}

/* Restore into a buffer; the generation, or -errno; *@info when @info. */
static inline long long ck_restore(struct cxltier_ckpt *ck, size_t size,
				   struct cxltier_ckpt_info **info,
				   size_t *bad)
{
	struct cxltier_ckpt_info *mine = NULL;
	uint64_t *buf = calloc(1, CAP);
	long long gen;
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = cxltier_ckpt_restore(ck, buf, CAP, &mine);
	gen = rc ?: (long long)cxltier_ckpt_info_get_generation(mine);
	if (!rc && bad)
		*bad = cxltier_ckpt_info_get_size(mine) != size ? size :
		       ck_bad_words(buf, size, (uint64_t)gen);
	free(buf);
	if (info)
		*info = mine;
	else
		cxltier_ckpt_info_free(mine);
	return gen;
}

#endif /* CXLT_CKPT_H */
