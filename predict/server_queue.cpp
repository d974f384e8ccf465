// SPDX-License-Identifier: Apache-2.0
#include "predict/server_queue.h"

#include <algorithm>

namespace fsr {

uint64_t ServerQueue::client_part(const ServerModel& m, uint64_t syscall_overhead_ns) {
  uint64_t cheapest = 0;
  for (const ConcurrencyPoint& p : m.sweep)
    if (p.streams == 1 && p.median_ns && (cheapest == 0 || p.median_ns < cheapest)) cheapest = p.median_ns;
  const uint64_t client = cheapest > m.service_ns ? cheapest - m.service_ns : 0;
  return std::max(client, syscall_overhead_ns);
}

// A mount whose throughput scaled to every measured concurrency (kNoSlotLimit)
// queues no request: only its bandwidths, if measured, are shared.
ServerQueue::ServerQueue(const ServerModel& m, uint64_t syscall_overhead_ns)
    : slots_(m.slots == kNoSlotLimit ? 0 : m.slots), client_ns_(client_part(m, syscall_overhead_ns)) {
  bw_[0] = m.read_bw_buffered, bw_[1] = m.read_bw_direct;
  bw_[2] = m.write_bw_buffered, bw_[3] = m.write_bw_direct;
  for (uint64_t b : bw_) any_bw_ |= b > 0;
}

uint64_t ServerQueue::bandwidth(const Transfer& t) const {
  return t.bytes >= kLargeTransfer ? bw_[(t.write ? 2 : 0) + (t.direct ? 1 : 0)] : 0;
}

uint64_t Timeline::peek(uint64_t a, uint64_t w) const {
  if (a >= begin_) return std::max(a, end_) + w;  // after its last booking, or behind it
  const uint64_t start = std::max(a, idle_from_);
  if (start + w <= begin_) return start + w;  // in the gap before it
  return start + w + (end_ - begin_);         // first, the other after it: both done then
}

uint64_t Timeline::book(uint64_t a, uint64_t w) {
  const uint64_t done = peek(a, w);
  in_gap_ = a < begin_ && done <= begin_;
  if (a >= begin_) {
    idle_from_ = end_;
    begin_ = done - w;
    end_ = done;
  } else if (in_gap_) {
    idle_from_ = done;
  } else {
    begin_ = std::max(a, idle_from_);
    end_ = done;
  }
  return done;
}

void Timeline::hold_longer(uint64_t by) {
  if (!in_gap_) {
    end_ += by;
    return;
  }
  idle_from_ += by;
  if (idle_from_ > begin_) end_ += idle_from_ - begin_, begin_ = idle_from_;  // pushes the booking after it
}

uint64_t ServerQueue::serve(uint64_t start, uint64_t lat, const Transfer& t) {
  last_wait_ = 0;
  if (lat <= client_ns_) return lat;  // the client's caches answered
  const uint64_t service = lat - client_ns_;
  ++tot_.served;
  uint64_t begin = start;
  size_t slot = 0;
  if (!slots_.empty()) {
    uint64_t best = UINT64_MAX;
    for (size_t k = 0; k < slots_.size(); ++k)
      if (const uint64_t f = slots_[k].peek(start, service); f < best) best = f, slot = k;
    begin = slots_[slot].book(start, service) - service;
    if (begin > start) ++tot_.slot_waits, tot_.slot_wait_ns += begin - start;
  }
  uint64_t pipe_wait = 0;
  if (const uint64_t bw = bandwidth(t)) {
    const auto need = static_cast<uint64_t>(static_cast<double>(t.bytes) * 1e9 / static_cast<double>(bw));
    const uint64_t x = std::min(need, service);
    pipe_wait = pipe_.book(begin, x) - x - begin;
    ++tot_.transfers;
    if (pipe_wait) ++tot_.pipe_waits, tot_.pipe_wait_ns += pipe_wait;
  }
  if (pipe_wait && !slots_.empty()) slots_[slot].hold_longer(pipe_wait);  // served while it waits for the pipe
  const uint64_t end = begin + pipe_wait + service;
  last_wait_ = end - start - service;
  return lat + last_wait_;
}

}  // namespace fsr
