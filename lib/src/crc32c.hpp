// SPDX-License-Identifier: GPL-2.0
// CRC32C (Castagnoli, the iSCSI and ext4 checksum): the SSE4.2 crc32 instruction
// when the CPU has it (checked once, with cpuid), a table otherwise.  Both give
// the same value; the checkpoint format (Documentation/persistence.rst) uses it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cxltier::internal {

// The CRC32C of @len bytes at @p, continuing from @crc (0 to start): the usual
// pre- and post-inversion are inside, so crc32c(crc32c(0, a), b) == crc32c(0, ab).
std::uint32_t crc32c(std::uint32_t crc, const void *p, std::size_t len) noexcept;

// The two implementations, for the tests that compare them.
std::uint32_t crc32c_table(std::uint32_t crc, const void *p, std::size_t len) noexcept;
// Only when crc32c_have_sse42(); otherwise an illegal instruction.
std::uint32_t crc32c_sse42(std::uint32_t crc, const void *p, std::size_t len) noexcept;
bool crc32c_have_sse42() noexcept;

} // namespace cxltier::internal
