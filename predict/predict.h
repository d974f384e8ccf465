// SPDX-License-Identifier: Apache-2.0
// `fsreplay predict TRACE --profile P...` as a library: reads the trace
// twice, as replay does -- the survey, then the replay's own streaming plan
// (the same ordering and causal waits, in the same window) -- and simulates
// that plan as it is built, once with the trace's recorded durations (the
// "recorded" baseline column) and once per profile, all in the one planning
// pass (predict_stream.h). Each column's records go, in event order, into
// the report's summary (result_summary.h), reduced to its tables
// (build_report / compare_summaries): per class, process and directory, the
// critical-path split of the wall difference, a column per mount. Memory:
// the window and the summaries, as a replay's, whatever the trace's length. Every column is labelled predicted and carries its profile's
// fingerprint. Bad input is normal: a profile that cannot be read is named
// and left out; ops a profile cannot price are counted and named.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predict/placement_column.h"
#include "predict/predict_stream.h"
#include "predict/server_queue.h"
#include "predict/simulator.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/report.h"
#include "base/status.h"

namespace fsr {

struct PredictOptions {
  std::vector<std::string> profiles;
  bool recorded_column = true;  // false: the first profile is the baseline
  StreamOptions stream;         // the window (as replay --window), seed, cold caches, simulator
  ReportOptions report;
  // Simulations of each profile column, each drawing its latencies with
  // another seed: their spread is the profile's sampling noise (one plan
  // serves them all). The first draw's is the column's figures.
  unsigned draws = 3;
  // A column per placement, after the profiles' (placement_column.h).
  std::vector<PlacementRequest> placements;
};

// A profile column's mount as a server: the model simulated (slots 0: the
// profile has none, every request served at once; the sweep left out) and
// what its queue cost.
struct ServerUse {
  ServerModel model;
  uint64_t client_ns = 0;  // each request's part outside the server (server_queue.h)
  ServerTotals totals;
};

// The queue dominates the predicted time when the waits on the critical
// path exceed this share of the wall.
inline constexpr double kQueueDominates = 0.5;
inline bool queue_dominates(const SimStats& s) {
  return s.wall_ns && double(s.path_queue_ns) > kQueueDominates * double(s.wall_ns);
}

struct PredictColumn {
  std::string label;         // "predicted: NAME (KIND)", "recorded: ..."
  std::string profile_file;  // "" for the recorded column
  std::string profile_name;
  std::string fingerprint_json;  // the profile's environment, "" for the recorded column
  std::string probed;            // "2026-12-01 14:02 UTC on HOST, 31 rounds"
  SimStats sim;
  std::vector<std::string> assumptions;  // one line each: what it could not price from the profile
  std::vector<double> draw_walls_ns;     // a profile column's wall per draw (PredictOptions::draws), first = its own
  std::string placement;                 // a placement column's rules ("clone/.git=fast, rest=slow"), else ""
  PlacedCounts placed;                   // its ops per mount (0: the rest), crossing renames
  ServerUse server;                      // profile columns
};

struct Prediction {
  std::string trace;
  uint64_t events = 0;
  std::vector<PredictColumn> columns;  // first = baseline
  Comparison comparison;               // one column each, as `compare` builds it
  std::vector<Report> reports;         // each column after the first against the first
  std::vector<std::string> problems;   // unreadable profiles, trace damage: one line each
  // Calls of the trace that depend on the mount it was recorded on
  // (replayer/plan/speed_hazards.h): predicted as recorded, said once each.
  std::vector<std::string> warnings;
  uint64_t window = 0;      // the planner's, rounded up to a power of two
  uint64_t view_bytes = 0;  // the workers' op lists at their largest
  // CPU time: survey pass (load_ns), planning, the simulators, the summaries, the tables at the end
  uint64_t load_ns = 0, plan_ns = 0, simulate_ns = 0, summary_ns = 0, report_ns = 0;
};

// Fails only when nothing can be predicted (no readable trace, no column).
Result<Prediction> run_predict(const std::string& trace_path, const PredictOptions& opt);

// Output: text, JSON ("fsreplay.predict/1") or HTML; perfetto is refused.
Result<std::string> render_prediction(const Prediction& p, OutputFormat format, const ReportOptions& opt);

}  // namespace fsr
