// SPDX-License-Identifier: Apache-2.0
// Latency statistics of one result: per syscall class, per process name (the
// build's tools: node, git, cc ...) and per directory subtree. Pure functions
// over a loaded ResultSet; histograms merge, so results can be combined.
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/divergence_kind.h"
#include "report/histogram.h"
#include "report/result_set.h"
#include "traces/syscalls.h"

namespace fsr {

struct StatsOptions {
  int dir_depth = 2;  // directory components kept below the recorded root
};

struct ResultStats {
  std::array<LogHistogram, kClassCount> by_class;
  std::map<std::string, LogHistogram> by_process;
  std::map<std::string, LogHistogram> by_dir;
  uint64_t ops = 0;             // all ops in the result
  uint64_t skipped = 0;         // kOfSkipped: not issued, not in any histogram
  uint64_t divergent = 0;       // kOfDivergent
  DivergenceCounts divergence;  // the divergent ops by kind (replayer / mount behaviour)
};

ResultStats compute_stats(const ResultSet& rs, const StatsOptions& opt = {});

// Names processes as ops go by in event order (see name_processes): a pid is
// named by the basename of what its latest exec ran; the initial process by
// the recorded command's argv[0]; any other pid before its exec "(unknown)".
class ProcessNamer {
 public:
  explicit ProcessNamer(const TraceHeader& header);
  // The name index of `op`'s process; `path` is the op's path (an exec's file).
  uint32_t name(const OpRecord& op, std::string_view path);
  const std::vector<std::string>& names() const { return names_; }

 private:
  uint32_t intern(std::string_view name);
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> index_;
  std::unordered_map<uint32_t, uint32_t> of_pid_;   // pid -> name index
  uint32_t last_pid_ = 0, last_name_ = UINT32_MAX;  // the latest answer (UINT32_MAX: none)
};

// compute_stats one op at a time, in event order (a result file's order):
// memory grows with the distinct processes, directories and paths, not the ops.
class StatsAccumulator {
 public:
  StatsAccumulator(const TraceHeader& header, const StatsOptions& opt = {});
  void add(const OpRecord& op, std::string_view path);  // path: the op's first path, "" if none
  // The same, with the op's path looked up only when it is needed: an exec,
  // or a path string not met before (most ops repeat one).
  void add(const OpRecord& op, const std::function<std::string_view(StrId)>& path_of);
  ResultStats finish();

 private:
  template <typename PathOf>
  void add_op(const OpRecord& op, const PathOf& path_of);
  uint32_t& dir_slot(StrId path);

  ResultStats st_;
  ProcessNamer namer_;
  std::string root_;
  int depth_;
  std::vector<LogHistogram> by_name_;
  std::vector<std::string> dir_names_;
  std::vector<LogHistogram> by_dir_;
  std::unordered_map<std::string, uint32_t> dir_index_;
  // Per path string: its directory's index (kNoDir: not met yet); by id up
  // to kDenseIds (a string table's ids are dense), beyond that (a damaged
  // result's) in the map.
  static constexpr uint32_t kNoDir = UINT32_MAX;
  static constexpr StrId kDenseIds = 1u << 24;
  std::vector<uint32_t> dir_of_path_;
  std::unordered_map<StrId, uint32_t> dir_of_far_path_;
};

// Process name of every op (index-aligned with rs.ops). A pid is named by the
// basename of the file its latest earlier kEvProcExec op executed (in trace
// order); the initial process by the recorded command's argv[0]; any other pid
// seen before its exec is "(unknown)".
struct ProcessNaming {
  std::vector<std::string> names;  // distinct names
  std::vector<uint32_t> op_name;   // per op: index into names
};
ProcessNaming name_processes(const ResultSet& rs);
std::vector<std::string> process_names(const ResultSet& rs);  // the same, spelled out per op

// Directory key of an absolute path: its parent directory's components below
// `root`, cut to `depth` ("node_modules/react"); "." for the root itself;
// paths outside the root keep a leading '/' ("/usr/lib"); "" path -> "(no path)".
std::string dir_key(std::string_view path, std::string_view root, int depth);

}  // namespace fsr
