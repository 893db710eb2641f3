// SPDX-License-Identifier: GPL-2.0
// A pool: a CXL pmem region that holds persistent regions, or a CXL RAM region
// attached as a shared pool, as the module's /sys/kernel/cxltier/pools/<region>/
// describes it, with its host records and table entries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cxltier.h"
#include "name_list.hpp"
#include "sysfs.hpp"

// A line of pools/<region>/hosts.
struct cxltier_pool_host {
	cxltier_pool *pool; // set by link_pool() once the snapshot's pools stay put
	unsigned int id;    // 1 to 63
	std::string state;  // "live", "expired", "detached", or a newer module's word
	std::string name;   // the host's node name
	std::uint64_t heartbeat;
	std::uint64_t age_ms;
	bool self;
};

// A line of pools/<region>/table.
struct cxltier_pool_entry {
	cxltier_pool *pool; // as for hosts
	unsigned int number;
	std::string state; // "used", "dying", or a newer module's word
	std::string name;
	std::uint64_t offset;
	std::uint64_t length;
	std::uint32_t uid;
	std::uint32_t gid;
	unsigned int mode;
	std::uint32_t id;
	std::vector<unsigned int> hosts; // ids that have it open, in the module's order
};

struct cxltier_pool {
	cxltier_ctx *ctx;
	std::string name;
	cxltier_pool_state state;
	std::uint64_t size;
	std::uint64_t free;
	unsigned int regions;
	cxltier::internal::name_list blades;
	std::string uuid;
	std::string format;
	std::string error;
	bool shared;	   // attached with pool_attach
	unsigned int host; // this host's record id in a shared pool, else 0
	unsigned int lease_ms; // a shared pool's lease, from its device (0: not known)
	unsigned int grace_ms; // and its grace
	std::vector<cxltier_pool_host> hosts;	  // the file's order
	std::vector<cxltier_pool_entry> entries; // the file's order
};

namespace cxltier::internal {

// Reads one pool directory; the error names the first file at fault (and the line,
// for hosts and table).  Files older modules lack read as 0 or empty.
result<cxltier_pool> load_pool(cxltier_ctx *ctx, const fs::path &dir);

// Points @p's host records and entries at @p; once the snapshot's pools vector is
// final, as moving a pool would leave them pointing at the old place.
void link_pool(cxltier_pool &p);

// The highest host record id a shared pool has (the ABI's host=<id> range).
constexpr unsigned int max_pool_host = 63;

// A pool name as the module takes it (1-23 bytes, no blanks or '/'); names the value.
std::optional<error> check_pool_name(const char *pool);

} // namespace cxltier::internal
