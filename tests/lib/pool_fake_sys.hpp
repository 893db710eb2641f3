// SPDX-License-Identifier: GPL-2.0
// Pools in a fake module tree (pools/<region>/, as the module shows them), for the
// library's and cxltierctl's tests of pools, persistent regions, checkpoints and
// shared pools (with the dax devices and module parameters of a fake /sys).
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

// A shared pool as this host's module shows it after pool_attach: pools/<r>/ with
// shared, host and the hosts and table files (their lines as the ABI has them).
struct shared_pool_spec {
	pool_spec pool;
	std::string host = "2";
	std::string lease_ms = "5000"; // "" for a module that has no such file
	std::string grace_ms = "2500";
	std::string hosts = "1 live node-a 4711 120 -\n2 live node-b 815 20 self\n"
			    "3 expired node-c 99 15000 -";
	std::string table = "0 used kv 2097152 4194304 0 0 0640 32768 1,2\n"
			    "1 dying old 6291456 2097152 1000 100 0600 32769 -";
};

inline void add_shared_pool(const fake_sysfs &sysfs, const shared_pool_spec &s)
{
	add_pool(sysfs, s.pool);
	fs::path d = fs::path("pools") / s.pool.name;
	sysfs.write(d / "shared", "1");
	sysfs.write(d / "host", s.host);
	if (!s.lease_ms.empty()) {
		sysfs.write(d / "lease_ms", s.lease_ms);
		sysfs.write(d / "grace_ms", s.grace_ms);
	}
	sysfs.write(d / "hosts", s.hosts);
	sysfs.write(d / "table", s.table);
}

// Dax device @dev ("dax5.0") of CXL region @region in a fake standard sysfs (a
// fake_sys of tier_fake_sys.hpp), bound to @driver ("" for none), with the
// driver's bind and unbind files, as the dax bus shows them.
inline void add_dax_device(const fake_tree &sys, const std::string &region, const std::string &dev,
			   const std::string &driver)
{
	fs::path d = sys.root() / "bus/cxl/devices" / region / ("dax_" + region) / dev;
	fs::create_directories(d);
	sys.write(fs::path("bus/cxl/devices") / region / ("dax_" + region) / "devtype",
		  "cxl_dax_region");
	for (const char *drv : {"device_dax", "kmem"}) {
		fs::path dd = fs::path("bus/dax/drivers") / drv;
		for (const char *f : {"bind", "unbind"})
			if (!fs::exists(sys.root() / dd / f))
				sys.write(dd / f, "");
	}
	if (!driver.empty())
		fs::create_directory_symlink(sys.root() / "bus/dax/drivers" / driver, d / "driver");
}

// The module parameters of shared pools, as /sys/module/cxltier/parameters/ has them.
inline void set_pool_params(const fake_tree &sys, const std::string &host_id,
			    const std::string &lease_ms = "10000")
{
	sys.write("module/cxltier/parameters/host_id", host_id);
	sys.write("module/cxltier/parameters/pool_lease_ms", lease_ms);
}

} // namespace cxltier_test
