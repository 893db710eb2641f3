// SPDX-License-Identifier: GPL-2.0
// Process mode's state directory (see state.hpp).
#include "state.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace cxlt_procd {

std::string target::file_name() const
{
	if (what == kind::pid)
		return "pid-" + std::to_string(pid);
	std::string n = cgroup;
	std::replace(n.begin(), n.end(), '/', '%');
	return "cgroup-" + n;
}

std::string state_dir()
{
	const char *d = std::getenv("CXLTIER_STATE_DIR");
	return d && *d ? d : "/run/cxltier";
}

std::optional<pid_t> service_pid(const std::string &dir)
{
	int fd = ::open((dir + "/procd.pid").c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return std::nullopt;
	// The service holds an exclusive lock for as long as it runs.
	bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	char buf[32] = {};
	ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
	::close(fd);
	if (!held || n <= 0)
		return std::nullopt;
	long pid = std::strtol(buf, nullptr, 10);
	if (pid <= 0)
		return std::nullopt;
	return static_cast<pid_t>(pid);
}

std::optional<std::uint64_t> process_starttime(pid_t pid)
{
	if (pid <= 0)
		return std::nullopt;
	std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
	std::string s;
	if (!std::getline(f, s))
		return std::nullopt;
	// comm (field 2) may hold spaces and parentheses: count from the last ')'.
	auto close = s.rfind(')');
	if (close == std::string::npos)
		return std::nullopt;
	std::istringstream rest(s.substr(close + 2));
	std::string field;
	unsigned long flags = 0;
	std::uint64_t start = 0;
	// Fields 3..: state is 3, flags 9, starttime 22.
	for (int i = 3; i <= 22 && rest >> field; i++) {
		if (i == 9)
			flags = std::strtoul(field.c_str(), nullptr, 10);
		if (i == 22)
			start = std::strtoull(field.c_str(), nullptr, 10);
	}
	constexpr unsigned long pf_kthread = 0x00200000;
	if (!start || (flags & pf_kthread))
		return std::nullopt;
	return start;
}

std::vector<target> read_targets(const std::string &dir)
{
	std::vector<target> out;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(dir + "/managed", ec)) {
		std::ifstream f(e.path());
		std::string word;
		target t;
		if (!(f >> word))
			continue;
		if (word == "pid") {
			t.what = target::kind::pid;
			if (!(f >> t.pid >> t.starttime) || t.pid <= 0)
				continue;
		} else if (word == "cgroup") {
			t.what = target::kind::cgroup;
			f >> std::ws;
			if (!std::getline(f, t.cgroup) || t.cgroup.empty() || t.cgroup[0] != '/')
				continue;
		} else {
			continue;
		}
		if (e.path().filename() != t.file_name())
			continue;
		std::string key;
		if (f >> key && key == "fast")
			f >> t.fast_bytes;
		out.push_back(std::move(t));
	}
	std::sort(out.begin(), out.end(),
		  [](const target &a, const target &b) { return a.file_name() < b.file_name(); });
	return out;
}

void write_target(const std::string &dir, const target &t)
{
	fs::create_directories(dir + "/managed");
	std::string path = dir + "/managed/" + t.file_name(), tmp = path + ".tmp";
	{
		std::ofstream f(tmp, std::ios::trunc);
		if (t.what == target::kind::pid)
			f << "pid " << t.pid << ' ' << t.starttime << '\n';
		else
			f << "cgroup " << t.cgroup << '\n';
		if (t.fast_bytes)
			f << "fast " << t.fast_bytes << '\n';
		f.flush();
		if (!f)
			throw std::system_error(errno ? errno : EIO, std::generic_category(), tmp);
	}
	if (::rename(tmp.c_str(), path.c_str()) != 0) {
		int e = errno;
		::unlink(tmp.c_str());
		throw std::system_error(e, std::generic_category(), path);
	}
}

bool remove_target(const std::string &dir, const target &t)
{
	return ::unlink((dir + "/managed/" + t.file_name()).c_str()) == 0;
}

std::optional<std::vector<pid_t>> cgroup_pids(const std::string &path)
{
	std::ifstream f(path + "/cgroup.procs");
	if (!f)
		return std::nullopt;
	std::vector<pid_t> pids;
	pid_t p;
	while (f >> p)
		pids.push_back(p);
	return pids;
}

} // namespace cxlt_procd
