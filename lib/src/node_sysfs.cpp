// SPDX-License-Identifier: GPL-2.0
// The one place libcxltier parses the kernel's standard sysfs by hand:
//   <sys>/devices/virtual/memory_tiering/memory_tier<T>/nodelist
//   <sys>/kernel/mm/mempolicy/weighted_interleave/node<N>
//   <sys>/devices/system/node/node<N>/access0/initiators/read_bandwidth
// libnuma (2.0.16) knows nothing of memory tiers, interleave weights or the access
// coordinates firmware reports (HMAT, or CDAT through the CXL core), and libcxl
// has no node view; node sizes, CPUs and the list of nodes come from libnuma
// (platform_libnuma.cpp).  <sys> is CXLTIER_SYS_ROOT, so tests can use a fake tree.
#include "node_sysfs.hpp"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <optional>

#include "cxltier.h"

namespace cxltier::internal {

namespace {

constexpr const char *memory_tiering_dir = "devices/virtual/memory_tiering";
constexpr const char *weights_dir = "kernel/mm/mempolicy/weighted_interleave";
constexpr const char *node_dir = "devices/system/node";

// "memory_tier12" with @prefix "memory_tier" -> 12; anything else (power/) is no id.
std::optional<int> suffix_id(std::string_view name, std::string_view prefix)
{
	if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
		return std::nullopt;
	std::string_view digits = name.substr(prefix.size());
	int id = 0;
	auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
	if (ec != std::errc() || ptr != digits.data() + digits.size() || id < 0)
		return std::nullopt;
	return id;
}

bool gone(const fs::path &p)
{
	std::error_code ec;
	return !fs::exists(p, ec);
}

// A file that is legitimately absent on some kernels or nodes: nullopt then.
result<std::optional<std::string>> read_optional(const fs::path &file)
{
	auto r = read_attr(file);
	if (r)
		return std::optional<std::string>(std::move(r).value());
	if (r.err().code == -ENOENT)
		return std::optional<std::string>();
	return std::move(r).err();
}

result<unsigned int> parse_uint(const fs::path &file, std::string_view text, unsigned int max)
{
	auto v = parse_u64_dec(file, text);
	if (!v)
		return std::move(v).err();
	if (*v > max)
		return error{-EBADMSG, file.string() + ": " + std::to_string(*v) +
					       " is out of range [0, " + std::to_string(max) + "]"};
	return static_cast<unsigned int>(*v);
}

// An optional file holding a number up to @max: 0 when absent.
result<unsigned int> optional_uint(const fs::path &file, unsigned int max)
{
	auto text = read_optional(file);
	if (!text)
		return std::move(text).err();
	if (!*text)
		return 0u;
	return parse_uint(file, **text, max);
}

} // namespace

fs::path std_sysfs_root()
{
	const char *env = std::getenv(CXLTIER_SYS_ENV);
	return (env && *env) ? fs::path(env) : fs::path(CXLTIER_SYS_ROOT);
}

result<std::vector<id_range>> parse_id_ranges(const fs::path &file, std::string_view text)
{
	std::vector<id_range> ranges;
	auto bad = [&] {
		return error{-EBADMSG, file.string() + ": expected a list such as 0-3,5, got " +
					       quote_value(text)};
	};
	auto number = [](std::string_view s) -> std::optional<int> {
		int v = 0;
		auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
		if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0)
			return std::nullopt;
		return v;
	};
	std::string_view rest = text;
	while (!rest.empty()) {
		std::size_t comma = rest.find(',');
		std::string_view item = rest.substr(0, comma);
		rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
		if (comma != std::string_view::npos && rest.empty())
			return bad(); // trailing comma
		std::size_t dash = item.find('-');
		auto lo = number(item.substr(0, dash));
		auto hi = dash == std::string_view::npos ? lo : number(item.substr(dash + 1));
		if (!lo || !hi || *hi < *lo)
			return bad();
		ranges.emplace_back(*lo, *hi);
	}
	return ranges;
}

result<std::vector<memory_tier_nodes>> load_memory_tiers(const fs::path &sys)
{
	fs::path base = sys / memory_tiering_dir;
	auto names = list_subdirs(base); // missing: a kernel without memory tiering
	if (!names)
		return std::move(names).err();
	std::vector<memory_tier_nodes> tiers;
	for (const auto &name : *names) {
		auto id = suffix_id(name, "memory_tier");
		if (!id)
			continue;
		fs::path file = base / name / "nodelist";
		auto text = read_attr(file);
		if (!text) {
			// A tier whose last node went away is destroyed: not an error.
			if ((text.err().code == -ENOENT || text.err().code == -ENODEV) && gone(base / name))
				continue;
			if (text.err().code == -ENOENT)
				return error{-EBADMSG, text.err().msg};
			return std::move(text).err();
		}
		auto ranges = parse_id_ranges(file, *text);
		if (!ranges)
			return std::move(ranges).err();
		tiers.push_back({*id, std::move(ranges).value()});
	}
	return tiers;
}

int memory_tier_of(const std::vector<memory_tier_nodes> &tiers, int node)
{
	for (const auto &t : tiers)
		for (auto [lo, hi] : t.nodes)
			if (node >= lo && node <= hi)
				return t.tier;
	return -1;
}

result<node_sysfs_facts> load_node_facts(const fs::path &sys, int id)
{
	node_sysfs_facts f;
	std::string node = "node" + std::to_string(id);
	// Present only when firmware reported it.
	auto bw = optional_uint(sys / node_dir / node / "access0/initiators/read_bandwidth", UINT_MAX);
	if (!bw)
		return std::move(bw).err();
	f.read_bandwidth = *bw;
	// Present from Linux 6.9 on (CONFIG_NUMA).
	auto w = optional_uint(interleave_weight_file(sys, id), max_interleave_weight);
	if (!w)
		return std::move(w).err();
	f.weight = *w;
	return f;
}

fs::path interleave_weights_dir(const fs::path &sys)
{
	return sys / weights_dir;
}

fs::path interleave_weight_file(const fs::path &sys, int id)
{
	return interleave_weights_dir(sys) / ("node" + std::to_string(id));
}

} // namespace cxltier::internal
