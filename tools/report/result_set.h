// ResultSet: one replay result held in memory (header, footer, ops and the
// strings its ops name) -- the input of every report. Built by load_result()
// from a result file or directly by tests. Pure data plus small accessors;
// it never touches the file system after loading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/event.h"
#include "traces/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct ResultSet {
  std::string file;                        // where it was loaded from ("" in memory)
  TraceHeader header;
  std::optional<TraceFooter> footer;       // absent: the replay did not finish writing
  std::vector<OpRecord> ops;
  std::unordered_map<StrId, std::string> strings;  // ids used by ops
  std::vector<std::string> problems;       // one line each, from the reader
  bool complete = true;                    // false: truncated or damaged file

  std::string_view str(StrId id) const;
  // Footer wall time, or the last op's end when that is later (or no footer).
  uint64_t wall_ns() const;
  // environment_json's mount.kind ("9p-drvfs", "virtiofs", "ext4"), "" if unknown.
  std::string mount_kind() const;
  // "TARGET (KIND)", or the file name when the header names no target.
  std::string label() const;
  // Short column header: the mount kind, else the target's last component.
  std::string short_label() const;
};

// Reads a whole result file. Fails for a missing file, a trace given where a
// result was expected, or an unreadable header; a truncated or damaged file
// loads what is readable and sets complete = false with problems listed.
Result<ResultSet> load_result(const std::string& path);

}  // namespace fsr
