// SPDX-License-Identifier: Apache-2.0
// Arithmetic on nanosecond counts that saturates instead of overflowing:
// sums and differences near 2^63 ns come only from damaged or hostile
// traces (a duration of 2^64-1), and must give a clamped figure, not UB.
#pragma once

#include <cstdint>
#include <limits>

namespace fsr {

inline uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
inline uint64_t sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// a - b as a signed count, clamped to the int64 range.
inline int64_t signed_delta(uint64_t a, uint64_t b) {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (a >= b) return a - b > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(a - b);
  return b - a > kMax ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(b - a);
}

}  // namespace fsr
