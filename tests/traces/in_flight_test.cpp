// SPDX-License-Identifier: Apache-2.0
#include "traces/in_flight.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fsr {
namespace {

using Iv = std::pair<uint64_t, uint64_t>;

// Calls of a few workers, each issuing back to back with gaps: sorted by start.
std::vector<Iv> calls(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint64_t> now(4, 0);
  std::vector<Iv> iv;
  for (size_t i = 0; i < n; ++i) {
    uint64_t& t = now[rng() % now.size()];
    t += rng() % 50;
    const uint64_t d = 1 + rng() % 200;
    iv.push_back({t, t + d});
    t += d;
  }
  std::sort(iv.begin(), iv.end());
  return iv;
}

TEST(InFlightMeter, DisorderWithinTheWindowGivesTheExactMean) {
  std::vector<Iv> iv = calls(20000, 7);
  std::vector<Iv> exact = iv;
  const double want = mean_in_flight(exact);
  ASSERT_GT(want, 1.0);
  // Shuffled in blocks of 64: no interval is more than 64 places from its rank.
  std::mt19937 rng(11);
  for (size_t b = 0; b < iv.size(); b += 64)
    std::shuffle(iv.begin() + b, iv.begin() + std::min(iv.size(), b + 64), rng);
  InFlightMeter m(128);
  for (const auto& [s, e] : iv) m.add(s, e);
  EXPECT_FALSE(m.empty());
  EXPECT_DOUBLE_EQ(m.finish(), want);
}

TEST(InFlightMeter, ShuffledIntervalsSharingStartsGiveTheExactMean) {
  // Starts spread over ~40 bits (several radix passes) with many equal ones,
  // in no order at all: each flush sorts far beyond the insertion budget.
  std::mt19937_64 rng(3);
  std::vector<Iv> iv;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t s = (rng() % 4000) * 250'000'000ull;
    iv.push_back({s, s + 1 + rng() % 400'000'000ull});
  }
  std::vector<Iv> exact = iv;
  const double want = mean_in_flight(exact);
  ASSERT_GT(want, 1.0);
  InFlightMeter m(iv.size());  // the whole set within the window: the exact mean
  for (const auto& [s, e] : iv) m.add(s, e);
  EXPECT_DOUBLE_EQ(m.finish(), want);
  // Flushed in pieces: shuffled in blocks of 1,024, within the window of 4,096.
  std::vector<Iv> blocks = exact;  // (sorted by mean_in_flight)
  for (size_t b = 0; b < blocks.size(); b += 1024)
    std::shuffle(blocks.begin() + b, blocks.begin() + std::min(blocks.size(), b + 1024), rng);
  InFlightMeter windowed(4096);
  for (const auto& [s, e] : blocks) windowed.add(s, e);
  EXPECT_DOUBLE_EQ(windowed.finish(), want);
}

TEST(InFlightMeter, DisorderBeyondTheWindowCountsAsOverlap) {
  // The late interval [0, 10) arrives after 3 windows of others have been swept.
  InFlightMeter m(2);
  for (uint64_t t = 100; t < 200; t += 20) m.add(t, t + 10);
  m.add(0, 10);
  std::vector<Iv> exact = {{0, 10}, {100, 110}, {120, 130}, {140, 150}, {160, 170}, {180, 190}};
  const double truth = mean_in_flight(exact);
  EXPECT_DOUBLE_EQ(truth, 1.0);
  EXPECT_GT(m.finish(), truth);
}

TEST(InFlightMeter, NothingWithALengthIsEmpty) {
  InFlightMeter m;
  m.add(5, 5);
  EXPECT_EQ(m.finish(), 0.0);
  EXPECT_TRUE(m.empty());
}

}  // namespace
}  // namespace fsr
