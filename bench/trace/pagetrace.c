// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrace: a QEMU TCG plugin that records the page-access trace of one guest
 * program for the placement simulator (bench/trace/record runs it).
 *
 * What a trace holds: the pages of the memory traffic of the program, in order.
 * Every data access (load or store) that guest CPU `cpu` makes to a user address
 * goes through a model of a last-level cache (64-byte lines, `llc_kib` KiB,
 * `ways`-way set-associative, LRU, write-allocate); each miss
 * is memory traffic, and each miss writes its guest-physical page number (u64,
 * little-endian) to the trace (bench/trace/densify thins it).  The cache model is why a sequential
 * scan counts 64 accesses per page and not 512 loads: what a tier serves is
 * misses, not loads.  Physical, not virtual, pages: another process's pages never
 * take the program's numbers.  Kernel-mode addresses (the upper half) are not the
 * program's and are left out; the kernel's accesses to the program's pages through
 * their user addresses (copy_to_user) are in.
 *
 * When: the guest starts a recording by writing a trace name to DIR/record (the
 * host folder it shares as /mnt/host), runs the program pinned to guest CPU `cpu`
 * with everything else on the other CPUs, removes the file when the program has
 * exited, then runs a loop on CPU `cpu` over one cache line (bench/trace/guest-record).
 * The plugin reads the file every 2^14 user accesses of that CPU (the guest has no
 * other way to reach it): a removed file closes DIR/NAME.u64, a new name opens one.
 * So a trace misses at most the program's first 2^14 accesses and ends with at
 * most the loop's few misses.  Only CPU `cpu`'s callbacks write state, whatever
 * the TCG threading.
 *
 * Arguments: dir=HOSTDIR (required), cpu=N (0), llc_kib=K (2048), ways=W (16).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define LINE_SHIFT	6
#define PAGE_SHIFT	12
#define USER_TOP	(1ULL << 47)	/* x86-64, 4-level: user addresses below */
#define POLL_EVERY	(1U << 14)
#define BUF_ENTRIES	(1U << 16)

static char dir[4096];
static unsigned int cpu;
static uint64_t sets, ways = 16;

/* Only CPU `cpu`'s callbacks touch what follows, one thread at a time. */
static uint64_t *tags;		/* sets x ways, most recent first; 0 is empty */
static uint32_t poll_count;
static FILE *out;
static char name[256];
static uint64_t buf[BUF_ENTRIES];
static unsigned int nbuf;
static uint64_t accesses, misses;

static void flush(void)
{
	if (out && nbuf && fwrite(buf, sizeof(buf[0]), nbuf, out) != nbuf) {
		fprintf(stderr, "pagetrace: cannot write %s/%s.u64: %s\n", dir, name,
			strerror(errno));
		exit(1);
	}
	nbuf = 0;
}

static void close_trace(void)
{
	if (!out)
		return;
	flush();
	if (fclose(out)) {
		fprintf(stderr, "pagetrace: cannot write %s/%s.u64: %s\n", dir, name,
			strerror(errno));
		exit(1);
	}
	out = NULL;
	fprintf(stderr, "pagetrace: %s: %" PRIu64 " user accesses, %" PRIu64 " misses\n",
		name, accesses, misses);
}

/* A name is letters, digits, '-', '_' and '.', not starting with '.'. */
static bool good_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

static void poll_flag(void)
{
	char path[4400], want[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/record", dir);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(want, sizeof(want), f))
			want[0] = 0;
		fclose(f);
		want[strcspn(want, "\r\n")] = 0;
	}
	if (out && !strcmp(want, name))
		return;
	close_trace();
	if (!want[0])
		return;
	if (!good_name(want)) {
		fprintf(stderr, "pagetrace: ignoring bad trace name in %s\n", path);
		return;
	}
	snprintf(name, sizeof(name), "%s", want);
	snprintf(path, sizeof(path), "%s/%s.u64", dir, name);
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "pagetrace: cannot create %s: %s\n", path, strerror(errno));
		exit(1);
	}
	memset(tags, 0, sets * ways * sizeof(tags[0]));
	accesses = misses = 0;
}

/*
 * True on a hit.  The set is chosen by the virtual line, so that the misses are
 * the same from run to run (guest-record turns ASLR off; physical frames differ);
 * the tag is the physical line + 1, so that 0 means empty.
 */
static bool cache_access(uint64_t vline, uint64_t pline)
{
	uint64_t *set = tags + (vline % sets) * ways, tag = pline + 1;
	uint64_t i;

	for (i = 0; i < ways && set[i] != tag; i++)
		;
	bool hit = i < ways;

	if (hit && i == 0)
		return true;
	if (!hit)
		i = ways - 1;	/* the least recent goes */
	memmove(set + 1, set, i * sizeof(set[0]));
	set[0] = tag;
	return hit;
}

static void vcpu_mem(unsigned int cpu_index, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t pa;

	(void)udata;
	if (cpu_index != cpu || vaddr >= USER_TOP)
		return;
	if (++poll_count == POLL_EVERY) {
		poll_count = 0;
		poll_flag();
	}
	if (!out)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	accesses++;
	if (cache_access(vaddr >> LINE_SHIFT, pa >> LINE_SHIFT))
		return;
	misses++;
	buf[nbuf++] = pa >> PAGE_SHIFT;	/* x86-64 is little-endian, as the file */
	if (nbuf == BUF_ENTRIES)
		flush();
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), vcpu_mem,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
						 NULL);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	close_trace();
	free(tags);
}

static bool parse_u64(const char *arg, const char *key, uint64_t *v, uint64_t min)
{
	size_t k = strlen(key);
	char *end;

	if (strncmp(arg, key, k) || arg[k] != '=')
		return false;
	errno = 0;
	*v = strtoull(arg + k + 1, &end, 10);
	if (errno || *end || end == arg + k + 1 || *v < min) {
		fprintf(stderr, "pagetrace: bad %s (a number from %" PRIu64 ")\n", arg, min);
		exit(1);
	}
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	uint64_t llc_kib = 2048, c = 0;

	if (!info->system_emulation) {
		fprintf(stderr, "pagetrace: for system emulation only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "dir=", 4)) {
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
		} else if (!parse_u64(argv[i], "cpu", &c, 0) &&
			   !parse_u64(argv[i], "llc_kib", &llc_kib, 1) &&
			   !parse_u64(argv[i], "ways", &ways, 1)) {
			fprintf(stderr, "pagetrace: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!dir[0]) {
		fprintf(stderr, "pagetrace: dir=HOSTDIR is required\n");
		return -1;
	}
	cpu = (unsigned int)c;
	sets = (llc_kib << 10 >> LINE_SHIFT) / ways;
	if (!sets || ways > 64) {
		fprintf(stderr, "pagetrace: llc_kib=%" PRIu64 " with ways=%" PRIu64
			" makes no cache (1 to 64 ways, a set at least)\n", llc_kib, ways);
		return -1;
	}
	tags = calloc(sets * ways, sizeof(tags[0]));
	if (!tags)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
