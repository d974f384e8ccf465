#include "replayer/result_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "traces/syscalls.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

std::string result_class(int64_t r) {
  if (r >= 0) return "ok";
  const char* n = strerrorname_np(static_cast<int>(-r));
  return n ? n : "errno " + std::to_string(-r);
}

}  // namespace

Result<std::unique_ptr<ResultWriter>> ResultWriter::create(const std::string& out, const TraceHeader& header) {
  std::unique_ptr<ResultWriter> rw(new ResultWriter());
  rw->out_ = out;
  rw->spool_ = out + ".partial";
  auto w = TraceWriter::create(rw->spool_, header);
  if (!w) return w.status();
  rw->w_ = std::move(w.value());
  return rw;
}

ResultWriter::~ResultWriter() {
  if (!spool_.empty()) unlink(spool_.c_str());
}

Status ResultWriter::add(OpRecord r, const Event& e, const PlanOp& op, std::string_view path) {
  if (op.action == OpAction::kIssue) rec_.add(e.ts, e.ts + e.dur);
  if (e.nr == kEvProcExec && !path.empty()) current_ = std::string(path.substr(path.rfind('/') + 1));
  if (r.flags & kOfSkipped) {
    ++sum_.skipped;
  } else if (r.nr != kEvProcExec) {
    rep_.add(r.start, r.start + r.latency);
    ++sum_.ops;
    if (r.flags & kOfDivergent) {
      ++sum_.divergences;
      ++div_[{r.nr, result_class(r.recorded_ret), result_class(r.ret)}];
    }
    if (r.flags & kOfEscaped) ++sum_.escaped;
    const auto c = static_cast<size_t>(class_of(r.nr));
    ++sum_.count[c];
    sum_.total_ns[c] += r.latency;
  }
  if (!path.empty()) r.path = w_->intern(path);
  return w_->append(r);
}

void ResultWriter::tally(ReplaySummary& sum, double max_divergence_pct) const {
  sum.skipped = sum_.skipped;
  sum.ops = sum_.ops;
  sum.divergences = sum_.divergences;
  sum.escaped = sum_.escaped;
  sum.count = sum_.count;
  sum.total_ns = sum_.total_ns;
  sum.max_divergence_pct = max_divergence_pct;
  sum.diverged = sum.ops > 0 && static_cast<double>(sum.divergences) * 100.0 >
                                    max_divergence_pct * static_cast<double>(sum.ops);
  std::vector<DivergenceRow> rows;
  for (const auto& [k, n] : div_) rows.push_back({syscall_name(std::get<0>(k)), std::get<1>(k), std::get<2>(k), n});
  std::stable_sort(rows.begin(), rows.end(), [](const DivergenceRow& a, const DivergenceRow& b) { return a.count > b.count; });
  if (rows.size() > 8) rows.resize(8);
  sum.top_divergences = std::move(rows);
}

Status ResultWriter::finish(const TraceHeader& header, const TraceFooter& footer) {
  if (Status st = w_->finish(footer); !st) return st;
  w_.reset();
  auto rd = TraceReader::open(spool_);
  if (!rd) return Status::error("the replay's spool " + spool_ + " cannot be read back: " + rd.message());
  auto w = TraceWriter::create(out_, header);
  if (!w) return w.status();
  std::vector<OpRecord> chunk;
  while (true) {
    auto more = rd.value()->next(chunk);
    if (!more) return more.status();
    if (!more.value()) break;
    for (OpRecord& r : chunk) {
      if (r.path != kNoStr) r.path = w.value()->intern(rd.value()->str(r.path));
      if (Status st = w.value()->append(r); !st) return st;
    }
  }
  if (Status st = w.value()->finish(footer); !st) return st;
  unlink(spool_.c_str());
  spool_.clear();
  return Status::ok();
}

}  // namespace fsr
