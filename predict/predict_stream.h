// SPDX-License-Identifier: Apache-2.0
// predict's two passes over a trace, as a replay makes them (replay.cpp):
// the survey (survey.h: threads, workers, table sizes), then the streaming
// planner (plan_stream.h) filling a window that one simulator per column
// (simulator.h) runs as its ops become final -- no threads: planning,
// simulating and taking records alternate. A slot of the window is given
// back (WindowSync::base) once every column has taken that op's record;
// records leave in event order, each to its column's sink. Memory: the
// window, the plan's whole-trace tables (paths, threads, mappings, OFDs) and
// what the sinks keep; never the events or the records.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "replayer/plan/plan.h"
#include "replayer/plan/plan_stream.h"
#include "predict/latency_model.h"
#include "predict/op_cost.h"
#include "predict/simulator.h"
#include "traces/event.h"
#include "base/status.h"

namespace fsr {

// The next chunk of a pass over the trace's events; false at its end.
using EventChunks = std::function<Result<bool>(std::vector<Event>&)>;
// A pass over events held in memory, `chunk` at a time (tests, benches).
EventChunks chunks_of(const std::vector<Event>& events, size_t chunk = 4096);

struct StreamColumn {
  const LatencyModel* model = nullptr;   // null: every op its recorded duration
  const PlacedModels* placed = nullptr;  // a placement: each op by its mount's model (model unused)
  uint64_t seed = 0;                     // its latency draws' seed; 0: StreamOptions::seed
  // Each op's record, in event order, with its event and plan (none: its
  // SimStats only).
  std::function<void(const OpRecord&, const Event&, const PlanOp&)> sink;
  SimStats sim;                // out
  CostNotes notes;             // out
  PlacedCounts placed_counts;  // out, with a placement
  ServerTotals server;         // out: the mount's queue (server_queue.h)
};

struct StreamOptions {
  uint64_t window = kDefaultWindow;  // ops in the planner's window (plan_window: a power of two, >= 1,024)
  uint64_t seed = 0x5eed;
  bool cold_start = false;  // caches cold at the start (no prepare just before)
  SimOptions sim;
};

struct StreamStats {
  uint64_t events = 0;
  uint64_t window = 0, lookahead = 0;
  double recorded_overlap = 0;  // the original's calls in flight (replay's options "overlap")
  uint64_t view_bytes = 0;      // the workers' FIFOs at their largest (the plan's rings are fixed by the window)
  uint64_t approx_deps = 0, beyond_window = 0, moves_beyond_window = 0;  // the plan's (plan.h)
  uint64_t survey_ns = 0, plan_ns = 0, simulate_ns = 0, sink_ns = 0;     // CPU time of each phase
};

// Fails on a read error of either pass or a trace of 4G events or more.
Result<StreamStats> simulate_stream(const PlanInputs& in, const StringLookup& str, const EventChunks& survey_pass,
                                    const EventChunks& plan_pass, std::vector<StreamColumn>& columns,
                                    const StreamOptions& opt);

}  // namespace fsr
