// The replay engine: one OS thread per worker of the plan, each issuing its
// recorded threads' ops in program order. Per op: sleep the think gap (or the
// exact offset), wait for dependencies on per-op completion words (spin, then
// futex-wait through std::atomic::wait), issue through the executor, time it
// with CLOCK_MONOTONIC, publish completion. No allocation or lock per op; the
// per-op records are preallocated and each is written by exactly one worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "replayer/executor.h"
#include "replayer/plan.h"
#include "traces/event.h"
#include "traces/status.h"

namespace fsr {

enum class TimingMode { kThink, kAfap, kExact };

struct EngineResult {
  std::vector<OpRecord> ops;  // one per event, path unset (the caller interns it)
  uint64_t wall_ns = 0;
  uint64_t syscall_overhead_ns = 0;  // think mode: the calibrated entry/exit cost paid back per op
};

using EngineProgress = std::function<void(uint64_t done, uint64_t total)>;

// Extra latency (ns) slept inside the timed region of every issued op of a
// class: a test hook that gives attribution a known truth. All zero normally.
using InjectedLatency = std::array<uint64_t, kClassCount>;

// run_engine's default: measure the syscall overhead paid back in think mode.
inline constexpr uint64_t kMeasureOverhead = UINT64_MAX;

// Runs the plan. `env` must be initialised (init_exec_env) with open roots.
// Errors thrown inside a worker are reported after all workers joined.
Result<EngineResult> run_engine(const Plan& plan, const std::vector<Event>& events, ExecEnv& env,
                                TimingMode timing, const EngineProgress& progress,
                                const InjectedLatency& inject = {},
                                uint64_t syscall_overhead_ns = kMeasureOverhead);

uint64_t mono_ns();

// The round trip of a system call that does no work (getppid), as the
// workers time it: median of a few thousand. A recorded duration is taken
// inside the kernel, so the original's entry/exit cost sits in its recorded
// gaps; a replayed op's latency is timed from user space and holds it again.
// Think mode pays this much back from the next gaps after each issued call
// (~1 µs on a paravirtualised VM where syscalls trap, ~0.1 µs on bare metal).
uint64_t measure_syscall_overhead_ns();

// Per worker thread, before its first op: timer slack of 1 ns, so that a
// think-time sleep ends at its deadline instead of up to 50 us after it.
void prepare_worker_thread();

}  // namespace fsr
