// SPDX-License-Identifier: GPL-2.0
// Running the built cxltierctl from a test: a clean environment with the fake roots
// given, output captured in files so neither stream can fill a pipe and block.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <chrono>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fake_sysfs.hpp"

extern char **environ;

namespace cxltier_test {

struct run_result {
	int status = -1; // exit status, or -1 if it did not exit normally
	std::string out;
	std::string err;
};

// Variables to set (a value) or remove (nullopt) in cxltierctl's environment.
using env_overrides = std::vector<std::pair<std::string, std::optional<std::string>>>;

// A cxltierctl started and not yet waited for; its output goes to files a test may
// read while it runs.
class running_cli {
public:
	running_cli(const std::vector<std::string> &args, const env_overrides &over)
	{
		std::vector<std::string> env;
		for (char **e = environ; *e; e++) {
			bool replaced = false;
			for (const auto &[name, value] : over)
				replaced |= std::strncmp(*e, (name + "=").c_str(), name.size() + 1) == 0;
			if (!replaced)
				env.emplace_back(*e);
		}
		for (const auto &[name, value] : over)
			if (value)
				env.push_back(name + "=" + *value);

		std::vector<char *> argv{const_cast<char *>(CXLTIERCTL_PATH)};
		for (const auto &a : args)
			argv.push_back(const_cast<char *>(a.c_str()));
		argv.push_back(nullptr);
		std::vector<char *> envp;
		for (auto &e : env)
			envp.push_back(e.data());
		envp.push_back(nullptr);

		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, out_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		posix_spawn_file_actions_addopen(&fa, 2, err_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int rc = posix_spawn(&pid_, CXLTIERCTL_PATH, &fa, nullptr, argv.data(), envp.data());
		posix_spawn_file_actions_destroy(&fa);
		if (rc != 0) {
			ADD_FAILURE() << "cannot run " << CXLTIERCTL_PATH << ": " << std::strerror(rc);
			pid_ = -1;
		}
	}
	~running_cli()
	{
		if (pid_ > 0) {
			::kill(pid_, SIGKILL);
			wait();
		}
	}
	running_cli(const running_cli &) = delete;
	running_cli &operator=(const running_cli &) = delete;

	pid_t pid() const { return pid_; }
	std::string out() const { return slurp(out_path()); }

	// Waits until it exits; status -1 when it did not exit normally (see signal()).
	run_result wait()
	{
		run_result r;
		if (pid_ > 0) {
			int ws = 0;
			while (waitpid(pid_, &ws, 0) < 0 && errno == EINTR)
				;
			r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
			signal_ = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
			pid_ = -1;
		}
		r.out = slurp(out_path());
		r.err = slurp(err_path());
		return r;
	}
	// The signal that ended it, 0 if none; after wait().
	int signal() const { return signal_; }

private:
	fs::path out_path() const { return io_.path() / "stdout"; }
	fs::path err_path() const { return io_.path() / "stderr"; }

	temp_dir io_;
	pid_t pid_ = -1;
	int signal_ = 0;
};

// The lines of a command's output, without their newlines.
inline std::vector<std::string> lines(const std::string &s)
{
	std::vector<std::string> out;
	std::size_t start = 0;
	while (start < s.size()) {
		std::size_t nl = s.find('\n', start);
		out.push_back(s.substr(start, nl - start));
		start = nl == std::string::npos ? s.size() : nl + 1;
	}
	return out;
}

inline run_result run_cxltierctl(const std::vector<std::string> &args, const env_overrides &over)
{
	running_cli cli(args, over);
	return cli.wait();
}

// Waits (up to 120 s) until @cli printed @text; a test failure if it never does.
inline bool wait_for_output(const running_cli &cli, const std::string &text)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
	while (std::chrono::steady_clock::now() < end) {
		if (cli.out().find(text) != std::string::npos)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	ADD_FAILURE() << "no '" << text << "' in:\n" << cli.out();
	return false;
}

} // namespace cxltier_test
