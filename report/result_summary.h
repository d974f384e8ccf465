// SPDX-License-Identifier: Apache-2.0
// ResultSummary: one replay result reduced to what report and compare print
// (statistics per class, process and directory, the critical path, the
// address-space figures), built while the result is read chunk by chunk:
// memory grows with the result's processes, directories and concurrency,
// never with its length. Histograms merge, so summaries of parts combine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "report/critical_path.h"
#include "report/dep_wait.h"
#include "report/result_set.h"
#include "report/stats.h"
#include "base/status.h"

namespace fsr {

// The replay's own address space, from the result's options (replay.cpp).
struct AddressSpaceFigures {
  uint64_t peak_mappings = 0, peak_spaces = 0, max_map_count = 0, enomem = 0;
};

struct ResultSummary : ResultMeta {
  ResultStats stats;
  PathAttribution path;
  uint64_t last_end = 0;  // the last op's end
  std::optional<AddressSpaceFigures> address_space;
  DepWaitSummary dep_wait;  // where its workers waited on each other

  uint64_t wall_ns() const { return wall_ns_with(last_end); }
};

// Feeds ops in event order; finish() once.
class SummaryBuilder {
 public:
  SummaryBuilder(ResultMeta meta, const StatsOptions& opt);
  void add(const OpRecord& op, size_t position, std::string_view path);
  // The same, with the op's path string looked up only where it is needed.
  void add(const OpRecord& op, size_t position, const std::function<std::string_view(StrId)>& path_of);
  ResultMeta& meta() { return sum_; }  // its footer and problems, known once every chunk is read
  ResultSummary finish();

 private:
  void add_times(const OpRecord& op, size_t position);  // all but the statistics
  ResultSummary sum_;
  StatsAccumulator stats_;
  CriticalPathBuilder path_;
  DepWaitAccumulator dep_wait_;
};

ResultSummary summarize(const ResultSet& rs, const StatsOptions& opt = {});

// Called as a file is read: records so far, and the file's total (0: unknown).
using ReadProgress = std::function<void(uint64_t done, uint64_t total)>;

// Reads a result file chunk by chunk into a summary. Fails as load_result()
// does; a truncated or damaged file gives what is readable, complete = false.
Result<ResultSummary> summarize_result(const std::string& path, const StatsOptions& opt = {},
                                       const ReadProgress& progress = {});

}  // namespace fsr
