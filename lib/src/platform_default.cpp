// SPDX-License-Identifier: GPL-2.0
// The platform a context reads on a real system: libcxl, libdaxctl and libnuma.
// Kept apart so that host tests can link their fake in its place.
#include "platform.hpp"

namespace cxltier::internal {

namespace {

class system_platform final : public platform_source {
public:
	result<cxl_topology> read_cxl() override { return read_cxl_libcxl(); }
	result<std::vector<numa_node_data>> read_nodes(const std::vector<int> &known) override
	{
		return read_nodes_libnuma(known);
	}
};

} // namespace

std::unique_ptr<platform_source> make_platform_source()
{
	return std::make_unique<system_platform>();
}

} // namespace cxltier::internal
