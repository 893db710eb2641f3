// SPDX-License-Identifier: GPL-2.0
#include <algorithm>
#include <array>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

json list_document(cxltier_ctx *ctx)
{
	return json{{"abi_version", cxltier_get_abi_version(ctx)}};
}

void print_json(const json &doc)
{
	// Names come from sysfs; replace invalid UTF-8 instead of failing the dump.
	fmt::print("{}\n", doc.dump(2, ' ', false, json::error_handler_t::replace));
}

std::string human_size(std::uint64_t bytes)
{
	static constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	std::size_t u = 0;
	while (u + 1 < units.size() && bytes >= (std::uint64_t{1} << (10 * (u + 1))))
		u++;
	std::uint64_t unit = std::uint64_t{1} << (10 * u);
	if (bytes % unit == 0)
		return fmt::format("{} {}", bytes / unit, units[u]);
	double v = static_cast<double>(bytes) / static_cast<double>(unit);
	// 1023.96 KiB would print as "1024.0 KiB"; show it as "1.0 MiB".
	if (v >= 1023.95 && u + 1 < units.size()) {
		v /= 1024;
		u++;
	}
	return fmt::format("{:.1f} {}", v, units[u]);
}

std::uint64_t page_bytes(std::uint64_t pages)
{
	return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string user_name(std::uint32_t uid)
{
	const passwd *pw = ::getpwuid(uid);
	return pw ? pw->pw_name : std::to_string(uid);
}

std::string group_name(std::uint32_t gid)
{
	const group *gr = ::getgrgid(gid);
	return gr ? gr->gr_name : std::to_string(gid);
}

std::string human_ms(std::uint64_t ms)
{
	if (ms < 1000)
		return fmt::format("{} ms", ms);
	if (ms < 60 * 1000)
		return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000);
	if (ms < 3600 * 1000)
		return fmt::format("{} min", ms / (60 * 1000));
	if (ms < 48 * 3600 * 1000ull)
		return fmt::format("{} h", ms / (3600 * 1000));
	return fmt::format("{} d", ms / (24 * 3600 * 1000ull));
}

std::string library_error(cxltier_ctx *ctx, int rc)
{
	std::string why = cxltier_get_last_error(ctx);
	return why.empty() ? cxltier_strerror(rc) : why;
}

std::string join(std::span<const char *const> words, const char *sep, const char *empty)
{
	if (words.empty())
		return empty;
	std::string out = words[0];
	for (std::size_t i = 1; i < words.size(); i++)
		out.append(sep).append(words[i]);
	return out;
}

json names_json(std::span<const char *const> names)
{
	json arr = json::array();
	for (const char *n : names)
		arr.push_back(n);
	return arr;
}

void table::add(std::vector<std::string> row)
{
	row.resize(columns_.size());
	rows_.push_back(std::move(row));
}

std::vector<std::string> table::lines() const
{
	std::vector<std::size_t> width(columns_.size());
	for (std::size_t c = 0; c < columns_.size(); c++) {
		width[c] = columns_[c].header.size();
		for (const auto &row : rows_)
			width[c] = std::max(width[c], row[c].size());
	}
	std::vector<std::string> out;
	auto line = [&](auto &&cell) {
		std::string text;
		for (std::size_t c = 0; c < columns_.size(); c++) {
			const std::string &cell_text = cell(c);
			bool last = c + 1 == columns_.size();
			if (c > 0)
				text += "  ";
			if (columns_[c].right)
				text += fmt::format("{:>{}}", cell_text, width[c]);
			else if (last)
				text += cell_text;
			else
				text += fmt::format("{:<{}}", cell_text, width[c]);
		}
		while (!text.empty() && text.back() == ' ') // an empty last cell
			text.pop_back();
		out.push_back(std::move(text));
	};
	line([&](std::size_t c) -> const std::string & { return columns_[c].header; });
	for (const auto &row : rows_)
		line([&](std::size_t c) -> const std::string & { return row[c]; });
	return out;
}

void table::print() const
{
	for (const auto &l : lines())
		fmt::print("{}\n", l);
}

} // namespace cxltierctl
