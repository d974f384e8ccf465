// SPDX-License-Identifier: Apache-2.0
// RingMerger: restores one global order from the per-CPU lanes. Each CPU's
// records arrive in submission order, which is the order of their `end`
// timestamps; the merger stages them per CPU and releases, in `end` order,
// every record older than a horizon the caller knows to be complete (the time
// the drain started, minus a margin for records still being committed).
//
// Records are not copied: a staged record is a pointer into its lane, which
// stays valid because the lane is freed only up to released records
// (released_through): copying every record into a staging queue was a
// measurable share of the drain's CPU. The queues keep their capacity: no
// allocation per record once warm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bpf/fsreplay_record.h"

namespace fsr {

class RingMerger {
 public:
  explicit RingMerger(uint32_t ncpu);

  // Gives every CPU's queue room for `records` staged records now, so that a
  // drain that finds well-filled lanes does not grow them while the workload
  // runs.
  void reserve(size_t records);

  // Stages the record at `data` (fsr_rec and its sections, `size` bytes) of
  // CPU `cpu`'s lane; `next` is the lane position just past its frame. The
  // bytes must stay where they are until the record is released.
  void push(uint32_t cpu, const void* data, size_t size, uint64_t next);

  // Calls fn(const void* record, size_t size) for every staged record with
  // end <= horizon, in end order. Returns how many were released.
  template <typename Fn>
  size_t release(uint64_t horizon, Fn&& fn) {
    size_t n = 0;
    for (;;) {
      int best = -1;
      uint64_t best_end = horizon;
      for (size_t c = 0; c < queues_.size(); ++c) {
        const Queue& q = queues_[c];
        if (q.head < q.items.size() && q.items[q.head].end <= best_end) {
          best = static_cast<int>(c);
          best_end = q.items[q.head].end;
        }
      }
      if (best < 0) break;
      const Staged& s = queues_[best].items[queues_[best].head];
      fn(static_cast<const void*>(s.rec), static_cast<size_t>(s.size));
      pop(static_cast<size_t>(best));
      ++n;
    }
    return n;
  }

  // The lane position just past the last record of `cpu` released so far
  // (0 before the first): the lane may be freed up to there.
  uint64_t released_through(uint32_t cpu) const { return cpu < queues_.size() ? queues_[cpu].released : 0; }
  size_t staged(uint32_t cpu) const { return cpu < queues_.size() ? queues_[cpu].items.size() - queues_[cpu].head : 0; }
  size_t staged() const { return staged_; }

 private:
  struct Staged {
    const fsr_rec* rec;
    uint64_t end;   // rec->end, kept here so the merge reads no lane memory
    uint64_t next;  // lane position past the record's frame
    uint32_t size;
  };
  struct Queue {
    std::vector<Staged> items;  // staged records are [head, size())
    size_t head = 0;
    uint64_t released = 0;
  };
  void pop(size_t cpu);
  std::vector<Queue> queues_;
  size_t staged_ = 0;
};

}  // namespace fsr
