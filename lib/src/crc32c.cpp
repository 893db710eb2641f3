// SPDX-License-Identifier: GPL-2.0
// CRC32C, polynomial 0x1EDC6F41 (reflected 0x82F63B78): slicing-by-8 tables, and
// the SSE4.2 crc32 instruction 8 bytes at a time.
#include "crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cxltier::internal {

namespace {

using table8 = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr table8 make_tables()
{
	table8 t{};
	for (std::uint32_t i = 0; i < 256; i++) {
		std::uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		t[0][i] = c;
	}
	for (std::uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 8; s++)
			t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
	return t;
}

constexpr table8 tables = make_tables();

bool detect_sse42() noexcept
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return false;
	return c & bit_SSE4_2;
#else
	return false;
#endif
}

const bool have_sse42 = detect_sse42();

} // namespace

std::uint32_t crc32c_table(std::uint32_t crc, const void *p, std::size_t len) noexcept
{
	auto *b = static_cast<const unsigned char *>(p);
	crc = ~crc;
	while (len && reinterpret_cast<std::uintptr_t>(b) % 8) {
		crc = (crc >> 8) ^ tables[0][(crc ^ *b++) & 0xff];
		len--;
	}
	while (len >= 8) {
		std::uint64_t w;
		std::memcpy(&w, b, 8); // little-endian (x86)
		w ^= crc;
		crc = tables[7][w & 0xff] ^ tables[6][(w >> 8) & 0xff] ^
		      tables[5][(w >> 16) & 0xff] ^ tables[4][(w >> 24) & 0xff] ^
		      tables[3][(w >> 32) & 0xff] ^ tables[2][(w >> 40) & 0xff] ^
		      tables[1][(w >> 48) & 0xff] ^ tables[0][w >> 56];
		b += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ tables[0][(crc ^ *b++) & 0xff];
	return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::uint32_t crc, const void *p,
							     std::size_t len) noexcept
{
	auto *b = static_cast<const unsigned char *>(p);
	std::uint64_t c = ~crc;
	while (len && reinterpret_cast<std::uintptr_t>(b) % 8) {
		c = __builtin_ia32_crc32qi(static_cast<std::uint32_t>(c), *b++);
		len--;
	}
	while (len >= 8) {
		std::uint64_t w;
		std::memcpy(&w, b, 8);
		c = __builtin_ia32_crc32di(c, w);
		b += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi(static_cast<std::uint32_t>(c), *b++);
	return ~static_cast<std::uint32_t>(c);
}
#else
std::uint32_t crc32c_sse42(std::uint32_t crc, const void *p, std::size_t len) noexcept
{
	return crc32c_table(crc, p, len);
}
#endif

bool crc32c_have_sse42() noexcept
{
	return have_sse42;
}

std::uint32_t crc32c(std::uint32_t crc, const void *p, std::size_t len) noexcept
{
	return have_sse42 ? crc32c_sse42(crc, p, len) : crc32c_table(crc, p, len);
}

} // namespace cxltier::internal
