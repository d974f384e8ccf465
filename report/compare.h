// SPDX-License-Identifier: Apache-2.0
// The comparison model: several results of the same trace on different mounts,
// one column each; rows are wall time and per-class summed latency, with
// ratios against the first column (the shape of the seeds'
// published WSL table). Pure: no I/O, no formatting.
#pragma once

#include <vector>

#include "report/critical_path.h"
#include "report/report.h"
#include "report/result_set.h"
#include "report/result_summary.h"
#include "report/run_spread.h"
#include "report/stats.h"

namespace fsr {

// A mount's column. With several runs (compare --runs), run, stats, path
// and dep_wait are those of its median run (by wall time), and walls_ns and
// class_ns hold every run's, for the intervals (run_spread.h).
struct CompareColumn {
  RunInfo run;
  ResultStats stats;
  PathAttribution path;
  DepWaitSummary dep_wait;
  std::vector<double> walls_ns;                           // per run
  std::vector<std::array<double, kClassCount>> class_ns;  // per run: each class's summed latency
};

// The behaviour diff: where recordings of one workload (made on different
// mounts) did different work, in calls per class, process or directory. A
// row is kept when some recording's count differs from the first
// recording's by at least kBehaviourMinCalls and kBehaviourMinShare of it:
// there a replay of one recording would not send what a run on the other
// mount sends (issue 41: git re-reads racily clean files on a slow mount,
// `ls -l` stops its xattr probes after the first EOPNOTSUPP).
struct BehaviourRow {
  std::string kind;  // "class", "process", "directory"
  std::string key;
  std::vector<uint64_t> calls;  // per column (0 for a column that is no recording)
};
inline constexpr uint64_t kBehaviourMinCalls = 20;
inline constexpr double kBehaviourMinShare = 0.10;
inline constexpr size_t kBehaviourMaxRows = 20;

struct Comparison {
  std::vector<CompareColumn> columns;
  std::vector<SyscallClass> classes;  // classes with ops in any column, in class order
  // With two recordings or more: the rows above, largest difference first
  // (at most kBehaviourMaxRows), and how many rows passed in all.
  std::vector<BehaviourRow> behaviour;
  size_t behaviour_rows = 0;
  bool behaviour_compared = false;        // two recordings or more were compared
  size_t runs = 1;                        // runs per column (the fewest any column has)
  std::vector<std::string> run_warnings;  // wide spreads, cold first runs (run_spread.h)
};

// The behaviour diff of `c`'s recording columns (sets c.behaviour*).
void diff_behaviour(Comparison& c);

Comparison compare_summaries(const std::vector<const ResultSummary*>& results);
// Several runs per column (each inner vector one mount's runs, in run order).
Comparison compare_runs(const std::vector<std::vector<const ResultSummary*>>& columns);
// The same over results held in memory (tests).
Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt = {});

}  // namespace fsr
