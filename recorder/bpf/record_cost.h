// SPDX-License-Identifier: Apache-2.0
// What the live recorder adds to the timings it records, measured on this
// machine before the workload starts (docs/design.md "The replay clock").
//
// A recorded gap (one call's exit timestamp to the thread's next enter
// timestamp) holds the workload's compute and the kernel's entry and exit
// paths, but also recorder work: the tail of sys_exit after its timestamp
// (publishing the record), tracepoint dispatch and sys_enter before its
// timestamp, and the drain competing for the CPUs and caches. A recorded
// duration holds sys_exit's record building. Replay must not replay either.
//
// The calibration: a child runs loops of known call shapes (fstat, stat of a
// path, open + close, pread, getdents, pwrite, and an unrecorded getppid
// between two fstats), each call after a fixed compute loop, timing every
// call and every gap with its own clock. It runs twice untracked and twice
// tracked by the live session, alternately, while the caller's lanes are
// drained and decoded as the real drain does. Per call shape:
//   gap added  = median recorded gap - median untracked user gap - syscall round trip
//   dur added  = median recorded duration - (median untracked user duration - round trip)
// (the round trip, getppid timed as the replayer times it, is the kernel
// entry and exit that an untraced in-kernel gap would hold). Classes the
// shapes do not cover get the median of those that are measured.
//
// User page faults lie in the gaps too: what their programs cost is
// measured after the call shapes (fault_cost.h) into RecordCost::fault_ns.
//
// Must run before the workload is tracked: every record it drains is taken
// as the calibration child's, and none reaches the trace.
#pragma once

#include <cstdint>
#include <string>

#include "recorder/bpf/bpf_session.h"
#include "recorder/core/ring_merger.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct RecordCostRun {
  RecordCost cost;          // present = false when the calibration failed
  KernelCounters counters;  // what the calibration added to the session's counters
  std::string warning;      // why it failed (one line), empty otherwise
};

// Iterations per call shape and pass (tests use fewer).
inline constexpr uint32_t kRecordCostIterations = 600;

// Runs the calibration against the live `session`, whose records reach
// `merger` (BpfSession::open's callback). Takes a few tens of ms. A failure
// is not an error for the recording: the trace then replays without the
// correction, and `warning` says why.
RecordCostRun measure_record_cost(BpfSession& session, RingMerger& merger, uint32_t iterations = kRecordCostIterations);

// KernelCounters `a` less `b` (the footer leaves the calibration's calls out).
void subtract_counters(KernelCounters& a, const KernelCounters& b);

}  // namespace fsr
