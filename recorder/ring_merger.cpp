#include "recorder/ring_merger.h"

#include <algorithm>
#include <cstring>

namespace fsr {

RingMerger::RingMerger(uint32_t ncpu) : queues_(ncpu) {
  for (auto& q : queues_) q.buf.resize(1 << 16);
}

void RingMerger::reserve(size_t bytes) {
  // A frame's length word takes the place of the queue's size word.
  const size_t words = bytes / 8;
  for (auto& q : queues_)
    if (q.buf.size() < words) q.buf.resize(words);
}

void RingMerger::push(uint32_t cpu, const void* data, size_t size) {
  if (cpu >= queues_.size() || size < sizeof(fsr_rec)) return;
  Queue& q = queues_[cpu];
  size_t words = (size + 7) / 8;
  size_t at = q.end;
  if (at + 1 + words > q.buf.size()) q.buf.resize(std::max(q.buf.size() * 2, at + 1 + words));
  q.buf[at] = size;
  std::memcpy(&q.buf[at + 1], data, size);
  q.end = at + 1 + words;
  ++staged_;
}

const fsr_rec* RingMerger::front(size_t cpu) const {
  const Queue& q = queues_[cpu];
  if (q.head >= q.end) return nullptr;
  return reinterpret_cast<const fsr_rec*>(&q.buf[q.head + 1]);
}

void RingMerger::pop(size_t cpu) {
  Queue& q = queues_[cpu];
  size_t words = (q.buf[q.head] + 7) / 8;
  q.head += 1 + words;
  --staged_;
  if (q.head >= q.end) {
    q.head = q.end = 0;
  } else if (q.head > (1u << 16) && q.head * 2 > q.end) {
    std::memmove(q.buf.data(), q.buf.data() + q.head, (q.end - q.head) * sizeof(uint64_t));
    q.end -= q.head;
    q.head = 0;
  }
}

}  // namespace fsr
