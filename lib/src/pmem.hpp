// SPDX-License-Identifier: GPL-2.0
// Making stores to persistent memory durable: write the cache lines back (CLWB
// when cpuid has it, else CLFLUSHOPT, else CLFLUSH), then SFENCE.  The checkpoint
// core reaches the hardware only through persist_ops, so host tests replace it
// with a model of what a crash keeps (tests/lib/ckpt_core_test.cpp).
#pragma once

#include <cstddef>

namespace cxltier::internal {

// How cache lines are written back; the first the CPU has, in this order.
enum class flush_insn { clwb, clflushopt, clflush, none };

// "clwb", "clflushopt", "clflush", "none" (not x86: a full memory barrier only).
const char *flush_insn_name(flush_insn f) noexcept;
flush_insn cpu_flush_insn() noexcept;

class persist_ops {
public:
	virtual ~persist_ops() = default;
	// Starts the write-back of every cache line of [p, p + n).
	virtual void flush(const void *p, std::size_t n) = 0;
	// Returns once every write-back started before is durable (SFENCE); stores
	// after it are ordered after them.
	virtual void fence() = 0;
};

// The CPU's: cpu_flush_insn() and SFENCE.
persist_ops &cpu_persist() noexcept;

} // namespace cxltier::internal
