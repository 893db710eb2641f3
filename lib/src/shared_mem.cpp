// SPDX-License-Identifier: GPL-2.0
// Handing data between hosts through a shared CXL device, which is not cache
// coherent across hosts (CXL 2.0 multi-headed devices have no back-invalidation):
// a store reaches another host only once its line is written back to the device,
// and a load sees another host's store only when no stale copy of the line is in
// this CPU's caches.  The instructions are pmem.cpp's; cxltier.h states the rules.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <ctime>

#include "cxltier.h"
#include "export.hpp"
#include "pmem.hpp"

namespace cxltier::internal {

namespace {

// NULL with a length, or a range that wraps around the address space.
bool bad_range(const void *addr, std::size_t len)
{
	auto a = reinterpret_cast<std::uintptr_t>(addr);
	return len && (!addr || a + len < a);
}

// Without a cache line instruction (not x86) only the fences ran: enough between
// the CPUs of one host, not for another host.
int flushed()
{
	return cpu_flush_insn() == flush_insn::none ? -EOPNOTSUPP : 0;
}

std::uint64_t now_ns()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
	       static_cast<std::uint64_t>(ts.tv_nsec);
}

void cpu_relax()
{
#if defined(__x86_64__)
	asm volatile("pause" ::: "memory");
#else
	std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// A flag is read for 200 us without sleeping (a handover in progress lands within
// a few device round trips), then with sleeps that double up to 1 ms, so that a
// long wait costs little CPU and still notices the flag within about 1 ms.
constexpr std::uint64_t busy_ns = 200 * 1000;
constexpr long first_sleep_ns = 10 * 1000;
constexpr long max_sleep_ns = 1000 * 1000;

// Reads the flag from memory, not from a line this CPU may hold from before.
std::uint64_t read_flag(const std::uint64_t *flag)
{
	evict_lines(flag, sizeof(*flag));
	full_fence();
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

} // namespace

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_flush(const void *addr, size_t len)
{
	if (bad_range(addr, len))
		return -EINVAL;
	write_back_lines(addr, len);
	store_fence();
	return flushed();
}

CXLTIER_EXPORT int cxltier_invalidate(const void *addr, size_t len)
{
	if (bad_range(addr, len))
		return -EINVAL;
	// The first fence keeps the evictions after every load before the call (the
	// flag's, in cxltier_acquire()): evicted earlier, a line could be fetched
	// again, stale, before the flag said the data was there.
	full_fence();
	evict_lines(addr, len);
	full_fence();
	return flushed();
}

CXLTIER_EXPORT void cxltier_publish(uint64_t *flag, uint64_t value)
{
	// The data's write-backs complete before the flag can reach the device, even
	// when the caller started them without a fence of its own.
	store_fence();
	__atomic_store_n(flag, value, __ATOMIC_RELEASE);
	write_back_lines(flag, sizeof(*flag));
	store_fence();
}

CXLTIER_EXPORT int cxltier_acquire(const uint64_t *flag, uint64_t value, int timeout_ms)
{
	// An 8-byte aligned flag is on one cache line and stored in one piece.
	if (!flag || reinterpret_cast<std::uintptr_t>(flag) % alignof(std::uint64_t))
		return -EINVAL;
	std::uint64_t start = now_ns();
	std::uint64_t limit = timeout_ms < 0 ? UINT64_MAX
					     : static_cast<std::uint64_t>(timeout_ms) * 1000000u;
	long sleep_ns = first_sleep_ns;
	for (;;) {
		if (read_flag(flag) == value) {
			// What the caller does next (evicting the data's lines) stays after the read.
			full_fence();
			return 0;
		}
		std::uint64_t waited = now_ns() - start;
		if (waited >= limit)
			return -ETIMEDOUT;
		if (waited < busy_ns) {
			cpu_relax();
			continue;
		}
		timespec ts{0, sleep_ns};
		nanosleep(&ts, nullptr); // a signal only ends one sleep early
		if (sleep_ns < max_sleep_ns)
			sleep_ns = std::min(2 * sleep_ns, max_sleep_ns);
	}
}

CXLTIER_EXPORT int cxltier_acquire_range(const uint64_t *flag, uint64_t value, int timeout_ms,
					 const void *buf, size_t len)
{
	if (bad_range(buf, len))
		return -EINVAL;
	int rc = cxltier_acquire(flag, value, timeout_ms);
	if (rc)
		return rc;
	return cxltier_invalidate(buf, len);
}
