// SPDX-License-Identifier: GPL-2.0
/*
 * cxlt_slurm_touch MIB [SECONDS]: the memory of a Slurm job in the slurm group.  Maps
 * MIB MiB of anonymous memory, writes every page (so the kernel places each under
 * the memory policy the job started with), prints where the pages are and under
 * which policy, from the kernel's own /proc/self/numa_maps, then stays SECONDS
 * (default 0), reading its memory again every second, so that a test sees the job
 * running and a fence of the memory under it kills it (SIGBUS).  One line:
 *
 *   placement: policy=POLICY pages=N dram=N cxl=N nodes=NODE:N,...
 *
 * A node is CXL when it has no CPUs (the rig's DRAM node has them all).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int node_has_cpus(int node)
{
	char path[96], buf[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return isdigit((unsigned char)buf[0]);
}

int main(int argc, char **argv)
{
	unsigned long mib, len, off, want, dram = 0, cxl = 0, total = 0;
	char line[4096], *tok, *save, policy[128] = "?", nodes[1024] = "";
	FILE *f;
	char *p;

	if (argc < 2 || (mib = strtoul(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: cxlt_slurm_touch MIB [SECONDS]\n");
		return 2;
	}
	len = mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	want = (unsigned long)p;
	f = fopen("/proc/self/numa_maps", "r");
	if (!f) {
		perror("/proc/self/numa_maps");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strtoul(line, NULL, 16) != want)
			continue;
		strtok_r(line, " \n", &save); /* the address */
		policy[0] = 0;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			int node;
			unsigned long n;

			/* The policy's words ("prefer (many):1") come before the first key=value. */
			if (!strchr(tok, '=')) {
				snprintf(policy + strlen(policy), sizeof(policy) - strlen(policy), "%s%s",
					 policy[0] ? "_" : "", tok);
				continue;
			}
			if (sscanf(tok, "N%d=%lu", &node, &n) != 2)
				continue;
			total += n;
			if (node_has_cpus(node))
				dram += n;
			else
				cxl += n;
			snprintf(nodes + strlen(nodes), sizeof(nodes) - strlen(nodes), "%s%d:%lu",
				 nodes[0] ? "," : "", node, n);
		}
	}
	fclose(f);
	printf("placement: policy=%s pages=%lu dram=%lu cxl=%lu nodes=%s\n", policy, total, dram,
	       cxl, nodes);
	fflush(stdout);
	for (int s = argc > 2 ? atoi(argv[2]) : 0; s > 0; s--) {
		volatile char *v = p;

		sleep(1);
		for (off = 0; off < len; off += 4096)
			(void)v[off];
	}
	return total ? 0 : 1;
}
