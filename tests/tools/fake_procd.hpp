// SPDX-License-Identifier: GPL-2.0
// cxltier-procd as cxltierctl sees it: a process that has written its pid to
// DIR/procd.pid and holds an exclusive flock(2) on the file for as long as it runs,
// as the service does.  Here a child of the test that does nothing else.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace cxltier_test {

class fake_procd {
public:
	explicit fake_procd(const std::filesystem::path &dir)
	{
		int ready[2];
		if (::pipe2(ready, O_CLOEXEC) < 0)
			throw std::system_error(errno, std::generic_category(), "pipe2");
		pid_ = ::fork();
		if (pid_ < 0)
			throw std::system_error(errno, std::generic_category(), "fork");
		if (pid_ == 0)
			hold((dir / "procd.pid").string(), ready[1]);
		::close(ready[1]);
		char ok = 0;
		ssize_t n;
		while ((n = ::read(ready[0], &ok, 1)) < 0 && errno == EINTR)
			;
		::close(ready[0]);
		if (n != 1 || ok != 1) {
			stop();
			throw std::runtime_error("the fake cxltier-procd could not lock " +
						 (dir / "procd.pid").string());
		}
	}
	~fake_procd() { stop(); }
	fake_procd(const fake_procd &) = delete;
	fake_procd &operator=(const fake_procd &) = delete;

	pid_t pid() const noexcept { return pid_; }

	// As if the service had stopped: its lock goes with it, its pid file stays.
	void stop() noexcept
	{
		if (pid_ <= 0)
			return;
		::kill(pid_, SIGKILL);
		while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR)
			;
		pid_ = -1;
	}

private:
	[[noreturn]] static void hold(const std::string &file, int ready)
	{
		::prctl(PR_SET_PDEATHSIG, SIGKILL); // not outliving a test that crashed
		std::string pid = std::to_string(::getpid()) + "\n";
		int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		char ok = fd >= 0 && ::flock(fd, LOCK_EX) == 0 && ::ftruncate(fd, 0) == 0 &&
			  ::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
		if (::write(ready, &ok, 1) != 1 || !ok)
			::_exit(1);
		for (;;)
			::pause();
	}

	pid_t pid_ = -1;
};

} // namespace cxltier_test
