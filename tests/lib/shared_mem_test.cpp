// SPDX-License-Identifier: GPL-2.0
// The calls that hand data between hosts through non-coherent memory, through the
// exported C ABI.  Threads of one process stand in for the hosts: the caches are
// coherent here, so this proves the protocol (a flag per direction, new values per
// handover, timeouts) and that the instructions run and keep the data, not that a
// real multi-headed device needs them.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "cxltier.h"

namespace {

constexpr std::size_t data_len = 64 * 1024 - 8;
// Generous: a handover takes microseconds; this only bounds a broken test.
constexpr int timeout_ms = 10000;

// As a shared region would lay it out: each flag alone on its cache line, the
// data with its checksum after them.
struct alignas(64) area {
	std::uint64_t to_reader;
	char pad0[56];
	std::uint64_t to_writer;
	char pad1[56];
	unsigned char data[data_len];
	std::uint64_t sum;
};

std::uint64_t fnv1a(const unsigned char *p, std::size_t n)
{
	std::uint64_t h = 0xcbf29ce484222325ull;
	for (std::size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

void fill(area &a, std::uint64_t round)
{
	std::uint64_t x = round * 0x9e3779b97f4a7c15ull;
	for (std::size_t i = 0; i < data_len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a.data[i] = static_cast<unsigned char>(x);
	}
	a.sum = fnv1a(a.data, data_len);
}

#if defined(__x86_64__)
constexpr int flushed = 0;
#else
constexpr int flushed = -EOPNOTSUPP; // fences only
#endif

} // namespace

// A writer and a reader hand a checksummed buffer back and forth 200 times: each
// round the reader sees the whole buffer the writer published, never a mix.
TEST(SharedMem, Handover)
{
	auto a = std::make_unique<area>();
	std::memset(a.get(), 0, sizeof(*a));
	constexpr std::uint64_t rounds = 200;
	std::atomic<std::uint64_t> bad{0}, seen{0};
	std::thread reader([&] {
		for (std::uint64_t r = 1; r <= rounds; r++) {
			int rc = cxltier_acquire_range(&a->to_reader, r, timeout_ms, a->data,
						       data_len + sizeof(a->sum));
			if (rc != flushed)
				return;
			bad += fnv1a(a->data, data_len) != a->sum;
			seen = r;
			// The buffer is the writer's again.
			cxltier_publish(&a->to_writer, r);
		}
	});
	// No ASSERT here: the reader must be joined whatever happens.
	std::uint64_t written = 0;
	for (std::uint64_t r = 1; r <= rounds; r++) {
		if (cxltier_acquire(&a->to_writer, r - 1, timeout_ms) != 0)
			break;
		fill(*a, r);
		if (cxltier_flush(a->data, data_len + sizeof(a->sum)) != flushed)
			break;
		cxltier_publish(&a->to_reader, r);
		written = r;
	}
	reader.join();
	EXPECT_EQ(written, rounds);
	EXPECT_EQ(seen.load(), rounds);
	EXPECT_EQ(bad.load(), 0u);
	EXPECT_EQ(a->to_writer, rounds);
}

// A flag that never gets the value times out; one that has it returns at once,
// with a limit or without.
TEST(SharedMem, AcquireTimeout)
{
	alignas(64) std::uint64_t flag = 7;
	EXPECT_EQ(cxltier_acquire(&flag, 8, 30), -ETIMEDOUT);
	EXPECT_EQ(cxltier_acquire(&flag, 8, 0), -ETIMEDOUT);
	EXPECT_EQ(cxltier_acquire(&flag, 7, 0), 0);
	EXPECT_EQ(cxltier_acquire(&flag, 7, -1), 0);
	unsigned char buf[256] = {};
	EXPECT_EQ(cxltier_acquire_range(&flag, 8, 5, buf, sizeof(buf)), -ETIMEDOUT);
	EXPECT_EQ(cxltier_acquire_range(&flag, 7, 5, buf, sizeof(buf)), flushed);
}

// Flushing and invalidating keep what this CPU wrote (invalidation writes dirty
// lines back before dropping them), at any alignment.
TEST(SharedMem, FlushAndInvalidateKeepData)
{
	auto a = std::make_unique<area>();
	fill(*a, 42);
	std::uint64_t sum = a->sum;
	EXPECT_EQ(cxltier_flush(a->data + 3, 1000), flushed);
	EXPECT_EQ(cxltier_invalidate(a->data + 5, data_len - 5), flushed);
	EXPECT_EQ(fnv1a(a->data, data_len), sum);
	std::uint64_t flag = 0;
	cxltier_publish(&flag, 99);
	EXPECT_EQ(flag, 99u);
	EXPECT_EQ(cxltier_flush(nullptr, 0), flushed); // nothing to do
}

// Bad ranges and flags are refused before anything runs.
TEST(SharedMem, BadArguments)
{
	alignas(16) unsigned char buf[16] = {};
	EXPECT_EQ(cxltier_flush(nullptr, 64), -EINVAL);
	EXPECT_EQ(cxltier_invalidate(nullptr, 1), -EINVAL);
	auto *end = reinterpret_cast<const void *>(UINTPTR_MAX - 8);
	EXPECT_EQ(cxltier_flush(end, 64), -EINVAL);
	EXPECT_EQ(cxltier_invalidate(end, 64), -EINVAL);
	EXPECT_EQ(cxltier_acquire(nullptr, 0, 0), -EINVAL);
	const void *odd = buf + 4;
	EXPECT_EQ(cxltier_acquire(static_cast<const std::uint64_t *>(odd), 0, 0), -EINVAL);
	alignas(8) std::uint64_t flag = 1;
	EXPECT_EQ(cxltier_acquire_range(&flag, 1, -1, nullptr, 8), -EINVAL);
}
