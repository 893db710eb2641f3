// SPDX-License-Identifier: GPL-2.0
// A small result type: a value or an error (negative errno and a one-line reason).
// std::expected would do, but GCC 12 does not have it.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cxltier::internal {

struct error {
	int code;	 // negative errno
	std::string msg; // one line, names the file and value at fault
};

template <class T> class [[nodiscard]] result {
public:
	result(T value) : v_(std::move(value)) {}
	result(error err) : v_(std::move(err)) {}

	bool ok() const noexcept { return v_.index() == 0; }
	explicit operator bool() const noexcept { return ok(); }

	T &value() & { return std::get<0>(v_); }
	T &&value() && { return std::get<0>(std::move(v_)); }
	T &operator*() & { return value(); }
	T *operator->() { return &value(); }
	const error &err() const & { return std::get<1>(v_); }
	error &&err() && { return std::get<1>(std::move(v_)); }

private:
	std::variant<T, error> v_;
};

} // namespace cxltier::internal
