// SPDX-License-Identifier: Apache-2.0
// ResultSet: one replay result held in memory (header, footer, ops and the
// strings its ops name). Built by load_result() from a result file or
// directly by tests; reports read files through summarize_result() instead
// (result_summary.h), which never holds the ops. Pure data plus small
// accessors; it never touches the file system after loading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/event.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

// What every report names a result by, whatever holds its ops.
struct ResultMeta {
  std::string file;  // where it was loaded from ("" in memory)
  TraceHeader header;
  std::optional<TraceFooter> footer;  // absent: the replay did not finish writing
  std::vector<std::string> problems;  // one line each, from the reader
  bool complete = true;               // false: truncated or damaged file
  // Set beside results of another trace, allowed (same_trace.h): its
  // columns are labelled a different workload.
  bool different_trace = false;
  // A recording (a trace given where a result goes): its ops are the
  // recorded calls, their durations what that run cost its mount; wall is
  // the recording's span. Its header names itself as the trace (source_trace,
  // source_trace_id) and its root as the target.
  bool recording = false;

  // Footer wall time, or `last_end` (the last op's end) when that is later (or no footer).
  uint64_t wall_ns_with(uint64_t last_end) const;
  // environment_json's mount.kind ("9p-drvfs", "virtiofs", "ext4"), "" if unknown.
  std::string mount_kind() const;
  // "TARGET (KIND)", or the file name when the header names no target.
  std::string label() const;
  // Short column header: the mount kind, else the target's last component.
  std::string short_label() const;
};

struct ResultSet : ResultMeta {
  std::vector<OpRecord> ops;
  std::unordered_map<StrId, std::string> strings;  // ids used by ops

  std::string_view str(StrId id) const;
  uint64_t wall_ns() const;
};

// Reads a whole result file, or a trace as a recording (ResultMeta::recording).
// Fails for a missing file, a profile, or an unreadable header; a truncated or damaged file
// loads what is readable and sets complete = false with problems listed.
Result<ResultSet> load_result(const std::string& path);

// A result file's name and header only (no op is read): what
// check_same_trace (same_trace.h) needs before a long read. Fails as
// load_result() does.
Result<ResultMeta> read_result_meta(const std::string& path);

// Indices of `ops` in event order (ties keep their order): reports feed ops
// in the order the trace recorded them. No sort when they already are (a
// replay writes them so, and predict's are indexed by event).
std::vector<size_t> event_order(const std::vector<OpRecord>& ops);

}  // namespace fsr
