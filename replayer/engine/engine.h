// SPDX-License-Identifier: Apache-2.0
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
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "replayer/exec/executor.h"
#include "replayer/plan/plan.h"
#include "replayer/plan/plan_stream.h"
#include "traces/event.h"
#include "base/status.h"
#include "traces/syscalls.h"
#include "traces/trace_model.h"

namespace fsr {

enum class TimingMode { kThink, kAfap, kExact };

// What think mode takes out of the recorded gaps, so that a replay aims at
// the untraced original's wall time (docs/design.md "The replay clock"): what
// recording added (the trace header's RecordCost) and what the replayer
// itself spends per op (replay_cost.h calibrates it at replay start).
struct ThinkClock {
  RecordCost recorded;  // recorder/bpf/record_cost.h; present = false: nothing to take out
  // The share of every recorded gap the recorder took from the workload (its
  // threads, its fault programs), parts per million (stolen_share_ppm: the
  // trace footer); 0: none known.
  uint32_t stolen_ppm = 0;
  uint64_t syscall_ns = 0;                         // an issued call's entry and exit, which the recorded gap holds
  std::array<uint32_t, kMaxSyscallNr> issue_ns{};  // the executor's work beyond the plain call, per syscall
  // The gaps burn a CPU (spin to the deadline) instead of sleeping: the
  // original computed in them, and on a machine its threads kept busy every
  // call's wake-up and a local server (FUSE) waited for a CPU (replay --gaps spin).
  bool spin_gaps = false;
  // The trace holds deferred file releases in the calls that left them
  // (kRecorderChoiceReleases): the files an op releases (a dup2 over an fd,
  // an exec's close-on-exec fds) are closed inside its timed span. Older
  // traces hold those releases in the gap after the call: closed after it,
  // their time is taken from that gap, as before.
  bool releases_in_calls = false;
};

// The trace footer's time the recorder took from the recorded gaps that no
// one call carries: its threads running in place of a runnable tracked task,
// and its fault programs on the tasks' user page faults; as a share of every
// thread's recorded gaps (ppm, at most half); 0 for a trace that measured
// neither.
inline uint32_t stolen_share_ppm(const std::optional<TraceFooter>& f) {
  if (!f || f->gaps_ns == 0) return 0;
  const uint64_t took = (f->stolen_measured ? f->recorder_stolen_ns : 0) + f->fault_cost_ns;
  const long double share = static_cast<long double>(took) / static_cast<long double>(f->gaps_ns);
  return static_cast<uint32_t>(std::min<long double>(share, 0.5L) * 1e6L);
}

// A recorded gap less what recording added to it: the class's per-call cost
// (record_cost.h; syscalls only), then the recorder threads' share of every
// gap but a thread's start-up gap (which the footer's gaps do not hold).
// The replay's engine and predict's simulator both take it out so.
struct LessRecording {
  uint64_t gap;    // what is left to sleep
  uint64_t taken;  // what was taken out
};
inline LessRecording less_recording(const PlanOp& op, const Event& e, const ThinkClock& c) {
  uint64_t g = op.gap, taken = 0;
  if (c.recorded.present && e.nr < kEvProcExec) {
    taken = std::min<uint64_t>(c.recorded.gap_ns[static_cast<size_t>(class_of(e.nr))], g);
    g -= taken;
  }
  if (c.stolen_ppm && !(op.flags & kPfFirstOfThread)) {
    const uint64_t s = g / 1'000'000 * c.stolen_ppm + g % 1'000'000 * c.stolen_ppm / 1'000'000;
    g -= s;
    taken += s;
  }
  return {g, taken};
}

// What the corrections came to in one replay (ns, summed over all workers).
struct ClockTotals {
  uint64_t recorder_gap_ns = 0;        // taken out of gaps: recording's addition
  uint64_t recorder_dur_slept_ns = 0;  // emulated calls' recorded in-kernel work, slept (less recording's part)
  uint64_t syscall_ns = 0;             // paid back: entry and exit of issued calls
  uint64_t issue_ns = 0;               // paid back: the executor's work beyond the plain call
  uint64_t late_ns = 0;                // paid back: the engine's own work, wake-ups late or after a dependency
  uint64_t unpaid_ns = 0;              // owed but never paid: no gap left to take it from
};

struct EngineResult {
  std::vector<OpRecord> ops;  // one per event, path unset (the caller interns it)
  uint64_t wall_ns = 0;
  uint64_t syscall_overhead_ns = 0;  // think mode: the calibrated entry/exit cost paid back per op
  ClockTotals clock;
};

using EngineProgress = std::function<void(uint64_t done, uint64_t total)>;

// Extra latency (ns) slept inside the timed region of every issued op of a
// class: a test hook that gives attribution a known truth. All zero normally.
using InjectedLatency = std::array<uint64_t, kClassCount>;

// ReplayOptions' default: measure the syscall overhead paid back in think mode.
inline constexpr uint64_t kMeasureOverhead = UINT64_MAX;

// Think mode, a new thread's first op: its start-up gap runs from its
// creator's completion (`creator_done`, when a dependency released it), as it
// did in the original, not from when its worker reached it (`reached`); a
// worker still busy past that start owes the difference back from the
// thread's next gaps. The engine and predict's simulator both start threads so.
struct ThreadStart {
  uint64_t want;    // the intended issue time
  uint64_t target;  // when to issue: not before `reached`
  uint64_t owed;    // how far `reached` is already past `want`
};
inline ThreadStart thread_start(bool have_creator, uint64_t creator_done, uint64_t reached, uint64_t start_gap) {
  const uint64_t want = (have_creator ? creator_done : reached) + start_gap;
  return {want, want > reached ? want : reached, reached > want ? reached - want : 0};
}

// Runs a whole plan (build_plan). `env` must be initialised (init_exec_env)
// with open roots. Errors thrown inside a worker are reported after all
// workers joined. `clock` is used in think mode only (the default takes
// nothing out). The records are returned, one per event.
Result<EngineResult> run_engine(const Plan& plan, ExecEnv& env, TimingMode timing, const EngineProgress& progress,
                                const InjectedLatency& inject = {}, const ThinkClock& clock = {});

// Streaming: the calling thread reads chunks of events from `next` (false at
// the end), plans them into `ps`'s window while the workers run it, and hands
// each op's record to `sink` in event order as soon as it and every op before
// it ran; EngineResult::ops stays empty. Memory is the window's.
using EventSource = std::function<Result<bool>(std::vector<Event>&)>;
using RecordSink = std::function<Status(const OpRecord&, const Event&, const PlanOp&)>;
using StreamProgress = std::function<void(uint64_t done)>;
// `filled`: called once the window is first filled, before the clock starts.
// `stalled`, from the calling thread, once per stall: no op has finished for
// `stall_ns` beyond the oldest unfinished op's own recorded duration (and its
// recorded gap, in think mode), that time capped at the trace's enter span
// (Plan::enter_span); given that op's index and the time since the last op
// finished. The replay goes on waiting.
using StallReport = std::function<void(uint64_t op, uint64_t since_ns)>;
Result<EngineResult> run_engine_stream(PlanStream& ps, WindowSync& sync, const EventSource& next,
                                       const RecordSink& sink, ExecEnv& env, TimingMode timing,
                                       const StreamProgress& progress, const InjectedLatency& inject,
                                       const ThinkClock& clock, uint64_t buf_size, const std::function<void()>& filled,
                                       const StallReport& stalled = nullptr, uint64_t stall_ns = 30'000'000'000ull);

// Emulated calls whose recorded duration is the kernel's own work on the fd
// table (dup, fcntl, pipe creation, ...), which think mode sleeps: the
// replay reduces them to bookkeeping, the original spent that time.
bool sleeps_recorded_work(uint16_t nr);

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
