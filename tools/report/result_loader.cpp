// load_result() and summarize_result(): the only part of the report library
// that reads files.
#include <memory>

#include "tools/report/result_set.h"
#include "tools/report/result_summary.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

// Opens a result file; `meta` gets its name and header.
Result<std::unique_ptr<TraceReader>> open_result(const std::string& path, ResultMeta& meta) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, TraceReader::open(path));
  if (reader->kind() != PayloadKind::kResult)
    return wrong_kind(path, reader->kind(), PayloadKind::kResult,
                      reader->kind() == PayloadKind::kTrace
                          ? "run 'fsreplay replay' on it first"
                          : "give the result of 'fsreplay replay' (a profile goes to 'fsreplay predict TRACE --profile')");
  meta.file = path;
  meta.header = reader->header();
  return reader;
}

// Calls fn(chunk) for every readable chunk of ops, in file order.
template <typename F>
Status for_each_chunk(TraceReader& r, const std::string& path, F fn) {
  std::vector<OpRecord> chunk;
  for (;;) {
    auto more = r.next(chunk);
    if (!more) return Status::error(path + ": " + more.message());
    if (!*more) return Status::ok();
    fn(chunk);
  }
}

// The reader's verdict, once every chunk is read.
void finish_meta(ResultMeta& m, const TraceReader& r, const std::string& path) {
  m.footer = r.footer();
  m.problems = r.problems().messages;
  m.complete = r.problems().complete() && m.footer.has_value();
  if (!m.footer) m.problems.push_back(path + ": no footer (replay did not finish); wall time taken from the last op");
}

}  // namespace

Result<ResultSet> load_result(const std::string& path) {
  ResultSet rs;
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, open_result(path, rs));
  TraceReader& r = *reader;
  FSR_RETURN_IF_ERROR(for_each_chunk(
      r, path, [&](const std::vector<OpRecord>& c) { rs.ops.insert(rs.ops.end(), c.begin(), c.end()); }));
  for (const OpRecord& op : rs.ops)
    if (op.path != kNoStr && !rs.strings.count(op.path)) rs.strings.emplace(op.path, std::string(r.str(op.path)));
  finish_meta(rs, r, path);
  return rs;
}

Result<ResultMeta> read_result_meta(const std::string& path) {
  ResultMeta meta;
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, open_result(path, meta));
  return meta;
}

Result<ResultSummary> summarize_result(const std::string& path, const StatsOptions& opt,
                                       const ReadProgress& progress) {
  ResultMeta meta;
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, open_result(path, meta));
  TraceReader& r = *reader;
  uint64_t total = 0;
  if (progress) {
    auto n = r.record_count();
    if (n) total = *n;
  }
  SummaryBuilder b(std::move(meta), opt);
  size_t position = 0;
  FSR_RETURN_IF_ERROR(for_each_chunk(r, path, [&](const std::vector<OpRecord>& c) {
    for (const OpRecord& op : c) b.add(op, position++, r.str(op.path));
    if (progress) progress(position, total);
  }));
  finish_meta(b.meta(), r, path);  // (the wall time the path ends at comes from the footer)
  return b.finish();
}

}  // namespace fsr
