// SPDX-License-Identifier: Apache-2.0
// Mean concurrency of a set of calls: their summed durations over the length
// of the union of their [start, end) intervals, i.e. how many were in flight
// on average while any was. The replay writes the original's into a result
// (options "overlap"), reports compare it with the replay's own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
  explicit InFlightMeter(size_t window = 65536) : window_(std::max<size_t>(window, 1)) {}
  void add(uint64_t s, uint64_t e) {
    if (e <= s) return;
    pending_.push_back({s, e});
    if (pending_.size() >= 2 * window_) flush(window_);
  }
  bool empty() const { return !any_ && pending_.empty(); }
  double finish() {
    flush(pending_.size());
    return sweep_.mean();
  }

 private:
  // Sweeps the `n` earliest-starting pending intervals. Sorting a batch of
  // 2 x window every window intervals costs less than a heap of that size;
  // what a flush leaves is sorted already, so only the newer part is sorted
  // and merged in.
  void flush(size_t n) {
    const auto mid = pending_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    // A stream that was out of order beyond the insertion budget once (a
    // replay's ops, issued by several workers) is radix-sorted from then on:
    // the failed insertion cost as much again as the sort.
    if (disordered_ || !sort_nearly_sorted(mid, pending_.end())) {
      disordered_ = true;
      radix_sort(mid, pending_.end(), tmp_);
    }
    std::inplace_merge(pending_.begin(), mid, pending_.end());
    for (size_t i = 0; i < n; ++i) sweep_.feed(pending_[i].first, pending_[i].second);
    any_ = any_ || n > 0;
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    sorted_ = pending_.size();
  }
  using Iv = std::pair<uint64_t, uint64_t>;
  using It = std::vector<Iv>::iterator;
  // Intervals arrive nearly in order: insertion, within a budget of moves
  // (8 per interval); false when it ran out (the range is then unsorted).
  static bool sort_nearly_sorted(It first, It last) {
    size_t budget = 8 * static_cast<size_t>(last - first);
    for (It i = first; i != last; ++i) {
      const Iv v = *i;
      It j = i;
      for (; j != first && v < *(j - 1); --j) {
        *j = *(j - 1);
        if (--budget == 0) {
          *(j - 1) = v;
          return false;
        }
      }
      *j = v;
    }
    return true;
  }
  // The order std::sort gives (by start, then end): a stable LSD radix sort
  // by start over the bits its range spans, then each run of equal starts
  // by end (insertion: such runs are short). Half std::sort's time on a
  // replay's intervals, whose starts span ~27 bits per window.
  static void radix_sort(It first, It last, std::vector<Iv>& tmp) {
    const size_t n = static_cast<size_t>(last - first);
    if (n < 2) return;
    uint64_t lo = first->first, hi = first->first;
    for (It i = first; i != last; ++i) lo = std::min(lo, i->first), hi = std::max(hi, i->first);
    constexpr int kBits = 11;
    constexpr size_t kDigits = size_t{1} << kBits;
    tmp.resize(n);
    Iv* src = &*first;
    Iv* dst = tmp.data();
    for (int shift = 0; shift < 64 && ((hi - lo) >> shift) != 0; shift += kBits) {
      size_t count[kDigits] = {};
      for (size_t k = 0; k < n; ++k) ++count[((src[k].first - lo) >> shift) & (kDigits - 1)];
      size_t at = 0;
      for (size_t& c : count) at += std::exchange(c, at);
      for (size_t k = 0; k < n; ++k) dst[count[((src[k].first - lo) >> shift) & (kDigits - 1)]++] = src[k];
      std::swap(src, dst);
    }
    if (src != &*first) std::copy(src, src + n, first);
    for (It i = first + 1; i != last; ++i) {  // equal starts, by end
      const Iv v = *i;
      It j = i;
      for (; j != first && v < *(j - 1); --j) *j = *(j - 1);
      *j = v;
    }
  }
  size_t window_;
  std::vector<Iv> pending_;  // [0, sorted_) in order
  size_t sorted_ = 0;
  bool disordered_ = false;
  std::vector<Iv> tmp_;  // the radix sort's other buffer
  InFlightSweep sweep_;
  bool any_ = false;
};

}  // namespace fsr
