// SPDX-License-Identifier: GPL-2.0
// Running the built cxltierctl from a test: a clean environment with the fake roots
// given, output captured in files so neither stream can fill a pipe and block.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
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

inline run_result run_cxltierctl(const std::vector<std::string> &args, const env_overrides &over)
{
	temp_dir io;
	fs::path out = io.path() / "stdout", err = io.path() / "stderr";

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
	posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	int rc = posix_spawn(&pid, CXLTIERCTL_PATH, &fa, nullptr, argv.data(), envp.data());
	posix_spawn_file_actions_destroy(&fa);
	run_result r;
	if (rc != 0) {
		ADD_FAILURE() << "cannot run " << CXLTIERCTL_PATH << ": " << std::strerror(rc);
		return r;
	}
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	r.out = slurp(out);
	r.err = slurp(err);
	return r;
}

} // namespace cxltier_test
