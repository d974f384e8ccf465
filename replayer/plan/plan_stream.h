// SPDX-License-Identifier: Apache-2.0
// The streaming planner: builds the replay plan event by event into a window
// (plan.h's rings) and publishes each op to the engine's workers as soon as
// its plan is final. An op's plan is final when it is added, except for ops
// whose waker may come later in the trace (a futex wait, a blocking read, a
// poll: their causal edge, deps.h) and exits (a later wait sets how long the
// exit holds): those are final `lookahead` events later, or at the end of the
// trace. The window has room for `window` ops; slot i is reused by op
// i + window only once op i has run and its record was taken (WindowSync::base).
// Every edge points to an op no further than `lookahead` ahead, and
// window >= 4 * lookahead, so what an op waits for is always planned.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "replayer/plan/deps.h"
#include "replayer/plan/mapping_tracker.h"
#include "replayer/plan/parking.h"
#include "replayer/plan/plan.h"
#include "replayer/plan/process_tracker.h"
#include "traces/event.h"

namespace fsr {

struct PlanSurvey;  // survey.h

// What the planner and the workers share about the window (engine.cpp).
struct WindowSync {
  // `records`: a result record per slot, which the engine's workers write;
  // predict's simulators keep their own (rec stays empty).
  explicit WindowSync(uint64_t slots, bool records = true);
  uint64_t slots;
  // Per slot, all monotone (no reset, so waits never miss a change):
  std::unique_ptr<std::atomic<uint64_t>[]> done;     // index + 1 of the last op completed in it
  std::unique_ptr<std::atomic<uint64_t>[]> done_ns;  // that op's completion (ns since start) + 1
  std::unique_ptr<std::atomic<uint64_t>[]> ready;    // index + 1 once that op's plan is final
  std::unique_ptr<std::atomic<uint32_t>[]> worker;   // the worker of the op planned in it
  std::vector<OpRecord> rec;                         // its result
  std::atomic<uint64_t> planned{0};                  // ops [0, planned) are in the window (| kPlannedEnd: all of them)
  std::atomic<uint64_t> base{0};                     // ops [0, base) ran and their records were taken
  // Where workers sleep: on an op's completion (key: the op), on its plan
  // becoming final (key: the op), on more ops planned (key 0).
  ParkingLot done_lot, ready_lot, planned_lot;
  // The engine's workers, and how many have run out of ops. When every one
  // still running waits for another op's completion, none can come: the
  // plan's edges form a cycle (a crafted or damaged trace), and the watchdog
  // releases every dependency wait for the rest of the run; a stop does too.
  uint32_t workers = 0;
  std::atomic<uint32_t> finished{0};
  std::atomic<bool> deps_released{false};
  // Threads wait on `planned` and `ready` (the engine's workers): the planner
  // unparks them. false: nobody waits (predict's simulators, in the
  // planner's thread), and an unpark per op is a fence for nothing.
  bool waiters = true;
};

// Ops in the window by default (~350 bytes a slot: ~45 MiB); how far a
// waiter looks ahead for its waker is a quarter of it.
inline constexpr uint64_t kDefaultWindow = 1u << 17;
// The window a request gets (replay --window, predict --window): a power of
// two of at least 1,024 ops; 0 is the default.
uint64_t plan_window(uint64_t requested);
// `window` (a plan_window) cut down to what a trace of `events` needs: the
// smallest power of two of at least 1,024 whose quarter (the lookahead)
// still holds the whole trace, so that every wait finds its waker in it and
// the plan is the same as in `window`, with less memory to set up.
uint64_t fit_window(uint64_t window, uint64_t events);

inline constexpr uint64_t kPlannedEnd = 1ull << 63;  // WindowSync::planned: the trace's end is planned
inline constexpr uint32_t kMaxEdgesPerOp = 4096;     // more are dropped (counted): the arena's reserve

class PlanStream {
 public:
  // survey == nullptr: the survey pass itself (no dependencies, no workers;
  // the tables grow). Else the replay pass: tables sized and threads, workers,
  // devices and exit holds taken from the survey. sync == nullptr: nothing runs
  // while planning (build_plan, the survey).
  PlanStream(const PlanInputs& in, StringLookup str, const PlanSurvey* survey, uint64_t window, uint64_t lookahead,
             WindowSync* sync);
  ~PlanStream();

  Plan& plan() { return plan_; }
  const OpFacts& facts(uint64_t i) const { return facts_[i & plan_.op_mask]; }
  // The next op fits: its slot is free and the arenas have their reserve.
  bool room() const;
  void add(const Event& e);
  void finish();  // end of the trace: every op final (and the waiters woken)
  // Wakes the workers parked on what was planned or made final since the
  // last wake. add() publishes each op at once but wakes only every
  // kWakeEvery ops: a caller that stops adding (no room, a batch done) calls
  // this, or a worker may sleep on an op that is there.
  void wake();
  uint64_t lookahead() const { return lookahead_; }
  ProcessTracker& processes() { return procs_; }

 private:
  // The per-syscall planning (syscall_actions.cpp), one family of calls each.
  struct SyscallCtx;  // syscall_actions.h
  void plan_syscall(uint64_t i);
  void place_in_thread(const Event& e, PlanOp& op, TidState& st);
  bool plan_operands(SyscallCtx& c);  // false: refused before any lookup (emulated)
  void plan_namespace_change(SyscallCtx& c);
  bool plan_fd_table_call(SyscallCtx& c);  // syscall_actions_fds.cpp; false: not of the family
  void plan_fd_pair(SyscallCtx& c);        // syscall_actions_fds.cpp
  bool plan_process_call(SyscallCtx& c);   // syscall_actions_procs.cpp
  bool plan_memory_call(SyscallCtx& c);    // syscall_actions_procs.cpp
  bool plan_data_call(SyscallCtx& c);
  void plan_other_call(SyscallCtx& c);
  void record_facts(SyscallCtx& c);
  void set_closes(PlanOp& op, const std::vector<uint32_t>& closed);
  bool is_file(uint32_t ofd) const;
  void fd_op_action(PlanOp& op) const;
  void publish(uint64_t i);
  void make_final(uint64_t i);
  bool delayed(uint64_t i) const;

  PlanInputs in_;
  StringLookup str_;
  const PlanSurvey* survey_;
  WindowSync* sync_;
  uint64_t lookahead_;
  Plan plan_;
  std::vector<OpFacts> facts_;
  ProcessTracker procs_;
  MappingTracker maps_;
  std::unique_ptr<DepTracker> deps_;
  std::deque<uint64_t> delayed_;
  std::vector<uint32_t> closed_;                      // reused per op
  std::unordered_map<uint32_t, uint32_t> fifo_chan_;  // a named FIFO's path -> its channel
  uint32_t fifo_chan(uint32_t path) {                 // that channel, made at the FIFO's first sight
    auto [c, fresh] = fifo_chan_.try_emplace(path, 0);
    if (fresh) c->second = procs_.new_chan();
    return c->second;
  }
  // Published since the last wake: ops made final (their ready keys), and
  // whether more were planned. A wake is a full fence, which waits for the
  // op's stores into the window (cache misses): per op it was two thirds of
  // add()'s own time.
  static constexpr size_t kWakeEvery = 64;
  std::vector<uint64_t> unwoken_;
  size_t planned_unwoken_ = 0;
};

}  // namespace fsr
