// SPDX-License-Identifier: GPL-2.0
// Access sampling of processes through DAMON's sysfs interface (virtual addresses).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cxlt_procd {

// Monitoring attributes (DAMON's sysfs monitoring_attrs).
struct damon_attrs {
	unsigned sample_us = 5000;
	unsigned aggr_us = 1000000;
	unsigned min_regions = 100;
	unsigned max_regions = 2000;
};

struct damon_region {
	std::uint64_t start, end;	// [start, end) in the target's address space
	std::uint32_t nr_accesses;	// samples that found it accessed, last aggregation
};

// One kdamond over every target, one "stat" scheme per target with a target filter,
// so that each scheme's tried regions are its target's (the regions directories do
// not say which target a region is of).  The aggregation interval is the period:
// collect() returns at the end of an aggregation with its counts.
class damon_monitor {
public:
	// root: /sys/kernel/mm/damon/admin.  Throws std::runtime_error when DAMON's sysfs
	// interface is missing or another user runs a kdamond.
	explicit damon_monitor(std::string root = "/sys/kernel/mm/damon/admin");
	~damon_monitor();
	damon_monitor(const damon_monitor &) = delete;
	damon_monitor &operator=(const damon_monitor &) = delete;

	// (Re)start monitoring of exactly these pids (empty: stop).  Throws on failure.
	void set_targets(const std::vector<pid_t> &pids, const damon_attrs &attrs);
	const std::vector<pid_t> &targets() const { return pids_; }
	bool running() const;
	// Waits for the end of the current aggregation and returns, per target (in the
	// order of targets()), its regions.  Empty when the kdamond has stopped (every
	// target exited).
	std::vector<std::vector<damon_region>> collect();
	void stop();

private:
	std::string root_, kd_;
	std::vector<pid_t> pids_;
};

} // namespace cxlt_procd
