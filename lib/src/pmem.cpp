// SPDX-License-Identifier: GPL-2.0
// Cache line write-back for persistent memory.  CLWB keeps the line in the cache
// (reads after a commit stay fast); CLFLUSHOPT evicts it but is weakly ordered, so
// many can be in flight; CLFLUSH (every x86-64 CPU has it) is ordered with every
// other CLFLUSH and so the slowest.  Both of the first two need an SFENCE to be
// known complete; CLFLUSH does not, but the fence costs nothing next to it.
#include "pmem.hpp"

#include <atomic>
#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cxltier::internal {

namespace {

constexpr std::uintptr_t line = 64;

flush_insn detect() noexcept
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 24)) // CPUID.(EAX=7,ECX=0):EBX.CLWB[bit 24]
			return flush_insn::clwb;
		if (b & (1u << 23)) // CLFLUSHOPT[bit 23]
			return flush_insn::clflushopt;
	}
	if (__get_cpuid(1, &a, &b, &c, &d) && (d & (1u << 19))) // CPUID.1:EDX.CLFSH
		return flush_insn::clflush;
#endif
	return flush_insn::none;
}

const flush_insn cpu_insn = detect();

class cpu_ops final : public persist_ops {
public:
	void flush(const void *p, std::size_t n) override
	{
		if (!n)
			return;
		auto a = reinterpret_cast<std::uintptr_t>(p) & ~(line - 1);
		auto end = reinterpret_cast<std::uintptr_t>(p) + n;
#if defined(__x86_64__)
		switch (cpu_insn) {
		case flush_insn::clwb:
			for (; a < end; a += line)
				asm volatile("clwb %0" : "+m"(*reinterpret_cast<volatile char *>(a)));
			return;
		case flush_insn::clflushopt:
			for (; a < end; a += line)
				asm volatile("clflushopt %0"
					     : "+m"(*reinterpret_cast<volatile char *>(a)));
			return;
		case flush_insn::clflush:
			for (; a < end; a += line)
				asm volatile("clflush %0" : "+m"(*reinterpret_cast<volatile char *>(a)));
			return;
		case flush_insn::none:
			break;
		}
#endif
		(void)a;
		(void)end;
	}
	void fence() override
	{
#if defined(__x86_64__)
		asm volatile("sfence" ::: "memory");
#else
		std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
	}
};

cpu_ops the_cpu_ops;

} // namespace

const char *flush_insn_name(flush_insn f) noexcept
{
	switch (f) {
	case flush_insn::clwb:
		return "clwb";
	case flush_insn::clflushopt:
		return "clflushopt";
	case flush_insn::clflush:
		return "clflush";
	case flush_insn::none:
		break;
	}
	return "none";
}

flush_insn cpu_flush_insn() noexcept
{
	return cpu_insn;
}

persist_ops &cpu_persist() noexcept
{
	return the_cpu_ops;
}

} // namespace cxltier::internal
