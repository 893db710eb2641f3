// SPDX-License-Identifier: GPL-2.0
// Measuring a NUMA node's read bandwidth when firmware reports none: a buffer bound
// to the node with mbind(MPOL_BIND), filled once, then read sequentially; the best
// of three passes counts.  One thread on whatever CPU runs us, so the number is
// what one core gets, not the node's peak: good for ratios between nodes measured
// the same way, not for comparing with firmware's figures.
#include <numaif.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

constexpr std::uint64_t min_buffer = 4ull << 20;

class mapping {
public:
	explicit mapping(std::size_t size) : size_(size)
	{
		void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
		if (p == MAP_FAILED)
			throw fatal(fmt::format("cannot map {} for measuring: {}", human_size(size),
						std::strerror(errno)));
		addr_ = static_cast<std::uint64_t *>(p);
	}
	~mapping() { ::munmap(addr_, size_); }
	mapping(const mapping &) = delete;
	mapping &operator=(const mapping &) = delete;

	std::uint64_t *data() const noexcept { return addr_; }
	std::size_t size() const noexcept { return size_; }

private:
	std::uint64_t *addr_;
	std::size_t size_;
};

void bind_to_node(const mapping &m, int node)
{
	constexpr int bits = 8 * sizeof(unsigned long);
	std::vector<unsigned long> mask(static_cast<std::size_t>(node / bits) + 1);
	mask[static_cast<std::size_t>(node / bits)] = 1ul << (node % bits);
	// maxnode counts one past the last bit the kernel reads.
	unsigned long maxnode = mask.size() * bits + 1;
	if (::mbind(m.data(), m.size(), MPOL_BIND, mask.data(), maxnode, MPOL_MF_STRICT) != 0) {
		int e = errno;
		throw fatal(fmt::format("cannot bind memory to node {} for measuring: {}{}", node,
					std::strerror(e),
					e == EINVAL ? " (no memory online on it?)" : ""));
	}
}

// The node a page of the buffer actually landed on.
int node_of(const void *addr)
{
	int node = -1;
	if (::get_mempolicy(&node, nullptr, 0, const_cast<void *>(addr),
			    MPOL_F_NODE | MPOL_F_ADDR) != 0)
		return -1;
	return node;
}

// One sequential pass; four sums keep several loads in flight.
std::uint64_t read_pass(const std::uint64_t *p, std::size_t words)
{
	std::uint64_t a = 0, b = 0, c = 0, d = 0;
	for (std::size_t i = 0; i + 4 <= words; i += 4) {
		a += p[i];
		b += p[i + 1];
		c += p[i + 2];
		d += p[i + 3];
	}
	return a ^ b ^ c ^ d;
}

// MB/s of the best of three sequential reads of @size bytes bound to @node.
std::uint64_t measure(int node, std::uint64_t size)
{
	mapping m(size);
	bind_to_node(m, node);
	std::memset(m.data(), 0x5a, m.size()); // faults every page in, on @node
	for (std::size_t off : {std::size_t{0}, m.size() / 2, m.size() - 8})
		if (int got = node_of(reinterpret_cast<char *>(m.data()) + off); got != node)
			throw fatal(fmt::format("memory bound to node {} landed on node {}", node, got));

	using clock = std::chrono::steady_clock;
	double best = 0;
	volatile std::uint64_t sink = 0; // the reads must not be optimised away
	for (int pass = 0; pass < 3; pass++) {
		auto t0 = clock::now();
		sink = sink + read_pass(m.data(), m.size() / sizeof(std::uint64_t));
		std::chrono::duration<double> secs = clock::now() - t0;
		if (secs.count() > 0)
			best = std::max(best, static_cast<double>(m.size()) / secs.count());
	}
	return std::max<std::uint64_t>(static_cast<std::uint64_t>(best / 1e6), 1);
}

} // namespace

std::uint64_t measure_read_bandwidth(int node, std::uint64_t mem_free, std::uint64_t size,
				     std::FILE *progress)
{
	// Never take more than a quarter of what is free: MPOL_BIND cannot fall back
	// to another node, so running the node out of memory would bring the OOM killer.
	std::uint64_t buf = std::min(size, mem_free / 4 / min_buffer * min_buffer);
	if (buf < min_buffer)
		throw fatal(fmt::format("node {} has too little free memory ({}) to measure; "
					"give its bandwidth with --bandwidth {}=MBps",
					node, human_size(mem_free), node));
	fmt::print(progress, "measuring node {} ({}, best of 3)... ", node, human_size(buf));
	std::fflush(progress);
	try {
		std::uint64_t mbps = measure(node, buf);
		fmt::print(progress, "{} MB/s\n", mbps);
		std::fflush(progress);
		return mbps;
	} catch (...) {
		fmt::print(progress, "failed\n"); // the reason follows on stderr
		std::fflush(progress);
		throw;
	}
}

} // namespace cxltierctl
