// SPDX-License-Identifier: Apache-2.0
// What `fsreplay inspect` shows: one sequential pass over a trace or result
// file, summarised (counts by class and syscall, processes, drops, size,
// time span, damage found). Streaming: memory does not grow with the file.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "traces/trace_model.h"
#include "traces/trace_reader.h"

namespace fsr {

struct TraceSummary {
  std::string path;
  TraceHeader header;
  std::optional<TraceFooter> footer;
  uint64_t records = 0;
  uint64_t file_bytes = 0;
  uint64_t first_ts = 0, last_end = 0;  // ns since start (traces); replay span (results)
  std::array<uint64_t, kClassCount> by_class{};
  std::map<std::string, uint64_t> by_syscall;
  std::map<uint32_t, std::string> processes;  // pid -> last exec'd program (or "?")
  uint64_t threads = 0;
  uint64_t drops = 0;
  uint64_t divergences = 0;  // results: ops flagged divergent
  uint64_t prestate_entries = 0;
  // Traces: the file's content id; results: the replayed trace's (0: the
  // result was written before results carried it). trace_id.h.
  uint64_t trace_id = 0;
  // Traces: events that entered before their thread's previous event ended
  // (a recorder never writes one; the replay counts them as damage).
  uint64_t overlapping_calls = 0;
  std::string first_overlap;  // what the first one was
  ReadProblems problems;

  double bytes_per_record() const {
    return records ? static_cast<double>(file_bytes) / static_cast<double>(records) : 0.0;
  }
};

// Reads the whole file. Damage is not an error: it is reported in `problems`.
Result<TraceSummary> summarise(const std::string& path);

// JSON text with at least: events, by_class, drops, bytes_per_event.
std::string summary_to_json(const TraceSummary& s);
// Human-readable text (fits 100 columns).
std::string summary_to_text(const TraceSummary& s);

}  // namespace fsr
