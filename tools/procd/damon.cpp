// SPDX-License-Identifier: GPL-2.0
// DAMON sysfs (Documentation/admin-guide/mm/damon/usage.rst) for process mode.
#include "damon.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace cxlt_procd {

namespace {

void put(const std::string &path, const std::string &value)
{
	std::ofstream f(path);
	f << value << std::flush;
	if (!f)
		throw std::system_error(errno ? errno : EIO, std::generic_category(),
					"DAMON: writing " + value + " to " + path);
}

std::string get(const std::string &path)
{
	std::ifstream f(path);
	std::string s;
	std::getline(f, s);
	return s;
}

std::uint64_t get_u64(const std::string &path)
{
	return std::stoull(get(path));
}

// Our own tracefs instance: its buffer and events are not the host's trace.
const char tracing_root[] = "/sys/kernel/tracing";
const char trace_instance[] = "/sys/kernel/tracing/instances/cxltier-procd";

} // namespace

bool aggregation_reader::feed(const std::string &line)
{
	auto at = line.find("damon_aggregated: target_id=");
	if (at == std::string::npos)
		return false;
	unsigned long t, start, end;
	unsigned nr, acc, age;
	if (std::sscanf(line.c_str() + at, "damon_aggregated: target_id=%lu nr_regions=%u %lu-%lu: %u %u",
			&t, &nr, &start, &end, &acc, &age) != 6 ||
	    t >= cur_.size() || !nr || end <= start)
		return false;
	auto &c = cur_[t];
	// A new aggregation starts where the last one ended, or where lines were lost
	// (the count changed, or an address went back).
	if (c.empty() || nr != want_[t] || start < c.back().end) {
		c.clear();
		want_[t] = nr;
	}
	c.push_back({start, end, acc});
	if (c.size() == want_[t]) {
		done_[t] = std::move(c);
		got_[t] = true;
		c.clear();
	}
	return true;
}

bool aggregation_reader::complete() const
{
	return std::all_of(got_.begin(), got_.end(), [](bool g) { return g; });
}

std::vector<std::vector<damon_region>> aggregation_reader::take()
{
	std::vector<std::vector<damon_region>> out(done_.size());
	out.swap(done_);
	got_.assign(got_.size(), false);
	return out;
}

damon_monitor::damon_monitor(std::string root, const std::string &damon_stat) : root_(std::move(root))
{
	if (!fs::exists(root_ + "/kdamonds/nr_kdamonds"))
		throw std::runtime_error("DAMON's sysfs interface is missing (" + root_ +
					 "): the kernel needs CONFIG_DAMON_SYSFS and CONFIG_DAMON_VADDR");
	// DAMON_STAT (on by default in kernels built with CONFIG_DAMON_STAT_ENABLED_DEFAULT,
	// Debian's 7.3 among them) runs a kdamond that holds DAMON exclusively: turning ours
	// on would fail with EBUSY at the first managed process.
	if (fs::exists(damon_stat) && get(damon_stat) == "Y")
		throw std::runtime_error("DAMON is held by the kernel's DAMON_STAT (damon_stat.enabled=Y), "
					 "which keeps it from any other user: turn it off with "
					 "'echo N > " + damon_stat + "' or boot with damon_stat.enabled=N");
	int nr = std::stoi(get(root_ + "/kdamonds/nr_kdamonds"));
	for (int i = 0; i < nr; i++)
		if (get(root_ + "/kdamonds/" + std::to_string(i) + "/state") == "on")
			throw std::runtime_error("DAMON is in use: kdamond " + std::to_string(i) +
						 " is on (process mode needs DAMON's sysfs interface to itself)");
	kd_ = root_ + "/kdamonds/0";
}

damon_monitor::~damon_monitor()
{
	try {
		stop();
	} catch (...) {
	}
	close_trace();
}

// Sets up our tracefs instance with only damon_aggregated on; false without tracefs
// (then the tried regions are read).
bool damon_monitor::open_trace()
{
	if (trace_fd_ >= 0)
		return true;
	if (!fs::exists(std::string(tracing_root) + "/instances"))
		return false;
	if (::mkdir(trace_instance, 0700) != 0 && errno != EEXIST)
		return false;
	std::string d = trace_instance;
	try {
		put(d + "/events/damon/damon_aggregated/enable", "1");
	} catch (const std::exception &) {
		::rmdir(trace_instance);
		return false;
	}
	trace_fd_ = ::open((d + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (trace_fd_ < 0) {
		::rmdir(trace_instance);
		return false;
	}
	trace_dir_ = d;
	return true;
}

void damon_monitor::close_trace()
{
	if (trace_fd_ < 0)
		return;
	::close(trace_fd_);
	trace_fd_ = -1;
	carry_.clear();
	// Removing the instance frees its buffers; it fails only while someone reads it.
	::rmdir(trace_dir_.c_str());
	trace_dir_.clear();
}

bool damon_monitor::running() const
{
	return !pids_.empty() && get(kd_ + "/state") == "on";
}

void damon_monitor::stop()
{
	if (fs::exists(kd_ + "/state") && get(kd_ + "/state") == "on")
		put(kd_ + "/state", "off");
	pids_.clear();
}

void damon_monitor::set_targets(const std::vector<pid_t> &pids, const damon_attrs &a)
{
	stop();
	if (pids.empty())
		return;
	put(root_ + "/kdamonds/nr_kdamonds", "1");
	std::string c = kd_ + "/contexts/0";
	put(kd_ + "/contexts/nr_contexts", "1");
	put(c + "/operations", "vaddr");
	put(c + "/monitoring_attrs/intervals/sample_us", std::to_string(a.sample_us));
	put(c + "/monitoring_attrs/intervals/aggr_us", std::to_string(a.aggr_us));
	put(c + "/monitoring_attrs/intervals/update_us", std::to_string(a.aggr_us));
	// Finer regions than DAMON's defaults (10..1000): the policy ranks pages by
	// their region's count.
	put(c + "/monitoring_attrs/nr_regions/min", std::to_string(a.min_regions));
	put(c + "/monitoring_attrs/nr_regions/max", std::to_string(a.max_regions));
	put(c + "/targets/nr_targets", std::to_string(pids.size()));
	bool traced = open_trace();
	put(c + "/schemes/nr_schemes", traced ? "0" : std::to_string(pids.size()));
	for (size_t i = 0; i < pids.size(); i++) {
		std::string t = c + "/targets/" + std::to_string(i);
		put(t + "/pid_target", std::to_string(pids[i]));
		if (traced)
			continue;
		std::string s = c + "/schemes/" + std::to_string(i);
		put(s + "/action", "stat");
		for (const char *f : {"sz/min", "nr_accesses/min", "age/min"})
			put(s + "/access_pattern/" + f, "0");
		put(s + "/access_pattern/sz/max", "18446744073709551615");
		put(s + "/access_pattern/nr_accesses/max", "4294967295");
		put(s + "/access_pattern/age/max", "4294967295");
		// Only target i's regions: filter out those that are not of it.
		put(s + "/filters/nr_filters", "1");
		put(s + "/filters/0/type", "target");
		put(s + "/filters/0/damon_target_idx", std::to_string(i));
		put(s + "/filters/0/matching", "N");
	}
	// What an earlier kdamond traced is not of these targets.
	if (traced) {
		char buf[65536];
		while (::read(trace_fd_, buf, sizeof(buf)) > 0)
			;
		carry_.clear();
	}
	aggr_us_ = a.aggr_us;
	put(kd_ + "/state", "on");
	pids_ = pids;
}

std::vector<std::vector<damon_region>> damon_monitor::collect()
{
	if (pids_.empty())
		return {};
	return trace_fd_ >= 0 ? collect_trace() : collect_tried();
}

// Reads trace lines until every target has a complete aggregation, then what else
// has come meanwhile, so that the newest aggregation is returned.
std::vector<std::vector<damon_region>> damon_monitor::collect_trace()
{
	aggregation_reader agg(pids_.size());
	auto deadline = std::chrono::steady_clock::now() +
			std::chrono::microseconds(3 * std::uint64_t(aggr_us_)) + std::chrono::seconds(2);
	char buf[65536];
	for (;;) {
		ssize_t n;
		while ((n = ::read(trace_fd_, buf, sizeof(buf))) > 0) {
			carry_.append(buf, static_cast<size_t>(n));
			size_t from = 0, nl;
			while ((nl = carry_.find('\n', from)) != std::string::npos) {
				agg.feed(carry_.substr(from, nl - from));
				from = nl + 1;
			}
			carry_.erase(0, from);
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return {};
		if (agg.complete())
			return agg.take();
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now()).count();
		// No aggregation in three intervals: the kdamond stopped (its targets exited).
		if (left <= 0 || !running())
			return {};
		pollfd p{trace_fd_, POLLIN, 0};
		::poll(&p, 1, static_cast<int>(std::min<long long>(left, 200)));
	}
}

std::vector<std::vector<damon_region>> damon_monitor::collect_tried()
{
	std::vector<std::vector<damon_region>> out;
	// Returns once every scheme was applied in an aggregation, i.e. at its end.
	std::ofstream f(kd_ + "/state");
	f << "update_schemes_tried_regions" << std::flush;
	if (!f)
		return out;	// the kdamond stopped: every target is gone
	std::string c = kd_ + "/contexts/0/schemes/";
	out.resize(pids_.size());
	for (size_t i = 0; i < pids_.size(); i++) {
		std::string d = c + std::to_string(i) + "/tried_regions";
		std::error_code ec;
		for (const auto &e : fs::directory_iterator(d, ec)) {
			auto name = e.path().filename().string();
			if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
				continue;
			std::string r = e.path().string();
			try {
				out[i].push_back({get_u64(r + "/start"), get_u64(r + "/end"),
						  static_cast<std::uint32_t>(get_u64(r + "/nr_accesses"))});
			} catch (const std::exception &) {
				// removed under us: the next update has it
			}
		}
		std::sort(out[i].begin(), out[i].end(),
			  [](const damon_region &a, const damon_region &b) { return a.start < b.start; });
	}
	return out;
}

} // namespace cxlt_procd
