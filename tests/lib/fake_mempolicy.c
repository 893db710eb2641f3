/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for libnuma's set_mempolicy(2) wrapper, so that host tests can
 * check the policy libcxltier sets for a plan whose nodes the host does not have
 * (and where a container's seccomp filter would refuse the call anyway).  Linked
 * into a test program it interposes on libnuma's for the library; cxltierctl's
 * tests LD_PRELOAD it.
 *
 * With CXLTIER_FAKE_MEMPOLICY naming a file, each call appends one line to it,
 * "mode=<MPOL_*> nodes=<id>,<id>... pid=<caller>", and succeeds, or, with
 * CXLTIER_FAKE_MEMPOLICY_ERRNO=<n>, fails with errno n (and appends nothing).
 * Without CXLTIER_FAKE_MEMPOLICY the real one runs.  (libnuma probes the kernel
 * with set_mempolicy() when a program that links it starts: the pid tells those
 * calls apart from the job's.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long set_mempolicy(int mode, const unsigned long *nmask, unsigned long maxnode);

long set_mempolicy(int mode, const unsigned long *nmask, unsigned long maxnode)
{
	const char *log = getenv("CXLTIER_FAKE_MEMPOLICY");
	const char *fail = getenv("CXLTIER_FAKE_MEMPOLICY_ERRNO");
	const unsigned long bits = CHAR_BIT * sizeof(unsigned long);
	const char *sep = "";
	unsigned long i;
	FILE *f;

	if (!log) {
		long (*real)(int, const unsigned long *, unsigned long) =
			(long (*)(int, const unsigned long *, unsigned long))dlsym(RTLD_NEXT,
										    "set_mempolicy");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
		return real(mode, nmask, maxnode);
	}
	if (fail && *fail) {
		errno = atoi(fail);
		return -1;
	}
	f = fopen(log, "a");
	if (!f)
		return -1;
	fprintf(f, "mode=%d nodes=", mode);
	/* The kernel reads maxnode - 1 bits. */
	for (i = 0; nmask && i + 1 < maxnode; i++)
		if (nmask[i / bits] & (1ul << (i % bits))) {
			fprintf(f, "%s%lu", sep, i);
			sep = ",";
		}
	fprintf(f, " pid=%ld\n", (long)getpid());
	return fclose(f) ? -1 : 0;
}
