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

struct Comparison {
  std::vector<CompareColumn> columns;
  std::vector<SyscallClass> classes;  // classes with ops in any column, in class order
};

Comparison compare_summaries(const std::vector<const ResultSummary*>& results);
// The same over results held in memory (tests).
Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt = {});

}  // namespace fsr
