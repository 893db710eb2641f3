/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the cxltier selftests: reading sysfs files and the
 * topology description that qemu/run exports to the guest (CXLT_TOPOLOGY,
 * CXLT_BLADES, CXLT_REGIONS).
 */
#ifndef CXLT_TEST_H
#define CXLT_TEST_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CXLT_SYSFS	"/sys/kernel/cxltier"
#define CXL_SYSFS	"/sys/bus/cxl/devices"

/* Read a whole (small) file into buf without the trailing newline; -errno on error. */
static inline int cxlt_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static inline int cxlt_readf(char *buf, size_t len, const char *fmt, const char *a,
			     const char *b)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), fmt, a, b);
	return cxlt_read(path, buf, len);
}

/* Read a number in any base strtoull accepts; returns -1 (all ones) on error. */
static inline uint64_t cxlt_read_u64(const char *fmt, const char *a, const char *b)
{
	char buf[64], *end;
	uint64_t v;

	if (cxlt_readf(buf, sizeof(buf), fmt, a, b))
		return UINT64_MAX;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return UINT64_MAX;
	return v;
}

static inline int cxlt_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* The last path component of a symlink's target, e.g. "mem0"; -errno on error. */
static inline int cxlt_link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	char *base;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

static inline int cxlt_module_loaded(void)
{
	return access(CXLT_SYSFS, F_OK) == 0;
}

#endif /* CXLT_TEST_H */
