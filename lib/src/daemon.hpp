// SPDX-License-Identifier: GPL-2.0
// The migration daemon's sysfs files (daemon/, daemon/stats/, daemon/heat, and
// tiers/<region>/{promoted,demoted}_pages): one reading at one moment, and the
// tunables' documented ranges that writes are checked against.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cxltier.h"
#include "sysfs.hpp"

struct cxltier_daemon {
	using named = std::pair<std::string, std::uint64_t>;
	using buckets = std::array<std::uint64_t, CXLTIER_HEAT_BUCKETS>;
	struct tier {
		std::string name;
		std::uint64_t promoted;
		std::uint64_t demoted;
	};

	std::uint64_t time_ns = 0;		  // CLOCK_MONOTONIC when read
	std::vector<named> tunables;		  // documented order, then by name
	std::vector<named> counters;		  // likewise
	std::vector<std::pair<std::string, buckets>> heat; // file order ("fast", "slow")
	std::vector<tier> tiers;		  // natural name order
};

namespace cxltier::internal {

// A tunable's documented range, inclusive (Documentation/ABI/testing/sysfs-kernel-cxltier).
struct tunable_range {
	const char *name;
	std::uint64_t min;
	std::uint64_t max;
};
const tunable_range *find_tunable_range(std::string_view name);

// "fast 1 2 ... 16\nslow ..." as tiers with 16 buckets each; -EBADMSG naming @file.
result<std::vector<std::pair<std::string, cxltier_daemon::buckets>>>
parse_heat(const fs::path &file, std::string_view text);

// Everything a cxltier_daemon holds, read from the module tree at @root.
result<cxltier_daemon> read_daemon(const fs::path &root);

} // namespace cxltier::internal
