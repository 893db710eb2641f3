/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wrappers of the /dev/cxltier ioctls shared by the selftests, each returning 0 or a
 * file descriptor, else -errno; and dropping privileges the way a member of the
 * "cxltier" group would run.
 */
#ifndef CXLT_REGION_H
#define CXLT_REGION_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cxltier.h>

#define DEV		"/dev/" CXLTIER_DEVICE_NAME
/* The group the shipped udev rule gives /dev/cxltier; the guest image has it. */
#define CXLT_GROUP	"cxltier"
#define NOBODY		65534

/* --- small wrappers of the ioctls: 0 or a file descriptor, else -errno ------------- */

static inline int dev_open(void)
{
	return open(DEV, O_RDWR | O_CLOEXEC);
}

static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline int rg_create(int dev, const char *name, uint64_t len, uint32_t policy, int mode,
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

static inline int rg_open(int dev, const char *name, uint32_t id, uint32_t flags)
{
	struct cxltier_open o = { .size = sizeof(o), .flags = flags };
	int rc;

	if (name)
		snprintf(o.name, sizeof(o.name), "%s", name);
	else
		o.id = id, o.flags |= CXLTIER_BY_ID;
	rc = xioctl(dev, CXLTIER_IOC_OPEN, &o);
	return rc ? rc : o.fd;
}

static inline int rg_destroy(int dev, const char *name)
{
	struct cxltier_destroy d = { .size = sizeof(d) };

	snprintf(d.name, sizeof(d.name), "%s", name);
	return xioctl(dev, CXLTIER_IOC_DESTROY, &d);
}

static inline int rg_set_policy(int dev, const char *name, uint32_t policy)
{
	struct cxltier_set_policy s = { .size = sizeof(s), .policy = policy };

	snprintf(s.name, sizeof(s.name), "%s", name);
	return xioctl(dev, CXLTIER_IOC_SET_POLICY, &s);
}

/* HINT through @fd: /dev/cxltier with @name, or a region file with @name NULL. */
static inline int rg_hint(int fd, const char *name, uint64_t off, uint64_t len,
			  uint32_t hint)
{
	struct cxltier_hint h = { .size = sizeof(h), .hint = hint, .offset = off,
				  .length = len };

	if (name)
		snprintf(h.name, sizeof(h.name), "%s", name);
	return xioctl(fd, CXLTIER_IOC_HINT, &h);
}

/*
 * PAGES through @fd (/dev/cxltier with @name, or a region file with @name NULL): the
 * node of each of @count pages from byte @off into @nodes.  Returns the number of
 * pages reported, or -errno.
 */
static inline int rg_pages(int fd, const char *name, uint64_t off, uint32_t count,
			   int32_t *nodes)
{
	struct cxltier_pages p = { .size = sizeof(p), .offset = off, .count = count,
				   .nodes = (uintptr_t)nodes };
	int rc;

	if (name)
		snprintf(p.name, sizeof(p.name), "%s", name);
	rc = xioctl(fd, CXLTIER_IOC_PAGES, &p);
	return rc ? rc : (int)p.count;
}

/* CREATE with pages allowed only on NUMA node @node (slow-only: first touch there). */
static inline int rg_create_on(int dev, const char *name, uint64_t len, int node)
{
	struct cxltier_create c = { .size = sizeof(c), .length = len,
				    .policy = CXLTIER_POLICY_SLOW_ONLY };

	snprintf(c.name, sizeof(c.name), "%s", name);
	c.nodes[node / 64] |= 1ULL << (node % 64);
	return xioctl(dev, CXLTIER_IOC_CREATE, &c);
}

/* REPLACE through a region file: the number of fenced pages replaced, or -errno. */
static inline long rg_replace(int fd, uint64_t off, uint64_t len)
{
	struct cxltier_replace r = { .size = sizeof(r), .offset = off, .length = len };
	int rc = xioctl(fd, CXLTIER_IOC_REPLACE, &r);

	return rc ? rc : (long)r.replaced;
}

/* FENCED through a region file: 0 with *@f filled in, or -errno. */
static inline int rg_fenced(int fd, uint64_t off, struct cxltier_fenced *f)
{
	memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	f->offset = off;
	return xioctl(fd, CXLTIER_IOC_FENCED, f);
}

/*
 * EVENTS on /dev/cxltier from record @seq: the number of records read into @ev (up
 * to @max), *@next the number after them; or -errno.
 */
static inline int rg_events(int dev, uint64_t seq, struct cxltier_event *ev, uint32_t max,
			    uint64_t *next)
{
	struct cxltier_events e = { .size = sizeof(e), .seq = seq, .count = max,
				    .events = (uintptr_t)ev };
	int rc = xioctl(dev, CXLTIER_IOC_EVENTS, &e);

	if (!rc && next)
		*next = e.seq;
	return rc ? rc : (int)e.count;
}

struct rstat {
	struct cxltier_stat st;
	struct cxltier_node_pages nodes[64];
	struct cxltier_blade_pages blades[16];
};

/* STAT through @fd: /dev/cxltier with @name, or a region file with @name NULL. */
static inline int rg_stat(int fd, const char *name, struct rstat *s)
{
	memset(s, 0, sizeof(*s));
	s->st.size = sizeof(s->st);
	if (name)
		snprintf(s->st.name, sizeof(s->st.name), "%s", name);
	s->st.node_count = 64;
	s->st.node_pages = (uintptr_t)s->nodes;
	s->st.blade_count = 16;
	s->st.blade_pages = (uintptr_t)s->blades;
	return xioctl(fd, CXLTIER_IOC_STAT, &s->st);
}

/*
 * Become user nobody; with @in_group, as a member of the cxltier group (who may
 * open /dev/cxltier), else with no supplementary group.  Returns 0 or -1.
 */
static inline int cxlt_drop_to_user(int in_group)
{
	struct group *g = in_group ? getgrnam(CXLT_GROUP) : NULL;
	gid_t gid;

	if (in_group && !g)
		return -1;
	if (g) {
		gid = g->gr_gid;
		if (setgroups(1, &gid))
			return -1;
	} else if (setgroups(0, NULL)) {
		return -1;
	}
	return setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY) ? -1 : 0;
}

/* Run @fn(@arg) in a child; its exit status, or 128 + the signal that killed it. */
static inline int cxlt_in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The usual unprivileged user of regions: nobody, in the cxltier group. */
static inline int cxlt_drop_to_nobody(void)
{
	return cxlt_drop_to_user(1);
}

#endif /* CXLT_REGION_H */
