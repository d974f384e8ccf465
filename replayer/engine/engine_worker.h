// SPDX-License-Identifier: Apache-2.0
// The engine's workers, as its two drivers (engine_run.cpp: a whole plan, a
// streamed window) start them: the state they share and each worker's own
// slot. Internal to the replayer (engine.h is the interface).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>

#include "replayer/engine/engine.h"

namespace fsr::engine_detail {

struct alignas(64) WorkerSlot {
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::string error_op;
  ClockTotals clock;
  uint64_t finished_ns = 0;  // mono_ns() when its last op was done (read after join)
};

struct Shared {
  const Plan& plan;
  ExecEnv& env;
  TimingMode timing;
  const InjectedLatency& inject;
  const ThinkClock& clock;
  WindowSync& sync;
  uint64_t buf_size;
  uint64_t start = 0;
  // Pauses a waiter spins before it sleeps: long while the workers and the
  // planner have a CPU each, short when they outnumber the CPUs this process
  // may run on: a spinning waiter then holds a CPU that the thread it waits
  // for may need.
  int spin = 2000;
  std::atomic<bool> go{false};
};

// One worker's issue loop (engine_worker.cpp): its ops in event order until the
// plan ends; errors are stored in `slot`, never thrown out.
void run_worker(Shared& s, uint32_t w, WorkerSlot& slot);

}  // namespace fsr::engine_detail
