// SPDX-License-Identifier: GPL-2.0
// cxltierctl top: a live view of the migration daemon, refreshed every interval.
// On a terminal it draws on the alternate screen with the keyboard in
// non-canonical mode, and puts both back however it ends (q, Ctrl-C, SIGTERM, or
// an error such as the module going away).  With --once, or when stdout is not a
// terminal, it prints plain frames instead, without control codes.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <thread>
#include <unistd.h>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "sample.hpp"

namespace cxltierctl {

namespace {

struct top_options {
	double interval = 2.0; // seconds
	bool once = false;
};

volatile std::sig_atomic_t quit_signal = 0;
volatile std::sig_atomic_t resized = 0;

extern "C" void on_quit(int sig)
{
	quit_signal = sig;
}

extern "C" void on_winch(int)
{
	resized = 1;
}

// The handlers only set a flag.  SA_RESTART, so that a signal that comes while top
// waits to write to its terminal (output paused with Ctrl-S, a slow reader; and
// Ctrl-C itself holds the terminal while it flushes it) restarts the write rather
// than failing it with EINTR; poll() is never restarted (signal(7)), so the wait
// for the next frame still ends at once.  The old handlers come back at scope exit.
class signal_guard {
public:
	signal_guard()
	{
		struct sigaction sa = {};
		sa.sa_handler = on_quit;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		for (std::size_t i = 0; i < std::size(quit_signals); i++)
			::sigaction(quit_signals[i], &sa, &old_[i]);
		sa.sa_handler = on_winch;
		::sigaction(SIGWINCH, &sa, &old_winch_);
	}
	~signal_guard()
	{
		for (std::size_t i = 0; i < std::size(quit_signals); i++)
			::sigaction(quit_signals[i], &old_[i], nullptr);
		::sigaction(SIGWINCH, &old_winch_, nullptr);
	}
	signal_guard(const signal_guard &) = delete;
	signal_guard &operator=(const signal_guard &) = delete;

private:
	static constexpr int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old_[std::size(quit_signals)];
	struct sigaction old_winch_;
};

// The terminal as the live view needs it: alternate screen, no cursor, keys read
// one at a time without echo (signals still generated, so Ctrl-C works).
class terminal_guard {
public:
	terminal_guard()
	{
		keyboard_ = ::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved_) == 0;
		if (keyboard_) {
			struct termios raw = saved_;
			raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
			raw.c_cc[VMIN] = 0;
			raw.c_cc[VTIME] = 0;
			::tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		}
		fmt::print("\x1b[?1049h\x1b[?25l");
		std::fflush(stdout);
	}
	~terminal_guard()
	{
		fmt::print("\x1b[?25h\x1b[?1049l");
		std::fflush(stdout);
		if (keyboard_)
			::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
	}
	terminal_guard(const terminal_guard &) = delete;
	terminal_guard &operator=(const terminal_guard &) = delete;

	bool keyboard() const { return keyboard_; }

	static frame_size size()
	{
		struct winsize ws = {};
		if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || !ws.ws_col || !ws.ws_row)
			return {80, 24};
		return {ws.ws_col, ws.ws_row};
	}

private:
	bool keyboard_ = false;
	struct termios saved_ = {};
};

void print_frame(const std::vector<std::string> &lines)
{
	for (const auto &l : lines)
		fmt::print("{}\n", l);
}

// Over the previous frame, from the top left; the last line gets no newline so
// that a full screen does not scroll.
void draw(const std::vector<std::string> &lines, frame_size size)
{
	std::string out = "\x1b[H";
	std::size_t n = std::min<std::size_t>(lines.size(), size.height);
	for (std::size_t i = 0; i < n; i++)
		out += lines[i] + "\x1b[K" + (i + 1 < n ? "\n" : "");
	out += "\x1b[J";
	fmt::print("{}", out);
	std::fflush(stdout);
}

using steady = std::chrono::steady_clock;

enum class wake { time, key_refresh, resize, quit };

// Waits until @deadline, a quit signal, a resize, or a key: q quits, space
// refreshes now, others are ignored.
wake wait_until(steady::time_point deadline, bool keyboard)
{
	for (;;) {
		if (quit_signal)
			return wake::quit;
		if (resized) {
			resized = 0;
			return wake::resize;
		}
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
		if (left.count() <= 0)
			return wake::time;
		struct pollfd p = {STDIN_FILENO, POLLIN, 0};
		int rc = ::poll(&p, keyboard ? 1 : 0, static_cast<int>(left.count()) + 1);
		if (rc < 0 && errno != EINTR)
			throw fatal(fmt::format("poll: {}", std::strerror(errno)));
		if (rc <= 0 || !(p.revents & POLLIN))
			continue;
		char key;
		if (::read(STDIN_FILENO, &key, 1) != 1)
			continue;
		if (key == 'q' || key == 'Q')
			return wake::quit;
		if (key == ' ')
			return wake::key_refresh;
	}
}

void top_once(cxltier_ctx *ctx, const top_options &o)
{
	sample before = take_sample(ctx);
	std::this_thread::sleep_for(std::chrono::duration<double>(o.interval));
	sample now = take_sample(ctx);
	print_frame(top_frame(&before, now, o.interval, {}));
}

// Not a terminal: one plain frame per interval, separated by a blank line, until
// a signal says stop.
void top_batch(cxltier_ctx *ctx, const top_options &o)
{
	signal_guard signals;
	auto interval = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(o.interval));
	sample prev = take_sample(ctx);
	for (auto next = steady::now() + interval;; next += interval) {
		if (wait_until(next, false) == wake::quit)
			return;
		sample now = take_sample(ctx);
		print_frame(top_frame(&prev, now, o.interval, {}));
		fmt::print("\n");
		std::fflush(stdout);
		prev = std::move(now);
	}
}

void top_live(cxltier_ctx *ctx, const top_options &o)
{
	signal_guard signals;
	// The first sample before the screen changes: an error then prints normally.
	sample prev = take_sample(ctx);
	terminal_guard term;
	auto interval = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(o.interval));
	frame_size size = terminal_guard::size();
	draw(top_frame(nullptr, prev, o.interval, size), size);
	std::optional<sample> shown_prev;
	auto next = steady::now() + interval;
	for (;;) {
		switch (wait_until(next, term.keyboard())) {
		case wake::quit:
			return;
		case wake::resize:
			size = terminal_guard::size();
			draw(top_frame(shown_prev ? &*shown_prev : nullptr, prev, o.interval, size), size);
			continue;
		case wake::key_refresh:
		case wake::time:
			break;
		}
		sample now = take_sample(ctx);
		draw(top_frame(&prev, now, o.interval, size), size);
		shown_prev = std::move(prev);
		prev = std::move(now);
		next = steady::now() + interval;
	}
}

void top(const top_options &o)
{
	auto ctx = open_ctx();
	quit_signal = 0;
	if (o.once)
		top_once(ctx.get(), o);
	else if (!::isatty(STDOUT_FILENO))
		top_batch(ctx.get(), o);
	else
		top_live(ctx.get(), o);
}

} // namespace

void add_top_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"top", "Live view: memory per node, migration rates, page heat, hottest regions");
	auto o = std::make_shared<top_options>();
	cmd->add_option("--interval", o->interval, "Seconds between refreshes (default 2)")
		->check(CLI::Range(0.1, 3600.0));
	cmd->add_flag("--once", o->once,
		      "Print one frame (rates over one interval) without terminal control codes, "
		      "and exit");
	cmd->callback([&run, o] { run = [o] { top(*o); }; });
}

} // namespace cxltierctl
