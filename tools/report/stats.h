// Latency statistics of one result: per syscall class, per process name (the
// build's tools: node, git, cc ...) and per directory subtree. Pure functions
// over a loaded ResultSet; histograms merge, so results can be combined.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tools/report/divergence_kind.h"
#include "tools/report/histogram.h"
#include "tools/report/result_set.h"
#include "traces/syscalls.h"

namespace fsr {

struct StatsOptions {
  int dir_depth = 2;  // directory components kept below the recorded root
};

struct ResultStats {
  std::array<LogHistogram, kClassCount> by_class;
  std::map<std::string, LogHistogram> by_process;
  std::map<std::string, LogHistogram> by_dir;
  uint64_t ops = 0;        // all ops in the result
  uint64_t skipped = 0;    // kOfSkipped: not issued, not in any histogram
  uint64_t divergent = 0;  // kOfDivergent
  DivergenceCounts divergence;  // the divergent ops by kind (replayer / mount behaviour)
};

ResultStats compute_stats(const ResultSet& rs, const StatsOptions& opt = {});

// Process name of every op (index-aligned with rs.ops). A pid is named by the
// basename of the file its latest earlier kEvProcExec op executed (in trace
// order); the initial process by the recorded command's argv[0]; any other pid
// seen before its exec is "(unknown)".
struct ProcessNaming {
  std::vector<std::string> names;   // distinct names
  std::vector<uint32_t> op_name;    // per op: index into names
};
ProcessNaming name_processes(const ResultSet& rs);
std::vector<std::string> process_names(const ResultSet& rs);  // the same, spelled out per op

// Directory key of an absolute path: its parent directory's components below
// `root`, cut to `depth` ("node_modules/react"); "." for the root itself;
// paths outside the root keep a leading '/' ("/usr/lib"); "" path -> "(no path)".
std::string dir_key(std::string_view path, std::string_view root, int depth);

}  // namespace fsr
