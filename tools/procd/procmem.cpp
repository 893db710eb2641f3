// SPDX-License-Identifier: GPL-2.0
// A managed process's anonymous memory (see procmem.hpp).
#include "procmem.hpp"

#include <fcntl.h>
#include <numaif.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace cxlt_procd {

namespace {

// Pages per move_pages(2) call: bounds the arrays, and the time the target's
// mmap lock is held by one call.
constexpr size_t move_chunk = 4096;

bool query_nodes(pid_t pid, const std::uint64_t *addrs, size_t n, int *status)
{
	std::vector<void *> p(n);
	for (size_t i = 0; i < n; i++)
		p[i] = reinterpret_cast<void *>(addrs[i]);
	if (::move_pages(pid, n, p.data(), nullptr, status, 0) != 0)
		return false;
	return true;
}

} // namespace

std::optional<proc_layout> read_layout(pid_t pid)
{
	std::ifstream f("/proc/" + std::to_string(pid) + "/smaps");
	if (!f)
		return std::nullopt;
	proc_layout out;
	std::string line;
	anon_range cur{};
	bool have = false, eligible = false;
	std::uint64_t cur_size = 0;
	auto finish = [&](const std::string &flags) {
		if (!have)
			return;
		std::istringstream fl(flags);
		std::string fword;
		bool locked = false, bad = false;
		while (fl >> fword) {
			if (fword == "lo")
				locked = true;
			// I/O, pfn mapping, do-not-dump (device memory), hugetlb, shared.
			if (fword == "io" || fword == "pf" || fword == "dd" || fword == "ht" || fword == "sh")
				bad = true;
		}
		if (eligible && locked && !bad)
			out.locked_bytes += cur_size;
		else if (eligible && !bad)
			out.ranges.push_back(cur);
		have = false;
	};
	while (std::getline(f, line)) {
		if (line.rfind("VmFlags:", 0) == 0) {
			finish(line.substr(8));
			continue;
		}
		// A mapping line: "start-end perms offset dev inode [path]".
		auto dash = line.find('-');
		auto space = line.find(' ');
		if (dash == std::string::npos || space == std::string::npos || dash > space ||
		    line.find(':') < space)
			continue;
		std::istringstream ls(line);
		std::string range, perms, off, dev, inode, path;
		ls >> range >> perms >> off >> dev >> inode;
		std::getline(ls >> std::ws, path);
		cur.start = std::stoull(range.substr(0, dash), nullptr, 16);
		cur.end = std::stoull(range.substr(dash + 1), nullptr, 16);
		cur_size = cur.end - cur.start;
		have = true;
		// Private, readable and writable, and anonymous: no file behind it
		// ([heap], [stack] and [anon:NAME] are anonymous; [vdso] & co. are not).
		bool anon = path.empty() || path == "[heap]" || path == "[stack]" ||
			    path.rfind("[anon:", 0) == 0;
		eligible = anon && perms.size() >= 4 && perms[0] == 'r' && perms[1] == 'w' &&
			   perms[3] == 'p' && inode == "0";
	}
	return out;
}

std::optional<std::vector<int>> page_nodes(pid_t pid, const std::vector<anon_range> &ranges,
					   std::uint64_t npages)
{
	fd_closer pm{::open(("/proc/" + std::to_string(pid) + "/pagemap").c_str(),
			    O_RDONLY | O_CLOEXEC)};
	if (pm.fd < 0)
		return std::nullopt;
	std::vector<int> nodes(npages, -1);
	std::vector<std::uint64_t> addrs;
	std::vector<size_t> index;
	std::vector<std::uint64_t> ent;
	size_t page = 0;
	for (const auto &r : ranges) {
		std::uint64_t n = (r.end - r.start) / page_size;
		ent.resize(n);
		ssize_t got = ::pread(pm.fd, ent.data(), n * 8, (r.start / page_size) * 8);
		if (got < 0)
			return std::nullopt;
		for (std::uint64_t i = 0; i < n && i * 8 < static_cast<std::uint64_t>(got); i++) {
			// Bit 63: present in RAM (bit 62 would be swapped).
			if (ent[i] >> 63) {
				addrs.push_back(r.start + i * page_size);
				index.push_back(page + i);
			}
		}
		page += n;
	}
	std::vector<int> status(move_chunk);
	for (size_t off = 0; off < addrs.size(); off += move_chunk) {
		size_t n = std::min(move_chunk, addrs.size() - off);
		if (!query_nodes(pid, addrs.data() + off, n, status.data()))
			return std::nullopt;
		for (size_t i = 0; i < n; i++)
			nodes[index[off + i]] = status[i] >= 0 ? status[i] : -1;
	}
	return nodes;
}

std::optional<std::vector<int>> move_to(pid_t pid, const std::vector<std::uint64_t> &addrs,
					int node)
{
	std::vector<int> out(addrs.size(), -ENOENT);
	std::vector<void *> p(move_chunk);
	std::vector<int> nodes(move_chunk, node), status(move_chunk);
	for (size_t off = 0; off < addrs.size(); off += move_chunk) {
		size_t n = std::min(move_chunk, addrs.size() - off);
		for (size_t i = 0; i < n; i++)
			p[i] = reinterpret_cast<void *>(addrs[off + i]);
		// > 0: that many pages were not moved; their status says the target node.
		if (::move_pages(pid, n, p.data(), nodes.data(), status.data(), MPOL_MF_MOVE) < 0) {
			if (errno == ESRCH)
				return std::nullopt;
			// ENOMEM, E2BIG...: none of this chunk moved; the query below says so.
		}
		if (!query_nodes(pid, addrs.data() + off, n, status.data()))
			return std::nullopt;
		for (size_t i = 0; i < n; i++)
			out[off + i] = status[i];
	}
	return out;
}

std::string process_comm(pid_t pid)
{
	std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
	std::string s;
	std::getline(f, s);
	return s;
}

} // namespace cxlt_procd
