// SPDX-License-Identifier: Apache-2.0
// Figures over repeated runs (issue 42): a wall time or a class's total
// measured N times becomes a median with its 95% interval, and two mounts'
// runs a ratio with its interval and whether the difference stands out of
// the runs' spread. Intervals are percentile bootstraps of the median
// (kBootstrapResamples resamples from a fixed seed, so a figure is the same
// on every reading); fewer than kMinRunsForInterval runs get none.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fsr {

inline constexpr size_t kMinRunsForInterval = 3;
inline constexpr int kBootstrapResamples = 10000;
inline constexpr double kConfidence = 0.95;

struct Spread {
  size_t n = 0;
  double median = 0, mean = 0, sd = 0, min = 0, max = 0;  // sd: the sample's (n - 1)
  double lo = 0, hi = 0;                                  // the median's 95% interval; both the median without one
  bool has_interval() const { return n >= kMinRunsForInterval; }
};
Spread spread_of(const std::vector<double>& xs);
// The median alone (the mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> v);

// median(num) / median(den), and its interval from resampling both sides
// independently. significant: the interval excludes 1 (the difference is
// beyond what the runs' spread explains). No interval: never significant.
struct RatioSpread {
  double ratio = 0, lo = 0, hi = 0;
  bool has_interval = false;
  bool significant = false;
};
RatioSpread ratio_of(const std::vector<double>& num, const std::vector<double>& den);

// The index of the median run (the lower of the middle two when n is even).
size_t median_index(const std::vector<double>& xs);

// What a reader should know about the runs of `what` ("the wall time on
// /mnt/x"): a spread wider than kWideSpread of the median, and a first run
// far from the others (a cold cache the warm-up did not take).
inline constexpr double kWideSpread = 0.20;
std::vector<std::string> spread_warnings(const std::vector<double>& xs, std::string_view what);

}  // namespace fsr
