// SPDX-License-Identifier: GPL-2.0
/*
 * faultcost: what a fault on a global region costs, in the guest.
 *
 *   faultcost [MiB] [rounds]
 *
 * Creates a fast-first region of MiB (default 64), maps it and measures, per page:
 * first touch (allocate, zero, insert, map) and refault of a resident page after
 * MADV_DONTNEED zapped the mapping (what the daemon's sampling costs a workload).
 * Prints one JSON object; the numbers of Documentation/design.rst come from it.
 * Build: gcc -O2 -static -I include/uapi -o faultcost bench/fault/faultcost.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/cxltier.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned long mb = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 5, r;
	unsigned long pages = mb << 8, i;
	double first[16], refault[16];
	int dev = open("/dev/" CXLTIER_DEVICE_NAME, O_RDWR);

	if (dev < 0 || rounds < 1 || rounds > 16) {
		perror("faultcost: /dev/cxltier");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		struct cxltier_create c = { .size = sizeof(c), .length = mb << 20 };
		struct cxltier_open o = { .size = sizeof(o),
					  .flags = CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE };
		struct cxltier_destroy d = { .size = sizeof(d) };
		volatile char *p;
		double t;

		snprintf(c.name, sizeof(c.name), "faultcost.%d.%d", getpid(), r);
		memcpy(o.name, c.name, sizeof(o.name));
		memcpy(d.name, c.name, sizeof(d.name));
		if (ioctl(dev, CXLTIER_IOC_CREATE, &c) || ioctl(dev, CXLTIER_IOC_OPEN, &o)) {
			perror("faultcost: create/open");
			return 1;
		}
		p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_SHARED, o.fd, 0);
		if (p == MAP_FAILED) {
			perror("faultcost: mmap");
			return 1;
		}
		t = now();
		for (i = 0; i < pages; i++)
			p[i << 12] = 1;
		first[r] = (now() - t) / pages * 1e9;
		madvise((void *)p, mb << 20, MADV_DONTNEED);
		t = now();
		for (i = 0; i < pages; i++)
			p[i << 12]++;
		refault[r] = (now() - t) / pages * 1e9;
		munmap((void *)p, mb << 20);
		close(o.fd);
		ioctl(dev, CXLTIER_IOC_DESTROY, &d);
	}
	qsort(first, rounds, sizeof(double), cmp);
	qsort(refault, rounds, sizeof(double), cmp);
	printf("{\"mib\": %lu, \"rounds\": %d, \"first_touch_ns_median\": %.0f, \"refault_ns_median\": %.0f}\n",
	       mb, rounds, first[rounds / 2], refault[rounds / 2]);
	return 0;
}
