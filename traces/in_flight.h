// Mean concurrency of a set of calls: their summed durations over the length
// of the union of their [start, end) intervals, i.e. how many were in flight
// on average while any was. The replay writes the original's into a result
// (options "overlap"), reports compare it with the replay's own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace fsr {

// The union sweep over intervals fed in order of start.
class InFlightSweep {
 public:
  void feed(uint64_t s, uint64_t e) {
    if (e <= s) return;
    sum_ += e - s;
    if (!open_ || s > hi_) {
      if (open_) covered_ += hi_ - lo_;
      lo_ = s;
      hi_ = e;
      open_ = true;
    } else {
      hi_ = std::max(hi_, e);
    }
  }
  // 0 when no interval had a length.
  double mean() const {
    const uint64_t covered = covered_ + (open_ ? hi_ - lo_ : 0);
    return covered ? double(sum_) / double(covered) : 0.0;
  }

 private:
  uint64_t sum_ = 0, covered_ = 0, lo_ = 0, hi_ = 0;
  bool open_ = false;
};

// Sorts `iv` by start. 0 when no interval has a length.
inline double mean_in_flight(std::vector<std::pair<uint64_t, uint64_t>>& iv) {
  std::sort(iv.begin(), iv.end());
  InFlightSweep sw;
  for (const auto& [s, e] : iv) sw.feed(s, e);
  return sw.mean();
}

// The same in bounded memory, for intervals that arrive nearly in order of
// start (a result file's ops, in event order): they are reordered inside a
// window of `window` intervals. One that starts before an interval already
// swept (disorder beyond the window) is counted as overlapping it.
class InFlightMeter {
 public:
  explicit InFlightMeter(size_t window = 65536) : window_(window) {}
  void add(uint64_t s, uint64_t e) {
    if (e <= s) return;
    pending_.push({s, e});
    if (pending_.size() > window_) pop();
  }
  bool empty() const { return !any_; }
  double finish() {
    while (!pending_.empty()) pop();
    return sweep_.mean();
  }

 private:
  void pop() {
    sweep_.feed(pending_.top().first, pending_.top().second);
    any_ = true;
    pending_.pop();
  }
  using Iv = std::pair<uint64_t, uint64_t>;
  size_t window_;
  std::priority_queue<Iv, std::vector<Iv>, std::greater<>> pending_;
  InFlightSweep sweep_;
  bool any_ = false;
};

}  // namespace fsr
