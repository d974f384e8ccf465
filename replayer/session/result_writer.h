// SPDX-License-Identifier: Apache-2.0
// The result file of a streaming replay (PayloadKind::kResult), written as
// the records come: to a spool file beside it under a provisional header,
// then, once the totals the header's options hold are known, copied chunk by
// chunk under the final header. Memory: the writer's strings (the paths) and
// the summary's tallies, never the records. Also tallies the summary.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "replayer/plan/plan.h"
#include "replayer/session/replay_types.h"
#include "replayer/session/replay_summary.h"
#include "traces/in_flight.h"
#include "traces/trace_writer.h"

namespace fsr {

class ResultWriter {
 public:
  // `out`: the result's path; `header`: the provisional header (kind kResult);
  // `trace_str`: the trace's strings (its reader's), by id.
  static Result<std::unique_ptr<ResultWriter>> create(const std::string& out, const TraceHeader& header,
                                                      StringLookup trace_str);
  ~ResultWriter();
  // One op, in event order; `path` its recorded path's id in the trace (kNoStr: none).
  Status add(OpRecord r, const Event& e, const PlanOp& op, StrId path);
  // Counts, divergences and overlaps into `sum` (plus what the plan counted).
  void tally(ReplaySummary& sum, double max_divergence_pct) const;
  double recorded_overlap() { return rec_.finish(); }
  double replayed_overlap() { return rep_.finish(); }
  // Writes the final file under `header` with `footer`, removes the spool.
  Status finish(const TraceHeader& header, const TraceFooter& footer);
  const std::string& current() const { return current_; }  // the program exec'd last among the ops written

 private:
  ResultWriter() = default;
  std::string out_, spool_;
  std::unique_ptr<TraceWriter> w_;
  StringLookup trace_str_;
  std::vector<StrId> ids_;  // trace id -> the result's (kNoStr: not interned yet)
  ReplaySummary sum_;
  DivergenceTally div_;
  InFlightMeter rec_, rep_;
  std::string current_;
};

}  // namespace fsr
