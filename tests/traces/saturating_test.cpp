// SPDX-License-Identifier: Apache-2.0
// Nanosecond arithmetic that clamps (base/saturating.h): a hostile trace's
// 2^64-1 ns duration gives an extreme figure, never a wrapped one.
#include "base/saturating.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();

TEST(Saturating, SignedDeltaIsExactInRangeAndClampsBeyond) {
  EXPECT_EQ(signed_delta(10, 3), 7);
  EXPECT_EQ(signed_delta(3, 10), -7);
  EXPECT_EQ(signed_delta(uint64_t(kMax), 0), kMax);
  EXPECT_EQ(signed_delta(0, uint64_t(kMax) + 1), kMin);
  EXPECT_EQ(signed_delta(UINT64_MAX, 0), kMax);
  EXPECT_EQ(signed_delta(397563, UINT64_MAX - 1), kMin);  // the fuzzer's input: a sum near 2^64
}

TEST(Saturating, AddsClampAtBothEnds) {
  EXPECT_EQ(sat_add(int64_t{5}, int64_t{-7}), -2);
  EXPECT_EQ(sat_add(kMax, int64_t{1}), kMax);
  EXPECT_EQ(sat_add(kMin, int64_t{-1}), kMin);
  EXPECT_EQ(sat_add(uint64_t{UINT64_MAX - 1}, uint64_t{5}), UINT64_MAX);
  EXPECT_EQ(sat_add(uint64_t{2}, uint64_t{5}), 7u);
  EXPECT_EQ(sat_sub(uint64_t{2}, uint64_t{5}), 0u);
  EXPECT_EQ(sat_sub(uint64_t{5}, uint64_t{2}), 3u);
}

}  // namespace
}  // namespace fsr
