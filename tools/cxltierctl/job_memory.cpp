// SPDX-License-Identifier: GPL-2.0
#include "job_memory.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace cxltierctl {

namespace fs = std::filesystem;

namespace {

template <class T> bool parse_number(std::string_view s, T &out)
{
	auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

// A whole /proc file; nullopt when it cannot be opened (the process is gone).
std::optional<std::string> read_file(const fs::path &p)
{
	std::ifstream f(p);
	if (!f)
		return std::nullopt;
	std::string s{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
	if (f.bad())
		return std::nullopt;
	return s;
}

// The parent pid in a /proc/<pid>/stat text: "pid (comm) state ppid ...", where
// comm may hold blanks and parentheses, so the fields start after the last ')'.
std::optional<pid_t> parent_of(std::string_view stat)
{
	auto close = stat.rfind(')');
	if (close == std::string_view::npos)
		return std::nullopt;
	std::string_view rest = stat.substr(close + 1);
	// " S 123 ..."
	auto state = rest.find_first_not_of(' ');
	if (state == std::string_view::npos)
		return std::nullopt;
	auto ppid_start = rest.find_first_not_of(' ', rest.find(' ', state));
	if (ppid_start == std::string_view::npos)
		return std::nullopt;
	auto ppid_end = rest.find_first_of(" \n", ppid_start);
	pid_t ppid = 0;
	if (!parse_number(rest.substr(ppid_start, ppid_end - ppid_start), ppid))
		return std::nullopt;
	return ppid;
}

} // namespace

void add_numa_maps(std::string_view text, node_bytes &out)
{
	// "7f0c5c000000 default anon=5 dirty=5 N0=3 N2=2 kernelpagesize_kB=4".  The
	// counts are in pages of the mapping's size (huge pages for hugetlbfs).
	while (!text.empty()) {
		auto nl = text.find('\n');
		std::string_view line = text.substr(0, nl);
		text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);

		std::vector<std::pair<int, std::uint64_t>> pages;
		std::uint64_t page_kib = 0;
		while (!line.empty()) {
			auto sp = line.find(' ');
			std::string_view tok = line.substr(0, sp);
			line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
			auto eq = tok.find('=');
			if (eq == std::string_view::npos)
				continue;
			std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
			int node = 0;
			std::uint64_t n = 0;
			if (key == "kernelpagesize_kB")
				parse_number(value, page_kib);
			else if (key.size() > 1 && key[0] == 'N' && parse_number(key.substr(1), node) &&
				 parse_number(value, n))
				pages.emplace_back(node, n);
		}
		for (auto [node, n] : pages)
			out[node] += n * page_kib * 1024;
	}
}

std::vector<pid_t> process_tree(pid_t root, const fs::path &proc)
{
	std::multimap<pid_t, pid_t> children;
	std::error_code ec;
	for (fs::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
		pid_t pid = 0;
		if (!parse_number(it->path().filename().string(), pid))
			continue;
		auto stat = read_file(it->path() / "stat");
		if (!stat)
			continue; // exited meanwhile
		if (auto ppid = parent_of(*stat))
			children.emplace(*ppid, pid);
	}
	std::vector<pid_t> tree{root};
	for (std::size_t i = 0; i < tree.size(); i++) {
		auto [b, e] = children.equal_range(tree[i]);
		for (auto c = b; c != e; ++c)
			tree.push_back(c->second);
	}
	return tree;
}

std::optional<node_bytes> sample_job(pid_t root, const fs::path &proc)
{
	node_bytes out;
	for (pid_t pid : process_tree(root, proc)) {
		auto maps = read_file(proc / std::to_string(pid) / "numa_maps");
		// A zombie's numa_maps is empty: its memory is gone already.
		if (pid == root && (!maps || maps->empty()))
			return std::nullopt;
		if (maps)
			add_numa_maps(*maps, out);
	}
	return out;
}

std::uint64_t total_bytes(const node_bytes &nodes)
{
	std::uint64_t sum = 0;
	for (auto [node, bytes] : nodes)
		sum += bytes;
	return sum;
}

} // namespace cxltierctl
