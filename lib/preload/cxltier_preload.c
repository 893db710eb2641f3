// SPDX-License-Identifier: GPL-2.0
/*
 * libcxltier-preload.so: an unmodified program's large allocations in a global
 * region, so that the migration daemon places their pages (hot on DRAM, cold on
 * CXL), as memkind's autohbw puts large allocations in high-bandwidth memory:
 *
 *   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libcxltier-preload.so program ...
 *   cxltierctl run --regions -- program ...          (the same, set up for you)
 *
 * malloc(), calloc(), realloc(), posix_memalign(), aligned_alloc(), memalign(),
 * valloc() and pvalloc() of CXLTIER_PRELOAD_MIN bytes or more are served from one
 * region of this process, made at the first such allocation; smaller ones, and any
 * the region has no room for, go to the C library's malloc as usual.  free() and
 * malloc_usable_size() tell the two apart by address.
 *
 * Environment:
 *   CXLTIER_PRELOAD_MIN     bytes from which an allocation goes to the region
 *                           (default 1M; K, M, G, T suffixes, powers of 1024)
 *   CXLTIER_PRELOAD_SIZE    the region's size, the most it holds (default: the
 *                           machine's memory, DRAM and CXL; rounded up to 2 MiB)
 *   CXLTIER_PRELOAD_POLICY  fast-first (default: DRAM within the module's budget,
 *                           then CXL; the daemon moves pages), slow-only, interleave
 *   CXLTIER_PRELOAD_NAME    the region's name (default preload.<pid>)
 *   CXLTIER_PRELOAD_VERBOSE 1: a line on stderr when the region is made, and its
 *                           use at exit
 *   CXLTIER_DEV             the device (default /dev/cxltier), as libcxltier's
 *
 * Lifetime: the region is destroyed when the process exits (a destructor); its
 * memory goes when the mapping does.  A process killed by a signal leaves it named:
 * `cxltierctl region destroy preload.<pid>`, or the next process with that pid (an
 * exec of this one, say) takes the name over.  Memory a program frees stays in the
 * region for its next large allocations (the module cannot give a range back), and
 * is hinted cold so that the daemon does not keep it on DRAM.
 *
 * fork(2): the region is MAP_SHARED, which fork would leave shared between parent
 * and child.  The child gets a private copy of what is allocated instead (its
 * pages that exist, copied into anonymous memory at the same addresses), so the
 * child sees the parent's heap as after any fork, and its own large allocations
 * are anonymous memory; the copy takes the time of a memcpy of the region's
 * resident pages.  posix_spawn() and vfork() share the parent's memory anyway and
 * copy nothing.  exec drops the mapping, and the new program, with the same
 * LD_PRELOAD, makes a region of its own.
 *
 * Why C and the module's ioctls instead of libcxltier: this runs inside malloc(),
 * before and during the C++ runtime's own allocations, and must allocate nothing
 * through itself.  Its bookkeeping uses the C library's __libc_malloc().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cxltier.h>

#define EXPORT __attribute__((visibility("default")))

/* The C library's allocator (glibc exports it under these names too). */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

#define PAGE		4096UL
#define HDR		64UL		/* the header before every block's user bytes */
#define MAGIC		0x63786c7470726c64ULL
#define REGION_ALIGN	(2UL << 20)

/* Before the user bytes of every region block. */
struct hdr {
	uint64_t magic;
	uint64_t start;		/* the block's first byte, an offset in the region */
	uint64_t len;		/* the block's bytes, a multiple of PAGE */
	uint64_t size;		/* bytes asked for */
};

struct extent {
	uint64_t off, len;	/* bytes, multiples of PAGE */
};

enum state { S_UNINIT, S_ON, S_OFF };

static struct {
	pthread_mutex_t lock;	/* everything below */
	enum state state;
	int dev, fd;
	char *base;		/* the mapping */
	uint64_t size;		/* its bytes */
	uint64_t brk;		/* bytes handed out from the start at least once */
	struct extent *free;	/* free extents below brk, by offset, coalesced */
	size_t nfree, cap;
	char name[CXLTIER_NAME_MAX];
	pid_t owner;		/* the process that made the region (destroys it) */
	uint64_t min;		/* CXLTIER_PRELOAD_MIN */
	uint32_t policy;
	bool verbose, private_copy;
	uint64_t allocs, bytes, peak;
} P = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.dev = -1,
	.fd = -1,
	.min = 1UL << 20,
};

/* A thread inside the preload's own setup: its allocations go to the C library. */
static __thread int busy;

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* write(2): stdio may allocate, and may be what is allocating. */
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

/* "512M", "4G", "1048576": bytes, or 0 for anything else. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end | 0x20) {
	case 'k': shift = 10; end++; break;
	case 'm': shift = 20; end++; break;
	case 'g': shift = 30; end++; break;
	case 't': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end | 0x20) == 'b')
		end++;
	if (*end || (shift && v > (~0ULL >> shift)))
		return 0;
	return (uint64_t)v << shift;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static void destroy_name(const char *name)
{
	struct cxltier_destroy d = { .size = sizeof(d) };

	memcpy(d.name, name, sizeof(d.name));
	ioctl(P.dev, CXLTIER_IOC_DESTROY, &d);
}

static int create_region(void)
{
	struct cxltier_create c = {
		.size = sizeof(c),
		.flags = CXLTIER_CREATE_MODE,
		.length = P.size,
		.policy = P.policy,
		.mode = 0600,
	};

	memcpy(c.name, P.name, sizeof(c.name));
	return ioctl(P.dev, CXLTIER_IOC_CREATE, &c) ? -errno : 0;
}

/* The region, made and mapped; false (with one line on stderr) when it cannot be. */
static bool setup(void)
{
	const char *v, *dev = getenv("CXLTIER_DEV");
	struct cxltier_open o = { .size = sizeof(o), .flags = CXLTIER_OPEN_READ | CXLTIER_OPEN_WRITE };
	bool named = false;
	void *m;
	int rc;

	P.verbose = (v = getenv("CXLTIER_PRELOAD_VERBOSE")) && *v == '1';
	if ((v = getenv("CXLTIER_PRELOAD_MIN"))) {
		P.min = parse_size(v);
		if (!P.min) {
			say("cxltier-preload: CXLTIER_PRELOAD_MIN='%s' is not a size (such as 1M): large allocations stay in the heap\n", v);
			return false;
		}
	}
	if ((v = getenv("CXLTIER_PRELOAD_SIZE"))) {
		P.size = parse_size(v);
		if (!P.size) {
			say("cxltier-preload: CXLTIER_PRELOAD_SIZE='%s' is not a size (such as 64G): large allocations stay in the heap\n", v);
			return false;
		}
	} else {
		P.size = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	}
	P.size = round_up(P.size, REGION_ALIGN);
	v = getenv("CXLTIER_PRELOAD_POLICY");
	if (!v || !strcmp(v, "fast-first")) {
		P.policy = CXLTIER_POLICY_FAST_FIRST;
	} else if (!strcmp(v, "slow-only")) {
		P.policy = CXLTIER_POLICY_SLOW_ONLY;
	} else if (!strcmp(v, "interleave")) {
		P.policy = CXLTIER_POLICY_INTERLEAVE;
	} else {
		say("cxltier-preload: CXLTIER_PRELOAD_POLICY='%s' is not fast-first, slow-only or interleave: large allocations stay in the heap\n", v);
		return false;
	}
	v = getenv("CXLTIER_PRELOAD_NAME");
	if (v && *v) {
		if (strlen(v) >= sizeof(P.name) || strchr(v, '/')) {
			say("cxltier-preload: CXLTIER_PRELOAD_NAME='%s' is not a region name (1 to %zu bytes, no '/'): large allocations stay in the heap\n",
			    v, sizeof(P.name) - 1);
			return false;
		}
		snprintf(P.name, sizeof(P.name), "%s", v);
		named = true;
	} else {
		snprintf(P.name, sizeof(P.name), "preload.%d", (int)getpid());
	}

	P.dev = open(dev && *dev ? dev : "/dev/cxltier", O_RDWR | O_CLOEXEC);
	if (P.dev < 0) {
		say("cxltier-preload: cannot open %s (%s; is cxltier.ko loaded?): large allocations stay in the heap\n",
		    dev && *dev ? dev : "/dev/cxltier", strerror(errno));
		return false;
	}
	rc = create_region();
	if (rc == -EEXIST && !named) {
		/* This pid's, from before an exec or a process killed earlier. */
		destroy_name(P.name);
		rc = create_region();
	}
	if (rc) {
		say("cxltier-preload: cannot create region %s of %llu MiB: %s%s: large allocations stay in the heap\n",
		    P.name, (unsigned long long)(P.size >> 20), strerror(-rc),
		    rc == -EFBIG ? " (larger than the module's max_region_gb: set CXLTIER_PRELOAD_SIZE)" : "");
		goto close_dev;
	}
	memcpy(o.name, P.name, sizeof(o.name));
	if (ioctl(P.dev, CXLTIER_IOC_OPEN, &o)) {
		say("cxltier-preload: cannot open region %s: %s: large allocations stay in the heap\n",
		    P.name, strerror(errno));
		goto destroy;
	}
	P.fd = o.fd;
	/* Not into a program this one execs: it would keep the region's memory alive. */
	fcntl(P.fd, F_SETFD, FD_CLOEXEC);
	m = mmap(NULL, P.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, P.fd, 0);
	if (m == MAP_FAILED) {
		say("cxltier-preload: cannot map region %s: %s: large allocations stay in the heap\n",
		    P.name, strerror(errno));
		close(P.fd);
		P.fd = -1;
		goto destroy;
	}
	P.base = m;
	P.owner = getpid();
	if (P.verbose)
		say("cxltier-preload: region %s, %llu MiB, for allocations of %llu bytes or more\n",
		    P.name, (unsigned long long)(P.size >> 20), (unsigned long long)P.min);
	return true;
destroy:
	destroy_name(P.name);
close_dev:
	close(P.dev);
	P.dev = -1;
	return false;
}

static bool in_region(const void *p)
{
	return P.base && (const char *)p >= P.base && (const char *)p < P.base + P.size;
}

/* Tell the daemon about an extent: freed (cold: its pages should not hold DRAM), or
 * handed out again (no hint: heat decides).  Lock held. */
static void hint(uint64_t off, uint64_t len, uint32_t what)
{
	struct cxltier_hint h = { .size = sizeof(h), .hint = what, .offset = off, .length = len };

	if (P.private_copy)
		return;
	ioctl(P.fd, CXLTIER_IOC_HINT, &h);	/* on the region's fd: no name */
}

/* Room for @n free extents.  Lock held. */
static bool reserve(size_t n)
{
	struct extent *e;
	size_t cap;

	if (n <= P.cap)
		return true;
	cap = P.cap ? 2 * P.cap : 64;
	while (cap < n)
		cap *= 2;
	e = __libc_realloc(P.free, cap * sizeof(*e));
	if (!e)
		return false;
	P.free = e;
	P.cap = cap;
	return true;
}

/* [@off, @off + @len) is free again: into the list, merged with its neighbours. */
static void give_back(uint64_t off, uint64_t len)
{
	size_t i = 0, lo = 0, hi = P.nfree;

	while (lo < hi) {	/* the first extent after @off */
		size_t mid = (lo + hi) / 2;

		if (P.free[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	if (i > 0 && P.free[i - 1].off + P.free[i - 1].len == off) {
		P.free[i - 1].len += len;
		if (i < P.nfree && off + len == P.free[i].off) {
			P.free[i - 1].len += P.free[i].len;
			memmove(&P.free[i], &P.free[i + 1], (P.nfree - i - 1) * sizeof(P.free[0]));
			P.nfree--;
		}
		return;
	}
	if (i < P.nfree && off + len == P.free[i].off) {
		P.free[i].off = off;
		P.free[i].len += len;
		return;
	}
	/* reserve() was called for one more: a new extent always fits. */
	memmove(&P.free[i + 1], &P.free[i], (P.nfree - i) * sizeof(P.free[0]));
	P.free[i].off = off;
	P.free[i].len = len;
	P.nfree++;
}

/*
 * @len bytes of the region (a multiple of PAGE) at an offset off such that
 * (off + @skew) % @align == 0; *@fresh says whether they were never handed out
 * before (they then read as zero).  UINT64_MAX when there is no room.  Lock held.
 */
static uint64_t take(uint64_t len, uint64_t align, uint64_t skew, bool *fresh)
{
	uint64_t off, pad;
	size_t i;

	/* Splitting an extent in three needs room for one more. */
	if (!reserve(P.nfree + 1))
		return UINT64_MAX;
	for (i = 0; i < P.nfree; i++) {
		struct extent e = P.free[i];

		pad = (align - (e.off + skew) % align) % align;
		if (e.len < pad + len)
			continue;
		off = e.off + pad;
		memmove(&P.free[i], &P.free[i + 1], (P.nfree - i - 1) * sizeof(P.free[0]));
		P.nfree--;
		if (pad)
			give_back(e.off, pad);
		if (e.len > pad + len)
			give_back(off + len, e.len - pad - len);
		*fresh = false;
		hint(off, len, CXLTIER_HINT_NONE);
		return off;
	}
	pad = (align - (P.brk + skew) % align) % align;
	if (pad + len > P.size - P.brk)
		return UINT64_MAX;
	off = P.brk + pad;
	if (pad)
		give_back(P.brk, pad);
	P.brk = off + len;
	*fresh = true;
	return off;
}

/* The region is set up (or known not to be); true when it is in use. */
static bool region_on(void)
{
	if (__atomic_load_n(&P.state, __ATOMIC_ACQUIRE) != S_UNINIT)
		return P.state == S_ON;
	pthread_mutex_lock(&P.lock);
	if (P.state == S_UNINIT) {
		busy++;
		__atomic_store_n(&P.state, setup() ? S_ON : S_OFF, __ATOMIC_RELEASE);
		busy--;
	}
	pthread_mutex_unlock(&P.lock);
	return P.state == S_ON;
}

/* @size bytes at a multiple of @align (0: 16) from the region, zeroed with @zero;
 * NULL when the region is off or full (the caller goes to the C library). */
static void *region_alloc(size_t size, size_t align, bool zero)
{
	uint64_t lead, len, start, a, skew;
	struct hdr *h;
	bool fresh;
	char *user;

	if (busy || !region_on() || P.private_copy)
		return NULL;
	if (align > P.size)
		return NULL;
	/* The header sits right before the user bytes; a block starts on a page. */
	if (align <= PAGE) {
		lead = align > HDR ? align : HDR;
		a = PAGE;
		skew = 0;
	} else {
		lead = PAGE;
		a = align;
		skew = PAGE;
	}
	if (size > P.size - lead)
		return NULL;
	len = round_up(lead + size, PAGE);
	pthread_mutex_lock(&P.lock);
	start = take(len, a, skew, &fresh);
	if (start == UINT64_MAX) {
		pthread_mutex_unlock(&P.lock);
		return NULL;
	}
	P.allocs++;
	P.bytes += len;
	if (P.bytes > P.peak)
		P.peak = P.bytes;
	pthread_mutex_unlock(&P.lock);
	user = P.base + start + lead;
	h = (struct hdr *)(user - HDR);
	*h = (struct hdr){ .magic = MAGIC, .start = start, .len = len, .size = size };
	if (zero && !fresh)
		memset(user, 0, size);
	return user;
}

static struct hdr *header(void *p)
{
	struct hdr *h = (struct hdr *)((char *)p - HDR);

	if ((char *)h < P.base || h->magic != MAGIC || h->start >= P.brk ||
	    h->len > P.brk - h->start || (char *)p <= P.base + h->start ||
	    (char *)p >= P.base + h->start + h->len) {
		say("cxltier-preload: %p is in region %s but is not an allocation of it (freed twice, or never allocated): aborting\n",
		    p, P.name);
		abort();
	}
	return h;
}

static void region_free(void *p)
{
	struct hdr *h = header(p);
	uint64_t start = h->start, len = h->len;

	h->magic = 0;
	pthread_mutex_lock(&P.lock);
	if (!reserve(P.nfree + 1)) {
		pthread_mutex_unlock(&P.lock);
		return;	/* no memory for the list: the extent is lost, nothing breaks */
	}
	give_back(start, len);
	P.bytes -= len;
	hint(start, len, CXLTIER_HINT_COLD);
	pthread_mutex_unlock(&P.lock);
}

static size_t region_usable(void *p)
{
	struct hdr *h = header(p);

	return (size_t)(P.base + h->start + h->len - (char *)p);
}

/* --- the threshold, before the region exists ---------------------------------- */

static uint64_t threshold(void)
{
	static int read;
	const char *v;

	if (!__atomic_load_n(&read, __ATOMIC_ACQUIRE)) {
		v = getenv("CXLTIER_PRELOAD_MIN");
		if (v && parse_size(v))
			P.min = parse_size(v);
		__atomic_store_n(&read, 1, __ATOMIC_RELEASE);
	}
	return P.min;
}

/* --- fork ------------------------------------------------------------------------- */

static void before_fork(void)
{
	pthread_mutex_lock(&P.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&P.lock);
}

/*
 * The child: the region's pages that exist, copied into anonymous memory mapped over
 * the region at the same addresses, so that nothing the child does reaches its
 * parent's memory.  A child that cannot get the copy must not run on a heap it
 * shares: it exits.
 */
static void after_fork_child(void)
{
	enum { BATCH = 512 };
	int32_t nodes[BATCH];
	uint64_t off, n, i;
	char *tmp;
	bool known;

	if (P.state == S_ON && !P.private_copy) {
		tmp = mmap(NULL, P.size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (tmp == MAP_FAILED)
			goto fail;
		for (off = 0; off < P.brk; off += n * PAGE) {
			struct cxltier_pages q = { .size = sizeof(q), .offset = off,
						   .nodes = (uintptr_t)nodes };

			n = (P.brk - off) / PAGE;
			if (n > BATCH)
				n = BATCH;
			q.count = (uint32_t)n;
			/* Pages not there read as zero: copied only when the module says
			 * which are there (else all, which makes them there). */
			known = !ioctl(P.fd, CXLTIER_IOC_PAGES, &q) && q.count == n;
			for (i = 0; i < n; i++)
				if (!known || nodes[i] >= 0)
					memcpy(tmp + off + i * PAGE, P.base + off + i * PAGE, PAGE);
		}
		if (mremap(tmp, P.size, P.size, MREMAP_MAYMOVE | MREMAP_FIXED, P.base) == MAP_FAILED)
			goto fail;
		close(P.fd);
		P.fd = -1;
		P.private_copy = true;
	}
	pthread_mutex_unlock(&P.lock);
	return;
fail:
	say("cxltier-preload: fork: cannot give the child a copy of region %s (%llu MiB): %s: the child exits\n",
	    P.name, (unsigned long long)(P.brk >> 20), strerror(errno));
	_exit(127);
}

__attribute__((constructor)) static void preload_init(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

__attribute__((destructor)) static void preload_fini(void)
{
	if (P.state != S_ON || P.private_copy || getpid() != P.owner)
		return;
	if (P.verbose)
		say("cxltier-preload: region %s: %llu allocations, at most %llu MiB at once, %llu MiB of it used\n",
		    P.name, (unsigned long long)P.allocs, (unsigned long long)(P.peak >> 20),
		    (unsigned long long)(P.brk >> 20));
	/* The name goes now; the memory when the process's mapping does. */
	destroy_name(P.name);
}

/* --- the C library's allocator functions ------------------------------------------ */

EXPORT void *malloc(size_t size)
{
	void *p;

	if (size >= threshold() && (p = region_alloc(size, 0, false)))
		return p;
	return __libc_malloc(size);
}

EXPORT void free(void *p)
{
	if (in_region(p))
		region_free(p);
	else
		__libc_free(p);
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	if (total >= threshold() && (p = region_alloc(total, 0, true)))
		return p;
	return __libc_calloc(nmemb, size);
}

/*
 * The C library's own malloc_usable_size(), for what __libc_malloc() returned.  Not
 * dlsym(RTLD_NEXT): in a program linked with an allocator of its own (Debian's
 * redis-server and jemalloc), the next definition is that allocator's, which
 * crashes on the C library's pointers.  The C library exports no __libc_ alias of
 * it, so it is looked up in libc.so.6 itself.  Without it, realloc() could not know
 * how much to copy: abort rather than lose data.
 */
static size_t libc_usable_size(void *p)
{
	static size_t (*real)(void *);

	if (!real) {
		void *libc;

		busy++;
		libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		if (libc)
			real = (size_t (*)(void *))dlsym(libc, "malloc_usable_size");
		busy--;
		if (!real) {
			static const char msg[] =
				"libcxltier-preload: cannot find the C library's malloc_usable_size()\n";

			if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
				abort();
			abort();
		}
	}
	return real(p);
}

EXPORT void *realloc(void *p, size_t size)
{
	size_t old;
	void *q;

	if (!p)
		return malloc(size);
	if (!size) {
		free(p);
		return NULL;
	}
	if (in_region(p)) {
		struct hdr *h = header(p);

		old = h->size;
		if (size <= region_usable(p)) {
			h->size = size;
			return p;
		}
		q = malloc(size);
		if (!q)
			return NULL;
		memcpy(q, p, old);
		region_free(p);
		return q;
	}
	if (size >= threshold() && (q = region_alloc(size, 0, false))) {
		old = libc_usable_size(p);
		memcpy(q, p, old < size ? old : size);
		__libc_free(p);
		return q;
	}
	return __libc_realloc(p, size);
}

EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

static void *aligned(size_t align, size_t size)
{
	void *p;

	/* Only powers of two in the region; the C library rounds the others. */
	if (size >= threshold() && align && !(align & (align - 1)) &&
	    (p = region_alloc(size, align, false)))
		return p;
	return __libc_memalign(align, size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = aligned(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!align || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	return aligned(align, size);
}

EXPORT void *memalign(size_t align, size_t size)
{
	return aligned(align, size);
}

EXPORT void *valloc(size_t size)
{
	return aligned(PAGE, size);
}

EXPORT void *pvalloc(size_t size)
{
	return aligned(PAGE, round_up(size ? size : 1, PAGE));
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	return in_region(p) ? region_usable(p) : libc_usable_size(p);
}
