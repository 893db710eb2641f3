// SPDX-License-Identifier: GPL-2.0
#include "sysfs.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "cxltier.h"

#include "unique_fd.hpp"

namespace cxltier::internal {

namespace {

// sysfs attributes are at most a page; anything far larger is not ours.
constexpr std::size_t max_attr_size = 64 * 1024;

bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && is_space(s.front()))
		s.remove_prefix(1);
	while (!s.empty() && is_space(s.back()))
		s.remove_suffix(1);
	return s;
}

error bad_value(const fs::path &file, std::string_view what, std::string_view text)
{
	return {-EBADMSG, file.string() + ": expected " + std::string(what) + ", got " + quote_value(text)};
}

// @digits is the part of @text after any prefix; messages quote all of @text.
template <class T>
result<T> parse_number(const fs::path &file, std::string_view text, std::string_view digits,
		       int base, const char *what)
{
	T v{};
	auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
	if (ec == std::errc::result_out_of_range)
		return error{-EBADMSG, file.string() + ": " + quote_value(text) + " is out of range"};
	// from_chars takes a leading '-' for signed types only, never '+' or spaces.
	if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty())
		return bad_value(file, what, text);
	return v;
}

} // namespace

// The value as it appears in a message: quoted, unprintables replaced, bounded.
std::string quote_value(std::string_view v)
{
	constexpr std::size_t max_shown = 40;
	std::string out = "\"";
	for (std::size_t i = 0; i < v.size() && i < max_shown; i++)
		out += (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
	if (v.size() > max_shown)
		out += "...";
	return out + "\"";
}


const char *errno_text(int e)
{
	const char *s = strerrordesc_np(e);
	return s ? s : "Unknown error";
}

fs::path sysfs_root()
{
	const char *env = std::getenv(CXLTIER_SYSFS_ENV);
	return (env && *env) ? fs::path(env) : fs::path(CXLTIER_SYSFS_ROOT);
}

result<std::string> read_attr(const fs::path &file)
{
	unique_fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
	if (fd.get() < 0) {
		int e = errno;
		if (e == ENOENT)
			return error{-ENOENT, file.string() + ": missing"};
		return error{-e, file.string() + ": cannot open: " + errno_text(e)};
	}
	std::string data;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(fd.get(), buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			return error{-e, file.string() + ": cannot read: " + errno_text(e)};
		}
		if (n == 0)
			break;
		data.append(buf, static_cast<std::size_t>(n));
		if (data.size() > max_attr_size)
			return error{-EBADMSG, file.string() + ": larger than " +
						       std::to_string(max_attr_size) + " bytes"};
	}
	return std::string(trim(data));
}

result<std::uint64_t> parse_u64_dec(const fs::path &file, std::string_view text)
{
	return parse_number<std::uint64_t>(file, text, text, 10, "a decimal number");
}

result<std::uint64_t> parse_u64_hex(const fs::path &file, std::string_view text)
{
	constexpr const char *what = "a 0x-prefixed hexadecimal number";
	if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
		return bad_value(file, what, text);
	return parse_number<std::uint64_t>(file, text, text.substr(2), 16, what);
}

result<std::int64_t> parse_s64_dec(const fs::path &file, std::string_view text)
{
	return parse_number<std::int64_t>(file, text, text, 10, "a decimal number");
}

std::vector<std::string> split_words(std::string_view text)
{
	std::vector<std::string> words;
	std::size_t i = 0;
	while (i < text.size()) {
		while (i < text.size() && is_space(text[i]))
			i++;
		std::size_t start = i;
		while (i < text.size() && !is_space(text[i]))
			i++;
		if (i > start)
			words.emplace_back(text.substr(start, i - start));
	}
	return words;
}

bool natural_less(std::string_view a, std::string_view b)
{
	auto split = [](std::string_view s) {
		std::size_t d = s.size();
		while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		std::string_view num = s.substr(d);
		while (num.size() > 1 && num.front() == '0')
			num.remove_prefix(1);
		return std::pair{s.substr(0, d), num};
	};
	auto [pa, na] = split(a);
	auto [pb, nb] = split(b);
	if (pa != pb)
		return a < b;
	// Numbers of any length compare by digit count first, then digit by digit.
	if (na.size() != nb.size())
		return na.size() < nb.size();
	if (na != nb)
		return na < nb;
	return a < b;
}

result<std::vector<std::string>> list_subdirs(const fs::path &dir)
{
	std::vector<std::string> names;
	std::error_code ec;
	fs::directory_iterator it(dir, ec);
	if (ec == std::errc::no_such_file_or_directory)
		return names;
	if (ec)
		return error{-ec.value(), dir.string() + ": cannot list: " + errno_text(ec.value())};
	for (; it != fs::directory_iterator(); it.increment(ec)) {
		// Stray files next to the object directories are not objects.
		std::error_code type_ec;
		if (it->is_directory(type_ec))
			names.push_back(it->path().filename().string());
	}
	if (ec)
		return error{-ec.value(), dir.string() + ": cannot list: " + errno_text(ec.value())};
	std::sort(names.begin(), names.end(), natural_less);
	return names;
}

std::optional<std::string> attr_reader::read(const char *name)
{
	if (failure_)
		return std::nullopt;
	auto r = read_attr(dir_ / name);
	if (!r) {
		failure_ = std::move(r).err();
		return std::nullopt;
	}
	return std::move(r).value();
}

template <class T> T attr_reader::check(result<T> r)
{
	if (!r) {
		failure_ = std::move(r).err();
		return T{};
	}
	return std::move(r).value();
}

std::string attr_reader::text(const char *name)
{
	return read(name).value_or(std::string());
}

std::uint64_t attr_reader::u64_dec(const char *name)
{
	auto s = read(name);
	return s ? check(parse_u64_dec(dir_ / name, *s)) : 0;
}

std::uint64_t attr_reader::u64_hex(const char *name)
{
	auto s = read(name);
	return s ? check(parse_u64_hex(dir_ / name, *s)) : 0;
}

std::int64_t attr_reader::s64_dec(const char *name, std::int64_t min, std::int64_t max)
{
	auto s = read(name);
	if (!s)
		return 0;
	std::int64_t v = check(parse_s64_dec(dir_ / name, *s));
	if (!failure_ && (v < min || v > max)) {
		failure_ = error{-EBADMSG, (dir_ / name).string() + ": " + std::to_string(v) +
						   " is out of range [" + std::to_string(min) + ", " +
						   std::to_string(max) + "]"};
		return 0;
	}
	return v;
}

std::vector<std::string> attr_reader::words(const char *name)
{
	auto s = read(name);
	return s ? split_words(*s) : std::vector<std::string>{};
}

std::optional<std::uint64_t> attr_reader::optional_u64_dec(const char *name)
{
	if (failure_)
		return std::nullopt;
	auto r = read_attr(dir_ / name);
	if (!r) {
		if (r.err().code != -ENOENT)
			failure_ = std::move(r).err();
		return std::nullopt;
	}
	auto v = check(parse_u64_dec(dir_ / name, *r));
	if (failure_)
		return std::nullopt;
	return v;
}

} // namespace cxltier::internal
