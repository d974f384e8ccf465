// SPDX-License-Identifier: Apache-2.0
#include "report/run_spread.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace fsr {
namespace {

// splitmix64: a small, fixed generator, so every bootstrap is reproducible.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};
constexpr uint64_t kSeed = 0x66737265706c6179ull;  // "fsreplay"

double median_sorted(const std::vector<double>& v) {
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
// The median of a resample of `xs` (with replacement), into `buf`.
double resampled_median(const std::vector<double>& xs, std::vector<double>& buf, Rng& rng) {
  buf.resize(xs.size());
  for (double& b : buf) b = xs[rng.below(xs.size())];
  std::sort(buf.begin(), buf.end());
  return median_sorted(buf);
}
// The q quantile of sorted `v`, interpolated between neighbours.
double quantile_sorted(const std::vector<double>& v, double q) {
  const double at = q * double(v.size() - 1);
  const size_t i = static_cast<size_t>(at);
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (at - double(i)) * (v[i + 1] - v[i]);
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return median_sorted(v);
}

Spread spread_of(const std::vector<double>& xs) {
  Spread s;
  s.n = xs.size();
  if (xs.empty()) return s;
  std::vector<double> v = xs;
  std::sort(v.begin(), v.end());
  s.median = median_sorted(v);
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / double(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / double(v.size() - 1));
  }
  s.lo = s.hi = s.median;
  if (!s.has_interval()) return s;
  Rng rng{kSeed};
  std::vector<double> meds(kBootstrapResamples), buf;
  for (double& m : meds) m = resampled_median(xs, buf, rng);
  std::sort(meds.begin(), meds.end());
  s.lo = quantile_sorted(meds, (1 - kConfidence) / 2);
  s.hi = quantile_sorted(meds, 1 - (1 - kConfidence) / 2);
  return s;
}

RatioSpread ratio_of(const std::vector<double>& num, const std::vector<double>& den) {
  RatioSpread r;
  if (num.empty() || den.empty()) return r;
  const double d = median_of(den);
  r.ratio = d > 0 ? median_of(num) / d : 0;
  r.lo = r.hi = r.ratio;
  r.has_interval = num.size() >= kMinRunsForInterval && den.size() >= kMinRunsForInterval && d > 0;
  if (!r.has_interval) return r;
  Rng rng{kSeed};
  std::vector<double> ratios, buf;
  ratios.reserve(kBootstrapResamples);
  for (int i = 0; i < kBootstrapResamples; ++i) {
    const double n = resampled_median(num, buf, rng), m = resampled_median(den, buf, rng);
    if (m > 0) ratios.push_back(n / m);
  }
  if (ratios.empty()) {
    r.has_interval = false;
    return r;
  }
  std::sort(ratios.begin(), ratios.end());
  r.lo = quantile_sorted(ratios, (1 - kConfidence) / 2);
  r.hi = quantile_sorted(ratios, 1 - (1 - kConfidence) / 2);
  r.significant = r.lo > 1 || r.hi < 1;
  return r;
}

size_t median_index(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  std::vector<size_t> order(xs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
  return order[(order.size() - 1) / 2];
}

std::vector<std::string> spread_warnings(const std::vector<double>& xs, std::string_view what) {
  std::vector<std::string> w;
  if (xs.size() < 2) return w;
  const Spread s = spread_of(xs);
  if (s.median > 0 && (s.max - s.min) / s.median > kWideSpread)
    w.push_back(
        fmt::format("{}: the runs spread {:.0f}% of their median (min {:.4g}, max {:.4g}): more runs, or a "
                    "quieter machine, narrow the interval",
                    what, 100 * (s.max - s.min) / s.median, s.min, s.max));
  // The first run against the others: beyond 3 median absolute deviations
  // (floored at 2% of their median, as runs this close are all alike) and 5%.
  if (xs.size() >= 4) {
    const std::vector<double> rest(xs.begin() + 1, xs.end());
    const double m = median_of(rest);
    std::vector<double> dev;
    for (double x : rest) dev.push_back(std::fabs(x - m));
    const double mad = std::max(median_of(dev), 0.02 * m);
    if (m > 0 && std::fabs(xs[0] - m) > 3 * mad && std::fabs(xs[0] - m) > 0.05 * m)
      w.push_back(
          fmt::format("{}: the first run ({:.4g}) is {:+.0f}% from the others' median ({:.4g}): a cold "
                      "start; --warmup 1 leaves it out",
                      what, xs[0], 100 * (xs[0] / m - 1), m));
  }
  return w;
}

}  // namespace fsr
