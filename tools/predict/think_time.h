// Think time as the replay sleeps it: the one place predict turns a recorded
// gap into the compute time before an op. Today that is the plan's gap
// (PlanOp::gap: the thread's previous end to this enter). The replay-clock
// work (issue 14) adds a record-cost correction stored in the trace header
// and takes the replayer's own per-op cost out of the gaps; once it lands,
// corrected_gap() applies the same correction and nothing else changes.
#pragma once

#include <cstdint>

#include "replayer/plan.h"
#include "traces/event.h"

namespace fsr {

struct GapCorrection {
  uint64_t record_cost_ns = 0;    // recorder's cost per recorded event (trace header, when it has one)
  uint64_t replayer_cost_ns = 0;  // replayer's per-op cost taken out of the gaps
};

inline uint64_t corrected_gap(const PlanOp& op, const Event& /*e*/, const GapCorrection& c) {
  const uint64_t cost = c.record_cost_ns + c.replayer_cost_ns;
  return op.gap > cost ? op.gap - cost : 0;
}

}  // namespace fsr
