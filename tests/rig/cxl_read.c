// SPDX-License-Identifier: GPL-2.0
/*
 * cxl_read FILE NODE >OUT
 *
 * For the rig's test of device I/O into CXL memory (rig_test.sh): map anonymous memory
 * the size of FILE, bind it to NUMA node NODE (mbind, MPOL_BIND), read(2) FILE into it
 * (the read faults the pages in, on NODE), check that every page of it and every page
 * of its own program that it has mapped are on NODE (run from the shared folder under
 * numactl --membind=NODE after the page cache was dropped, exec read the program into
 * pages there), then write(2) the buffer to standard output: the host compares OUT
 * with FILE.  With both FILE and OUT in the shared folder, the 9p device writes into
 * CXL pages and reads from them.  It computes nothing over the data itself: its code
 * sits on NODE, and TCG runs code in emulated I/O memory one instruction at a time.
 * Built static on the build host, so that the guest runs it from the shared folder.
 * Exit 1 on a short read or write or a page elsewhere, 2 for a usage error.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/mempolicy.h>, without libnuma's headers */
#define MPOL_BIND_ 2
#define MPOL_F_NODE_ 1
#define MPOL_F_ADDR_ 2
#define MAX_NODES 1024
#define LONG_BITS (8 * sizeof(unsigned long))

/*
 * Whether the pages of this program's file that it has mapped are all on @node, from
 * /proc/self/numa_maps ("... file=/mnt/host/cxl_read ... N1=5 ...").
 */
static int exe_on_node(int node)
{
	char exe[PATH_MAX], line[PATH_MAX + 256];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int seen = 0, bad = 0;
	FILE *f;

	if (len <= 0)
		return 0;
	exe[len] = 0;
	f = fopen("/proc/self/numa_maps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *file = strstr(line, " file="), *tok;

		if (!file || strncmp(file + 6, exe, len) || !isspace((unsigned char)file[6 + len]))
			continue;
		for (tok = strtok(line, "\n "); tok; tok = strtok(NULL, "\n ")) {
			if (tok[0] != 'N' || !isdigit((unsigned char)tok[1]))
				continue;
			seen = 1;
			if (atoi(tok + 1) != node) {
				fprintf(stderr, "%s: pages on node %s, not %d\n",
					exe, tok + 1, node);
				bad = 1;
			}
		}
	}
	fclose(f);
	if (!seen)
		fprintf(stderr, "%s: no mapped pages in numa_maps\n", exe);
	return seen && !bad;
}

int main(int argc, char **argv)
{
	unsigned long mask[MAX_NODES / LONG_BITS] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	size_t len, off, i;
	struct stat st;
	int fd, node;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: cxl_read FILE NODE >OUT\n");
		return 2;
	}
	node = atoi(argv[2]);
	if (node < 0 || node >= MAX_NODES)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	len = st.st_size;
	if (!len)
		return 2;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	mask[node / LONG_BITS] = 1UL << (node % LONG_BITS);
	if (syscall(SYS_mbind, p, len, MPOL_BIND_, mask, MAX_NODES + 1, 0)) {
		perror("mbind");
		return 1;
	}
	for (off = 0; off < len;) {
		ssize_t n = read(fd, p + off, len - off);

		if (n <= 0) {
			fprintf(stderr, "read: %zd at %zu of %zu\n", n, off, len);
			return 1;
		}
		off += n;
	}
	for (i = 0; i < len; i += page) {
		int where = -1;

		if (syscall(SYS_get_mempolicy, &where, NULL, 0, p + i,
			    MPOL_F_NODE_ | MPOL_F_ADDR_) || where != node) {
			fprintf(stderr, "page at %zu is on node %d, not %d\n", i, where, node);
			return 1;
		}
	}
	if (!exe_on_node(node))
		return 1;
	for (off = 0; off < len;) {
		ssize_t n = write(1, p + off, len - off);

		if (n <= 0) {
			fprintf(stderr, "write: %zd at %zu of %zu\n", n, off, len);
			return 1;
		}
		off += n;
	}
	return 0;
}
