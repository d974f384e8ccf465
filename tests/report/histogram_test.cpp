// SPDX-License-Identifier: Apache-2.0
#include "report/histogram.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace fsr {
namespace {

TEST(LogHistogram, SmallValuesAreExact) {
  LogHistogram h;
  for (uint64_t v = 0; v < LogHistogram::kExact; ++v) h.record(v);
  EXPECT_EQ(h.count(), LogHistogram::kExact);
  EXPECT_EQ(h.quantile(0.0), 0u);
  EXPECT_EQ(h.quantile(0.5), 63u);
  EXPECT_EQ(h.quantile(1.0), 127u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 127u);
}

TEST(LogHistogram, BucketsTileTheRangeWithoutGaps) {
  for (size_t i = 0; i + 1 < 3776; ++i) {
    ASSERT_EQ(LogHistogram::bucket_high(i) + 1, LogHistogram::bucket_low(i + 1)) << i;
    ASSERT_EQ(LogHistogram::bucket_index(LogHistogram::bucket_low(i)), i);
    ASSERT_EQ(LogHistogram::bucket_index(LogHistogram::bucket_high(i)), i);
  }
  EXPECT_EQ(LogHistogram::bucket_index(UINT64_MAX), 3775u);
}

TEST(LogHistogram, QuantilesWithinOnePercentOfExact) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(10.0, 2.0);  // ~20 us median, wide tail
  std::vector<uint64_t> values;
  LogHistogram h;
  for (int i = 0; i < 20000; ++i) {
    uint64_t v = static_cast<uint64_t>(dist(rng)) + 1;
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.99, 0.999}) {
    size_t rank = static_cast<size_t>(std::ceil(q * values.size()));
    double exact = double(values[rank - 1]);
    double got = double(h.quantile(q));
    EXPECT_LE(std::abs(got - exact) / exact, 0.01) << "q=" << q;
  }
  uint64_t sum = 0;
  for (uint64_t v : values) sum += v;
  EXPECT_EQ(h.sum(), sum);
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.quantile(1.0), values.back());
}

TEST(LogHistogram, MergeEqualsRecordingEverything) {
  LogHistogram a, b, all;
  for (uint64_t v = 1; v < 100000; v += 37) {
    (v % 3 ? a : b).record(v * 11);
    all.record(v * 11);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sum(), all.sum());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double q : {0.0, 0.25, 0.5, 0.75, 0.99, 1.0}) EXPECT_EQ(a.quantile(q), all.quantile(q));
  ASSERT_EQ(a.buckets().size(), all.buckets().size());
}

// The JSON and text reports print it; a duration near 2^64 (a crafted trace)
// made their `uint64_t(mean() + 0.5)` undefined (found by replay_fuzz).
TEST(LogHistogram, RoundedMeanIsExactUpToTheLargestValue) {
  LogHistogram h;
  h.record(UINT64_MAX);
  EXPECT_EQ(h.rounded_mean(), UINT64_MAX);
  LogHistogram half;
  half.record(1);
  half.record(2);
  EXPECT_EQ(half.rounded_mean(), 2u);  // 1.5 rounds up, as mean() + 0.5 did
  half.record(1);
  EXPECT_EQ(half.rounded_mean(), 1u);  // 4/3
  EXPECT_EQ(LogHistogram().rounded_mean(), 0u);
}

TEST(LogHistogram, EmptyReadsAsZero) {
  LogHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.quantile(0.5), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  LogHistogram other;
  other.record(5000);
  h.merge(other);
  EXPECT_EQ(h.min(), 5000u);
  EXPECT_EQ(h.quantile(0.5), 5000u);  // clamped to [min, max]
}

}  // namespace
}  // namespace fsr
