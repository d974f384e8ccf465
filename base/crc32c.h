// SPDX-License-Identifier: Apache-2.0
// CRC-32C (Castagnoli) for frame checksums: hardware instruction where the CPU
// has SSE4.2, a table otherwise. Not a security measure: it catches torn
// writes and bit rot, the damage a trace file actually meets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fsr {
uint32_t crc32c(const void* data, size_t len, uint32_t crc = 0);
}
