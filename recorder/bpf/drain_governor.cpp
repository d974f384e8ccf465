// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/drain_governor.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "recorder/bpf/drain_pace.h"

namespace fsr {

DrainGovernor::DrainGovernor(const BpfSession& s) : session_(s), drain_tid_(gettid()) {
  set_nice(drain_tid_, kIdle);
  last_flush_ = now_ns(CLOCK_MONOTONIC);
  thread_ = std::thread([this] { run(); });
}

uint64_t DrainGovernor::stop() {
  if (thread_.joinable()) {
    stop_.store(true);
    thread_.join();
    set_nice(drain_tid_, kRaised);
  }
  return boosts_;
}

void DrainGovernor::set_nice(pid_t tid, int v) {
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid), v) != 0) { /* not fatal: drops are counted */
  }
}

void DrainGovernor::run() {
  set_nice(gettid(), kRaised);
  bool raised = false;
  const uint64_t quarter = session_.lane_bytes() / 4, sixteenth = session_.lane_bytes() / 16;
  const uint64_t tight = session_.lane_window() / 2;
  while (!stop_.load()) {
    timespec d{0, static_cast<long>(kCheckNs)};
    nanosleep(&d, nullptr);
    const BpfSession::LaneLoad load = session_.lane_load_now();
    const uint64_t age = now_ns(CLOCK_MONOTONIC) - last_flush_.load(std::memory_order_relaxed);
    if (!raised && (load.fill > quarter || load.room < tight || age > kFlushAgeNs)) {
      set_nice(drain_tid_, kRaised);
      raised = true;
      ++boosts_;
    } else if (raised && load.fill < sixteenth && load.room >= 2 * tight && age < kFlushAgeNs) {
      set_nice(drain_tid_, kIdle);
      raised = false;
    }
  }
}

}  // namespace fsr
