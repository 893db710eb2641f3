// SPDX-License-Identifier: GPL-2.0
// A managed process's anonymous memory (see procmem.hpp).
#include "procmem.hpp"

#include <fcntl.h>
#include <numaif.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>

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

constexpr auto npos = std::string_view::npos;

// Takes the next line off text (without its newline).
std::string_view next_line(std::string_view &text)
{
	auto nl = text.find('\n');
	auto line = text.substr(0, nl);
	text.remove_prefix(nl == npos ? text.size() : nl + 1);
	return line;
}

// Takes the next word (up to a space or tab) off s.
std::string_view next_word(std::string_view &s)
{
	auto b = s.find_first_not_of(" \t");
	if (b == npos) {
		s = {};
		return {};
	}
	s.remove_prefix(b);
	auto e = s.find_first_of(" \t");
	auto w = s.substr(0, e);
	s.remove_prefix(e == npos ? s.size() : e);
	return w;
}

bool parse_num(std::string_view s, std::uint64_t &v, int base = 10)
{
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
	return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

} // namespace

std::optional<std::string> read_whole(const std::string &path)
{
	fd_closer f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
	if (f.fd < 0)
		return std::nullopt;
	std::string out;
	char buf[65536];
	ssize_t n;
	while ((n = ::read(f.fd, buf, sizeof(buf))) > 0)
		out.append(buf, static_cast<size_t>(n));
	if (n < 0)
		return std::nullopt;
	return out;
}

proc_layout parse_smaps(std::string_view text)
{
	proc_layout out;
	anon_range cur{};
	bool have = false, eligible = false;
	auto finish = [&](std::string_view flags) {
		if (!have)
			return;
		bool locked = false, bad = false;
		for (auto w = next_word(flags); !w.empty(); w = next_word(flags)) {
			if (w == "lo")
				locked = true;
			// I/O, pfn mapping, do-not-dump (device memory), hugetlb, shared.
			if (w == "io" || w == "pf" || w == "dd" || w == "ht" || w == "sh")
				bad = true;
		}
		if (eligible && locked && !bad)
			out.locked_bytes += cur.end - cur.start;
		else if (eligible && !bad)
			out.ranges.push_back(cur);
		have = false;
	};
	while (!text.empty()) {
		auto line = next_line(text);
		if (line.starts_with("VmFlags:")) {
			finish(line.substr(8));
			continue;
		}
		// A mapping line: "start-end perms offset dev inode [path]"; the others
		// ("Rss:   4 kB") have no range first.
		auto rest = line;
		auto range = next_word(rest);
		auto dash = range.find('-');
		std::uint64_t start, end;
		if (dash == npos || !parse_num(range.substr(0, dash), start, 16) ||
		    !parse_num(range.substr(dash + 1), end, 16) || end <= start)
			continue;
		auto perms = next_word(rest);
		next_word(rest);	// offset
		next_word(rest);	// device
		auto inode = next_word(rest);
		auto b = rest.find_first_not_of(' ');
		auto path = b == npos ? std::string_view() : rest.substr(b);
		cur = {start, end};
		have = true;
		// Private, readable and writable, and anonymous: no file behind it
		// ([heap], [stack] and [anon:NAME] are anonymous; [vdso] & co. are not).
		bool anon = path.empty() || path == "[heap]" || path == "[stack]" || path.starts_with("[anon:");
		eligible = anon && perms.size() >= 4 && perms[0] == 'r' && perms[1] == 'w' &&
			   perms[3] == 'p' && inode == "0";
	}
	return out;
}

std::optional<proc_layout> read_layout(pid_t pid)
{
	auto text = read_whole("/proc/" + std::to_string(pid) + "/smaps");
	if (!text)
		return std::nullopt;
	return parse_smaps(*text);
}

std::optional<layout_key> read_layout_key(pid_t pid)
{
	std::string dir = "/proc/" + std::to_string(pid);
	auto maps = read_whole(dir + "/maps");
	auto status = read_whole(dir + "/status");
	if (!maps || !status)
		return std::nullopt;
	layout_key k{std::move(*maps), 0};
	std::string_view st = *status;
	while (!st.empty()) {
		auto line = next_line(st);
		if (!line.starts_with("VmLck:"))
			continue;
		line.remove_prefix(6);
		parse_num(next_word(line), k.locked_kb);
		break;
	}
	return k;
}

const std::optional<proc_layout> &layout_cache::get(pid_t pid)
{
	auto key = read_layout_key(pid);
	if (!key) {
		layout_.reset();
		return layout_;
	}
	if (!layout_ || key->locked_kb || *key != key_ || ++age_ >= refresh_) {
		layout_ = read_layout(pid);
		reads_++;
		key_ = std::move(*key);
		age_ = 0;
	}
	return layout_;
}

std::map<int, node_mem> parse_zoneinfo(std::string_view text)
{
	std::map<int, node_mem> out;
	node_mem *cur = nullptr;
	while (!text.empty()) {
		auto line = next_line(text);
		auto w = next_word(line);
		if (w == "Node") {
			// "Node 0, zone   Normal"
			auto n = next_word(line);
			std::uint64_t node;
			if (n.ends_with(','))
				n.remove_suffix(1);
			cur = parse_num(n, node) && node < 1u << 16 ? &out[static_cast<int>(node)] : nullptr;
			continue;
		}
		if (!cur)
			continue;
		std::uint64_t v;
		// "  pages free     3958" and "        high     12"; the per-CPU lists'
		// "high:" is another thing.
		if (w == "pages" && next_word(line) == "free" && parse_num(next_word(line), v))
			cur->free += v;
		else if (w == "high" && parse_num(next_word(line), v))
			cur->high += v;
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
		if (page >= npages)
			break;	// past the service's cap: not managed
		std::uint64_t n = std::min<std::uint64_t>((r.end - r.start) / page_size, npages - page);
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
