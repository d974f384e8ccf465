// The comparison model: several results of the same trace on different mounts,
// one column each; rows are wall time and per-class summed latency, with
// ratios against the first column (the shape of reference/measurements.md's
// first table). Pure: no I/O, no formatting.
#pragma once

#include <vector>

#include "tools/report/critical_path.h"
#include "tools/report/report.h"
#include "tools/report/result_set.h"
#include "tools/report/result_summary.h"
#include "tools/report/stats.h"

namespace fsr {

struct CompareColumn {
  RunInfo run;
  ResultStats stats;
  PathAttribution path;
  DepWaitSummary dep_wait;
};

// The behaviour diff: where recordings of one workload (made on different
// mounts) did different work, in calls per class, process or directory. A
// row is kept when some recording's count differs from the first
// recording's by at least kBehaviourMinCalls and kBehaviourMinShare of it:
// there a replay of one recording would not send what a run on the other
// mount sends (issue 41: git re-reads racily clean files on a slow mount,
// `ls -l` stops its xattr probes after the first EOPNOTSUPP).
struct BehaviourRow {
  std::string kind;             // "class", "process", "directory"
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
  bool behaviour_compared = false;  // two recordings or more were compared
};

// The behaviour diff of `c`'s recording columns (sets c.behaviour*).
void diff_behaviour(Comparison& c);

Comparison compare_summaries(const std::vector<const ResultSummary*>& results);
// The same over results held in memory (tests).
Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt = {});

}  // namespace fsr
