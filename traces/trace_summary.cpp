// SPDX-License-Identifier: Apache-2.0
#include "traces/trace_summary.h"

#include <algorithm>
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <map>

#include "traces/syscalls.h"
#include "base/text_safe.h"
#include "traces/trace_id.h"
#include "base/wait_status.h"

namespace fsr {
namespace {

// A trace of `record --pid`: the recorder did not start the workload and
// has no wait status for it (its header names the command "--pid N").
bool attached(const TraceHeader& h) { return h.command.size() == 1 && h.command[0].rfind("--pid ", 0) == 0; }

std::string basename_of(std::string_view p) {
  auto i = p.rfind('/');
  return std::string(i == std::string_view::npos ? p : p.substr(i + 1));
}

// Per thread: the end of its previous event and that event's number.
using ThreadEnds = std::map<uint64_t, std::pair<uint64_t, uint16_t>>;

template <typename Rec>
void account(TraceSummary& s, const TraceReader& r, const std::vector<Rec>& recs, ThreadEnds& threads) {
  for (const Rec& e : recs) {
    ++s.by_class[static_cast<size_t>(class_of(e.nr))];
    ++s.by_syscall[syscall_name(e.nr)];
    auto [th, fresh] = threads.try_emplace((static_cast<uint64_t>(e.pid) << 32) | e.tid, 0, 0);
    if (!s.processes.count(e.pid)) s.processes[e.pid] = "?";
    if constexpr (std::is_same_v<Rec, Event>) {
      if (e.nr == kEvProcExec && e.path[0]) s.processes[e.pid] = basename_of(r.str(e.path[0]));
      if (s.records == 0) s.first_ts = e.ts;
      s.last_end = std::max(s.last_end, e.ts + e.dur);
      if (!fresh && e.ts < th->second.first) {
        if (s.overlapping_calls++ == 0)
          s.first_overlap = fmt::format(
              "event {}: thread {} entered {} at {} ns, {} ns before its previous call ({}) returned", s.records, e.tid,
              syscall_name(e.nr), e.ts, th->second.first - e.ts, syscall_name(th->second.second));
      }
      th->second = {e.ts + e.dur, e.nr};
    } else {
      if (e.nr == kEvProcExec && e.path) s.processes[e.pid] = basename_of(r.str(e.path));
      if (e.flags & kOfDivergent) ++s.divergences;
      s.last_end = std::max(s.last_end, e.start + e.latency);
    }
    ++s.records;
  }
}

}  // namespace

Result<TraceSummary> summarise(const std::string& path) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, TraceReader::open(path));
  TraceReader& r = *reader;
  TraceSummary s;
  s.path = path;
  s.header = r.header();
  ThreadEnds threads;
  if (r.kind() == PayloadKind::kTrace) {
    std::vector<Event> ev;
    while (true) {
      FSR_ASSIGN_OR_RETURN(const bool more, r.next(ev));
      if (!more) break;
      account(s, r, ev, threads);
    }
  } else {
    std::vector<OpRecord> ops;
    while (true) {
      FSR_ASSIGN_OR_RETURN(const bool more, r.next(ops));
      if (!more) break;
      account(s, r, ops, threads);
    }
  }
  s.threads = threads.size();
  s.footer = r.footer();
  if (s.footer)
    for (uint64_t d : s.footer->drops) s.drops += d;
  auto pre = r.prestate_count();  // from the index: no block decoded
  if (pre) s.prestate_entries = pre.value();
  s.problems = r.problems();
  s.file_bytes = r.file_size();
  s.trace_id = r.kind() == PayloadKind::kResult ? s.header.source_trace_id : r.trace_id();
  return s;
}

std::string summary_to_json(const TraceSummary& s) {
  nlohmann::ordered_json j;
  j["file"] = s.path;
  j["kind"] = s.header.kind == PayloadKind::kTrace ? "trace" : "result";
  j["format_version"] = s.header.format_version;
  if (s.header.kind == PayloadKind::kResult) {
    j["source_trace"] = s.header.source_trace;
    j["source_trace_id"] = s.trace_id != kNoTraceId ? nlohmann::ordered_json(format_trace_id(s.trace_id)) : nullptr;
  } else {
    j["trace_id"] = format_trace_id(s.trace_id);
  }
  j["events"] = s.records;
  j["bytes"] = s.file_bytes;
  j["bytes_per_event"] = s.bytes_per_record();
  j["drops"] = s.drops;
  if (s.footer && s.footer->stolen_measured)
    j["recorder_stolen"] = {{"ns", s.footer->recorder_stolen_ns}, {"gaps_ns", s.footer->gaps_ns}};
  if (s.footer && s.footer->user_faults)
    j["recorder_faults"] = {{"user_faults", s.footer->user_faults},
                            {"records", s.footer->fault_records},
                            {"skipped", s.footer->fault_skips},
                            {"cost_ns", s.footer->fault_cost_ns}};
  if (s.footer && (s.footer->deferred_releases || s.footer->release_drops))
    j["deferred_releases"] = {{"calls", s.footer->deferred_releases},
                              {"ns", s.footer->deferred_release_ns},
                              {"lost", s.footer->release_drops}};
  nlohmann::ordered_json bc = nlohmann::ordered_json::object();
  for (int c = 0; c < kClassCount; ++c)
    if (s.by_class[c]) bc[std::string(class_name(static_cast<SyscallClass>(c)))] = s.by_class[c];
  j["by_class"] = bc;
  nlohmann::ordered_json bs = nlohmann::ordered_json::object();
  for (const auto& [name, n] : s.by_syscall) bs[name] = n;
  j["by_syscall"] = bs;
  if (s.footer) {
    nlohmann::ordered_json dc = nlohmann::ordered_json::object();
    for (int c = 0; c < kClassCount; ++c)
      if (s.footer->drops[c]) dc[std::string(class_name(static_cast<SyscallClass>(c)))] = s.footer->drops[c];
    j["drops_by_class"] = dc;
    j["exit_status"] = s.footer->exit_status;  // the raw wait status (kept for older readers)
    if (s.header.kind == PayloadKind::kTrace) {
      // What it means: exactly one of the two is a value, or neither where
      // the recorder did not start the workload (--pid).
      const WaitOutcome w = attached(s.header) ? WaitOutcome{} : decode_wait_status(s.footer->exit_status);
      j["exit_code"] = w.exit_code ? nlohmann::ordered_json(*w.exit_code) : nlohmann::ordered_json();
      j["exit_signal"] = w.signal ? nlohmann::ordered_json(signal_name(*w.signal)) : nlohmann::ordered_json();
    }
    j["io_uring_submissions"] = s.footer->io_uring_submissions;
  }
  j["span_ns"] = s.last_end > s.first_ts ? s.last_end - s.first_ts : 0;
  j["processes"] = s.processes.size();
  j["threads"] = s.threads;
  j["prestate_entries"] = s.prestate_entries;
  j["command"] = s.header.command;
  j["root"] = s.header.root;
  j["kernel_release"] = s.header.kernel_release;
  j["hostname"] = s.header.hostname;
  if (s.header.kind == PayloadKind::kTrace) j["recorder_choices"] = s.header.recorder_choices;
  if (s.header.kind == PayloadKind::kResult) {
    j["target"] = s.header.target;
    j["divergences"] = s.divergences;
    if (s.footer) j["wall_ns"] = s.footer->wall_ns;
  }
  if (s.header.record_cost.present) {
    nlohmann::json gap = nlohmann::json::object(), dur = nlohmann::json::object();
    for (int c = 0; c < kClassCount; ++c) {
      gap[std::string(class_name(static_cast<SyscallClass>(c)))] = s.header.record_cost.gap_ns[c];
      dur[std::string(class_name(static_cast<SyscallClass>(c)))] = s.header.record_cost.dur_ns[c];
    }
    j["record_cost"] = {{"gap_ns", gap},
                        {"dur_ns", dur},
                        {"unrecorded_ns", s.header.record_cost.unrecorded_ns},
                        {"method", s.header.record_cost.method}};
  }
  j["complete"] = s.problems.complete() && s.footer.has_value();
  j["problems"] = s.problems.messages;
  if (s.header.kind == PayloadKind::kTrace) j["overlapping_calls"] = s.overlapping_calls;
  j["missing_events"] = s.problems.missing_records;
  return json_text(j, 2);
}

std::string summary_to_text(const TraceSummary& s) {
  std::string o;
  const TraceHeader& h = s.header;
  auto line = [&](std::string_view k, const std::string& v) { o += fmt::format("{:<18} {}\n", k, printable(v)); };
  line("file", s.path);
  line("kind", h.kind == PayloadKind::kTrace ? "trace" : "replay result");
  if (h.kind == PayloadKind::kResult)
    line("replayed trace", (h.source_trace.empty() ? std::string("?") : h.source_trace) +
                               (s.trace_id != kNoTraceId ? " (trace id " + format_trace_id(s.trace_id) + ")"
                                                         : " (trace id unknown: written before results carried it)"));
  else
    line("trace id", format_trace_id(s.trace_id));
  std::string cmd;
  for (const auto& a : h.command) {
    if (!cmd.empty()) cmd += ' ';
    cmd += a;
  }
  if (!cmd.empty()) line("command", cmd);
  if (!h.root.empty()) line("root", h.root);
  if (!h.target.empty()) line("target", h.target);
  line("host", fmt::format("{} (kernel {}, {} cpus)", h.hostname, h.kernel_release, h.cpu_count));
  for (const std::string& c : h.recorder_choices) line("recorder", c);
  double span = s.last_end > s.first_ts ? static_cast<double>(s.last_end - s.first_ts) / 1e9 : 0.0;
  line("span", fmt::format("{:.3f} s", span));
  line("events", fmt::format("{}", s.records));
  line("processes", fmt::format("{} ({} threads)", s.processes.size(), s.threads));
  line("prestate", fmt::format("{} entries", s.prestate_entries));
  line("size", fmt::format("{} bytes, {:.2f} bytes/event", s.file_bytes, s.bytes_per_record()));
  if (h.kind == PayloadKind::kTrace) {
    const RecordCost& rc = h.record_cost;
    if (!rc.present) {
      line("recorder cost", "not measured (recorded before it was): replays take nothing out of the gaps");
    } else {
      std::string v = "ns per call added to the gap / inside the duration:";
      for (SyscallClass c : {SyscallClass::kStat, SyscallClass::kOpen, SyscallClass::kClose, SyscallClass::kRead,
                             SyscallClass::kWrite, SyscallClass::kReaddir, SyscallClass::kFd})
        v += fmt::format(" {} {}/{}", class_name(c), rc.gap_ns[static_cast<size_t>(c)],
                         rc.dur_ns[static_cast<size_t>(c)]);
      v += fmt::format("; unrecorded call {}", rc.unrecorded_ns);
      if (rc.fault_ns != decltype(rc.fault_ns){})
        v += fmt::format("; user fault {} (file recorded {}, skipped {})", rc.fault_ns[RecordCost::kFaultAnon],
                         rc.fault_ns[RecordCost::kFaultRecorded], rc.fault_ns[RecordCost::kFaultSkipped]);
      line("recorder cost", v);
    }
  }
  if (s.footer) {
    line("drops", s.drops ? fmt::format("{} EVENTS LOST", s.drops) : "0");
    if (h.kind == PayloadKind::kTrace) {
      line("exit status", attached(h) ? std::string("not known (--pid: the recorder did not start the workload)")
                                      : describe_wait_status(s.footer->exit_status));
      const TraceFooter& f = *s.footer;
      if (f.stolen_measured)
        line("recorder cpu",
             fmt::format(
                 "{:.1f} ms taken from the workload's threads ({:.2f}% of their {:.3f} s of "
                 "gaps): replays take that share out of every gap",
                 f.recorder_stolen_ns / 1e6,
                 f.gaps_ns ? 100.0 * static_cast<double>(f.recorder_stolen_ns) / static_cast<double>(f.gaps_ns) : 0.0,
                 f.gaps_ns / 1e9));
      if (f.user_faults)
        line("recorder faults",
             fmt::format(
                 "{} user page faults ({} recorded, {} of files left out): {:.1f} ms of the fault programs in "
                 "the gaps ({:.2f}%), taken out as well",
                 f.user_faults, f.fault_records, f.fault_skips, f.fault_cost_ns / 1e6,
                 f.gaps_ns ? 100.0 * static_cast<double>(f.fault_cost_ns) / static_cast<double>(f.gaps_ns) : 0.0));
    }
    if (s.footer->deferred_releases || s.footer->release_drops)
      line("deferred releases",
           fmt::format("{} calls left their file's last release to their return and blocked there ({:.1f} ms, "
                       "added to those calls){}",
                       s.footer->deferred_releases, s.footer->deferred_release_ns / 1e6,
                       s.footer->release_drops
                           ? fmt::format("; {} release records lost: those stay in the gaps", s.footer->release_drops)
                           : std::string()));
    if (s.footer->io_uring_submissions)
      line("io_uring", fmt::format("{} submissions: their I/O is NOT in the trace (try UV_USE_IO_URING=0)",
                                   s.footer->io_uring_submissions));
    if (h.kind == PayloadKind::kResult)
      line("replay wall", fmt::format("{:.3f} s, {} divergences", s.footer->wall_ns / 1e9, s.divergences));
  } else {
    line("footer", "missing (file incomplete)");
  }
  o += "\nby class:\n";
  for (int c = 0; c < kClassCount; ++c)
    if (s.by_class[c])
      o += fmt::format("  {:<10} {:>12}  {:5.1f}%\n", class_name(static_cast<SyscallClass>(c)), s.by_class[c],
                       100.0 * static_cast<double>(s.by_class[c]) / static_cast<double>(s.records));
  if (s.overlapping_calls)
    o += fmt::format("\noverlapping calls: {} (a thread's call entered before its previous one returned; first: {})\n",
                     s.overlapping_calls, s.first_overlap);
  if (!s.problems.messages.empty()) {
    o += "\nproblems:\n";
    for (const auto& m : s.problems.messages) o += "  " + m + "\n";
  }
  return o;
}

}  // namespace fsr
