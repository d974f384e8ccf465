// SPDX-License-Identifier: Apache-2.0
// The replay as a discrete-event simulation: the plan's workers issue their
// ops in order, each op after its think time (the corrected gap) and its
// dependencies, exactly as the engine's think mode does (engine.cpp: first
// ops of created threads, page faults that use their own gap, fork/exec
// time carried as compute, held exits, the syscall round trip paid back from
// later gaps), with each issued op's latency from OpCost instead of a
// syscall. Ops that reach the mount queue for its slots and its bandwidth
// where the profile has a server model (server_queue.h, in OpCost); each
// op's chain (the op or worker that released it, back to the start) keeps
// the queue's wait along it, so that the critical path's share of queueing
// is known at the end.
//
// It runs on the streaming planner's window (window_view.h) while the trace
// is planned into it: step() takes ops in index order among the workers that
// can run (a min-heap of workers keyed by their next op) and stops at the
// first whose plan is not final yet, so that the order -- and with it every
// latency drawn -- is the one a whole plan gives. A worker whose next op
// waits for a dependency not yet simulated sleeps on that op's waiter list.
// Per-op state lives in an OpWindow released once far behind, and each op's
// OpRecord in a ring of the window's size until the driver takes it
// (record()): memory grows with concurrency and the window, never with the
// trace.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "replayer/engine/engine.h"
#include "predict/op_cost.h"
#include "predict/op_window.h"
#include "predict/window_view.h"
#include "traces/event.h"

namespace fsr {

struct SimOptions {
  // What think time takes out of the recorded gaps, as the replay does
  // (engine.h less_recording): the recorder's parts only, a simulation has
  // no replayer cost. predict fills it from the trace.
  ThinkClock clock;
  // Op states kept behind the oldest pending op; 0: the planner's window
  // (every dependency is at most that far back, plan_stream.h: exact).
  uint64_t window_ops = 0;
};

struct SimStats {
  uint64_t wall_ns = 0;
  uint64_t ops = 0;
  uint64_t issued = 0;
  uint64_t forced = 0;          // ops run with a dependency never simulated (a plan that could deadlock)
  uint64_t window_lookups = 0;  // dependencies answered from beyond the window (an upper bound)
  uint64_t window_bytes = 0;    // its op states, records and heap at their largest
  uint64_t queue_wait_ns = 0;   // every op's wait at the mount's server (slots, pipe)
  uint64_t queued_ops = 0;      // ops that waited there
  uint64_t path_queue_ns = 0;   // of it, on the chain of the op that ends last (the critical path)
};

class Simulator {
 public:
  // `slots`: the planner's window (ops held at once).
  Simulator(const WindowView& v, OpCost& cost, const SimOptions& o, uint64_t slots);

  // Runs every op it can. False: none could run.
  bool step();
  // Nothing moves anywhere (the planner neither): runs the lowest waiting op
  // without the dependency it waits for (a plan that could deadlock; the
  // planner's keys forbid it). False: nothing to force.
  bool force_one();

  bool done(uint64_t i) const { return tag_[i & mask_] == i + 1; }
  const OpRecord& record(uint64_t i) const { return rec_[i & mask_]; }
  // Its next position in worker w's FIFO (window_view.h).
  uint64_t pos(uint32_t w) const { return ws_[w].pos; }
  // Op states older than `low` (every op below it taken) may go.
  void release(uint64_t low);
  SimStats stats() const;

 private:
  struct WorkerState {
    uint64_t prev_done = 0;  // completion of its previous op (simulated ns)
    uint64_t debt = 0;       // think time owed back (the syscall round trip, a long fault)
    uint64_t carry = 0;      // think time owed by the previous op (fork/exec, a fault's rest)
    uint64_t pos = 0;        // next position in its FIFO
    uint64_t path_wait = 0;  // queue wait on its previous op's chain
    uint32_t blocked_on = OpWindow::kNone;
    uint32_t next_waiter = OpWindow::kNone;
    bool queued = false;  // in the heap
  };
  using Item = std::pair<uint32_t, uint32_t>;  // (next op index, worker)

  void push(uint32_t w);
  void unlink_waiter(uint32_t w);
  void wake(uint32_t i);
  uint64_t pay(WorkerState& s, uint64_t gap);
  bool run_op(uint32_t i, uint32_t w, bool force);
  uint64_t wake_after(const Event& e, uint32_t dep) const;
  void count_op(WorkerState& s, bool issued, uint64_t end, uint32_t from, bool first);

  const WindowView& v_;
  OpCost& cost_;
  const SimOptions opt_;
  std::vector<WorkerState> ws_;
  std::vector<Item> heap_;
  OpWindow win_;
  std::vector<OpRecord> rec_;
  std::vector<uint64_t> tag_;      // per slot: index + 1 of the op whose record it holds
  std::vector<uint64_t> rec_end_;  // per slot: the op's recorded end (ts + dur), for the wakes after it
  uint64_t mask_;
  SimStats st_;
};

}  // namespace fsr
