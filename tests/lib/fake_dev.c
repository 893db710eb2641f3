/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake cxltier module for host tests, where a fake sysfs tree cannot act like
 * the module: an ioctl() that answers the region commands of /dev/cxltier from a
 * text file, and a write() that refuses values in the fake tree the way the
 * module's store methods would.  The library and cxltierctl then run their real
 * code paths (open, stat, list, hint, page nodes, setting tunables).
 *
 * Linked into a test program, its ioctl() and write() interpose on libc's for
 * libcxltier.so; built as a shared object, it is LD_PRELOADed into cxltierctl.
 * Every other file descriptor goes to the real functions.
 *
 * The device is the regular file CXLTIER_DEV names; its directory holds:
 *   regions   one region per line:
 *             <id> <name> <length> <policy> <mode> <access> [key=value ...]
 *             access is what OPEN grants: "rw", "r" or "-" (EACCES).  Keys:
 *             resident fast fenced promoted demoted pingpong skipped_pinned
 *             failed moved_bytes sampled accessed hinted (numbers),
 *             nodes=N:P,N:P (resident pages per node), pages=N,N,... (node of
 *             each page from the first; later pages are CXLTIER_PAGE_NONE) and
 *             hint_errno=E (HINT fails with E, as the module would);
 *             fenced_at=P,P,... (indexes of fenced pages, for FENCED and
 *             REPLACE), fence_blade=memN, fence_cause=C, fence_time=NS (what
 *             FENCED reports for them); persistent=1 (a persistent region:
 *             STAT's CXLTIER_REGION_PERSISTENT), lost=1 (CXLTIER_REGION_LOST),
 *             shared=1 (CXLTIER_REGION_SHARED),
 *             pool=NAME and pool_offset=N (STAT's pool and pool_offset).
 *             PAGES on a region's fd reports the pages= entries; with
 *             CXLTIER_FAKE_PAGES_FROM_DATA=1 the others are there (node 0)
 *             where the region's file has data, as a touched page of the module.
 *             OPEN's file of a region has the region's length (sparse).
 *             CREATE appends a region (the next free id, access "rw"); a
 *             persistent one gets persistent=1, its pool and an offset.  Its
 *             pool must be a directory pools/<pool>/ of the CXLTIER_SYSFS tree
 *             whose state is "online" (else ENODEV; "degraded": EROFS); without
 *             a pool, the online one with the most free bytes is taken; a
 *             length above its free file gives ENOSPC.  DESTROY removes the line and the region's files.
 *   hints     HINT appends "<name> <offset> <length> <hint>" per call.
 *   replaced  REPLACE appends "<name> <offset> <length>" per call; it reports
 *             the fenced pages of the range as replaced (the file of regions
 *             stays as it is).
 *   events    the event log, one record per line, oldest first:
 *             <seq> <time_ns> <type> <cause> <blade> <region_id> <region>
 *             <offset> <pages> <ram_pages> <duration_ns>  ("-": an empty name).
 *             EVENTS with CXLTIER_EVENTS_WAIT polls it until a record comes (a
 *             signal ends the wait with EINTR).
 *   old       when it exists, EVENTS, FENCED and REPLACE fail with ENOTTY, as
 *             from a module that predates them.
 *   region.<id>.<r|w>  made by OPEN; the region file descriptors point at them.
 *             For a persistent region both are hard links to region.<id>.data,
 *             of the region's length, so that every open and mapping of it (in
 *             any process) shares its contents, as the module's do.
 * The file is read at every call, so a test may change it between calls.
 *
 * Writes: under the CXLTIER_SYSFS tree, a write to the file CXLTIER_FAKE_REFUSE
 * names fails with EINVAL, and so does one to daemon/wmark_low_mb or
 * daemon/wmark_high_mb that would put the low watermark above the high one.  A
 * write to any file F there first waits while F.block exists (as blade_drain
 * blocks until the drain is done; a signal ends the wait with EINTR), then fails
 * with the errno in F.errno (a number) when that exists; once written, F holds
 * the contents of F.reply instead when that exists.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/cxltier.h>

#define FAKE_PAGE 4096u
#define FAKE_MAX_NODES 8
#define FAKE_MAX_PAGES 64

struct fake_region {
	unsigned int id;
	char name[CXLTIER_NAME_MAX];
	unsigned long long length;
	unsigned int policy;
	unsigned int mode;
	char access[4];
	unsigned long long resident, fast, fenced;
	unsigned long long promoted, demoted, pingpong, skipped_pinned, failed;
	unsigned long long moved_bytes, sampled, accessed, hinted;
	unsigned int nr_nodes;
	unsigned int node[FAKE_MAX_NODES];
	unsigned long long node_pages[FAKE_MAX_NODES];
	unsigned int nr_pages;
	int pages[FAKE_MAX_PAGES];
	int hint_errno;
	unsigned int nr_fenced;
	int fenced_at[FAKE_MAX_PAGES];
	char fence_blade[CXLTIER_BLADE_NAME_MAX];
	unsigned int fence_cause;
	unsigned long long fence_time;
	int persistent, lost, shared;
	char pool[CXLTIER_POOL_NAME_MAX];
	unsigned long long pool_offset;
};

static int real_ioctl(int fd, unsigned long req, void *arg)
{
	static int (*real)(int, unsigned long, ...);

	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

static ssize_t real_write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return real(fd, buf, n);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* The path @fd is open on, in @path; 0 or -1. */
static int fd_path(int fd, char *path, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	if (n < 0)
		return -1;
	path[n] = '\0';
	return 0;
}

/* The device's canonical path in @dev and its directory in @dir; NULL when no fake. */
static const char *fake_dir(char *dev, char *dir)
{
	const char *env = getenv("CXLTIER_DEV");
	char *slash;

	if (!env || !realpath(env, dev))
		return NULL;
	strcpy(dir, dev);
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return dir;
}

static void parse_list(const char *p, unsigned int max, unsigned int *count,
		       void (*put)(struct fake_region *, unsigned int, const char *, char **),
		       struct fake_region *r)
{
	while (*p && *count < max) {
		char *end;

		put(r, *count, p, &end);
		if (end == p)
			return;
		(*count)++;
		if (*end != ',')
			return;
		p = end + 1;
	}
}

static void put_node(struct fake_region *r, unsigned int i, const char *p, char **end)
{
	r->node[i] = (unsigned int)strtoul(p, end, 10);
	if (**end != ':') {
		*end = (char *)p;
		return;
	}
	r->node_pages[i] = strtoull(*end + 1, end, 10);
}

static void put_page(struct fake_region *r, unsigned int i, const char *p, char **end)
{
	r->pages[i] = (int)strtol(p, end, 10);
}

static void put_fenced(struct fake_region *r, unsigned int i, const char *p, char **end)
{
	r->fenced_at[i] = (int)strtol(p, end, 10);
}

static void parse_key(struct fake_region *r, const char *key, const char *val)
{
	static const struct {
		const char *name;
		size_t off;
	} nums[] = {
#define NUM(f) { #f, offsetof(struct fake_region, f) }
		NUM(resident), NUM(fast), NUM(fenced), NUM(promoted), NUM(demoted),
		NUM(pingpong), NUM(skipped_pinned), NUM(failed), NUM(moved_bytes),
		NUM(sampled), NUM(accessed), NUM(hinted), NUM(pool_offset),
#undef NUM
	};
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (!strcmp(key, nums[i].name)) {
			*(unsigned long long *)((char *)r + nums[i].off) = strtoull(val, NULL, 0);
			return;
		}
	}
	if (!strcmp(key, "hint_errno"))
		r->hint_errno = atoi(val);
	else if (!strcmp(key, "nodes"))
		parse_list(val, FAKE_MAX_NODES, &r->nr_nodes, put_node, r);
	else if (!strcmp(key, "pages"))
		parse_list(val, FAKE_MAX_PAGES, &r->nr_pages, put_page, r);
	else if (!strcmp(key, "fenced_at"))
		parse_list(val, FAKE_MAX_PAGES, &r->nr_fenced, put_fenced, r);
	else if (!strcmp(key, "fence_blade"))
		snprintf(r->fence_blade, sizeof(r->fence_blade), "%s", val);
	else if (!strcmp(key, "fence_cause"))
		r->fence_cause = (unsigned int)strtoul(val, NULL, 0);
	else if (!strcmp(key, "fence_time"))
		r->fence_time = strtoull(val, NULL, 0);
	else if (!strcmp(key, "persistent"))
		r->persistent = atoi(val);
	else if (!strcmp(key, "lost"))
		r->lost = atoi(val);
	else if (!strcmp(key, "shared"))
		r->shared = atoi(val);
	else if (!strcmp(key, "pool"))
		snprintf(r->pool, sizeof(r->pool), "%s", val);
}

static int is_fenced(const struct fake_region *r, unsigned long long page)
{
	unsigned int i;

	for (i = 0; i < r->nr_fenced; i++)
		if ((unsigned long long)r->fenced_at[i] == page)
			return 1;
	return 0;
}

/* Whether the fake plays a module that predates EVENTS, FENCED and REPLACE. */
static int is_old(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/old", dir);
	return access(path, F_OK) == 0;
}

/* One line of the events file into @e; 0 or -1 when it is not a record. */
static int parse_event(const char *line, struct cxltier_event *e)
{
	char blade[CXLTIER_BLADE_NAME_MAX], region[CXLTIER_NAME_MAX];
	unsigned long long seq, time_ns, offset, pages, ram_pages, duration_ns;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%llu %llu %u %u %31s %u %63s %llu %llu %llu %llu", &seq, &time_ns,
		   &e->type, &e->cause, blade, &e->region_id, region, &offset, &pages,
		   &ram_pages, &duration_ns) != 11)
		return -1;
	e->seq = seq;
	e->time_ns = time_ns;
	e->offset = offset;
	e->pages = pages;
	e->ram_pages = ram_pages;
	e->duration_ns = duration_ns;
	if (strcmp(blade, "-"))
		memcpy(e->blade, blade, strlen(blade) + 1);
	if (strcmp(region, "-"))
		memcpy(e->region, region, strlen(region) + 1);
	return 0;
}

/* EVENTS without waiting: the records from @ev->seq that fit, as the module does. */
static int read_events(const char *dir, struct cxltier_events *ev)
{
	struct cxltier_event *out = (struct cxltier_event *)(uintptr_t)ev->events;
	unsigned long long want = ev->seq ? ev->seq : 1, first = 0, last = 0;
	char path[PATH_MAX], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		struct cxltier_event e;

		if (parse_event(line, &e))
			continue;
		if (!first)
			first = e.seq;
		last = e.seq;
		if (e.seq >= want && n < ev->count)
			out[n++] = e;
	}
	if (f)
		fclose(f);
	ev->lost = ev->seq && first > want ? (__u32)(first - want) : 0;
	ev->count = n;
	ev->seq = n ? out[n - 1].seq + 1 : (last && want <= last ? last + 1 : want);
	return 0;
}

/*
 * Region @id (when nonzero) or @name from the regions file into @out: 0 or
 * -ENOENT.  With @count, also the number of regions, and up to @room of them
 * into @list.
 */
static int find_region(const char *dir, unsigned int id, const char *name, struct fake_region *out,
		       unsigned int *count, struct cxltier_list_entry *list, unsigned int room)
{
	char path[PATH_MAX], line[1024];
	unsigned int n = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/regions", dir);
	f = fopen(path, "re");
	if (!f) {
		if (count)
			*count = 0;
		return out ? -ENOENT : 0;
	}
	while (fgets(line, sizeof(line), f)) {
		struct fake_region r;
		char *tok, *save = NULL;
		int i;

		memset(&r, 0, sizeof(r));
		if (sscanf(line, "%u %63s %llu %u %o %3s", &r.id, r.name, &r.length, &r.policy,
			   &r.mode, r.access) != 6)
			continue;
		/* Past the six fixed fields: key=value pairs. */
		tok = strtok_r(line, " \t\n", &save);
		for (i = 0; tok && i < 5; i++)
			tok = strtok_r(NULL, " \t\n", &save);
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(tok, '=');

			if (eq) {
				*eq = '\0';
				parse_key(&r, tok, eq + 1);
			}
		}
		if (list && n < room) {
			list[n].id = r.id;
			list[n].policy = r.policy;
			list[n].length = r.length;
			memcpy(list[n].name, r.name, sizeof(r.name));
		}
		n++;
		if (out && !found && (id ? r.id == id : !strcmp(r.name, name))) {
			*out = r;
			found = 1;
		}
	}
	fclose(f);
	if (count)
		*count = n;
	return out && !found ? -ENOENT : 0;
}

static void fill_stat(const struct fake_region *r, struct cxltier_stat *st)
{
	struct cxltier_node_pages *np = (struct cxltier_node_pages *)(uintptr_t)st->node_pages;
	unsigned int i;

	st->id = r->id;
	memcpy(st->name, r->name, sizeof(st->name));
	st->length = r->length;
	st->policy = r->policy;
	st->mode = r->mode;
	st->uid = getuid();
	st->gid = getgid();
	st->resident = r->resident;
	st->fast = r->fast;
	st->fenced = r->fenced;
	for (i = 0; i < r->nr_nodes && i < st->node_count; i++) {
		np[i].node = r->node[i];
		np[i].reserved = 0;
		np[i].pages = r->node_pages[i];
	}
	st->node_count = r->nr_nodes;
	st->blade_count = 0;
	st->promoted = r->promoted;
	st->demoted = r->demoted;
	st->pingpong = r->pingpong;
	st->skipped_pinned = r->skipped_pinned;
	st->failed = r->failed;
	st->moved_bytes = r->moved_bytes;
	st->sampled = r->sampled;
	st->accessed = r->accessed;
	st->hinted = r->hinted;
	st->region_flags = (r->persistent ? CXLTIER_REGION_PERSISTENT : 0) |
			   (r->lost ? CXLTIER_REGION_LOST : 0) |
			   (r->shared ? CXLTIER_REGION_SHARED : 0);
	memset(st->pool, 0, sizeof(st->pool));
	memcpy(st->pool, r->pool, sizeof(st->pool));
	st->pool_offset = r->pool_offset;
}

/* The text of file @dir/@name (one word) in @buf; 0 or -1. */
static int read_word(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX + 512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The pool a persistent region of @length goes on, as the module picks it: @pool
 * when it is online, else (empty @pool) the online pool with the most free bytes.
 * 0, or -ENODEV or -ENOSPC.
 */
static int pick_pool(char *pool, unsigned long long length)
{
	const char *sysfs = getenv("CXLTIER_SYSFS");
	unsigned long long best_free = 0;
	char dir[PATH_MAX], text[64], best[CXLTIER_POOL_NAME_MAX] = "";
	struct dirent *d;
	DIR *pools;

	if (!sysfs)
		return -ENODEV;
	snprintf(dir, sizeof(dir), "%s/pools", sysfs);
	pools = opendir(dir);
	if (!pools)
		return -ENODEV;
	while ((d = readdir(pools))) {
		char pdir[PATH_MAX + 256];
		unsigned long long free_bytes;

		if (d->d_name[0] == '.' || strlen(d->d_name) >= sizeof(best) ||
		    (pool[0] && strcmp(pool, d->d_name)))
			continue;
		snprintf(pdir, sizeof(pdir), "%s/%s", dir, d->d_name);
		if (read_word(pdir, "state", text, sizeof(text)))
			continue;
		if (pool[0] && !strcmp(text, "degraded")) {
			closedir(pools);
			return -EROFS;
		}
		if (strcmp(text, "online"))
			continue;
		free_bytes = read_word(pdir, "free", text, sizeof(text)) ? 0 : strtoull(text, NULL, 0);
		if (!best[0] || free_bytes > best_free) {
			memcpy(best, d->d_name, strlen(d->d_name) + 1);
			best_free = free_bytes;
		}
	}
	closedir(pools);
	if (!best[0])
		return -ENODEV;
	if (length > best_free)
		return -ENOSPC;
	memcpy(pool, best, sizeof(best));
	return 0;
}

/* Replaces the regions file with @text, atomically. */
static int write_regions(const char *dir, const char *text)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/regions", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

/* The regions file without the line of region @id (all of it with @id 0). */
static char *regions_without(const char *dir, unsigned int id, unsigned int *max_id)
{
	char path[PATH_MAX], line[1024];
	size_t len = 0, cap = 4096;
	char *text = malloc(cap);
	FILE *f;

	if (!text)
		return NULL;
	text[0] = '\0';
	*max_id = 0;
	snprintf(path, sizeof(path), "%s/regions", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned int lid = 0;
		size_t n = strlen(line);

		if (sscanf(line, "%u", &lid) == 1) {
			if (lid > *max_id)
				*max_id = lid;
			if (id && lid == id)
				continue;
		}
		if (len + n + 1 > cap) {
			char *more = realloc(text, cap = 2 * (len + n + 1));

			if (!more) {
				free(text);
				fclose(f);
				return NULL;
			}
			text = more;
		}
		memcpy(text + len, line, n + 1);
		len += n;
	}
	if (f)
		fclose(f);
	return text;
}

static int create_region(const char *dir, struct cxltier_create *c)
{
	unsigned long long offset = 0;
	char pool[CXLTIER_POOL_NAME_MAX] = "", line[512];
	unsigned int max_id;
	struct fake_region r;
	char *text, *all;
	int rc;

	if (c->flags & ~CXLTIER_CREATE_FLAGS || c->reserved0 || c->reserved || !c->length ||
	    c->length % FAKE_PAGE || !c->name[0] || memchr(c->name, 0, sizeof(c->name)) == NULL ||
	    memchr(c->pool, 0, sizeof(c->pool)) == NULL)
		return fail(EINVAL);
	if (!find_region(dir, 0, c->name, &r, NULL, NULL, 0))
		return fail(EEXIST);
	if (c->flags & CXLTIER_CREATE_PERSISTENT) {
		unsigned int i;

		if (c->policy)
			return fail(EINVAL);
		for (i = 0; i < CXLTIER_NODE_WORDS; i++)
			if (c->nodes[i])
				return fail(EINVAL);
		memcpy(pool, c->pool, sizeof(pool));
		rc = pick_pool(pool, c->length);
		if (rc)
			return fail(-rc);
	} else if (c->pool[0]) {
		return fail(EINVAL);
	}
	text = regions_without(dir, 0, &max_id);
	if (!text)
		return fail(ENOMEM);
	/* Persistent regions sit one after the other in their pool, past its first MiB. */
	offset = (1ull << 20) + (unsigned long long)max_id * (1ull << 30);
	if (c->flags & CXLTIER_CREATE_PERSISTENT)
		snprintf(line, sizeof(line),
			 "%u %s %llu 0 %o rw persistent=1 pool=%s pool_offset=%llu resident=%llu\n",
			 max_id + 1, c->name, (unsigned long long)c->length,
			 c->flags & CXLTIER_CREATE_MODE ? c->mode : 0600, pool, offset,
			 (unsigned long long)c->length / FAKE_PAGE);
	else
		snprintf(line, sizeof(line), "%u %s %llu %u %o rw\n", max_id + 1, c->name,
			 (unsigned long long)c->length, c->policy,
			 c->flags & CXLTIER_CREATE_MODE ? c->mode : 0600);
	all = malloc(strlen(text) + strlen(line) + 1);
	if (!all) {
		free(text);
		return fail(ENOMEM);
	}
	strcpy(all, text);
	strcat(all, line);
	rc = write_regions(dir, all);
	free(all);
	free(text);
	if (rc)
		return -1;
	c->id = max_id + 1;
	return 0;
}

static void unlink_region_files(const char *dir, unsigned int id)
{
	static const char *const suffix[] = {"r", "w", "data"};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(path, sizeof(path), "%s/region.%u.%s", dir, id, suffix[i]);
		unlink(path);
	}
}

static int destroy_region(const char *dir, struct cxltier_destroy *d)
{
	struct fake_region r;
	unsigned int max_id;
	char *text;
	int rc;

	if (d->flags & ~CXLTIER_DESTROY_FLAGS || d->reserved0 || d->reserved[0] || d->reserved[1])
		return fail(EINVAL);
	if (find_region(dir, d->flags & CXLTIER_BY_ID ? d->id : 0, d->name, &r, NULL, NULL, 0))
		return fail(ENOENT);
	text = regions_without(dir, r.id, &max_id);
	if (!text)
		return fail(ENOMEM);
	rc = write_regions(dir, text);
	free(text);
	if (rc)
		return -1;
	unlink_region_files(dir, r.id);
	return 0;
}

/*
 * The file a region descriptor opens: @path itself, or for a persistent region a
 * hard link of @path to its data file of the region's length.
 */
static int open_region_file(const char *dir, const struct fake_region *r, const char *path)
{
	char data[PATH_MAX];
	int fd;

	struct stat st;

	if (!r->persistent) {
		/* Its length, as the module's mapping has (a sparse file). */
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0 && !fstat(fd, &st) && (unsigned long long)st.st_size < r->length &&
		    ftruncate(fd, (off_t)r->length)) {
			close(fd);
			return -1;
		}
		return fd;
	}
	snprintf(data, sizeof(data), "%s/region.%u.data", dir, r->id);
	fd = open(data, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)r->length)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (link(data, path) && errno != EEXIST)
		return -1;
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Every struct starts with @size, which must match the command's. */
static int size_ok(unsigned long req, const void *arg)
{
	return *(const __u32 *)arg == _IOC_SIZE(req);
}

static int dev_ioctl(const char *dir, unsigned long req, void *arg)
{
	struct fake_region r;
	int rc;

	if (req == CXLTIER_IOC_VERSION)
		return CXLTIER_ABI_VERSION;
	if (!arg || !size_ok(req, arg))
		return fail(EINVAL);
	if (req == CXLTIER_IOC_EVENTS) {
		struct cxltier_events *ev = arg;
		struct cxltier_events copy;

		if (is_old(dir))
			return fail(ENOTTY);
		if (ev->flags & ~CXLTIER_EVENTS_FLAGS || !ev->count ||
		    ev->count > CXLTIER_EVENTS_MAX || ev->reserved[0] || ev->reserved[1])
			return fail(EINVAL);
		for (;;) {
			struct timespec ts = {0, 10 * 1000 * 1000};

			copy = *ev;
			read_events(dir, &copy);
			if (copy.count || !(ev->flags & CXLTIER_EVENTS_WAIT))
				break;
			if (nanosleep(&ts, NULL) && errno == EINTR)
				return fail(EINTR);
		}
		*ev = copy;
		return 0;
	}
	if (req == CXLTIER_IOC_LIST) {
		struct cxltier_list *l = arg;
		unsigned int n;

		find_region(dir, 0, NULL, NULL, &n,
			    (struct cxltier_list_entry *)(uintptr_t)l->entries, l->count);
		l->count = n;
		return 0;
	}
	if (req == CXLTIER_IOC_STAT) {
		struct cxltier_stat *st = arg;

		rc = find_region(dir, st->flags & CXLTIER_BY_ID ? st->id : 0, st->name, &r, NULL,
				 NULL, 0);
		if (rc)
			return fail(-rc);
		fill_stat(&r, st);
		return 0;
	}
	if (req == CXLTIER_IOC_CREATE)
		return create_region(dir, arg);
	if (req == CXLTIER_IOC_DESTROY)
		return destroy_region(dir, arg);
	if (req == CXLTIER_IOC_OPEN) {
		struct cxltier_open *o = arg;
		int want_write = !!(o->flags & CXLTIER_OPEN_WRITE);
		char path[PATH_MAX];

		rc = find_region(dir, o->flags & CXLTIER_BY_ID ? o->id : 0, o->name, &r, NULL,
				 NULL, 0);
		if (rc)
			return fail(-rc);
		if (!strcmp(r.access, "-") || (want_write && strcmp(r.access, "rw")))
			return fail(EACCES);
		snprintf(path, sizeof(path), "%s/region.%u.%c", dir, r.id, want_write ? 'w' : 'r');
		o->fd = open_region_file(dir, &r, path);
		if (o->fd < 0)
			return -1;
		o->id = r.id;
		o->length = r.length;
		memcpy(o->name, r.name, sizeof(o->name));
		return 0;
	}
	return fail(ENOTTY);
}

/* The file behind @fd has data (not a hole) in the page at @off. */
static int page_has_data(int fd, unsigned long long off)
{
	off_t d = lseek(fd, (off_t)off, SEEK_DATA);

	return d >= 0 && (unsigned long long)d < off + FAKE_PAGE;
}

static int region_ioctl(int fd, const char *dir, unsigned int id, int writable, unsigned long req,
			void *arg)
{
	struct fake_region r;

	if (!arg || !size_ok(req, arg))
		return fail(EINVAL);
	if (find_region(dir, id, NULL, &r, NULL, NULL, 0))
		return fail(ENOENT);
	if (req == CXLTIER_IOC_STAT) {
		fill_stat(&r, arg);
		return 0;
	}
	if (req == CXLTIER_IOC_HINT) {
		struct cxltier_hint *h = arg;
		char path[PATH_MAX];
		FILE *f;

		if (h->flags || h->id || h->name[0] || h->reserved[0] || h->reserved[1] ||
		    h->hint > CXLTIER_HINT_MAX || h->offset % FAKE_PAGE || !h->length ||
		    h->length % FAKE_PAGE || h->offset >= r.length ||
		    h->length > r.length - h->offset)
			return fail(EINVAL);
		if (!writable)
			return fail(EBADF);
		if (r.hint_errno)
			return fail(r.hint_errno);
		snprintf(path, sizeof(path), "%s/hints", dir);
		f = fopen(path, "ae");
		if (!f)
			return -1;
		fprintf(f, "%s %llu %llu %u\n", r.name, (unsigned long long)h->offset,
			(unsigned long long)h->length, h->hint);
		fclose(f);
		return 0;
	}
	if ((req == CXLTIER_IOC_FENCED || req == CXLTIER_IOC_REPLACE) && is_old(dir))
		return fail(ENOTTY);
	if (req == CXLTIER_IOC_FENCED) {
		struct cxltier_fenced *fe = arg;

		if (fe->flags || fe->id || fe->name[0] || fe->offset >= r.length)
			return fail(EINVAL);
		fe->fenced = is_fenced(&r, fe->offset / FAKE_PAGE);
		fe->time_ns = fe->fenced ? r.fence_time : 0;
		fe->cause = fe->fenced ? r.fence_cause : 0;
		memset(fe->blade, 0, sizeof(fe->blade));
		if (fe->fenced)
			memcpy(fe->blade, r.fence_blade, sizeof(fe->blade));
		return 0;
	}
	if (req == CXLTIER_IOC_REPLACE) {
		struct cxltier_replace *rp = arg;
		unsigned long long p;
		char path[PATH_MAX];
		FILE *f;

		if (rp->flags || rp->id || rp->name[0] || rp->offset % FAKE_PAGE || !rp->length ||
		    rp->length % FAKE_PAGE || rp->offset >= r.length ||
		    rp->length > r.length - rp->offset)
			return fail(EINVAL);
		if (!writable)
			return fail(EBADF);
		rp->replaced = 0;
		for (p = rp->offset / FAKE_PAGE; p < (rp->offset + rp->length) / FAKE_PAGE; p++)
			rp->replaced += is_fenced(&r, p);
		snprintf(path, sizeof(path), "%s/replaced", dir);
		f = fopen(path, "ae");
		if (!f)
			return -1;
		fprintf(f, "%s %llu %llu\n", r.name, (unsigned long long)rp->offset,
			(unsigned long long)rp->length);
		fclose(f);
		return 0;
	}
	if (req == CXLTIER_IOC_PAGES) {
		struct cxltier_pages *p = arg;
		__s32 *nodes = (__s32 *)(uintptr_t)p->nodes;
		unsigned long long first = p->offset / FAKE_PAGE, total = r.length / FAKE_PAGE;
		unsigned int i;

		if (p->flags || p->id || p->name[0] || p->reserved0 || p->reserved1 ||
		    p->offset % FAKE_PAGE || p->offset >= r.length || !p->count ||
		    p->count > CXLTIER_PAGES_MAX)
			return fail(EINVAL);
		if (p->count > total - first)
			p->count = (__u32)(total - first);
		for (i = 0; i < p->count; i++)
			nodes[i] = first + i < r.nr_pages ? r.pages[first + i] : CXLTIER_PAGE_NONE;
		/*
		 * CXLTIER_FAKE_PAGES_FROM_DATA=1: a page without a pages= entry is there
		 * (node 0) when the region's file has data at it, as a module page exists
		 * once touched.
		 */
		if (getenv("CXLTIER_FAKE_PAGES_FROM_DATA"))
			for (i = 0; i < p->count; i++)
				if (first + i >= r.nr_pages)
					nodes[i] = page_has_data(fd, (first + i) * FAKE_PAGE) ? 0 :
						   CXLTIER_PAGE_NONE;
		return 0;
	}
	return fail(ENOTTY);
}

int ioctl(int fd, unsigned long req, ...)
{
	char dev[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], prefix[PATH_MAX + 16];
	void *arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fd_path(fd, path, sizeof(path)) || !fake_dir(dev, dir))
		return real_ioctl(fd, req, arg);
	if (!strcmp(path, dev))
		return dev_ioctl(dir, req, arg);
	snprintf(prefix, sizeof(prefix), "%s/region.", dir);
	if (!strncmp(path, prefix, strlen(prefix))) {
		unsigned int id;
		char mode;

		if (sscanf(path + strlen(prefix), "%u.%c", &id, &mode) == 2)
			return region_ioctl(fd, dir, id, mode == 'w', req, arg);
	}
	return real_ioctl(fd, req, arg);
}

/* The number in file @dir/@name (@dir itself when @name is ""), or -1. */
static long long read_number(const char *dir, const char *name)
{
	char path[PATH_MAX];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", dir, *name ? "/" : "", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Whether the module would refuse @buf written to @path (in the fake tree @root). */
static int refused(const char *root, const char *path, const void *buf, size_t n)
{
	const char *refuse = getenv("CXLTIER_FAKE_REFUSE");
	char want[PATH_MAX], daemon[PATH_MAX], text[32];
	const char *name;
	long long v;

	if (refuse && realpath(refuse, want) && !strcmp(path, want))
		return 1;
	snprintf(daemon, sizeof(daemon), "%s/daemon/", root);
	if (strncmp(path, daemon, strlen(daemon)))
		return 0;
	name = path + strlen(daemon);
	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) ? n : sizeof(text) - 1),
		 (const char *)buf);
	v = strtoll(text, NULL, 10);
	daemon[strlen(daemon) - 1] = '\0';
	/* (While a test builds the tree, the other watermark may not exist yet.) */
	if (!strcmp(name, "wmark_low_mb"))
		return read_number(daemon, "wmark_high_mb") >= 0 &&
		       v > read_number(daemon, "wmark_high_mb");
	if (!strcmp(name, "wmark_high_mb"))
		return read_number(daemon, "wmark_low_mb") > v;
	return 0;
}

/*
 * When @reply exists, @path then holds its contents, as a store method changes
 * what show() reads next (pools/<r>/check after "repair").  0, or -1 with errno.
 */
static int put_reply(const char *path, const char *reply)
{
	char text[4096];
	ssize_t len;
	int in, out, rc = 0;

	in = open(reply, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	len = read(in, text, sizeof(text));
	close(in);
	out = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (len < 0 || out < 0 || real_write(out, text, (size_t)len) != len)
		rc = -1;
	if (out >= 0)
		close(out);
	return rc;
}

/* Waits while @path.block exists; 0, or -1 with EINTR when a signal came. */
static int wait_unblocked(const char *path)
{
	char block[PATH_MAX + 8];

	snprintf(block, sizeof(block), "%s.block", path);
	while (access(block, F_OK) == 0) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		if (nanosleep(&ts, NULL) && errno == EINTR)
			return fail(EINTR);
	}
	return 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	const char *env = getenv("CXLTIER_SYSFS");
	char root[PATH_MAX], path[PATH_MAX], ctl[PATH_MAX + 8];
	long long e;
	ssize_t w;

	if (!env || !realpath(env, root) || fd_path(fd, path, sizeof(path)) ||
	    strncmp(path, root, strlen(root)) || path[strlen(root)] != '/')
		return real_write(fd, buf, n);
	if (refused(root, path, buf, n))
		return fail(EINVAL);
	if (wait_unblocked(path))
		return -1;
	snprintf(ctl, sizeof(ctl), "%s.errno", path);
	e = read_number(ctl, "");
	if (e > 0)
		return fail((int)e);
	w = real_write(fd, buf, n);
	if (w < 0)
		return w;
	snprintf(ctl, sizeof(ctl), "%s.reply", path);
	if (put_reply(path, ctl))
		return -1;
	return w;
}
