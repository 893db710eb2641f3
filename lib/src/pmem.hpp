// SPDX-License-Identifier: GPL-2.0
// The CPU's cache line instructions, the one place the library issues them:
// writing lines back (CLWB when cpuid has it, else CLFLUSHOPT, else CLFLUSH) and
// SFENCE make stores to persistent memory durable (checkpoints) and visible to
// other hosts of a shared CXL device (shared_mem.cpp); evicting lines (CLFLUSHOPT,
// else CLFLUSH) and MFENCE make the next loads read memory.  The checkpoint core
// reaches the hardware only through persist_ops, so host tests replace it with a
// model of what a crash keeps (tests/lib/ckpt_core_test.cpp).
#pragma once

#include <cstddef>

namespace cxltier::internal {

// How cache lines are written back or evicted; the first the CPU has, in this order.
enum class flush_insn { clwb, clflushopt, clflush, none };

// "clwb", "clflushopt", "clflush", "none" (not x86: a full memory barrier only).
const char *flush_insn_name(flush_insn f) noexcept;
// What write_back_lines() uses: CLWB, CLFLUSHOPT or CLFLUSH.
flush_insn cpu_flush_insn() noexcept;
// What evict_lines() uses: CLFLUSHOPT or CLFLUSH (CLWB may keep the line).
flush_insn cpu_evict_insn() noexcept;

// Starts the write-back of every cache line of [p, p + n); store_fence() waits for it.
void write_back_lines(const void *p, std::size_t n) noexcept;
// Writes back (if dirty) and drops every cache line of [p, p + n) from this CPU's
// caches; full_fence() waits for it.
void evict_lines(const void *p, std::size_t n) noexcept;
// SFENCE: write-backs started before are complete, stores after are ordered after them.
void store_fence() noexcept;
// MFENCE: as store_fence(), and loads are ordered too: none after it is served from
// before it (so a load after an eviction reads memory).
void full_fence() noexcept;

class persist_ops {
public:
	virtual ~persist_ops() = default;
	// Starts the write-back of every cache line of [p, p + n).
	virtual void flush(const void *p, std::size_t n) = 0;
	// Returns once every write-back started before is durable (SFENCE); stores
	// after it are ordered after them.
	virtual void fence() = 0;
};

// The CPU's: write_back_lines() and store_fence().
persist_ops &cpu_persist() noexcept;

} // namespace cxltier::internal
