// SPDX-License-Identifier: GPL-2.0
// Global regions over /dev/cxltier: create, destroy, set the policy, open, map,
// stat and list.  Every entry point checks its arguments first (so bad input never
// reaches the kernel and gets the library's own message), then makes one ioctl on a
// fresh descriptor of the device, whose ABI version it checks.
#include "region.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/cxltier.h>
#include <new>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ctx.hpp"
#include "export.hpp"
#include "pool.hpp"
#include "sysfs.hpp"

// The C enum and the ABI's numbers are one and the same.
static_assert(CXLTIER_REGION_POLICY_FAST_FIRST == CXLTIER_POLICY_FAST_FIRST);
static_assert(CXLTIER_REGION_POLICY_SLOW_ONLY == CXLTIER_POLICY_SLOW_ONLY);
static_assert(CXLTIER_REGION_POLICY_INTERLEAVE == CXLTIER_POLICY_INTERLEAVE);
static_assert(CXLTIER_REGION_POLICY_PINNED_FAST == CXLTIER_POLICY_PINNED_FAST);
static_assert(CXLTIER_REGION_NAME_MAX + 1 == CXLTIER_NAME_MAX);
static_assert(CXLTIER_REGION_SIZE_MAX == CXLTIER_LENGTH_MAX);

#include "unique_fd.hpp"

namespace cxltier::internal {

std::string dev_path()
{
	const char *env = std::getenv(CXLTIER_DEV_ENV);
	return (env && *env) ? env : CXLTIER_DEV_PATH;
}

result<int> open_dev()
{
	std::string path = dev_path();
	int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return error{-ENOENT, path + ": missing (is cxltier.ko loaded?)"};
		if (e == EACCES)
			return error{-EACCES, path + ": permission denied (the device is for root "
						     "and members of the group cxltier)"};
		return error{-e, path + ": cannot open: " + errno_text(e)};
	}
	int version = ::ioctl(fd, CXLTIER_IOC_VERSION);
	if (version != CXLTIER_ABI_VERSION) {
		int e = errno;
		::close(fd);
		if (version < 0)
			return error{-ENOTTY, path + ": not the cxltier device (" +
						      errno_text(e) + ")"};
		return error{-EPROTONOSUPPORT, path + ": ioctl ABI version " +
						       std::to_string(version) + ", this library speaks " +
						       std::to_string(CXLTIER_ABI_VERSION)};
	}
	return fd;
}

namespace {

constexpr const char *policy_names[] = {"fast-first", "slow-only", "interleave", "pinned-fast"};
constexpr int max_node = CXLTIER_NODE_WORDS * 64 - 1;

// One ioctl on a fresh device descriptor: 0 or -errno with @what and the reason.
result<int> dev_ioctl(unsigned long cmd, void *arg, const std::string &what)
{
	auto fd = open_dev();
	if (!fd)
		return std::move(fd).err();
	unique_fd dev(*fd);
	int rc = ::ioctl(dev.get(), cmd, arg);
	if (rc >= 0)
		return rc;
	int e = errno;
	const char *why;
	switch (e) {
	case ENOENT:
		why = "no such region";
		break;
	case EEXIST:
		why = "a region of that name exists";
		break;
	case EACCES:
		why = "permission denied by the region's mode";
		break;
	case EDQUOT:
		why = "over your user's limit of region memory (RLIMIT_MEMLOCK or the module "
		      "parameter user_limit_mb) or of regions (user_max_regions)";
		break;
	case EPERM:
		why = "only the region's owner or CAP_SYS_ADMIN may do that";
		break;
	case EFBIG:
		why = "larger than the module allows (parameter max_region_gb)";
		break;
	case ENOSPC:
		why = "all region ids are in use";
		break;
	case EINVAL:
		why = "the module refused the request (dynamic debug of cxltier logs why)";
		break;
	default:
		why = errno_text(e);
	}
	return error{-e, what + ": " + why};
}

void copy_name(char (&dst)[CXLTIER_NAME_MAX], const char *name)
{
	std::memset(dst, 0, sizeof(dst));
	std::strncpy(dst, name, sizeof(dst) - 1);
}

void nodes_to_abi(__u64 (&words)[CXLTIER_NODE_WORDS], const int *nodes, std::size_t n)
{
	std::memset(words, 0, sizeof(words));
	for (std::size_t i = 0; i < n; i++)
		words[nodes[i] / 64] |= 1ULL << (nodes[i] % 64);
}

std::string quoted(const char *name)
{
	return std::string("region '") + name + "'";
}

// Read access is required: mapping any file needs it.
int check_access(int access)
{
	return (access & ~CXLTIER_REGION_RDWR) || !(access & CXLTIER_REGION_READ) ? -EINVAL : 0;
}

} // namespace

std::optional<error> check_region_name(const char *name)
{
	if (!name)
		return error{-EINVAL, "region name is NULL"};
	std::size_t len = std::strlen(name);
	if (!len)
		return error{-EINVAL, "region name is empty"};
	if (len > CXLTIER_REGION_NAME_MAX)
		return error{-EINVAL, "region name is " + std::to_string(len) + " bytes, at most " +
					      std::to_string(CXLTIER_REGION_NAME_MAX) + " are allowed"};
	for (std::size_t i = 0; i < len; i++) {
		auto c = static_cast<unsigned char>(name[i]);
		if (c <= ' ' || c >= 0x7f || c == '/')
			return error{-EINVAL, "region name has byte " + std::to_string(c) +
						      " at " + std::to_string(i) +
						      " (allowed: printable ASCII but '/' and blanks)"};
	}
	return std::nullopt;
}

std::optional<error> check_region_size(std::uint64_t size)
{
	long page = ::sysconf(_SC_PAGESIZE);
	if (!size || size % static_cast<std::uint64_t>(page))
		return error{-EINVAL, "region size " + std::to_string(size) +
					      " is not a nonzero multiple of the page size (" +
					      std::to_string(page) + ")"};
	if (size > CXLTIER_REGION_SIZE_MAX)
		return error{-EINVAL, "region size " + std::to_string(size) +
					      " is more than a handle can address (2^48 bytes)"};
	return std::nullopt;
}

std::optional<error> check_region_policy(int policy)
{
	if (policy < 0 || policy > CXLTIER_POLICY_MAX)
		return error{-EINVAL, "unknown region policy " + std::to_string(policy)};
	return std::nullopt;
}

std::optional<error> check_region_mode(unsigned int mode)
{
	if (mode & ~0777u)
		return error{-EINVAL, "region mode " + std::to_string(mode) +
					      " has bits beyond 0777"};
	return std::nullopt;
}

std::optional<error> check_region_nodes(const int *nodes, std::size_t nr_nodes)
{
	if (nr_nodes && !nodes)
		return error{-EINVAL, "node list is NULL"};
	for (std::size_t i = 0; i < nr_nodes; i++)
		if (nodes[i] < 0 || nodes[i] > max_node)
			return error{-EINVAL, "node " + std::to_string(nodes[i]) +
						      " is out of range (0-" + std::to_string(max_node) +
						      ")"};
	return std::nullopt;
}

// OPEN with @o prepared but for its access flags; a region object for the result.
static result<cxltier_region *> open_region(cxltier_ctx *ctx, struct cxltier_open &o, int access,
				     const std::string &what)
{
	o.size = sizeof(o);
	o.flags |= (access & CXLTIER_REGION_READ ? CXLTIER_OPEN_READ : 0) |
		   (access & CXLTIER_REGION_WRITE ? CXLTIER_OPEN_WRITE : 0);
	auto rc = dev_ioctl(CXLTIER_IOC_OPEN, &o, what);
	if (!rc)
		return std::move(rc).err();
	auto *r = new (std::nothrow) cxltier_region;
	if (!r) {
		::close(o.fd);
		throw std::bad_alloc();
	}
	r->ctx = cxltier_ref(ctx);
	r->fd = o.fd;
	r->id = o.id;
	r->size = o.length;
	r->access = access;
	try {
		r->name = std::string(o.name, strnlen(o.name, sizeof(o.name)));
	} catch (...) {
		cxltier_region_close(r);
		throw;
	}
	return r;
}

result<cxltier_region *> open_region_by_id(cxltier_ctx *ctx, std::uint32_t id, int access)
{
	struct cxltier_open o = {};
	o.flags = CXLTIER_BY_ID;
	o.id = id;
	return open_region(ctx, o, access, "open region id " + std::to_string(id));
}

} // namespace cxltier::internal

using namespace cxltier::internal;

namespace {

// STAT through @fd (a region file) or the device (by @name); fills @info.
int stat_into(cxltier_ctx *ctx, int fd, const char *name, cxltier_region_info **out)
{
	std::vector<cxltier_node_pages> nodes(64);
	std::vector<cxltier_blade_pages> blades(64);
	struct cxltier_stat st;
	std::string what = name ? "stat " + quoted(name) : "stat region";

	// At most two rounds: the second with the room the first said is needed.
	for (int round = 0;; round++) {
		st = {};
		st.size = sizeof(st);
		st.node_count = static_cast<__u32>(nodes.size());
		st.node_pages = reinterpret_cast<std::uintptr_t>(nodes.data());
		st.blade_count = static_cast<__u32>(blades.size());
		st.blade_pages = reinterpret_cast<std::uintptr_t>(blades.data());
		if (name) {
			copy_name(st.name, name);
			auto rc = dev_ioctl(CXLTIER_IOC_STAT, &st, what);
			if (!rc)
				return fail(ctx, std::move(rc).err());
		} else if (::ioctl(fd, CXLTIER_IOC_STAT, &st) < 0) {
			int e = errno;
			return fail(ctx, error{-e, what + ": " + errno_text(e)});
		}
		if ((st.node_count <= nodes.size() && st.blade_count <= blades.size()) || round)
			break;
		nodes.resize(std::max<std::size_t>(st.node_count, nodes.size()));
		blades.resize(std::max<std::size_t>(st.blade_count, blades.size()));
	}

	auto info = std::make_unique<cxltier_region_info>();
	info->id = st.id;
	info->name = std::string(st.name, strnlen(st.name, sizeof(st.name)));
	info->size = st.length;
	info->policy = static_cast<cxltier_region_policy>(st.policy);
	info->mode = st.mode;
	info->uid = st.uid;
	info->gid = st.gid;
	info->destroyed = st.region_flags & CXLTIER_REGION_DESTROYED;
	info->persistent = st.region_flags & CXLTIER_REGION_PERSISTENT;
	info->lost = st.region_flags & CXLTIER_REGION_LOST;
	info->shared = st.region_flags & CXLTIER_REGION_SHARED;
	info->pool = std::string(st.pool, strnlen(st.pool, sizeof(st.pool)));
	info->pool_offset = st.pool_offset;
	info->resident = st.resident;
	info->fast = st.fast;
	info->fenced = st.fenced;
	info->maps = st.nr_maps;
	info->files = st.nr_files;
	info->promoted = st.promoted;
	info->demoted = st.demoted;
	info->pingpong = st.pingpong;
	info->skipped_pinned = st.skipped_pinned;
	info->failed = st.failed;
	info->moved_bytes = st.moved_bytes;
	info->sampled = st.sampled;
	info->accessed = st.accessed;
	info->hinted = st.hinted;
	for (int n = 0; n < CXLTIER_NODE_WORDS * 64; n++)
		if (st.nodes[n / 64] & (1ULL << (n % 64)))
			info->allowed.push_back(n);
	for (std::size_t i = 0; i < std::min<std::size_t>(st.node_count, nodes.size()); i++)
		info->nodes.emplace_back(static_cast<int>(nodes[i].node), nodes[i].pages);
	for (std::size_t i = 0; i < std::min<std::size_t>(st.blade_count, blades.size()); i++)
		info->blades.emplace_back(
			std::string(blades[i].name, strnlen(blades[i].name, sizeof(blades[i].name))),
			blades[i].pages);
	std::sort(info->blades.begin(), info->blades.end(), [](const auto &a, const auto &b) {
		return natural_less(a.first, b.first);
	});
	*out = info.release();
	return 0;
}

} // namespace

CXLTIER_EXPORT int cxltier_region_create(cxltier_ctx *ctx, const char *name, uint64_t size,
					 cxltier_region_policy policy, unsigned int mode,
					 const int *nodes, size_t nr_nodes, uint32_t *id)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		std::optional<error> bad = check_region_name(name);
		if (!bad)
			bad = check_region_size(size);
		if (!bad)
			bad = check_region_policy(policy);
		if (!bad)
			bad = check_region_mode(mode);
		if (!bad)
			bad = check_region_nodes(nodes, nr_nodes);
		if (bad)
			return fail(ctx, std::move(*bad));

		struct cxltier_create c = {};
		c.size = sizeof(c);
		c.length = size;
		c.policy = policy;
		if (mode) {
			c.flags = CXLTIER_CREATE_MODE;
			c.mode = mode;
		}
		nodes_to_abi(c.nodes, nodes, nr_nodes);
		copy_name(c.name, name);
		auto rc = dev_ioctl(CXLTIER_IOC_CREATE, &c, "create " + quoted(name));
		if (!rc)
			return fail(ctx, std::move(rc).err());
		if (id)
			*id = c.id;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_region_create_persistent(cxltier_ctx *ctx, const char *name,
						    uint64_t size, unsigned int mode,
						    const char *pool, uint32_t *id)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		std::optional<error> bad = check_region_name(name);
		if (!bad)
			bad = check_region_size(size);
		if (!bad)
			bad = check_region_mode(mode);
		if (!bad && pool && *pool)
			bad = check_pool_name(pool);
		if (bad)
			return fail(ctx, std::move(*bad));

		struct cxltier_create c = {};
		c.size = sizeof(c);
		c.flags = CXLTIER_CREATE_PERSISTENT;
		c.length = size;
		if (mode) {
			c.flags |= CXLTIER_CREATE_MODE;
			c.mode = mode;
		}
		copy_name(c.name, name);
		if (pool)
			std::strncpy(c.pool, pool, sizeof(c.pool) - 1);
		std::string where = pool && *pool ? std::string("pool ") + pool : "any pool";
		auto rc = dev_ioctl(CXLTIER_IOC_CREATE, &c,
				    "create persistent " + quoted(name) + " on " + where);
		if (!rc) {
			error e = std::move(rc).err();
			// These two mean something else for a persistent region.
			if (e.code == -ENODEV)
				e.msg = "create persistent " + quoted(name) + ": " +
					(pool && *pool ? std::string("no pool ") + pool + " online"
						       : std::string("no pool online")) +
					" (see cxltierctl pool list)";
			else if (e.code == -ENOSPC)
				e.msg = "create persistent " + quoted(name) + ": no room for " +
					std::to_string(size) + " bytes on " + where +
					" (no free table entry or no contiguous space)";
			else if (e.code == -EROFS)
				e.msg = "create persistent " + quoted(name) + ": " + where +
					" is degraded (a table entry fails its checksum): nothing is "
					"created on it (see cxltierctl pool list)";
			return fail(ctx, std::move(e));
		}
		if (id)
			*id = c.id;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_region_destroy(cxltier_ctx *ctx, const char *name)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_region_name(name))
			return fail(ctx, std::move(*bad));
		struct cxltier_destroy d = {};
		d.size = sizeof(d);
		copy_name(d.name, name);
		auto rc = dev_ioctl(CXLTIER_IOC_DESTROY, &d, "destroy " + quoted(name));
		return rc ? 0 : fail(ctx, std::move(rc).err());
	});
}

CXLTIER_EXPORT int cxltier_region_set_policy(cxltier_ctx *ctx, const char *name,
					     cxltier_region_policy policy, const int *nodes,
					     size_t nr_nodes)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		std::optional<error> bad = check_region_name(name);
		if (!bad)
			bad = check_region_policy(policy);
		if (!bad)
			bad = check_region_nodes(nodes, nr_nodes);
		if (bad)
			return fail(ctx, std::move(*bad));
		struct cxltier_set_policy s = {};
		s.size = sizeof(s);
		s.policy = policy;
		nodes_to_abi(s.nodes, nodes, nr_nodes);
		copy_name(s.name, name);
		auto rc = dev_ioctl(CXLTIER_IOC_SET_POLICY, &s, "set policy of " + quoted(name));
		return rc ? 0 : fail(ctx, std::move(rc).err());
	});
}

CXLTIER_EXPORT int cxltier_region_open(cxltier_ctx *ctx, const char *name, int access,
				       cxltier_region **region)
{
	if (!ctx || !region)
		return -EINVAL;
	*region = nullptr;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_region_name(name))
			return fail(ctx, std::move(*bad));
		if (check_access(access))
			return fail(ctx, error{-EINVAL, "access " + std::to_string(access) +
								" is not CXLTIER_REGION_READ or _RDWR (mapping needs read access)"});
		struct cxltier_open o = {};
		copy_name(o.name, name);
		auto r = open_region(ctx, o, access, "open " + quoted(name));
		if (!r)
			return fail(ctx, std::move(r).err());
		*region = *r;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_region_open_id(cxltier_ctx *ctx, uint32_t id, int access,
					  cxltier_region **region)
{
	if (!ctx || !region)
		return -EINVAL;
	*region = nullptr;
	return guarded(ctx->last_error, [&] {
		if (!id || id > CXLTIER_REGION_ID_MAX)
			return fail(ctx, error{-EINVAL, "region id " + std::to_string(id) +
								" is out of range (1-65535)"});
		if (check_access(access))
			return fail(ctx, error{-EINVAL, "access " + std::to_string(access) +
								" is not CXLTIER_REGION_READ or _RDWR (mapping needs read access)"});
		auto r = open_region_by_id(ctx, id, access);
		if (!r)
			return fail(ctx, std::move(r).err());
		*region = *r;
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_region_close(cxltier_region *region)
{
	if (!region)
		return;
	cxltier_region_unmap(region);
	if (region->fd >= 0)
		::close(region->fd);
	cxltier_unref(region->ctx);
	delete region;
}

CXLTIER_EXPORT int cxltier_region_map(cxltier_region *region, void **addr)
{
	if (!region || !addr)
		return -EINVAL;
	if (region->addr) {
		*addr = region->addr;
		return 0;
	}
	return guarded(region->ctx->last_error, [&] {
		if (!(region->access & CXLTIER_REGION_READ))
			return fail(region->ctx, error{-EACCES, "map " + quoted(region->name.c_str()) +
									": opened write-only; a mapping needs read access"});
		int prot = PROT_READ | (region->access & CXLTIER_REGION_WRITE ? PROT_WRITE : 0);
		void *p = ::mmap(nullptr, region->size, prot, MAP_SHARED, region->fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			return fail(region->ctx, error{-e, "map " + quoted(region->name.c_str()) +
								   ": " + errno_text(e)});
		}
		region->addr = p;
		try {
			registry_add(region);
		} catch (...) {
			::munmap(p, region->size);
			region->addr = nullptr;
			throw;
		}
		*addr = p;
		return 0;
	});
}

CXLTIER_EXPORT int cxltier_region_unmap(cxltier_region *region)
{
	if (!region)
		return -EINVAL;
	if (!region->addr)
		return 0;
	registry_remove(region);
	::munmap(region->addr, region->size);
	region->addr = nullptr;
	return 0;
}

CXLTIER_EXPORT uint32_t cxltier_region_get_id(const cxltier_region *region)
{
	return region->id;
}

CXLTIER_EXPORT const char *cxltier_region_get_name(const cxltier_region *region)
{
	return region->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_region_get_size(const cxltier_region *region)
{
	return region->size;
}

CXLTIER_EXPORT void *cxltier_region_get_addr(const cxltier_region *region)
{
	return region->addr;
}

CXLTIER_EXPORT int cxltier_region_get_fd(const cxltier_region *region)
{
	return region->fd;
}

CXLTIER_EXPORT const char *cxltier_region_policy_name(cxltier_region_policy policy)
{
	auto i = static_cast<unsigned int>(policy);
	return i < std::size(policy_names) ? policy_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_region_policy_from_name(const char *name,
						   cxltier_region_policy *policy)
{
	if (!name || !policy)
		return -EINVAL;
	for (std::size_t i = 0; i < std::size(policy_names); i++) {
		if (!std::strcmp(name, policy_names[i])) {
			*policy = static_cast<cxltier_region_policy>(i);
			return 0;
		}
	}
	return -EINVAL;
}

CXLTIER_EXPORT int cxltier_region_stat(cxltier_ctx *ctx, const char *name,
				       cxltier_region_info **info)
{
	if (!ctx || !info)
		return -EINVAL;
	*info = nullptr;
	return guarded(ctx->last_error, [&] {
		if (auto bad = check_region_name(name))
			return fail(ctx, std::move(*bad));
		return stat_into(ctx, -1, name, info);
	});
}

CXLTIER_EXPORT int cxltier_region_stat_open(cxltier_region *region, cxltier_region_info **info)
{
	if (!region || !info)
		return -EINVAL;
	*info = nullptr;
	return guarded(region->ctx->last_error,
		       [&] { return stat_into(region->ctx, region->fd, nullptr, info); });
}

CXLTIER_EXPORT void cxltier_region_info_free(cxltier_region_info *info)
{
	delete info;
}

CXLTIER_EXPORT uint32_t cxltier_region_info_get_id(const cxltier_region_info *info)
{
	return info->id;
}

CXLTIER_EXPORT const char *cxltier_region_info_get_name(const cxltier_region_info *info)
{
	return info->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_size(const cxltier_region_info *info)
{
	return info->size;
}

CXLTIER_EXPORT cxltier_region_policy cxltier_region_info_get_policy(const cxltier_region_info *info)
{
	return info->policy;
}

CXLTIER_EXPORT unsigned int cxltier_region_info_get_mode(const cxltier_region_info *info)
{
	return info->mode;
}

CXLTIER_EXPORT uint32_t cxltier_region_info_get_uid(const cxltier_region_info *info)
{
	return info->uid;
}

CXLTIER_EXPORT uint32_t cxltier_region_info_get_gid(const cxltier_region_info *info)
{
	return info->gid;
}

CXLTIER_EXPORT int cxltier_region_info_is_destroyed(const cxltier_region_info *info)
{
	return info->destroyed;
}

CXLTIER_EXPORT int cxltier_region_info_is_persistent(const cxltier_region_info *info)
{
	return info->persistent;
}

CXLTIER_EXPORT int cxltier_region_info_is_lost(const cxltier_region_info *info)
{
	return info->lost;
}

CXLTIER_EXPORT int cxltier_region_info_is_shared(const cxltier_region_info *info)
{
	return info->shared;
}

CXLTIER_EXPORT const char *cxltier_region_info_get_pool(const cxltier_region_info *info)
{
	return info->pool.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_pool_offset(const cxltier_region_info *info)
{
	return info->pool_offset;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_resident(const cxltier_region_info *info)
{
	return info->resident;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_fast(const cxltier_region_info *info)
{
	return info->fast;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_fenced(const cxltier_region_info *info)
{
	return info->fenced;
}

CXLTIER_EXPORT unsigned int cxltier_region_info_get_maps(const cxltier_region_info *info)
{
	return info->maps;
}

CXLTIER_EXPORT unsigned int cxltier_region_info_get_files(const cxltier_region_info *info)
{
	return info->files;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_promoted(const cxltier_region_info *info)
{
	return info->promoted;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_demoted(const cxltier_region_info *info)
{
	return info->demoted;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_pingpong(const cxltier_region_info *info)
{
	return info->pingpong;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_skipped_pinned(const cxltier_region_info *info)
{
	return info->skipped_pinned;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_failed(const cxltier_region_info *info)
{
	return info->failed;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_moved_bytes(const cxltier_region_info *info)
{
	return info->moved_bytes;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_sampled(const cxltier_region_info *info)
{
	return info->sampled;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_accessed(const cxltier_region_info *info)
{
	return info->accessed;
}

CXLTIER_EXPORT uint64_t cxltier_region_info_get_hinted(const cxltier_region_info *info)
{
	return info->hinted;
}

CXLTIER_EXPORT const int *cxltier_region_info_get_allowed_nodes(const cxltier_region_info *info,
								size_t *count)
{
	if (count)
		*count = info->allowed.size();
	return info->allowed.data();
}

CXLTIER_EXPORT size_t cxltier_region_info_get_nr_nodes(const cxltier_region_info *info)
{
	return info->nodes.size();
}

CXLTIER_EXPORT int cxltier_region_info_get_node(const cxltier_region_info *info, size_t i,
						int *node, uint64_t *pages)
{
	if (!info || i >= info->nodes.size())
		return -ERANGE;
	if (node)
		*node = info->nodes[i].first;
	if (pages)
		*pages = info->nodes[i].second;
	return 0;
}

CXLTIER_EXPORT size_t cxltier_region_info_get_nr_blades(const cxltier_region_info *info)
{
	return info->blades.size();
}

CXLTIER_EXPORT int cxltier_region_info_get_blade(const cxltier_region_info *info, size_t i,
						 const char **name, uint64_t *pages)
{
	if (!info || i >= info->blades.size())
		return -ERANGE;
	if (name)
		*name = info->blades[i].first.c_str();
	if (pages)
		*pages = info->blades[i].second;
	return 0;
}

CXLTIER_EXPORT int cxltier_region_list_new(cxltier_ctx *ctx, cxltier_region_list **list)
{
	if (!ctx || !list)
		return -EINVAL;
	*list = nullptr;
	return guarded(ctx->last_error, [&] {
		std::vector<cxltier_list_entry> entries(16);
		struct cxltier_list l;

		// Regions come and go between calls: grow until everything fits.
		for (;;) {
			l = {};
			l.size = sizeof(l);
			l.count = static_cast<__u32>(entries.size());
			l.entries = reinterpret_cast<std::uintptr_t>(entries.data());
			auto rc = dev_ioctl(CXLTIER_IOC_LIST, &l, "list regions");
			if (!rc)
				return fail(ctx, std::move(rc).err());
			if (l.count <= entries.size())
				break;
			entries.resize(l.count + 16);
		}
		auto out = std::make_unique<cxltier_region_list>();
		for (std::size_t i = 0; i < l.count; i++)
			out->entries.push_back({entries[i].id,
						std::string(entries[i].name,
							    strnlen(entries[i].name,
								    sizeof(entries[i].name))),
						entries[i].length,
						static_cast<cxltier_region_policy>(entries[i].policy)});
		*list = out.release();
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_region_list_free(cxltier_region_list *list)
{
	delete list;
}

CXLTIER_EXPORT size_t cxltier_region_list_get_count(const cxltier_region_list *list)
{
	return list ? list->entries.size() : 0;
}

CXLTIER_EXPORT uint32_t cxltier_region_list_get_id(const cxltier_region_list *list, size_t i)
{
	return list && i < list->entries.size() ? list->entries[i].id : 0;
}

CXLTIER_EXPORT const char *cxltier_region_list_get_name(const cxltier_region_list *list,
							size_t i)
{
	return list && i < list->entries.size() ? list->entries[i].name.c_str() : nullptr;
}

CXLTIER_EXPORT uint64_t cxltier_region_list_get_size(const cxltier_region_list *list, size_t i)
{
	return list && i < list->entries.size() ? list->entries[i].size : 0;
}

CXLTIER_EXPORT cxltier_region_policy cxltier_region_list_get_policy(const cxltier_region_list *list,
								    size_t i)
{
	return list && i < list->entries.size() ? list->entries[i].policy
						 : CXLTIER_REGION_POLICY_FAST_FIRST;
}
