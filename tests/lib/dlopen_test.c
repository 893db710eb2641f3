// SPDX-License-Identifier: GPL-2.0
/*
 * libcxltier can be dlopen()ed: plugins link it (the Slurm SPANK plugin, loaded by
 * slurmd and slurmstepd).  A library loaded that way gets its thread-local storage
 * from the little static TLS glibc keeps spare when it uses initial-exec TLS, as
 * the fence handler's does; a large thread_local (once a 2.5 KiB random engine)
 * made every dlopen fail with "cannot allocate memory in static TLS block".
 *
 *   lib_dlopen_test LIBRARY
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: lib_dlopen_test LIBRARY\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("not ok: dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	if (!dlsym(h, "cxltier_placement_plan")) {
		printf("not ok: no cxltier_placement_plan in %s\n", argv[1]);
		return 1;
	}
	printf("ok: %s loads with dlopen\n", argv[1]);
	return 0;
}
