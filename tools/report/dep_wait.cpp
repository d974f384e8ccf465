#include "tools/report/dep_wait.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

namespace fsr {

DepWaitSummary dep_wait_summary(const ResultSet& rs) {
  DepWaitSummary d;
  std::array<DepWaitRow, static_cast<size_t>(DepKind::kCount)> by{};
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  uint32_t workers = 0;
  for (const OpRecord& r : rs.ops) {
    workers = std::max(workers, r.worker + 1);
    if (r.latency > 0 && !(r.flags & kOfSkipped)) iv.push_back({r.start, r.start + r.latency});
    if (r.dep_wait == 0) continue;
    DepWaitRow& row = by[static_cast<size_t>(op_dep_kind(r.flags))];
    ++row.ops;
    row.wait_ns += r.dep_wait;
    d.wait_ns += r.dep_wait;
  }
  for (size_t k = 0; k < by.size(); ++k)
    if (by[k].ops) {
      by[k].kind = static_cast<DepKind>(k);
      d.rows.push_back(by[k]);
    }
  std::stable_sort(d.rows.begin(), d.rows.end(),
                   [](const DepWaitRow& a, const DepWaitRow& b) { return a.wait_ns > b.wait_ns; });
  d.worker_ns = uint64_t(workers) * rs.wall_ns();
  if (!iv.empty()) d.overlap_replayed = mean_in_flight(iv);
  const auto opts = nlohmann::json::parse(rs.header.options_json.empty() ? "{}" : rs.header.options_json,
                                          nullptr, false);
  if (opts.is_object() && opts.contains("overlap") && opts["overlap"].contains("recorded") &&
      opts["overlap"]["recorded"].is_number())
    d.overlap_recorded = opts["overlap"]["recorded"].get<double>();
  return d;
}

}  // namespace fsr
