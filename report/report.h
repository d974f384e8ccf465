// SPDX-License-Identifier: Apache-2.0
// The report model: one target result, optionally against a baseline, reduced
// to the rows every renderer prints -- per class totals, ratios and shares of
// the slowdown, the critical-path split of the wall-time difference, and the
// top processes and directories by added time. Pure: no I/O, no formatting.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/critical_path.h"
#include "report/dep_wait.h"
#include "report/histogram.h"
#include "report/result_set.h"
#include "report/result_summary.h"
#include "report/stats.h"

namespace fsr {

struct ReportOptions {
  size_t top = 10;    // rows in the process and directory tables
  int dir_depth = 2;  // directory components below the recorded root
};

// A directory the replay placed on another mount (replay --place; result options "place").
struct PlacedInfo {
  std::string subdir, other, fs_type;
  bool same_mount = false;
};

struct RunInfo {            // one result as the report names it
  std::string label;        // "TARGET (KIND)"
  std::string short_label;  // "9p-drvfs"
  std::string file;
  std::string target;
  std::string mount_kind;
  uint64_t wall_ns = 0;
  uint64_t ops = 0, skipped = 0, divergent = 0;
  uint64_t divergent_mount = 0;               // of divergent: the mount's own behaviour (divergence_kind.h)
  std::map<std::string, uint64_t> mount_why;  // its reasons -> ops
  bool complete = true;
  std::string source_trace;       // the replayed trace's path, as the result names it
  uint64_t source_trace_id = 0;   // its content id (trace_id.h); 0: unknown
  bool different_trace = false;   // another trace than the reference's, allowed (same_trace.h)
  bool recording = false;         // a trace: its recorded calls and span (ResultMeta::recording)
  bool diverged = false;          // replay marked it diverged (result options)
  double max_divergence_pct = 0;  // the threshold it passed
  std::vector<std::string> problems;
  std::optional<AddressSpaceFigures> address_space;  // from the result, when it has them
  std::vector<PlacedInfo> placement;                 // replay --place: where its directories were
};

struct ClassRow {
  SyscallClass cls{};
  LogHistogram target;
  LogHistogram baseline;                 // empty without a baseline
  int64_t added_ns = 0;                  // target.sum - baseline.sum
  std::optional<double> ratio;           // target.sum / baseline.sum (baseline sum > 0)
  std::optional<double> share_of_added;  // added_ns / sum of all classes' added_ns
  uint64_t path_ns = 0;                  // on the target's critical path
  uint64_t baseline_path_ns = 0;
  std::optional<double> share_of_slowdown;  // path delta / wall delta
  std::optional<double> share_of_wall;      // path_ns / target wall
};

struct GroupRow {  // a process name or a directory subtree
  std::string key;
  LogHistogram target;
  LogHistogram baseline;
  int64_t added_ns = 0;  // target.sum - baseline.sum (target.sum alone without baseline)
  std::optional<double> share_of_added;
};

struct Report {
  RunInfo target;
  std::optional<RunInfo> baseline;
  PathAttribution target_path, baseline_path;
  std::optional<WallSplit> split;  // with a baseline
  std::vector<ClassRow> classes;   // classes seen in either result, in class order
  DepWaitSummary dep_wait;         // where the target's workers waited on each other
  std::optional<DepWaitSummary> baseline_dep_wait;
  std::vector<GroupRow> processes;             // top N by added time
  std::vector<GroupRow> dirs;                  // top N by added time
  size_t processes_total = 0, dirs_total = 0;  // groups before the top-N cut
  int dir_depth = 2;
};

RunInfo run_info(const ResultSummary& rs);
// "clone/.git on /mnt/fast/git (ext4)", "; " between; "" without placement.
std::string describe_placement(const std::vector<PlacedInfo>& placement);
Report build_report(const ResultSummary& target, const ResultSummary* baseline, const ReportOptions& opt = {});
// The same over results held in memory (tests).
Report build_report(const ResultSet& target, const ResultSet* baseline, const ReportOptions& opt = {});

}  // namespace fsr
