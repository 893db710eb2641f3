// SPDX-License-Identifier: GPL-2.0
// Reading the module's sysfs snapshot: files, numbers and directory listings, each
// failure reported with the path and the value at fault.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace cxltier::internal {

namespace fs = std::filesystem;

// strerror() without its shared buffer: safe from any thread.
const char *errno_text(int e);

// CXLTIER_SYSFS when set and not empty, else /sys/kernel/cxltier.
fs::path sysfs_root();

// Contents of a sysfs attribute without surrounding whitespace (sysfs ends values
// with a newline).  A missing file gives -ENOENT, other failures their errno.
result<std::string> read_attr(const fs::path &file);

// Strict parsers for the formats the ABI document promises.
result<std::uint64_t> parse_u64_dec(const fs::path &file, std::string_view text);
result<std::uint64_t> parse_u64_hex(const fs::path &file, std::string_view text); // "0x..."
result<std::int64_t> parse_s64_dec(const fs::path &file, std::string_view text);

std::vector<std::string> split_words(std::string_view text);

// Orders "mem2" before "mem10", as ls -v does.
bool natural_less(std::string_view a, std::string_view b);

// Names of the subdirectories of @dir, in natural order; a missing @dir is empty.
result<std::vector<std::string>> list_subdirs(const fs::path &dir);

// Reads the attributes of one sysfs directory.  The first failure is kept and later
// reads are skipped, so a loader reads every field and checks once at the end.
class attr_reader {
public:
	explicit attr_reader(fs::path dir) : dir_(std::move(dir)) {}

	std::string text(const char *name);
	std::uint64_t u64_dec(const char *name);
	std::uint64_t u64_hex(const char *name);
	// Decimal, within [min, max].
	std::int64_t s64_dec(const char *name, std::int64_t min, std::int64_t max);
	std::vector<std::string> words(const char *name);
	// Decimal, from a file newer modules have: nullopt (and no failure) when missing.
	std::optional<std::uint64_t> optional_u64_dec(const char *name);

	const fs::path &dir() const noexcept { return dir_; }
	const std::optional<error> &failure() const noexcept { return failure_; }

private:
	std::optional<std::string> read(const char *name);
	template <class T> T check(result<T> r);

	fs::path dir_;
	std::optional<error> failure_;
};

// @v quoted for a message: printable ASCII only, at most 40 characters shown.
std::string quote_value(std::string_view v);

} // namespace cxltier::internal
