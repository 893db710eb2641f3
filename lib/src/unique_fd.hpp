// SPDX-License-Identifier: GPL-2.0
// A file descriptor closed at scope exit.
#pragma once

#include <unistd.h>

namespace cxltier::internal {

class unique_fd {
public:
	explicit unique_fd(int fd) noexcept : fd_(fd) {}
	unique_fd(const unique_fd &) = delete;
	unique_fd &operator=(const unique_fd &) = delete;
	~unique_fd()
	{
		if (fd_ >= 0)
			::close(fd_);
	}
	int get() const noexcept { return fd_; }

private:
	int fd_;
};

} // namespace cxltier::internal
