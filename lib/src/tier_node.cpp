// SPDX-License-Identifier: GPL-2.0
// NUMA nodes as the kernel's standard sysfs shows them (not the module's tree):
//   <sys>/devices/system/node/node<N>/{meminfo,cpulist,access0/initiators/read_bandwidth}
//   <sys>/devices/virtual/memory_tiering/memory_tier<T>/nodelist
//   <sys>/kernel/mm/mempolicy/weighted_interleave/node<N>
// and the weighted-interleave weights computed from bandwidths.
#include "tier.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "ctx.hpp"
#include "export.hpp"

namespace cxltier::internal {

namespace {

constexpr const char *node_dir = "devices/system/node";
constexpr const char *memory_tiering_dir = "devices/virtual/memory_tiering";
constexpr const char *weights_dir = "kernel/mm/mempolicy/weighted_interleave";
constexpr unsigned int max_weight = 255; // the kernel stores weights as u8

// Ratios the weights must match before smaller weights are good enough.
constexpr double weight_tolerance = 0.02;

// "node12" with @prefix "node" -> 12; anything else (power/, uevent) is no id.
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

// "Node 0 MemTotal:  2014012 kB" lines, in bytes.
struct meminfo {
	std::uint64_t total = 0;
	std::uint64_t free = 0;
};

result<meminfo> parse_meminfo(const fs::path &file, std::string_view text)
{
	meminfo m;
	bool have_total = false, have_free = false;
	while (!text.empty()) {
		std::size_t eol = text.find('\n');
		auto words = split_words(text.substr(0, eol));
		text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
		if (words.size() < 4 || (words[2] != "MemTotal:" && words[2] != "MemFree:"))
			continue;
		auto kib = parse_u64_dec(file, words[3]);
		if (!kib)
			return std::move(kib).err();
		if (*kib > UINT64_MAX / 1024)
			return error{-EBADMSG, file.string() + ": " + words[3] + " kB is out of range"};
		if (words[2] == "MemTotal:") {
			m.total = *kib * 1024;
			have_total = true;
		} else {
			m.free = *kib * 1024;
			have_free = true;
		}
	}
	if (!have_total || !have_free)
		return error{-EBADMSG, file.string() + ": expected MemTotal and MemFree lines"};
	return m;
}

unsigned int count_ids(const std::vector<id_range> &ranges)
{
	unsigned int n = 0;
	for (auto [lo, hi] : ranges)
		n += static_cast<unsigned int>(hi - lo + 1);
	return n;
}

// node id -> N of the memory_tier<N> whose nodelist holds it.
struct tier_of_node {
	int tier;
	std::vector<id_range> nodes;
};

result<std::vector<tier_of_node>> load_memory_tiers(const fs::path &sys)
{
	fs::path base = sys / memory_tiering_dir;
	auto names = list_subdirs(base); // missing: a kernel without memory tiering
	if (!names)
		return std::move(names).err();
	std::vector<tier_of_node> tiers;
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

int memory_tier_of(const std::vector<tier_of_node> &tiers, int node)
{
	for (const auto &t : tiers)
		for (auto [lo, hi] : t.nodes)
			if (node >= lo && node <= hi)
				return t.tier;
	return -1;
}

result<cxltier_node> load_node(cxltier_ctx *ctx, const fs::path &sys, const fs::path &dir, int id)
{
	cxltier_node n{.ctx = ctx,
		       .id = id,
		       .memory_tier = -1,
		       .mem_total = 0,
		       .mem_free = 0,
		       .nr_cpus = 0,
		       .read_bandwidth = 0,
		       .weight = 0};

	auto text = read_attr(dir / "meminfo");
	if (!text)
		return std::move(text).err();
	auto mem = parse_meminfo(dir / "meminfo", *text);
	if (!mem)
		return std::move(mem).err();
	n.mem_total = mem->total;
	n.mem_free = mem->free;

	text = read_attr(dir / "cpulist");
	if (!text)
		return std::move(text).err();
	auto cpus = parse_id_ranges(dir / "cpulist", *text);
	if (!cpus)
		return std::move(cpus).err();
	n.nr_cpus = count_ids(*cpus);

	// Present only when firmware (HMAT, or CDAT through the CXL core) reported it.
	fs::path bw_file = dir / "access0/initiators/read_bandwidth";
	auto bw = read_optional(bw_file);
	if (!bw)
		return std::move(bw).err();
	if (*bw) {
		auto v = parse_uint(bw_file, **bw, UINT_MAX);
		if (!v)
			return std::move(v).err();
		n.read_bandwidth = *v;
	}

	// Present from Linux 6.9 on (CONFIG_NUMA).
	fs::path w_file = sys / weights_dir / ("node" + std::to_string(id));
	auto w = read_optional(w_file);
	if (!w)
		return std::move(w).err();
	if (*w) {
		auto v = parse_uint(w_file, **w, max_weight);
		if (!v)
			return std::move(v).err();
		n.weight = *v;
	}
	return n;
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

result<numa_nodes> load_nodes(cxltier_ctx *ctx, const fs::path &sys)
{
	numa_nodes out;
	out.sys_root = sys.string();
	auto tiers = load_memory_tiers(sys);
	if (!tiers)
		return std::move(tiers).err();

	fs::path base = sys / node_dir;
	auto names = list_subdirs(base); // missing: a kernel without NUMA, no nodes
	if (!names)
		return std::move(names).err();
	for (const auto &name : *names) {
		auto id = suffix_id(name, "node");
		if (!id)
			continue;
		auto n = load_node(ctx, sys, base / name, *id);
		if (!n) {
			// A node whose memory went offline completely is unregistered.
			int code = n.err().code;
			if ((code == -ENOENT || code == -ENODEV) && gone(base / name))
				continue;
			if (code == -ENOENT)
				return error{-EBADMSG, n.err().msg};
			return std::move(n).err();
		}
		n->memory_tier = memory_tier_of(*tiers, *id);
		out.nodes.push_back(std::move(n).value());
	}
	std::sort(out.nodes.begin(), out.nodes.end(),
		  [](const cxltier_node &a, const cxltier_node &b) { return a.id < b.id; });
	return out;
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT const char *cxltier_get_sys_root(const cxltier_ctx *ctx)
{
	return ctx->snap->numa.sys_root.c_str();
}

CXLTIER_EXPORT cxltier_node *cxltier_node_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->numa.nodes.empty())
		return nullptr;
	return ctx->snap->numa.nodes.data();
}

CXLTIER_EXPORT cxltier_node *cxltier_node_get_next(cxltier_node *node)
{
	if (!node)
		return nullptr;
	auto &all = node->ctx->snap->numa.nodes;
	auto next = static_cast<std::size_t>(node - all.data()) + 1;
	return next < all.size() ? &all[next] : nullptr;
}

CXLTIER_EXPORT cxltier_node *cxltier_node_get_by_id(cxltier_ctx *ctx, int id)
{
	if (!ctx)
		return nullptr;
	for (auto &n : ctx->snap->numa.nodes)
		if (n.id == id)
			return &n;
	return nullptr;
}

CXLTIER_EXPORT cxltier_ctx *cxltier_node_get_ctx(const cxltier_node *node)
{
	return node->ctx;
}

CXLTIER_EXPORT int cxltier_node_get_id(const cxltier_node *node)
{
	return node->id;
}

CXLTIER_EXPORT int cxltier_node_get_memory_tier(const cxltier_node *node)
{
	return node->memory_tier;
}

CXLTIER_EXPORT uint64_t cxltier_node_get_mem_total(const cxltier_node *node)
{
	return node->mem_total;
}

CXLTIER_EXPORT uint64_t cxltier_node_get_mem_free(const cxltier_node *node)
{
	return node->mem_free;
}

CXLTIER_EXPORT unsigned int cxltier_node_get_nr_cpus(const cxltier_node *node)
{
	return node->nr_cpus;
}

CXLTIER_EXPORT unsigned int cxltier_node_get_read_bandwidth(const cxltier_node *node)
{
	return node->read_bandwidth;
}

CXLTIER_EXPORT unsigned int cxltier_node_get_weight(const cxltier_node *node)
{
	return node->weight;
}

CXLTIER_EXPORT int cxltier_node_set_weight(cxltier_ctx *ctx, int node, unsigned int weight)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (node < 0)
			return fail(ctx, {-EINVAL, "no NUMA node " + std::to_string(node)});
		if (weight < 1 || weight > max_weight)
			return fail(ctx, {-EINVAL, "interleave weight " + std::to_string(weight) +
							   " is out of range (1-" +
							   std::to_string(max_weight) + ")"});
		fs::path dir = fs::path(ctx->snap->numa.sys_root) / weights_dir;
		fs::path file = dir / ("node" + std::to_string(node));
		write_result w = write_attr(file, std::to_string(weight));
		if (w.err == 0)
			return 0;
		switch (-w.err) {
		case ENOENT:
			if (gone(dir))
				return fail(ctx, {w.err, "this kernel has no weighted interleave (" +
								 dir.string() +
								 " missing; it came with Linux 6.9)"});
			return fail(ctx, {w.err, "no NUMA node " + std::to_string(node) + " (" +
							 file.string() + " missing)"});
		case EACCES:
		case EPERM:
			return fail(ctx, {w.err, "setting interleave weights needs root"});
		}
		return fail(ctx, {w.err, file.string() + ": cannot write " + std::to_string(weight) +
						 ": " + errno_text(-w.err)});
	});
}

CXLTIER_EXPORT int cxltier_interleave_weights(size_t nr, const uint64_t *bandwidth,
					      unsigned int *weights)
{
	if (nr == 0 || !bandwidth || !weights)
		return -EINVAL;
	std::uint64_t slowest = 0;
	for (size_t i = 0; i < nr; i++)
		if (bandwidth[i] && (!slowest || bandwidth[i] < slowest))
			slowest = bandwidth[i];
	if (!slowest) { // nothing known: leave every weight alone
		std::fill(weights, weights + nr, 0u);
		return 0;
	}

	// The slowest node gets m = 1, 2, ... and the others m times their ratio to it,
	// rounded; the first m that matches every ratio within the tolerance wins,
	// else the closest fit before the fastest node would need more than 255.
	// Nothing here allocates: the C ABI must not throw.
	double best_err = -1;
	unsigned int best_m = 0;
	for (unsigned int m = 1; m <= max_weight; m++) {
		double err = 0;
		bool fits = true;
		for (size_t i = 0; i < nr && fits; i++) {
			if (!bandwidth[i])
				continue;
			double exact = static_cast<double>(bandwidth[i]) * m / static_cast<double>(slowest);
			double w = std::max(1.0, std::round(exact));
			fits = w <= max_weight;
			err = std::max(err, std::fabs(w - exact) / exact);
		}
		if (!fits)
			break;
		if (best_err < 0 || err < best_err) {
			best_err = err;
			best_m = m;
		}
		if (err <= weight_tolerance)
			break;
	}
	unsigned int g = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!bandwidth[i]) {
			weights[i] = 0;
			continue;
		}
		double ratio = static_cast<double>(bandwidth[i]) / static_cast<double>(slowest);
		// best_m 0: the fastest is over 255 times the slowest; clamp it.
		double w = best_m ? std::round(ratio * best_m) : std::round(ratio);
		weights[i] = static_cast<unsigned int>(std::clamp(w, 1.0, double(max_weight)));
		g = std::gcd(g, weights[i]);
	}
	for (size_t i = 0; i < nr; i++)
		weights[i] /= g;
	return 0;
}
