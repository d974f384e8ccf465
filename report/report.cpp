// SPDX-License-Identifier: Apache-2.0
#include "report/report.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "base/saturating.h"

namespace fsr {
namespace {

std::vector<GroupRow> top_groups(const std::map<std::string, LogHistogram>& target,
                                 const std::map<std::string, LogHistogram>* baseline, size_t top, size_t* total) {
  std::map<std::string, GroupRow> rows;
  for (const auto& [k, h] : target) rows[k].target = h;
  if (baseline)
    for (const auto& [k, h] : *baseline) rows[k].baseline = h;
  std::vector<GroupRow> out;
  int64_t added_sum = 0;
  for (auto& [k, r] : rows) {
    r.key = k;
    r.added_ns = signed_delta(r.target.sum(), r.baseline.sum());
    added_sum = sat_add(added_sum, r.added_ns);
    out.push_back(std::move(r));
  }
  for (GroupRow& r : out)
    if (added_sum > 0) r.share_of_added = double(r.added_ns) / double(added_sum);
  // Largest added time first; ties by name so output is stable.
  std::sort(out.begin(), out.end(), [](const GroupRow& a, const GroupRow& b) {
    return a.added_ns != b.added_ns ? a.added_ns > b.added_ns : a.key < b.key;
  });
  *total = out.size();
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace

RunInfo run_info(const ResultSummary& rs) {
  const ResultStats& st = rs.stats;
  RunInfo ri;
  ri.label = rs.label();
  ri.short_label = rs.short_label();
  ri.file = rs.file;
  ri.target = rs.header.target;
  ri.mount_kind = rs.mount_kind();
  ri.wall_ns = rs.wall_ns();
  ri.ops = st.ops;
  ri.skipped = st.skipped;
  ri.divergent = st.divergent;
  ri.divergent_mount = st.divergence.mount;
  ri.mount_why = st.divergence.mount_why;
  ri.complete = rs.complete;
  ri.source_trace = rs.header.source_trace;
  ri.source_trace_id = rs.header.source_trace_id;
  ri.different_trace = rs.different_trace;
  ri.recording = rs.recording;
  ri.problems = rs.problems;
  const auto opts =
      nlohmann::json::parse(rs.header.options_json.empty() ? "{}" : rs.header.options_json, nullptr, false);
  if (opts.is_object() && opts.value("diverged", false)) {
    ri.diverged = true;
    ri.max_divergence_pct = opts.value("max_divergence_pct", 0.0);
  }
  ri.address_space = rs.address_space;
  if (opts.is_object() && opts.contains("place") && opts["place"].is_array())
    for (const auto& p : opts["place"])
      if (p.is_object())
        ri.placement.push_back(
            {p.value("subdir", ""), p.value("other", ""), p.value("fs_type", ""), p.value("same_mount", false)});
  return ri;
}

std::string describe_placement(const std::vector<PlacedInfo>& placement) {
  std::string s;
  for (const PlacedInfo& p : placement)
    s += (s.empty() ? "" : "; ") + p.subdir + " on " + p.other + " (" + (p.fs_type.empty() ? "?" : p.fs_type) +
         (p.same_mount ? ", the target's own file system" : "") + ")";
  return s;
}

Report build_report(const ResultSet& target, const ResultSet* baseline, const ReportOptions& opt) {
  const StatsOptions so{.dir_depth = opt.dir_depth};
  const ResultSummary t = summarize(target, so);
  std::optional<ResultSummary> b;
  if (baseline) b = summarize(*baseline, so);
  return build_report(t, b ? &*b : nullptr, opt);
}

Report build_report(const ResultSummary& target, const ResultSummary* baseline, const ReportOptions& opt) {
  Report r;
  r.dir_depth = opt.dir_depth;
  const ResultStats& ts = target.stats;
  const ResultStats* bs = baseline ? &baseline->stats : nullptr;
  r.target = run_info(target);
  r.target_path = target.path;
  r.dep_wait = target.dep_wait;
  if (baseline) r.baseline_dep_wait = baseline->dep_wait;
  if (baseline) {
    r.baseline = run_info(*baseline);
    r.baseline_path = baseline->path;
    r.split = split_wall(r.target_path, r.baseline_path);
  }

  int64_t added_sum = 0;
  for (int c = 0; c < kClassCount; ++c) {
    const LogHistogram& th = ts.by_class[c];
    const bool in_base = bs && bs->by_class[c].count() > 0;
    if (th.count() == 0 && !in_base && r.target_path.class_ns[c] == 0) continue;
    ClassRow row;
    row.cls = static_cast<SyscallClass>(c);
    row.target = th;
    if (bs) row.baseline = bs->by_class[c];
    row.added_ns = signed_delta(th.sum(), row.baseline.sum());
    if (bs && row.baseline.sum() > 0) row.ratio = double(th.sum()) / double(row.baseline.sum());
    row.path_ns = r.target_path.class_ns[c];
    row.baseline_path_ns = r.baseline_path.class_ns[c];
    if (r.split && r.split->wall_delta != 0)
      row.share_of_slowdown = double(r.split->class_delta[c]) / double(r.split->wall_delta);
    if (r.target_path.wall_ns > 0) row.share_of_wall = double(row.path_ns) / double(r.target_path.wall_ns);
    added_sum = sat_add(added_sum, row.added_ns);
    r.classes.push_back(std::move(row));
  }
  if (bs && added_sum > 0)
    for (ClassRow& row : r.classes) row.share_of_added = double(row.added_ns) / double(added_sum);

  r.processes = top_groups(ts.by_process, bs ? &bs->by_process : nullptr, opt.top, &r.processes_total);
  r.dirs = top_groups(ts.by_dir, bs ? &bs->by_dir : nullptr, opt.top, &r.dirs_total);
  return r;
}

}  // namespace fsr
