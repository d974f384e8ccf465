// SPDX-License-Identifier: Apache-2.0
#include "report/result_summary.h"

#include <algorithm>
#include <numeric>

#include <nlohmann/json.hpp>

namespace fsr {
namespace {

std::optional<AddressSpaceFigures> address_space_of(const TraceHeader& h) {
  if (h.options_json.empty()) return std::nullopt;
  auto j = nlohmann::json::parse(h.options_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto a = j.find("address_space");
  if (a == j.end() || !a->is_object()) return std::nullopt;
  AddressSpaceFigures f;
  auto num = [&](const char* k) {
    auto v = a->find(k);
    return v != a->end() && v->is_number_unsigned() ? v->get<uint64_t>() : uint64_t{0};
  };
  f.peak_mappings = num("peak_mappings");
  f.peak_spaces = num("peak_spaces");
  f.max_map_count = num("max_map_count");
  f.enomem = num("enomem");
  return f;
}

}  // namespace

SummaryBuilder::SummaryBuilder(ResultMeta meta, const StatsOptions& opt)
    : stats_(meta.header, opt), path_(/*keep_path=*/false) {
  static_cast<ResultMeta&>(sum_) = std::move(meta);
  sum_.address_space = address_space_of(sum_.header);
}

void SummaryBuilder::add(const OpRecord& op, size_t position, std::string_view path) {
  stats_.add(op, path);
  add_times(op, position);
}

void SummaryBuilder::add(const OpRecord& op, size_t position, const std::function<std::string_view(StrId)>& path_of) {
  stats_.add(op, path_of);
  add_times(op, position);
}

void SummaryBuilder::add_times(const OpRecord& op, size_t position) {
  path_.add(op, position);
  dep_wait_.add(op);
  sum_.last_end = std::max(sum_.last_end, op.start + op.latency);
}

ResultSummary SummaryBuilder::finish() {
  sum_.stats = stats_.finish();
  sum_.path = path_.finish(sum_.wall_ns());
  sum_.dep_wait = dep_wait_.finish(sum_.header, sum_.wall_ns());
  if (sum_.path.window_misses)
    sum_.problems.push_back(
        std::to_string(sum_.path.window_misses) +
        " ops waited on an op too far back to follow: the critical path counts their wait as unexplained");
  return std::move(sum_);
}

ResultSummary summarize(const ResultSet& rs, const StatsOptions& opt) {
  SummaryBuilder b(rs, opt);
  for (size_t i : event_order(rs.ops)) b.add(rs.ops[i], i, rs.str(rs.ops[i].path));
  return b.finish();
}

}  // namespace fsr
