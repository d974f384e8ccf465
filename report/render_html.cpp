// SPDX-License-Identifier: Apache-2.0
#include "report/render_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/format.h"

namespace fsr {
namespace {

std::string esc(std::string_view s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += ch;
    }
  }
  return o;
}

// One colour per class (ColorBrewer-like, readable on white), then compute, unexplained.
const char* kClassColors[kClassCount] = {"#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0",
                                         "#f032e6", "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#800000",
                                         "#aaffc3", "#808000", "#ffd8b1", "#000075", "#a9a9a9", "#5f5f5f"};
constexpr const char* kComputeColor = "#cfcfcf";
constexpr const char* kUnexplainedColor = "#f2f2f2";
const char* kLineColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

struct Segment {
  std::string name;
  const char* color;
  uint64_t ns;
};

// Horizontal stacked bars, one per mount, all on the same scale.
std::string stacked_bars(const std::string& id, const std::vector<std::string>& labels,
                         const std::vector<std::vector<Segment>>& bars) {
  const int label_w = 200, bar_w = 700, row_h = 34, top = 10;
  uint64_t max_total = 1;
  for (const auto& b : bars) {
    uint64_t t = 0;
    for (const Segment& s : b) t += s.ns;
    max_total = std::max(max_total, t);
  }
  const int h = top + int(bars.size()) * row_h + 24;
  std::string o = fmt::format(
      "<svg class=\"fsr-chart stacked\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" role=\"img\">\n",
      id, label_w + bar_w + 110, h);
  for (size_t i = 0; i < bars.size(); ++i) {
    const int y = top + int(i) * row_h;
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"lbl\">{}</text>\n", label_w - 8, y + 18,
                     esc(fmtx::fit_left(labels[i], 28)));
    double x = label_w;
    uint64_t total = 0;
    for (const Segment& s : bars[i]) {
      total += s.ns;
      const double w = double(s.ns) / double(max_total) * bar_w;
      if (w <= 0) continue;
      o += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"24\" fill=\"{}\" stroke=\"#fff\" "
          "stroke-width=\"0.5\"><title>{}: {}</title></rect>\n",
          x, y, w, s.color, esc(s.name), fmtx::ns(s.ns));
      x += w;
    }
    o += fmt::format("<text x=\"{:.2f}\" y=\"{}\" class=\"val\">{}</text>\n", x + 6, y + 18, fmtx::ns(total));
  }
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", label_w, top - 2, label_w,
                   h - 20);
  o += "</svg>\n";
  return o;
}

std::string legend(const std::vector<Segment>& items) {
  std::string o = "<div class=\"legend\">";
  for (const Segment& s : items)
    o += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", s.color, esc(s.name));
  return o + "</div>\n";
}

// Latency CDF of one class: x = latency (log scale), y = fraction of calls.
std::string cdf_chart(SyscallClass cls, const Comparison& c) {
  const int w = 420, h = 240, l = 46, r = 28, t = 26, b = 36;
  uint64_t lo = UINT64_MAX, hi = 1;
  for (const CompareColumn& col : c.columns) {
    const LogHistogram& hg = col.stats.by_class[size_t(cls)];
    if (hg.count() == 0) continue;
    lo = std::min(lo, std::max<uint64_t>(hg.min(), 1));
    hi = std::max(hi, hg.max());
  }
  if (lo == UINT64_MAX) return {};
  double llo = std::floor(std::log10(double(lo))), lhi = std::ceil(std::log10(double(hi)));
  if (lhi <= llo) lhi = llo + 1;
  auto X = [&](uint64_t v) {
    const double lv = std::log10(double(std::max<uint64_t>(v, 1)));
    return l + (lv - llo) / (lhi - llo) * (w - l - r);
  };
  auto Y = [&](double f) { return t + (1.0 - f) * (h - t - b); };
  std::string o = fmt::format(
      "<svg class=\"fsr-chart cdf\" id=\"cdf-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" role=\"img\">\n<text x=\"{}\" y=\"16\" class=\"ttl\">{}: latency CDF</text>\n",
      class_name(cls), w, h, l, class_name(cls));
  for (double e = llo; e <= lhi; e += 1) {
    const double x = X(uint64_t(std::pow(10.0, e)));
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" class=\"ax\">{4}</text>\n",
        x, t, h - b, h - b + 14, fmtx::ns(uint64_t(std::pow(10.0, e))));
  }
  for (double f : {0.0, 0.5, 0.9, 1.0})
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" class=\"grid\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" class=\"ax\">{5}</text>\n",
        l, Y(f), w - r, l - 4, Y(f) + 4, fmt::format("{:.0f}%", f * 100));
  for (size_t i = 0; i < c.columns.size(); ++i) {
    const LogHistogram& hg = c.columns[i].stats.by_class[size_t(cls)];
    if (hg.count() == 0) continue;
    std::string pts = fmt::format("{:.1f},{:.1f}", X(hg.min()), Y(0));
    uint64_t seen = 0;
    for (const LogHistogram::Bucket& bk : hg.buckets()) {
      const double y0 = Y(double(seen) / double(hg.count()));
      seen += bk.count;
      pts += fmt::format(" {0:.1f},{1:.1f} {0:.1f},{2:.1f}", X(bk.value), y0, Y(double(seen) / double(hg.count())));
    }
    // Later mounts dashed, so identical distributions stay visible.
    o += fmt::format(
        "<polyline class=\"cdfline\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\">"
        "<title>{}</title></polyline>\n",
        kLineColors[i % std::size(kLineColors)], i ? " stroke-dasharray=\"6 4\"" : "", pts,
        esc(c.columns[i].run.label));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"ax\">latency (log)</text>\n",
                   (l + w - r) / 2, h - 4);
  return o + "</svg>\n";
}

// A column's header: its mount, and a different workload said so (same_trace.h).
std::string column_head(const RunInfo& ri) {
  return ri.different_trace ? ri.short_label + " (different trace)" : ri.short_label;
}

// Top groups across mounts, ordered by time added in the last mount over the first.
std::string group_table(const std::string& id, const char* title, const char* key_name, const Comparison& c,
                        const std::map<std::string, LogHistogram> ResultStats::*member, size_t top) {
  std::map<std::string, std::vector<uint64_t>> totals;
  for (size_t i = 0; i < c.columns.size(); ++i)
    for (const auto& [k, h] : c.columns[i].stats.*member) {
      auto& v = totals[k];
      v.resize(c.columns.size(), 0);
      v[i] = h.sum();
    }
  std::vector<std::pair<std::string, std::vector<uint64_t>>> rows(totals.begin(), totals.end());
  auto key = [&](const std::vector<uint64_t>& v) {
    return c.columns.size() > 1 ? int64_t(v.back()) - int64_t(v.front()) : int64_t(v.front());
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const auto& a, const auto& b) { return key(a.second) > key(b.second); });
  if (rows.size() > top) rows.resize(top);
  std::string o = fmt::format("<h2>{}</h2>\n<table id=\"{}\"><tr><th>{}</th>", title, id, key_name);
  for (const CompareColumn& col : c.columns) o += "<th>" + esc(column_head(col.run)) + "</th>";
  if (c.columns.size() > 1) o += "<th>added (last &minus; first)</th>";
  o += "</tr>\n";
  for (const auto& [k, v] : rows) {
    o += "<tr><td class=\"k\">" + esc(k) + "</td>";
    for (uint64_t x : v) o += "<td>" + fmtx::ns(x) + "</td>";
    if (c.columns.size() > 1) o += "<td>" + fmtx::signed_ns(key(v)) + "</td>";
    o += "</tr>\n";
  }
  return o + "</table>\n";
}

// Where the workers waited on each other, per mount: one column per result.
std::string dep_wait_html(const Comparison& c) {
  std::string o = "<h2>Waiting on dependencies</h2>\n<table id=\"dep-wait\"><tr><th>released last by</th>";
  for (const CompareColumn& col : c.columns) o += "<th>" + esc(column_head(col.run)) + "</th>";
  o += "</tr>\n";
  auto row = [&](const std::string& name, auto cell) {
    o += "<tr><td class=\"k\">" + esc(name) + "</td>";
    for (const CompareColumn& col : c.columns) o += "<td>" + cell(col.dep_wait) + "</td>";
    o += "</tr>\n";
  };
  row("all (share of worker time)", [](const DepWaitSummary& d) {
    return fmtx::ns(d.wait_ns) + " (" + (d.worker_ns ? fmtx::pct(double(d.wait_ns) / double(d.worker_ns)) : "-") + ")";
  });
  for (size_t k = 1; k < static_cast<size_t>(DepKind::kCount); ++k) {
    const auto kind = static_cast<DepKind>(k);
    bool any = false;
    for (const CompareColumn& col : c.columns)
      for (const DepWaitRow& w : col.dep_wait.rows) any = any || w.kind == kind;
    if (!any) continue;
    row(dep_kind_name(kind), [kind](const DepWaitSummary& d) {
      for (const DepWaitRow& w : d.rows)
        if (w.kind == kind) return fmtx::ns(w.wait_ns) + " / " + std::to_string(w.ops) + " ops";
      return std::string("-");
    });
  }
  auto fl = [](std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); };
  row("calls in flight: original", [&](const DepWaitSummary& d) { return fl(d.overlap_recorded); });
  row("calls in flight: replay", [&](const DepWaitSummary& d) { return fl(d.overlap_replayed); });
  return o + "</table>\n";
}

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1150px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}
th{background:#f4f4f4}td.k{text-align:left;font-family:monospace}
.legend span{display:inline-block;margin:2px 12px 2px 0}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
svg text{font:12px system-ui,sans-serif}svg .ax{font-size:10px;fill:#555}svg .ttl{font-weight:bold}
svg .grid{stroke:#e4e4e4}.cdfs svg{margin:4px 8px 4px 0;border:1px solid #eee}
</style>
)";

// Where two recordings or more did different work (compare.h): the
// behaviour diff's table, or that there is none.
std::string behaviour_html(const Comparison& c) {
  std::string o;
  o += fmt::format(
      "<h2>Behaviour diff: where the recordings did different work</h2>\n<p>Calls; rows where a "
      "recording differs from the first one by at least {} calls and {:.0f}%. A replay of one "
      "recording sends what that run did, not what a run on the other mount does.</p>\n",
      kBehaviourMinCalls, kBehaviourMinShare * 100);
  if (c.behaviour.empty()) {
    o += "<p id=\"behaviour-diff\">None: the recordings made the same calls.</p>\n";
  } else {
    o += "<table id=\"behaviour-diff\"><tr><th>kind</th><th>key</th>";
    for (size_t i = 0; i < c.columns.size(); ++i)
      if (c.columns[i].run.recording) o += fmt::format("<th>[{}] {}</th>", i + 1, esc(c.columns[i].run.short_label));
    o += "</tr>\n";
    for (const BehaviourRow& r : c.behaviour) {
      o += fmt::format("<tr><td class=\"k\">{}</td><td class=\"k\">{}</td>", esc(r.kind), esc(r.key));
      for (size_t i = 0; i < c.columns.size(); ++i)
        if (c.columns[i].run.recording) o += fmt::format("<td>{}</td>", r.calls[i]);
      o += "</tr>\n";
    }
    o += "</table>\n";
  }
  return o;
}

}  // namespace

std::string render_html(const Comparison& c, const HtmlOptions& opt) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + esc(opt.title) +
                  "</title>\n" + kStyle + "</head><body>\n<h1>" + esc(opt.title) +
                  "</h1>\n<table id=\"runs\">"
                  "<tr><th>#</th><th>mount</th><th>wall</th><th>ops</th><th>wall vs first</th></tr>\n";
  for (size_t i = 0; i < c.columns.size(); ++i) {
    const RunInfo& ri = c.columns[i].run;
    const uint64_t first = c.columns[0].run.wall_ns;
    o += fmt::format(
        "<tr><td>{}</td><td class=\"k\">{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", i + 1,
        esc(ri.label) +
            (ri.different_trace ? " <b class=\"diverged\">DIFFERENT TRACE: " + esc(ri.source_trace) + "</b>" : ""),
        ri.diverged ? " <b class=\"diverged\">DIVERGED</b>" : "", fmtx::ns(ri.wall_ns), ri.ops,
        first ? fmtx::ratio(double(ri.wall_ns) / double(first)) : "-");
  }
  o += "</table>\n";

  std::vector<std::string> labels;
  for (const CompareColumn& col : c.columns) labels.push_back(col.run.label);
  std::vector<Segment> legend_items;
  for (SyscallClass cls : c.classes)
    legend_items.push_back({std::string(class_name(cls)), kClassColors[size_t(cls)], 0});

  o += "<h2>Wall time along the critical path, by class</h2>\n";
  std::vector<std::vector<Segment>> wall_bars;
  for (const CompareColumn& col : c.columns) {
    std::vector<Segment> segs;
    for (SyscallClass cls : c.classes)
      segs.push_back({std::string(class_name(cls)), kClassColors[size_t(cls)], col.path.class_ns[size_t(cls)]});
    segs.push_back({"compute (think time)", kComputeColor, col.path.compute_ns});
    segs.push_back({"unexplained", kUnexplainedColor, col.path.unexplained_ns});
    wall_bars.push_back(std::move(segs));
  }
  o += stacked_bars("stacked-wall", labels, wall_bars);
  auto wall_legend = legend_items;
  wall_legend.push_back({"compute (think time)", kComputeColor, 0});
  wall_legend.push_back({"unexplained", kUnexplainedColor, 0});
  o += legend(wall_legend);

  if (c.columns.size() > 1) {
    const CompareColumn& a = c.columns.front();
    const CompareColumn& b = c.columns.back();
    const WallSplit s = split_wall(b.path, a.path);
    o += fmt::format("<h2>Where the wall-time difference comes from ({} vs {})</h2>\n", esc(b.run.short_label),
                     esc(a.run.short_label));
    o += "<table id=\"wall-split\"><tr><th>part</th><th>delta</th><th>share of slowdown</th></tr>\n";
    auto row = [&](std::string_view name, int64_t d) {
      o += fmt::format("<tr><td class=\"k\">{}</td><td>{}</td><td>{}</td></tr>\n", name, fmtx::signed_ns(d),
                       s.wall_delta ? fmtx::pct(double(d) / double(s.wall_delta)) : "-");
    };
    for (SyscallClass cls : c.classes) row(class_name(cls), s.class_delta[size_t(cls)]);
    row("compute (think time)", s.compute_delta);
    row("unexplained (residue)", s.unexplained_delta);
    row("wall", s.wall_delta);
    o += "</table>\n";
  }

  o += "<h2>Summed latency by class</h2>\n";
  std::vector<std::vector<Segment>> sum_bars;
  for (const CompareColumn& col : c.columns) {
    std::vector<Segment> segs;
    for (SyscallClass cls : c.classes)
      segs.push_back({std::string(class_name(cls)), kClassColors[size_t(cls)], col.stats.by_class[size_t(cls)].sum()});
    sum_bars.push_back(std::move(segs));
  }
  o += stacked_bars("stacked-latency", labels, sum_bars);
  o += legend(legend_items);

  o += "<h2>Latency CDFs per class</h2>\n<div class=\"legend\">";
  for (size_t i = 0; i < c.columns.size(); ++i)
    o += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kLineColors[i % std::size(kLineColors)],
                     esc(c.columns[i].run.label));
  o += "</div>\n<div class=\"cdfs\">\n";
  for (SyscallClass cls : c.classes) o += cdf_chart(cls, c);
  o += "</div>\n";

  o += dep_wait_html(c);
  o += group_table("top-processes", "Top processes", "process", c, &ResultStats::by_process, opt.top);
  o += group_table("top-dirs", "Top directories", "directory", c, &ResultStats::by_dir, opt.top);
  if (c.behaviour_compared) o += behaviour_html(c);  // two recordings or more (compare.h)
  o += "</body></html>\n";
  return o;
}

}  // namespace fsr
