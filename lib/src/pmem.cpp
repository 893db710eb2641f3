// SPDX-License-Identifier: GPL-2.0
// Cache line write-back and eviction.  CLWB keeps the line in the cache (reads
// after a commit stay fast); CLFLUSHOPT evicts it but is weakly ordered, so many
// can be in flight; CLFLUSH (every x86-64 CPU has it) is ordered with every other
// CLFLUSH and so the slowest.  Both of the first two need an SFENCE to be known
// complete; CLFLUSH does not, but the fence costs nothing next to it.  Eviction
// cannot use CLWB: the CPU may keep the (now clean) line and serve later loads
// from it, which is what a reader of another host's stores must avoid.
#include "pmem.hpp"

#include <atomic>
#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cxltier::internal {

namespace {

constexpr std::uintptr_t line = 64;

struct cpu_insns {
	flush_insn write_back = flush_insn::none;
	flush_insn evict = flush_insn::none;
};

cpu_insns detect() noexcept
{
	cpu_insns r;
#if defined(__x86_64__)
	unsigned int a, b, c, d;
	bool clwb = false, clflushopt = false;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		clwb = b & (1u << 24);	     // CPUID.(EAX=7,ECX=0):EBX.CLWB[bit 24]
		clflushopt = b & (1u << 23); // CLFLUSHOPT[bit 23]
	}
	bool clflush = __get_cpuid(1, &a, &b, &c, &d) && (d & (1u << 19)); // CPUID.1:EDX.CLFSH
	if (clflushopt)
		r.evict = flush_insn::clflushopt;
	else if (clflush)
		r.evict = flush_insn::clflush;
	r.write_back = clwb ? flush_insn::clwb : r.evict;
#endif
	return r;
}

// A function-local static: a constructor of another object file of a static
// link may call in before this file's globals are initialised, and a
// zero-initialised cpu_insns would say CLWB.
const cpu_insns &insns() noexcept
{
	static const cpu_insns found = detect();
	return found;
}

void for_each_line(const void *p, std::size_t n, flush_insn insn) noexcept
{
	if (!n)
		return;
	auto a = reinterpret_cast<std::uintptr_t>(p) & ~(line - 1);
	auto end = reinterpret_cast<std::uintptr_t>(p) + n;
#if defined(__x86_64__)
	switch (insn) {
	case flush_insn::clwb:
		for (; a < end; a += line)
			asm volatile("clwb %0" : "+m"(*reinterpret_cast<volatile char *>(a)));
		return;
	case flush_insn::clflushopt:
		for (; a < end; a += line)
			asm volatile("clflushopt %0" : "+m"(*reinterpret_cast<volatile char *>(a)));
		return;
	case flush_insn::clflush:
		for (; a < end; a += line)
			asm volatile("clflush %0" : "+m"(*reinterpret_cast<volatile char *>(a)));
		return;
	case flush_insn::none:
		break;
	}
#endif
	(void)insn;
	(void)a;
	(void)end;
}

class cpu_ops final : public persist_ops {
public:
	void flush(const void *p, std::size_t n) override { write_back_lines(p, n); }
	void fence() override { store_fence(); }
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
	return insns().write_back;
}

flush_insn cpu_evict_insn() noexcept
{
	return insns().evict;
}

void write_back_lines(const void *p, std::size_t n) noexcept
{
	for_each_line(p, n, insns().write_back);
}

void evict_lines(const void *p, std::size_t n) noexcept
{
	for_each_line(p, n, insns().evict);
}

void store_fence() noexcept
{
#if defined(__x86_64__)
	asm volatile("sfence" ::: "memory");
#else
	std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

void full_fence() noexcept
{
#if defined(__x86_64__)
	asm volatile("mfence" ::: "memory");
#else
	std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

persist_ops &cpu_persist() noexcept
{
	return the_cpu_ops;
}

} // namespace cxltier::internal
