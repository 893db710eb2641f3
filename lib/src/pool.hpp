// SPDX-License-Identifier: GPL-2.0
// A pool: a CXL pmem region that holds persistent regions, as the module's
// /sys/kernel/cxltier/pools/<region>/ describes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cxltier.h"
#include "name_list.hpp"
#include "sysfs.hpp"

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
};

namespace cxltier::internal {

// Reads one pool directory; the error names the first file at fault.
result<cxltier_pool> load_pool(cxltier_ctx *ctx, const fs::path &dir);

// A pool name as the module takes it (1-23 bytes, no blanks or '/'); names the value.
std::optional<error> check_pool_name(const char *pool);

} // namespace cxltier::internal
