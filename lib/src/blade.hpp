// SPDX-License-Identifier: GPL-2.0
// A blade: one CXL memory device, cxltier's state of it from
// /sys/kernel/cxltier/blades/<memdev>/ joined with the memdev as libcxl shows it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cxltier.h"
#include "name_list.hpp"
#include "platform.hpp"
#include "sysfs.hpp"

struct cxltier_blade {
	cxltier_ctx *ctx;
	std::string name;
	// From the CXL core (libcxl): 0 and "" for a fenced blade whose memdev is gone.
	std::uint64_t serial;
	std::uint64_t ram_size;
	std::uint64_t pmem_size;
	std::string pci_dev;
	cxltier::internal::name_list cxl_regions; // the regions it is a target of
	// cxltier's: the state and the tiers with memory on the blade.
	cxltier_blade_state state;
	cxltier::internal::name_list tiers;
	// Fencing and draining counters; nullopt from a module older than drain.
	std::optional<std::uint64_t> fenced_pages;
	std::optional<std::uint64_t> fence_us;
	std::optional<std::uint64_t> drained_pages;
	std::optional<std::uint64_t> drain_left;
	std::optional<std::uint64_t> drain_us;
	std::optional<std::uint64_t> poisoned_pages;
};

namespace cxltier::internal {

// Reads one blade directory, the CXL core's facts left for join_blade(); the error
// names the first file at fault.
result<cxltier_blade> load_blade(cxltier_ctx *ctx, const fs::path &dir);

// Fills @b's serial, sizes, PCI device and regions from @topo.
void join_blade(cxltier_blade &b, const cxl_topology &topo);

} // namespace cxltier::internal
