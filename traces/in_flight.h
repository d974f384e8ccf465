// Mean concurrency of a set of calls: their summed durations over the length
// of the union of their [start, end) intervals, i.e. how many were in flight
// on average while any was. The replay writes the original's into a result
// (options "overlap"), reports compare it with the replay's own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace fsr {

// Sorts `iv` by start. 0 when no interval has a length.
inline double mean_in_flight(std::vector<std::pair<uint64_t, uint64_t>>& iv) {
  std::sort(iv.begin(), iv.end());
  uint64_t sum = 0, covered = 0, lo = 0, hi = 0;
  bool open = false;
  for (const auto& [s, e] : iv) {
    if (e <= s) continue;
    sum += e - s;
    if (!open || s > hi) {
      if (open) covered += hi - lo;
      lo = s;
      hi = e;
      open = true;
    } else {
      hi = std::max(hi, e);
    }
  }
  if (open) covered += hi - lo;
  return covered ? double(sum) / double(covered) : 0.0;
}

}  // namespace fsr
