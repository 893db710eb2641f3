// SPDX-License-Identifier: GPL-2.0
// Global regions: the objects behind the C ABI's region, info and list pointers,
// the argument checks shared by the verbs, and the process-wide registry of mapped
// regions that handles resolve through.
#pragma once

#include <cerrno>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cxltier.h"
#include "result.hpp"

// An open region file; mapped when @addr is set.
struct cxltier_region {
	cxltier_ctx *ctx = nullptr; // referenced; receives this region's errors
	int fd = -1;
	std::uint32_t id = 0;
	std::string name;
	std::uint64_t size = 0;
	int access = 0; // CXLTIER_REGION_READ | _WRITE
	void *addr = nullptr;
	bool cached = false; // opened by cxltier_handle_resolve(), owned by the registry
};

struct cxltier_region_info {
	std::uint32_t id;
	std::string name;
	std::uint64_t size;
	cxltier_region_policy policy;
	unsigned int mode;
	std::uint32_t uid;
	std::uint32_t gid;
	bool destroyed;
	bool persistent;
	bool lost;
	bool shared; // on a shared pool: the same id on every host attached to it
	std::string pool;	   // a persistent region's, else ""
	std::uint64_t pool_offset; // a persistent region's, else 0
	std::uint64_t resident;
	std::uint64_t fast;
	std::uint64_t fenced;
	unsigned int maps;
	unsigned int files;
	// Migration counters since the region was created (zero from a module
	// without the migration daemon, which leaves them unwritten).
	std::uint64_t promoted;
	std::uint64_t demoted;
	std::uint64_t pingpong;
	std::uint64_t skipped_pinned;
	std::uint64_t failed;
	std::uint64_t moved_bytes;
	std::uint64_t sampled;
	std::uint64_t accessed;
	std::uint64_t hinted;
	std::vector<int> allowed;
	std::vector<std::pair<int, std::uint64_t>> nodes;
	std::vector<std::pair<std::string, std::uint64_t>> blades;
};

struct cxltier_region_list {
	struct entry {
		std::uint32_t id;
		std::string name;
		std::uint64_t size;
		cxltier_region_policy policy;
	};
	std::vector<entry> entries;
};

namespace cxltier::internal {

// No exception may cross the C ABI; what can throw here is allocation.  Runs @f,
// which returns 0 or -errno, with @reason (a context's last_error) set on failure.
template <class F> int guarded(std::string &reason, F &&f) noexcept
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		try {
			reason = "out of memory";
		} catch (...) {
		}
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

// Checks of the C ABI's arguments, each naming the value at fault.
std::optional<error> check_region_name(const char *name);
std::optional<error> check_region_size(std::uint64_t size);
std::optional<error> check_region_policy(int policy);
std::optional<error> check_region_mode(unsigned int mode);
std::optional<error> check_region_nodes(const int *nodes, std::size_t nr_nodes);

// CXLTIER_DEV when set and not empty, else /dev/cxltier.
std::string dev_path();
// A new descriptor of the device (the caller closes it), after checking that it
// speaks this library's ioctl ABI version; the error names the device.
result<int> open_dev();

// The process-wide registry of mapped regions (region_handle.cpp).
void registry_add(cxltier_region *region);
void registry_remove(cxltier_region *region);

// cxltier_region_open_id() and cxltier_region_map() without the C ABI's checks.
result<cxltier_region *> open_region_by_id(cxltier_ctx *ctx, std::uint32_t id, int access);

} // namespace cxltier::internal
