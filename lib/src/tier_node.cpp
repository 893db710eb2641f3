// SPDX-License-Identifier: GPL-2.0
// NUMA nodes: what libnuma reports (platform_libnuma.cpp) with the memory tier,
// bandwidth and interleave weight read by hand (node_sysfs.cpp), and the
// weighted-interleave weights computed from bandwidths.
#include "tier.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <numeric>

#include "ctx.hpp"
#include "export.hpp"
#include "node_sysfs.hpp"

namespace cxltier::internal {

namespace {

constexpr unsigned int max_weight = max_interleave_weight;

// Ratios the weights must match before smaller weights are good enough.
constexpr double weight_tolerance = 0.02;

bool gone(const fs::path &p)
{
	std::error_code ec;
	return !fs::exists(p, ec);
}

} // namespace

result<numa_nodes> load_nodes(cxltier_ctx *ctx, const fs::path &sys,
			      const std::vector<numa_node_data> &found)
{
	numa_nodes out;
	out.sys_root = sys.string();
	auto tiers = load_memory_tiers(sys);
	if (!tiers)
		return std::move(tiers).err();

	for (const auto &f : found) {
		auto facts = load_node_facts(sys, f.id);
		if (!facts) {
			// Its files are optional, so only a node unregistered while being
			// read (its memory went offline completely) fails this way.
			if (facts.err().code == -ENODEV)
				continue;
			return std::move(facts).err();
		}
		out.nodes.push_back({.ctx = ctx,
				     .id = f.id,
				     .memory_tier = memory_tier_of(*tiers, f.id),
				     .mem_total = f.mem_total,
				     .mem_free = f.mem_free,
				     .nr_cpus = f.nr_cpus,
				     .read_bandwidth = facts->read_bandwidth,
				     .weight = facts->weight});
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
	return snapshot_next(node->ctx->snap->numa.nodes, node);
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
		fs::path dir = interleave_weights_dir(ctx->snap->numa.sys_root);
		fs::path file = interleave_weight_file(ctx->snap->numa.sys_root, node);
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
