// The replay summary as JSON, and the timing modes' names (replay.h).
#include <nlohmann/json.hpp>

#include "replayer/replay.h"

namespace fsr {

std::string_view timing_name(TimingMode t) {
  return t == TimingMode::kThink ? "think" : t == TimingMode::kAfap ? "afap" : "exact";
}

Result<TimingMode> timing_from_name(std::string_view n) {
  if (n == "think") return TimingMode::kThink;
  if (n == "afap") return TimingMode::kAfap;
  if (n == "exact") return TimingMode::kExact;
  return Status::error("unknown timing '" + std::string(n) + "': use think, afap or exact");
}

std::string summary_to_json(const ReplaySummary& s) {
  nlohmann::json j;
  j["wall_ns"] = s.wall_ns;
  j["recorded_ns"] = s.recorded_ns;
  j["ops"] = s.ops;
  j["divergences"] = s.divergences;
  j["approx_deps"] = s.approx_deps;
  j["beyond_window"] = s.beyond_window;
  j["skipped"] = s.skipped;
  j["workers"] = s.workers;
  j["fallbacks"] = s.fallbacks;
  j["trace_problems"] = s.trace_problems;
  j["warnings"] = s.warnings;
  j["address_space"] = {{"peak_mappings", s.peak_mappings}, {"peak_spaces", s.peak_spaces},
                        {"max_map_count", s.max_map_count}};
  j["result"] = s.result_path;
  j["diverged"] = s.diverged;
  j["max_divergence_pct"] = s.max_divergence_pct;
  nlohmann::json top = nlohmann::json::array();
  for (const DivergenceRow& d : s.top_divergences)
    top.push_back({{"call", d.call}, {"recorded", d.recorded}, {"replayed", d.replayed}, {"count", d.count}});
  j["top_divergences"] = top;
  if (!s.clock_json.empty()) j["clock"] = nlohmann::json::parse(s.clock_json);
  nlohmann::json by = nlohmann::json::object();
  for (int c = 0; c < kClassCount; ++c) {
    if (s.count[c] == 0) continue;
    by[std::string(class_name(static_cast<SyscallClass>(c)))] = {
        {"count", s.count[c]}, {"total_ns", s.total_ns[c]}, {"mean_ns", s.total_ns[c] / s.count[c]}};
  }
  j["by_class"] = by;
  return j.dump(2);
}

}  // namespace fsr
