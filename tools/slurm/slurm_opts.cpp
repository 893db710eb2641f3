// SPDX-License-Identifier: GPL-2.0
// Option values and the state file of cxltier's Slurm plugin (slurm_opts.hpp).
#include "slurm_opts.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace cxltier_slurm {

namespace {

constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
constexpr unsigned int state_version = 1;
constexpr unsigned int max_weight = 255; // the kernel's weighted-interleave limit

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_nocase(std::string_view a, std::string_view b)
{
	return a.size() == b.size() &&
	       std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string quoted(std::string_view s)
{
	return "'" + std::string(s) + "'";
}

// Decimal digits into @out; false when there are none, anything else, or too many.
bool parse_u64(std::string_view s, std::uint64_t &out)
{
	if (s.empty())
		return false;
	std::uint64_t v = 0;
	for (char c : s) {
		if (!is_digit(c))
			return false;
		auto d = static_cast<std::uint64_t>(c - '0');
		if (v > (u64_max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	out = v;
	return true;
}

// The binary suffixes and the power of 1024 of each.
struct unit {
	std::string_view name;
	unsigned int shift;
};
constexpr std::array<unit, 14> units = {{
	{"", 0}, {"b", 0},
	{"k", 10}, {"kb", 10}, {"kib", 10},
	{"m", 20}, {"mb", 20}, {"mib", 20},
	{"g", 30}, {"gb", 30}, {"gib", 30},
	{"t", 40}, {"tb", 40}, {"tib", 40},
}};

// Blanks for line breaks and other control characters: the error stays one line.
std::string one_line(std::string_view s)
{
	std::string out(s);
	for (char &c : out)
		if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
			c = ' ';
	return out;
}

cxltier_memory_kind parse_kind(std::string_view s)
{
	for (auto kind : {CXLTIER_MEMORY_DRAM, CXLTIER_MEMORY_CXL})
		if (s == cxltier_memory_kind_name(kind))
			return kind;
	return CXLTIER_MEMORY_UNKNOWN;
}

} // namespace

std::uint64_t parse_size(std::string_view text)
{
	const std::string not_a_size = quoted(text) + " is not a size (such as 512M or 4G)";
	std::size_t digits = 0;
	while (digits < text.size() && is_digit(text[digits]))
		digits++;
	if (!digits)
		throw option_error(not_a_size);
	std::string_view suffix = text.substr(digits);
	auto u = std::find_if(units.begin(), units.end(),
			      [&](const unit &x) { return equal_nocase(suffix, x.name); });
	if (u == units.end())
		throw option_error(not_a_size);
	std::uint64_t n = 0;
	if (!parse_u64(text.substr(0, digits), n) || n > (u64_max >> u->shift))
		throw option_error(quoted(text) + " is too large (at most 2^64 - 1 bytes)");
	if (!n)
		throw option_error(quoted(text) + " is not a size: it must be more than 0 (such as 512M "
						  "or 4G)");
	return n << u->shift;
}

cxltier_placement_policy parse_policy(std::string_view text)
{
	cxltier_placement_policy policy{};
	if (cxltier_placement_policy_from_name(std::string(text).c_str(), &policy) != 0)
		throw option_error(quoted(text) + " is not a policy: preferred, interleave or weighted");
	return policy;
}

std::string format_state(const job_state &state, std::string_view comment)
{
	std::string s;
	if (!comment.empty())
		s += "# " + one_line(comment) + "\n";
	s += "version=" + std::to_string(state_version) + "\n";
	if (state.failed())
		return s + "error=" + one_line(state.error) + "\n";
	const job_plan &p = state.plan;
	if (state.placed()) {
		s += std::string("policy=") + cxltier_placement_policy_name(p.policy) + "\n";
		s += "fast=" + std::to_string(p.fast) + "\n";
		s += "slow=" + std::to_string(p.slow) + "\n";
		for (const auto &n : p.nodes)
			s += "node=" + std::to_string(n.id) + " " + cxltier_memory_kind_name(n.kind) +
			     " " + std::to_string(n.bytes) + " " + std::to_string(n.weight) + "\n";
	}
	if (state.pool)
		s += "pool=" + state.pool->pool + " " + std::to_string(state.pool->bytes) + "\n";
	return s;
}

bool valid_pool_name(std::string_view name)
{
	return !name.empty() && name.size() <= 63 &&
	       std::all_of(name.begin(), name.end(), [](char c) {
		       return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z') || c == '_' ||
			      c == '-' || c == '.';
	       });
}

job_state parse_state(std::string_view text)
{
	if (text.empty())
		throw state_error("empty");
	// Written whole and renamed into place: a missing last newline is damage.
	if (text.back() != '\n')
		throw state_error("the last line is cut short");

	job_state st;
	bool version = false, policy = false, fast = false, slow = false, error = false, pool = false;
	std::size_t lineno = 0;
	for (std::size_t pos = 0; pos < text.size();) {
		std::size_t end = text.find('\n', pos);
		std::string_view line = text.substr(pos, end - pos);
		pos = end + 1;
		lineno++;
		if (line.empty() || line.front() == '#')
			continue;
		auto bad = [&](const std::string &why) {
			return state_error("line " + std::to_string(lineno) + ": " + why);
		};
		auto eq = line.find('=');
		if (eq == std::string_view::npos)
			throw bad("not key=value: " + quoted(line));
		std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
		auto once = [&](bool &seen) {
			if (seen)
				throw bad(std::string(key) + " given twice");
			seen = true;
		};
		if (!version && key != "version")
			throw bad("version=" + std::to_string(state_version) + " must come first");

		if (key == "version") {
			once(version);
			std::uint64_t v = 0;
			if (!parse_u64(value, v) || v != state_version)
				throw bad("version " + quoted(value) + " is not " +
					  std::to_string(state_version));
		} else if (key == "error") {
			once(error);
			if (value.empty())
				throw bad("an empty error");
			st.error = value;
		} else if (key == "policy") {
			once(policy);
			cxltier_placement_policy p{};
			if (cxltier_placement_policy_from_name(std::string(value).c_str(), &p) != 0)
				throw bad("unknown policy " + quoted(value));
			st.plan.policy = p;
		} else if (key == "fast" || key == "slow") {
			bool is_fast = key == "fast";
			once(is_fast ? fast : slow);
			if (!parse_u64(value, is_fast ? st.plan.fast : st.plan.slow))
				throw bad(std::string(key) + " " + quoted(value) + " is not a number of bytes");
		} else if (key == "pool") {
			// "<region> <bytes>"
			once(pool);
			auto sp = value.find(' ');
			pool_grant g;
			if (sp == std::string_view::npos || !valid_pool_name(value.substr(0, sp)) ||
			    !parse_u64(value.substr(sp + 1), g.bytes) || !g.bytes)
				throw bad("not a pool (\"<region> <bytes>\"): " + quoted(value));
			g.pool = value.substr(0, sp);
			st.pool = std::move(g);
		} else if (key == "node") {
			// "<id> <kind> <bytes> <weight>", one blank between.
			std::vector<std::string_view> f;
			for (std::size_t b = 0; b <= value.size();) {
				std::size_t e = std::min(value.find(' ', b), value.size());
				f.push_back(value.substr(b, e - b));
				b = e + 1;
			}
			std::uint64_t id = 0, weight = 0;
			plan_node n;
			if (f.size() != 4 || !parse_u64(f[0], id) || id > max_node_id ||
			    (n.kind = parse_kind(f[1])) == CXLTIER_MEMORY_UNKNOWN ||
			    !parse_u64(f[2], n.bytes) || !parse_u64(f[3], weight) || weight > max_weight)
				throw bad("not a node (\"<id> dram|cxl <bytes> <weight>\"): " + quoted(value));
			n.id = static_cast<int>(id);
			n.weight = static_cast<unsigned int>(weight);
			if (!st.plan.nodes.empty() && st.plan.nodes.back().id >= n.id)
				throw bad("node " + std::to_string(n.id) + " out of order");
			st.plan.nodes.push_back(n);
		} else {
			throw bad("unknown key " + quoted(key));
		}
	}

	if (!version)
		throw state_error("no version");
	bool any_plan = policy || fast || slow || !st.plan.nodes.empty();
	if (error) {
		if (any_plan || pool)
			throw state_error(std::string("both an error and a ") + (pool ? "pool" : "plan"));
		st.plan = {};
		return st;
	}
	if (!any_plan) {
		if (!pool)
			throw state_error("neither a plan nor a pool");
		return st; // only --cxl-pool: no memory to place
	}
	if (!policy || !fast || !slow)
		throw state_error(std::string("no ") + (!policy ? "policy" : !fast ? "fast" : "slow"));
	if (!st.plan.fast && !st.plan.slow)
		throw state_error("a plan for no memory (fast and slow are 0)");
	if (st.plan.fast > u64_max - st.plan.slow)
		throw state_error("fast and slow add up to more than 2^64 bytes");
	if (policy_nodes(st.plan).empty())
		throw state_error(std::string("no node for the ") +
				  cxltier_placement_policy_name(st.plan.policy) + " policy");
	return st;
}

std::vector<int> policy_nodes(const job_plan &plan)
{
	std::vector<int> ids;
	auto kind = plan.fast ? CXLTIER_MEMORY_DRAM : CXLTIER_MEMORY_CXL;
	for (const auto &n : plan.nodes)
		if (plan.policy != CXLTIER_PLACEMENT_PREFERRED || n.kind == kind)
			ids.push_back(n.id);
	return ids;
}

std::string placement_env(const job_plan &plan)
{
	std::string nodes;
	for (const auto &n : plan.nodes)
		nodes += (nodes.empty() ? "" : ",") + std::to_string(n.id);
	return std::string(cxltier_placement_policy_name(plan.policy)) +
	       " fast=" + std::to_string(plan.fast) + " slow=" + std::to_string(plan.slow) +
	       " nodes=" + nodes;
}

std::string state_file_name(std::uint32_t jobid)
{
	return "job." + std::to_string(jobid);
}

} // namespace cxltier_slurm
