// SPDX-License-Identifier: Apache-2.0
#include "traces/timing_quant.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace fsr {
namespace {

uint64_t round_trip(uint64_t v) { return dequantise(quantise(v)); }

TEST(TimingQuant, ValuesBelow64AreExact) {
  for (uint64_t v = 0; v < 64; ++v) {
    EXPECT_EQ(round_trip(v), v);
    EXPECT_LT(quantise(v).exp, 2u);
  }
  EXPECT_NE(round_trip(65), 65u) << "65 needs 7 significant bits";
}

// |q - v| <= v / 64 and <= 256 ns: half a step of v's magnitude.
void expect_bounded(uint64_t v) {
  const TimingCode c = quantise(v);
  ASSERT_TRUE(timing_code_valid(c)) << v;
  const uint64_t q = dequantise(c);
  const uint64_t err = q > v ? q - v : v - q;
  ASSERT_LE(err, v / 64) << v << " -> " << q;
  if (v <= UINT64_MAX - 256) {  // above, rounding up would not fit: down, by up to 511
    ASSERT_LE(err, timing_half_step(v)) << v << " -> " << q;
    ASSERT_LE(err, 256u) << v << " -> " << q;
  }
}

TEST(TimingQuant, ErrorIsAtMostOneIn64AndAtMost256ns) {
  for (uint64_t v = 0; v < (1u << 20); ++v) expect_bounded(v);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1'000'000; ++i) expect_bounded(rng() >> (rng() % 64));
  for (int shift = 6; shift < 64; ++shift)
    for (uint64_t v : {uint64_t{1} << shift, (uint64_t{1} << shift) - 1, (uint64_t{1} << shift) + 1,
                       (uint64_t{3} << (shift - 1)) - 1})
      expect_bounded(v);
  for (uint64_t v = UINT64_MAX - 1000; v != 0; ++v) expect_bounded(v);
  EXPECT_EQ(round_trip(std::numeric_limits<uint64_t>::max()), UINT64_MAX - 511) << "rounds down: 2^64 does not fit";
  EXPECT_EQ(timing_half_step(1u << 12), 64u);
  EXPECT_EQ(timing_half_step((1u << 14) - 1), 128u);
  EXPECT_EQ(timing_half_step(1u << 14), 256u);
  EXPECT_EQ(timing_half_step(UINT64_MAX), 256u);
}

// The codes a reader accepts are exactly those quantise() can produce, each
// value is its own quantisation, and codes order like their values.
TEST(TimingQuant, EveryCodeIsItsOwnQuantisationAndCodesAreMonotonic) {
  uint64_t prev = 0;
  auto check = [&](TimingCode c) {
    ASSERT_TRUE(timing_code_valid(c));
    const uint64_t v = dequantise(c);
    const TimingCode back = quantise(v);
    EXPECT_EQ(back.exp, c.exp);
    EXPECT_EQ(back.mant, c.mant);
    if (c.exp || c.mant) {
      EXPECT_GT(v, prev) << c.exp << "/" << c.mant;
    }
    prev = v;
  };
  for (uint32_t e = 0; e < kTimingTopExp; ++e)
    for (uint64_t m = 0; m < kTimingMantLimit; ++m) check({e, m});
  for (uint64_t m = 0; m < 100000; ++m) check({kTimingTopExp, m});
  prev = 0;
  check({kTimingTopExp, kTimingTopMantMax});
  EXPECT_EQ(dequantise({kTimingTopExp, kTimingTopMantMax}), UINT64_MAX - 511);
  EXPECT_FALSE(timing_code_valid({kTimingTopExp, kTimingTopMantMax + 1})) << "would overflow";
  EXPECT_FALSE(timing_code_valid({kTimingTopExp + 1, 0}));
  EXPECT_FALSE(timing_code_valid({kTimingTopExp - 1, kTimingMantLimit}));
}

TEST(TimingQuant, RoundsToNearest) {
  // [512, 1024) has a step of 16: 992, 1008, then 1024.
  EXPECT_EQ(round_trip(1008), 1008u);
  EXPECT_EQ(round_trip(999), 992u);
  EXPECT_EQ(round_trip(1001), 1008u);
  EXPECT_EQ(round_trip(1015), 1008u);
  EXPECT_EQ(round_trip(1016), 1024u);  // half way: up
  EXPECT_EQ(round_trip(127), 128u);    // rounds into the next octave
  // From 16,384 ns on, the step stays 512 ns.
  EXPECT_EQ(round_trip(16'383), 16'384u);
  EXPECT_EQ(round_trip(1'000'000), 999'936u);
  EXPECT_EQ(round_trip(1'000'000'255), 1'000'000'000u);
  EXPECT_EQ(round_trip(1'000'000'256), 1'000'000'512u);
}

}  // namespace
}  // namespace fsr
