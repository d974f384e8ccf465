// SPDX-License-Identifier: Apache-2.0
#include "report/compare.h"

#include <algorithm>
#include <set>
#include <string>

namespace fsr {

Comparison compare_summaries(const std::vector<const ResultSummary*>& results) {
  std::vector<std::vector<const ResultSummary*>> columns;
  for (const ResultSummary* rs : results) columns.push_back({rs});
  return compare_runs(columns);
}

namespace {
// Two mounts of one kind (two slowfs mounts emulating 9p and virtiofs) have
// one short label: their targets' last components tell them apart, where
// those differ.
void name_alike_columns(std::vector<CompareColumn>& cols) {
  auto base = [](const std::string& p) {
    const size_t end = p.find_last_not_of('/');
    if (end == std::string::npos) return std::string();
    const size_t slash = p.rfind('/', end);
    return p.substr(slash == std::string::npos ? 0 : slash + 1, end - (slash == std::string::npos ? 0 : slash + 1) + 1);
  };
  for (size_t i = 0; i < cols.size(); ++i) {
    std::vector<size_t> same;
    for (size_t j = 0; j < cols.size(); ++j)
      if (cols[j].run.short_label == cols[i].run.short_label) same.push_back(j);
    if (same.size() < 2) continue;
    std::set<std::string> names;
    for (size_t j : same) names.insert(base(cols[j].run.target));
    if (names.size() < same.size() || names.count("")) continue;  // (the targets do not tell them apart either)
    for (size_t j : same) cols[j].run.short_label = base(cols[j].run.target);
  }
}
}  // namespace

Comparison compare_runs(const std::vector<std::vector<const ResultSummary*>>& columns) {
  Comparison cmp;
  cmp.runs = columns.empty() ? 1 : SIZE_MAX;
  for (const std::vector<const ResultSummary*>& runs : columns) {
    if (runs.empty()) continue;
    CompareColumn col;
    for (const ResultSummary* rs : runs) {
      col.walls_ns.push_back(double(run_info(*rs).wall_ns));
      std::array<double, kClassCount> by{};
      for (int c = 0; c < kClassCount; ++c) by[size_t(c)] = double(rs->stats.by_class[size_t(c)].sum());
      col.class_ns.push_back(by);
    }
    const ResultSummary& mid = *runs[median_index(col.walls_ns)];
    col.stats = mid.stats;
    col.run = run_info(mid);
    col.path = mid.path;
    col.dep_wait = mid.dep_wait;
    cmp.runs = std::min(cmp.runs, runs.size());
    if (runs.size() > 1)
      for (std::string& w : spread_warnings(col.walls_ns, "the wall time on " + col.run.label))
        cmp.run_warnings.push_back(std::move(w));
    cmp.columns.push_back(std::move(col));
  }
  if (cmp.columns.empty()) cmp.runs = 1;
  name_alike_columns(cmp.columns);
  for (int c = 0; c < kClassCount; ++c) {
    bool seen = false;
    for (const CompareColumn& col : cmp.columns) seen = seen || col.stats.by_class[c].count() > 0;
    if (seen) cmp.classes.push_back(static_cast<SyscallClass>(c));
  }
  diff_behaviour(cmp);
  return cmp;
}

void diff_behaviour(Comparison& c) {
  std::vector<size_t> rec;
  for (size_t i = 0; i < c.columns.size(); ++i)
    if (c.columns[i].run.recording) rec.push_back(i);
  c.behaviour.clear();
  c.behaviour_rows = 0;
  c.behaviour_compared = rec.size() >= 2;
  if (!c.behaviour_compared) return;
  std::vector<std::pair<uint64_t, BehaviourRow>> rows;  // (largest difference, row)
  auto consider = [&](const char* kind, const std::string& key, auto count_of) {
    BehaviourRow r;
    r.kind = kind;
    r.key = key;
    r.calls.assign(c.columns.size(), 0);
    for (size_t i : rec) r.calls[i] = count_of(c.columns[i].stats);
    const uint64_t ref = r.calls[rec[0]];
    uint64_t worst = 0;
    bool kept = false;
    for (size_t i : rec) {
      const uint64_t d = r.calls[i] > ref ? r.calls[i] - ref : ref - r.calls[i];
      worst = std::max(worst, d);
      kept = kept || (d >= kBehaviourMinCalls && double(d) >= kBehaviourMinShare * double(std::max<uint64_t>(ref, 1)));
    }
    if (kept) rows.emplace_back(worst, std::move(r));
  };
  for (int k = 0; k < kClassCount; ++k)
    consider("class", std::string(class_name(static_cast<SyscallClass>(k))),
             [k](const ResultStats& st) { return st.by_class[size_t(k)].count(); });
  auto keys_of = [&](auto member) {
    std::set<std::string> keys;
    for (size_t i : rec)
      for (const auto& [key, h] : c.columns[i].stats.*member) keys.insert(key);
    return keys;
  };
  for (const std::string& key : keys_of(&ResultStats::by_process))
    consider("process", key, [&key](const ResultStats& st) {
      auto it = st.by_process.find(key);
      return it == st.by_process.end() ? uint64_t{0} : it->second.count();
    });
  for (const std::string& key : keys_of(&ResultStats::by_dir))
    consider("directory", key, [&key](const ResultStats& st) {
      auto it = st.by_dir.find(key);
      return it == st.by_dir.end() ? uint64_t{0} : it->second.count();
    });
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  c.behaviour_rows = rows.size();
  for (size_t i = 0; i < rows.size() && i < kBehaviourMaxRows; ++i) c.behaviour.push_back(std::move(rows[i].second));
}

Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt) {
  std::vector<ResultSummary> sums;
  sums.reserve(results.size());
  for (const ResultSet* rs : results) sums.push_back(summarize(*rs, opt));
  std::vector<const ResultSummary*> ptrs;
  for (const ResultSummary& s : sums) ptrs.push_back(&s);
  return compare_summaries(ptrs);
}

}  // namespace fsr
