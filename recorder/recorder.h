// Recorder: `fsreplay record` as a library. Loads the BPF side, starts (or
// attaches to) the workload, captures the initial state, drains the lanes
// into a TraceWriter in timestamp order and writes the footer. Flushes the
// writer at least once a second, so a killed recorder leaves a readable
// trace. Never allocates per event in the drain loop.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "recorder/bpf_session.h"
#include "traces/status.h"

namespace fsr {

// Clock `c` in ns (the drain's pace and CPU figures).
inline uint64_t now_ns(clockid_t c) {
  timespec ts;
  clock_gettime(c, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The drain's pace (recorder.cpp; modelled by tools/bench/drain_bench.cpp).
inline constexpr uint64_t kDrainHorizonMarginNs = 2'000'000;  // records still being committed
inline constexpr uint64_t kDrainFlushEveryNs = 1'000'000'000;
inline constexpr uint64_t kDrainIdleNs = 10'000'000;  // drain period while the lanes fill slowly
inline constexpr uint64_t kDrainMinNs = 1'000'000;    // ... and while they fill fast
inline constexpr size_t kDrainWarmHeapBytes = 16u << 20;  // heap touched before the workload starts (heap_warmup.h)

struct RecordOptions {
  std::string output = "fsreplay.trace";
  std::string root;                    // default: current directory
  std::vector<std::string> command;    // workload (or use attach_pid)
  uint32_t attach_pid = 0;             // --pid: follow a running tree
  uint32_t buffer_mib = 8;             // per-CPU lane size (bpf/fsreplay_record.h)
  bool page_faults = true;
  bool progress = false;               // progress line on stderr
  // Called about once a second while the workload runs: events written, events lost so far.
  std::function<void(uint64_t events, uint64_t drops)> on_progress;
  bool run_as_invoker = true;          // under sudo, run the workload as $SUDO_USER
};

struct RecordSummary {
  uint64_t events = 0;
  uint64_t drops = 0;                  // kernel-side drops, all classes
  uint64_t bytes = 0;                  // trace file size
  uint64_t duration_ns = 0;
  uint64_t drain_cpu_ns = 0;           // the recorder's CPU time while the workload ran (drain, decode, write)
  uint64_t drain_boosts = 0;           // times the idle-priority drain had to be raised (DrainGovernor)
  int wait_status = 0;                 // workload wait status (0 with --pid)
  int exit_code = 0;                   // what fsreplay should pass through
  uint64_t io_uring = 0;
  uint64_t unresolved_paths = 0;
  KernelCounters kernel;
  std::string warnings;                // one line each
};

Result<RecordSummary> record(const RecordOptions& options);

}  // namespace fsr
