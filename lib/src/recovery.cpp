// SPDX-License-Identifier: GPL-2.0
// Recovery from fenced pages: a process-wide SIGBUS handler that tells a program
// which region, offset and blade a fault on a fenced page is about, and replaces the
// page when the program asks, passing every other SIGBUS on to the action that was
// there before.
//
// Everything the handler touches is async-signal-safe: a fixed table of mappings
// (region_handle.cpp's registry enters them) and the callback, each slot and the
// callback behind a sequence counter (a seqlock) that the handler reads without a
// lock; the FENCED and REPLACE ioctls on the region's file descriptor; sigaction,
// pthread_sigmask and rt_tgsigqueueinfo.  Writers (map, unmap, install) serialize on
// a mutex and keep SIGBUS blocked while they write, so the handler never waits for
// a writer it interrupted.
#include "recovery.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <linux/cxltier.h>
#include <mutex>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export.hpp"

static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::uintptr_t>::is_always_lock_free);
static_assert(std::atomic<cxltier_fence_cb>::is_always_lock_free);

namespace cxltier::internal {

namespace {

// Mappings covered at one time; documented in cxltier.h.
constexpr std::size_t max_mappings = 1024;
// A reader that keeps finding a slot being written gives up on it (it cannot be
// its own thread: writers block SIGBUS).
constexpr int max_read_tries = 1000;

// A seqlock's counter: odd while the protected fields are being written.
class seqcount {
public:
	std::uint32_t read_begin() const noexcept { return seq_.load(std::memory_order_acquire); }
	bool read_retry(std::uint32_t begin) const noexcept
	{
		std::atomic_thread_fence(std::memory_order_acquire);
		return (begin & 1) || seq_.load(std::memory_order_relaxed) != begin;
	}
	void write_begin() noexcept
	{
		seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
		std::atomic_thread_fence(std::memory_order_release);
	}
	void write_end() noexcept
	{
		seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
	}

private:
	std::atomic<std::uint32_t> seq_{0};
};

// One mapping.  Every field is atomic so that the handler's racing reads are
// defined; the seqcount says whether they belong together.
struct slot {
	seqcount seq;
	std::atomic<std::uintptr_t> start{0}; // 0: free
	std::atomic<std::uint64_t> length{0};
	std::atomic<int> fd{-1};
	std::atomic<std::uint32_t> id{0};
	std::atomic<char> name[CXLTIER_NAME_MAX] = {};
};

// What the handler copies out of a slot.
struct mapping {
	std::uintptr_t start;
	std::uint64_t length;
	int fd;
	std::uint32_t id;
	char name[CXLTIER_NAME_MAX];
};

// Constant-initialized: there from before any constructor runs to after the last
// destructor, as a signal may come at any time.
slot table[max_mappings];

struct callback {
	seqcount seq;
	std::atomic<cxltier_fence_cb> cb{nullptr};
	std::atomic<void *> arg{nullptr};
};
callback current;

// Set while installed; written only with install_lock held and SIGBUS blocked.
struct sigaction previous;
std::atomic<bool> installed{false};
std::atomic<long> page_size{4096};

// Serializes writers of the table, of the callback and of the installation.
// Constant-initialized and trivially destroyed (libstdc++), so usable at any time.
std::mutex write_lock;

// The last address this thread retried because its page was no longer fenced:
// a second fault there is not retried again (it would never end).  Initial-exec:
// reading it in a signal handler allocates nothing.
thread_local std::uintptr_t last_unfenced_retry __attribute__((tls_model("initial-exec"))) = 0;

// SIGBUS blocked in the calling thread for the scope: a handler cannot interrupt a
// write to what it reads.
class sigbus_blocked {
public:
	sigbus_blocked() noexcept
	{
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGBUS);
		pthread_sigmask(SIG_BLOCK, &set, &old_);
	}
	~sigbus_blocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
	sigbus_blocked(const sigbus_blocked &) = delete;
	sigbus_blocked &operator=(const sigbus_blocked &) = delete;

private:
	sigset_t old_;
};

void write_slot(slot &s, std::uintptr_t start, const cxltier_region *r) noexcept
{
	s.seq.write_begin();
	s.length.store(r ? r->size : 0, std::memory_order_relaxed);
	s.fd.store(r ? r->fd : -1, std::memory_order_relaxed);
	s.id.store(r ? r->id : 0, std::memory_order_relaxed);
	std::size_t n = r ? std::min(r->name.size(), std::size(s.name) - 1) : 0;
	for (std::size_t i = 0; i < std::size(s.name); i++)
		s.name[i].store(i < n ? r->name[i] : '\0', std::memory_order_relaxed);
	s.start.store(start, std::memory_order_relaxed);
	s.seq.write_end();
}

// The mapping that holds @addr, read without a lock.  Async-signal-safe.
bool find_mapping(std::uintptr_t addr, mapping *out) noexcept
{
	for (slot &s : table) {
		for (int tries = 0; tries < max_read_tries; tries++) {
			std::uint32_t begin = s.seq.read_begin();
			mapping m;
			m.start = s.start.load(std::memory_order_relaxed);
			m.length = s.length.load(std::memory_order_relaxed);
			bool hit = m.start && addr - m.start < m.length;
			if (hit) {
				m.fd = s.fd.load(std::memory_order_relaxed);
				m.id = s.id.load(std::memory_order_relaxed);
				for (std::size_t i = 0; i < std::size(m.name); i++)
					m.name[i] = s.name[i].load(std::memory_order_relaxed);
			}
			if (s.seq.read_retry(begin))
				continue;
			if (!hit)
				break;
			m.name[std::size(m.name) - 1] = '\0';
			*out = m;
			return true;
		}
	}
	return false;
}

void read_callback(cxltier_fence_cb *cb, void **arg) noexcept
{
	for (int tries = 0; tries < max_read_tries; tries++) {
		std::uint32_t begin = current.seq.read_begin();
		*cb = current.cb.load(std::memory_order_relaxed);
		*arg = current.arg.load(std::memory_order_relaxed);
		if (!current.seq.read_retry(begin))
			return;
	}
	*cb = nullptr;
}

void write_callback(cxltier_fence_cb cb, void *arg) noexcept
{
	current.seq.write_begin();
	current.cb.store(cb, std::memory_order_relaxed);
	current.arg.store(arg, std::memory_order_relaxed);
	current.seq.write_end();
}

// Whether the page at @offset of the region behind @fd is fenced, and what the
// module says about it; false when the module cannot tell (an older module).
bool ask_fenced(int fd, std::uint64_t offset, struct cxltier_fenced *f) noexcept
{
	std::memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	f->offset = offset;
	return ::ioctl(fd, CXLTIER_IOC_FENCED, f) == 0;
}

// A fresh page for the fenced one at @offset; true when the access can run again.
bool replace_page(int fd, std::uint64_t offset) noexcept
{
	auto page = static_cast<std::uint64_t>(page_size.load(std::memory_order_relaxed));
	struct cxltier_replace r;
	std::memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.offset = offset & ~(page - 1);
	r.length = page;
	if (::ioctl(fd, CXLTIER_IOC_REPLACE, &r) < 0)
		return false;
	if (r.replaced)
		return true;
	// Nothing was fenced there any more: another thread replaced it first.
	struct cxltier_fenced f;
	return ask_fenced(fd, offset, &f) && !f.fenced;
}

// The fault is on a fenced page of a mapped region and was dealt with: the access
// may run again.  False: pass it on to the previous action.
bool handle(siginfo_t *si) noexcept
{
	if (si->si_code != BUS_MCEERR_AR && si->si_code != BUS_MCEERR_AO)
		return false;
	cxltier_fence_cb cb;
	void *arg;
	read_callback(&cb, &arg);
	auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
	mapping m;
	if (!cb || !find_mapping(addr, &m))
		return false;
	std::uint64_t offset = addr - m.start;

	struct cxltier_fenced f;
	bool known = ask_fenced(m.fd, offset, &f);
	if (known && !f.fenced) {
		// Replaced by another thread since the fault; once, for an access.
		if (si->si_code != BUS_MCEERR_AR || last_unfenced_retry == addr)
			return false;
		last_unfenced_retry = addr;
		return true;
	}
	char blade[CXLTIER_BLADE_NAME_MAX] = "";
	if (known) {
		std::memcpy(blade, f.blade, sizeof(blade));
		blade[sizeof(blade) - 1] = '\0';
	}
	cxltier_fence_event ev = {
		.region_id = m.id,
		.region = m.name,
		.offset = offset,
		.addr = si->si_addr,
		.blade = blade,
		.time_ns = known ? f.time_ns : 0,
		.cause = known ? static_cast<cxltier_event_cause>(f.cause) : CXLTIER_EVENT_CAUSE_UNKNOWN,
		.si_code = si->si_code,
	};
	if (cb(&ev, arg) != CXLTIER_FENCE_RETRY_REPLACE)
		return false;
	return replace_page(m.fd, offset);
}

// SIG_DFL or SIG_IGN, whatever the flags (sa_handler and sa_sigaction share storage).
bool is_handler(const struct sigaction &sa, void (*h)(int))
{
	return sa.sa_handler == h;
}

// Dies of @sig with the original siginfo, as if no handler had been there.
void die(int sig, siginfo_t *si) noexcept
{
	struct sigaction dfl;
	std::memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	::sigaction(sig, &dfl, nullptr);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
	// To the calling thread, so it is taken before the call returns; any si_code is
	// allowed to oneself.  Should both fail, a fault from the kernel repeats on
	// return and now meets the default action.
	if (::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::syscall(SYS_gettid), sig, si) < 0)
		::syscall(SYS_tgkill, ::getpid(), ::syscall(SYS_gettid), sig);
}

// The previous action, as the kernel would have taken it.
void chain(int sig, siginfo_t *si, void *uc) noexcept
{
	struct sigaction old = previous;
	if (is_handler(old, SIG_DFL)) {
		die(sig, si);
		return;
	}
	if (is_handler(old, SIG_IGN)) {
		// The kernel does not let a fault be ignored: it would come back at once.
		if (si->si_code > 0 && si->si_code != BUS_MCEERR_AO)
			die(sig, si);
		return;
	}
	if (old.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;
		std::memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		::sigaction(sig, &dfl, nullptr);
	}
	// The mask the previous handler was installed with, and @sig itself unless it
	// asked for SA_NODEFER.
	sigset_t mask = old.sa_mask, saved;
	if (!(old.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_BLOCK, &mask, &saved);
	if (old.sa_flags & SA_SIGINFO)
		old.sa_sigaction(sig, si, uc);
	else
		old.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

extern "C" void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	if (!handle(si))
		chain(sig, si, uc);
	errno = saved_errno;
}

bool is_ours(const struct sigaction &sa)
{
	return (sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == on_sigbus;
}

} // namespace

void fence_table_add(const cxltier_region *region) noexcept
{
	std::lock_guard guard(write_lock);
	sigbus_blocked blocked;
	for (slot &s : table) {
		if (s.start.load(std::memory_order_relaxed))
			continue;
		write_slot(s, reinterpret_cast<std::uintptr_t>(region->addr), region);
		return;
	}
}

void fence_table_remove(const cxltier_region *region) noexcept
{
	std::lock_guard guard(write_lock);
	sigbus_blocked blocked;
	auto start = reinterpret_cast<std::uintptr_t>(region->addr);
	for (slot &s : table) {
		if (s.start.load(std::memory_order_relaxed) != start)
			continue;
		write_slot(s, 0, nullptr);
		return;
	}
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_fence_handler_install(cxltier_fence_cb cb, void *arg)
{
	if (!cb)
		return -EINVAL;
	std::lock_guard guard(write_lock);
	sigbus_blocked blocked;
	page_size.store(::sysconf(_SC_PAGESIZE), std::memory_order_relaxed);
	write_callback(cb, arg);
	if (installed.load(std::memory_order_relaxed))
		return 0;

	// The previous action is saved before ours can run (SIGBUS is blocked here,
	// and other threads only chain once ours is in place).
	if (::sigaction(SIGBUS, nullptr, &previous) < 0) {
		int e = errno;
		write_callback(nullptr, nullptr);
		return -e;
	}
	struct sigaction sa;
	std::memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | (previous.sa_flags & SA_RESTART);
	sigemptyset(&sa.sa_mask);
	if (::sigaction(SIGBUS, &sa, nullptr) < 0) {
		int e = errno;
		write_callback(nullptr, nullptr);
		return -e;
	}
	installed.store(true, std::memory_order_relaxed);
	return 0;
}

CXLTIER_EXPORT int cxltier_fence_handler_remove(void)
{
	std::lock_guard guard(write_lock);
	sigbus_blocked blocked;
	if (!installed.load(std::memory_order_relaxed))
		return -ENOENT;
	struct sigaction now;
	if (::sigaction(SIGBUS, nullptr, &now) < 0)
		return -errno;
	if (!is_ours(now))
		return -EBUSY;
	if (::sigaction(SIGBUS, &previous, nullptr) < 0)
		return -errno;
	write_callback(nullptr, nullptr);
	installed.store(false, std::memory_order_relaxed);
	return 0;
}
