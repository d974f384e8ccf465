// SPDX-License-Identifier: Apache-2.0
#include "report/render_table.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/run_spread.h"

namespace fsr {
namespace {

using fmtx::ns;
using fmtx::pct;
using fmtx::ratio;

// A Markdown cell: '|' would end it, a line break the row.
std::string cell(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n' || ch == '\r')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string ns_d(double v) { return fmtx::ns_of(v); }

// Each compare row's values, per mount: the wall or a class's totals (one
// per run; one entry without --runs).
std::vector<std::pair<std::string, std::vector<std::vector<double>>>> compare_rows(const Comparison& c) {
  std::vector<std::pair<std::string, std::vector<std::vector<double>>>> rows;
  auto add = [&](std::string name, auto values_of) {
    std::vector<std::vector<double>> per;
    for (const CompareColumn& col : c.columns) per.push_back(values_of(col));
    rows.emplace_back(std::move(name), std::move(per));
  };
  auto one_or_runs = [&](const CompareColumn& col, double single, auto run_value) {
    if (c.runs <= 1) return std::vector<double>{single};
    std::vector<double> v;
    for (size_t k = 0; k < col.walls_ns.size(); ++k) v.push_back(run_value(k));
    return v;
  };
  add("wall", [&](const CompareColumn& col) {
    return one_or_runs(col, double(col.run.wall_ns), [&](size_t k) { return col.walls_ns[k]; });
  });
  for (SyscallClass cls : c.classes)
    add(std::string(class_name(cls)), [&](const CompareColumn& col) {
      return one_or_runs(col, double(col.stats.by_class[size_t(cls)].sum()),
                         [&](size_t k) { return col.class_ns[k][size_t(cls)]; });
    });
  return rows;
}

}  // namespace

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string render_compare_markdown(const Comparison& c) {
  std::string out;
  for (size_t i = 0; i < c.columns.size(); ++i)
    out += fmt::format(
        "- [{}] {}{}{}\n", i + 1, cell(c.columns[i].run.label), c.columns[i].run.recording ? " (a recording)" : "",
        c.columns[i].run.placement.empty() ? std::string()
                                           : "; placed: " + cell(describe_placement(c.columns[i].run.placement)));
  out += "\n| |";
  for (size_t i = 0; i < c.columns.size(); ++i) {
    out += fmt::format(" [{}] {} |", i + 1, cell(c.columns[i].run.short_label));
    if (i > 0) out += fmt::format(" {}/1 |", i + 1);
  }
  out += "\n|---|";
  for (size_t i = 0; i < c.columns.size(); ++i) out += i > 0 ? "---:|---:|" : "---:|";
  out += "\n";
  for (const auto& [name, per] : compare_rows(c)) {
    out += fmt::format("| {} |", name);
    for (size_t i = 0; i < per.size(); ++i) {
      const Spread s = spread_of(per[i]);
      out += s.has_interval() ? fmt::format(" {} [{}, {}] |", ns_d(s.median), ns_d(s.lo), ns_d(s.hi))
                              : fmt::format(" {} |", ns_d(s.median));
      if (i == 0) continue;
      const RatioSpread r = ratio_of(per[i], per[0]);
      out +=
          r.has_interval
              ? fmt::format(" {} [{}, {}]{} |", ratio(r.ratio), ratio(r.lo), ratio(r.hi), r.significant ? " \\*" : "")
              : fmt::format(" {} |", per[0].empty() || spread_of(per[0]).median <= 0 ? "-" : ratio(r.ratio));
    }
    out += "\n";
  }
  out += c.runs > 1 ? fmt::format(
                          "\nMedians of {} runs per mount, [{:.0f}% interval of the median, bootstrap]; ratios "
                          "against [1], \\* where the ratio's interval excludes 1.\n",
                          c.runs, kConfidence * 100)
                    : "\nOne run per mount: no interval (`--runs N` gives them).\n";
  out += "Class rows: summed op latencies; wall: the replay's wall time (a recording's span).\n";
  return out;
}

std::string render_compare_csv(const Comparison& c) {
  std::string out =
      "row,mount,label,runs,median_ns,median_lo_ns,median_hi_ns,ratio_to_first,ratio_lo,ratio_hi,significant\n";
  for (const auto& [name, per] : compare_rows(c)) {
    for (size_t i = 0; i < per.size(); ++i) {
      const Spread s = spread_of(per[i]);
      out +=
          fmt::format("{},{},{},{},{:.0f},", csv_field(name), i + 1, csv_field(c.columns[i].run.label), s.n, s.median);
      out += s.has_interval() ? fmt::format("{:.0f},{:.0f},", s.lo, s.hi) : ",,";
      if (i == 0 || spread_of(per[0]).median <= 0) {
        out += ",,,\n";
        continue;
      }
      const RatioSpread r = ratio_of(per[i], per[0]);
      out += fmt::format("{:.6g},", r.ratio);
      out += r.has_interval ? fmt::format("{:.6g},{:.6g},{}\n", r.lo, r.hi, r.significant ? "yes" : "no") : ",,\n";
    }
  }
  return out;
}

std::string render_report_markdown(const Report& r) {
  const bool b = r.baseline.has_value();
  std::string out = fmt::format("**{}**: wall {}, {} ops", cell(r.target.label), ns(r.target.wall_ns), r.target.ops);
  if (b) out += fmt::format("; baseline **{}**: wall {}", cell(r.baseline->label), ns(r.baseline->wall_ns));
  out += "\n\n";
  if (!r.target.placement.empty()) out += "Placed: " + cell(describe_placement(r.target.placement)) + "\n\n";
  if (b && !r.baseline->placement.empty())
    out += "Baseline placed: " + cell(describe_placement(r.baseline->placement)) + "\n\n";
  out += b ? "| class | count | total | mean | p99 | baseline total | ratio | added | share of added |\n"
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
           : "| class | count | total | mean | p99 | share of wall |\n|---|---:|---:|---:|---:|---:|\n";
  for (const ClassRow& c : r.classes) {
    out += fmt::format("| {} | {} | {} | {} | {} |", class_name(c.cls), c.target.count(), ns(c.target.sum()),
                       ns(c.target.rounded_mean()), ns(c.target.quantile(0.99)));
    out += b ? fmt::format(" {} | {} | {} | {} |\n", ns(c.baseline.sum()), ratio(c.ratio), fmtx::signed_ns(c.added_ns),
                           pct(c.share_of_added))
             : fmt::format(" {} |\n", pct(c.share_of_wall));
  }
  auto groups = [&](const char* title, const std::vector<GroupRow>& rows, size_t total) {
    out += fmt::format("\n{} ({} of {})\n\n", title, rows.size(), total);
    out += b ? "| key | count | total | added | share of added |\n|---|---:|---:|---:|---:|\n"
             : "| key | count | total | p99 |\n|---|---:|---:|---:|\n";
    for (const GroupRow& g : rows)
      out += b ? fmt::format("| {} | {} | {} | {} | {} |\n", cell(g.key), g.target.count(), ns(g.target.sum()),
                             fmtx::signed_ns(g.added_ns), pct(g.share_of_added))
               : fmt::format("| {} | {} | {} | {} |\n", cell(g.key), g.target.count(), ns(g.target.sum()),
                             ns(g.target.quantile(0.99)));
  };
  groups("Processes", r.processes, r.processes_total);
  groups(fmt::format("Directories (depth {})", r.dir_depth).c_str(), r.dirs, r.dirs_total);
  return out;
}

std::string render_report_csv(const Report& r) {
  std::string out = "section,key,count,total_ns,mean_ns,p99_ns,baseline_count,baseline_total_ns,ratio,added_ns\n";
  auto line = [&](std::string_view section, std::string_view key, const LogHistogram& t, const LogHistogram& base,
                  std::optional<double> rt, int64_t added) {
    out += fmt::format("{},{},{},{},{},{},", section, csv_field(key), t.count(), t.sum(), t.rounded_mean(),
                       t.quantile(0.99));
    if (r.baseline)
      out += fmt::format("{},{},{},{}\n", base.count(), base.sum(), rt ? fmt::format("{:.6g}", *rt) : "", added);
    else
      out += ",,,\n";
  };
  out += fmt::format("wall,{},{},{},,,,{},,\n", csv_field(r.target.label), r.target.ops, r.target.wall_ns,
                     r.baseline ? fmt::format("{}", r.baseline->wall_ns) : "");
  for (const ClassRow& c : r.classes) line("class", class_name(c.cls), c.target, c.baseline, c.ratio, c.added_ns);
  for (const GroupRow& g : r.processes) line("process", g.key, g.target, g.baseline, std::nullopt, g.added_ns);
  for (const GroupRow& g : r.dirs) line("directory", g.key, g.target, g.baseline, std::nullopt, g.added_ns);
  return out;
}

}  // namespace fsr
