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

// Reassembles DAMON's damon_aggregated trace lines ("target_id=T nr_regions=N
// START-END: NR_ACCESSES AGE", one per region at the end of every aggregation, the
// regions of a target in address order) into each target's regions of its newest
// complete aggregation.
class aggregation_reader {
public:
	explicit aggregation_reader(size_t targets) : cur_(targets), want_(targets), done_(targets), got_(targets) {}
	// One line of trace text; false if it is not a damon_aggregated event (ignored).
	bool feed(const std::string &line);
	// Every target has a complete aggregation.
	bool complete() const;
	// Takes the complete aggregations (and starts over).
	std::vector<std::vector<damon_region>> take();

private:
	std::vector<std::vector<damon_region>> cur_;
	std::vector<std::uint32_t> want_;
	std::vector<std::vector<damon_region>> done_;
	std::vector<bool> got_;
};

// One kdamond over every target.  The aggregation interval is the period: collect()
// returns at the end of an aggregation with its counts, read from the tracepoint
// damon:damon_aggregated in a tracefs instance of our own.  DAMON's sysfs
// tried_regions directories, the fallback without tracefs, make and remove a kernfs
// directory of files per region every period: with 2000 regions that took the
// service 93% of a CPU in the guest, the trace 18%.  In the fallback, one "stat"
// scheme per target with a target filter, so that each scheme's tried regions are
// its target's.
class damon_monitor {
public:
	// root: /sys/kernel/mm/damon/admin; damon_stat: DAMON_STAT's "enabled" parameter.
	// Throws std::runtime_error when DAMON's sysfs interface is missing, another user
	// runs a kdamond or DAMON_STAT holds DAMON.
	explicit damon_monitor(std::string root = "/sys/kernel/mm/damon/admin",
			       const std::string &damon_stat = "/sys/module/damon_stat/parameters/enabled");
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
	std::vector<std::vector<damon_region>> collect_trace();
	std::vector<std::vector<damon_region>> collect_tried();
	bool open_trace();
	void close_trace();

	std::string root_, kd_;
	std::vector<pid_t> pids_;
	unsigned aggr_us_ = 1000000;
	std::string trace_dir_;		// our tracefs instance, empty: not in use
	int trace_fd_ = -1;		// its trace_pipe
	std::string carry_;		// a line cut by the last read
};

} // namespace cxlt_procd
