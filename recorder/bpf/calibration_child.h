// SPDX-License-Identifier: Apache-2.0
// A calibration child (record_cost.cpp, fault_cost.cpp): forked, tracked by
// the live session or not, started through a pipe once tracked, and drained
// while it runs as the real drain does (every 5 ms, records older than 2 ms
// released), so that what it measures is what a workload meets.
#pragma once

#include <functional>
#include <vector>

#include "recorder/bpf/bpf_session.h"
#include "recorder/core/ring_merger.h"
#include "traces/event.h"
#include "base/status.h"

namespace fsr {

// Runs `child(go)` in a forked child, which must read one byte from `go`
// before its work and _exit (0: it succeeded). When `tracked`, the child is
// tracked before that byte is written and its recorded calls (pseudo events
// left out) are appended to `ev`. An error when the child cannot start, the
// session fails, or the child exits otherwise than with 0.
Status run_calibration_child(BpfSession& session, RingMerger& merger, bool tracked,
                             const std::function<void(int go)>& child, std::vector<Event>& ev);

}  // namespace fsr
