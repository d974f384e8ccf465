// SPDX-License-Identifier: Apache-2.0
#include "probe/probe_profile.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace fsr {

uint64_t estimate_cache_lifetime(const Profile& p, uint32_t ref_depth) {
  const ProfileCase* warm = p.find(ProbeKind::kStat, Temp::kWarm, ref_depth);
  const ProfileCase* cold = p.find(ProbeKind::kStat, Temp::kCold, ref_depth);
  if (!warm) return kNoExpiry;
  const double w = double(warm->median());
  // Expired: half way from warm to cold, or without a cold case, half again a
  // warm one and 5 us more. A cold lookup barely slower than a warm one (a
  // local disk: a few us) means nothing is cached that a prediction could see.
  const double c = cold ? double(cold->median()) : 0;
  if (cold && c - w < std::max(0.3 * w, 5000.0)) return kNoExpiry;
  const double slow = cold ? (w + c) / 2 : w * 1.5 + 5000;
  std::vector<const ProfileCase*> stale;
  for (const ProfileCase& c : p.cases)
    if (c.kind == ProbeKind::kStat && c.temp == Temp::kStale) stale.push_back(&c);
  std::sort(stale.begin(), stale.end(), [](auto* a, auto* b) { return a->param < b->param; });
  uint64_t last_warm_ms = 0;
  for (const ProfileCase* c : stale) {
    if (double(c->median()) > slow) return (last_warm_ms + c->param) * 1'000'000ull / 2;
    last_warm_ms = c->param;
  }
  return kNoExpiry;
}

void finish_profile(ProbeSamples& s, uint32_t ref_depth, Profile& p) {
  p.ref_depth = ref_depth;
  for (auto& [key, v] : s.by_case) {
    const auto& [k, t, param] = key;
    if (!v.empty()) p.cases.push_back(make_case(k, t, param, v));
  }
  s.by_case.clear();
  p.cache_lifetime_ns = estimate_cache_lifetime(p, ref_depth);
  if (p.cache_lifetime_ns != kNoExpiry && !p.find(ProbeKind::kStat, Temp::kCold, ref_depth)) {
    for (const ProfileCase& c : p.cases)
      if (c.kind == ProbeKind::kStat && c.temp == Temp::kStale && c.param * 1'000'000ull > p.cache_lifetime_ns) {
        ProfileCase cold = c;
        cold.temp = Temp::kCold;
        cold.param = ref_depth;
        p.cases.push_back(std::move(cold));
        p.notes.push_back(
            fmt::format("cold stat taken from the stat {} ms after a touch (caches not dropped)", c.param));
        break;
      }
  }
  for (const auto& [k, f] : s.failures) {
    bool measured = false;
    for (const ProfileCase& c : p.cases) measured = measured || c.kind == k;
    p.notes.push_back(fmt::format("{}: {} timed calls returned {} ({}){}", probe_kind_name(k), f.count, f.last_error,
                                  f.last_error < 0 ? std::strerror(static_cast<int>(-f.last_error)) : "unexpected",
                                  measured ? "; left out of the samples" : "; not measured on this mount"));
  }
}

}  // namespace fsr
