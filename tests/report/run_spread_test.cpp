// SPDX-License-Identifier: Apache-2.0
// Figures over repeated runs (run_spread.h): the interval arithmetic on
// fixed samples, significance where a difference is real and none where the
// runs' noise explains it, no interval from too few runs, and the warnings.
#include "report/run_spread.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fsr {
namespace {

TEST(RunSpread, SummaryFiguresOfFixedSamples) {
  const Spread s = spread_of({4, 1, 3, 2, 10});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.sd, std::sqrt(12.5));  // squares 0+9+1+4+36 = 50, over n-1 = 4
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  ASSERT_TRUE(s.has_interval());
  EXPECT_LE(s.lo, s.median);
  EXPECT_GE(s.hi, s.median);
  EXPECT_GE(s.lo, 1);
  EXPECT_LE(s.hi, 10);
}

// Three runs {1, 2, 3}: a resample's median is 1 with probability 7/27
// (two or three 1s), 3 likewise, 2 otherwise: the 2.5% and 97.5% points
// are exactly 1 and 3.
TEST(RunSpread, TheMediansIntervalOfThreeRunsIsTheirRange) {
  const Spread s = spread_of({2, 3, 1});
  EXPECT_DOUBLE_EQ(s.lo, 1);
  EXPECT_DOUBLE_EQ(s.hi, 3);
}

// Golden values: the bootstrap draws from a fixed seed, so the same runs
// give the same interval on every reading (a figure in a doc stays true).
TEST(RunSpread, TheIntervalIsReproducible) {
  const std::vector<double> runs{10.2, 9.8, 10.5, 10.1, 9.9, 10.0, 10.3};
  const Spread a = spread_of(runs), b = spread_of(runs);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_DOUBLE_EQ(a.median, 10.1);
  EXPECT_NEAR(a.lo, 9.9, 1e-9);
  EXPECT_NEAR(a.hi, 10.3, 1e-9);
}

TEST(RunSpread, FewerThanThreeRunsHaveNoInterval) {
  for (const std::vector<double>& runs : {std::vector<double>{5}, std::vector<double>{5, 7}}) {
    const Spread s = spread_of(runs);
    EXPECT_FALSE(s.has_interval());
    EXPECT_EQ(s.lo, s.median);
    EXPECT_EQ(s.hi, s.median);
  }
  const RatioSpread r = ratio_of({10}, {5});
  EXPECT_DOUBLE_EQ(r.ratio, 2);
  EXPECT_FALSE(r.has_interval);
  EXPECT_FALSE(r.significant) << "one run is no finding, whatever its ratio";
}

TEST(RunSpread, ATwofoldDifferenceIsSignificant) {
  const RatioSpread r = ratio_of({2.00, 2.10, 1.95, 2.04, 1.98}, {1.00, 1.04, 0.97, 1.02, 0.99});
  EXPECT_NEAR(r.ratio, 2.00 / 1.00, 1e-9);
  ASSERT_TRUE(r.has_interval);
  EXPECT_TRUE(r.significant);
  EXPECT_GT(r.lo, 1.8);
  EXPECT_LT(r.hi, 2.2);
}

// 1% apart, each side spread +-10%: the interval holds 1, no finding.
TEST(RunSpread, AOnePercentDifferenceOnNoisyRunsIsNotSignificant) {
  const std::vector<double> b{1.00, 1.10, 0.91, 1.05, 0.95};
  std::vector<double> a;
  for (double x : {0.96, 1.08, 0.93, 1.12, 1.01}) a.push_back(1.01 * x);
  const RatioSpread r = ratio_of(a, b);
  ASSERT_TRUE(r.has_interval);
  EXPECT_LT(r.lo, 1);
  EXPECT_GT(r.hi, 1);
  EXPECT_FALSE(r.significant);
}

TEST(RunSpread, MedianIndexIsTheMiddleRun) {
  EXPECT_EQ(median_index({3, 1, 2}), 2u);
  EXPECT_EQ(median_index({4, 1, 3, 2}), 3u);  // the lower of the middle two (2)
  EXPECT_EQ(median_index({7}), 0u);
}

TEST(RunSpread, WarnsOfAWideSpreadAndAColdFirstRun) {
  EXPECT_TRUE(spread_warnings({1.00, 1.02, 0.99, 1.01}, "wall").empty());
  auto wide = spread_warnings({1.0, 1.5, 0.9}, "wall");
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_NE(wide[0].find("spread 60%"), std::string::npos) << wide[0];
  auto cold = spread_warnings({1.30, 1.00, 1.01, 0.99, 1.00}, "wall");
  ASSERT_EQ(cold.size(), 2u);  // (its spread is wide too)
  EXPECT_NE(cold[1].find("first run"), std::string::npos) << cold[1];
  EXPECT_NE(cold[1].find("+30%"), std::string::npos) << cold[1];
}

}  // namespace
}  // namespace fsr
