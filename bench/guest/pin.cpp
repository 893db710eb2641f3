// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-pin: keeps the guest's own files in DRAM while the guest benchmark runs.
//
//   cxlt-bench-pin DIR...
//
// Maps every regular file under each DIR (not crossing into other file systems) and
// locks it with mlock(2), prints "pinned N files, M KiB" on stdout, then sleeps until
// killed.  Why: the guest's root file system is tmpfs in DRAM, and with demotion on,
// reclaim on the DRAM node would demote those pages (tens of MiB, more than the fast
// tier the benchmark allows) before the working set's: the kernel's tiering would get
// more DRAM than the other configurations, and the shell, busybox and the workload
// would run their code from emulated CXL memory, which QEMU's TCG executes very
// slowly.  Locked pages are unevictable, so they stay where they are.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

unsigned long files, kib, failed;

int pin(const char *path, const struct stat *st, int type, struct FTW *)
{
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		failed++;
		return 0;
	}
	void *p = mmap(nullptr, size_t(st->st_size), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED || mlock(p, size_t(st->st_size))) {
		failed++;
		return 0;
	}
	files++;
	kib += (unsigned long)(st->st_size + 1023) / 1024;
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cxlt-bench-pin DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (nftw(argv[i], pin, 64, FTW_PHYS | FTW_MOUNT))
			fprintf(stderr, "cxlt-bench-pin: %s: %s\n", argv[i], strerror(errno));
	if (mlockall(MCL_CURRENT))
		fprintf(stderr, "cxlt-bench-pin: mlockall: %s\n", strerror(errno));
	printf("pinned %lu files, %lu KiB (%lu not pinned)\n", files, kib, failed);
	fflush(stdout);
	for (;;)
		pause();
}
