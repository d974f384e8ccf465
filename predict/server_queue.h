// SPDX-License-Identifier: Apache-2.0
// The mount as a server in the simulation (the profile's ServerModel): its
// `slots` requests served at once, the rest queued first come first served,
// and its bandwidth, one pipe that large transfers cross one after another.
//
// An op's drawn latency (OpCost, uncontended, as the probe measured it) is
// a client part -- the syscall and the kernel's round trip to the server,
// the same for every request -- and a service part held on a slot: the
// rest. The client part is the cheapest swept case's single-stream median
// less the fitted service time (the sweep's points at one stream), never
// below the syscall round trip. An op whose drawn latency is within the
// client part was answered by the client's caches and never queues.
// A transfer of at least kLargeTransfer bytes (a read or write priced from
// the mount, the measured bandwidth > 0 for its direction and O_DIRECT or
// not) also needs the pipe for bytes / bandwidth, never longer than its own
// service (a faster draw came from a cache); the pipe is a FIFO timeline.
// Uncontended, every op takes exactly its drawn latency; a profile without
// a model (slots 0, no bandwidth) changes nothing.
//
// Order: ops arrive in the simulator's order (the trace's), which is
// nearly, not exactly, their simulated start order. Each slot and the pipe
// is a Timeline that remembers its last booking: an op that arrives before
// that booking began fills the idle gap before it if it fits, else goes
// first and finishes when both would have (the pair's work conserved, the
// wait charged to the later-simulated op). Older disorder is not undone:
// the queue can be overestimated by it. An op takes the slot where it
// finishes first. O(slots) per op; nothing allocated per op.
#pragma once

#include <cstdint>
#include <vector>

#include "traces/profile.h"

namespace fsr {

struct Transfer {
  uint64_t bytes = 0;
  bool write = false;
  bool direct = false;  // O_DIRECT
};

struct ServerTotals {
  uint64_t served = 0;        // ops that reached the server
  uint64_t slot_waits = 0;    // of which waited for a slot
  uint64_t slot_wait_ns = 0;  // all their waits for a slot
  uint64_t transfers = 0;     // large transfers that crossed the pipe
  uint64_t pipe_waits = 0;    // of which waited for it
  uint64_t pipe_wait_ns = 0;
};

// One server resource (a slot, the pipe) on the simulated time line.
class Timeline {
 public:
  // When an op arriving at `a` that needs `w` of it would finish.
  uint64_t peek(uint64_t a, uint64_t w) const;
  // Books it: its finish (its wait: finish - w - a).
  uint64_t book(uint64_t a, uint64_t w);
  // The op just booked holds it `by` longer.
  void hold_longer(uint64_t by);

 private:
  uint64_t idle_from_ = 0;        // free from here up to begin_
  uint64_t begin_ = 0, end_ = 0;  // its last booking
  bool in_gap_ = false;           // the op booked last went in the gap before it
};

class ServerQueue {
 public:
  static constexpr uint64_t kLargeTransfer = 128 * 1024;

  ServerQueue(const ServerModel& m, uint64_t syscall_overhead_ns);

  bool active() const { return !slots_.empty() || any_bw_; }
  // The op's latency with its waits: it starts at `start` with drawn
  // latency `lat`. Sets last_wait().
  uint64_t serve(uint64_t start, uint64_t lat, const Transfer& t);
  uint64_t last_wait() const { return last_wait_; }
  uint64_t client_ns() const { return client_ns_; }
  const ServerTotals& totals() const { return tot_; }

  // The client part a model implies (see above).
  static uint64_t client_part(const ServerModel& m, uint64_t syscall_overhead_ns);

 private:
  uint64_t bandwidth(const Transfer& t) const;

  std::vector<Timeline> slots_;
  uint64_t client_ns_ = 0;
  uint64_t bw_[4] = {0, 0, 0, 0};  // [write][direct] bytes/s
  bool any_bw_ = false;
  Timeline pipe_;
  uint64_t last_wait_ = 0;
  ServerTotals tot_;
};

}  // namespace fsr
