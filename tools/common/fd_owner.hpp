// SPDX-License-Identifier: GPL-2.0
// A file descriptor closed at the end of its owner's life (-1: none), for the tools
// (cxltierctl, the Slurm plugin and its helper, the guest benchmark's programs).
#pragma once

#include <unistd.h>

#include <utility>

namespace cxlt_tools {

class fd_owner {
public:
	explicit fd_owner(int fd = -1) noexcept : fd_(fd) {}
	~fd_owner() { reset(); }
	fd_owner(const fd_owner &) = delete;
	fd_owner &operator=(const fd_owner &) = delete;
	fd_owner(fd_owner &&o) noexcept : fd_(o.release()) {}
	fd_owner &operator=(fd_owner &&o) noexcept
	{
		reset(o.release());
		return *this;
	}
	int get() const noexcept { return fd_; }
	// The descriptor, no longer owned: for a close(2) whose error matters.
	int release() noexcept { return std::exchange(fd_, -1); }
	void reset(int fd = -1) noexcept
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = fd;
	}

private:
	int fd_;
};

} // namespace cxlt_tools
