// SPDX-License-Identifier: GPL-2.0
// A blade: one CXL memory device, from /sys/kernel/cxltier/blades/<memdev>/.
#pragma once

#include <cstdint>
#include <optional>
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
	// Fencing and draining counters; nullopt from a module older than drain.
	std::optional<std::uint64_t> fenced_pages;
	std::optional<std::uint64_t> fence_us;
	std::optional<std::uint64_t> drained_pages;
	std::optional<std::uint64_t> drain_left;
	std::optional<std::uint64_t> drain_us;
	std::optional<std::uint64_t> poisoned_pages;
};

namespace cxltier::internal {

// Reads one blade directory; the error names the first file at fault.
result<cxltier_blade> load_blade(cxltier_ctx *ctx, const fs::path &dir);

} // namespace cxltier::internal
