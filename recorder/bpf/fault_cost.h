// SPDX-License-Identifier: Apache-2.0
// What a tracked task's user page fault costs under the recorder, measured
// at record time (docs/design.md "The replay clock"; README "Figures").
//
// User page faults lie in the recorded gaps, and every one of a tracked task
// runs the fault programs (bpf/page_fault_user.bpf.c, record_fault.bpf.h):
// on_fault always, the page cache's programs on a file fault, which records
// it or finds the file in fault_skip. Three tracked calibration children
// touch pages, each kind in a pass of its own, while the fault programs time
// themselves (BpfSession::time_fault_programs): the first touch of each page of an
// anonymous mapping (a write: the heap's faults), and one read touch per
// fault-around window of a cached file mapped anew each round, on a file
// whose faults are recorded and on one that fault_skip leaves out (as a file
// outside the root is once the drain knows it). The programs' time per touch
// is each kind's cost; a pass of no touches first gives what a child's own
// start and exit run of them, taken out of each. The kernel's dispatch to the
// programs is not in their run time, so the figures are a lower bound. The
// kernel's BPF run-time stats are not used: they need CAP_SYS_ADMIN, and
// turning them on patches a static key machine-wide, which soft-locks a 6.1
// guest under TCG. Timing touches with and without the recorder cannot
// resolve it either: a fault costs a few µs and the programs tens to hundreds
// of ns, so the difference of medians is calibration noise.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "recorder/bpf/bpf_session.h"
#include "recorder/core/ring_merger.h"
#include "traces/trace_model.h"

namespace fsr {

struct FaultCostRun {
  std::array<uint32_t, RecordCost::kFaultKinds> ns{};  // RecordCost::fault_ns
  bool measured = false;                               // false: a pass failed
  bool skipped_measured = false;  // false: `dir` has no inode generations (tmpfs); ns[skipped] = ns[anon]
};

// Touches per kind.
inline constexpr uint32_t kFaultTouches = 2048;

// Runs the passes against the live `session`, with two 1 MiB files in `dir`
// (removed after). Must run before the workload is tracked, as record_cost.h's
// calibration (whose counters then include these children's).
FaultCostRun measure_fault_cost(BpfSession& session, RingMerger& merger, const std::string& dir);

// What the fault programs added to the recorded gaps: every user fault at
// the anonymous cost, each recorded file fault and each skipped one at what
// it costs more (RecordCost::fault_ns); 0 when the costs were not measured.
uint64_t fault_cost_ns(const RecordCost& c, uint64_t user_faults, uint64_t records, uint64_t skips);

}  // namespace fsr
