// SPDX-License-Identifier: Apache-2.0
// DrainGovernor: runs the recorder's drain in the machine's idle time. The
// drain (decode, path resolution, encoding) costs CPU per event, and on a
// machine the workload keeps busy it would take that CPU from the workload.
// So the draining thread runs at the lowest priority, and the lanes hold
// what it has not taken yet; a governor thread raises its priority above
// the workload's while any lane is more than a quarter full, or has less
// than half its early-rewind window free (after an early rewind only the
// lane's start is free until the reader takes the jump:
// bpf/fsreplay_record.h), or the last flush is 750 ms old (a flush at least
// once a second: a killed recorder leaves the trace up to it). It only
// reads the lanes' positions (BpfSession::lane_load_now) and changes
// priorities; it never touches records.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "recorder/bpf/bpf_session.h"

namespace fsr {

class DrainGovernor {
 public:
  // Lowers the calling thread (the drain) and starts the governor thread.
  explicit DrainGovernor(const BpfSession& s);
  ~DrainGovernor() { stop(); }
  DrainGovernor(const DrainGovernor&) = delete;
  DrainGovernor& operator=(const DrainGovernor&) = delete;

  void flushed(uint64_t now) { last_flush_.store(now, std::memory_order_relaxed); }
  // Ends the governor and leaves the drain raised (the final drain competes
  // with nothing). Returns how many times it was raised.
  uint64_t stop();

 private:
  static constexpr int kIdle = 19, kRaised = -5;
  static constexpr uint64_t kCheckNs = 10'000'000, kFlushAgeNs = 750'000'000;
  static void set_nice(pid_t tid, int v);
  void run();
  const BpfSession& session_;
  const pid_t drain_tid_;
  std::atomic<uint64_t> last_flush_{0};
  std::atomic<bool> stop_{false};
  uint64_t boosts_ = 0;
  std::thread thread_;
};

}  // namespace fsr
