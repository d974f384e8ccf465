// SPDX-License-Identifier: Apache-2.0
// load_result() and summarize_result(): the only part of the report library
// that reads files.
#include <algorithm>
#include <memory>
#include <unordered_map>

#include "report/result_set.h"
#include "report/result_summary.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

// Opens a result file, or a trace as a recording; `meta` gets its name and header.
Result<std::unique_ptr<TraceReader>> open_result(const std::string& path, ResultMeta& meta) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, TraceReader::open(path));
  if (reader->kind() != PayloadKind::kResult && reader->kind() != PayloadKind::kTrace)
    return wrong_kind(path, reader->kind(), PayloadKind::kResult,
                      "give the result of 'fsreplay replay' or a trace (a profile goes to 'fsreplay predict TRACE "
                      "--profile')");
  meta.file = path;
  meta.header = reader->header();
  if (reader->kind() == PayloadKind::kTrace) {
    meta.recording = true;
    meta.header.target = meta.header.root;
    meta.header.source_trace = path;
    meta.header.source_trace_id = reader->trace_id();
  }
  return reader;
}

// A recording's events as ops: each call at its recorded time, its latency
// the recorded duration; gap: the time since its thread's previous call ended.
class RecordedOps {
 public:
  void convert(const std::vector<Event>& ev, std::vector<OpRecord>& out) {
    out.clear();
    out.reserve(ev.size());
    for (const Event& e : ev) {
      OpRecord op;
      op.event_index = next_++;
      op.start = e.ts;
      op.latency = op.recorded_dur = e.dur;
      op.ret = op.recorded_ret = e.ret;
      op.pid = e.pid;
      op.tid = e.tid;
      op.path = e.path[0];
      op.nr = e.nr;
      uint64_t& end = last_end_[e.tid];
      op.gap = end && e.ts > end ? e.ts - end : 0;
      end = std::max(end, e.ts + e.dur);
      out.push_back(op);
    }
  }

 private:
  uint64_t next_ = 0;
  std::unordered_map<uint32_t, uint64_t> last_end_;
};

// Calls fn(chunk) for every readable chunk of ops, in file order (a
// recording's events converted).
template <typename F>
Status for_each_chunk(TraceReader& r, const std::string& path, F fn) {
  std::vector<OpRecord> chunk;
  std::vector<Event> events;
  RecordedOps conv;
  const bool recording = r.kind() == PayloadKind::kTrace;
  for (;;) {
    auto more = recording ? r.next(events) : r.next(chunk);
    if (!more) return Status::error(path + ": " + more.message());
    if (!*more) return Status::ok();
    if (recording) conv.convert(events, chunk);
    fn(chunk);
  }
}

// The reader's verdict, once every chunk is read. A recording's wall is its span.
void finish_meta(ResultMeta& m, const TraceReader& r, const std::string& path) {
  m.footer = r.footer();
  m.problems = r.problems().messages;
  m.complete = r.problems().complete() && m.footer.has_value();
  if (m.recording && m.footer && m.footer->wall_ns == 0) m.footer->wall_ns = m.footer->end_ns;
  if (!m.footer)
    m.problems.push_back(
        path + (m.recording ? ": no footer (the recording did not finish)" : ": no footer (replay did not finish)") +
        "; wall time taken from the last op");
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

Result<ResultSummary> summarize_result(const std::string& path, const StatsOptions& opt, const ReadProgress& progress) {
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
