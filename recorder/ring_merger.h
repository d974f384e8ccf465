// RingMerger: restores one global order from the per-CPU lanes. Each CPU's
// records arrive in submission order, which is the order of their `end`
// timestamps; the merger stages them per CPU and releases, in `end` order,
// every record older than a horizon the caller knows to be complete (the time
// the drain started, minus a margin for records still being committed).
// Staging is a per-CPU byte queue that keeps its capacity: no allocation per
// record once warm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bpf/fsreplay_record.h"

namespace fsr {

class RingMerger {
 public:
  explicit RingMerger(uint32_t ncpu);

  // Gives every CPU's queue room for `bytes` of records (and their size
  // words) now, so that a drain that finds well-filled lanes does not grow
  // them while the workload runs.
  void reserve(size_t bytes);

  // Copies one record (fsr_rec and its sections) into CPU `cpu`'s queue.
  void push(uint32_t cpu, const void* data, size_t size);

  // Calls fn(const void* record, size_t size) for every staged record with
  // end <= horizon, in end order. Returns how many were released.
  template <typename Fn>
  size_t release(uint64_t horizon, Fn&& fn) {
    size_t n = 0;
    for (;;) {
      int best = -1;
      uint64_t best_end = horizon;
      for (size_t c = 0; c < queues_.size(); ++c) {
        const fsr_rec* r = front(c);
        if (r && r->end <= best_end) {
          best = static_cast<int>(c);
          best_end = r->end;
        }
      }
      if (best < 0) break;
      fn(static_cast<const void*>(front(best)), front_size(best));
      pop(best);
      ++n;
    }
    return n;
  }

  size_t staged() const { return staged_; }

 private:
  struct Queue {
    // 8-byte words: [size][record words...] in [head, end). `buf` only grows
    // (resize value-initialises: never done per record).
    std::vector<uint64_t> buf;
    size_t head = 0;
    size_t end = 0;
  };
  const fsr_rec* front(size_t cpu) const;
  size_t front_size(size_t cpu) const { return queues_[cpu].buf[queues_[cpu].head]; }
  void pop(size_t cpu);
  std::vector<Queue> queues_;
  size_t staged_ = 0;
};

}  // namespace fsr
