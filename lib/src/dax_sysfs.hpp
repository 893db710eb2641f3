// SPDX-License-Identifier: GPL-2.0
// The dax devices of a CXL region and their drivers, read and rebound through the
// standard sysfs by hand (dax_sysfs.cpp says why).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sysfs.hpp"
#include "tier.hpp"

namespace cxltier::internal {

// A dax device ("dax3.0") and the driver bound to it ("device_dax", "kmem"; ""
// when none).
struct dax_device {
	std::string name;
	std::string driver;
};

// The dax devices of CXL region @region under the standard sysfs root @sys, in
// natural order; none when the region has no dax region (no such region, a pmem
// region, or its dax region unbound).
result<std::vector<dax_device>> region_dax_devices(const fs::path &sys, std::string_view region);

// <sys>/bus/dax/drivers/<driver>/<verb> ("bind", "unbind").
fs::path dax_driver_file(const fs::path &sys, std::string_view driver, const char *verb);
// Writes the device's name to its driver's unbind file.
write_result dax_unbind(const fs::path &sys, const dax_device &dev);
// Writes @dev to @driver's bind file.
write_result dax_bind(const fs::path &sys, const std::string &dev, std::string_view driver);

} // namespace cxltier::internal
