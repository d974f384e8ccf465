// SPDX-License-Identifier: Apache-2.0
#include "report/dep_wait.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace fsr {

void DepWaitAccumulator::add(const OpRecord& r) {
  workers_ = std::max(workers_, r.worker + 1);
  if (r.latency > 0 && !(r.flags & kOfSkipped)) in_flight_.add(r.start, r.start + r.latency);
  if (r.dep_wait == 0) return;
  DepWaitRow& row = by_[static_cast<size_t>(op_dep_kind(r.flags))];
  ++row.ops;
  row.wait_ns += r.dep_wait;
  wait_ns_ += r.dep_wait;
}

DepWaitSummary DepWaitAccumulator::finish(const TraceHeader& header, uint64_t wall_ns) {
  DepWaitSummary d;
  d.wait_ns = wait_ns_;
  for (size_t k = 0; k < by_.size(); ++k)
    if (by_[k].ops) {
      by_[k].kind = static_cast<DepKind>(k);
      d.rows.push_back(by_[k]);
    }
  std::stable_sort(d.rows.begin(), d.rows.end(),
                   [](const DepWaitRow& a, const DepWaitRow& b) { return a.wait_ns > b.wait_ns; });
  d.worker_ns = uint64_t(workers_) * wall_ns;
  const double replayed = in_flight_.finish();
  if (!in_flight_.empty()) d.overlap_replayed = replayed;
  const auto opts = nlohmann::json::parse(header.options_json.empty() ? "{}" : header.options_json, nullptr, false);
  if (opts.is_object() && opts.contains("overlap") && opts["overlap"].contains("recorded") &&
      opts["overlap"]["recorded"].is_number())
    d.overlap_recorded = opts["overlap"]["recorded"].get<double>();
  return d;
}

}  // namespace fsr
