// SPDX-License-Identifier: Apache-2.0
// Quantisation of the timing columns (schema.capnp "Chunk", kEcTsExp..
// kEcDurMant): a gap or duration keeps kTimingBits significant bits, but its
// step is never coarser than 2^kTimingMaxShift ns. Stored as an exponent and
// a mantissa, in two columns: zstd compresses the two small fields far better
// than the full value.
//
// Why both limits: the low bits of a ns timing are noise (the tracepoint
// itself runs before the enter time is taken), so relative precision is
// enough for short values; but the replayer compares enter and exit times
// across threads to find who woke whom, and those differences are
// microseconds whatever the length of the calls, so long values need
// absolute precision. Relative bits alone changed the replay plan's
// dependencies for many ops of a real trace; the absolute cap keeps the plan
// close to the one built from ns timings for a fraction of a byte per event
// (the commit that set the cap holds the measurements).
// Pure functions, inline: the writer and reader call them once per value.
#pragma once

#include <cstdint>

namespace fsr {

inline constexpr int kTimingBits = 6;                        // significant bits kept
inline constexpr int kTimingMantBits = kTimingBits - 1;      // stored (the leading 1 is implied)
inline constexpr uint64_t kTimingExact = 1u << kTimingBits;  // values below are stored exactly
inline constexpr uint32_t kTimingMantLimit = 1u << kTimingMantBits;
inline constexpr int kTimingMaxShift = 9;  // steps of at most 512 ns
// The last exponent: its mantissa is not limited to kTimingMantBits.
inline constexpr uint32_t kTimingTopExp = kTimingMaxShift + 1;
// Largest mantissa of the top exponent whose value fits 64 bits.
inline constexpr uint64_t kTimingTopMantMax = (UINT64_MAX >> kTimingMaxShift) - kTimingMantLimit;

// A value as (exp, mant):
//   exp < 2:            value = exp * 32 + mant                (0 .. 63, exact)
//   2 <= exp < TopExp:  value = (32 + mant) << (exp - 1),  mant < 32
//   exp == TopExp:      value = (32 + mant) << kTimingMaxShift, mant <= kTimingTopMantMax
// The code is monotonic: (exp, mant) in lexicographic order orders like the value.
struct TimingCode {
  uint32_t exp = 0;
  uint64_t mant = 0;
};

// True if `c` is a code dequantise() accepts (a reader checks untrusted codes).
inline bool timing_code_valid(TimingCode c) {
  if (c.exp < kTimingTopExp) return c.mant < kTimingMantLimit;
  return c.exp == kTimingTopExp && c.mant <= kTimingTopMantMax;
}

inline uint64_t dequantise(TimingCode c) {
  if (c.exp < 2) return (static_cast<uint64_t>(c.exp) << kTimingMantBits) | c.mant;
  return (kTimingMantLimit + c.mant) << (c.exp - 1);
}

// The code whose value is nearest to v (ties up; at the very top of the
// range, down, so that the value fits 64 bits): exact below kTimingExact,
// otherwise off by at most min(v / 64, 256) ns (timing_half_step).
inline TimingCode quantise(uint64_t v) {
  if (v < kTimingExact) return {static_cast<uint32_t>(v >> kTimingMantBits), v & (kTimingMantLimit - 1)};
  int shift = 63 - __builtin_clzll(v) - kTimingMantBits;  // >= 1
  if (shift < kTimingMaxShift) {
    uint64_t m = (v >> shift) + ((v >> (shift - 1)) & 1);  // round half up: [32, 64]
    if (m == 2 * kTimingMantLimit) {
      m = kTimingMantLimit;
      ++shift;
    }
    return {static_cast<uint32_t>(shift + 1), m - kTimingMantLimit};
  }
  uint64_t q = v >> kTimingMaxShift;
  if ((v >> (kTimingMaxShift - 1)) & 1 && q - kTimingMantLimit < kTimingTopMantMax) ++q;
  return {kTimingTopExp, q - kTimingMantLimit};
}

// The largest error quantise() makes for a value of v's magnitude: half its step.
inline uint64_t timing_half_step(uint64_t v) {
  if (v < kTimingExact) return 0;
  int shift = 63 - __builtin_clzll(v) - kTimingMantBits;
  if (shift > kTimingMaxShift) shift = kTimingMaxShift;
  return uint64_t{1} << (shift - 1);
}

}  // namespace fsr
