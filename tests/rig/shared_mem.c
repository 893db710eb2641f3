// SPDX-License-Identifier: GPL-2.0
/*
 * shared_mem DEV put OFFSET STRING | get OFFSET LEN
 *
 * For the rig's two-host test (rig_test.sh): map the first 2 MiB of a device DAX node
 * (a CXL region's memory, /dev/daxN.M) shared and write STRING at OFFSET, or print LEN
 * bytes from OFFSET (up to the first NUL).  Built static on the build host, so that the
 * guest runs it from the shared folder.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAP_LEN (2UL << 20)

int main(int argc, char **argv)
{
	unsigned long off;
	char *p;
	int fd;

	if (argc != 5 || (strcmp(argv[2], "put") && strcmp(argv[2], "get"))) {
		fprintf(stderr, "usage: shared_mem DEV put OFFSET STRING | get OFFSET LEN\n");
		return 2;
	}
	off = strtoul(argv[3], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (!strcmp(argv[2], "put")) {
		size_t n = strlen(argv[4]) + 1;

		if (off + n > MAP_LEN)
			return 2;
		memcpy(p + off, argv[4], n);
		msync(p, MAP_LEN, MS_SYNC);
	} else {
		size_t n = strtoul(argv[4], NULL, 0);

		if (off + n > MAP_LEN)
			return 2;
		printf("%.*s\n", (int)n, p + off);
	}
	munmap(p, MAP_LEN);
	close(fd);
	return 0;
}
