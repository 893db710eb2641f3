// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a bounded, seeded fuzzer of /dev/cxltier (its ioctls) and of region files
 * (mmap and what the mm does with the mappings).
 *
 * Theory of operation.  Every test draws its operations from one PRNG seeded by the
 * run's seed and stops after a bound; both are printed first, so any failure runs
 * again the same way:
 *
 *	CXLT_FUZZ_SEED=0x1234 CXLT_FUZZ_OPS=12000 cxlt-selftests fuzz
 *	fuzz_test --seed=0x1234 --ops=12000 -t mmap_fuzz	(one test)
 *	CXLT_FUZZ_TRACE=1 ...					(print every operation)
 *
 * The bound is ioctl_fuzz's number of operations; mmap_fuzz does a third of it and
 * each race worker an eighth.  A failure prints the last operations and the line
 * that reproduces it.  The tests check only what must hold:
 *
 *  - ioctl_fuzz (one process) keeps a model of the regions it made.  Each request
 *    is a valid one with a few mutations: another size or direction in the command
 *    number, unknown numbers and types, the size field, unknown flag bits, nonzero
 *    reserved fields, bad names (empty, 64 bytes without NUL, bytes after the NUL,
 *    '/', blanks, control and 8-bit bytes), ids, lengths (0, unaligned, up to and
 *    beyond max_region_gb and 2^48), policies, modes, impossible nodes, and NULL,
 *    unmapped, kernel, read-only and half-mapped pointers for the struct and for
 *    LIST's and STAT's arrays.  The answer must be 0 or a documented errno that a
 *    mutation explains, in the order of the ABI's checks (command, struct size,
 *    copy-in, validation, lookup, copy-out); a request without a mutation must
 *    succeed.  LIST and STAT must agree with the model and write nothing beyond the
 *    room they were given.  It also touches pages (up to the last of a 1 TiB
 *    region), changes max_region_gb, runs out of descriptors (EMFILE), and checks
 *    an unprivileged user against the regions' modes and, exactly, the per-user
 *    limits (region count, memory, a destroyed region charged until unmapped).
 *  - rmmod: unloading must fail while an open /dev/cxltier, a region, a region file
 *    or a mapping (also one in another process) exists, also while three processes
 *    create and destroy regions, and must work once everything is gone; the module
 *    is loaded again with the parameters it had.
 *  - mmap_fuzz (one process and its forks) registers the CXL tiers, then maps region
 *    files at random offsets and lengths with random prot and flags (MAP_PRIVATE must
 *    fail), touches pages (SIGSEGV and SIGBUS are caught and must be the expected
 *    ones: the placement policy and node mask say when no page can be placed),
 *    mremaps, munmaps, mprotects, madvises, msyncs, mlocks, reads and writes pages
 *    through /proc/self/mem, forks while mapped, closes and destroys while mapped.
 *    A shadow copy of every page written must read back the same through every
 *    mapping, in forked children, and in processes that open the region by name;
 *    STAT's resident, file and mapping counts must agree.
 *  - race: four processes create, open, map, touch, destroy, stat and list regions
 *    of six shared names at once (sometimes as an unprivileged user, sometimes with
 *    threads faulting pages while another zaps them); each checks the errnos and the
 *    pages it wrote itself.
 *  - leaks, last: nothing of ours is listed; the module's reference count, its
 *    debugfs counters and per-user charges are what they were; the DRAM budget is
 *    whole; the tier nodes' and node 0's free memory are back (tolerances explained
 *    there); and the tiers this group registered can be removed, which the module
 *    refuses while it counts region pages on them.
 *
 * Pages touched are a few MiB at most: CXL memory is slow under QEMU TCG.  Kernel
 * warnings, oopses and kmemleak reports are caught by the runner's kernel log guard.
 */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/cxltier.h>

#include "kselftest_harness.h"
#include "cxlt_test.h"

#define PAGE		4096UL
#define MB		(1UL << 20)
#define DEV		"/dev/" CXLTIER_DEVICE_NAME
#define PARAMS		"/sys/module/cxltier/parameters"
#define DEBUGFS		"/sys/kernel/debug/cxltier"
#define MAX_NODES	64
#define MAX_TIERS	8
#define MAX_BASE	64

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif
#ifndef MADV_COLD
#define MADV_COLD		20
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif

/* --- the run's configuration and what every test shares -------------------------- */

#define DEFAULT_SEED	0xc7f022c0ffeeULL
/* ioctl operations; mmap_fuzz does OPS / 3, each race worker OPS / 8 */
#define DEFAULT_OPS	12000

struct base_region {
	uint32_t id;
	char name[CXLTIER_NAME_MAX];
};

/*
 * Shared (MAP_SHARED) between main and the test processes the harness forks: the
 * baseline taken before the first test and the tiers this group registered.
 */
static struct shared {
	uint64_t seed;
	unsigned long ops;
	int trace;
	/* Regions that existed before we started: never touched, never destroyed. */
	int nr_base;
	struct base_region base[MAX_BASE];
	int base_refcnt;
	long base_free_kb[MAX_NODES];	/* node 0 only, before any tier was added */
	char base_acct[1024];		/* debugfs accounting, "" without it */
	char base_users[1024];		/* debugfs users */
	/* Tiers this group registered, and the tier nodes' free memory then. */
	int nr_added;
	char added[MAX_TIERS][64];
	long tier_free_kb[MAX_NODES];
	/* Module parameters at start, to load the module again with them. */
	char modparams[1024];
	bool reloaded;
	bool kasan;
	bool tiers_tried;	/* the leaks test tried to remove our tiers */
} *G;

/* --- PRNG: splitmix64, one stream per test and per worker ------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(uint64_t seed, uint64_t stream)
{
	rng_state = seed ^ (stream * 0xd1342543de82ef95ULL);
	rnd();
}

/* Uniform in [0, n); n > 0. */
static uint64_t rn(uint64_t n)
{
	return rnd() % n;
}

/* True with probability 1/n. */
static bool one_in(unsigned int n)
{
	return rn(n) == 0;
}

/* --- failure reporting: the last operations, and how to run them again ------------ */

#define RING	12
static char ring[RING][320];
static unsigned long op_no, ops_done;
static const char *test_name = "?";
static int nfail;
static bool trace;

/* Describe the operation about to run (kept for the failure report). */
static void op_desc(const char *fmt, ...)
{
	va_list ap;
	char *s = ring[ops_done % RING];

	va_start(ap, fmt);
	vsnprintf(s, sizeof(ring[0]), fmt, ap);
	va_end(ap);
	if (trace)
		fprintf(stderr, "# [%s %lu] %s\n", test_name, ops_done, s);
	ops_done++;
}

static void fail(const char *fmt, ...)
{
	unsigned long last = ops_done ? ops_done - 1 : 0, i;
	unsigned long first = last >= RING - 1 ? last - (RING - 1) : 0;
	va_list ap;

	fprintf(stderr, "# FUZZ FAILURE in %s at op #%lu (pid %d): ", test_name, last,
		getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n#   last operations:\n");
	for (i = first; i <= last && ops_done; i++)
		fprintf(stderr, "#   %s #%lu: %s\n", i == last ? ">>" : "  ", i,
			ring[i % RING]);
	fprintf(stderr, "#   reproduce: CXLT_FUZZ_SEED=%#llx CXLT_FUZZ_OPS=%lu fuzz_test -t %s (CXLT_FUZZ_TRACE=1 prints every op)\n",
		(unsigned long long)G->seed, G->ops, test_name);
	fflush(stderr);
	nfail++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- errnos --------------------------------------------------------------------- */

/* The errnos the ABI documents for /dev/cxltier and region files. */
static bool documented(int e)
{
	switch (e) {
	case EINVAL: case ENOENT: case EEXIST: case EACCES: case EPERM: case EFAULT:
	case ENOTTY: case ENAMETOOLONG: case EFBIG: case ENOSPC: case ENOMEM: case EDQUOT:
	case E2BIG: case EMFILE: case ENXIO: case EBUSY: case EBADF:
		return true;
	}
	return false;
}

/* A set of outcomes: bit 0 is success, bit e is errno e (e < 192). */
struct eset {
	uint64_t b[3];
};

static void es_add(struct eset *s, int e)
{
	if (e >= 0 && e < 192)
		s->b[e / 64] |= 1ULL << (e % 64);
}

static bool es_has(const struct eset *s, int e)
{
	return e >= 0 && e < 192 && (s->b[e / 64] >> (e % 64)) & 1;
}

static bool es_empty(const struct eset *s)
{
	return !(s->b[0] | s->b[1] | s->b[2]);
}

static char *es_str(const struct eset *s, char *buf, size_t len)
{
	size_t n = 0;
	int e;

	buf[0] = 0;
	for (e = 0; e < 192 && n < len; e++)
		if (es_has(s, e))
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      e ? strerrorname_np(e) ?: "?" : "0");
	return buf;
}

/*
 * Stages of a request, in the order the ABI checks them: an error of an earlier stage
 * hides those of later ones; within a stage the order is not part of the ABI.
 */
enum { ST_CMD, ST_USIZE, ST_COPYIN, ST_SIZE, ST_VALID, ST_LOOKUP, ST_RANGE, ST_OUT, NR_ST };

struct expect {
	struct eset st[NR_ST];		/* errors this stage must give (one of them) */
	struct eset maybe[NR_ST];	/* errors this stage may give, or go on */
	struct eset res;		/* resource errors, possible anywhere */
};

static void ex_init(struct expect *x)
{
	memset(x, 0, sizeof(*x));
	es_add(&x->res, ENOMEM);
}

static void es_or(struct eset *a, const struct eset *b)
{
	int i;

	for (i = 0; i < 3; i++)
		a->b[i] |= b->b[i];
}

/* What the request may return: up to the first stage with a certain error. */
static struct eset ex_allowed(const struct expect *x)
{
	struct eset a = {};
	int s;

	for (s = 0; s < NR_ST; s++) {
		es_or(&a, &x->maybe[s]);
		if (!es_empty(&x->st[s])) {
			es_or(&a, &x->st[s]);
			break;
		}
	}
	if (s == NR_ST)
		es_add(&a, 0);
	es_or(&a, &x->res);
	return a;
}

/* Is nothing certain to fail before the copy-out? */
static bool ex_reaches_out(const struct expect *x)
{
	int s;

	for (s = 0; s < ST_OUT; s++)
		if (!es_empty(&x->st[s]))
			return false;
	return true;
}

/* --- catching SIGSEGV and SIGBUS on purpose ------------------------------------- */

static sigjmp_buf probe_jmp;
static volatile sig_atomic_t probing;
static volatile int probe_code;
static void *volatile probe_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (!probing) {
		/* Not ours to catch: die of it, so the harness reports the signal. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	probe_code = si->si_code;
	probe_addr = si->si_addr;
	probing = 0;
	siglongjmp(probe_jmp, sig);
}

static void catch_faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* The word pattern of a page written with @tag (tag 0: a page never written). */
static inline uint64_t pat(uint64_t tag, unsigned int i)
{
	return tag ? tag ^ ((uint64_t)i * 0x9e3779b97f4a7c15ULL) : 0;
}

/*
 * Write a page with @tag's pattern, or read it and count the words that differ from
 * it (*bad).  Returns 0, SIGSEGV or SIGBUS (the page's first access faults or none).
 */
static int page_io(void *page, bool write, uint64_t tag, unsigned int *bad)
{
	volatile uint64_t *w = page;
	unsigned int i, n = 0;
	int sig;

	if (bad)
		*bad = 0;
	sig = sigsetjmp(probe_jmp, 1);
	if (sig)
		return sig;
	probing = 1;
	if (write) {
		for (i = 0; i < PAGE / 8; i++)
			w[i] = pat(tag, i);
	} else {
		for (i = 0; i < PAGE / 8; i++)
			n += w[i] != pat(tag, i);
	}
	probing = 0;
	if (bad)
		*bad = n;
	return 0;
}

/* --- small syscall helpers -------------------------------------------------------- */

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int dev_open(void)
{
	return open(DEV, O_RDWR | O_CLOEXEC);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static int rg_create(int dev, const char *name, uint64_t len, uint32_t policy, int mode,
		     uint32_t *id)
{
	struct cxltier_create c = { .size = sizeof(c), .length = len, .policy = policy };
	int rc;

	snprintf(c.name, sizeof(c.name), "%s", name);
	if (mode >= 0) {
		c.flags = CXLTIER_CREATE_MODE;
		c.mode = mode;
	}
	rc = xioctl(dev, CXLTIER_IOC_CREATE, &c);
	if (!rc && id)
		*id = c.id;
	return rc;
}

static int rg_open(int dev, const char *name, uint32_t id, uint32_t flags, uint64_t *len)
{
	struct cxltier_open o = { .size = sizeof(o), .flags = flags };
	int rc;

	if (name)
		snprintf(o.name, sizeof(o.name), "%s", name);
	else
		o.id = id, o.flags |= CXLTIER_BY_ID;
	rc = xioctl(dev, CXLTIER_IOC_OPEN, &o);
	if (!rc && len)
		*len = o.length;
	return rc ? rc : o.fd;
}

static int rg_destroy_id(int dev, uint32_t id)
{
	struct cxltier_destroy d = { .size = sizeof(d), .flags = CXLTIER_BY_ID, .id = id };

	return xioctl(dev, CXLTIER_IOC_DESTROY, &d);
}

static int rg_destroy(int dev, const char *name)
{
	struct cxltier_destroy d = { .size = sizeof(d) };

	snprintf(d.name, sizeof(d.name), "%s", name);
	return xioctl(dev, CXLTIER_IOC_DESTROY, &d);
}

static int rg_set_policy(int dev, const char *name, uint32_t policy, uint64_t nodes0)
{
	struct cxltier_set_policy s = { .size = sizeof(s), .policy = policy };

	snprintf(s.name, sizeof(s.name), "%s", name);
	s.nodes[0] = nodes0;
	return xioctl(dev, CXLTIER_IOC_SET_POLICY, &s);
}

/* STAT through a region file (@name NULL) or /dev/cxltier by name. */
static int rg_stat(int fd, const char *name, struct cxltier_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (name)
		snprintf(st->name, sizeof(st->name), "%s", name);
	return xioctl(fd, CXLTIER_IOC_STAT, st);
}

#define LIST_ROOM	1024
static struct cxltier_list_entry list_buf[LIST_ROOM];

/* Every region (up to LIST_ROOM) into list_buf; the number, or -errno. */
static int rg_list(int dev)
{
	struct cxltier_list l = { .size = sizeof(l), .count = LIST_ROOM,
				  .entries = (uintptr_t)list_buf };
	int rc = xioctl(dev, CXLTIER_IOC_LIST, &l);

	return rc ? rc : (int)(l.count < LIST_ROOM ? l.count : LIST_ROOM);
}

static bool is_base(uint32_t id, const char *name)
{
	int i;

	for (i = 0; i < G->nr_base; i++)
		if (G->base[i].id == id && !strcmp(G->base[i].name, name))
			return true;
	return false;
}


static bool ours(const char *name)
{
	return !strncmp(name, "fz.", 3) || !strncmp(name, "fzr.", 4) ||
	       !strncmp(name, "fm.", 3) || !strncmp(name, "rm.", 3);
}

/* Destroy what earlier tests (that failed) left; returns how many. */
static int destroy_leftovers(void)
{
	int dev = dev_open(), n, i, k = 0;

	if (dev < 0)
		return 0;
	n = rg_list(dev);
	for (i = 0; i < n; i++)
		if (!is_base(list_buf[i].id, list_buf[i].name))
			k += !rg_destroy_id(dev, list_buf[i].id);
	close(dev);
	return k;
}

/* --- nodes, tiers, module --------------------------------------------------------- */

static int remove_added_tiers(void);

/* Parse a node list ("0-1,3") into a mask of nodes below MAX_NODES. */
static uint64_t read_nodelist(const char *path)
{
	char buf[256], *s, *end;
	uint64_t mask = 0;
	long a, b;

	if (cxlt_read(path, buf, sizeof(buf)))
		return 0;
	for (s = buf; *s; s = end) {
		a = strtol(s, &end, 10);
		if (end == s)
			break;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && a < MAX_NODES; a++)
			mask |= 1ULL << a;
		if (*end == ',')
			end++;
	}
	return mask;
}

static int nr_node_ids(void)
{
	uint64_t m = read_nodelist("/sys/devices/system/node/possible");
	int n = 0;

	while (n < MAX_NODES && (m >> n))
		n++;
	return n ? n : 1;
}

/* Nodes of the registered tiers. */
static uint64_t tier_mask(void)
{
	uint64_t m = 0;
	glob_t g;
	size_t i;

	if (glob(CXLT_SYSFS "/tiers/*/node", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		char v[16];

		if (!cxlt_read(g.gl_pathv[i], v, sizeof(v)) && atoi(v) >= 0 &&
		    atoi(v) < MAX_NODES)
			m |= 1ULL << atoi(v);
	}
	globfree(&g);
	return m;
}

static int nr_tiers_now(void)
{
	glob_t g;
	int n;

	if (glob(CXLT_SYSFS "/tiers/*", 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/* Free memory of node @nid in KiB: MemFree plus the pages on per-CPU lists. */
static long node_free_kb(int nid)
{
	char path[128], line[256];
	long kb = -1, v, pcp = 0;
	bool ours = false;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d MemFree: %ld kB", &n, &v) == 2)
			kb = v;
	fclose(f);
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return kb;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &n) == 1)
			ours = n == nid;
		else if (ours && sscanf(line, " count: %ld", &v) == 1)
			pcp += v;
	}
	fclose(f);
	return kb < 0 ? kb : kb + pcp * (PAGE / 1024);
}

/* A /proc/meminfo field in KiB, or -1. */
static long meminfo_kb(const char *field)
{
	char line[256], name[64];
	FILE *f = fopen("/proc/meminfo", "r");
	long v = -1, x;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %ld", name, &x) == 2 && !strcmp(name, field)) {
			v = x;
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static void drop_caches(void)
{
	sync();
	cxlt_write("/proc/sys/vm/drop_caches", "3");
}

static int module_refcnt(void)
{
	return (int)cxlt_read_u64("/sys/module/%s/%s", "cxltier", "refcnt");
}

static int param_read(const char *name, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	return cxlt_read(path, buf, len);
}

static int param_write(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	return cxlt_write(path, val);
}

/* Read a debugfs file of the module into buf ("" when it has none). */
static void read_debugfs(const char *name, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), DEBUGFS "/%s", name);
	if (cxlt_read(path, buf, len))
		buf[0] = 0;
}

/* ================================================================================= */
/* ioctl_fuzz: mutated requests against a model of the regions this process made      */
/* ================================================================================= */

#define IF_MAX_REG	40
#define IF_MAX_FDS	20
#define NAME_POOL	12
#define TOUCH_PAGES	64	/* pages of a region the ioctl fuzzer may touch */

struct mreg {
	uint64_t tag[TOUCH_PAGES];	/* what each touched page holds */
	bool used;		/* slot in use: live, or destroyed with files open */
	bool live;		/* not destroyed */
	bool big;		/* a large length (its page directory costs memory) */
	uint32_t id;
	char name[CXLTIER_NAME_MAX];
	uint64_t length;
	uint32_t policy;
	uint32_t mode;
	uint32_t uid;
	uint64_t nodes[CXLTIER_NODE_WORDS];
	int files;		/* open region files */
	uint64_t touched;	/* bitmap of resident pages among the first 64 */
	int nfar;		/* resident pages beyond the first 64 */
	uint64_t far[8], fartag[8];
};

static unsigned long resident_of(const struct mreg *r)
{
	return __builtin_popcountll(r->touched) + r->nfar;
}

struct mfd {
	int fd;
	int reg;
	bool wr;
	bool wonly;	/* write-only: accepted by older modules, cannot be mapped */
};

enum { V_VERSION, V_CREATE, V_OPEN, V_DESTROY, V_LIST, V_STAT, V_SETPOL, V_HINT, V_PAGES,
       NR_V };

/* @kmin: version 1's size (STAT grew since); shorter is EINVAL, kmin..ksize is valid. */
static const struct verb {
	const char *name;
	unsigned int nr, dir, ksize, kmin;
} verbs[NR_V] = {
	[V_VERSION] = { "version", 0, _IOC_NONE, 0 },
	[V_CREATE] = { "create", 1, _IOC_READ | _IOC_WRITE, sizeof(struct cxltier_create) },
	[V_OPEN] = { "open", 2, _IOC_READ | _IOC_WRITE, sizeof(struct cxltier_open) },
	[V_DESTROY] = { "destroy", 3, _IOC_WRITE, sizeof(struct cxltier_destroy) },
	[V_LIST] = { "list", 4, _IOC_READ | _IOC_WRITE, sizeof(struct cxltier_list) },
	[V_STAT] = { "stat", 5, _IOC_READ | _IOC_WRITE, sizeof(struct cxltier_stat),
		     offsetof(struct cxltier_stat, pool_offset) +
		     sizeof(((struct cxltier_stat *)0)->pool_offset) },
	[V_SETPOL] = { "set-policy", 6, _IOC_WRITE, sizeof(struct cxltier_set_policy) },
	[V_HINT] = { "hint", 7, _IOC_WRITE, sizeof(struct cxltier_hint) },
	[V_PAGES] = { "pages", 8, _IOC_READ | _IOC_WRITE, sizeof(struct cxltier_pages) },
};

/* Where the struct (or an array) is put. */
enum { P_NORMAL, P_RO, P_STRADDLE, P_NULL, P_UNMAPPED, P_KERNEL, NR_P };
static const char *const place_names[NR_P] = {
	"ok", "read-only", "half-mapped", "NULL", "unmapped", "kernel",
};

#define ARG_PAGES	6	/* the struct buffer: 5 pages, then a guard page */
#define ARR_PAGES	21	/* the array buffer: 20 pages, then a guard page */
#define CANARY		0xa5

static struct {
	int dev;
	int nnodes;		/* nr_node_ids */
	uint64_t max_len;	/* max_region_gb, in bytes */
	uint64_t mem, fast, tiers;	/* node masks */
	struct mreg r[IF_MAX_REG];
	struct mfd f[IF_MAX_FDS];
	int nf;
	char *arg, *arg_guard, *ro;	/* struct buffers */
	char *arr, *arr_guard;		/* array buffers */
	unsigned long ok[NR_V], err[NR_V];
	double secs[NR_V];	/* time in the ioctl itself */
	unsigned long root_edquot, id_ignored, id_refused, touches, sigbus;
} F;

static int nlive(void)
{
	int i, n = 0;

	for (i = 0; i < IF_MAX_REG; i++)
		n += F.r[i].live;
	return n;
}

static int find_live_name(const char *name)
{
	int i;

	for (i = 0; i < IF_MAX_REG; i++)
		if (F.r[i].live && !strncmp(F.r[i].name, name, CXLTIER_NAME_MAX))
			return i;
	return -1;
}

static int find_live_id(uint32_t id)
{
	int i;

	for (i = 0; i < IF_MAX_REG; i++)
		if (F.r[i].live && F.r[i].id == id)
			return i;
	return -1;
}

static bool base_has_id(uint32_t id)
{
	int i;

	for (i = 0; i < G->nr_base; i++)
		if (G->base[i].id == id)
			return true;
	return false;
}

static int random_live(void)
{
	int i, n = nlive(), k;

	if (!n)
		return -1;
	k = rn(n);
	for (i = 0; i < IF_MAX_REG; i++)
		if (F.r[i].live && !k--)
			return i;
	return -1;
}

static void reg_put(int i)
{
	if (!F.r[i].live && !F.r[i].files)
		memset(&F.r[i], 0, sizeof(F.r[i]));
}

/*
 * Can a first touch place a page of a region with this policy and node mask?  (The
 * DRAM budget is never short in these tests: they touch a few MiB.)  @mem: the nodes
 * with memory, @fast: DRAM nodes, @tiers: registered tier nodes.
 */
static bool placeable(uint32_t policy, const uint64_t *nodes, uint64_t mem, uint64_t fast,
		      uint64_t tiers)
{
	uint64_t allowed = nodes[0];

	if (!allowed)
		allowed = mem;
	switch (policy) {
	case CXLTIER_POLICY_FAST_FIRST:
		return (allowed & fast) || (allowed & tiers);
	case CXLTIER_POLICY_PINNED_FAST:
		return allowed & fast;
	default:
		return allowed & tiers;
	}
}

/*
 * A name, valid or not.  @want: an existing region's name when there is one.
 * Returns the errno the name alone must get: 0, EINVAL or ENAMETOOLONG.
 */
static int gen_name(char *n, bool want, char *what, size_t wlen)
{
	static const char bad[] = { '/', ' ', '\t', '\n', 0x7f, 0x01, (char)0x80, (char)0xff };
	int k, i, len;

	memset(n, 0, CXLTIER_NAME_MAX);
	if (want && (k = random_live()) >= 0 && !one_in(4)) {
		memcpy(n, F.r[k].name, CXLTIER_NAME_MAX);
		snprintf(what, wlen, "name of #%u", F.r[k].id);
		return 0;
	}
	switch (rn(12)) {
	default:		/* a small pool: names are created and destroyed again */
		snprintf(n, CXLTIER_NAME_MAX, "fz.%d", (int)rn(NAME_POOL));
		snprintf(what, wlen, "name %s", n);
		return 0;
	case 5:			/* the longest valid name, random printable bytes */
		strcpy(n, "fz.");
		for (i = 3; i < CXLTIER_NAME_MAX - 1; i++) {
			do
				n[i] = 0x21 + rn(0x7f - 0x21);
			while (n[i] == '/');
		}
		snprintf(what, wlen, "name of 63 bytes");
		return 0;
	case 6:
		snprintf(what, wlen, "empty name");
		return EINVAL;
	case 7:			/* no NUL in the array */
		for (i = 0; i < CXLTIER_NAME_MAX; i++)
			n[i] = 'a' + rn(26);
		snprintf(what, wlen, "name without NUL");
		return ENAMETOOLONG;
	case 8:			/* bytes after the NUL */
		len = snprintf(n, CXLTIER_NAME_MAX, "fz.%d", (int)rn(NAME_POOL));
		n[len + 1 + rn(CXLTIER_NAME_MAX - len - 1)] = 1 + rn(255);
		snprintf(what, wlen, "name %s + bytes after NUL", n);
		return EINVAL;
	case 9: case 10: case 11:	/* a byte that is not printable ASCII, or '/' */
		len = snprintf(n, CXLTIER_NAME_MAX, "fz.%d.x", (int)rn(NAME_POOL));
		k = rn(len);
		n[k] = bad[rn(sizeof(bad))];
		snprintf(what, wlen, "name with byte %#x at %d", (unsigned char)n[k], k);
		return EINVAL;
	}
}

/*
 * A region selector: by name, or by id with CXLTIER_BY_ID.  Sets *flags' BY_ID bit,
 * *id and the name; adds the validation errors to @x; returns the model index of the
 * region it names (-1: none; -2: one that was there before us, never touched).
 */
static int gen_sel(uint32_t *flags, uint32_t *id, char *name, struct expect *x, char *what,
		   size_t wlen)
{
	char nw[96];
	int e, k;

	if (one_in(2)) {
		e = gen_name(name, true, nw, sizeof(nw));
		if (e)
			es_add(&x->st[ST_VALID], e);
		snprintf(what, wlen, "%s", nw);
		if (e)
			return -1;
		return find_live_name(name);
	}
	*flags |= CXLTIER_BY_ID;
	memset(name, 0, CXLTIER_NAME_MAX);
	switch (rn(8)) {
	default:
		k = random_live();
		if (k >= 0) {
			*id = F.r[k].id;
			break;
		}
		/* fall through */
	case 4:
		do
			*id = 1 + rn(CXLTIER_REGION_ID_MAX);
		while (base_has_id(*id));
		break;
	case 5:
		*id = one_in(2) ? 0 : CXLTIER_REGION_ID_MAX + 1 + rn(1U << 20);
		es_add(&x->st[ST_VALID], EINVAL);
		break;
	case 6:		/* by id, and a name too */
		k = random_live();
		*id = k >= 0 ? F.r[k].id : 1;
		snprintf(name, CXLTIER_NAME_MAX, "fz.%d", (int)rn(NAME_POOL));
		es_add(&x->st[ST_VALID], EINVAL);
		break;
	}
	snprintf(what, wlen, "by id %u%s", *id, name[0] ? " and a name" : "");
	if (*id == 0 || *id > CXLTIER_REGION_ID_MAX)
		return -1;
	return find_live_id(*id);
}

/* A node mask: any (zero), some possible nodes, or one impossible node. */
static void gen_nodes(uint64_t *nodes, struct expect *x, char *what, size_t wlen)
{
	int bit;

	memset(nodes, 0, CXLTIER_NODE_WORDS * 8);
	switch (rn(10)) {
	default:
		snprintf(what, wlen, "nodes any");
		return;
	case 6: case 7: case 8:
		nodes[0] = rnd() & ((1ULL << F.nnodes) - 1);
		snprintf(what, wlen, "nodes %#llx", (unsigned long long)nodes[0]);
		return;
	case 9:
		bit = F.nnodes + rn(CXLTIER_NODE_WORDS * 64 - F.nnodes);
		nodes[bit / 64] |= 1ULL << (bit % 64);
		if (one_in(2))
			nodes[0] |= 1;
		es_add(&x->st[ST_VALID], EINVAL);
		snprintf(what, wlen, "impossible node %d", bit);
		return;
	}
}

/* Maybe nonzero (EINVAL) reserved bytes. */
static void gen_reserved(void *p, size_t len, struct expect *x, char *what, size_t wlen)
{
	if (!one_in(12))
		return;
	((unsigned char *)p)[rn(len)] = 1 + rn(255);
	es_add(&x->st[ST_VALID], EINVAL);
	snprintf(what, wlen, " reserved!=0");
}

/* Maybe an unknown flag bit (EINVAL). */
static uint32_t gen_badflag(uint32_t known, struct expect *x, char *what, size_t wlen)
{
	uint32_t bit;

	if (!one_in(10))
		return 0;
	do
		bit = 1U << rn(32);
	while (bit & known);
	es_add(&x->st[ST_VALID], EINVAL);
	snprintf(what, wlen, " flag %#x", bit);
	return bit;
}

/* An array pointer for LIST or STAT: where, and how many entries fit before a fault. */
static uint64_t gen_array(size_t esize, int *place, uint32_t *room, char *what, size_t wlen)
{
	int p = one_in(4) ? 1 + rn(NR_P - 1) : P_NORMAL;

	*place = p;
	*room = UINT32_MAX;
	snprintf(what, wlen, "%s", place_names[p]);
	switch (p) {
	case P_NORMAL:
		memset(F.arr, CANARY, (ARR_PAGES - 1) * PAGE);
		*room = (ARR_PAGES - 1) * PAGE / esize;
		return (uintptr_t)F.arr;
	case P_RO:
		*room = 0;
		return (uintptr_t)F.ro;
	case P_STRADDLE:
		*room = rn(4);
		snprintf(what, wlen, "room for %u then unmapped", *room);
		return (uintptr_t)(F.arr_guard - *room * esize - rn(esize));
	case P_NULL:
		*room = 0;
		return 0;
	case P_UNMAPPED:
		*room = 0;
		return (uintptr_t)F.arr_guard;
	default:
		*room = 0;
		return 0xffff888000000000ULL + rn(1 << 20) * 8;
	}
}

/* Are the bytes of the array buffer from @from on still the canary? */
static bool canary_intact(size_t from)
{
	size_t i;

	for (i = from; i < (ARR_PAGES - 1) * PAGE; i++)
		if ((unsigned char)F.arr[i] != CANARY)
			return false;
	return true;
}

/* The request being built. */
struct req {
	int verb;
	int fd;
	bool on_file;		/* @fd is a region file */
	unsigned int dir, type, nr, usize;
	int place;
	struct expect x;
	char what[256];
	size_t wn;
	union {
		char bytes[5 * PAGE];
		uint32_t size;
		struct cxltier_create create;
		struct cxltier_open open;
		struct cxltier_destroy destroy;
		struct cxltier_list list;
		struct cxltier_stat stat;
		struct cxltier_set_policy setpol;
		struct cxltier_hint hint;
		struct cxltier_pages pages;
	} u;
};

static void wcat(struct req *q, const char *fmt, ...)
{
	va_list ap;

	if (q->wn >= sizeof(q->what))
		return;
	va_start(ap, fmt);
	q->wn += vsnprintf(q->what + q->wn, sizeof(q->what) - q->wn, fmt, ap);
	va_end(ap);
}

/* The command number and the struct's size: mostly right, sometimes not. */
static void gen_envelope(struct req *q)
{
	const struct verb *v = &verbs[q->verb];
	unsigned int d;

	q->type = CXLTIER_IOC_MAGIC;
	q->nr = v->nr;
	q->dir = v->dir;
	q->usize = v->ksize;
	if (q->verb == V_VERSION || !one_in(6))
		return;
	switch (rn(6)) {
	case 0:		/* another direction: another command */
		do
			d = rn(4);
		while (d == v->dir);
		q->dir = d;
		es_add(&q->x.st[ST_CMD], ENOTTY);
		wcat(q, " dir=%u", d);
		break;
	case 1:		/* shorter than version 1 of the struct */
		q->usize = rn(v->kmin ? v->kmin : v->ksize);
		es_add(&q->x.st[ST_USIZE], EINVAL);
		wcat(q, " usize=%u", q->usize);
		break;
	case 2: case 3:	/* longer: a newer caller, zero beyond what we know */
		q->usize = one_in(3) ? 16383 : v->ksize + 1 + rn(256);
		wcat(q, " usize=%u", q->usize);
		break;
	case 4:		/* longer, and not zero beyond */
		q->usize = v->ksize + 1 + rn(256);
		q->u.bytes[v->ksize + rn(q->usize - v->ksize)] = 1 + rn(255);
		es_add(&q->x.st[ST_COPYIN], E2BIG);
		wcat(q, " usize=%u+junk", q->usize);
		break;
	case 5:		/* another type */
		q->type = (unsigned int[]){ 0xc6, 0xc8, 'x', 0xab, 0xfe }[rn(5)];
		es_add(&q->x.st[ST_CMD], ENOTTY);
		wcat(q, " type=%#x", q->type);
		break;
	}
}

/* The size field: the command's size, sometimes not. */
static void gen_size_field(struct req *q)
{
	uint32_t s = q->usize;

	if (q->usize < 4)
		return;
	if (one_in(16)) {
		do
			s = one_in(2) ? rn(q->usize + 16) : (uint32_t)rnd();
		while (s == q->usize);
		es_add(&q->x.st[ST_SIZE], EINVAL);
		wcat(q, " size=%u", s);
	}
	q->u.size = s;
}

/* Where the struct goes; returns the pointer to pass. */
static void *gen_place(struct req *q)
{
	bool out = q->dir & _IOC_READ;
	int p = P_NORMAL;

	if (q->verb != V_VERSION && one_in(12))
		p = 1 + rn(NR_P - 1);
	if (p == P_RO && q->usize > PAGE)
		p = P_NORMAL;
	if (p == P_STRADDLE && q->usize < 2)
		p = P_NORMAL;
	q->place = p;
	if (p != P_NORMAL)
		wcat(q, " arg=%s", place_names[p]);
	switch (p) {
	case P_NORMAL:
		memcpy(F.arg, q->u.bytes, sizeof(q->u.bytes));
		return F.arg;
	case P_RO:
		mprotect(F.ro, PAGE, PROT_READ | PROT_WRITE);
		memcpy(F.ro, q->u.bytes, PAGE);
		mprotect(F.ro, PAGE, PROT_READ);
		/* copy-in works; a command that copies out fails there */
		if (out && q->type == CXLTIER_IOC_MAGIC)
			es_add(&q->x.st[ST_OUT], EFAULT);
		return F.ro;
	case P_STRADDLE: {
		unsigned int k = 1 + rn(q->usize - 1);

		memcpy(F.arg_guard - k, q->u.bytes, k);
		es_add(&q->x.st[ST_COPYIN], EFAULT);
		return F.arg_guard - k;
	}
	case P_NULL:
		es_add(&q->x.st[ST_COPYIN], EFAULT);
		return NULL;
	case P_UNMAPPED:
		es_add(&q->x.st[ST_COPYIN], EFAULT);
		return F.arg_guard;
	default:
		es_add(&q->x.st[ST_COPYIN], EFAULT);
		return (void *)(0xffff888000000000ULL + rn(1 << 20) * 8);
	}
}

/* --- the verbs' bodies; each returns the model region it names (or -1) ----------- */

static int body_create(struct req *q)
{
	struct cxltier_create *c = &q->u.create;
	int e, m, i, nbig;
	char w[96];

	c->flags = one_in(2) ? CXLTIER_CREATE_MODE : 0;
	c->mode = c->flags ? rn(01000) : 0;
	if (one_in(20)) {
		c->mode = c->flags ? 01000 + rn(~0U - 01000) : 1 + rn(0777);
		es_add(&q->x.st[ST_VALID], EINVAL);
		wcat(q, " mode=%#o", c->mode);
	}
	c->flags |= gen_badflag(CXLTIER_CREATE_FLAGS, &q->x, w, sizeof(w)) ? : 0;
	if (c->flags & ~CXLTIER_CREATE_FLAGS)
		wcat(q, "%s", w);
	switch (rn(16)) {
	default:
		c->length = (1 + rn(TOUCH_PAGES)) * PAGE;
		break;
	case 10:
		c->length = 0;
		break;
	case 11:
		c->length = (1 + rn(64)) * PAGE + 1 + rn(PAGE - 1);
		break;
	case 12:	/* up to the limit: fine, only its page table costs */
		c->length = one_in(2) ? F.max_len : (1 + rn(64)) << 30;
		for (i = 0, nbig = 0; i < IF_MAX_REG; i++)
			nbig += F.r[i].used && F.r[i].big;
		if (nbig >= 2 && c->length <= F.max_len)
			c->length = PAGE;
		break;
	case 13:	/* beyond the limit */
		c->length = F.max_len + PAGE * (1 + rn(1024));
		break;
	case 14:	/* up to, and beyond, what a handle addresses */
		c->length = CXLTIER_LENGTH_MAX + (one_in(2) ? PAGE : 0);
		break;
	case 15:
		c->length = ~0ULL << rn(13);
		break;
	}
	/* A nonzero multiple of the page size up to 2^48 (EINVAL), within the limit (EFBIG) */
	if (!c->length || c->length % PAGE || c->length > CXLTIER_LENGTH_MAX)
		es_add(&q->x.st[ST_VALID], EINVAL);
	else if (c->length > F.max_len)
		es_add(&q->x.st[ST_VALID], EFBIG);
	c->policy = one_in(12) ? CXLTIER_POLICY_MAX + 1 + rn(~0U - CXLTIER_POLICY_MAX) :
		    rn(CXLTIER_POLICY_MAX + 1);
	if (c->policy > CXLTIER_POLICY_MAX)
		es_add(&q->x.st[ST_VALID], EINVAL);
	gen_nodes((uint64_t *)c->nodes, &q->x, w, sizeof(w));
	wcat(q, " len=%#llx pol=%u %s", (unsigned long long)c->length, c->policy, w);
	e = gen_name(c->name, one_in(4), w, sizeof(w));
	wcat(q, " %s", w);
	if (e)
		es_add(&q->x.st[ST_VALID], e);
	c->id = rnd();		/* (out): ignored on input */
	w[0] = 0;
	/* reserved0, then pool (only with CXLTIER_CREATE_PERSISTENT) and reserved. */
	gen_reserved(&c->reserved0, sizeof(c->reserved0) + sizeof(c->pool) + sizeof(c->reserved),
		     &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	m = e ? -1 : find_live_name(c->name);
	if (m >= 0)
		es_add(&q->x.st[ST_LOOKUP], EEXIST);
	/* Root is exempt from the per-user limits; counted if it ever gets EDQUOT. */
	es_add(&q->x.res, EDQUOT);
	return m;
}

static int body_open(struct req *q)
{
	struct cxltier_open *o = &q->u.open;
	char w[96], w2[64] = "";
	int m;

	switch (rn(20)) {
	default:
		o->flags = CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE;
		break;
	case 0: case 1: case 2: case 3: case 4: case 5: case 6:
		o->flags = CXLTIER_OPEN_READ;
		break;
	case 7:		/* write-only: refused since mapping needs read (or, before, allowed) */
		o->flags = CXLTIER_OPEN_WRITE;
		break;
	case 8:
		o->flags = 0;
		es_add(&q->x.st[ST_VALID], EINVAL);
		break;
	}
	o->flags |= gen_badflag(CXLTIER_OPEN_FLAGS, &q->x, w2, sizeof(w2));
	m = gen_sel(&o->flags, &o->id, o->name, &q->x, w, sizeof(w));
	wcat(q, " flags=%#x %s%s", o->flags, w, w2);
	if (o->flags == CXLTIER_OPEN_WRITE || o->flags == (CXLTIER_OPEN_WRITE | CXLTIER_BY_ID))
		es_add(&q->x.maybe[ST_VALID], EINVAL);
	o->fd = rnd();
	o->length = rnd();
	w[0] = 0;
	gen_reserved(o->reserved, sizeof(o->reserved), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	if (m == -1)
		es_add(&q->x.st[ST_LOOKUP], ENOENT);
	es_add(&q->x.res, EMFILE);
	return m;
}

static int body_destroy(struct req *q)
{
	struct cxltier_destroy *d = &q->u.destroy;
	char w[96], w2[64] = "";
	int m;

	d->flags = gen_badflag(CXLTIER_DESTROY_FLAGS, &q->x, w2, sizeof(w2));
	m = gen_sel(&d->flags, &d->id, d->name, &q->x, w, sizeof(w));
	wcat(q, " %s%s", w, w2);
	if (!(d->flags & CXLTIER_BY_ID) && one_in(16)) {
		/* "@id: (in) with CXLTIER_BY_ID, else 0": refused */
		d->id = 1 + rn(1000);
		es_add(&q->x.st[ST_VALID], EINVAL);
		wcat(q, " id=%u", d->id);
	}
	w[0] = 0;
	gen_reserved(&d->reserved0, sizeof(d->reserved0), &q->x, w, sizeof(w));
	gen_reserved(d->reserved, sizeof(d->reserved), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	if (m == -1)
		es_add(&q->x.st[ST_LOOKUP], ENOENT);
	return m;
}

static int body_setpol(struct req *q)
{
	struct cxltier_set_policy *s = &q->u.setpol;
	char w[96], w2[64] = "";
	int m;

	s->flags = gen_badflag(CXLTIER_SET_POLICY_FLAGS, &q->x, w2, sizeof(w2));
	m = gen_sel(&s->flags, &s->id, s->name, &q->x, w, sizeof(w));
	wcat(q, " %s%s", w, w2);
	if (!(s->flags & CXLTIER_BY_ID) && one_in(16)) {
		s->id = 1 + rn(1000);
		es_add(&q->x.st[ST_VALID], EINVAL);
		wcat(q, " id=%u", s->id);
	}
	s->policy = one_in(12) ? CXLTIER_POLICY_MAX + 1 + rn(1000) :
		    rn(CXLTIER_POLICY_MAX + 1);
	if (s->policy > CXLTIER_POLICY_MAX)
		es_add(&q->x.st[ST_VALID], EINVAL);
	gen_nodes((uint64_t *)s->nodes, &q->x, w, sizeof(w));
	wcat(q, " pol=%u %s", s->policy, w);
	w[0] = 0;
	gen_reserved(s->reserved, sizeof(s->reserved), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	if (m == -1)
		es_add(&q->x.st[ST_LOOKUP], ENOENT);
	return m;
}

/*
 * The region of a HINT or PAGES request: a region file (one in three, when there is
 * one; its id and name must then be empty) or a selector on /dev/cxltier.  Returns
 * the model index (-1: none known).
 */
static int gen_target(struct req *q, uint32_t *flags, uint32_t *id, char *name,
		      uint32_t known, bool need_write)
{
	char w[96], w2[64] = "";
	int m = -1, i, k;

	*flags = gen_badflag(known, &q->x, w2, sizeof(w2));
	if (F.nf && one_in(3)) {
		k = rn(F.nf);
		q->on_file = true;
		q->fd = F.f[k].fd;
		m = F.f[k].reg;
		*flags &= ~CXLTIER_BY_ID;
		if (one_in(10)) {
			*flags |= CXLTIER_BY_ID;
			es_add(&q->x.st[ST_VALID], EINVAL);
		}
		if (one_in(10)) {
			snprintf(name, CXLTIER_NAME_MAX, "fz.%d", (int)rn(NAME_POOL));
			es_add(&q->x.st[ST_VALID], EINVAL);
		}
		if (need_write && !F.f[k].wr)
			es_add(&q->x.st[ST_LOOKUP], EBADF);
		wcat(q, " on file #%u%s%s", F.r[m].id, F.f[k].wr ? "" : " (ro)", w2);
		return m;
	}
	m = gen_sel(flags, id, name, &q->x, w, sizeof(w));
	wcat(q, " %s%s", w, w2);
	if (!(*flags & CXLTIER_BY_ID) && one_in(16)) {
		*id = 1 + rn(1000);
		es_add(&q->x.st[ST_VALID], EINVAL);
		wcat(q, " id=%u", *id);
	}
	if (m == -1)
		es_add(&q->x.st[ST_LOOKUP], ENOENT);
	(void)i;
	return m;
}

/* An offset into a region of @len bytes (0: unknown): mostly inside, sometimes not. */
static uint64_t gen_offset(uint64_t len, struct req *q)
{
	uint64_t pages = len / PAGE, off;

	switch (rn(10)) {
	case 0:			/* not page-aligned */
		off = (pages ? rn(pages) * PAGE : 0) + 1 + rn(PAGE - 1);
		es_add(&q->x.st[ST_VALID], EINVAL);
		return off;
	case 1:			/* at or beyond the end */
		off = (pages + rn(1000)) * PAGE;
		if (len)
			es_add(&q->x.st[ST_RANGE], EINVAL);
		return off;
	default:
		return pages ? rn(pages < 128 ? pages : 128) * PAGE : 0;
	}
}

static int body_hint(struct req *q)
{
	struct cxltier_hint *h = &q->u.hint;
	uint64_t len, pages;
	char w[64] = "";
	int m;

	m = gen_target(q, &h->flags, &h->id, h->name, q->on_file ? 0 : CXLTIER_HINT_FLAGS, true);
	len = m >= 0 ? F.r[m].length : 0;
	h->hint = one_in(12) ? CXLTIER_HINT_MAX + 1 + rn(1000) : rn(CXLTIER_HINT_MAX + 1);
	if (h->hint > CXLTIER_HINT_MAX)
		es_add(&q->x.st[ST_VALID], EINVAL);
	h->offset = gen_offset(len, q);
	pages = len / PAGE;
	switch (rn(8)) {
	case 0:
		h->length = 0;
		es_add(&q->x.st[ST_VALID], EINVAL);
		break;
	case 1:
		h->length = PAGE * (1 + rn(4)) - 1 - rn(PAGE - 1);
		es_add(&q->x.st[ST_VALID], EINVAL);
		break;
	case 2:			/* beyond the end */
		h->length = len + PAGE;
		if (len)
			es_add(&q->x.st[ST_RANGE], EINVAL);
		break;
	default:		/* inside, if the offset is */
		h->length = PAGE * (1 + rn(16));
		if (len && (h->offset >= len || h->length > len - h->offset) &&
		    !(h->offset % PAGE))
			es_add(&q->x.st[ST_RANGE], EINVAL);
		break;
	}
	(void)pages;
	gen_reserved(h->reserved, sizeof(h->reserved), &q->x, w, sizeof(w));
	wcat(q, " hint=%u off=%#llx len=%#llx%s", h->hint, (unsigned long long)h->offset,
	     (unsigned long long)h->length, w);
	return m;
}

static int body_pages(struct req *q, int *aplace, uint32_t *aroom)
{
	struct cxltier_pages *pg = &q->u.pages;
	char w[64] = "";
	uint64_t len;
	int m;

	m = gen_target(q, &pg->flags, &pg->id, pg->name, q->on_file ? 0 : CXLTIER_PAGES_FLAGS,
		       false);
	len = m >= 0 ? F.r[m].length : 0;
	pg->offset = gen_offset(len, q);
	switch (rn(8)) {
	case 0:
		pg->count = 0;
		es_add(&q->x.st[ST_VALID], EINVAL);
		break;
	case 1:
		pg->count = CXLTIER_PAGES_MAX + 1 + rn(1000);
		es_add(&q->x.st[ST_VALID], EINVAL);
		break;
	default:
		pg->count = 1 + rn(300);
		break;
	}
	pg->nodes = gen_array(sizeof(int32_t), aplace, aroom, w, 0);
	wcat(q, " off=%#llx count=%u nodes=%s", (unsigned long long)pg->offset, pg->count,
	     place_names[*aplace]);
	w[0] = 0;
	gen_reserved(&pg->reserved0, sizeof(pg->reserved0), &q->x, w, sizeof(w));
	gen_reserved(&pg->reserved1, sizeof(pg->reserved1), &q->x, w, sizeof(w));
	gen_reserved(pg->reserved, sizeof(pg->reserved), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	/* The pages reported: cut at the region's end; more than the room faults. */
	if (len && pg->offset < len && !(pg->offset % PAGE)) {
		uint64_t left = (len - pg->offset) / PAGE;
		uint64_t n = pg->count < left ? pg->count : left;

		if (n > *aroom)
			es_add(&q->x.st[ST_OUT], EFAULT);
	} else if (!len && *aroom < pg->count) {
		es_add(&q->x.maybe[ST_OUT], EFAULT);
	}
	return m;
}

/* PAGES: as many entries as the region has from the offset, each a node or NONE/FENCED. */
static void post_pages(struct req *q, long rc, int m, int aplace)
{
	struct cxltier_pages *pg = (void *)F.arg;
	const int32_t *nodes = (const void *)F.arr;
	uint64_t left;
	uint32_t i;

	if (rc || m < 0 || q->place != P_NORMAL)
		return;
	left = (F.r[m].length - q->u.pages.offset) / PAGE;
	CHECK(pg->count == (q->u.pages.count < left ? q->u.pages.count : left),
	      "pages: reported %u of %u asked from %#llx of a %#llx-byte region", pg->count,
	      q->u.pages.count, (unsigned long long)q->u.pages.offset,
	      (unsigned long long)F.r[m].length);
	if (aplace != P_NORMAL)
		return;
	for (i = 0; i < pg->count; i++)
		CHECK(nodes[i] >= CXLTIER_PAGE_FENCED && nodes[i] < F.nnodes,
		      "pages: entry %u is %d", i, nodes[i]);
	CHECK(canary_intact(pg->count * sizeof(int32_t)),
	      "pages wrote beyond the %u entries", pg->count);
}

static uint32_t gen_count(uint32_t n)
{
	switch (rn(8)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return n ? n - 1 : 0;
	case 3: return n;
	case 4: return n + 1;
	case 5: return rn(LIST_ROOM);
	case 6: return (uint32_t[]){ 65535, 65536, UINT32_MAX, 1U << 31 }[rn(4)];
	default: return 2 + rn(8);
	}
}

/* LIST: the regions' number is known exactly, so is the outcome of a bad array. */
static int body_list(struct req *q, int *aplace, uint32_t *aroom)
{
	struct cxltier_list *l = &q->u.list;
	uint32_t n = nlive() + G->nr_base, m;
	char w[96] = "";

	l->flags = gen_badflag(0, &q->x, w, sizeof(w));
	l->count = gen_count(n);
	l->entries = gen_array(sizeof(struct cxltier_list_entry), aplace, aroom, q->what + q->wn,
			       0);
	wcat(q, " count=%u entries=%s%s", l->count, place_names[*aplace], w);
	if (*aplace == P_STRADDLE)
		wcat(q, "(%u)", *aroom);
	w[0] = 0;
	gen_reserved(&l->reserved0, sizeof(l->reserved0), &q->x, w, sizeof(w));
	gen_reserved(l->reserved, sizeof(l->reserved), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	if (l->count && !l->entries)
		es_add(&q->x.st[ST_VALID], EFAULT);
	m = l->count < n ? l->count : n;
	if (m > *aroom)
		es_add(&q->x.st[ST_OUT], EFAULT);
	return -1;
}

struct stat_arrays {
	int nplace, bplace;
	uint32_t nroom, broom;
};

static int body_stat(struct req *q, struct stat_arrays *sa)
{
	struct cxltier_stat *s = &q->u.stat;
	char w[96] = "", w2[64] = "";
	int m, i;

	s->flags = gen_badflag(q->on_file ? 0 : CXLTIER_STAT_FLAGS, &q->x, w2, sizeof(w2));
	if (q->on_file) {
		m = -1;
		for (i = 0; i < F.nf; i++)
			if (F.f[i].fd == q->fd)
				m = F.f[i].reg;
		if (one_in(10)) {
			s->flags |= CXLTIER_BY_ID;	/* the file selects the region */
			s->id = 1;
			es_add(&q->x.st[ST_VALID], EINVAL);
			wcat(q, " BY_ID");
		}
		if (one_in(4)) {	/* (in) only on /dev/cxltier: ignored here */
			s->name[0] = '/';
			s->name[5] = 1;
		}
		wcat(q, " on file #%u%s", m >= 0 ? F.r[m].id : 0, w2);
	} else {
		m = gen_sel(&s->flags, &s->id, s->name, &q->x, w, sizeof(w));
		wcat(q, " %s%s", w, w2);
		if (m == -1)
			es_add(&q->x.st[ST_LOOKUP], ENOENT);
	}
	s->node_count = gen_count(F.nnodes);
	s->node_pages = gen_array(sizeof(struct cxltier_node_pages), &sa->nplace, &sa->nroom,
				  w, 0);
	s->blade_count = one_in(3) ? 0 : gen_count(4);
	/* Both arrays in one buffer would overlap: the blades get their own place. */
	sa->bplace = P_NORMAL;
	sa->broom = 64;
	if (sa->nplace == P_NORMAL) {
		if (s->blade_count > 64)
			s->blade_count = 64;
		switch (rn(6)) {
		default:
			s->blade_pages = (uintptr_t)(F.arr + (ARR_PAGES - 1) * PAGE / 2);
			break;
		case 0:
			sa->bplace = P_NULL;
			s->blade_pages = 0;
			break;
		case 1:
			sa->bplace = P_UNMAPPED;
			s->blade_pages = (uintptr_t)F.arr_guard;
			break;
		}
	} else {
		if (!one_in(4))
			s->blade_count = 0;
		sa->bplace = P_NULL;
		s->blade_pages = 0;
	}
	if (sa->bplace != P_NORMAL)
		sa->broom = 0;
	if (sa->nplace == P_NORMAL && s->node_count > 64 && !one_in(4))
		s->node_count = 64;
	wcat(q, " nodes[%u]@%s blades[%u]@%s", s->node_count, place_names[sa->nplace],
	     s->blade_count, place_names[sa->bplace]);
	for (i = 0; i < 8; i++)		/* (out) fields: ignored on input */
		((uint32_t *)&s->length)[i] = rnd();
	w[0] = 0;
	/* pool and pool_offset are (out), and must be zero on input. */
	gen_reserved(s->pool, sizeof(s->pool) + sizeof(s->pool_offset), &q->x, w, sizeof(w));
	wcat(q, "%s", w);
	if ((s->node_count && !s->node_pages) || (s->blade_count && !s->blade_pages))
		es_add(&q->x.st[ST_VALID], EFAULT);
	/*
	 * The node array is written up to the nodes with pages (at least one when the
	 * region has pages), the blade array up to the blades with pages (unknown here).
	 */
	if (m >= 0 && resident_of(&F.r[m]) && s->node_count) {
		if (sa->nroom == 0)
			es_add(&q->x.st[ST_OUT], EFAULT);
		else if (sa->nroom < s->node_count && sa->nroom < (uint32_t)F.nnodes)
			es_add(&q->x.maybe[ST_OUT], EFAULT);
	}
	if (m >= 0 && resident_of(&F.r[m]) && s->blade_count && sa->broom < s->blade_count)
		es_add(&q->x.maybe[ST_OUT], EFAULT);
	/* A region file whose region we do not model (never): anything may be written. */
	if (m < 0 && q->on_file)
		es_add(&q->x.maybe[ST_OUT], EFAULT);
	return m;
}

/* Are the array buffer's bytes [from, to) still the canary? */
static bool canary_range(size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if ((unsigned char)F.arr[i] != CANARY)
			return false;
	return true;
}

/* Issue the request; check the outcome against the documented set and the stages. */
static long run_req(struct req *q, void *arg)
{
	unsigned long cmd = _IOC(q->dir, q->type, q->nr, q->usize);
	struct eset ok = ex_allowed(&q->x);
	char a[160];
	double t;
	long rc;

	op_desc("%s%s cmd=%#lx%s", verbs[q->verb].name, q->on_file ? "@file" : "", cmd,
		q->what);
	t = now();
	rc = ioctl(q->fd, cmd, arg);
	if (rc < 0)
		rc = -errno;
	F.secs[q->verb] += now() - t;
	if (rc < 0) {
		F.err[q->verb]++;
		CHECK(documented(-rc), "errno %d (%s) is not one the ABI documents", (int)-rc,
		      strerror(-rc));
	} else {
		F.ok[q->verb]++;
	}
	CHECK(es_has(&ok, rc < 0 ? -rc : 0) || (q->verb == V_VERSION && rc > 0),
	      "got %ld (%s), expected one of {%s}", rc, rc < 0 ? strerrorname_np(-rc) : "ok",
	      es_str(&ok, a, sizeof(a)));
	return rc;
}

static void post_create(struct req *q, long rc, int m)
{
	struct cxltier_create *c = (void *)F.arg;
	struct cxltier_stat st;
	uint32_t id;
	int i;

	if (rc == -EDQUOT)
		F.root_edquot++;
	if (rc == -EFAULT && q->place == P_RO && ex_reaches_out(&q->x)) {
		/* Created; the id could not be copied out ("the region exists"). */
		if (rg_stat(F.dev, q->u.create.name, &st)) {
			fail("create: EFAULT on copy-out, but no region %.63s", q->u.create.name);
			return;
		}
		id = st.id;
		c = &q->u.create;
	} else if (rc) {
		return;
	} else {
		id = c->id;
		CHECK(!memcmp(F.arg + verbs[V_CREATE].ksize, q->u.bytes + verbs[V_CREATE].ksize,
			      q->usize > verbs[V_CREATE].ksize ? q->usize - verbs[V_CREATE].ksize : 0),
		      "create wrote beyond the struct it knows");
	}
	CHECK(id >= 1 && id <= CXLTIER_REGION_ID_MAX && find_live_id(id) < 0 && !base_has_id(id),
	      "create: id %u is out of range or taken", id);
	for (i = 0; i < IF_MAX_REG && F.r[i].used; i++)
		;
	if (i == IF_MAX_REG) {
		fail("model full");
		return;
	}
	memset(&F.r[i], 0, sizeof(F.r[i]));
	F.r[i].used = F.r[i].live = true;
	F.r[i].id = id;
	memcpy(F.r[i].name, q->u.create.name, CXLTIER_NAME_MAX);
	F.r[i].length = q->u.create.length;
	F.r[i].big = F.r[i].length > 64 * MB;
	F.r[i].policy = q->u.create.policy;
	F.r[i].mode = q->u.create.flags & CXLTIER_CREATE_MODE ? q->u.create.mode : 0600;
	F.r[i].uid = 0;
	memcpy(F.r[i].nodes, q->u.create.nodes, sizeof(F.r[i].nodes));
	(void)m;
}

static void post_open(struct req *q, long rc, int m, int fds_before)
{
	struct cxltier_open *o = (void *)F.arg;
	struct stat sb;

	if (rc == -EFAULT && q->place == P_RO)
		CHECK(count_fds() == fds_before, "open: EFAULT on copy-out leaked a descriptor");
	if (rc)
		return;
	if (m < 0 || o->fd < 0) {
		fail("open succeeded for no region we know (fd %d)", o->fd);
		return;
	}
	CHECK(o->id == F.r[m].id && o->length == F.r[m].length &&
	      !strncmp(o->name, F.r[m].name, CXLTIER_NAME_MAX),
	      "open returned id %u length %llu name %.63s, the region is #%u %llu %.63s", o->id,
	      (unsigned long long)o->length, o->name, F.r[m].id,
	      (unsigned long long)F.r[m].length, F.r[m].name);
	CHECK(fcntl(o->fd, F_GETFD) == FD_CLOEXEC, "open: fd %d is not O_CLOEXEC", o->fd);
	CHECK(!fstat(o->fd, &sb) && (uint64_t)sb.st_size == F.r[m].length,
	      "fstat of a region file: size %lld", (long long)sb.st_size);
	if (F.nf == IF_MAX_FDS) {
		close(o->fd);
		return;
	}
	F.f[F.nf].fd = o->fd;
	F.f[F.nf].reg = m;
	F.f[F.nf].wr = q->u.open.flags & CXLTIER_OPEN_WRITE;
	F.f[F.nf].wonly = !(q->u.open.flags & CXLTIER_OPEN_READ);
	F.nf++;
	F.r[m].files++;
}

static void post_list(struct req *q, long rc, int aplace, uint32_t aroom)
{
	struct cxltier_list *l = (void *)F.arg;
	struct cxltier_list_entry *e = (void *)F.arr;
	uint32_t n = nlive() + G->nr_base, k, i, prev = 0;
	int j;

	if (rc)
		return;
	CHECK(l->count == n, "list: count %u, %u regions exist", l->count, n);
	if (aplace != P_NORMAL)
		return;
	k = q->u.list.count < n ? q->u.list.count : n;
	for (i = 0; i < k && i < aroom; i++) {
		CHECK(e[i].id > prev, "list: ids not increasing (%u after %u)", e[i].id, prev);
		prev = e[i].id;
		CHECK(memchr(e[i].name, 0, CXLTIER_NAME_MAX), "list: entry %u has no NUL", i);
		if (is_base(e[i].id, e[i].name))
			continue;
		j = find_live_id(e[i].id);
		CHECK(j >= 0 && !strncmp(e[i].name, F.r[j].name, CXLTIER_NAME_MAX) &&
		      e[i].length == F.r[j].length && e[i].policy == F.r[j].policy,
		      "list: entry #%u %.63s (%llu bytes, policy %u) is not a region we have",
		      e[i].id, e[i].name, (unsigned long long)e[i].length, e[i].policy);
		if (nfail)
			return;
	}
	CHECK(canary_intact(k * sizeof(*e)), "list wrote beyond the %u entries it reported", k);
}

static void post_stat(struct req *q, long rc, int m, const struct stat_arrays *sa)
{
	struct cxltier_stat *s = (void *)F.arg;
	struct cxltier_node_pages *np = (void *)F.arr;
	struct cxltier_blade_pages *bp = (void *)(F.arr + (ARR_PAGES - 1) * PAGE / 2);
	uint64_t sum = 0, want = 0;
	uint32_t i, k;
	int nfiles = 0, j;
	struct mreg *r;

	if (rc || m < 0)
		return;
	r = &F.r[m];
	for (j = 0; j < F.nf; j++)
		nfiles += F.f[j].reg == m;
	want = resident_of(r);
	CHECK(s->id == r->id && !strncmp(s->name, r->name, CXLTIER_NAME_MAX) &&
	      s->length == r->length && s->policy == r->policy && s->mode == r->mode &&
	      s->uid == r->uid && !memcmp(s->nodes, r->nodes, sizeof(s->nodes)),
	      "stat: #%u %.63s len %llu pol %u mode %#o uid %u nodes %#llx; model #%u %.63s len %llu pol %u mode %#o uid %u nodes %#llx",
	      s->id, s->name, (unsigned long long)s->length, s->policy, s->mode, s->uid,
	      (unsigned long long)s->nodes[0], r->id, r->name, (unsigned long long)r->length,
	      r->policy, r->mode, r->uid, (unsigned long long)r->nodes[0]);
	CHECK(s->region_flags == (r->live ? 0 : CXLTIER_REGION_DESTROYED),
	      "stat: region_flags %#x, destroyed %d", s->region_flags, !r->live);
	CHECK(s->resident == want && s->fenced == 0 && s->fast <= s->resident,
	      "stat: resident %llu fast %llu fenced %llu, %llu pages touched",
	      (unsigned long long)s->resident, (unsigned long long)s->fast,
	      (unsigned long long)s->fenced, (unsigned long long)want);
	CHECK(s->nr_maps == 0 && (int)s->nr_files == r->files && r->files == nfiles,
	      "stat: %u maps %u files, we hold 0 maps %d files", s->nr_maps, s->nr_files,
	      r->files);
	CHECK((s->node_count > 0) == (want > 0) && s->node_count <= (uint32_t)F.nnodes,
	      "stat: %u nodes with pages, %llu pages", s->node_count, (unsigned long long)want);
	if (sa->nplace == P_NORMAL) {
		k = q->u.stat.node_count < s->node_count ? q->u.stat.node_count : s->node_count;
		for (i = 0; i < k; i++) {
			CHECK(np[i].node < (uint32_t)F.nnodes && np[i].pages && !np[i].reserved,
			      "stat: node entry %u: node %u pages %llu", i, np[i].node,
			      (unsigned long long)np[i].pages);
			sum += np[i].pages;
		}
		if (k == s->node_count)
			CHECK(sum == want, "stat: node pages sum to %llu, %llu resident",
			      (unsigned long long)sum, (unsigned long long)want);
		CHECK(canary_range(k * sizeof(*np), (ARR_PAGES - 1) * PAGE / 2),
		      "stat wrote beyond the %u node entries", k);
	}
	if (sa->bplace == P_NORMAL && q->u.stat.blade_pages) {
		k = q->u.stat.blade_count < s->blade_count ? q->u.stat.blade_count : s->blade_count;
		for (i = 0; i < k; i++)
			CHECK(memchr(bp[i].name, 0, sizeof(bp[i].name)) && bp[i].pages <= want,
			      "stat: blade entry %u: %llu pages", i, (unsigned long long)bp[i].pages);
		CHECK(canary_range((char *)&bp[k] - F.arr, (ARR_PAGES - 1) * PAGE),
		      "stat wrote beyond the %u blade entries", k);
	}
}

/* One request of a verb, mutated. */
static void op_verb(int verb)
{
	static struct req q;
	struct stat_arrays sa = {};
	int m = -1, aplace = 0, fds = -1;
	uint32_t aroom = 0;
	void *arg;
	long rc;

	memset(&q, 0, sizeof(q));
	ex_init(&q.x);
	q.verb = verb;
	q.fd = F.dev;
	if (verb == V_STAT && F.nf && one_in(3)) {
		q.on_file = true;
		q.fd = F.f[rn(F.nf)].fd;
	}
	gen_envelope(&q);
	switch (verb) {
	case V_CREATE:
		m = body_create(&q);
		break;
	case V_OPEN:
		m = body_open(&q);
		break;
	case V_DESTROY:
		m = body_destroy(&q);
		if (!(q.u.destroy.flags & CXLTIER_BY_ID) && q.u.destroy.id)
			es_add(&q.x.maybe[ST_VALID], EINVAL);
		break;
	case V_LIST:
		m = body_list(&q, &aplace, &aroom);
		break;
	case V_STAT:
		m = body_stat(&q, &sa);
		break;
	case V_SETPOL:
		m = body_setpol(&q);
		if (!(q.u.setpol.flags & CXLTIER_BY_ID) && q.u.setpol.id)
			es_add(&q.x.maybe[ST_VALID], EINVAL);
		break;
	case V_HINT:
		m = body_hint(&q);
		break;
	case V_PAGES:
		m = body_pages(&q, &aplace, &aroom);
		break;
	}
	if (verb != V_VERSION)
		gen_size_field(&q);
	arg = gen_place(&q);
	if (verb == V_VERSION)
		arg = (void *)(uintptr_t)rnd();
	if (verb == V_OPEN && q.place == P_RO)
		fds = count_fds();
	rc = run_req(&q, arg);
	if (nfail)
		return;
	switch (verb) {
	case V_VERSION:
		CHECK(rc == CXLTIER_ABI_VERSION, "version: %ld", rc);
		break;
	case V_CREATE:
		post_create(&q, rc, m);
		break;
	case V_OPEN:
		post_open(&q, rc, m, fds);
		break;
	case V_DESTROY:
		if (!(q.u.destroy.flags & CXLTIER_BY_ID) && q.u.destroy.id && ex_reaches_out(&q.x))
			rc ? F.id_refused++ : F.id_ignored++;
		if (!rc && m >= 0) {
			F.r[m].live = false;
			reg_put(m);
		}
		break;
	case V_LIST:
		post_list(&q, rc, aplace, aroom);
		break;
	case V_STAT:
		post_stat(&q, rc, m, &sa);
		break;
	case V_SETPOL:
		if (!(q.u.setpol.flags & CXLTIER_BY_ID) && q.u.setpol.id && ex_reaches_out(&q.x))
			rc ? F.id_refused++ : F.id_ignored++;
		if (!rc && m >= 0) {
			F.r[m].policy = q.u.setpol.policy;
			memcpy(F.r[m].nodes, q.u.setpol.nodes, sizeof(F.r[m].nodes));
		}
		break;
	case V_HINT:
		break;
	case V_PAGES:
		post_pages(&q, rc, m, aplace);
		break;
	}
}

/* A command that is not ours: unknown numbers, other types, wrong directions. */
static void op_unknown(void)
{
	static struct req q;
	unsigned long cmd;
	long rc;
	int fd = F.dev;

	memset(&q, 0, sizeof(q));
	switch (rn(4)) {
	case 0:		/* an unused number of our type (after PROCESS, the last one) */
		cmd = _IOC(rn(4), CXLTIER_IOC_MAGIC, _IOC_NR(CXLTIER_IOC_PROCESS) + 1 +
			   rn(255 - _IOC_NR(CXLTIER_IOC_PROCESS)), rn(1 << 14));
		break;
	case 1:		/* VERSION with a direction or a size */
		cmd = _IOC(1 + rn(3), CXLTIER_IOC_MAGIC, 0, rn(1 << 14));
		break;
	case 2: {	/* a verb's number with another type */
		static const unsigned int types[] = { 0xc6, 0xc8, 'x', 0xab, 0xfe, 0x01 };

		cmd = _IOC(rn(4), types[rn(6)], rn(NR_V), rn(1 << 14));
		break;
	}
	default:	/* /dev/cxltier's commands on a region file: STAT, HINT, PAGES only */
		if (!F.nf)
			return;
		fd = F.f[rn(F.nf)].fd;
		cmd = (unsigned long[]){ CXLTIER_IOC_VERSION, CXLTIER_IOC_CREATE,
					 CXLTIER_IOC_OPEN, CXLTIER_IOC_DESTROY,
					 CXLTIER_IOC_LIST, CXLTIER_IOC_SET_POLICY }[rn(6)];
		break;
	}
	memset(F.arg, 0, 5 * PAGE);
	op_desc("unknown cmd %#lx on %s", cmd, fd == F.dev ? "dev" : "region file");
	rc = ioctl(fd, cmd, one_in(2) ? F.arg : (void *)(uintptr_t)rnd());
	CHECK(rc == -1 && errno == ENOTTY, "unknown command %#lx: %ld errno %d", cmd, rc,
	      rc < 0 ? errno : 0);
}

/*
 * Map one page of a region file, touch it, check it, unmap it: one of the first 64,
 * or (one in four) anywhere in the region, up to the last page of a 1 TiB one.
 */
static void op_touch(void)
{
	unsigned int bad;
	int k, m, sig, far = -1, i;
	struct mreg *r;
	uint64_t pg, *tag;
	bool fits, resident;
	char *p;

	if (!F.nf)
		return;
	k = rn(F.nf);
	m = F.f[k].reg;
	r = &F.r[m];
	pg = rn(r->length / PAGE < TOUCH_PAGES ? r->length / PAGE : TOUCH_PAGES);
	if (r->length / PAGE > TOUCH_PAGES && one_in(4)) {
		pg = one_in(3) ? r->length / PAGE - 1 : TOUCH_PAGES + rn(r->length / PAGE - TOUCH_PAGES);
		for (i = 0; i < r->nfar; i++)
			if (r->far[i] == pg)
				far = i;
		if (far < 0 && r->nfar == 8)
			return;
	}
	if (pg >= TOUCH_PAGES && far < 0) {
		far = r->nfar;
		r->far[far] = pg;
		r->fartag[far] = 0;
		resident = false;
	} else {
		resident = pg >= TOUCH_PAGES || ((r->touched >> pg) & 1);
	}
	tag = pg >= TOUCH_PAGES ? &r->fartag[far] : &r->tag[pg];
	op_desc("touch #%u page %llu through fd %d (%s)", r->id, (unsigned long long)pg,
		F.f[k].fd, F.f[k].wr ? "rw" : "ro");
	p = mmap(NULL, PAGE, PROT_READ | (F.f[k].wr ? PROT_WRITE : 0), MAP_SHARED, F.f[k].fd,
		 pg * PAGE);
	if (F.f[k].wonly || p == MAP_FAILED) {
		/* Only a write-only file (which older modules made) cannot be mapped. */
		CHECK(F.f[k].wonly ? p == MAP_FAILED && errno == EACCES : p != MAP_FAILED,
		      "mmap of page %llu: %s", (unsigned long long)pg,
		      p == MAP_FAILED ? strerror(errno) : "mapped a write-only file");
		if (p != MAP_FAILED)
			munmap(p, PAGE);
		return;
	}
	F.touches++;
	fits = resident || placeable(r->policy, r->nodes, F.mem, F.fast, F.tiers);
	sig = page_io(p, false, *tag, &bad);
	if (!sig) {
		CHECK(fits, "page %llu of #%u (policy %u nodes %#llx) was placed, should not be",
		      (unsigned long long)pg, r->id, r->policy, (unsigned long long)r->nodes[0]);
		CHECK(!bad, "page %llu of #%u: %u words differ", (unsigned long long)pg, r->id, bad);
		if (pg < TOUCH_PAGES)
			r->touched |= 1ULL << pg;
		else if (far == r->nfar)
			r->nfar++;
		if (F.f[k].wr) {
			*tag = rnd() | 1;
			sig = page_io(p, true, *tag, NULL);
			CHECK(!sig, "write to a placed page: signal %d", sig);
		}
	} else {
		F.sigbus++;
		CHECK(sig == SIGBUS && !fits, "page %llu of #%u: signal %d (policy %u nodes %#llx)",
		      (unsigned long long)pg, r->id, sig, r->policy,
		      (unsigned long long)r->nodes[0]);
	}
	munmap(p, PAGE);
}

/* Another limit on a region's length, now (creates only; regions keep theirs). */
static void op_limit(void)
{
	static const unsigned int gb[] = { 0, 1, 2, 64, 1024, 4096 };
	char v[16];

	snprintf(v, sizeof(v), "%u", gb[rn(6)]);
	op_desc("max_region_gb=%s", v);
	if (param_write("max_region_gb", v))
		return;
	F.max_len = strtoull(v, NULL, 0) << 30;
}

static void op_close(void)
{
	int k, m;

	if (!F.nf)
		return;
	k = rn(F.nf);
	m = F.f[k].reg;
	op_desc("close fd %d of #%u", F.f[k].fd, F.r[m].id);
	CHECK(!close(F.f[k].fd), "close: errno %d", errno);
	F.f[k] = F.f[--F.nf];
	F.r[m].files--;
	reg_put(m);
}

/* OPEN with no descriptor left: EMFILE, and nothing else changes. */
static void op_emfile(void)
{
	struct rlimit old, none = { 0, 0 };
	int m = random_live(), rc;

	if (m < 0)
		return;
	op_desc("open #%u with RLIMIT_NOFILE 0", F.r[m].id);
	getrlimit(RLIMIT_NOFILE, &old);
	none.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_NOFILE, &none);
	rc = rg_open(F.dev, F.r[m].name, 0, CXLTIER_OPEN_READ, NULL);
	setrlimit(RLIMIT_NOFILE, &old);
	CHECK(rc == -EMFILE, "open without descriptors left: %d", rc);
	if (rc >= 0)
		close(rc);
}

/* Add regions someone else (our unprivileged child) made to the model. */
static void adopt_unknown(void)
{
	struct cxltier_stat st;
	int n = rg_list(F.dev), i, j;

	for (i = 0; i < n; i++) {
		if (is_base(list_buf[i].id, list_buf[i].name) || find_live_id(list_buf[i].id) >= 0)
			continue;
		for (j = 0; j < IF_MAX_REG && F.r[j].used; j++)
			;
		if (j == IF_MAX_REG || rg_stat(F.dev, list_buf[i].name, &st))
			continue;
		memset(&F.r[j], 0, sizeof(F.r[j]));
		F.r[j].used = F.r[j].live = true;
		F.r[j].id = st.id;
		memcpy(F.r[j].name, st.name, CXLTIER_NAME_MAX);
		F.r[j].length = st.length;
		F.r[j].policy = st.policy;
		F.r[j].mode = st.mode;
		F.r[j].uid = st.uid;
		memcpy(F.r[j].nodes, st.nodes, sizeof(st.nodes));
	}
}

static int drop_to_nobody(void)
{
	return setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	       setresuid(65534, 65534, 65534) ? -1 : 0;
}

/* In a child as uid/gid 65534 with our /dev/cxltier descriptor: refused as the modes say. */
static int nobody_child(int m)
{
	struct cxltier_stat st;
	char name[32];
	uint64_t len;
	int fd, rc;

	if (drop_to_nobody())
		return 1;
	fd = dev_open();
	if (fd < 0 && errno != EACCES)
		return 2;	/* mode 0666 (old) or 0660 root:cxltier */
	if (fd >= 0)
		close(fd);
	if (m >= 0) {
		struct mreg *r = &F.r[m];
		bool rd = r->uid == 65534 ? r->mode & 0400 : r->mode & 04;
		bool rw = r->uid == 65534 ? (r->mode & 0600) == 0600 : (r->mode & 06) == 06;

		rc = rg_open(F.dev, r->name, 0, CXLTIER_OPEN_READ, NULL);
		if (rd ? rc < 0 : rc != -EACCES)
			return 3;
		if (rc >= 0)
			close(rc);
		rc = rg_open(F.dev, r->name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
		if (rw ? rc < 0 : rc != -EACCES)
			return 4;
		if (rc >= 0)
			close(rc);
		if (r->uid != 65534 && rg_destroy(F.dev, r->name) != -EPERM)
			return 5;
		if (r->uid != 65534 && rg_set_policy(F.dev, r->name, 0, 0) != -EPERM)
			return 6;
		/* STAT by name needs read permission (or, in older modules, nothing) */
		rc = rg_stat(F.dev, r->name, &st);
		if ((rd || r->uid == 65534) ? rc != 0 : rc && rc != -EACCES)
			return 7;
	}
	snprintf(name, sizeof(name), "fz.nb.%d", (int)rn(4));
	len = (1 + rn(64)) * PAGE;
	rc = rg_create(F.dev, name, len, rn(4), one_in(2) ? 0644 : -1, NULL);
	if (rc && rc != -EDQUOT && rc != -EEXIST && !(rc == -EFBIG && len > F.max_len))
		return 8;
	if (!rc && one_in(2) && rg_destroy(F.dev, name))
		return 9;
	return 0;
}

static void op_nobody(void)
{
	int m = random_live(), status;
	pid_t pid;

	op_desc("as uid 65534: open/destroy/set-policy/stat #%u, create fz.nb.*",
		m >= 0 ? F.r[m].id : 0);
	fflush(stderr);
	pid = fork();
	if (!pid)
		_exit(nobody_child(m));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "unprivileged child: status %#x (its step %d failed)",
	      status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	adopt_unknown();
}

/*
 * Per-user limits, exactly, as uid 65534 with user_max_regions=2 and user_limit_mb=1:
 * the region count, the memory reserved at CREATE, and a destroyed region that stays
 * charged until its last mapping goes.  Returns the failing step, or 0.
 */
static int quota_child(void)
{
	int fd, rc, k;
	char *p;

	if (drop_to_nobody())
		return 1;
	if (rg_create(F.dev, "fz.q.0", PAGE, 0, -1, NULL))
		return 2;
	if (rg_create(F.dev, "fz.q.1", MB, 0, -1, NULL) != -EDQUOT)
		return 3;	/* one page + 1 MiB > 1 MiB */
	if (rg_create(F.dev, "fz.q.1", 2 * PAGE, 0, -1, NULL))
		return 4;
	if (rg_create(F.dev, "fz.q.2", PAGE, 0, -1, NULL) != -EDQUOT)
		return 5;	/* a third region */
	fd = rg_open(F.dev, "fz.q.1", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
	if (fd < 0)
		return 6;
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 7;
	p[0] = 1;
	close(fd);
	if (rg_destroy(F.dev, "fz.q.1"))
		return 8;
	rc = rg_create(F.dev, "fz.q.2", PAGE, 0, -1, NULL);
	if (rc != -EDQUOT)
		return 9;	/* fz.q.1's memory is still there, still charged */
	munmap(p, 2 * PAGE);
	/* The memory goes when the last holder lets go: the daemon may, a moment later. */
	for (k = 0; (rc = rg_create(F.dev, "fz.q.2", PAGE, 0, -1, NULL)) == -EDQUOT && k < 100;
	     k++)
		usleep(20000);
	if (rc)
		return 10;
	if (rg_destroy(F.dev, "fz.q.0") || rg_destroy(F.dev, "fz.q.2"))
		return 11;
	return 0;
}

static void op_quota(void)
{
	char regions[32], limit[32], users[1024];
	int status, k, m;
	pid_t pid;

	if (param_read("user_max_regions", regions, sizeof(regions)) ||
	    param_read("user_limit_mb", limit, sizeof(limit)) || F.max_len < MB)
		return;		/* no per-user limits, or max_region_gb=0 just now */
	/* Nothing may be charged to uid 65534 when we start. */
	for (k = F.nf - 1; k >= 0; k--)
		if (F.r[F.f[k].reg].uid == 65534) {
			close(F.f[k].fd);
			F.r[F.f[k].reg].files--;
			m = F.f[k].reg;
			F.f[k] = F.f[--F.nf];
			reg_put(m);
		}
	for (m = 0; m < IF_MAX_REG; m++)
		if (F.r[m].live && F.r[m].uid == 65534) {
			CHECK(!rg_destroy_id(F.dev, F.r[m].id), "destroy #%u", F.r[m].id);
			F.r[m].live = false;
			reg_put(m);
		}
	/* Destroyed regions are uncharged when their last holder (the daemon too) lets go. */
	for (k = 0; k < 100; k++) {
		read_debugfs("users", users, sizeof(users));
		if (!strstr(users, "\n65534 "))
			break;
		usleep(20000);
	}
	op_desc("as uid 65534 with user_max_regions=2 user_limit_mb=1: count, size, charge till unmapped");
	if (param_write("user_max_regions", "2") || param_write("user_limit_mb", "1")) {
		fail("cannot set the per-user limits");
		goto out;
	}
	fflush(stderr);
	pid = fork();
	if (!pid)
		_exit(quota_child());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "per-user limits: step %d went wrong (status %#x)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1, status);
	read_debugfs("users", users, sizeof(users));
	CHECK(!strstr(users, "\n65534 "), "uid 65534 is still charged: %s", users);
out:
	param_write("user_max_regions", regions);
	param_write("user_limit_mb", limit);
	adopt_unknown();
}

/* LIST against the model: the same regions, no more, no fewer. */
static void op_sync(void)
{
	int n, i, j, seen = 0;

	op_desc("sync: list against the model");
	n = rg_list(F.dev);
	if (n < 0) {
		fail("list: %d", n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (is_base(list_buf[i].id, list_buf[i].name))
			continue;
		j = find_live_id(list_buf[i].id);
		CHECK(j >= 0 && !strncmp(list_buf[i].name, F.r[j].name, CXLTIER_NAME_MAX),
		      "list has #%u %.63s, which we do not have", list_buf[i].id,
		      list_buf[i].name);
		seen++;
	}
	CHECK(seen == nlive(), "list has %d of our regions, we have %d", seen, nlive());
}

static void ioctl_fuzz_setup(void)
{
	char v[32];

	memset(&F, 0, sizeof(F));
	F.nnodes = nr_node_ids();
	F.max_len = param_read("max_region_gb", v, sizeof(v)) ? 1ULL << 40 :
		    strtoull(v, NULL, 0) << 30;
	F.mem = read_nodelist("/sys/devices/system/node/has_memory");
	F.fast = read_nodelist("/sys/devices/system/node/has_cpu") & F.mem;
	F.tiers = tier_mask();
	F.arg = mmap(NULL, ARG_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	F.arr = mmap(NULL, ARR_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	F.ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	F.arg_guard = F.arg + (ARG_PAGES - 1) * PAGE;
	F.arr_guard = F.arr + (ARR_PAGES - 1) * PAGE;
	mprotect(F.arg_guard, PAGE, PROT_NONE);
	mprotect(F.arr_guard, PAGE, PROT_NONE);
}

static int nused(void)
{
	int i, n = 0;

	for (i = 0; i < IF_MAX_REG; i++)
		n += F.r[i].used;
	return n;
}

/* --- the fixture every test shares ------------------------------------------------ */

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	if (access(DEV, F_OK))
		SKIP(return, DEV " is missing (cxltier.ko not loaded)");
}

FIXTURE_TEARDOWN(fuzz)
{
}

static void test_begin(const char *name, uint64_t stream)
{
	int k;

	if (strcmp(name, "leaks") && (k = destroy_leftovers()))
		fprintf(stderr, "# %s: destroyed %d regions an earlier test left behind\n", name, k);
	test_name = name;
	trace = G->trace;
	nfail = 0;
	op_no = 0;
	ops_done = 0;
	rng_seed(G->seed, stream);
	catch_faults();
}

/*
 * Timeouts: 10x or more the longest time measured on Debian's kernel under TCG with
 * the default bound (2 vCPUs on a 2-core host shared with other builds and guests):
 * ioctl_fuzz 12 s, rmmod 4 s, mmap_fuzz 5 s, race 6 s, leaks 3 s (plus up to 20 s per
 * tier whose memory cannot be offlined, when something leaked).  The guest
 * multiplies them on the slower debug kernel (CXLT_TIMEOUT_SCALE, cxlt_test.h).
 */
TEST_F_TIMEOUT(fuzz, ioctl_fuzz, 120)
{
	unsigned long n = G->ops, i;
	char max_gb[32];
	int fds0, m;
	double t0, t;

	test_begin("ioctl_fuzz", 1);
	ioctl_fuzz_setup();
	ASSERT_EQ(0, param_read("max_region_gb", max_gb, sizeof(max_gb)));
	F.dev = dev_open();
	ASSERT_LE(0, F.dev);
	fds0 = count_fds();
	t0 = now();
	for (op_no = 0; ops_done < n && op_no < 20 * n && !nfail; op_no++) {
		unsigned int w = rn(100);

		if (op_no % 128 == 127) {
			op_sync();
			continue;
		}
		if (w < 20)
			op_verb(nused() >= IF_MAX_REG - 2 ? V_DESTROY : V_CREATE);
		else if (w < 34)
			op_verb(F.nf >= IF_MAX_FDS - 1 ? V_LIST : V_OPEN);
		else if (w < 44)
			op_verb(V_DESTROY);
		else if (w < 52)
			op_verb(V_LIST);
		else if (w < 62)
			op_verb(V_STAT);
		else if (w < 65)
			op_verb(V_HINT);
		else if (w < 68)
			op_verb(V_PAGES);
		else if (w < 76)
			op_verb(V_SETPOL);
		else if (w < 79)
			op_verb(V_VERSION);
		else if (w < 85)
			op_unknown();
		else if (w < 92)
			one_in(64) ? op_limit() : op_touch();
		else if (w < 97)
			op_close();
		else if (w < 98)
			one_in(8) ? op_quota() : op_emfile();
		else if (w < 99 && nused() < IF_MAX_REG - 2)
			op_nobody();
		else
			op_verb(V_STAT);
	}
	t = now() - t0;
	i = ops_done;

	/* Everything we made goes; the list is what it was. */
	op_desc("cleanup");
	param_write("max_region_gb", max_gb);
	while (F.nf)
		op_close();
	for (m = 0; m < IF_MAX_REG; m++) {
		if (!F.r[m].live)
			continue;
		EXPECT_EQ(0, rg_destroy_id(F.dev, F.r[m].id)) TH_LOG("#%u", F.r[m].id);
		F.r[m].live = false;
		reg_put(m);
	}
	op_sync();
	close(F.dev);
	EXPECT_EQ(fds0 - 1, count_fds());
	TH_LOG("%lu ops in %.1f s, %.0f ops/s", i, t, i / t);
	TH_LOG("ok/refused: create %lu/%lu open %lu/%lu destroy %lu/%lu list %lu/%lu stat %lu/%lu set-policy %lu/%lu hint %lu/%lu pages %lu/%lu; %lu touches (%lu SIGBUS)",
	       F.ok[V_CREATE], F.err[V_CREATE], F.ok[V_OPEN], F.err[V_OPEN], F.ok[V_DESTROY],
	       F.err[V_DESTROY], F.ok[V_LIST], F.err[V_LIST], F.ok[V_STAT], F.err[V_STAT],
	       F.ok[V_SETPOL], F.err[V_SETPOL], F.ok[V_HINT], F.err[V_HINT], F.ok[V_PAGES],
	       F.err[V_PAGES], F.touches, F.sigbus);
	TH_LOG("seconds in the ioctls: create %.2f open %.2f destroy %.2f list %.2f stat %.2f set-policy %.2f",
	       F.secs[V_CREATE], F.secs[V_OPEN], F.secs[V_DESTROY], F.secs[V_LIST],
	       F.secs[V_STAT], F.secs[V_SETPOL]);
	if (F.id_ignored || F.id_refused)
		TH_LOG("note: a nonzero id without CXLTIER_BY_ID (\"else 0\") was ignored %lu times, refused %lu times",
		       F.id_ignored, F.id_refused);
	if (F.root_edquot)
		TH_LOG("note: root got EDQUOT %lu times (CAP_IPC_LOCK and CAP_SYS_RESOURCE should exempt it)",
		       F.root_edquot);
	ASSERT_EQ(0, nfail);
}

/* ================================================================================= */
/* rmmod: refused while anything of the module is in use, also under churn           */
/* ================================================================================= */

static bool unload_refused(int rc)
{
	return rc == -EWOULDBLOCK || rc == -EBUSY;
}

/*
 * Unload (must work now: within a moment, as the daemon lets go of a destroyed region
 * within its observation window), check it is gone, load it again with its
 * parameters.
 */
static void reload(struct __test_metadata *_metadata)
{
	int rc, i;

	for (i = 0; (rc = cxlt_rmmod()) == -EWOULDBLOCK && i < 40 * cxlt_timeout_scale(); i++)
		usleep(50000);

	EXPECT_EQ(0, rc) TH_LOG("rmmod: %s (refcnt %d)", strerror(-rc), module_refcnt());
	if (rc)
		return;
	G->reloaded = true;
	EXPECT_NE(0, access(DEV, F_OK));
	EXPECT_FALSE(cxlt_module_loaded());
	rc = cxlt_insmod(G->modparams);
	EXPECT_EQ(0, rc) TH_LOG("insmod %s: %s", G->modparams, strerror(-rc));
	for (i = 0; i < 100 && access(DEV, F_OK); i++)
		usleep(10000);
	EXPECT_EQ(0, access(DEV, F_OK));
}

struct churn {
	int live;		/* objects that exist for sure: fds, regions, mappings */
	int phase;		/* 0: churn, 1: let everything go */
	int errors;
};

static void churn_worker(struct churn *c, int me)
{
	char name[32];
	int dev = -1, fd = -1, n = 0, rc;
	bool region = false;
	char *p = NULL;

	rng_seed(G->seed, 200 + me);
	snprintf(name, sizeof(name), "rm.w%d", me);
	while (!__atomic_load_n(&c->phase, __ATOMIC_SEQ_CST) && n++ < 100000) {
		switch (rn(6)) {
		case 0:
			if (dev >= 0)
				break;
			dev = dev_open();
			if (dev < 0) {
				/* Holding nothing, it may find the module unloaded in phase 1. */
				if (!__atomic_load_n(&c->phase, __ATOMIC_SEQ_CST))
					c->errors++;
				return;
			}
			__atomic_add_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
			break;
		case 1:
			if (dev < 0 || region)
				break;
			rc = rg_create(dev, name, 4 * PAGE, 0, -1, NULL);
			if (rc) {
				c->errors++;
				break;
			}
			region = true;
			__atomic_add_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
			break;
		case 2:
			if (dev < 0 || !region || fd >= 0)
				break;
			fd = rg_open(dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
			if (fd < 0) {
				c->errors++;
				break;
			}
			__atomic_add_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
			break;
		case 3:
			if (fd < 0 || p)
				break;
			p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED) {
				p = NULL;
				c->errors++;
				break;
			}
			p[rn(4) * PAGE] = 1;
			__atomic_add_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
			break;
		case 4:		/* let one thing go */
			if (p && one_in(2)) {
				__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
				munmap(p, 4 * PAGE);
				p = NULL;
			} else if (fd >= 0 && one_in(2)) {
				__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
				close(fd);
				fd = -1;
			} else if (region && dev >= 0) {
				__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
				if (rg_destroy(dev, name))
					c->errors++;
				region = false;
			}
			break;
		default:
			if (dev >= 0 && !region && fd < 0 && one_in(2)) {
				__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
				close(dev);
				dev = -1;
			}
			break;
		}
	}
	/* Let go of everything, in a random order, while the parent tries to unload. */
	if (region && dev >= 0 && one_in(2)) {
		__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
		if (rg_destroy(dev, name))
			c->errors++;
		region = false;
	}
	if (fd >= 0) {
		__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
		close(fd);
	}
	if (region) {
		__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
		if (rg_destroy(dev, name))
			c->errors++;
	}
	if (dev >= 0) {
		__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
		close(dev);
	}
	if (p) {
		__atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
		munmap(p, 4 * PAGE);
	}
}

TEST_F_TIMEOUT(fuzz, rmmod, 60)
{
	int dev, fd, rc, i, w, status, tries, cycle, live;
	struct churn *c;
	pid_t pid[3], holder;
	double t0 = now();
	int pipefd[2];
	char *p;

	test_begin("rmmod", 4);
	if (G->modparams[0] == '?')
		SKIP(return, "cxltier.ko was not loaded when the group started");
	if (nr_tiers_now() || G->nr_base || module_refcnt())
		SKIP(return, "the module is in use (%d tiers, %d regions, refcnt %d): it cannot be unloaded",
		     nr_tiers_now(), G->nr_base, module_refcnt());

	/* One thing at a time: each keeps the module. */
	op_desc("an open /dev/cxltier");
	dev = dev_open();
	ASSERT_LE(0, dev);
	EXPECT_TRUE(unload_refused(cxlt_rmmod()));
	op_desc("a region");
	ASSERT_EQ(0, rg_create(dev, "rm.a", 8 * PAGE, 0, -1, NULL));
	close(dev);
	EXPECT_TRUE(unload_refused(cxlt_rmmod()));
	op_desc("a region file of a destroyed region");
	dev = dev_open();
	ASSERT_LE(0, dev);
	fd = rg_open(dev, "rm.a", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rg_destroy(dev, "rm.a"));
	close(dev);
	EXPECT_TRUE(unload_refused(cxlt_rmmod()));
	op_desc("a mapping of it, its file closed");
	p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x5a, 8 * PAGE);
	close(fd);
	EXPECT_TRUE(unload_refused(cxlt_rmmod()));
	op_desc("the mapping, in a forked child only");
	ASSERT_EQ(0, pipe(pipefd));
	holder = fork();
	ASSERT_LE(0, holder);
	if (!holder) {
		char b;

		close(pipefd[1]);
		read(pipefd[0], &b, 1);
		_exit(p[PAGE * 7] == 0x5a ? 0 : 1);
	}
	close(pipefd[0]);
	munmap(p, 8 * PAGE);
	EXPECT_TRUE(unload_refused(cxlt_rmmod()));
	close(pipefd[1]);
	ASSERT_EQ(holder, waitpid(holder, &status, 0));
	EXPECT_EQ(0, status);
	op_desc("nothing left: unload, load again");
	reload(_metadata);
	dev = dev_open();
	ASSERT_LE(0, dev);
	EXPECT_EQ(0, rg_list(dev));
	close(dev);

	/*
	 * Under churn: three processes make and drop regions, files, mappings and
	 * descriptors while we try to unload.  A region of ours stays till the end of
	 * phase 0, so every attempt then must fail; in phase 1 they let go of everything
	 * and an unload that works must find nothing of theirs left (c->live counts what
	 * exists for sure: incremented after it was made, decremented before it goes).
	 */
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c);
	for (cycle = 0; cycle < 2 && !nfail; cycle++) {
		memset(c, 0, sizeof(*c));
		dev = dev_open();
		ASSERT_LE(0, dev);
		ASSERT_EQ(0, rg_create(dev, "rm.keep", PAGE, 0, -1, NULL));
		close(dev);
		fflush(stdout);
		fflush(stderr);
		for (w = 0; w < 3; w++) {
			pid[w] = fork();
			ASSERT_LE(0, pid[w]);
			if (!pid[w]) {
				churn_worker(c, w + 3 * cycle);
				_exit(c->errors ? 1 : 0);
			}
		}
		op_desc("cycle %d: unload while rm.keep exists and three processes churn", cycle);
		for (i = 0; i < 40; i++) {
			rc = cxlt_rmmod();
			CHECK(unload_refused(rc), "unload with a region present: %s",
			      rc ? strerror(-rc) : "it worked");
			if (!rc)
				break;
			usleep(2000 + rn(5000));
		}
		if (!nfail) {
			dev = dev_open();
			ASSERT_LE(0, dev);
			EXPECT_EQ(0, rg_destroy(dev, "rm.keep"));
			close(dev);
		}
		op_desc("cycle %d: unload while they let go", cycle);
		__atomic_store_n(&c->phase, 1, __ATOMIC_SEQ_CST);
		for (tries = 0, rc = -EBUSY; tries < 20000 && rc; tries++) {
			int exited = 0;

			if (tries)
				usleep(500);

			rc = cxlt_rmmod();
			live = __atomic_load_n(&c->live, __ATOMIC_SEQ_CST);
			if (!rc) {
				CHECK(live == 0, "the module unloaded while %d of its objects existed",
				      live);
				break;
			}
			CHECK(unload_refused(rc), "rmmod: %s", strerror(-rc));
			for (w = 0; w < 3; w++) {
				if (pid[w] && waitpid(pid[w], &status, WNOHANG) == pid[w]) {
					EXPECT_EQ(0, status) TH_LOG("churn worker %d", w);
					pid[w] = 0;
				}
				exited += !pid[w];
			}
			if (exited == 3)
				break;		/* all gone: the next one must work */
		}
		for (w = 0; w < 3; w++)
			if (pid[w]) {
				EXPECT_EQ(pid[w], waitpid(pid[w], &status, 0));
				EXPECT_EQ(0, status);
			}
		if (rc) {
			reload(_metadata);
		} else {
			G->reloaded = true;
			rc = cxlt_insmod(G->modparams);
			EXPECT_EQ(0, rc) TH_LOG("insmod: %s", strerror(-rc));
		}
		for (i = 0; i < 100 && access(DEV, F_OK); i++)
			usleep(10000);
		dev = dev_open();
		ASSERT_LE(0, dev);
		EXPECT_EQ(0, rg_list(dev));
		close(dev);
	}
	EXPECT_EQ(0, module_refcnt());
	TH_LOG("2 churn cycles and 3 unloads in %.1f s", now() - t0);
	ASSERT_EQ(0, nfail);
}

/* ================================================================================= */
/* mmap_fuzz: mappings of region files, with a shadow copy of every page written       */
/* ================================================================================= */

#define MM_INST		8
#define MM_FILES	12
#define MM_SEGS		96
#define MM_SEGS_NEW	56	/* no new mapping beyond this many segments */
#define MM_MAXPG	256		/* regions of up to 1 MiB */
#define MM_BUDGET	640		/* resident pages at once: 2.5 MiB */
#define ARENA_PAGES	(64 * MB / PAGE)

enum { RES_NO, RES_YES, RES_MAYBE };

struct minst {
	bool used;
	bool live;
	uint32_t id;
	char name[CXLTIER_NAME_MAX];
	unsigned long npages;
	uint32_t policy;
	uint64_t nodes0;
	uint64_t tag[MM_MAXPG];
	uint8_t res[MM_MAXPG];
};

struct mfile {
	bool used;
	int fd;			/* -1: closed, still held by mappings */
	int inst;
	bool wr;
	bool wonly;
};

struct mseg {
	bool used;
	char *addr;
	unsigned long npages;
	unsigned long pgoff;
	int file;
	int prot;
	bool dontfork;
	bool arena;
};

static struct {
	int dev;
	int memfd;		/* /proc/self/mem */
	char *arena;
	struct minst in[MM_INST];
	struct mfile fl[MM_FILES];
	struct mseg sg[MM_SEGS];
	uint64_t mem, fast, tiers;
	int nnodes;
	bool vmas_unknown;	/* the model lost track of a split: skip nr_maps's bound */
	unsigned long maps, touches, sigbus, sigsegv, forks, children;
} M;

static struct minst *seg_inst(const struct mseg *g)
{
	return &M.in[M.fl[g->file].inst];
}

static int segs_of_file(int f)
{
	int i, n = 0;

	for (i = 0; i < MM_SEGS; i++)
		n += M.sg[i].used && M.sg[i].file == f;
	return n;
}

static int files_of_inst(int k)
{
	int i, n = 0;

	for (i = 0; i < MM_FILES; i++)
		n += M.fl[i].used && M.fl[i].inst == k;
	return n;
}

static int segs_of_inst(int k)
{
	int i, n = 0;

	for (i = 0; i < MM_SEGS; i++)
		n += M.sg[i].used && M.fl[M.sg[i].file].inst == k;
	return n;
}

static void inst_put(int k)
{
	if (M.in[k].used && !M.in[k].live && !files_of_inst(k))
		memset(&M.in[k], 0, sizeof(M.in[k]));
}

static void file_put(int f)
{
	int k = M.fl[f].inst;

	if (M.fl[f].used && M.fl[f].fd < 0 && !segs_of_file(f)) {
		memset(&M.fl[f], 0, sizeof(M.fl[f]));
		inst_put(k);
	}
}

static unsigned long resident_total(void)
{
	unsigned long n = 0, p;
	int k;

	for (k = 0; k < MM_INST; k++)
		for (p = 0; M.in[k].used && p < M.in[k].npages; p++)
			n += M.in[k].res[p] != RES_NO;
	return n;
}

static bool inst_placeable(const struct minst *in)
{
	uint64_t nodes[CXLTIER_NODE_WORDS] = { in->nodes0 };

	return placeable(in->policy, nodes, M.mem, M.fast, M.tiers);
}

/* Cover [p, p + n pages) of the arena with an inaccessible placeholder again. */
static void arena_reserve(char *p, unsigned long n)
{
	if (mmap(p, n * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		 -1, 0) == MAP_FAILED)
		fail("cannot reserve the arena again: %s", strerror(errno));
}

static bool in_arena(const char *p)
{
	return p >= M.arena && p < M.arena + ARENA_PAGES * PAGE;
}

/* Does [p, p + n pages) overlap any region mapping? */
static bool range_busy(const char *p, unsigned long n)
{
	int i;

	for (i = 0; i < MM_SEGS; i++)
		if (M.sg[i].used && p < M.sg[i].addr + M.sg[i].npages * PAGE &&
		    M.sg[i].addr < p + n * PAGE)
			return true;
	return false;
}

/* A free stretch of the arena of @n pages, or NULL. */
static char *arena_free(unsigned long n)
{
	int tries;
	char *p;

	for (tries = 0; tries < 32; tries++) {
		p = M.arena + rn(ARENA_PAGES - n) * PAGE;
		if (!range_busy(p, n))
			return p;
	}
	return NULL;
}

static int seg_new(void)
{
	int i;

	for (i = 0; i < MM_SEGS; i++)
		if (!M.sg[i].used)
			return i;
	return -1;
}

/* Split segment @i at page @k (0 < k < npages); returns the upper part's index. */
static int seg_split(int i, unsigned long k)
{
	int j = seg_new();

	if (j < 0)
		return -1;
	M.sg[j] = M.sg[i];
	M.sg[j].addr += k * PAGE;
	M.sg[j].pgoff += k;
	M.sg[j].npages -= k;
	M.sg[i].npages = k;
	return j;
}

/* Isolate pages [a, a + n) of segment @i as their own segment; returns it. */
static int seg_isolate(int i, unsigned long a, unsigned long n)
{
	int j = i;

	if (a) {
		j = seg_split(i, a);
		if (j < 0)
			return -1;
	}
	if (n < M.sg[j].npages && seg_split(j, n) < 0)
		return -1;
	return j;
}

/* The model forgets a segment (the kernel unmapped it). */
static void seg_drop(int i, bool reserve)
{
	int f = M.sg[i].file;

	if (reserve && M.sg[i].arena)
		arena_reserve(M.sg[i].addr, M.sg[i].npages);
	M.sg[i].used = false;
	file_put(f);
}

static int random_seg(void)
{
	int i, n = 0, k;

	for (i = 0; i < MM_SEGS; i++)
		n += M.sg[i].used;
	if (!n)
		return -1;
	k = rn(n);
	for (i = 0; i < MM_SEGS; i++)
		if (M.sg[i].used && !k--)
			return i;
	return -1;
}

static int random_file(bool open_only)
{
	int i, n = 0, k;

	for (i = 0; i < MM_FILES; i++)
		n += M.fl[i].used && (!open_only || M.fl[i].fd >= 0);
	if (!n)
		return -1;
	k = rn(n);
	for (i = 0; i < MM_FILES; i++)
		if (M.fl[i].used && (!open_only || M.fl[i].fd >= 0) && !k--)
			return i;
	return -1;
}

static int random_inst(bool live_only)
{
	int i, n = 0, k;

	for (i = 0; i < MM_INST; i++)
		n += M.in[i].used && (!live_only || M.in[i].live);
	if (!n)
		return -1;
	k = rn(n);
	for (i = 0; i < MM_INST; i++)
		if (M.in[i].used && (!live_only || M.in[i].live) && !k--)
			return i;
	return -1;
}

static int ninst(void)
{
	int i, n = 0;

	for (i = 0; i < MM_INST; i++)
		n += M.in[i].used;
	return n;
}

static bool name_live(const char *name)
{
	int i;

	for (i = 0; i < MM_INST; i++)
		if (M.in[i].live && !strcmp(M.in[i].name, name))
			return true;
	return false;
}

/* A node mask for @policy: any, random, or (one in three) one no page can go to. */
static uint64_t mm_nodes(uint32_t policy)
{
	uint64_t all = (1ULL << M.nnodes) - 1;

	if (!one_in(4))
		return 0;
	if (!one_in(3))
		return rnd() & all;
	switch (policy) {
	case CXLTIER_POLICY_PINNED_FAST:
		return (all & ~M.fast) ?: all;		/* no DRAM node */
	case CXLTIER_POLICY_FAST_FIRST:
		return (all & ~M.fast & ~M.tiers) ?: all;
	default:
		return (all & ~M.tiers) ?: all;		/* no tier node */
	}
}

static void mm_create(void)
{
	static const uint32_t pols[] = { CXLTIER_POLICY_FAST_FIRST, CXLTIER_POLICY_FAST_FIRST,
		CXLTIER_POLICY_PINNED_FAST, CXLTIER_POLICY_SLOW_ONLY, CXLTIER_POLICY_INTERLEAVE };
	struct minst *in;
	int k, rc;

	for (k = 0; k < MM_INST && M.in[k].used; k++)
		;
	if (k == MM_INST)
		return;
	in = &M.in[k];
	memset(in, 0, sizeof(*in));
	do
		snprintf(in->name, sizeof(in->name), "fm.%d", (int)rn(MM_INST + 2));
	while (name_live(in->name));
	in->npages = one_in(4) ? 1 + rn(MM_MAXPG) : 1 + rn(32);
	in->policy = pols[rn(5)];
	in->nodes0 = mm_nodes(in->policy);
	op_desc("create %s: %lu pages, policy %u, nodes %#llx", in->name, in->npages,
		in->policy, (unsigned long long)in->nodes0);
	rc = rg_create(M.dev, in->name, in->npages * PAGE, in->policy, one_in(2) ? 0644 : -1,
		       &in->id);
	if (!rc && in->nodes0)
		rc = rg_set_policy(M.dev, in->name, in->policy, in->nodes0);
	CHECK(!rc, "create %s: %s", in->name, strerror(-rc));
	if (rc) {
		rg_destroy(M.dev, in->name);
		memset(in, 0, sizeof(*in));
		return;
	}
	in->used = in->live = true;
}

static void mm_open(void)
{
	int k = random_inst(false), f, fd;
	uint32_t flags;
	uint64_t len;

	if (k < 0)
		return;
	for (f = 0; f < MM_FILES && M.fl[f].used; f++)
		;
	if (f == MM_FILES)
		return;
	flags = rn(10) < 5 ? CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE :
		!one_in(10) ? CXLTIER_OPEN_READ : CXLTIER_OPEN_WRITE;
	op_desc("open %s (#%u%s) flags %#x", M.in[k].name, M.in[k].id,
		M.in[k].live ? "" : ", destroyed", flags);
	if (one_in(2))
		fd = rg_open(M.dev, M.in[k].name, 0, flags, &len);
	else
		fd = rg_open(M.dev, NULL, M.in[k].id, flags, &len);
	if (!M.in[k].live) {
		/*
		 * Its name and id are free (another of ours may have taken the name);
		 * a write-only open is refused before the lookup.
		 */
		CHECK(fd == -ENOENT || (fd >= 0 && name_live(M.in[k].name)) ||
		      (fd == -EINVAL && flags == CXLTIER_OPEN_WRITE),
		      "open of a destroyed region: %d", fd);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (flags == CXLTIER_OPEN_WRITE && fd == -EINVAL)
		return;		/* mapping needs read access: refused at open */
	CHECK(fd >= 0 && len == M.in[k].npages * PAGE, "open: %d, length %llu", fd,
	      (unsigned long long)len);
	if (fd < 0)
		return;
	M.fl[f].used = true;
	M.fl[f].fd = fd;
	M.fl[f].inst = k;
	M.fl[f].wr = flags & CXLTIER_OPEN_WRITE;
	M.fl[f].wonly = !(flags & CXLTIER_OPEN_READ);
}

static void mm_close(void)
{
	int f = random_file(true);

	if (f < 0)
		return;
	op_desc("close fd %d of %s (#%u), %d mappings of it stay", M.fl[f].fd,
		M.in[M.fl[f].inst].name, M.in[M.fl[f].inst].id, segs_of_file(f));
	CHECK(!close(M.fl[f].fd), "close: %s", strerror(errno));
	M.fl[f].fd = -1;
	file_put(f);
}

static void mm_destroy(void)
{
	int k = random_inst(true), rc;

	if (k < 0)
		return;
	op_desc("destroy %s (#%u), %d files and %d mappings stay", M.in[k].name, M.in[k].id,
		files_of_inst(k), segs_of_inst(k));
	rc = one_in(2) ? rg_destroy(M.dev, M.in[k].name) : rg_destroy_id(M.dev, M.in[k].id);
	CHECK(!rc, "destroy: %s", strerror(-rc));
	M.in[k].live = false;
	inst_put(k);
}

static void mm_set_policy(void)
{
	int k = random_inst(true), rc;
	uint32_t pol = rn(CXLTIER_POLICY_MAX + 1);
	uint64_t nodes = mm_nodes(pol);

	if (k < 0)
		return;
	op_desc("set-policy %s: policy %u nodes %#llx", M.in[k].name, pol,
		(unsigned long long)nodes);
	rc = rg_set_policy(M.dev, M.in[k].name, pol, nodes);
	CHECK(!rc, "set-policy: %s", strerror(-rc));
	M.in[k].policy = pol;
	M.in[k].nodes0 = nodes;
}

static int rand_prot(void)
{
	switch (rn(20)) {
	case 0: return PROT_NONE;
	case 1: return PROT_WRITE;
	case 2: return PROT_READ | PROT_EXEC;
	case 3: return PROT_READ | PROT_WRITE | PROT_EXEC;
	default: return one_in(2) ? PROT_READ : PROT_READ | PROT_WRITE;
	}
}

/* Pages a populating call may have made resident: those it could place. */
static void mark_populated(struct minst *in, unsigned long pgoff, unsigned long n)
{
	unsigned long p;

	for (p = pgoff; p < pgoff + n && p < in->npages; p++)
		if (in->res[p] == RES_NO)
			in->res[p] = RES_MAYBE;
}

static void mm_mmap(void)
{
	int f = random_file(true), g, prot = rand_prot(), flags = MAP_SHARED, e, fd;
	unsigned long np, pgoff, n, off;
	bool want_fail = false, populate = false, hole = false;
	struct eset ok = {};
	struct minst *in;
	char *hint = NULL, *p, a[128];
	const char *kind = "";

	for (g = 0, e = 0; g < MM_SEGS; g++)
		e += M.sg[g].used;
	if (f < 0 || e >= MM_SEGS_NEW || (g = seg_new()) < 0)
		return;
	in = &M.in[M.fl[f].inst];
	fd = M.fl[f].fd;
	np = in->npages;
	pgoff = rn(np);
	n = 1 + rn(np - pgoff);
	off = pgoff * PAGE;
	switch (rn(24)) {
	case 0:		/* beyond the end */
		if (one_in(2))
			pgoff = np + rn(4);
		else
			n = np - pgoff + 1 + rn(4);
		off = pgoff * PAGE;
		es_add(&ok, ENXIO);
		kind = " beyond the end";
		break;
	case 1:
		off += 1 + rn(PAGE - 1);
		es_add(&ok, EINVAL);
		kind = " unaligned offset";
		break;
	case 2:
		n = 0;
		es_add(&ok, EINVAL);
		kind = " length 0";
		break;
	case 3:		/* a length no address space has */
		n = (1UL << 47) / PAGE;
		es_add(&ok, ENOMEM);
		es_add(&ok, ENXIO);
		es_add(&ok, EINVAL);
		kind = " huge";
		break;
	case 4: case 5:
		flags = MAP_PRIVATE;
		want_fail = true;
		kind = " MAP_PRIVATE";
		break;
	case 6:
		flags = MAP_SHARED_VALIDATE | MAP_SYNC;
		es_add(&ok, EOPNOTSUPP);
		kind = " MAP_SYNC";
		break;
	case 7:
		flags = MAP_SHARED_VALIDATE;
		break;
	case 8:
		if (n <= 16) {
			flags |= MAP_POPULATE;
			populate = true;
		}
		break;
	case 9:
		if (n <= 16) {
			flags |= MAP_LOCKED;
			populate = true;
		}
		break;
	case 10:
		flags |= MAP_NORESERVE;
		break;
	case 11:	/* /dev/cxltier itself cannot be mapped */
		fd = M.dev;
		es_add(&ok, ENODEV);
		kind = " of /dev/cxltier";
		break;
	}
	if (populate && resident_total() + n > MM_BUDGET)
		flags &= ~(MAP_POPULATE | MAP_LOCKED), populate = false;
	if (fd != M.dev) {
		if (M.fl[f].wonly)
			es_add(&ok, EACCES);
		if ((prot & PROT_WRITE) && !M.fl[f].wr)
			es_add(&ok, EACCES);
	}
	switch (rn(8)) {
	case 0: case 1:
		break;
	case 2:		/* on top of another mapping, without replacing it */
		if ((e = random_seg()) >= 0 && n && n < ARENA_PAGES) {
			hint = M.sg[e].addr;
			flags |= MAP_FIXED_NOREPLACE;
			es_add(&ok, EEXIST);
			kind = " over a mapping (NOREPLACE)";
			break;
		}
		/* fall through */
	default:
		if (n && n < ARENA_PAGES && (hint = arena_free(n))) {
			hole = true;	/* a failure leaves the placeholder or a hole */
			if (one_in(4)) {
				munmap(hint, n * PAGE);
				flags |= MAP_FIXED_NOREPLACE;
			} else {
				flags |= MAP_FIXED;
			}
		}
		break;
	}
	/* MAP_SHARED_VALIDATE knows only the legacy flags and those the file offers. */
	if ((flags & MAP_TYPE) == MAP_SHARED_VALIDATE && (flags & MAP_FIXED_NOREPLACE))
		es_add(&ok, EOPNOTSUPP);
	op_desc("mmap %s (#%u) fd %d off %#lx len %lu pages prot %d flags %#x%s%s",
		in->name, in->id, fd, off, n, prot, flags, hint ? " in arena" : "", kind);
	M.maps++;
	p = mmap(hint, n * PAGE, prot, flags, fd, off);
	e = p == MAP_FAILED ? errno : 0;
	if (hole && e)
		arena_reserve(hint, n);
	if (want_fail) {
		CHECK(e, "MAP_PRIVATE mapping of a region succeeded");
		if (!e) {
			munmap(p, n * PAGE);
			if (hole)
				arena_reserve(hint, n);
		}
		return;
	}
	/* PROT_EXEC: EPERM when the module's pseudo filesystem is noexec */
	if (e == EPERM && (prot & PROT_EXEC) && fd != M.dev)
		return;
	CHECK(es_empty(&ok) ? !e : es_has(&ok, e),
	      "mmap: %s, expected {%s}", e ? strerrorname_np(e) : "ok",
	      es_empty(&ok) ? "ok" : es_str(&ok, a, sizeof(a)));
	if (e)
		return;
	if (!es_empty(&ok)) {	/* (reported) */
		munmap(p, n * PAGE);
		if (in_arena(p))
			arena_reserve(p, n);
		return;
	}
	M.sg[g] = (struct mseg){ .used = true, .addr = p, .npages = n, .pgoff = pgoff,
				 .file = f, .prot = prot, .arena = in_arena(p) };
	if (populate)
		mark_populated(in, pgoff, n);
}

static int segs_used(void)
{
	int i, n = 0;

	for (i = 0; i < MM_SEGS; i++)
		n += M.sg[i].used;
	return n;
}

/* A sub-range of segment @i: [*a, *a + *n) pages (all of it when splits run short). */
static void seg_range(int i, unsigned long *a, unsigned long *n)
{
	unsigned long np = M.sg[i].npages;

	if (one_in(2) || segs_used() > MM_SEGS - 4) {
		*a = 0;
		*n = np;
		return;
	}
	*a = rn(np);
	*n = 1 + rn(np - *a);
}

static void mm_munmap(void)
{
	int i = random_seg(), j;
	unsigned long a, n;
	char *p;

	if (i < 0)
		return;
	seg_range(i, &a, &n);
	p = M.sg[i].addr + a * PAGE;
	if (one_in(16)) {
		op_desc("munmap unaligned %p", p + 1);
		CHECK(munmap(p + 1, PAGE) && errno == EINVAL, "unaligned munmap: %s",
		      strerror(errno));
		return;
	}
	op_desc("munmap pages %lu+%lu of a mapping of %s (%lu pages)", a, n,
		seg_inst(&M.sg[i])->name, M.sg[i].npages);
	CHECK(!munmap(p, n * PAGE), "munmap: %s", strerror(errno));
	j = seg_isolate(i, a, n);
	if (j < 0) {
		fail("too many segments");
		return;
	}
	seg_drop(j, true);
}

static void mm_mprotect(void)
{
	int i = random_seg(), j, prot = rand_prot(), e;
	bool want_ok;
	unsigned long a, n;

	if (i < 0)
		return;
	seg_range(i, &a, &n);
	want_ok = !((prot & PROT_WRITE) && !M.fl[M.sg[i].file].wr);
	op_desc("mprotect pages %lu+%lu of a mapping of %s to %d", a, n,
		seg_inst(&M.sg[i])->name, prot);
	e = mprotect(M.sg[i].addr + a * PAGE, n * PAGE, prot) ? errno : 0;
	if (e == EACCES && (prot & PROT_EXEC))
		return;		/* no VM_MAYEXEC on a noexec filesystem */
	CHECK(want_ok ? !e : e == EACCES, "mprotect to %d: %s", prot, e ? strerror(e) : "ok");
	if (e)
		return;
	j = seg_isolate(i, a, n);
	if (j < 0) {
		fail("too many segments");
		return;
	}
	M.sg[j].prot = prot;
}

static void mm_mremap(void)
{
	int i = random_seg(), j, e;
	unsigned long n, newn;
	char *p, *to = NULL;

	if (i < 0 || segs_used() > MM_SEGS - 4)
		return;
	n = M.sg[i].npages;
	p = M.sg[i].addr;
	switch (rn(5)) {
	case 0:		/* shrink in place */
		if (n < 2)
			return;
		newn = 1 + rn(n - 1);
		op_desc("mremap shrink %s mapping %lu -> %lu pages", seg_inst(&M.sg[i])->name, n,
			newn);
		CHECK(mremap(p, n * PAGE, newn * PAGE, 0) == p, "mremap shrink: %s",
		      strerror(errno));
		j = seg_split(i, newn);
		if (j < 0)
			fail("too many segments");
		else
			seg_drop(j, true);
		return;
	case 1:		/* grow: VM_DONTEXPAND */
		op_desc("mremap grow %s mapping %lu -> %lu pages", seg_inst(&M.sg[i])->name, n,
			n + 1);
		CHECK(mremap(p, n * PAGE, (n + 1) * PAGE, MREMAP_MAYMOVE) == MAP_FAILED,
		      "a region mapping grew");
		return;
	case 2:		/* no unmap: refused (VM_DONTEXPAND) */
		to = arena_free(n);
		if (!to)
			return;
		op_desc("mremap DONTUNMAP %s mapping of %lu pages", seg_inst(&M.sg[i])->name, n);
		to = mremap(p, n * PAGE, n * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			    to);
		e = to == MAP_FAILED ? errno : 0;
		CHECK(e, "mremap DONTUNMAP of a region mapping succeeded");
		if (!e) {
			munmap(to, n * PAGE);
			arena_reserve(to, n);
		}
		return;
	default:	/* move, maybe shrinking */
		newn = one_in(3) ? 1 + rn(n) : n;
		to = arena_free(newn);
		if (!to || (to < p + n * PAGE && p < to + newn * PAGE))
			return;
		op_desc("mremap move %s mapping of %lu pages to %lu pages at %p",
			seg_inst(&M.sg[i])->name, n, newn, to);
		CHECK(mremap(p, n * PAGE, newn * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, to) == to,
		      "mremap move: %s", strerror(errno));
		if (nfail)
			return;
		if (M.sg[i].arena)
			arena_reserve(p, n);
		if (newn < n) {
			j = seg_split(i, newn);
			if (j < 0) {
				fail("too many segments");
				return;
			}
			seg_drop(j, false);
		}
		M.sg[i].addr = to;
		M.sg[i].arena = true;
		return;
	}
}

static void mm_madvise(void)
{
	static const struct { int advice; const char *name; } adv[] = {
		{ MADV_DONTNEED, "DONTNEED" }, { MADV_DONTNEED, "DONTNEED" },
		{ MADV_COLD, "COLD" }, { MADV_PAGEOUT, "PAGEOUT" },
		{ MADV_WILLNEED, "WILLNEED" }, { MADV_NORMAL, "NORMAL" },
		{ MADV_RANDOM, "RANDOM" }, { MADV_SEQUENTIAL, "SEQUENTIAL" },
		{ MADV_DONTDUMP, "DONTDUMP" }, { MADV_DODUMP, "DODUMP" },
		{ MADV_HUGEPAGE, "HUGEPAGE" }, { MADV_NOHUGEPAGE, "NOHUGEPAGE" },
		{ MADV_MERGEABLE, "MERGEABLE" }, { MADV_UNMERGEABLE, "UNMERGEABLE" },
		{ MADV_FREE, "FREE" }, { MADV_REMOVE, "REMOVE" },
		{ MADV_WIPEONFORK, "WIPEONFORK" }, { MADV_KEEPONFORK, "KEEPONFORK" },
		{ MADV_COLLAPSE, "COLLAPSE" }, { MADV_POPULATE_READ, "POPULATE_READ" },
		{ MADV_POPULATE_WRITE, "POPULATE_WRITE" }, { MADV_DONTFORK, "DONTFORK" },
		{ MADV_DOFORK, "DOFORK" }, { 77, "77 (unknown)" },
	};
	int i = random_seg(), j, k = rn(sizeof(adv) / sizeof(adv[0])), e;
	unsigned long a, n;
	struct minst *in;

	if (i < 0)
		return;
	seg_range(i, &a, &n);
	in = seg_inst(&M.sg[i]);
	if ((adv[k].advice == MADV_POPULATE_READ || adv[k].advice == MADV_POPULATE_WRITE) &&
	    (n > 16 || resident_total() + n > MM_BUDGET))
		n = 1;
	op_desc("madvise %s pages %lu+%lu of a mapping of %s", adv[k].name, a, n, in->name);
	e = madvise(M.sg[i].addr + a * PAGE, n * PAGE, adv[k].advice) ? errno : 0;
	CHECK(!e || e == EINVAL || e == EFAULT || e == ENOMEM || e == EPERM || e == EACCES ||
	      e == EOPNOTSUPP || e == ENODEV || e == EAGAIN || e == EBUSY,
	      "madvise %s: errno %d", adv[k].name, e);
	if (e)
		goto populate;
	/* Advice that changes the VMA's flags splits it at the range's ends. */
	j = seg_isolate(i, a, n);
	if (j < 0) {
		M.vmas_unknown = true;
		goto populate;
	}
	if (adv[k].advice == MADV_DONTFORK || adv[k].advice == MADV_DOFORK)
		M.sg[j].dontfork = adv[k].advice == MADV_DONTFORK;
populate:
	if (adv[k].advice == MADV_POPULATE_READ || adv[k].advice == MADV_POPULATE_WRITE)
		mark_populated(in, M.sg[i].pgoff + a, n);
}

static void mm_mlock(void)
{
	int i = random_seg(), e;
	unsigned long a, n;
	bool lock = one_in(2);

	if (i < 0)
		return;
	seg_range(i, &a, &n);
	if (lock && (n > 16 || resident_total() + n > MM_BUDGET))
		return;
	op_desc("%s pages %lu+%lu of a mapping of %s", lock ? "mlock" : "munlock", a, n,
		seg_inst(&M.sg[i])->name);
	e = (lock ? mlock : munlock)(M.sg[i].addr + a * PAGE, n * PAGE) ? errno : 0;
	CHECK(!e || e == ENOMEM || e == EAGAIN || e == EFAULT, "%s: %s",
	      lock ? "mlock" : "munlock", strerror(e));
	if (lock)
		mark_populated(seg_inst(&M.sg[i]), M.sg[i].pgoff + a, n);
	if (e && !lock)
		return;
	/*
	 * VM_LOCKED is never set on these VM_SPECIAL mappings, but the call may split
	 * the VMA at the range's ends all the same.
	 */
	if (seg_isolate(i, a, n) < 0)
		M.vmas_unknown = true;
}

static void mm_msync(void)
{
	static const int fl[] = { MS_SYNC, MS_ASYNC, MS_INVALIDATE, MS_SYNC | MS_INVALIDATE,
				  MS_SYNC | MS_ASYNC, 0x40 };
	int i = random_seg(), k = rn(6), e;
	unsigned long a, n;

	if (i < 0)
		return;
	seg_range(i, &a, &n);
	op_desc("msync %#x pages %lu+%lu of a mapping of %s", fl[k], a, n,
		seg_inst(&M.sg[i])->name);
	e = msync(M.sg[i].addr + a * PAGE, n * PAGE, fl[k]) ? errno : 0;
	CHECK(k >= 4 ? e == EINVAL : !e || (e == EBUSY && (fl[k] & MS_INVALIDATE)),
	      "msync %#x: %s", fl[k], e ? strerror(e) : "ok");
}

/*
 * What a touch of page @p of segment @i must do: 0 (works), SIGSEGV, or SIGBUS;
 * -1 when either is right (a page a populating call may or may not have placed).
 */
static int touch_expect(const struct mseg *g, unsigned long p, bool write)
{
	const struct minst *in = seg_inst(g);
	uint8_t res = in->res[g->pgoff + p];

	if (write ? !(g->prot & PROT_WRITE) : g->prot == PROT_NONE)
		return SIGSEGV;
	if (res == RES_YES || inst_placeable(in))
		return 0;
	return res == RES_MAYBE ? -1 : SIGBUS;
}

static void mm_touch(void)
{
	int i = random_seg(), want, sig;
	unsigned long p, pg;
	unsigned int bad;
	struct minst *in;
	bool write = one_in(2);
	uint64_t tag;

	if (i < 0)
		return;
	p = rn(M.sg[i].npages);
	in = seg_inst(&M.sg[i]);
	pg = M.sg[i].pgoff + p;
	if (in->res[pg] == RES_NO && resident_total() >= MM_BUDGET)
		return;
	want = touch_expect(&M.sg[i], p, write);
	tag = write ? rnd() | 1 : in->tag[pg];
	op_desc("%s page %lu of %s (#%u, policy %u, nodes %#llx, %s) at %p prot %d",
		write ? "write" : "read", pg, in->name, in->id, in->policy,
		(unsigned long long)in->nodes0,
		in->res[pg] == RES_YES ? "resident" : in->res[pg] ? "maybe resident" : "not resident",
		M.sg[i].addr + p * PAGE, M.sg[i].prot);
	M.touches++;
	sig = page_io(M.sg[i].addr + p * PAGE, write, tag, write ? NULL : &bad);
	M.sigbus += sig == SIGBUS;
	M.sigsegv += sig == SIGSEGV;
	CHECK(want < 0 ? sig != SIGSEGV : sig == want, "got signal %d (code %d at %p), expected %d",
	      sig, probe_code, probe_addr, want);
	if (sig == SIGBUS)
		CHECK(probe_code == BUS_ADRERR && probe_addr == M.sg[i].addr + p * PAGE,
		      "SIGBUS code %d at %p", probe_code, probe_addr);
	if (sig)
		return;
	if (!write)
		CHECK(!bad, "page %lu of %s (#%u): %u of 512 words differ from what was written",
		      pg, in->name, in->id, bad);
	in->res[pg] = RES_YES;
	in->tag[pg] = tag;
	if (one_in(8)) {	/* where did it go?  DRAM or a tier: nowhere else */
		void *addr = M.sg[i].addr + p * PAGE;
		int node = -1;

		if (!move_pages(0, 1, &addr, NULL, &node, 0) && node >= 0)
			CHECK(node < MAX_NODES && (((M.fast | M.tiers) >> node) & 1),
			      "page %lu of %s is on node %d, neither DRAM nor a tier", pg,
			      in->name, node);
	}
}

/* Read or write a page through /proc/self/mem (get_user_pages with FOLL_FORCE). */
static void mm_procmem(void)
{
	static uint64_t buf[PAGE / 8];
	int i = random_seg(), k;
	unsigned long p, pg, bad = 0;
	bool write = one_in(3), can;
	struct minst *in;
	ssize_t r;
	uint64_t tag;

	if (i < 0 || M.memfd < 0)
		return;
	p = rn(M.sg[i].npages);
	in = seg_inst(&M.sg[i]);
	pg = M.sg[i].pgoff + p;
	if (in->res[pg] == RES_NO && resident_total() >= MM_BUDGET)
		return;
	can = in->res[pg] == RES_YES || inst_placeable(in);
	tag = write ? rnd() | 1 : in->tag[pg];
	op_desc("%s page %lu of %s via /proc/self/mem (prot %d, %s)", write ? "pwrite" : "pread",
		pg, in->name, M.sg[i].prot, can ? "placeable" : "not placeable");
	if (write) {
		for (k = 0; k < (int)(PAGE / 8); k++)
			buf[k] = pat(tag, k);
		r = pwrite(M.memfd, buf, PAGE, (uintptr_t)(M.sg[i].addr + p * PAGE));
	} else {
		r = pread(M.memfd, buf, PAGE, (uintptr_t)(M.sg[i].addr + p * PAGE));
	}
	if (write && !(M.sg[i].prot & PROT_WRITE)) {
		/* FOLL_FORCE does not write to a shared mapping that is not writable */
		CHECK(r < 0, "pwrite to a read-only shared mapping via /proc/self/mem worked");
		return;
	}
	if (r != (ssize_t)PAGE) {
		/* No page to be had, or (reading prot none or write-only) not forced. */
		CHECK(!can || (!write && !(M.sg[i].prot & PROT_READ)) ||
		      (in->res[pg] == RES_MAYBE),
		      "/proc/self/mem %s: %zd (%s)", write ? "write" : "read", r,
		      r < 0 ? strerror(errno) : "short");
		return;
	}
	CHECK(can || in->res[pg] == RES_MAYBE, "/proc/self/mem placed a page it could not place");
	if (!write) {
		for (k = 0; k < (int)(PAGE / 8); k++)
			bad += buf[k] != pat(tag, k);
		CHECK(!bad, "page %lu of %s via /proc/self/mem: %lu words differ", pg, in->name,
		      bad);
	}
	in->res[pg] = RES_YES;
	in->tag[pg] = tag;
}

/* Check every resident page of instance @k through @p, a mapping of all of it. */
static unsigned long verify_inst(const struct minst *in, const char *p)
{
	unsigned long pg, bad = 0;
	unsigned int b;

	for (pg = 0; pg < in->npages; pg++) {
		if (in->res[pg] != RES_YES)
			continue;
		if (page_io((char *)p + pg * PAGE, false, in->tag[pg], &b))
			return ~0UL;
		bad += b;
	}
	return bad;
}

/* Another mapping of the same region, made now, sees the same bytes. */
static void mm_verify_mapping(void)
{
	int f = random_file(true);
	struct minst *in;
	unsigned long bad;
	char *p;

	if (f < 0 || M.fl[f].wonly)
		return;
	in = &M.in[M.fl[f].inst];
	op_desc("verify %s (#%u) through a new mapping", in->name, in->id);
	p = mmap(NULL, in->npages * PAGE, PROT_READ, MAP_SHARED, M.fl[f].fd, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p == MAP_FAILED)
		return;
	bad = verify_inst(in, p);
	CHECK(!bad, "%s through a new mapping: %lu words differ", in->name, bad);
	munmap(p, in->npages * PAGE);
}

/* Another process opens the region by name and sees the same bytes. */
static void mm_verify_process(void)
{
	int k = random_inst(true), status, fd;
	struct minst *in;
	pid_t pid;
	char *p;

	if (k < 0)
		return;
	in = &M.in[k];
	op_desc("verify %s (#%u) in another process that opens it by name", in->name, in->id);
	fflush(stderr);
	M.children++;
	pid = fork();
	if (!pid) {
		int dev = dev_open();

		fd = rg_open(dev, in->name, 0, CXLTIER_OPEN_READ, NULL);
		if (fd < 0)
			_exit(2);
		p = mmap(NULL, in->npages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			_exit(3);
		_exit(verify_inst(in, p) ? 4 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "the other process: status %#x", status);
}

struct fork_step {
	int seg;
	unsigned long page;
	bool write;
	int want;
	uint64_t tag;
};

/* A forked child reads and writes through the mappings it inherited. */
static void mm_fork(void)
{
	struct fork_step st[6];
	int n = 1 + rn(6), s, status, destroy = -1;
	unsigned int bad;
	pid_t pid;

	for (s = 0; s < n; s++) {
		int i = random_seg();
		struct minst *in;

		if (i < 0)
			return;
		st[s].seg = i;
		st[s].page = rn(M.sg[i].npages);
		in = seg_inst(&M.sg[i]);
		if (in->res[M.sg[i].pgoff + st[s].page] == RES_NO &&
		    resident_total() + n >= MM_BUDGET)
			return;
		st[s].write = one_in(2);
		st[s].want = M.sg[i].dontfork ? SIGSEGV : touch_expect(&M.sg[i], st[s].page,
								      st[s].write);
		if (st[s].want < 0)
			return;		/* an outcome we cannot tell: not in a child */
		st[s].tag = st[s].write ? rnd() | 1 : in->tag[M.sg[i].pgoff + st[s].page];
	}
	for (s = 0; s < n; s++) {
		int t;

		for (t = 0; t < s; t++)
			if (seg_inst(&M.sg[st[t].seg]) == seg_inst(&M.sg[st[s].seg]) &&
			    M.sg[st[t].seg].pgoff + st[t].page == M.sg[st[s].seg].pgoff + st[s].page)
				return;		/* the same page twice: skip this fork */
	}
	if (one_in(4))
		destroy = random_inst(true);
	op_desc("fork: %d steps in the child%s%s", n, destroy >= 0 ? ", which destroys " : "",
		destroy >= 0 ? M.in[destroy].name : "");
	fflush(stderr);
	M.forks++;
	pid = fork();
	if (!pid) {
		for (s = 0; s < n; s++) {
			struct mseg *g = &M.sg[st[s].seg];
			int sig = page_io(g->addr + st[s].page * PAGE, st[s].write, st[s].tag, &bad);

			if (sig != st[s].want)
				_exit(10 + s);
			if (!sig && !st[s].write && bad)
				_exit(20 + s);
		}
		if (destroy >= 0 && rg_destroy(M.dev, M.in[destroy].name))
			_exit(30);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "forked child: status %#x", status);
	if (nfail)
		return;
	/* What the child did, the parent sees. */
	for (s = 0; s < n; s++) {
		struct mseg *g = &M.sg[st[s].seg];
		struct minst *in = seg_inst(g);
		unsigned long pg = g->pgoff + st[s].page;
		int sig;

		if (st[s].want)
			continue;
		in->res[pg] = RES_YES;
		if (st[s].write)
			in->tag[pg] = st[s].tag;
		if (g->prot & PROT_READ) {
			sig = page_io(g->addr + st[s].page * PAGE, false, in->tag[pg], &bad);
			CHECK(!sig && !bad, "the child's page %lu of %s: signal %d, %u words differ",
			      pg, in->name, sig, bad);
		}
	}
	if (destroy >= 0) {
		M.in[destroy].live = false;
		inst_put(destroy);
	}
}

/* STAT through a region file agrees with the model. */
static void mm_stat(void)
{
	int f = random_file(true), k;
	unsigned long lo = 0, hi = 0, p;
	struct cxltier_stat st;
	struct minst *in;
	int rc;

	if (f < 0)
		return;
	k = M.fl[f].inst;
	in = &M.in[k];
	for (p = 0; p < in->npages; p++) {
		lo += in->res[p] == RES_YES;
		hi += in->res[p] != RES_NO;
	}
	op_desc("stat %s (#%u) through fd %d", in->name, in->id, M.fl[f].fd);
	rc = rg_stat(M.fl[f].fd, NULL, &st);
	CHECK(!rc, "stat: %s", strerror(-rc));
	if (rc)
		return;
	CHECK(st.id == in->id && !strcmp(st.name, in->name) && st.length == in->npages * PAGE &&
	      st.policy == in->policy && st.nodes[0] == in->nodes0 &&
	      st.region_flags == (in->live ? 0 : CXLTIER_REGION_DESTROYED),
	      "stat: #%u %s %llu bytes policy %u nodes %#llx flags %#x", st.id, st.name,
	      (unsigned long long)st.length, st.policy, (unsigned long long)st.nodes[0],
	      st.region_flags);
	CHECK(st.resident >= lo && st.resident <= hi && st.fast <= st.resident && !st.fenced,
	      "stat: %llu pages resident (%llu fast), %lu to %lu expected",
	      (unsigned long long)st.resident, (unsigned long long)st.fast, lo, hi);
	/* Our segments are at least as fine as the kernel's VMAs (which may merge). */
	CHECK((int)st.nr_files == files_of_inst(k) &&
	      (st.nr_maps > 0) == (segs_of_inst(k) > 0) &&
	      (M.vmas_unknown || (int)st.nr_maps <= segs_of_inst(k)),
	      "stat: %u files %u maps; we hold %d files, %d mappings", st.nr_files, st.nr_maps,
	      files_of_inst(k), segs_of_inst(k));
}

/* The file operations a region file does not offer fail and change nothing. */
static void mm_file_ops(void)
{
	int f = random_file(true), fd;
	struct stat sb;
	char c = 0;

	if (f < 0)
		return;
	fd = M.fl[f].fd;
	op_desc("read/write/ftruncate/fchmod/fallocate on fd %d of %s", fd,
		M.in[M.fl[f].inst].name);
	CHECK(read(fd, &c, 1) < 0, "read() on a region file worked");
	CHECK(write(fd, &c, 1) < 0, "write() on a region file worked");
	CHECK(ftruncate(fd, PAGE) < 0, "ftruncate() on a region file worked");
	CHECK(fchmod(fd, 0777) < 0, "fchmod() on a region file worked");
	CHECK(fallocate(fd, 0, 0, PAGE) < 0, "fallocate() on a region file worked");
	CHECK(!fstat(fd, &sb) && (unsigned long)sb.st_size == M.in[M.fl[f].inst].npages * PAGE,
	      "fstat: size %lld", (long long)sb.st_size);
}

static void mm_check_all(void)
{
	unsigned long pg, bad;
	unsigned int b;
	int i, sig;

	for (i = 0; i < MM_SEGS; i++) {
		struct mseg *g = &M.sg[i];
		struct minst *in;

		if (!g->used)
			continue;
		in = seg_inst(g);
		op_desc("final check of a mapping of %s (%lu pages at %p)", in->name, g->npages,
			g->addr);
		CHECK(!mprotect(g->addr, g->npages * PAGE, PROT_READ), "mprotect: %s",
		      strerror(errno));
		g->prot = PROT_READ;
		for (pg = 0, bad = 0; pg < g->npages; pg++) {
			if (in->res[g->pgoff + pg] != RES_YES)
				continue;
			sig = page_io(g->addr + pg * PAGE, false, in->tag[g->pgoff + pg], &b);
			CHECK(!sig, "page %lu of %s: signal %d", g->pgoff + pg, in->name, sig);
			bad += b;
		}
		CHECK(!bad, "%s: %lu words differ", in->name, bad);
	}
}

/* Register every committed CXL RAM region that is not a tier yet (the slow tiers). */
static void tiers_setup(void)
{
	uint64_t m;
	int nid;

	G->nr_added = cxlt_add_ram_tiers(G->added, G->nr_added, MAX_TIERS);
	drop_caches();
	m = tier_mask();
	for (nid = 0; nid < MAX_NODES; nid++)
		if ((m >> nid) & 1)
			G->tier_free_kb[nid] = node_free_kb(nid);
}

TEST_F_TIMEOUT(fuzz, mmap_fuzz, 60)
{
	unsigned long n = G->ops / 3, i;
	long mapped0, mapped1;
	double t0, t, tt;
	int k;

	test_begin("mmap_fuzz", 2);
	tt = now();
	if (!G->nr_added)
		tiers_setup();
	tt = now() - tt;
	memset(&M, 0, sizeof(M));
	M.nnodes = nr_node_ids();
	M.mem = read_nodelist("/sys/devices/system/node/has_memory");
	M.fast = read_nodelist("/sys/devices/system/node/has_cpu") & M.mem;
	M.tiers = tier_mask();
	M.dev = dev_open();
	ASSERT_LE(0, M.dev);
	M.memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	M.arena = mmap(NULL, ARENA_PAGES * PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, M.arena);
	TH_LOG("tiers: %d registered by us in %.1f s, tier nodes %#llx, DRAM nodes %#llx",
	       G->nr_added, tt, (unsigned long long)M.tiers, (unsigned long long)M.fast);
	mapped0 = meminfo_kb("Mapped");

	t0 = now();
	for (op_no = 0; ops_done < n && op_no < 20 * n && !nfail; op_no++) {
		unsigned int w = rn(100);

		if ((random_inst(true) < 0 && ninst() < MM_INST) || w < 5)
			mm_create();
		else if (w < 12)
			mm_open();
		else if (w < 16)
			mm_close();
		else if (w < 19)
			mm_destroy();
		else if (w < 21)
			mm_set_policy();
		else if (w < 33)
			mm_mmap();
		else if (w < 39)
			mm_munmap();
		else if (w < 45)
			mm_mprotect();
		else if (w < 50)
			mm_mremap();
		else if (w < 57)
			mm_madvise();
		else if (w < 59)
			mm_mlock();
		else if (w < 61)
			mm_msync();
		else if (w < 83)
			mm_touch();
		else if (w < 87)
			mm_procmem();
		else if (w < 90)
			mm_fork();
		else if (w < 93)
			mm_verify_mapping();
		else if (w < 95)
			mm_verify_process();
		else if (w < 99)
			mm_stat();
		else
			mm_file_ops();
	}
	t = now() - t0;
	i = ops_done;
	if (!nfail)
		mm_check_all();
	for (k = 0; k < MM_FILES && !nfail; k++)
		if (M.fl[k].used && M.fl[k].fd >= 0)
			mm_stat();
	/* Tear down: mappings, files, regions; then nothing of ours is listed. */
	for (k = 0; k < MM_SEGS; k++)
		if (M.sg[k].used) {
			munmap(M.sg[k].addr, M.sg[k].npages * PAGE);
			M.sg[k].used = false;
		}
	for (k = 0; k < MM_FILES; k++)
		if (M.fl[k].used && M.fl[k].fd >= 0)
			close(M.fl[k].fd);
	for (k = 0; k < MM_INST; k++)
		if (M.in[k].live)
			EXPECT_EQ(0, rg_destroy_id(M.dev, M.in[k].id));
	n = rg_list(M.dev);
	for (k = 0; k < (int)n; k++)
		EXPECT_NE(0, strncmp(list_buf[k].name, "fm.", 3)) TH_LOG("%s", list_buf[k].name);
	close(M.dev);
	munmap(M.arena, ARENA_PAGES * PAGE);
	/*
	 * Region pages count in the system's Mapped while a page table maps them; with
	 * every mapping gone it is back, up to the test program's own pages that it
	 * touched for the first time meanwhile (a few dozen KiB).
	 */
	mapped1 = meminfo_kb("Mapped");
	TH_LOG("Mapped: %ld KiB before, %ld KiB after", mapped0, mapped1);
	EXPECT_GE(256, mapped1 - mapped0);
	TH_LOG("%lu ops in %.1f s, %.0f ops/s; %lu mmaps, %lu touches (%lu SIGBUS, %lu SIGSEGV), %lu forks, %lu other processes",
	       i, t, i / t, M.maps, M.touches, M.sigbus, M.sigsegv,
	       M.forks, M.children);
	ASSERT_EQ(0, nfail);
}

/* ================================================================================= */
/* race: four processes on six shared names                                          */
/* ================================================================================= */

#define RACE_W		4
#define RACE_NAMES	6
#define RACE_PAGES	32
#define RACE_FDS	8
#define RACE_SEGS	8
#define RACE_SHADOW	24

struct rfd {
	int fd;
	uint32_t id;
	unsigned long npages;
	bool rw;
};

struct rseg {
	char *p;
	unsigned long npages;
	uint32_t id;
	bool rw;
};

/* What this worker wrote to its own pages (page % RACE_W == worker) of a region. */
struct rshadow {
	uint32_t id;
	uint64_t tag[RACE_PAGES];
};

static struct {
	int me;
	int dev;
	struct rfd fd[RACE_FDS];
	int nfd;
	struct rseg sg[RACE_SEGS];
	int nsg;
	struct rshadow sh[RACE_SHADOW];
	unsigned long ops, ok, refused, sigbus;
} R;

static struct rshadow *shadow_of(uint32_t id, bool make)
{
	int i, free = -1;

	for (i = 0; i < RACE_SHADOW; i++) {
		if (R.sh[i].id == id)
			return &R.sh[i];
		if (!R.sh[i].id && free < 0)
			free = i;
	}
	if (!make)
		return NULL;
	if (free < 0) {
		/* Forget one that no descriptor or mapping of ours refers to any more. */
		for (i = 0; i < RACE_SHADOW && free < 0; i++) {
			int k, used = 0;

			for (k = 0; k < R.nfd; k++)
				used += R.fd[k].id == R.sh[i].id;
			for (k = 0; k < R.nsg; k++)
				used += R.sg[k].id == R.sh[i].id;
			if (!used)
				free = i;
		}
		if (free < 0)
			return NULL;
	}
	memset(&R.sh[free], 0, sizeof(R.sh[free]));
	R.sh[free].id = id;
	return &R.sh[free];
}

/* An errno must be documented and one of the @n given (0 for success). */
static void race_rc(const char *what, int rc, int n, ...)
{
	va_list ap;
	bool ok = false;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		ok |= va_arg(ap, int) == (rc < 0 ? -rc : 0);
	va_end(ap);
	if (rc < 0)
		R.refused++;
	else
		R.ok++;
	CHECK(rc >= 0 ? ok : ok && documented(-rc), "%s: %s", what,
	      rc < 0 ? strerror(-rc) : "ok");
}

/* Verify the worker's own pages of segment @k. */
static void race_verify(int k)
{
	struct rshadow *sh = shadow_of(R.sg[k].id, false);
	unsigned long p;
	unsigned int bad;
	int sig;

	if (!sh)
		return;
	for (p = R.me; p < R.sg[k].npages && p < RACE_PAGES; p += RACE_W) {
		if (!sh->tag[p])
			continue;
		sig = page_io(R.sg[k].p + p * PAGE, false, sh->tag[p], &bad);
		CHECK(!sig && !bad, "worker %d: page %lu of #%u: signal %d, %u words differ",
		      R.me, p, R.sg[k].id, sig, bad);
	}
}

/* Threads of one process: two read the worker's pages while one zaps the mapping. */
struct storm {
	struct rseg *g;
	struct rshadow *sh;
	int me;
	volatile int stop;
	unsigned long bad, reads;
};

static void *storm_reader(void *arg)
{
	struct storm *st = arg;
	unsigned long p, k;
	unsigned int i;

	for (k = 0; k < 200 && !st->bad; k++) {
		for (p = st->me; p < st->g->npages && p < RACE_PAGES; p += RACE_W) {
			volatile uint64_t *w = (uint64_t *)(st->g->p + p * PAGE);

			if (!st->sh->tag[p])
				continue;
			for (i = 0; i < PAGE / 8; i += 61)
				if (w[i] != pat(st->sh->tag[p], i))
					__atomic_add_fetch(&st->bad, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&st->reads, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void race_storm(int k)
{
	struct storm st = { .g = &R.sg[k], .me = R.me };
	pthread_t t[2];
	int i, e = 0;

	st.sh = shadow_of(R.sg[k].id, false);
	if (!st.sh)
		return;
	op_desc("w%d threads: two read #%u's pages while one MADV_DONTNEEDs it", R.me,
		R.sg[k].id);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, storm_reader, &st))
			return;
	for (i = 0; i < 100; i++)
		e |= madvise(R.sg[k].p, R.sg[k].npages * PAGE, MADV_DONTNEED);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(!e && !st.bad, "worker %d: %lu of %lu page reads differ while zapping (madvise %d)",
	      R.me, st.bad, st.reads, e);
}

static void race_op(void)
{
	char name[CXLTIER_NAME_MAX];
	struct cxltier_stat st;
	unsigned int w = rn(100);
	uint64_t len;
	int rc, k;

	snprintf(name, sizeof(name), "fzr.%d", (int)rn(RACE_NAMES));
	R.ops++;
	if (w < 15) {
		unsigned long np = 1 + rn(RACE_PAGES);

		op_desc("w%d create %s (%lu pages)", R.me, name, np);
		rc = rg_create(R.dev, name, np * PAGE, rn(CXLTIER_POLICY_MAX + 1),
			       one_in(2) ? 0644 : -1, NULL);
		race_rc("create", rc, 2, 0, EEXIST);
	} else if (w < 25) {
		if (R.nfd && one_in(2)) {
			uint32_t id = R.fd[rn(R.nfd)].id;

			op_desc("w%d destroy #%u", R.me, id);
			race_rc("destroy by id", rg_destroy_id(R.dev, id), 2, 0, ENOENT);
		} else {
			op_desc("w%d destroy %s", R.me, name);
			race_rc("destroy", rg_destroy(R.dev, name), 2, 0, ENOENT);
		}
	} else if (w < 40) {
		bool rw = !one_in(3);

		if (R.nfd == RACE_FDS)
			return;
		op_desc("w%d open %s %s", R.me, name, rw ? "rw" : "ro");
		rc = rg_open(R.dev, name, 0, CXLTIER_OPEN_READ | (rw ? CXLTIER_OPEN_WRITE : 0),
			     &len);
		race_rc("open", rc < 0 ? rc : 0, 2, 0, ENOENT);
		if (rc < 0)
			return;
		/* The file is the region that was opened, destroyed since or not. */
		CHECK(!rg_stat(rc, NULL, &st) && !strcmp(st.name, name) && st.length == len,
		      "stat of a new region file: %s %llu bytes, opened %s %llu", st.name,
		      (unsigned long long)st.length, name, (unsigned long long)len);
		R.fd[R.nfd++] = (struct rfd){ rc, st.id, len / PAGE, rw };
	} else if (w < 48) {
		if (!R.nfd)
			return;
		k = rn(R.nfd);
		op_desc("w%d close fd of #%u", R.me, R.fd[k].id);
		CHECK(!close(R.fd[k].fd), "close: %s", strerror(errno));
		R.fd[k] = R.fd[--R.nfd];
	} else if (w < 58) {
		char *p;

		if (!R.nfd || R.nsg == RACE_SEGS)
			return;
		k = rn(R.nfd);
		op_desc("w%d map #%u (%lu pages)", R.me, R.fd[k].id, R.fd[k].npages);
		p = mmap(NULL, R.fd[k].npages * PAGE,
			 PROT_READ | (R.fd[k].rw ? PROT_WRITE : 0), MAP_SHARED, R.fd[k].fd, 0);
		CHECK(p != MAP_FAILED, "mmap of a region file: %s", strerror(errno));
		if (p == MAP_FAILED)
			return;
		R.sg[R.nsg++] = (struct rseg){ p, R.fd[k].npages, R.fd[k].id, R.fd[k].rw };
		race_verify(R.nsg - 1);
	} else if (w < 64) {
		if (!R.nsg)
			return;
		k = rn(R.nsg);
		op_desc("w%d munmap #%u", R.me, R.sg[k].id);
		race_verify(k);
		CHECK(!munmap(R.sg[k].p, R.sg[k].npages * PAGE), "munmap: %s", strerror(errno));
		R.sg[k] = R.sg[--R.nsg];
	} else if (w < 81) {
		struct rshadow *sh;
		unsigned long p;
		uint64_t tag = rnd() | 1;
		int sig;

		if (!R.nsg)
			return;
		k = rn(R.nsg);
		if (!R.sg[k].rw || R.sg[k].npages <= (unsigned long)R.me)
			return;
		p = R.me + RACE_W * rn((R.sg[k].npages - R.me + RACE_W - 1) / RACE_W);
		sh = shadow_of(R.sg[k].id, true);
		if (!sh || p >= RACE_PAGES)
			return;
		op_desc("w%d write own page %lu of #%u", R.me, p, R.sg[k].id);
		sig = page_io(R.sg[k].p + p * PAGE, true, tag, NULL);
		R.sigbus += sig == SIGBUS;
		/*
		 * SIGBUS: another worker's SET_POLICY may leave no node to place a page on;
		 * never for a page this worker placed already.
		 */
		CHECK(!sig || (sig == SIGBUS && !sh->tag[p]),
		      "worker %d: write to page %lu of #%u: signal %d", R.me, p, R.sg[k].id, sig);
		if (!sig)
			sh->tag[p] = tag;
		race_verify(k);
	} else if (w < 87) {
		unsigned long p;
		int sig;

		if (!R.nsg)
			return;
		k = rn(R.nsg);
		if (one_in(2)) {
			race_storm(k);
			return;
		}
		/* Any page, maybe another worker's being placed right now: no content check */
		p = rn(R.sg[k].npages);
		op_desc("w%d read page %lu of #%u", R.me, p, R.sg[k].id);
		sig = page_io(R.sg[k].p + p * PAGE, false, 0, NULL);
		R.sigbus += sig == SIGBUS;
		CHECK(!sig || sig == SIGBUS, "worker %d: read of page %lu of #%u: signal %d", R.me,
		      p, R.sg[k].id, sig);
	} else if (w < 90) {
		op_desc("w%d stat %s, list", R.me, name);
		race_rc("stat", rg_stat(R.dev, name, &st), 2, 0, ENOENT);
		race_rc("list", rg_list(R.dev) < 0 ? -EFAULT : 0, 1, 0);
	} else if (w < 95) {
		uint32_t pol = rn(CXLTIER_POLICY_MAX + 1);

		op_desc("w%d set-policy %s %u", R.me, name, pol);
		race_rc("set-policy", rg_set_policy(R.dev, name, pol, 0), 2, 0, ENOENT);
	} else if (w < 98) {
		int status;
		pid_t pid;

		op_desc("w%d fork: the child checks the worker's pages", R.me);
		fflush(stderr);
		pid = fork();
		if (!pid) {
			for (k = 0; k < R.nsg; k++)
				race_verify(k);
			_exit(nfail ? 1 : 0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0,
		      "worker %d's child: status %#x", R.me, status);
	} else {
		int status;
		pid_t pid;

		op_desc("w%d as uid 65534: destroy/open/create %s", R.me, name);
		fflush(stderr);
		pid = fork();
		if (!pid) {
			if (drop_to_nobody())
				_exit(1);
			rc = rg_destroy(R.dev, name);
			if (rc && rc != -EPERM && rc != -ENOENT)
				_exit(2);	/* its own, root's, or gone */
			rc = rg_open(R.dev, name, 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
			if (rc >= 0)
				close(rc);
			else if (rc != -EACCES && rc != -ENOENT)
				_exit(3);
			rc = rg_create(R.dev, name, PAGE * (1 + rn(RACE_PAGES)), 0, 0644, NULL);
			if (rc && rc != -EEXIST && rc != -EDQUOT)
				_exit(4);
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0,
		      "worker %d's unprivileged child: status %#x", R.me, status);
	}
}

static int race_worker(int me, unsigned long n)
{
	int k;

	memset(&R, 0, sizeof(R));
	R.me = me;
	rng_seed(G->seed, 100 + me);
	R.dev = dev_open();
	if (R.dev < 0)
		return 2;
	for (op_no = 0; ops_done < n && op_no < 20 * n && !nfail; op_no++)
		race_op();
	for (k = 0; k < R.nsg && !nfail; k++)
		race_verify(k);
	printf("# worker %d: %lu ops, %lu ok, %lu refused, %lu SIGBUS\n", me, R.ops, R.ok,
	       R.refused, R.sigbus);
	fflush(stdout);
	return nfail ? 1 : 0;
}

TEST_F_TIMEOUT(fuzz, race, 60)
{
	unsigned long n = G->ops / 8;
	pid_t pid[RACE_W];
	int w, status, dev, k, left = 0;
	double t0, t;

	test_begin("race", 3);
	fflush(stdout);
	t0 = now();
	for (w = 0; w < RACE_W; w++) {
		pid[w] = fork();
		ASSERT_LE(0, pid[w]);
		if (!pid[w])
			_exit(race_worker(w, n));
	}
	for (w = 0; w < RACE_W; w++) {
		ASSERT_EQ(pid[w], waitpid(pid[w], &status, 0));
		EXPECT_EQ(0, status) TH_LOG("worker %d: status %#x", w, status);
	}
	t = now() - t0;
	dev = dev_open();
	ASSERT_LE(0, dev);
	k = rg_list(dev);
	for (w = 0; w < k; w++)
		if (!strncmp(list_buf[w].name, "fzr.", 4))
			left += !rg_destroy_id(dev, list_buf[w].id);
	k = rg_list(dev);
	for (w = 0; w < k; w++)
		EXPECT_NE(0, strncmp(list_buf[w].name, "fzr.", 4)) TH_LOG("%s", list_buf[w].name);
	close(dev);
	TH_LOG("%d workers x %lu ops in %.1f s, %.0f ops/s; %d regions left to destroy",
	       RACE_W, n, t, RACE_W * n / t, left);
}

/* ================================================================================= */
/* leaks: everything is back where it was                                            */
/* ================================================================================= */

/* A debugfs counter file, "name value" per line, as a comparable string. */
static void norm_counters(const char *in, char *out, size_t len)
{
	size_t n = 0;
	const char *s;

	out[0] = 0;
	for (s = in; *s && n < len - 1; s++)
		if (*s != '#' || (s > in && s[-1] != '\n'))
			out[n++] = *s;
	out[n] = 0;
}

/*
 * The DRAM budget is whole again: with fast_budget_mb=1, a pinned-fast region gets
 * exactly 256 pages (the module's fast page count is back to 0).
 */
static int budget_probe(struct __test_metadata *_metadata)
{
	char saved[32];
	int dev, fd, sig = 0;
	unsigned long i;
	char *p;

	if (param_read("fast_budget_mb", saved, sizeof(saved)))
		return -1;
	dev = dev_open();
	if (dev < 0)
		return -1;
	EXPECT_EQ(0, param_write("fast_budget_mb", "1"));
	EXPECT_EQ(0, rg_create(dev, "fz.budget", 2 * MB, CXLTIER_POLICY_PINNED_FAST, -1, NULL));
	fd = rg_open(dev, "fz.budget", 0, CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE, NULL);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, 2 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_NE(MAP_FAILED, p);
	for (i = 0; p != MAP_FAILED && i < 2 * MB / PAGE; i++) {
		sig = page_io(p + i * PAGE, true, i + 1, NULL);
		if (sig)
			break;
	}
	param_write("fast_budget_mb", saved);
	if (p != MAP_FAILED)
		munmap(p, 2 * MB);
	if (fd >= 0)
		close(fd);
	rg_destroy(dev, "fz.budget");
	close(dev);
	EXPECT_EQ(SIGBUS, sig);
	return i;
}

TEST_F_TIMEOUT(fuzz, leaks, 60)
{
	char acct[1024], users[1024], a[1024], b[1024];
	long free0, tol0, d;
	int dev, n, i, pages, waited, left = 0;
	uint64_t tiers;

	test_begin("leaks", 5);
	dev = dev_open();
	ASSERT_LE(0, dev);
	n = rg_list(dev);
	for (i = 0; i < n; i++) {
		if (is_base(list_buf[i].id, list_buf[i].name))
			continue;
		TH_LOG("left behind: #%u %s", list_buf[i].id, list_buf[i].name);
		left++;
		rg_destroy_id(dev, list_buf[i].id);
	}
	close(dev);
	EXPECT_EQ(0, left);

	/*
	 * The module's own counters (debugfs, when it has them) are what they were,
	 * once the regions' last users are gone: processes of the earlier tests that
	 * are still exiting hold region files for a moment.
	 */
	for (i = 0; i < 100; i++) {
		read_debugfs("accounting", acct, sizeof(acct));
		read_debugfs("users", users, sizeof(users));
		if (!acct[0] || (G->reloaded && (G->nr_base || !strncmp(acct, "fast_pages 0", 12))))
			break;
		norm_counters(G->base_acct, a, sizeof(a));
		norm_counters(acct, b, sizeof(b));
		if (!G->reloaded && !strcmp(a, b))
			break;
		usleep(100000);
	}
	if (acct[0] && !G->reloaded) {
		norm_counters(G->base_acct, a, sizeof(a));
		norm_counters(acct, b, sizeof(b));
		EXPECT_STREQ(a, b);
	} else if (acct[0]) {
		/* Reloaded since: all zero (no region is left of anyone's) when none was */
		if (!G->nr_base)
			EXPECT_EQ(0, strncmp(acct, "fast_pages 0", 12)) TH_LOG("%s", acct);
	}
	if (users[0] && !G->reloaded) {
		norm_counters(G->base_users, a, sizeof(a));
		norm_counters(users, b, sizeof(b));
		EXPECT_STREQ(a, b);
	} else if (users[0] && !G->nr_base) {
		EXPECT_EQ(NULL, strchr(users, '\n')) TH_LOG("users: %s", users);
	}
	TH_LOG("debugfs accounting: %s", acct[0] ? acct : "(none)");

	if (!G->nr_base) {
		pages = budget_probe(_metadata);
		EXPECT_EQ(256, pages) TH_LOG("pinned-fast pages within a 1 MiB budget: %d", pages);
	}

	/*
	 * Tier nodes: only region pages go there; back to within 64 KiB, within 5 s.
	 * The wait is for frees still under way when the accounting above is whole
	 * (20 pages were missing once in 35 runs, none in the other 34); a page kept
	 * for good still fails.
	 */
	drop_caches();
	tiers = tier_mask();
	for (i = 0, waited = 0; i < MAX_NODES; i++) {
		if (!((tiers >> i) & 1) || !G->tier_free_kb[i])
			continue;
		/* One 5 s wait for all the nodes, not one each. */
		while ((d = G->tier_free_kb[i] - node_free_kb(i)) > 64 && waited < 50) {
			usleep(100000);
			waited++;
		}
		TH_LOG("node %d (tier): free %ld KiB at start, %ld KiB less now (%d ms waited so far)",
		       i, G->tier_free_kb[i], d, waited * 100);
		EXPECT_GE(64, d);
	}
	/*
	 * Removing a tier is refused while the module counts region pages on it, and
	 * does not finish while pages nobody can move are there.  Tried once: the
	 * safety net at exit does not try again.
	 */
	EXPECT_EQ(0, remove_added_tiers());
	G->nr_added = 0;
	G->tiers_tried = true;

	EXPECT_EQ(G->base_refcnt, module_refcnt());

	/*
	 * Node 0 (DRAM): compared after dropping caches.  Unrelated kernel allocations
	 * move it too (slab caches that grew for thousands of regions and files and keep
	 * their partly used slabs, page tables, the module's text after a reload), so
	 * allow 4 MiB, about the pages one fuzz test has resident at once; on a KASAN
	 * kernel freed objects wait in its quarantine (up to 1/32 of memory), so allow
	 * that too.  The exact checks are above: the module's counters, the DRAM budget
	 * probe, the tier removal.
	 */
	drop_caches();
	free0 = node_free_kb(0);
	tol0 = 4096;
	if (G->kasan) {
		long total = 0;
		char line[256];
		FILE *f = fopen("/proc/meminfo", "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %ld kB", &total) == 1)
				break;
		if (f)
			fclose(f);
		tol0 += total / 32;
	}
	d = G->base_free_kb[0] - free0;
	TH_LOG("node 0: free %ld KiB at start, %ld KiB less now (tolerance %ld KiB)",
	       G->base_free_kb[0], d, tol0);
	EXPECT_GE(tol0, d);
}

/* --- main: the run's seed and bound, the baseline, and a safety net at exit ------- */

static pid_t main_pid;

/*
 * Write @name to tier_remove in a child, and kill the child after @secs: offlining
 * memory that holds pages nobody can move (a leak) would otherwise spin until a
 * signal.  Returns 0, -errno, or -ETIMEDOUT.
 */
static int tier_remove_timed(const char *name, int secs)
{
	int status, i;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(-cxlt_write(CXLT_SYSFS "/tier_remove", name));
	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -ETIMEDOUT;
}

/* Remove the tiers this group registered; returns how many could not be removed. */
static int remove_added_tiers(void)
{
	int i, rc, bad = 0, scale = cxlt_timeout_scale();
	char path[256];

	for (i = 0; i < G->nr_added; i++) {
		snprintf(path, sizeof(path), CXLT_SYSFS "/tiers/%s", G->added[i]);
		if (access(path, F_OK))
			continue;
		rc = tier_remove_timed(G->added[i], 20 * scale);
		if (rc) {
			fprintf(stderr, "# cannot remove tier %s: %s\n", G->added[i],
				rc == -ETIMEDOUT ? "offlining its memory did not finish" :
				strerror(-rc));
			bad++;
		}
	}
	if (!bad)
		G->nr_added = 0;
	return bad;
}

/* At exit of the main process: leave the guest as the group found it. */
static void safety_net(void)
{
	int dev, rc;

	if (getpid() != main_pid)
		return;
	if (!cxlt_module_loaded() && G->modparams[0] != '?') {
		rc = cxlt_insmod(G->modparams);
		fprintf(stderr, "# fuzz: cxltier.ko was not loaded at exit; loaded it again: %s\n",
			rc ? strerror(-rc) : "ok");
	}
	dev = dev_open();
	if (dev >= 0) {
		int n = rg_list(dev), i;

		for (i = 0; i < n; i++)
			if (ours(list_buf[i].name) && !is_base(list_buf[i].id, list_buf[i].name))
				rg_destroy_id(dev, list_buf[i].id);
		close(dev);
	}
	if (G->nr_added && !G->tiers_tried)
		remove_added_tiers();
}

static bool kernel_has_kasan(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		yes = strstr(line, " kasan_quarantine_put") || strstr(line, " __kasan_slab_free");
	fclose(f);
	return yes;
}

static bool take_arg(char *a, const char *key, char **val)
{
	size_t n = strlen(key);

	if (strncmp(a, key, n) || a[n] != '=')
		return false;
	*val = a + n + 1;
	return true;
}

int main(int argc, char **argv)
{
	char *seed = getenv("CXLT_FUZZ_SEED"), *ops = getenv("CXLT_FUZZ_OPS"), *v;
	int i, k, dev, n;

	G = mmap(NULL, sizeof(*G), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (G == MAP_FAILED)
		return KSFT_FAIL;
	/* --seed=N and --ops=N are ours; the rest goes to the harness. */
	for (i = 1, k = 1; i < argc; i++) {
		if (take_arg(argv[i], "--seed", &v))
			seed = v;
		else if (take_arg(argv[i], "--ops", &v))
			ops = v;
		else
			argv[k++] = argv[i];
	}
	argc = k;
	argv[argc] = NULL;
	G->seed = seed && *seed ? strtoull(seed, NULL, 0) : DEFAULT_SEED;
	G->ops = ops && *ops ? strtoul(ops, NULL, 0) : DEFAULT_OPS;
	/*
	 * The debug kernel's checkers report a bad access the first time it happens;
	 * the many operations are for races on Debian's kernel, 7x faster.
	 */
	if (!(ops && *ops) && cxlt_debug_kernel())
		G->ops = DEFAULT_OPS / 3;
	G->trace = getenv("CXLT_FUZZ_TRACE") && atoi(getenv("CXLT_FUZZ_TRACE"));
	if (G->ops < 100)
		G->ops = 100;
	printf("# fuzz: seed %#llx, %lu ops (set CXLT_FUZZ_SEED and CXLT_FUZZ_OPS, or --seed= and --ops=, to change them)\n",
	       (unsigned long long)G->seed, G->ops);
	fflush(stdout);

	main_pid = getpid();
	strcpy(G->modparams, "?");
	if (cxlt_module_loaded()) {
		if (cxlt_module_params(G->modparams, sizeof(G->modparams))) {
			/* A reload with some of them would drop the others. */
			printf("Bail out! the module's parameters do not fit in %zu bytes\n",
			       sizeof(G->modparams));
			return 1;
		}
		dev = dev_open();
		if (dev >= 0) {
			/* Our names left behind by an earlier run that died: not a baseline. */
			n = rg_list(dev);
			for (i = 0; i < n; i++)
				if (ours(list_buf[i].name))
					rg_destroy_id(dev, list_buf[i].id);
			n = rg_list(dev);
			for (i = 0; i < n && G->nr_base < MAX_BASE; i++) {
				G->base[G->nr_base].id = list_buf[i].id;
				memcpy(G->base[G->nr_base++].name, list_buf[i].name, CXLTIER_NAME_MAX);
			}
			close(dev);
		}
		G->base_refcnt = module_refcnt();
		read_debugfs("accounting", G->base_acct, sizeof(G->base_acct));
		read_debugfs("users", G->base_users, sizeof(G->base_users));
		drop_caches();
		G->base_free_kb[0] = node_free_kb(0);
		G->kasan = kernel_has_kasan();
		printf("# fuzz: %d regions before us, module refcnt %d, node 0 free %ld KiB%s\n",
		       G->nr_base, G->base_refcnt, G->base_free_kb[0],
		       G->kasan ? " (KASAN kernel)" : "");
		fflush(stdout);
	}
	atexit(safety_net);
	return test_harness_run(argc, argv);
}
