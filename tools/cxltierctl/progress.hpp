// SPDX-License-Identifier: GPL-2.0
// Long writes to the module that show progress and can be interrupted: blade drain
// and tier remove.  The write blocks in a thread of its own; the caller polls and
// prints progress meanwhile; Ctrl-C, SIGTERM or SIGHUP make the write fail with
// EINTR (the module then undoes it) instead of killing the program.
#pragma once

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "cxltierctl.hpp"

namespace cxltierctl {

using steady = std::chrono::steady_clock;

// The signal that asked to interrupt, 0 if none: set by the handler.
extern volatile std::sig_atomic_t interrupt_signal;

// While it lives: SIGINT, SIGTERM and SIGHUP are caught (no SA_RESTART: the blocked
// write must end) and blocked in every thread but the writer's (threads started in
// its scope inherit the mask).  Everything comes back at scope exit.
class interrupt_signals {
public:
	interrupt_signals();
	~interrupt_signals();
	interrupt_signals(const interrupt_signals &) = delete;
	interrupt_signals &operator=(const interrupt_signals &) = delete;

	// In the writer thread: take the signals there.
	static void accept();

private:
	static constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old_[std::size(signals)];
	sigset_t old_mask_;
};

// @call (the blocking write, 0 or a negative errno) in a thread of its own with a
// context of its own, so that the caller can watch the progress meanwhile.  Create
// it inside an interrupt_signals scope.
class blocking_write {
public:
	// @before: the reason when a signal came before the write began.
	blocking_write(std::function<int(cxltier_ctx *)> call, std::string before);
	~blocking_write();
	blocking_write(const blocking_write &) = delete;
	blocking_write &operator=(const blocking_write &) = delete;

	// Waits until the write returned or @timeout passed; whether it returned.
	bool wait_for(std::chrono::duration<double> timeout);
	// Sends interrupt_signal to the writer again until the write returned: a signal
	// between its look at interrupt_signal and its write would not interrupt it.
	void interrupt();
	// After wait_for() said so: 0 or the negative errno, with the reason.
	int result() const { return rc_; }
	const std::string &reason() const { return reason_; }

private:
	void write();

	cxltier::ctx_ptr ctx_;
	std::function<int(cxltier_ctx *)> call_;
	std::mutex lock_;
	std::condition_variable cv_;
	bool done_ = false;
	int rc_ = 0;
	std::string reason_;
	std::thread thread_; // last: starts once the rest is there
};

// Progress on a terminal rewrites one line; elsewhere (a log, a pipe) it is a line
// per interval.
class progress_output {
public:
	progress_output();
	~progress_output() { end(); }
	progress_output(const progress_output &) = delete;
	progress_output &operator=(const progress_output &) = delete;

	void show(const std::string &line);
	// Ends the line being rewritten, before other output.
	void end();

private:
	bool tty_;
	bool open_ = false;
};

// "12 pages (48 KiB)"; "1.234 s", "5.0 ms", "30 us".
std::string pages_text(std::uint64_t pages);
std::string duration_text(std::uint64_t us);

} // namespace cxltierctl
