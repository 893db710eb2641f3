// SPDX-License-Identifier: GPL-2.0
// The guest benchmark's shared measurements (measure.hpp).
#include "measure.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <dirent.h>
#include <fstream>
#include <numeric>
#include <sstream>

namespace cxlt_bench {

double now()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream s;

	s << f.rdbuf();
	return s.str();
}

std::set<int> parse_nodelist(const std::string &s)
{
	std::set<int> nodes;
	std::stringstream in(s);
	std::string part;

	while (std::getline(in, part, ',')) {
		part.erase(std::remove_if(part.begin(), part.end(), ::isspace), part.end());
		if (part.empty())
			continue;
		auto dash = part.find('-');
		int a = std::stoi(part.substr(0, dash));
		int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
		for (int n = a; n <= b; n++)
			nodes.insert(n);
	}
	return nodes;
}

std::map<std::string, uint64_t> thread_cpu(const std::vector<std::string> &prefixes)
{
	std::map<std::string, uint64_t> out;
	DIR *d = opendir("/proc");

	if (!d)
		return out;
	while (dirent *e = readdir(d)) {
		if (!isdigit(static_cast<unsigned char>(e->d_name[0])))
			continue;
		std::string dir = std::string("/proc/") + e->d_name;
		std::string comm = read_file(dir + "/comm");

		while (!comm.empty() && comm.back() == '\n')
			comm.pop_back();
		for (const auto &p : prefixes) {
			if (comm.compare(0, p.size(), p))
				continue;
			// schedstat: time on the CPU (ns), time waiting, timeslices.
			uint64_t ns = 0;
			std::stringstream(read_file(dir + "/schedstat")) >> ns;
			out[p] += ns;
			break;
		}
	}
	closedir(d);
	return out;
}

std::map<std::string, uint64_t> vmstat()
{
	std::map<std::string, uint64_t> out;
	std::stringstream in(read_file("/proc/vmstat"));
	std::string key;
	uint64_t v;

	while (in >> key >> v) {
		if (!key.starts_with("pgpromote_") && !key.starts_with("pgdemote_") &&
		    !key.starts_with("numa_") && !key.starts_with("pgmigrate_") &&
		    !key.starts_with("thp_migration_"))
			continue;
		out[key] = v;
	}
	return out;
}

std::map<std::string, uint64_t> interrupts()
{
	std::map<std::string, uint64_t> out;
	std::stringstream in(read_file("/proc/interrupts"));
	std::string line, word;
	size_t cpus = 0;

	if (std::getline(in, line)) {
		std::stringstream head(line);
		while (head >> word)
			cpus++;
	}
	while (std::getline(in, line)) {
		std::stringstream fields(line);
		std::string name;
		uint64_t v, sum = 0;

		fields >> name;
		if (name != "TLB:" && name != "CAL:" && name != "RES:" && name != "LOC:")
			continue;
		for (size_t i = 0; i < cpus && fields >> v; i++)
			sum += v;
		out[name.substr(0, 3)] = sum;
	}
	return out;
}

std::map<std::string, uint64_t> dir_counters(const std::string &dir)
{
	std::map<std::string, uint64_t> out;
	DIR *d = dir.empty() ? nullptr : opendir(dir.c_str());

	if (!d)
		return out;
	while (dirent *e = readdir(d)) {
		if (e->d_name[0] == '.')
			continue;
		std::string text = read_file(dir + "/" + e->d_name);
		char *end;
		errno = 0;
		uint64_t v = strtoull(text.c_str(), &end, 10);
		if (!errno && end != text.c_str() && (*end == '\n' || !*end))
			out[e->d_name] = v;
	}
	closedir(d);
	return out;
}

uint64_t free_kb(const std::set<int> &nodes)
{
	uint64_t sum = 0;

	for (int n : nodes) {
		std::stringstream in(read_file("/sys/devices/system/node/node" + std::to_string(n) +
					       "/meminfo"));
		std::string line;
		while (std::getline(in, line)) {
			auto at = line.find("MemFree:");
			if (at != std::string::npos)
				sum += std::stoull(line.substr(at + 8));
		}
	}
	return sum;
}

std::map<int, uint64_t> numa_maps_pages(pid_t pid)
{
	std::map<int, uint64_t> pages;
	std::stringstream in(read_file("/proc/" + (pid ? std::to_string(pid) : "self") + "/numa_maps"));
	std::string word;
	int node;
	unsigned long long n;

	while (in >> word)
		if (sscanf(word.c_str(), "N%d=%llu", &node, &n) == 2)
			pages[node] += n;
	return pages;
}

json delta(const std::map<std::string, uint64_t> &a, const std::map<std::string, uint64_t> &b)
{
	json d = json::object();

	for (const auto &[k, v] : b) {
		auto it = a.find(k);
		d[k] = int64_t(v - (it == a.end() ? 0 : it->second));
	}
	return d;
}

json delta(const json &a, const json &b)
{
	if (b.is_null())
		return nullptr;
	json d = json::object();
	for (const auto &[k, v] : b.items()) {
		uint64_t was = a.is_object() ? a.value(k, uint64_t(0)) : 0;
		d[k] = int64_t(v.get<uint64_t>() - was);
	}
	return d;
}

void add_into(json &sum, const json &d)
{
	if (d.is_null())
		return;
	if (sum.is_null())
		sum = json::object();
	for (const auto &[k, v] : d.items())
		sum[k] = sum.value(k, int64_t(0)) + v.get<int64_t>();
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	std::stringstream in(s);
	std::string part;

	while (std::getline(in, part, sep))
		if (!part.empty())
			out.push_back(part);
	return out;
}

std::vector<double> zipf_weights(size_t n, double s)
{
	std::vector<double> w(n);
	double total = 0;

	for (size_t k = 0; k < n; k++)
		total += w[k] = std::pow(double(k + 1), -s);
	for (auto &x : w)
		x /= total;
	return w;
}

std::vector<uint32_t> seeded_permutation(size_t n)
{
	std::vector<uint32_t> perm(n);

	std::iota(perm.begin(), perm.end(), 0);
	return perm;
}

std::vector<uint32_t> seeded_permutation(size_t n, cxltier::sim::rng &r)
{
	std::vector<uint32_t> perm = seeded_permutation(n);

	for (size_t i = n - 1; n && i > 0; i--)
		std::swap(perm[i], perm[r.below(uint32_t(i + 1))]);
	return perm;
}

static uint32_t alias_threshold(double q)
{
	return q >= 1.0 ? UINT32_MAX : uint32_t(q * 4294967296.0);
}

alias_table::alias_table(const std::vector<double> &p) : prob_(p.size()), alias_(p.size())
{
	size_t n = p.size();
	std::vector<double> q(n);
	std::vector<uint32_t> small, large;

	for (size_t i = 0; i < n; i++) {
		q[i] = p[i] * double(n);
		(q[i] < 1.0 ? small : large).push_back(uint32_t(i));
	}
	while (!small.empty() && !large.empty()) {
		uint32_t s = small.back(), l = large.back();

		small.pop_back();
		prob_[s] = alias_threshold(q[s]);
		alias_[s] = l;
		q[l] -= 1.0 - q[s];
		if (q[l] < 1.0) {
			large.pop_back();
			small.push_back(l);
		}
	}
	for (uint32_t i : large)
		prob_[i] = UINT32_MAX, alias_[i] = i;
	for (uint32_t i : small)
		prob_[i] = UINT32_MAX, alias_[i] = i;
}

bool write_result(const json &doc, const std::string &path)
{
	std::string text = doc.dump(1) + "\n";

	if (path.empty())
		return fputs(text.c_str(), stdout) >= 0 && fflush(stdout) == 0;
	std::ofstream f(path);
	f << text;
	return bool(f);
}

sock_address parse_address(const std::string &s)
{
	sock_address a;

	if (s.starts_with("unix:")) {
		std::string path = s.substr(5);
		auto *u = reinterpret_cast<sockaddr_un *>(&a.sa);
		if (path.empty() || path.size() >= sizeof(u->sun_path))
			throw std::invalid_argument(s + ": unix:PATH needs a path of 1 to " +
						    std::to_string(sizeof(u->sun_path) - 1) + " bytes");
		u->sun_family = AF_UNIX;
		memcpy(u->sun_path, path.c_str(), path.size());
		a.len = sizeof(*u);
		return a;
	}
	if (s.starts_with("tcp:")) {
		std::string rest = s.substr(4), host = "127.0.0.1", port = rest;
		auto colon = rest.rfind(':');
		if (colon != std::string::npos)
			host = rest.substr(0, colon), port = rest.substr(colon + 1);
		auto *in = reinterpret_cast<sockaddr_in *>(&a.sa);
		char *end = nullptr;
		long n = strtol(port.c_str(), &end, 10);
		if (port.empty() || *end || n < 1 || n > 65535 ||
		    inet_pton(AF_INET, host.c_str(), &in->sin_addr) != 1)
			throw std::invalid_argument(s + ": tcp:PORT or tcp:HOST:PORT needs a port "
						    "from 1 to 65535 and an IPv4 host");
		in->sin_family = AF_INET;
		in->sin_port = htons(uint16_t(n));
		a.len = sizeof(*in);
		return a;
	}
	throw std::invalid_argument(s + ": give unix:PATH, tcp:PORT or tcp:HOST:PORT");
}

int connect_to(const sock_address &a)
{
	int fd = socket(a.sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, reinterpret_cast<const sockaddr *>(&a.sa), a.len) == 0)
		return fd;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

} // namespace cxlt_bench
