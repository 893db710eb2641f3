// SPDX-License-Identifier: GPL-2.0
// Pools in a fake module tree (pools/<region>/, as the module shows them), for the
// library's and cxltierctl's tests of pools, persistent regions and checkpoints.
#pragma once

#include <string>

#include "fake_sysfs.hpp"

namespace cxltier_test {

// Defaults: an online pool of 256 MiB, all free, on mem0.
struct pool_spec {
	std::string name;
	std::string state = "online";
	std::string size = "268435456";
	std::string free = "268435456";
	std::string regions = "0";
	std::string blades = "mem0";
	std::string uuid = "3f6c1d9e-2b7a-4c1e-9a53-0d2e8f41b6a7";
	std::string format = "1.0";
	std::string error{};
};

inline void add_pool(const fake_sysfs &sysfs, const pool_spec &p)
{
	fs::path d = fs::path("pools") / p.name;
	sysfs.write(d / "state", p.state);
	sysfs.write(d / "size", p.size);
	sysfs.write(d / "free", p.free);
	sysfs.write(d / "regions", p.regions);
	sysfs.write(d / "blades", p.blades);
	sysfs.write(d / "uuid", p.uuid);
	sysfs.write(d / "format", p.format);
	sysfs.write(d / "error", p.error);
}

// The persist topology: two pmem pools on blades of their own (region1 on mem0,
// region2 on mem1), and the pool_format command file.
inline void add_two_pools(const fake_sysfs &sysfs)
{
	add_pool(sysfs, {.name = "region1", .free = "200000000", .blades = "mem0"});
	add_pool(sysfs, {.name = "region2",
			 .blades = "mem1",
			 .uuid = "9d0b7a55-61c2-4f0e-8e4b-51a7c2d9e013"});
	sysfs.write("pool_format", "");
}

} // namespace cxltier_test
