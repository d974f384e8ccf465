// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/result_writer.h"

#include <unistd.h>

#include <algorithm>

#include "traces/syscalls.h"
#include "traces/trace_reader.h"

namespace fsr {

Result<std::unique_ptr<ResultWriter>> ResultWriter::create(const std::string& out, const TraceHeader& header,
                                                           StringLookup trace_str) {
  std::unique_ptr<ResultWriter> rw(new ResultWriter());
  rw->out_ = out;
  rw->trace_str_ = std::move(trace_str);
  rw->spool_ = out + ".partial";
  FSR_ASSIGN_OR_RETURN(rw->w_, TraceWriter::create(rw->spool_, header));
  return rw;
}

ResultWriter::~ResultWriter() {
  if (!spool_.empty()) unlink(spool_.c_str());
}

Status ResultWriter::add(OpRecord r, const Event& e, const PlanOp& op, StrId path) {
  if (op.action == OpAction::kIssue) rec_.add(e.ts, e.ts + e.dur);
  if (e.nr == kEvProcExec && path != kNoStr) {
    const std::string_view p = trace_str_(path);
    if (!p.empty()) current_ = std::string(p.substr(p.rfind('/') + 1));
  }
  if (r.flags & kOfSkipped) {
    ++sum_.skipped;
  } else if (r.nr != kEvProcExec) {
    rep_.add(r.start, r.start + r.latency);
    ++sum_.ops;
    if (r.flags & kOfDivergent) {
      ++sum_.divergences;
      count_divergence(div_, r);
    }
    if (r.flags & kOfEscaped) ++sum_.escaped;
    if (class_of(r.nr) == SyscallClass::kRead && r.ret >= 0 && r.recorded_ret > r.ret) {
      ++sum_.short_reads;
      sum_.short_read_bytes += static_cast<uint64_t>(r.recorded_ret - r.ret);
    }
    const auto c = static_cast<size_t>(class_of(r.nr));
    ++sum_.count[c];
    sum_.total_ns[c] += r.latency;
  }
  if (path != kNoStr) {
    if (path >= ids_.size()) ids_.resize(std::max<size_t>(path + 1, ids_.size() * 2), kNoStr);
    StrId& id = ids_[path];
    if (id == kNoStr) id = w_->intern(trace_str_(path));  // (an empty string stays kNoStr, as before)
    r.path = id;
  }
  return w_->append(r);
}

void ResultWriter::tally(ReplaySummary& sum, double max_divergence_pct) const {
  sum.skipped = sum_.skipped;
  sum.ops = sum_.ops;
  sum.divergences = sum_.divergences;
  sum.escaped = sum_.escaped;
  sum.short_reads = sum_.short_reads;
  sum.short_read_bytes = sum_.short_read_bytes;
  sum.count = sum_.count;
  sum.total_ns = sum_.total_ns;
  sum.max_divergence_pct = max_divergence_pct;
  sum.diverged =
      sum.ops > 0 && static_cast<double>(sum.divergences) * 100.0 > max_divergence_pct * static_cast<double>(sum.ops);
  sum.top_divergences = top_divergences(div_);
}

Status ResultWriter::finish(const TraceHeader& header, const TraceFooter& footer) {
  FSR_RETURN_IF_ERROR(w_->finish(footer));
  w_.reset();
  auto rd = TraceReader::open(spool_);
  if (!rd) return Status::error("the replay's spool " + spool_ + " cannot be read back: " + rd.message());
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceWriter> w, TraceWriter::create(out_, header));
  std::vector<OpRecord> chunk;
  while (true) {
    FSR_ASSIGN_OR_RETURN(const bool more, rd.value()->next(chunk));
    if (!more) break;
    for (OpRecord& r : chunk) {
      if (r.path != kNoStr) r.path = w->intern(rd.value()->str(r.path));
      FSR_RETURN_IF_ERROR(w->append(r));
    }
  }
  FSR_RETURN_IF_ERROR(w->finish(footer));
  unlink(spool_.c_str());
  spool_.clear();
  return Status::ok();
}

}  // namespace fsr
