// SPDX-License-Identifier: Apache-2.0
// Per-op simulation state, kept only for a window of op indices: when each
// op completes (simulated ns), the server queue's wait on the chain of ops
// that made it start when it did (in us), and which worker waits for it. The simulator
// consumes ops in (nearly) index order, so the window spans from the oldest
// op still needed to the newest one seen; older entries are released in
// bulk. A dependency on a released op (further back than `retain` ops) is
// answered with the latest completion among released ops -- never earlier
// than the truth, so it can only delay, and each such delay is counted.
// Allocation only when the window grows (power-of-two ring).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fsr {

class OpWindow {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit OpWindow(uint64_t retain) : retain_(std::max<uint64_t>(retain, 1024)) { resize(4096); }

  // Completion time of op i (ns), or false while it is pending. Op i must not be ahead of the window.
  bool done(uint32_t i, uint64_t& t) {
    if (i < base_) {
      ++released_lookups_;
      t = released_max_;
      return true;
    }
    ensure(i);
    const Entry& e = slot(i);
    if (!e.done) return false;
    t = e.done - 1;
    return true;
  }
  bool released(uint32_t i) const { return i < base_; }

  void set_done(uint32_t i, uint64_t t, uint64_t path_wait_ns = 0) {
    ensure(i);
    Entry& e = slot(i);
    e.done = t + 1;
    e.path_us = static_cast<uint32_t>(std::min<uint64_t>(path_wait_ns / 1000, UINT32_MAX));
    if (i >= high_) high_ = i + 1;
  }
  // The queue wait on op i's chain (ns, to the us), i done; of the
  // latest-ending released op if i was released.
  uint64_t path_wait_ns(uint32_t i) { return (i < base_ ? released_path_us_ : slot(i).path_us) * 1000ull; }

  // Waiter lists: one head per op, the links live in the caller's per-worker array.
  uint32_t& waiter_head(uint32_t i) {
    ensure(i);
    return slot(i).waiter;
  }

  // Releases what lies more than `retain` ops below `low` (the oldest op
  // some worker has still to run). Stops at an op not yet done.
  void release_below(uint32_t low) {
    const uint64_t to = low > retain_ ? low - retain_ : 0;
    while (base_ < to && base_ < high_) {
      Entry& e = slot(base_);
      if (!e.done) break;
      if (e.done - 1 >= released_max_) released_max_ = e.done - 1, released_path_us_ = e.path_us;
      e = Entry{};
      ++base_;
    }
  }

  uint64_t capacity() const { return ring_.size(); }
  uint64_t released_lookups() const { return released_lookups_; }
  uint64_t bytes() const { return ring_.size() * sizeof(Entry); }

 private:
  struct Entry {
    uint64_t done = 0;        // completion + 1; 0 = pending
    uint32_t waiter = kNone;  // first worker waiting for it
    uint32_t path_us = 0;     // queue wait on its chain (in the padding)
  };
  static_assert(sizeof(Entry) == 16);
  Entry& slot(uint32_t i) { return ring_[i & (ring_.size() - 1)]; }

  void ensure(uint32_t i) {
    if (i - base_ < ring_.size()) return;
    size_t n = ring_.size();
    while (i - base_ >= n) n *= 2;
    resize(n);
  }
  void resize(size_t n) {
    std::vector<Entry> next(n);
    for (uint64_t j = base_; j < base_ + ring_.size(); ++j) next[j & (n - 1)] = ring_[j & (ring_.size() - 1)];
    ring_.swap(next);
  }

  std::vector<Entry> ring_;
  uint64_t retain_;
  uint32_t base_ = 0;  // oldest op kept
  uint32_t high_ = 0;  // one past the newest op set
  uint64_t released_max_ = 0;
  uint32_t released_path_us_ = 0;
  uint64_t released_lookups_ = 0;
};

}  // namespace fsr
