// SPDX-License-Identifier: GPL-2.0
// A list of names handed out through the C ABI as a NULL-terminated const char *[].
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cxltier::internal {

class name_list {
public:
	name_list() : ptrs_{nullptr} {}
	explicit name_list(std::vector<std::string> names) : names_(std::move(names))
	{
		ptrs_.reserve(names_.size() + 1);
		for (const auto &n : names_)
			ptrs_.push_back(n.c_str());
		ptrs_.push_back(nullptr);
	}
	// Moving the vectors keeps every string where it is, so ptrs_ stays valid;
	// a copy would point into the source.
	name_list(name_list &&) noexcept = default;
	name_list &operator=(name_list &&) noexcept = default;
	name_list(const name_list &) = delete;
	name_list &operator=(const name_list &) = delete;

	const char *const *c_array() const noexcept { return ptrs_.data(); }
	std::size_t size() const noexcept { return names_.size(); }

private:
	std::vector<std::string> names_;
	std::vector<const char *> ptrs_;
};

} // namespace cxltier::internal
