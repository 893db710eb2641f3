// SPDX-License-Identifier: GPL-2.0
// Taking a sample for `stats` and `top`: the daemon first (its reading carries the
// time), then the nodes' use and every region's STAT.
#include "sample.hpp"

#include <cerrno>
#include <map>

#include "cxltierctl.hpp"

namespace cxltierctl {

region_counters counters_of(const cxltier_region_info *i)
{
	return {
		.name = cxltier_region_info_get_name(i),
		.id = cxltier_region_info_get_id(i),
		.size = cxltier_region_info_get_size(i),
		.resident = cxltier_region_info_get_resident(i),
		.fast = cxltier_region_info_get_fast(i),
		.promoted = cxltier_region_info_get_promoted(i),
		.demoted = cxltier_region_info_get_demoted(i),
		.pingpong = cxltier_region_info_get_pingpong(i),
		.skipped_pinned = cxltier_region_info_get_skipped_pinned(i),
		.failed = cxltier_region_info_get_failed(i),
		.moved_bytes = cxltier_region_info_get_moved_bytes(i),
		.sampled = cxltier_region_info_get_sampled(i),
		.accessed = cxltier_region_info_get_accessed(i),
		.hinted = cxltier_region_info_get_hinted(i),
	};
}

namespace {

std::vector<node_usage> node_usages(cxltier_ctx *ctx)
{
	std::map<int, std::string> tier_of;
	for (cxltier_tier *t : cxltier::tiers(ctx))
		tier_of[cxltier_tier_get_node(t)] = cxltier_tier_get_name(t);
	std::vector<node_usage> out;
	for (cxltier_node *n : cxltier::nodes(ctx)) {
		if (!cxltier_node_get_mem_total(n))
			continue;
		int id = cxltier_node_get_id(n);
		auto it = tier_of.find(id);
		out.push_back({id,
			       it != tier_of.end()	    ? "tier " + it->second
			       : cxltier_node_get_nr_cpus(n) ? "dram"
							     : "cpu-less",
			       cxltier_node_get_mem_total(n), cxltier_node_get_mem_free(n)});
	}
	return out;
}

} // namespace

sample take_sample(cxltier_ctx *ctx)
{
	sample s;
	int rc = 0;
	s.daemon = cxltier::read_daemon(ctx, rc);
	if (!s.daemon)
		throw fatal(library_error(ctx, rc));
	s.time = static_cast<double>(cxltier_daemon_get_time_ns(s.daemon.get())) / 1e9;

	if ((rc = cxltier_refresh(ctx)) != 0)
		throw fatal(library_error(ctx, rc));
	s.nodes = node_usages(ctx);

	auto list = cxltier::list_regions(ctx, rc);
	if (!list) {
		s.regions_error = library_error(ctx, rc);
		return s;
	}
	for (std::size_t i = 0; i < cxltier_region_list_get_count(list.get()); i++) {
		auto info = cxltier::stat_region(ctx, cxltier_region_list_get_name(list.get(), i), rc);
		if (info)
			s.regions.push_back(counters_of(info.get()));
		else if (rc != -ENOENT) // one destroyed meanwhile is left out
			throw fatal(library_error(ctx, rc));
	}
	return s;
}

std::optional<std::uint64_t> counter(const sample &s, const char *name)
{
	std::uint64_t v = 0;
	if (!s.daemon || cxltier_daemon_get_counter(s.daemon.get(), name, &v))
		return std::nullopt;
	return v;
}

std::optional<std::uint64_t> tunable(const sample &s, const char *name)
{
	std::uint64_t v = 0;
	if (!s.daemon || cxltier_daemon_get_tunable(s.daemon.get(), name, &v))
		return std::nullopt;
	return v;
}

} // namespace cxltierctl
