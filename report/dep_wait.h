// SPDX-License-Identifier: Apache-2.0
// Where a replay's workers waited on each other: the wall time ops spent
// blocked on cross-thread dependencies, by the kind of the dependency that
// released them last (traces/event.h DepKind, kept in each op's flags), and
// how much the replay's calls overlapped against the original's. On a slow
// mount an ordering the original did not need turns into waiting: this is
// where it shows (docs/design.md "Ordering", ROOT/ARTC resource ordering).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "report/result_set.h"
#include "traces/in_flight.h"
#include "traces/event.h"

namespace fsr {

struct DepWaitRow {
  DepKind kind = DepKind::kNone;
  uint64_t ops = 0;      // ops that waited, released last by this kind
  uint64_t wait_ns = 0;  // their summed waits
};

struct DepWaitSummary {
  std::vector<DepWaitRow> rows;  // kinds with a wait, largest first
  uint64_t wait_ns = 0;          // all ops' waits
  uint64_t worker_ns = 0;        // workers x wall: what the waits are a share of
  // Mean number of issued calls in flight while any is. The replay's comes
  // from its ops; the original's from the result's options ("overlap"),
  // which replay writes (absent in older results).
  std::optional<double> overlap_replayed, overlap_recorded;
};

// Fed one op at a time in event order (a result file's order), in memory
// bounded by the in-flight window, not by the result's length.
class DepWaitAccumulator {
 public:
  void add(const OpRecord& r);
  DepWaitSummary finish(const TraceHeader& header, uint64_t wall_ns);

 private:
  std::array<DepWaitRow, static_cast<size_t>(DepKind::kCount)> by_{};
  uint64_t wait_ns_ = 0;
  uint32_t workers_ = 0;
  InFlightMeter in_flight_;
};

}  // namespace fsr
