// SPDX-License-Identifier: GPL-2.0
// Running scontrol without a shell (command.hpp).
#include "command.hpp"
#include "fd_owner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char **environ;

namespace cxltier_slurm {

namespace {

using cxlt_tools::fd_owner;

using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Enough for any message of scontrol's; the rest is dropped.
constexpr std::size_t max_output = 64 * 1024;

// With SIGCHLD ignored (a caller's choice) the kernel reaps the child itself and
// its status is lost: the default action, for as long as the command runs.
class default_sigchld {
public:
	default_sigchld()
	{
		struct sigaction sa = {};
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		::sigaction(SIGCHLD, &sa, &old_);
	}
	~default_sigchld() { ::sigaction(SIGCHLD, &old_, nullptr); }
	default_sigchld(const default_sigchld &) = delete;
	default_sigchld &operator=(const default_sigchld &) = delete;

private:
	struct sigaction old_;
};

class spawn_actions {
public:
	spawn_actions() { ::posix_spawn_file_actions_init(&fa_); }
	~spawn_actions() { ::posix_spawn_file_actions_destroy(&fa_); }
	spawn_actions(const spawn_actions &) = delete;
	spawn_actions &operator=(const spawn_actions &) = delete;
	posix_spawn_file_actions_t *get() { return &fa_; }

private:
	posix_spawn_file_actions_t fa_;
};

std::string one_line(std::string s)
{
	while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
		s.pop_back();
	for (char &c : s)
		if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
	return s;
}

} // namespace

std::string command_result::describe() const
{
	if (status < 0)
		return error;
	std::string out = one_line(output);
	return "exit status " + std::to_string(status) + (out.empty() ? "" : ": " + out);
}

std::string find_in_path(const std::string &name)
{
	const char *path = std::getenv("PATH");
	if (!path)
		return "";
	std::string p = path;
	for (std::size_t b = 0; b <= p.size();) {
		std::size_t e = p.find(':', b);
		if (e == std::string::npos)
			e = p.size();
		std::string dir = p.substr(b, e - b);
		b = e + 1;
		if (dir.empty())
			continue; // the current directory: not for a program run as root
		std::string f = dir + "/" + name;
		if (::access(f.c_str(), X_OK) == 0)
			return f;
	}
	return "";
}

command_result run_command(const std::vector<std::string> &argv, milliseconds timeout)
{
	command_result r;
	if (argv.empty()) {
		r.error = "no command";
		return r;
	}
	int fds[2];
	if (::pipe2(fds, O_CLOEXEC) < 0) {
		r.error = std::string("cannot make a pipe: ") + std::strerror(errno);
		return r;
	}
	fd_owner out_r(fds[0]), out_w(fds[1]);

	spawn_actions fa;
	::posix_spawn_file_actions_addopen(fa.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	::posix_spawn_file_actions_adddup2(fa.get(), out_w.get(), STDOUT_FILENO);
	::posix_spawn_file_actions_adddup2(fa.get(), out_w.get(), STDERR_FILENO);
	std::vector<char *> args;
	for (const auto &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);

	default_sigchld sigchld;
	pid_t pid = -1;
	bool bare = argv[0].find('/') == std::string::npos;
	int rc = bare ? ::posix_spawnp(&pid, argv[0].c_str(), fa.get(), nullptr, args.data(), environ)
		      : ::posix_spawn(&pid, argv[0].c_str(), fa.get(), nullptr, args.data(), environ);
	if (rc != 0) {
		r.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
		return r;
	}
	out_w.reset();

	auto deadline = steady::now() + timeout;
	auto left = [&] {
		auto ms = std::chrono::duration_cast<milliseconds>(deadline - steady::now()).count();
		return static_cast<int>(std::max<long long>(ms, 0));
	};
	bool timed_out = false;
	for (;;) {
		struct pollfd pfd = {.fd = out_r.get(), .events = POLLIN, .revents = 0};
		int n = ::poll(&pfd, 1, left());
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			timed_out = true;
			break;
		}
		char buf[4096];
		ssize_t got = ::read(out_r.get(), buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break; // EOF: it closed its output, most likely by exiting
		if (r.output.size() < max_output)
			r.output.append(buf, static_cast<std::size_t>(got));
	}

	int ws = 0;
	while (!timed_out) {
		pid_t w = ::waitpid(pid, &ws, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r.error = argv[0] + ": " + std::strerror(errno);
			return r;
		}
		// It closed its output but runs on.
		if (left() == 0)
			timed_out = true;
		else
			std::this_thread::sleep_for(milliseconds(10));
	}
	if (timed_out) {
		::kill(pid, SIGKILL);
		while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		r.error = argv[0] + " did not finish within " +
			  std::to_string(timeout.count() / 1000) + " s (killed)";
		return r;
	}
	if (WIFEXITED(ws)) {
		r.status = WEXITSTATUS(ws);
	} else {
		r.error = argv[0] + " was killed by signal " + std::to_string(WTERMSIG(ws));
	}
	return r;
}

} // namespace cxltier_slurm
