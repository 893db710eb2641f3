// SPDX-License-Identifier: GPL-2.0
// Job placement: which NUMA nodes have room for a job now (the plan, from a
// context's snapshot of nodes, tiers and blades) and setting the memory policy
// that sends the job's pages there (set_mempolicy(2) through libnuma's wrapper,
// and the kernel's weighted-interleave weights).  cxltier.h documents the rules;
// this file is the one place they are made.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <numaif.h>

#include "ctx.hpp"
#include "export.hpp"
#include "node_sysfs.hpp"
#include "snapshot.hpp"
#include "tier.hpp"

// <numaif.h> of libnuma 2.0.16 predates weighted interleave; the value is the
// kernel's (include/uapi/linux/mempolicy.h, Linux 6.9).
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#ifndef MPOL_PREFERRED_MANY // Linux 5.15, libnuma 2.0.15
#define MPOL_PREFERRED_MANY 5
#endif

struct cxltier_placement {
	struct node {
		int id;
		cxltier_memory_kind kind;
		std::string tier; // the tier's CXL region, "" for DRAM
		std::uint64_t free;
		std::uint64_t bytes;	  // planned
		unsigned int bandwidth; // MB/s, 0 when not reported
		unsigned int weight;	  // 0 for PREFERRED
		unsigned int kernel_weight; // the kernel's now, 0 without weighted interleave
	};
	struct skip {
		int id;
		cxltier_memory_kind kind; // what the node would have been
		std::string tier;
		std::string reason;
	};
	cxltier_placement_policy policy = CXLTIER_PLACEMENT_PREFERRED;
	std::uint64_t fast = 0;
	std::uint64_t slow = 0;
	cxltier_placement_weights weights = CXLTIER_PLACEMENT_WEIGHTS_NONE;
	std::string note;
	std::vector<node> nodes;   // id order
	std::vector<skip> skipped; // id order
};

namespace cxltier::internal {

namespace {

using plan_node = cxltier_placement::node;
using plan_skip = cxltier_placement::skip;

constexpr const char *kind_names[] = {"unknown", "dram", "cxl"};
constexpr const char *policy_names[] = {"preferred", "interleave", "weighted"};
constexpr const char *weights_names[] = {"none", "equal", "bandwidth", "kernel"};

// "1 GiB", "1000 MiB", "2.5 GiB": as cxltierctl prints sizes, for messages.
std::string size_text(std::uint64_t bytes)
{
	static constexpr const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	std::size_t u = 0;
	while (u + 1 < std::size(units) && bytes >= (std::uint64_t{1} << (10 * (u + 1))))
		u++;
	std::uint64_t unit = std::uint64_t{1} << (10 * u);
	char buf[32];
	if (bytes % unit == 0) {
		std::snprintf(buf, sizeof(buf), "%llu %s",
			      static_cast<unsigned long long>(bytes / unit), units[u]);
		return buf;
	}
	double v = static_cast<double>(bytes) / static_cast<double>(unit);
	if (v >= 1023.95 && u + 1 < std::size(units)) { // not "1024.0 KiB"
		v /= 1024;
		u++;
	}
	std::snprintf(buf, sizeof(buf), "%.1f %s", v, units[u]);
	return buf;
}

// "node 2" or "nodes 0,2".
std::string nodes_text(const std::vector<int> &ids)
{
	std::string s = ids.size() == 1 ? "node " : "nodes ";
	for (std::size_t i = 0; i < ids.size(); i++)
		s += (i ? "," : "") + std::to_string(ids[i]);
	return s;
}

const char *kind_word(cxltier_memory_kind kind)
{
	return kind == CXLTIER_MEMORY_CXL ? "CXL" : "DRAM";
}

// Why nothing new should go to tier @t, or "" when it is usable.
std::string unusable(const snapshot &snap, const cxltier_tier &t)
{
	if (t.state != "online")
		return "the tier is " + t.state;
	for (const char *const *b = t.blades.c_array(); *b; b++)
		for (const auto &blade : snap.blades)
			if (blade.name == *b && blade.state != CXLTIER_BLADE_STATE_ONLINE)
				return "blade " + blade.name + " is " +
				       cxltier_blade_state_name(blade.state);
	return "";
}

// Every node with memory as a candidate of its kind, or skipped with the reason.
struct candidates {
	std::vector<plan_node> nodes; // id order
	std::vector<plan_skip> skipped;
	bool tiers = false; // cxltier has tiers, usable or not
};

const cxltier_tier *tier_on(const snapshot &snap, int node)
{
	for (const auto &t : snap.tiers)
		if (t.node == node)
			return &t;
	return nullptr;
}

// The slowest memory tier that holds a node with CPUs: what DRAM is here.
int dram_memory_tier(const snapshot &snap)
{
	int tier = -1;
	for (const auto &n : snap.numa.nodes)
		if (n.nr_cpus && n.mem_total && !tier_on(snap, n.id))
			tier = std::max(tier, n.memory_tier);
	return tier;
}

cxltier_memory_kind kind_of(const snapshot &snap, const cxltier_node &n, int dram_tier)
{
	if (tier_on(snap, n.id))
		return CXLTIER_MEMORY_CXL;
	if (!n.mem_total)
		return CXLTIER_MEMORY_UNKNOWN;
	if (n.nr_cpus || (n.memory_tier >= 0 && n.memory_tier <= dram_tier))
		return CXLTIER_MEMORY_DRAM;
	return CXLTIER_MEMORY_UNKNOWN;
}

candidates find_candidates(const snapshot &snap)
{
	const int dram_tier = dram_memory_tier(snap);
	candidates c;
	c.tiers = !snap.tiers.empty();
	for (const auto &n : snap.numa.nodes) {
		auto kind = kind_of(snap, n, dram_tier);
		if (kind == CXLTIER_MEMORY_UNKNOWN && !n.mem_total) // CPUs only
			continue;
		if (kind == CXLTIER_MEMORY_CXL) {
			const cxltier_tier &t = *tier_on(snap, n.id);
			if (std::string why = unusable(snap, t); !why.empty()) {
				c.skipped.push_back({n.id, CXLTIER_MEMORY_CXL, t.name, std::move(why)});
				continue;
			}
			c.nodes.push_back({n.id, CXLTIER_MEMORY_CXL, t.name, n.mem_free, 0,
					   n.read_bandwidth, 0, n.weight});
		} else if (kind == CXLTIER_MEMORY_DRAM) {
			c.nodes.push_back({n.id, CXLTIER_MEMORY_DRAM, "", n.mem_free, 0,
					   n.read_bandwidth, 0, n.weight});
		} else {
			c.skipped.push_back({n.id, CXLTIER_MEMORY_UNKNOWN, "",
					     "CPU-less memory that is not a cxltier tier"});
			continue;
		}
		if (!c.nodes.back().free) {
			plan_node &z = c.nodes.back();
			c.skipped.push_back({z.id, z.kind, z.tier, "no free memory"});
			c.nodes.pop_back();
		}
	}
	for (const auto &t : snap.tiers)
		if (std::none_of(snap.numa.nodes.begin(), snap.numa.nodes.end(),
				 [&](const cxltier_node &n) { return n.id == t.node; }))
			c.skipped.push_back({t.node, CXLTIER_MEMORY_CXL, t.name,
					     "node " + std::to_string(t.node) + " is not online"});
	std::sort(c.skipped.begin(), c.skipped.end(),
		  [](const plan_skip &a, const plan_skip &b) { return a.id < b.id; });
	return c;
}

// "region1 on node 3 skipped: blade mem4 is fenced; ..." for the nodes of @kind.
std::string skipped_text(const std::vector<plan_skip> &skipped, cxltier_memory_kind kind)
{
	std::string s;
	for (const auto &k : skipped) {
		if (k.kind != kind)
			continue;
		s += s.empty() ? "" : "; ";
		s += (k.tier.empty() ? "" : k.tier + " on ") + "node " + std::to_string(k.id) +
		     " skipped: " + k.reason;
	}
	return s;
}

// "fast 1 GiB and slow 4 GiB", "slow 4 GiB".
std::string request_text(std::uint64_t fast, std::uint64_t slow)
{
	std::string s;
	if (fast)
		s = "fast " + size_text(fast);
	if (fast && slow)
		s += " and ";
	if (slow)
		s += "slow " + size_text(slow);
	return s;
}

// @bytes over @nodes, most free first, as the estimate of where PREFERRED puts them.
void fill(std::vector<plan_node *> nodes, std::uint64_t bytes)
{
	std::stable_sort(nodes.begin(), nodes.end(),
			 [](const plan_node *a, const plan_node *b) { return a->free > b->free; });
	for (plan_node *n : nodes) {
		n->bytes = std::min(bytes, n->free);
		bytes -= n->bytes;
	}
}

// PREFERRED: each kind asked for must have its bytes free between its nodes.
std::optional<error> plan_preferred(cxltier_placement &p, candidates c)
{
	std::string shortage;
	for (auto kind : {CXLTIER_MEMORY_DRAM, CXLTIER_MEMORY_CXL}) {
		std::uint64_t want = kind == CXLTIER_MEMORY_DRAM ? p.fast : p.slow;
		if (!want)
			continue;
		std::uint64_t free = 0;
		std::vector<int> ids;
		for (const auto &n : c.nodes)
			if (n.kind == kind) {
				free += n.free;
				ids.push_back(n.id);
			}
		if (free >= want)
			continue;
		std::string where;
		if (!ids.empty())
			where = size_text(free) + " free on " + nodes_text(ids);
		else if (kind == CXLTIER_MEMORY_DRAM)
			where = "no DRAM node has free memory";
		else
			where = c.tiers ? "no usable tier" : "no tier is registered";
		if (std::string why = skipped_text(c.skipped, kind); !why.empty())
			where += "; " + why;
		shortage += shortage.empty() ? "" : "; ";
		shortage += std::string(kind_word(kind)) + " is " + size_text(want - free) +
			    " short (" + where + ")";
	}
	if (!shortage.empty())
		return error{-ENOSPC, "cannot place " + request_text(p.fast, p.slow) + ": " + shortage};

	std::vector<plan_node *> dram, cxl;
	for (auto &n : c.nodes) {
		if (n.kind == CXLTIER_MEMORY_DRAM && p.fast)
			dram.push_back(&n);
		else if (n.kind == CXLTIER_MEMORY_CXL && p.slow)
			cxl.push_back(&n);
	}
	fill(dram, p.fast);
	fill(cxl, p.slow);
	for (auto &n : c.nodes)
		if ((n.kind == CXLTIER_MEMORY_DRAM && p.fast) || (n.kind == CXLTIER_MEMORY_CXL && p.slow))
			p.nodes.push_back(std::move(n));
	p.skipped = std::move(c.skipped);
	return std::nullopt;
}

// The interleave weights of @nodes under @p's policy, with the source and a note.
void set_weights(cxltier_placement &p, std::vector<plan_node> &nodes)
{
	p.note.clear();
	if (p.policy == CXLTIER_PLACEMENT_INTERLEAVE) {
		p.weights = CXLTIER_PLACEMENT_WEIGHTS_EQUAL;
		for (auto &n : nodes)
			n.weight = 1;
		return;
	}
	std::vector<int> unknown;
	std::vector<std::uint64_t> bw;
	for (const auto &n : nodes) {
		if (!n.bandwidth)
			unknown.push_back(n.id);
		bw.push_back(n.bandwidth);
	}
	if (unknown.empty()) {
		std::vector<unsigned int> w(nodes.size());
		cxltier_interleave_weights(bw.size(), bw.data(), w.data());
		for (std::size_t i = 0; i < nodes.size(); i++)
			nodes[i].weight = w[i];
		p.weights = CXLTIER_PLACEMENT_WEIGHTS_BANDWIDTH;
		return;
	}
	// Bandwidths cannot be compared with a node that reports none.  What the
	// kernel has is equal weights, or an administrator's (say, from a
	// measurement), either better than a guess; a kernel without weighted
	// interleave (weight 0) gets 1s here and a refusal from apply.
	p.weights = CXLTIER_PLACEMENT_WEIGHTS_KERNEL;
	bool equal = true;
	for (auto &n : nodes) {
		n.weight = std::max(n.kernel_weight, 1u);
		equal &= n.weight == nodes.front().weight;
	}
	p.note = "no read bandwidth reported for " + nodes_text(unknown) + ": " +
		 (equal ? "equal weights" : "the weights the kernel has now");
}

// The share of @total a node of weight @w gets out of @sum, rounded up.
std::uint64_t share(std::uint64_t total, unsigned int w, std::uint64_t sum)
{
	// (total / sum) * w cannot overflow as w <= sum; neither can the remainder's
	// part, as sum is at most 255 per node.
	return total / sum * w + ((total % sum) * w + sum - 1) / sum;
}

// INTERLEAVE, WEIGHTED: every node must have room for its share of the total.
std::optional<error> plan_interleave(cxltier_placement &p, candidates c)
{
	std::uint64_t total = p.fast + p.slow;
	std::vector<plan_node> nodes;
	for (auto &n : c.nodes)
		if ((n.kind == CXLTIER_MEMORY_DRAM && p.fast) || (n.kind == CXLTIER_MEMORY_CXL && p.slow))
			nodes.push_back(std::move(n));
	auto what = [&] {
		return "cannot interleave " + size_text(total) + " (" + request_text(p.fast, p.slow) +
		       ")";
	};
	for (auto kind : {CXLTIER_MEMORY_DRAM, CXLTIER_MEMORY_CXL}) {
		if ((kind == CXLTIER_MEMORY_DRAM ? p.fast : p.slow) == 0)
			continue;
		if (std::any_of(nodes.begin(), nodes.end(), [&](auto &n) { return n.kind == kind; }))
			continue;
		std::string where = kind == CXLTIER_MEMORY_DRAM ? "no DRAM node has free memory"
				    : c.tiers			    ? "no usable tier"
								    : "no tier is registered";
		if (std::string why = skipped_text(c.skipped, kind); !why.empty())
			where += " (" + why + ")";
		return error{-ENOSPC, what() + ": " + where};
	}

	for (;;) {
		set_weights(p, nodes);
		std::uint64_t sum = 0;
		for (const auto &n : nodes)
			sum += n.weight;
		for (auto &n : nodes)
			n.bytes = share(total, n.weight, sum);
		// Of the nodes short of room, the one with the least room per weight
		// goes first: leaving it out raises the others' shares the least.
		plan_node *worst = nullptr;
		for (auto &n : nodes)
			if (n.bytes > n.free &&
			    (!worst || static_cast<double>(n.free) / n.weight <
					       static_cast<double>(worst->free) / worst->weight))
				worst = &n;
		if (!worst)
			break;
		std::string short_of = size_text(worst->bytes - worst->free) + " short of its " +
				       size_text(worst->bytes) + " share (" + size_text(worst->free) +
				       " free)";
		auto same_kind = std::count_if(nodes.begin(), nodes.end(),
					       [&](auto &n) { return n.kind == worst->kind; });
		if (same_kind == 1) {
			std::vector<int> ids;
			for (const auto &n : nodes)
				ids.push_back(n.id);
			std::string who = "node " + std::to_string(worst->id) + " (" +
					  cxltier_memory_kind_name(worst->kind) +
					  (worst->tier.empty() ? "" : " " + worst->tier) + ")";
			return error{-ENOSPC, what() + " over " + nodes_text(ids) + ": " + who + " is " +
						      short_of};
		}
		c.skipped.push_back({worst->id, worst->kind, worst->tier, short_of});
		nodes.erase(nodes.begin() + (worst - nodes.data()));
	}
	std::sort(c.skipped.begin(), c.skipped.end(),
		  [](const plan_skip &a, const plan_skip &b) { return a.id < b.id; });
	p.nodes = std::move(nodes);
	p.skipped = std::move(c.skipped);
	return std::nullopt;
}

const plan_node *node_at(const cxltier_placement *p, std::size_t i)
{
	return p && i < p->nodes.size() ? &p->nodes[i] : nullptr;
}

const plan_skip *skip_at(const cxltier_placement *p, std::size_t i)
{
	return p && i < p->skipped.size() ? &p->skipped[i] : nullptr;
}

// --- apply ----------------------------------------------------------------------

// The kernel's weights of @p's nodes must be in the plan's proportions; writes
// the plan's when they are not.
int apply_weights(cxltier_ctx *ctx, const cxltier_placement &p)
{
	const fs::path sys = ctx->snap->numa.sys_root;
	const fs::path dir = interleave_weights_dir(sys);
	std::vector<unsigned int> now;
	for (const auto &n : p.nodes) {
		fs::path file = interleave_weight_file(sys, n.id);
		auto text = read_attr(file);
		std::uint64_t w = 0;
		if (text) {
			auto v = parse_u64_dec(file, *text);
			if (!v)
				return fail(ctx, std::move(v).err());
			w = *v;
		} else if (text.err().code != -ENOENT) {
			return fail(ctx, std::move(text).err());
		} else {
			std::error_code ec;
			if (!fs::exists(dir, ec))
				return fail(ctx, {-EOPNOTSUPP, "this kernel has no weighted interleave (" +
								       dir.string() +
								       " missing; it came with Linux 6.9)"});
			return fail(ctx, {-EINVAL, "no NUMA node " + std::to_string(n.id) + " (" +
							   file.string() + " missing)"});
		}
		now.push_back(static_cast<unsigned int>(w));
	}
	// Interleave only sees the ratios between the nodes of the policy.
	bool same = true;
	for (std::size_t i = 1; i < p.nodes.size(); i++)
		same &= std::uint64_t{now[i]} * p.nodes[0].weight ==
			std::uint64_t{now[0]} * p.nodes[i].weight;
	if (same)
		return 0;

	for (std::size_t i = 0; i < p.nodes.size(); i++) {
		const plan_node &n = p.nodes[i];
		if (now[i] == n.weight)
			continue;
		fs::path file = interleave_weight_file(sys, n.id);
		write_result w = write_attr(file, std::to_string(n.weight));
		if (w.err == 0)
			continue;
		std::string what = "weighted interleave needs weight " + std::to_string(n.weight) +
				   " on node " + std::to_string(n.id) + " (it has " +
				   std::to_string(now[i]) + ")";
		if (w.err == -EACCES || w.err == -EPERM)
			return fail(ctx, {w.err, what + "; setting interleave weights needs root"});
		return fail(ctx, {w.err, what + ": " + file.string() + ": " + errno_text(-w.err)});
	}
	return 0;
}

int apply_policy(cxltier_ctx *ctx, const cxltier_placement &p)
{
	int mode = 0;
	const char *mode_name = "";
	std::vector<int> ids;
	switch (p.policy) {
	case CXLTIER_PLACEMENT_PREFERRED: {
		// The DRAM nodes when there is a fast part; the rest falls back.
		auto kind = p.fast ? CXLTIER_MEMORY_DRAM : CXLTIER_MEMORY_CXL;
		for (const auto &n : p.nodes)
			if (n.kind == kind)
				ids.push_back(n.id);
		mode = MPOL_PREFERRED_MANY;
		mode_name = "MPOL_PREFERRED_MANY";
		break;
	}
	case CXLTIER_PLACEMENT_INTERLEAVE:
	case CXLTIER_PLACEMENT_WEIGHTED:
		for (const auto &n : p.nodes)
			ids.push_back(n.id);
		mode = p.policy == CXLTIER_PLACEMENT_WEIGHTED ? MPOL_WEIGHTED_INTERLEAVE
							      : MPOL_INTERLEAVE;
		mode_name = p.policy == CXLTIER_PLACEMENT_WEIGHTED ? "MPOL_WEIGHTED_INTERLEAVE"
								   : "MPOL_INTERLEAVE";
		break;
	}
	if (ids.empty())
		return fail(ctx, {-EINVAL, "the plan has no node"});

	constexpr int bits = CHAR_BIT * sizeof(unsigned long);
	int max_id = *std::max_element(ids.begin(), ids.end());
	std::vector<unsigned long> mask(static_cast<std::size_t>(max_id / bits) + 1);
	for (int id : ids)
		mask[static_cast<std::size_t>(id / bits)] |= 1ul << (id % bits);
	// The kernel reads maxnode - 1 bits.
	if (set_mempolicy(mode, mask.data(), mask.size() * bits + 1) == 0)
		return 0;
	int e = errno;
	std::string what = std::string("set_mempolicy(") + mode_name + ", " + nodes_text(ids) + ")";
	switch (e) {
	case EPERM:
		return fail(ctx, {-EPERM, what + ": not permitted here (a seccomp filter, such as a "
					       "container's, forbids it)"});
	case EINVAL:
		// Weighted interleave exists: apply_weights() found its weights.
		if (mode == MPOL_PREFERRED_MANY)
			return fail(ctx, {-EINVAL, what + ": refused: none of the nodes is in this "
							  "process's cpuset, or the kernel predates "
							  "MPOL_PREFERRED_MANY (Linux 5.15)"});
		return fail(ctx, {-EINVAL, what + ": refused: none of the nodes is in this "
						  "process's cpuset"});
	}
	return fail(ctx, {-e, what + ": " + errno_text(e)});
}

} // namespace

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_placement_plan(cxltier_ctx *ctx, uint64_t fast_bytes,
					  uint64_t slow_bytes, cxltier_placement_policy policy,
					  unsigned int flags, cxltier_placement **placement)
{
	if (!ctx || !placement)
		return -EINVAL;
	*placement = nullptr;
	return tier_guarded(ctx->last_error, [&] {
		if (flags)
			return fail(ctx, {-EINVAL, "plan a placement: unknown flags " +
							   std::to_string(flags)});
		if (static_cast<unsigned int>(policy) >= std::size(policy_names))
			return fail(ctx, {-EINVAL, "plan a placement: unknown policy " +
							   std::to_string(static_cast<int>(policy))});
		if (!fast_bytes && !slow_bytes)
			return fail(ctx, {-EINVAL, "plan a placement: nothing to place (fast and slow "
						   "sizes are both 0)"});
		if (fast_bytes + slow_bytes < fast_bytes)
			return fail(ctx, {-EINVAL, "plan a placement: fast and slow sizes add up to "
						   "more than 2^64 bytes"});

		auto p = std::make_unique<cxltier_placement>();
		p->policy = policy;
		p->fast = fast_bytes;
		p->slow = slow_bytes;
		candidates c = find_candidates(*ctx->snap);
		auto err = policy == CXLTIER_PLACEMENT_PREFERRED ? plan_preferred(*p, std::move(c))
								 : plan_interleave(*p, std::move(c));
		if (err)
			return fail(ctx, std::move(*err));
		std::sort(p->nodes.begin(), p->nodes.end(),
			  [](const plan_node &a, const plan_node &b) { return a.id < b.id; });
		*placement = p.release();
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_placement_free(cxltier_placement *placement)
{
	std::unique_ptr<cxltier_placement> adopt(placement);
}

CXLTIER_EXPORT cxltier_placement_policy cxltier_placement_get_policy(const cxltier_placement *p)
{
	return p->policy;
}

CXLTIER_EXPORT uint64_t cxltier_placement_get_fast_bytes(const cxltier_placement *p)
{
	return p->fast;
}

CXLTIER_EXPORT uint64_t cxltier_placement_get_slow_bytes(const cxltier_placement *p)
{
	return p->slow;
}

CXLTIER_EXPORT cxltier_placement_weights cxltier_placement_get_weights(const cxltier_placement *p)
{
	return p->weights;
}

CXLTIER_EXPORT const char *cxltier_placement_get_note(const cxltier_placement *p)
{
	return p->note.c_str();
}

CXLTIER_EXPORT size_t cxltier_placement_get_nr_nodes(const cxltier_placement *p)
{
	return p ? p->nodes.size() : 0;
}

CXLTIER_EXPORT int cxltier_placement_get_node(const cxltier_placement *p, size_t i)
{
	auto n = node_at(p, i);
	return n ? n->id : -1;
}

CXLTIER_EXPORT cxltier_memory_kind cxltier_placement_get_node_kind(const cxltier_placement *p,
								   size_t i)
{
	auto n = node_at(p, i);
	return n ? n->kind : CXLTIER_MEMORY_UNKNOWN;
}

CXLTIER_EXPORT const char *cxltier_placement_get_node_tier(const cxltier_placement *p, size_t i)
{
	auto n = node_at(p, i);
	return n ? n->tier.c_str() : "";
}

CXLTIER_EXPORT uint64_t cxltier_placement_get_node_free(const cxltier_placement *p, size_t i)
{
	auto n = node_at(p, i);
	return n ? n->free : 0;
}

CXLTIER_EXPORT uint64_t cxltier_placement_get_node_bytes(const cxltier_placement *p, size_t i)
{
	auto n = node_at(p, i);
	return n ? n->bytes : 0;
}

CXLTIER_EXPORT unsigned int cxltier_placement_get_node_bandwidth(const cxltier_placement *p,
								 size_t i)
{
	auto n = node_at(p, i);
	return n ? n->bandwidth : 0;
}

CXLTIER_EXPORT unsigned int cxltier_placement_get_node_weight(const cxltier_placement *p, size_t i)
{
	auto n = node_at(p, i);
	return n ? n->weight : 0;
}

CXLTIER_EXPORT size_t cxltier_placement_get_nr_skipped(const cxltier_placement *p)
{
	return p ? p->skipped.size() : 0;
}

CXLTIER_EXPORT int cxltier_placement_get_skipped_node(const cxltier_placement *p, size_t i)
{
	auto s = skip_at(p, i);
	return s ? s->id : -1;
}

CXLTIER_EXPORT const char *cxltier_placement_get_skipped_tier(const cxltier_placement *p, size_t i)
{
	auto s = skip_at(p, i);
	return s ? s->tier.c_str() : "";
}

CXLTIER_EXPORT const char *cxltier_placement_get_skipped_reason(const cxltier_placement *p,
								size_t i)
{
	auto s = skip_at(p, i);
	return s ? s->reason.c_str() : "";
}

CXLTIER_EXPORT int cxltier_placement_apply(cxltier_ctx *ctx, const cxltier_placement *p,
					   unsigned int flags)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (!p)
			return fail(ctx, {-EINVAL, "apply a placement: no plan given"});
		if (flags)
			return fail(ctx, {-EINVAL, "apply a placement: unknown flags " +
							   std::to_string(flags)});
		if (p->policy == CXLTIER_PLACEMENT_WEIGHTED)
			if (int rc = apply_weights(ctx, *p))
				return rc;
		return apply_policy(ctx, *p);
	});
}

CXLTIER_EXPORT cxltier_memory_kind cxltier_node_get_kind(const cxltier_node *node)
{
	const snapshot &snap = *node->ctx->snap;
	return kind_of(snap, *node, dram_memory_tier(snap));
}

CXLTIER_EXPORT const char *cxltier_placement_policy_name(cxltier_placement_policy policy)
{
	auto i = static_cast<unsigned int>(policy);
	return i < std::size(policy_names) ? policy_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_placement_policy_from_name(const char *name,
						      cxltier_placement_policy *policy)
{
	if (!name || !policy)
		return -EINVAL;
	for (unsigned int i = 0; i < std::size(policy_names); i++)
		if (std::string_view(name) == policy_names[i]) {
			*policy = static_cast<cxltier_placement_policy>(i);
			return 0;
		}
	return -EINVAL;
}

CXLTIER_EXPORT const char *cxltier_memory_kind_name(cxltier_memory_kind kind)
{
	auto i = static_cast<unsigned int>(kind);
	return i < std::size(kind_names) ? kind_names[i] : "unknown";
}

CXLTIER_EXPORT const char *cxltier_placement_weights_name(cxltier_placement_weights weights)
{
	auto i = static_cast<unsigned int>(weights);
	return i < std::size(weights_names) ? weights_names[i] : "unknown";
}
