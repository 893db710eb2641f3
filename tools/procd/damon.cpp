// SPDX-License-Identifier: GPL-2.0
// DAMON sysfs (Documentation/admin-guide/mm/damon/usage.rst) for process mode.
#include "damon.hpp"

#include <algorithm>
#include <cerrno>
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

} // namespace

damon_monitor::damon_monitor(std::string root) : root_(std::move(root))
{
	if (!fs::exists(root_ + "/kdamonds/nr_kdamonds"))
		throw std::runtime_error("DAMON's sysfs interface is missing (" + root_ +
					 "): the kernel needs CONFIG_DAMON_SYSFS and CONFIG_DAMON_VADDR");
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
	put(c + "/schemes/nr_schemes", std::to_string(pids.size()));
	for (size_t i = 0; i < pids.size(); i++) {
		std::string t = c + "/targets/" + std::to_string(i);
		put(t + "/pid_target", std::to_string(pids[i]));
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
	put(kd_ + "/state", "on");
	pids_ = pids;
}

std::vector<std::vector<damon_region>> damon_monitor::collect()
{
	std::vector<std::vector<damon_region>> out;
	if (pids_.empty())
		return out;
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
