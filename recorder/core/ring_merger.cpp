// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/ring_merger.h"

namespace fsr {

RingMerger::RingMerger(uint32_t ncpu) : queues_(ncpu) {
  for (auto& q : queues_) q.items.reserve(1 << 12);
}

void RingMerger::reserve(size_t records) {
  for (auto& q : queues_) q.items.reserve(records);
}

void RingMerger::push(uint32_t cpu, const void* data, size_t size, uint64_t next) {
  if (cpu >= queues_.size() || size < sizeof(fsr_rec)) return;
  const fsr_rec* r = static_cast<const fsr_rec*>(data);
  queues_[cpu].items.push_back({r, r->end, next, static_cast<uint32_t>(size)});
  ++staged_;
}

void RingMerger::pop(size_t cpu) {
  Queue& q = queues_[cpu];
  q.released = q.items[q.head].next;
  ++q.head;
  --staged_;
  if (q.head == q.items.size()) {
    q.items.clear();
    q.head = 0;
  } else if (q.head > (1u << 12) && q.head * 2 > q.items.size()) {
    q.items.erase(q.items.begin(), q.items.begin() + static_cast<std::ptrdiff_t>(q.head));
    q.head = 0;
  }
}

}  // namespace fsr
