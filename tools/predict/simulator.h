// The replay as a discrete-event simulation: the plan's workers issue their
// ops in order, each op after its think time (the corrected gap) and its
// dependencies, exactly as run_engine's think mode does (engine.cpp: first
// ops of created threads, page faults that use their own gap, fork/exec
// time carried as compute, held exits, the syscall round trip paid back from
// later gaps), with each issued op's latency from OpCost instead of a
// syscall. No contention between ops is modelled: the mount answers each op
// in its measured time whatever else is in flight.
//
// Ops are taken in index order among the workers that can run (a min-heap of
// workers keyed by their next op); a worker whose next op waits for a
// dependency not yet simulated sleeps on that op's waiter list. Per-op state
// lives in an OpWindow and is released once far behind, so the memory of
// the simulation itself grows with concurrency and the window, not with the
// trace. Output: one OpRecord per op, filled as the engine fills it, which
// the report's tables and critical path read unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/predict/op_cost.h"
#include "tools/predict/plan_view.h"
#include "tools/predict/think_time.h"
#include "traces/event.h"

namespace fsr {

struct SimOptions {
  GapCorrection gap;
  uint64_t window_ops = 1u << 20;  // op states kept behind the oldest pending op
};

struct SimStats {
  uint64_t wall_ns = 0;
  uint64_t ops = 0;
  uint64_t issued = 0;
  uint64_t forced = 0;          // ops run with a dependency never simulated (a plan that could deadlock)
  uint64_t window_lookups = 0;  // dependencies answered from beyond the window (an upper bound)
  uint64_t window_bytes = 0;    // the window's size at its largest
};

// Simulates the whole plan. `out`, when given, is resized to one OpRecord per op.
SimStats simulate(const PlanView& view, OpCost& cost, const SimOptions& opt, std::vector<OpRecord>* out);

}  // namespace fsr
