// SPDX-License-Identifier: Apache-2.0
#include "probe/server_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace fsr {
namespace {

constexpr double kNoise = 1.06;         // slots = floor(parallelism * kNoise)
constexpr double kStillScaling = 0.85;  // X_sat / X(1) against c_max: still scaling

std::string us_label(uint64_t ns) {
  return ns >= 10'000 ? fmt::format("{:.0f} us", double(ns) / 1e3) : fmt::format("{:.1f} us", double(ns) / 1e3);
}

template <typename T>
T lower_median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];  // the lower middle: an integer slot count stays one of the kinds'
}

}  // namespace

bool kind_fits_server(const ConcurrencyPoint& p) {
  switch (p.kind) {
    case ProbeKind::kStat:
    case ProbeKind::kOpenFile:
    case ProbeKind::kOpenCreate:
    case ProbeKind::kUnlink:
      return true;
    case ProbeKind::kRead:
      return p.param <= 65536;  // a small file: open, read, close
    case ProbeKind::kReadSeq:
      return p.direct && p.param <= 65536;  // random 4 KiB, O_DIRECT
    default:
      return false;
  }
}

std::optional<KindFit> fit_kind(std::span<const ConcurrencyPoint> points, uint64_t syscall_ns) {
  std::vector<ConcurrencyPoint> pts(points.begin(), points.end());
  std::erase_if(pts, [](const ConcurrencyPoint& p) { return p.ops == 0 || p.wall_ns == 0; });
  std::sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.streams < b.streams; });
  if (pts.size() < 2 || pts.front().streams != 1) return std::nullopt;
  KindFit f;
  f.kind = pts[0].kind;
  f.param = pts[0].param;
  f.direct = pts[0].direct;
  f.max_streams = pts.back().streams;
  const double x1 = pts[0].ops_per_s();
  double x_sat = 0;
  for (const ConcurrencyPoint& p : pts) x_sat = std::max(x_sat, p.ops_per_s());
  f.parallelism = x_sat / x1;
  const double l1_ns = 1e9 / x1;
  if (f.parallelism >= kStillScaling * double(f.max_streams)) {
    f.slots = kNoSlotLimit;
    f.service_ns = static_cast<uint64_t>(std::max(l1_ns - double(syscall_ns), l1_ns / 2));
    return f;
  }
  const double k = std::floor(f.parallelism * kNoise);
  f.slots = static_cast<uint32_t>(std::clamp(k, 1.0, double(f.max_streams)));
  f.service_ns = static_cast<uint64_t>(double(f.slots) * 1e9 / x_sat + 0.5);
  return f;
}

void fit_server(ServerModel& m, uint64_t syscall_ns, unsigned cpus) {
  m.slots = 0;
  m.service_ns = 0;
  std::map<std::tuple<ProbeKind, uint64_t, bool>, std::vector<ConcurrencyPoint>> by_kind;
  for (const ConcurrencyPoint& p : m.sweep)
    if (kind_fits_server(p)) by_kind[{p.kind, p.param, p.direct}].push_back(p);
  std::vector<KindFit> fits;
  for (const auto& [key, pts] : by_kind)
    if (auto f = fit_kind(pts, syscall_ns)) fits.push_back(*f);
  if (fits.empty()) {
    m.fit_note = "not fitted: no small-request kind measured at 1 stream and more";
    return;
  }
  std::vector<uint32_t> slots;
  std::vector<uint64_t> service;
  for (const KindFit& f : fits) {
    slots.push_back(f.slots);
    service.push_back(f.service_ns);
  }
  m.slots = lower_median(slots);
  m.service_ns = lower_median(service);
  const auto [lo, hi] = std::minmax_element(service.begin(), service.end());
  const bool agree = std::all_of(slots.begin(), slots.end(), [&](uint32_t s) { return s == m.slots; });
  std::string kinds;
  for (const KindFit& f : fits) {
    kinds += (kinds.empty() ? "" : ", ") + sweep_kind_label(f.kind, f.param, f.direct);
    if (!agree) kinds += f.slots == kNoSlotLimit ? " no limit" : fmt::format(" {}", f.slots);
  }
  uint32_t max_streams = 0;
  for (const KindFit& f : fits) max_streams = std::max(max_streams, f.max_streams);
  std::string head = m.slots == kNoSlotLimit ? fmt::format("scales to {} streams: no limit seen", max_streams)
                                             : fmt::format("{} slot{}", m.slots, m.slots == 1 ? "" : "s");
  head += agree ? fmt::format(" ({} agree)", kinds) : fmt::format(" (median of {}: {})", fits.size(), kinds);
  m.fit_note = fmt::format("{}; service {} (median of the kinds, {}-{})", head, us_label(m.service_ns), us_label(*lo),
                           us_label(*hi));
  if (m.slots != kNoSlotLimit && m.slots >= 2 && m.slots <= cpus)
    m.fit_note += fmt::format("; this machine has {} CPUs: the limit may be theirs", cpus);
}

}  // namespace fsr
