// SPDX-License-Identifier: GPL-2.0
// The host tests' platform source, linked into the test builds of libcxltier and
// cxltierctl in place of the library's libcxl/libnuma one (platform_default.cpp):
// libcxl and libnuma read the real /sys and take no root, so the tests describe the
// CXL topology and the NUMA nodes in files next to their fake trees instead:
//
//   <cxltier root>/../fake-libcxl/memdevs/<memN>/{serial,ram_size,pmem_size,host}
//   <cxltier root>/../fake-libcxl/regions/<regionN>/{mode,start,size,interleave_ways,
//                                 interleave_granularity,targets,state,dax_node}
//   <sys root>/fake-libnuma/node<N>/{mem_total_kib,mem_free_kib,cpulist}
//
// (<cxltier root> is CXLTIER_SYSFS, <sys root> CXLTIER_SYS_ROOT; fake_sysfs.hpp and
// tier_fake_sys.hpp write them.)  A missing directory is an empty platform.
#include <cerrno>
#include <climits>

#include "node_sysfs.hpp"
#include "platform.hpp"
#include "sysfs.hpp"

namespace cxltier::internal {

namespace {

cxltier_cxl_region_mode parse_mode(const std::string &s)
{
	if (s == "ram")
		return CXLTIER_CXL_REGION_MODE_RAM;
	if (s == "pmem")
		return CXLTIER_CXL_REGION_MODE_PMEM;
	return CXLTIER_CXL_REGION_MODE_UNKNOWN;
}

cxltier_cxl_region_state parse_state(const std::string &s)
{
	if (s == "uncommitted")
		return CXLTIER_CXL_REGION_STATE_UNCOMMITTED;
	if (s == "committed")
		return CXLTIER_CXL_REGION_STATE_COMMITTED;
	if (s == "dax")
		return CXLTIER_CXL_REGION_STATE_DAX;
	if (s == "system-ram")
		return CXLTIER_CXL_REGION_STATE_SYSTEM_RAM;
	return CXLTIER_CXL_REGION_STATE_UNKNOWN;
}

result<cxl_topology> read_fake_cxl(const fs::path &base)
{
	cxl_topology topo;
	auto memdevs = list_subdirs(base / "memdevs");
	if (!memdevs)
		return std::move(memdevs).err();
	for (const auto &name : *memdevs) {
		attr_reader r(base / "memdevs" / name);
		topo.memdevs.push_back({.name = name,
					.serial = r.u64_hex("serial"),
					.ram_size = r.u64_dec("ram_size"),
					.pmem_size = r.u64_dec("pmem_size"),
					.host = r.text("host")});
		if (r.failure())
			return *r.failure();
	}
	auto regions = list_subdirs(base / "regions");
	if (!regions)
		return std::move(regions).err();
	for (const auto &name : *regions) {
		attr_reader r(base / "regions" / name);
		topo.regions.push_back({
			.name = name,
			.mode = parse_mode(r.text("mode")),
			.start = r.u64_hex("start"),
			.size = r.u64_dec("size"),
			.interleave_ways = static_cast<unsigned int>(r.s64_dec("interleave_ways", 0, UINT_MAX)),
			.interleave_granularity = static_cast<unsigned int>(
				r.s64_dec("interleave_granularity", 0, UINT_MAX)),
			.targets = r.words("targets"),
			.state = parse_state(r.text("state")),
			.dax_node = static_cast<int>(r.s64_dec("dax_node", -1, INT_MAX)),
		});
		if (r.failure())
			return *r.failure();
	}
	return topo;
}

result<std::vector<numa_node_data>> read_fake_nodes(const fs::path &base)
{
	std::vector<numa_node_data> nodes;
	auto names = list_subdirs(base);
	if (!names)
		return std::move(names).err();
	for (const auto &name : *names) {
		attr_reader r(base / name);
		numa_node_data n{.id = std::stoi(name.substr(4)),
				 .mem_total = r.u64_dec("mem_total_kib") * 1024,
				 .mem_free = r.u64_dec("mem_free_kib") * 1024};
		std::string cpus = r.text("cpulist");
		if (r.failure())
			return *r.failure();
		auto ranges = parse_id_ranges(base / name / "cpulist", cpus);
		if (!ranges)
			return std::move(ranges).err();
		for (auto [lo, hi] : *ranges)
			n.nr_cpus += static_cast<unsigned int>(hi - lo + 1);
		nodes.push_back(n);
	}
	return nodes;
}

class fake_platform final : public platform_source {
public:
	result<cxl_topology> read_cxl() override
	{
		return read_fake_cxl(sysfs_root().parent_path() / "fake-libcxl");
	}
	result<std::vector<numa_node_data>> read_nodes(const std::vector<int> &) override
	{
		return read_fake_nodes(std_sysfs_root() / "fake-libnuma");
	}
};

} // namespace

std::unique_ptr<platform_source> make_platform_source()
{
	return std::make_unique<fake_platform>();
}

} // namespace cxltier::internal
