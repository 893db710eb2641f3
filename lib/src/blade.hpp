// SPDX-License-Identifier: GPL-2.0
// A blade: one CXL memory device, from /sys/kernel/cxltier/blades/<memdev>/.
#pragma once

#include <cstdint>
#include <string>

#include "cxltier.h"
#include "name_list.hpp"
#include "sysfs.hpp"

struct cxltier_blade {
	cxltier_ctx *ctx;
	std::string name;
	std::uint64_t serial;
	std::uint64_t ram_size;
	std::uint64_t pmem_size;
	std::string pci_dev;
	cxltier_blade_state state;
	cxltier::internal::name_list cxl_regions;
};

namespace cxltier::internal {

// Reads one blade directory; the error names the first file at fault.
result<cxltier_blade> load_blade(cxltier_ctx *ctx, const fs::path &dir);

} // namespace cxltier::internal
