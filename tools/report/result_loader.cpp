// load_result(): the only part of the report library that reads files.
#include <memory>

#include "tools/report/result_set.h"
#include "traces/trace_reader.h"

namespace fsr {

Result<ResultSet> load_result(const std::string& path) {
  auto reader = TraceReader::open(path);
  if (!reader) return reader.status();
  TraceReader& r = **reader;
  if (r.kind() != PayloadKind::kResult)
    return Status::error(path + ": is a trace, not a replay result; run `fsreplay replay` on it first");
  ResultSet rs;
  rs.file = path;
  rs.header = r.header();
  std::vector<OpRecord> chunk;
  for (;;) {
    auto more = r.next(chunk);
    if (!more) return Status::error(path + ": " + more.message());
    if (!*more) break;
    rs.ops.insert(rs.ops.end(), chunk.begin(), chunk.end());
  }
  for (const OpRecord& op : rs.ops)
    if (op.path != kNoStr && !rs.strings.count(op.path)) rs.strings.emplace(op.path, std::string(r.str(op.path)));
  rs.footer = r.footer();
  rs.problems = r.problems().messages;
  rs.complete = r.problems().complete() && rs.footer.has_value();
  if (!rs.footer) rs.problems.push_back(path + ": no footer (replay did not finish); wall time taken from the last op");
  return rs;
}

}  // namespace fsr
