// SPDX-License-Identifier: GPL-2.0
// A seeded generator whose output is the same on every platform and library:
// the standard distributions are implementation-defined, so traces made with
// them would differ between libstdc++ and libc++.
#pragma once

#include <cstdint>

namespace cxltier::sim {

class rng {
public:
	explicit rng(uint64_t seed)
	{
		// splitmix64 spreads any seed, including 0, over the whole state.
		for (auto &w : s_) {
			seed += 0x9e3779b97f4a7c15ULL;
			uint64_t z = seed;
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
			w = z ^ (z >> 31);
		}
	}

	// xoshiro256**
	uint64_t next()
	{
		uint64_t r = rotl(s_[1] * 5, 7) * 9;
		uint64_t t = s_[1] << 17;

		s_[2] ^= s_[0];
		s_[3] ^= s_[1];
		s_[1] ^= s_[2];
		s_[0] ^= s_[3];
		s_[2] ^= t;
		s_[3] = rotl(s_[3], 45);
		return r;
	}

	// Uniform in [0, 1), 53 bits.
	double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

	// Uniform in [0, n), without modulo bias worth measuring (n < 2^32).
	uint32_t below(uint32_t n)
	{
		return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32);
	}

private:
	static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

	uint64_t s_[4];
};

} // namespace cxltier::sim
