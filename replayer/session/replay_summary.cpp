// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/replay_summary.h"

#include <string.h>

#include <algorithm>

#include "traces/syscalls.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

std::string result_class(int64_t r) {
  if (r >= 0) return "ok";
  // Not an errno (the kernel's are 1..4095): a crafted trace's, which -r
  // could not even negate (INT64_MIN).
  if (r < -4095) return "ret " + std::to_string(r);
  const char* n = strerrorname_np(static_cast<int>(-r));
  return n ? n : "errno " + std::to_string(-r);
}

}  // namespace

std::string_view timing_name(TimingMode t) {
  return t == TimingMode::kThink ? "think" : t == TimingMode::kAfap ? "afap" : "exact";
}

Result<TimingMode> timing_from_name(std::string_view n) {
  if (n == "think") return TimingMode::kThink;
  if (n == "afap") return TimingMode::kAfap;
  if (n == "exact") return TimingMode::kExact;
  return Status::error("unknown timing '" + std::string(n) + "': use think, afap or exact");
}

// The think clock's corrections and what they came to, for the result's
// options (docs/design.md "The replay clock": every figure can be explained).
nlohmann::json clock_json(const ThinkClock& c, const IssueCost& ic, const ClockTotals& t) {
  nlohmann::json j;
  const RecordCost& rc = c.recorded;
  if (rc.present) {
    nlohmann::json gap = nlohmann::json::object(), dur = nlohmann::json::object();
    for (int k = 0; k < kClassCount; ++k) {
      const std::string n(class_name(static_cast<SyscallClass>(k)));
      gap[n] = rc.gap_ns[k];
      dur[n] = rc.dur_ns[k];
    }
    j["recorder"] = {{"gap_ns", gap}, {"dur_ns", dur}, {"unrecorded_ns", rc.unrecorded_ns}, {"method", rc.method}};
  } else {
    j["recorder"] = nullptr;  // the trace predates the measurement: gaps replayed as recorded
  }
  j["recorder_stolen_ppm"] =
      c.stolen_ppm;  // share of every gap the recorder took: threads, fault programs (trace footer)
  nlohmann::json issue = nlohmann::json::object();
  for (uint16_t nr : ic.measured) issue[syscall_name(nr)] = ic.ns[nr];
  j["replayer"] = {{"syscall_ns", c.syscall_ns}, {"issue_ns", issue}, {"calibration_ns", ic.took_ns}};
  j["totals_ns"] = {{"recorder_gap", t.recorder_gap_ns},
                    {"emulated_work_slept", t.recorder_dur_slept_ns},
                    {"syscall", t.syscall_ns},
                    {"issue", t.issue_ns},
                    {"late", t.late_ns},
                    {"unpaid", t.unpaid_ns}};
  return j;
}

void count_divergence(DivergenceTally& by, const OpRecord& r) {
  ++by[{r.nr, std::min<int64_t>(r.recorded_ret, 0), std::min<int64_t>(r.ret, 0)}];
}

std::vector<DivergenceRow> top_divergences(const DivergenceTally& by) {
  // By name first: rows of equal count keep the order of their names.
  std::map<std::tuple<uint16_t, std::string, std::string>, uint64_t> named;
  for (const auto& [k, n] : by)
    named[{std::get<0>(k), result_class(std::get<1>(k)), result_class(std::get<2>(k))}] += n;
  std::vector<DivergenceRow> rows;
  for (const auto& [k, n] : named) rows.push_back({syscall_name(std::get<0>(k)), std::get<1>(k), std::get<2>(k), n});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DivergenceRow& a, const DivergenceRow& b) { return a.count > b.count; });
  if (rows.size() > 8) rows.resize(8);
  return rows;
}

std::string summary_to_json(const ReplaySummary& s) {
  nlohmann::json j;
  j["schema"] = "fsreplay.replay/1";  // (replayer/session/replay.schema.json)
  j["wall_ns"] = s.wall_ns;
  j["recorded_ns"] = s.recorded_ns;
  j["ops"] = s.ops;
  j["divergences"] = s.divergences;
  j["approx_deps"] = s.approx_deps;
  j["beyond_window"] = s.beyond_window;
  j["moved_edges"] = s.moved_edges;
  j["moves_beyond_window"] = s.moves_beyond_window;
  j["lock_waits"] = s.lock_waits;
  j["file_data_deps"] = s.file_data_deps;
  j["skipped"] = s.skipped;
  j["short_reads"] = s.short_reads;
  j["short_read_bytes"] = s.short_read_bytes;
  j["workers"] = s.workers;
  j["fallbacks"] = s.fallbacks;
  j["trace_problems"] = s.trace_problems;
  j["warnings"] = s.warnings;
  j["address_space"] = {
      {"peak_mappings", s.peak_mappings}, {"peak_spaces", s.peak_spaces}, {"max_map_count", s.max_map_count}};
  j["result"] = s.result_path;
  j["diverged"] = s.diverged;
  j["max_divergence_pct"] = s.max_divergence_pct;
  nlohmann::json top = nlohmann::json::array();
  for (const DivergenceRow& d : s.top_divergences)
    top.push_back({{"call", d.call}, {"recorded", d.recorded}, {"replayed", d.replayed}, {"count", d.count}});
  j["top_divergences"] = top;
  if (!s.clock_json.empty()) j["clock"] = nlohmann::json::parse(s.clock_json);
  for (const PlacedDir& d : s.place)  // (only with --place)
    j["placement"].push_back(
        {{"subdir", d.subdir}, {"other", d.other}, {"fs_type", d.fs_type}, {"same_mount", d.same_mount}});
  nlohmann::json by = nlohmann::json::object();
  for (int c = 0; c < kClassCount; ++c) {
    if (s.count[c] == 0) continue;
    by[std::string(class_name(static_cast<SyscallClass>(c)))] = {
        {"count", s.count[c]}, {"total_ns", s.total_ns[c]}, {"mean_ns", s.total_ns[c] / s.count[c]}};
  }
  j["by_class"] = by;
  return json_text(j, 2);
}

}  // namespace fsr
