// SPDX-License-Identifier: GPL-2.0
// Long writes that show progress and can be interrupted (progress.hpp).
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/core.h>

#include "progress.hpp"

namespace cxltierctl {

volatile std::sig_atomic_t interrupt_signal = 0;

namespace {

extern "C" void on_interrupt_signal(int sig)
{
	interrupt_signal = sig;
}

} // namespace

interrupt_signals::interrupt_signals()
{
	interrupt_signal = 0;
	struct sigaction sa = {};
	sa.sa_handler = on_interrupt_signal;
	sigemptyset(&sa.sa_mask);
	sigset_t set;
	sigemptyset(&set);
	for (std::size_t i = 0; i < std::size(signals); i++) {
		::sigaction(signals[i], &sa, &old_[i]);
		sigaddset(&set, signals[i]);
	}
	pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
}

interrupt_signals::~interrupt_signals()
{
	pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
	for (std::size_t i = 0; i < std::size(signals); i++)
		::sigaction(signals[i], &old_[i], nullptr);
}

void interrupt_signals::accept()
{
	sigset_t set;
	sigemptyset(&set);
	for (int s : signals)
		sigaddset(&set, s);
	pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

blocking_write::blocking_write(std::function<int(cxltier_ctx *)> call, std::string before)
	: ctx_(open_ctx()), call_(std::move(call)), reason_(std::move(before)),
	  thread_([this] { write(); })
{
}

blocking_write::~blocking_write()
{
	if (thread_.joinable())
		thread_.join();
}

bool blocking_write::wait_for(std::chrono::duration<double> timeout)
{
	std::unique_lock guard(lock_);
	return cv_.wait_for(guard, timeout, [this] { return done_; });
}

void blocking_write::interrupt()
{
	std::unique_lock guard(lock_);
	if (!done_)
		pthread_kill(thread_.native_handle(), static_cast<int>(interrupt_signal));
}

void blocking_write::write()
{
	interrupt_signals::accept();
	int rc = -EINTR;
	std::string why;
	// A signal that came before the write would not interrupt it: no write then.
	bool began = !interrupt_signal;
	if (began) {
		rc = call_(ctx_.get());
		why = rc ? library_error(ctx_.get(), rc) : "";
	}
	std::lock_guard guard(lock_);
	rc_ = rc;
	if (began)
		reason_ = std::move(why);
	done_ = true;
	cv_.notify_all();
}

progress_output::progress_output() : tty_(::isatty(STDOUT_FILENO)) {}

void progress_output::show(const std::string &line)
{
	if (line.empty())
		return;
	if (tty_) {
		fmt::print("\r\x1b[K{}", line);
		open_ = true;
	} else {
		fmt::print("{}\n", line);
	}
	std::fflush(stdout);
}

void progress_output::end()
{
	if (open_)
		fmt::print("\n");
	open_ = false;
	std::fflush(stdout);
}

std::string duration_text(std::uint64_t us)
{
	if (us >= 1000000)
		return fmt::format("{:.3f} s", static_cast<double>(us) / 1e6);
	if (us >= 1000)
		return fmt::format("{:.1f} ms", static_cast<double>(us) / 1e3);
	return fmt::format("{} us", us);
}

std::string pages_text(std::uint64_t pages)
{
	return fmt::format("{} page{} ({})", pages, pages == 1 ? "" : "s", human_size(page_bytes(pages)));
}

} // namespace cxltierctl
