// SPDX-License-Identifier: Apache-2.0
#include "report/render_json.h"

#include "report/compare.h"

#include "traces/trace_id.h"

namespace fsr {
namespace {

using J = nlohmann::ordered_json;

J opt(std::optional<double> v) { return v ? J(*v) : J(nullptr); }

J run_json(const RunInfo& ri) {
  J j;
  j["label"] = ri.label;
  j["file"] = ri.file;
  j["target"] = ri.target;
  j["mount_kind"] = ri.mount_kind;
  j["wall_ns"] = ri.wall_ns;
  j["ops"] = ri.ops;
  j["skipped"] = ri.skipped;
  j["divergent"] = ri.divergent;
  if (ri.divergent_mount) {  // only when some are: results without them print as before
    j["divergent_mount_behaviour"] = ri.divergent_mount;
    j["mount_behaviour"] = ri.mount_why;
  }
  j["complete"] = ri.complete;
  // Only for results that carry them: older results print as before.
  if (ri.source_trace_id) j["source_trace_id"] = format_trace_id(ri.source_trace_id);
  if (ri.different_trace) j["different_trace"] = true;
  if (ri.recording) j["recording"] = true;  // (only then: results print as before)
  j["diverged"] = ri.diverged;
  j["max_divergence_pct"] = ri.diverged ? J(ri.max_divergence_pct) : J(nullptr);
  j["problems"] = ri.problems;
  for (const PlacedInfo& p : ri.placement)  // (only with placement: results print as before)
    j["placement"].push_back(
        {{"subdir", p.subdir}, {"other", p.other}, {"fs_type", p.fs_type}, {"same_mount", p.same_mount}});
  return j;
}

J dep_wait_json(const DepWaitSummary& d) {
  J j;
  j["wait_ns"] = d.wait_ns;
  j["worker_ns"] = d.worker_ns;
  j["share_of_worker_time"] = d.worker_ns ? J(double(d.wait_ns) / double(d.worker_ns)) : J(nullptr);
  j["in_flight_recorded"] = opt(d.overlap_recorded);
  j["in_flight_replayed"] = opt(d.overlap_replayed);
  J kinds = J::array();
  for (const DepWaitRow& w : d.rows) {
    J k;
    k["kind"] = dep_kind_name(w.kind);
    k["ops"] = w.ops;
    k["wait_ns"] = w.wait_ns;
    k["share"] = d.wait_ns ? J(double(w.wait_ns) / double(d.wait_ns)) : J(nullptr);
    kinds.push_back(std::move(k));
  }
  j["kinds"] = kinds;
  return j;
}

J hist_json(const LogHistogram& h) {
  J j;
  j["count"] = h.count();
  j["total_ns"] = h.sum();
  j["mean_ns"] = h.rounded_mean();
  j["p50_ns"] = h.quantile(0.5);
  j["p90_ns"] = h.quantile(0.9);
  j["p99_ns"] = h.quantile(0.99);
  j["max_ns"] = h.max();
  return j;
}

J path_json(const PathAttribution& p) {
  J j;
  J classes = J::object();
  for (int c = 0; c < kClassCount; ++c)
    if (p.class_ns[c]) classes[std::string(class_name(static_cast<SyscallClass>(c)))] = p.class_ns[c];
  j["classes_ns"] = classes;
  j["compute_ns"] = p.compute_ns;
  j["unexplained_ns"] = p.unexplained_ns;
  j["wall_ns"] = p.wall_ns;
  j["path_ops"] = p.path_ops;
  return j;
}

J groups_json(const std::vector<GroupRow>& rows, const char* key, bool with_baseline) {
  J arr = J::array();
  for (const GroupRow& g : rows) {
    J j;
    j[key] = g.key;
    j.update(hist_json(g.target));
    j["baseline_total_ns"] = with_baseline ? J(g.baseline.sum()) : J(nullptr);
    j["added_ns"] = g.added_ns;
    j["share_of_added"] = opt(g.share_of_added);
    arr.push_back(std::move(j));
  }
  return arr;
}

}  // namespace

nlohmann::ordered_json report_to_json(const Report& r) {
  const bool b = r.baseline.has_value();
  J j;
  j["schema"] = "fsreplay.report/1";
  j["target"] = run_json(r.target);
  j["baseline"] = b ? run_json(*r.baseline) : J(nullptr);
  j["wall_ns"] = r.target.wall_ns;
  j["baseline_wall_ns"] = b ? J(r.baseline->wall_ns) : J(nullptr);
  j["wall_delta_ns"] = r.split ? J(r.split->wall_delta) : J(nullptr);
  j["wall_ratio"] = b && r.baseline->wall_ns ? J(double(r.target.wall_ns) / double(r.baseline->wall_ns)) : J(nullptr);

  J classes = J::array();
  for (const ClassRow& c : r.classes) {
    J row;
    row["class"] = std::string(class_name(c.cls));
    row.update(hist_json(c.target));
    row["baseline"] = b ? hist_json(c.baseline) : J(nullptr);
    row["ratio"] = opt(c.ratio);
    row["added_ns"] = c.added_ns;
    row["share_of_added"] = opt(c.share_of_added);
    row["critical_path_ns"] = c.path_ns;
    row["baseline_critical_path_ns"] = b ? J(c.baseline_path_ns) : J(nullptr);
    row["critical_path_delta_ns"] = r.split ? J(r.split->class_delta[size_t(c.cls)]) : J(nullptr);
    row["share_of_slowdown"] = opt(c.share_of_slowdown);
    row["share_of_wall"] = opt(c.share_of_wall);
    classes.push_back(std::move(row));
  }
  j["classes"] = classes;

  J cp;
  cp["target"] = path_json(r.target_path);
  cp["baseline"] = b ? path_json(r.baseline_path) : J(nullptr);
  if (r.split) {
    J split = J::array();
    const double wd = double(r.split->wall_delta);
    auto part = [&](std::string name, int64_t d) {
      J p;
      p["part"] = std::move(name);
      p["delta_ns"] = d;
      p["share"] = wd != 0 ? J(double(d) / wd) : J(nullptr);
      split.push_back(std::move(p));
    };
    for (const ClassRow& c : r.classes) part(std::string(class_name(c.cls)), r.split->class_delta[size_t(c.cls)]);
    part("compute", r.split->compute_delta);
    part("unexplained", r.split->unexplained_delta);
    cp["split"] = split;
  } else {
    cp["split"] = nullptr;
  }
  j["critical_path"] = cp;

  j["dependency_wait"] = dep_wait_json(r.dep_wait);
  j["baseline_dependency_wait"] = r.baseline_dep_wait ? dep_wait_json(*r.baseline_dep_wait) : J(nullptr);
  j["dir_depth"] = r.dir_depth;
  j["processes"] = groups_json(r.processes, "process", b);
  j["processes_total"] = r.processes_total;
  j["directories"] = groups_json(r.dirs, "directory", b);
  j["directories_total"] = r.dirs_total;
  return j;
}

J spread_to_json(const std::vector<double>& values) {
  const Spread s = spread_of(values);
  J j;
  j["values_ns"] = values;
  j["median_ns"] = s.median;
  j["mean_ns"] = s.mean;
  j["sd_ns"] = s.sd;
  j["min_ns"] = s.min;
  j["max_ns"] = s.max;
  if (s.has_interval()) j["median_interval_ns"] = {s.lo, s.hi};
  return j;
}

namespace {
J ratio_json(const RatioSpread& r) {
  J j;
  j["ratio"] = r.ratio;
  if (r.has_interval) j["interval"] = {r.lo, r.hi};
  j["significant"] = r.significant;
  return j;
}
}  // namespace

nlohmann::ordered_json compare_to_json(const Comparison& c) {
  J j;
  j["schema"] = "fsreplay.compare/1";
  J mounts = J::array();
  for (const CompareColumn& col : c.columns) {
    J m = run_json(col.run);
    m["short_label"] = col.run.short_label;
    m["critical_path"] = path_json(col.path);
    m["dependency_wait"] = dep_wait_json(col.dep_wait);
    mounts.push_back(std::move(m));
  }
  j["mounts"] = mounts;
  J rows = J::array();
  auto row = [&](std::string name, auto value_of, auto count_of) {
    J r;
    r["row"] = std::move(name);
    J vals = J::array(), ratios = J::array(), counts = J::array();
    const uint64_t first = c.columns.empty() ? 0 : value_of(c.columns[0]);
    for (const CompareColumn& col : c.columns) {
      const uint64_t v = value_of(col);
      vals.push_back(v);
      counts.push_back(count_of(col));
      ratios.push_back(first ? J(double(v) / double(first)) : J(nullptr));
    }
    r["total_ns"] = vals;
    r["count"] = counts;
    r["ratio_to_first"] = ratios;
    rows.push_back(std::move(r));
  };
  row(
      "wall", [](const CompareColumn& col) { return col.run.wall_ns; },
      [](const CompareColumn& col) { return col.run.ops; });
  for (SyscallClass cls : c.classes)
    row(
        std::string(class_name(cls)), [cls](const CompareColumn& col) { return col.stats.by_class[size_t(cls)].sum(); },
        [cls](const CompareColumn& col) { return col.stats.by_class[size_t(cls)].count(); });
  if (c.runs > 1) {  // every row's runs: each mount's spread, and its ratio to the first's
    auto runs_of = [&](size_t k, const CompareColumn& col) {
      if (k == 0) return col.walls_ns;
      std::vector<double> v;
      for (const auto& by : col.class_ns) v.push_back(by[size_t(c.classes[k - 1])]);
      return v;
    };
    for (size_t k = 0; k < rows.size(); ++k) {
      J per = J::array();
      const std::vector<double> first = runs_of(k, c.columns[0]);
      for (size_t i = 0; i < c.columns.size(); ++i) {
        const std::vector<double> v = runs_of(k, c.columns[i]);
        per.push_back(spread_to_json(v));
        if (i > 0) per.back()["ratio_to_first"] = ratio_json(ratio_of(v, first));
      }
      rows[k]["runs"] = per;
    }
  }
  j["rows"] = rows;
  if (c.runs > 1) {
    j["runs"] = c.runs;
    j["confidence"] = kConfidence;
    j["run_warnings"] = c.run_warnings;
  }
  if (c.behaviour_compared) {  // only with two recordings or more
    J b;
    b["min_calls"] = kBehaviourMinCalls;
    b["min_share"] = kBehaviourMinShare;
    b["rows_total"] = c.behaviour_rows;
    J brows = J::array();
    for (const BehaviourRow& r : c.behaviour) {
      J x;
      x["kind"] = r.kind;
      x["key"] = r.key;
      x["calls"] = r.calls;
      brows.push_back(std::move(x));
    }
    b["rows"] = brows;
    j["behaviour_diff"] = b;
  }
  return j;
}

}  // namespace fsr
