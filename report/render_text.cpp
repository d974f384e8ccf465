// SPDX-License-Identifier: Apache-2.0
#include "report/render_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/format.h"
#include "traces/trace_id.h"

namespace fsr {
namespace {

using fmtx::ns;
using fmtx::pct;
using fmtx::ratio;
using fmtx::signed_ns;

std::string run_line(const char* role, const RunInfo& ri) {
  std::string s =
      fmt::format("  {:<9} {:<40} wall {:>9}  ops {}", role, fmtx::fit_left(ri.label, 40), ns(ri.wall_ns), ri.ops);
  if (ri.skipped || ri.divergent) s += fmt::format(" ({} skipped, {} divergent)", ri.skipped, ri.divergent);
  s += "\n";
  if (ri.divergent_mount)
    s += fmt::format("  {:<9} {} of the {} divergent ops are the mount's own behaviour, not replay error\n", "",
                     ri.divergent_mount, ri.divergent);
  for (const auto& [why, n] : ri.mount_why) s += fmt::format("  {:<9}   {} ops: {}\n", "", n, why);
  if (!ri.placement.empty()) s += fmt::format("  {:<9} placed: {}\n", "", describe_placement(ri.placement));
  if (ri.different_trace)
    s += fmt::format(
        "  {:<9} DIFFERENT TRACE (a different workload): its ratios compare different work\n"
        "  {:<9} replays {} (trace id {})\n",
        "", "", fmtx::fit_left(ri.source_trace.empty() ? std::string("?") : ri.source_trace, 50),
        format_trace_id(ri.source_trace_id));
  if (ri.diverged)
    s += fmt::format(
        "  DIVERGED: more than {}% of its ops returned another result than recorded; "
        "its times measure something else than the original\n",
        ri.max_divergence_pct);
  // The replayer's mappings, when they came near the kernel's limit (replay.h).
  if (const auto& a = ri.address_space;
      a && a->max_map_count && (a->enomem || a->peak_mappings * 2 >= a->max_map_count)) {
    s += fmt::format("  {:<9} {} at most, {:.0f}% of vm.max_map_count {}; {} address spaces at once", "mappings",
                     a->peak_mappings, 100.0 * double(a->peak_mappings) / double(a->max_map_count), a->max_map_count,
                     a->peak_spaces);
    if (a->enomem) s += fmt::format("; {} mmaps failed with ENOMEM (raise vm.max_map_count)", a->enomem);
    s += "\n";
  }
  for (const std::string& p : ri.problems) s += "  warning: " + p + "\n";
  return s;
}

void group_table(std::string& out, const char* title, const char* key_name, const std::vector<GroupRow>& rows,
                 size_t total, bool with_baseline) {
  out += fmt::format("\n{} (top {} of {})\n", title, rows.size(), total);
  if (with_baseline) {
    out += fmt::format("{:<30} {:>8} {:>11} {:>11} {:>11} {:>8} {:>10}\n", key_name, "count", "baseline", "target",
                       "added", "share", "p99");
    for (const GroupRow& g : rows)
      out += fmt::format("{:<30} {:>8} {:>11} {:>11} {:>11} {:>8} {:>10}\n", fmtx::fit_left(g.key, 30),
                         g.target.count(), ns(g.baseline.sum()), ns(g.target.sum()), signed_ns(g.added_ns),
                         pct(g.share_of_added), ns(g.target.quantile(0.99)));
  } else {
    out += fmt::format("{:<30} {:>8} {:>11} {:>8} {:>10} {:>10} {:>10}\n", key_name, "count", "total", "share", "p50",
                       "p99", "max");
    for (const GroupRow& g : rows)
      out += fmt::format("{:<30} {:>8} {:>11} {:>8} {:>10} {:>10} {:>10}\n", fmtx::fit_left(g.key, 30),
                         g.target.count(), ns(g.target.sum()), pct(g.share_of_added), ns(g.target.quantile(0.5)),
                         ns(g.target.quantile(0.99)), ns(g.target.max()));
  }
}

void dep_wait_table(std::string& out, const DepWaitSummary& d, const char* role) {
  out += fmt::format("\nWaiting on dependencies ({}: {} of {} worker time, {})\n", role, ns(d.wait_ns), ns(d.worker_ns),
                     d.worker_ns ? pct(double(d.wait_ns) / double(d.worker_ns)) : "-");
  out += fmt::format("  calls in flight while any is: original {}, replay {}\n",
                     d.overlap_recorded ? fmt::format("{:.2f}", *d.overlap_recorded) : "-",
                     d.overlap_replayed ? fmt::format("{:.2f}", *d.overlap_replayed) : "-");
  if (d.rows.empty()) return;
  out += fmt::format("{:<24} {:>8} {:>11} {:>8}\n", "released last by", "ops", "wait", "share");
  for (const DepWaitRow& w : d.rows)
    out += fmt::format("{:<24} {:>8} {:>11} {:>8}\n", dep_kind_name(w.kind), w.ops, ns(w.wait_ns),
                       d.wait_ns ? pct(double(w.wait_ns) / double(d.wait_ns)) : "-");
}

// Repeated runs: per row (wall, then each class), each mount's median with
// its interval and spread, and its ratio against mount 1 with the ratio's
// interval, marked where that interval excludes 1.
std::string runs_block(const Comparison& c) {
  std::string out = fmt::format(
      "\nRuns: {} of each mount. Median [{:.0f}% interval of the median, bootstrap], sd;\n"
      "ratio against [1] [its interval], * where it excludes 1 (a difference beyond the runs' spread)\n",
      c.runs, kConfidence * 100);
  using fmtx::ns_of;
  auto block = [&](std::string_view name, auto values_of) {
    if (c.columns.empty()) return;
    out += fmt::format("  {}\n", name);
    const std::vector<double> first = values_of(c.columns[0]);
    for (size_t i = 0; i < c.columns.size(); ++i) {
      const std::vector<double> v = values_of(c.columns[i]);
      const Spread s = spread_of(v);
      std::string line = fmt::format("    [{}] {:<10} {:>9}", i + 1, fmtx::fit_left(c.columns[i].run.short_label, 10),
                                     ns_of(s.median));
      line += s.has_interval() ? fmt::format("  [{}, {}]  sd {}", ns_of(s.lo), ns_of(s.hi), ns_of(s.sd))
                               : fmt::format("  ({} run{}: no interval)", s.n, s.n == 1 ? "" : "s");
      if (i > 0) {
        const RatioSpread r = ratio_of(v, first);
        line += fmt::format("   {}", ratio(r.ratio));
        if (r.has_interval) line += fmt::format(" [{}, {}]{}", ratio(r.lo), ratio(r.hi), r.significant ? " *" : "");
      }
      out += line + "\n";
    }
  };
  block("wall", [](const CompareColumn& col) { return col.walls_ns; });
  for (SyscallClass cls : c.classes)
    block(class_name(cls), [cls](const CompareColumn& col) {
      std::vector<double> v;
      for (const auto& by : col.class_ns) v.push_back(by[size_t(cls)]);
      return v;
    });
  for (const std::string& w : c.run_warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace

std::string render_report_text(const Report& r) {
  std::string out = "fsreplay report\n";
  out += run_line("target", r.target);
  if (r.baseline) {
    out += run_line("baseline", *r.baseline);
    const double x = r.baseline->wall_ns ? double(r.target.wall_ns) / double(r.baseline->wall_ns) : 0;
    out +=
        fmt::format("  slowdown  {} ({} wall)\n", r.baseline->wall_ns ? ratio(x) : "-", signed_ns(r.split->wall_delta));
  }

  out += "\nTime by syscall class (sum of op latencies)\n";
  if (r.baseline) {
    out += fmt::format("{:<10} {:>8} {:>11} {:>11} {:>8} {:>11} {:>8} {:>10} {:>10}\n", "class", "count", "baseline",
                       "target", "ratio", "added", "share", "p50", "p99");
    for (const ClassRow& c : r.classes)
      out +=
          fmt::format("{:<10} {:>8} {:>11} {:>11} {:>8} {:>11} {:>8} {:>10} {:>10}\n", class_name(c.cls),
                      c.target.count(), ns(c.baseline.sum()), ns(c.target.sum()), ratio(c.ratio), signed_ns(c.added_ns),
                      pct(c.share_of_added), ns(c.target.quantile(0.5)), ns(c.target.quantile(0.99)));
  } else {
    out += fmt::format("{:<10} {:>8} {:>11} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "class", "count", "total", "mean",
                       "p50", "p90", "p99", "max");
    for (const ClassRow& c : r.classes)
      out += fmt::format("{:<10} {:>8} {:>11} {:>10} {:>10} {:>10} {:>10} {:>10}\n", class_name(c.cls),
                         c.target.count(), ns(c.target.sum()), ns(c.target.rounded_mean()), ns(c.target.quantile(0.5)),
                         ns(c.target.quantile(0.9)), ns(c.target.quantile(0.99)), ns(c.target.max()));
  }

  out += fmt::format("\nWall time along the critical path ({} ops on the path)\n", r.target_path.path_ops);
  if (r.split) {
    out +=
        fmt::format("{:<24} {:>11} {:>11} {:>11} {:>19}\n", "part", "baseline", "target", "delta", "share of slowdown");
    const double wd = double(r.split->wall_delta);
    auto line = [&](std::string_view name, uint64_t b, uint64_t t, int64_t d) {
      out += fmt::format("{:<24} {:>11} {:>11} {:>11} {:>19}\n", name, ns(b), ns(t), signed_ns(d),
                         wd != 0 ? pct(double(d) / wd) : "-");
    };
    for (const ClassRow& c : r.classes)
      line(class_name(c.cls), c.baseline_path_ns, c.path_ns, r.split->class_delta[size_t(c.cls)]);
    line("compute (think time)", r.baseline_path.compute_ns, r.target_path.compute_ns, r.split->compute_delta);
    line("unexplained (residue)", r.baseline_path.unexplained_ns, r.target_path.unexplained_ns,
         r.split->unexplained_delta);
    line("wall", r.baseline_path.wall_ns, r.target_path.wall_ns, r.split->wall_delta);
  } else {
    out += fmt::format("{:<24} {:>11} {:>13}\n", "part", "on path", "share of wall");
    const double w = double(r.target_path.wall_ns);
    auto line = [&](std::string_view name, uint64_t t) {
      out += fmt::format("{:<24} {:>11} {:>13}\n", name, ns(t), w > 0 ? pct(double(t) / w) : "-");
    };
    for (const ClassRow& c : r.classes) line(class_name(c.cls), c.path_ns);
    line("compute (think time)", r.target_path.compute_ns);
    line("unexplained (residue)", r.target_path.unexplained_ns);
    line("wall", r.target_path.wall_ns);
  }

  dep_wait_table(out, r.dep_wait, "target");
  if (r.baseline_dep_wait) dep_wait_table(out, *r.baseline_dep_wait, "baseline");

  const bool b = r.baseline.has_value();
  group_table(out, b ? "Top processes by added time" : "Top processes by time", "process", r.processes,
              r.processes_total, b);
  group_table(out, b ? "Top directories by added time" : "Top directories by time",
              fmt::format("directory (depth {})", r.dir_depth).c_str(), r.dirs, r.dirs_total, b);
  return out;
}

std::string render_compare_text(const Comparison& c) {
  std::string out = "fsreplay compare\n";
  for (size_t i = 0; i < c.columns.size(); ++i) {
    const RunInfo& ri = c.columns[i].run;
    out += fmt::format("  [{}] {}  ops {}{}{}\n", i + 1, fmtx::fit_left(ri.label, 70), ri.ops,
                       ri.diverged ? "  DIVERGED" : "", ri.different_trace ? "  DIFFERENT TRACE" : "");
    if (!ri.placement.empty()) out += fmt::format("      placed: {}\n", describe_placement(ri.placement));
    if (ri.different_trace)
      out += fmt::format("      replays {} (trace id {}), not [1]'s trace\n",
                         fmtx::fit_left(ri.source_trace.empty() ? std::string("?") : ri.source_trace, 40),
                         format_trace_id(ri.source_trace_id));
    for (const std::string& p : ri.problems) out += "      warning: " + p + "\n";
  }
  // Columns: value per mount, then "k/1" after every mount but the first. More
  // than four mounts do not fit 100 columns: further blocks repeat mount 1.
  constexpr size_t kPerBlock = 3;
  for (size_t b = 1; b < std::max<size_t>(c.columns.size(), 2); b += kPerBlock) {
    std::vector<size_t> cols{0};
    for (size_t i = b; i < std::min(c.columns.size(), b + kPerBlock); ++i) cols.push_back(i);
    out += "\n";
    auto head = fmt::format("{:<12}", "class");
    for (size_t i : cols) {
      head += fmt::format(" {:>12}", fmt::format("[{}] {}", i + 1, fmtx::fit_left(c.columns[i].run.short_label, 8)));
      if (i > 0) head += fmt::format(" {:>7}", fmt::format("{}/1", i + 1));
    }
    out += head + "\n";
    // Columns of another trace say so under their mount (same_trace.h).
    bool any_different = false;
    for (size_t i : cols) any_different = any_different || (i < c.columns.size() && c.columns[i].run.different_trace);
    if (any_different) {
      std::string note = fmt::format("{:<12}", "");
      for (size_t i : cols) {
        note += fmt::format(" {:>12}", i < c.columns.size() && c.columns[i].run.different_trace ? "diff. trace" : "");
        if (i > 0) note += fmt::format(" {:>7}", "");
      }
      while (!note.empty() && note.back() == ' ') note.pop_back();
      out += note + "\n";
    }
    auto row = [&](std::string_view name, auto value_of) {
      std::string line = fmt::format("{:<12}", name);
      const uint64_t first = c.columns.empty() ? 0 : value_of(c.columns[0]);
      for (size_t i : cols) {
        if (i >= c.columns.size()) break;  // no results at all
        const uint64_t v = value_of(c.columns[i]);
        line += fmt::format(" {:>12}", ns(v));
        if (i > 0) line += fmt::format(" {:>7}", first ? ratio(double(v) / double(first)) : "-");
      }
      out += line + "\n";
    };
    row("wall", [](const CompareColumn& col) { return col.run.wall_ns; });
    for (SyscallClass cls : c.classes)
      row(class_name(cls), [cls](const CompareColumn& col) { return col.stats.by_class[size_t(cls)].sum(); });
  }
  bool any_recording = false;
  for (const CompareColumn& col : c.columns) any_recording = any_recording || col.run.recording;
  out += any_recording ? "\n(class rows: sum of op latencies, a recording's as recorded; wall: replay wall time, "
                         "a recording's span)\n"
                       : "\n(class rows: sum of op latencies; wall: replay wall time)\n";
  if (c.runs > 1) {
    out += "(each mount's median run)\n";
    out += runs_block(c);
  }
  if (c.behaviour_compared) {
    out += fmt::format(
        "\nBehaviour diff: where the recordings did different work (calls; rows where one differs "
        "from the first recording by >= {} calls and >= {:.0f}%)\n",
        kBehaviourMinCalls, kBehaviourMinShare * 100);
    if (c.behaviour.empty()) {
      out += "  none: the recordings made the same calls; a replay of either stands for both\n";
    } else {
      std::string head = fmt::format("  {:<10} {:<32}", "kind", "key");
      for (size_t i = 0; i < c.columns.size(); ++i)
        if (c.columns[i].run.recording) head += fmt::format(" {:>10}", fmt::format("[{}]", i + 1));
      out += head + "\n";
      for (const BehaviourRow& r : c.behaviour) {
        std::string line = fmt::format("  {:<10} {:<32}", r.kind, fmtx::fit_left(r.key, 32));
        for (size_t i = 0; i < c.columns.size(); ++i)
          if (c.columns[i].run.recording) line += fmt::format(" {:>10}", r.calls[i]);
        out += line + "\n";
      }
      if (c.behaviour_rows > c.behaviour.size())
        out += fmt::format("  ({} more rows)\n", c.behaviour_rows - c.behaviour.size());
      out += "  A replay of one recording sends what that run did, not what a run on the other mount does.\n";
    }
  }
  return out;
}

}  // namespace fsr
