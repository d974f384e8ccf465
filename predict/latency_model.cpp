// SPDX-License-Identifier: Apache-2.0
#include "predict/latency_model.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace fsr {

LatencyModel::LatencyModel(const Profile& p)
    : ref_depth_(p.ref_depth),
      anchor_depth_(p.target_depth_on_mount()),
      held_entries_free_(p.mount_kind().starts_with("9p")),
      lifetime_(p.cache_lifetime_ns),
      syscall_(p.syscall_overhead_ns),
      server_(p.server) {
  for (const ProfileCase& c : p.cases) {
    if (c.temp == Temp::kStale || c.bins.size() != kProfileBins) continue;
    auto& v = table_[static_cast<size_t>(c.kind) * 2 + (c.temp == Temp::kCold)];
    v.push_back({c.param, static_cast<uint32_t>(bins_.size())});
    bins_.insert(bins_.end(), c.bins.begin(), c.bins.end());
  }
  for (auto& v : table_)
    std::sort(v.begin(), v.end(), [](const Point& a, const Point& b) { return a.param < b.param; });
  walk_[0] = fit_walk(Temp::kWarm);
  walk_[1] = has(ProbeKind::kStat, Temp::kCold) ? fit_walk(Temp::kCold) : walk_[0];
}

// Least-squares slope of the stat cases' mean latency against depth, never
// negative: what one more path component costs.
double LatencyModel::fit_walk(Temp t) const {
  const auto& v = points(ProbeKind::kStat, t);
  if (v.size() < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Point& p : v) {
    double mean = 0;
    for (size_t b = 0; b < kProfileBins; ++b) mean += double(bins_[p.offset + b]);
    mean /= double(kProfileBins);
    const double x = double(p.param);
    sx += x, sy += mean, sxx += x * x, sxy += x * mean;
  }
  const double n = double(v.size());
  const double den = n * sxx - sx * sx;
  if (den <= 0) return 0;
  return std::max(0.0, (n * sxy - sx * sy) / den);
}

// A price in ns from the model's arithmetic: a hostile profile's points
// extrapolate past what uint64 holds (the replay fuzzer's find: 1.9e19):
// saturated at 1e18 ns (31 years), a bound no call's price reaches.
static uint64_t ns_of(double y) {
  if (!(y > 0)) return 0;
  return y >= 1e18 ? uint64_t{1'000'000'000'000'000'000} : static_cast<uint64_t>(y);
}

uint64_t LatencyModel::sample(ProbeKind k, Temp t, uint64_t param, uint32_t bin) const {
  const auto& all = points(k, t);
  // A call that moves data is never priced from the one that found the end
  // (0 bytes: the size was known, no request went out): interpolating a
  // 3-byte read between 0 and 128 bytes priced it as the EOF check.
  const size_t lo = is_bytes_kind(k) && param > 0 && all.size() > 1 && all.front().param == 0 ? 1 : 0;
  const std::span<const Point> v(all.begin() + lo, all.end());
  auto at = [&](size_t i) { return double(bins_[v[i].offset + bin]); };
  if (v.size() == 1) return ns_of(at(0));
  if (param <= v.front().param) {
    if (!is_depth_kind(k) || param == v.front().param) return ns_of(at(0));
    // A shallower path than the probe could reach: fewer components to walk.
    const double d = at(0) - walk_[t == Temp::kCold] * double(v.front().param - param);
    return ns_of(std::max(d, at(0) * 0.25));
  }
  size_t hi = 1;
  while (hi + 1 < v.size() && v[hi].param < param) ++hi;
  const double x0 = double(v[hi - 1].param), x1 = double(v[hi].param), y0 = at(hi - 1), y1 = at(hi);
  const double x = double(param);
  if (x > x1 && k == ProbeKind::kStatWritten) return ns_of(y1);  // idle longer than probed: as the longest
  double y = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  if (x > x1) y = std::max(y, y1);  // beyond the largest: the last slope, never below it
  return ns_of(std::max(y, 0.0));
}

int64_t LatencyModel::walk_adjust(Temp t, uint32_t depth) const {
  return static_cast<int64_t>(std::llround(walk_[t == Temp::kCold] * (double(depth) - double(ref_depth_))));
}

}  // namespace fsr
