// SPDX-License-Identifier: Apache-2.0
// advise's output: text, JSON ("fsreplay.advise/1", advise.schema.json),
// Markdown and one HTML page with a chart of the predicted wall per
// placement. Deterministic (golden files): figures through report's fmtx.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "advise/advise.h"
#include "report/format.h"

namespace fsr {
namespace {

constexpr const char* kVerifyNote =
    "verify with the split replay (replay --place, as root): each $FAST/DIR an empty directory on the fast "
    "mount (mkdir -p it)";

std::string moves_of(const PlacedRow& r) {
  std::string out;
  for (const std::string& m : r.moves) out += (out.empty() ? "" : ", ") + m;
  return out.empty() ? "(kept only)" : out;
}

std::string header_line(const Advice& a) {
  return fmt::format(
      "fsreplay advise: {} ({} events), recorded root {}\nDirectories move to {} ({}), up to {} at "
      "once. PREDICTED, not measured.\n",
      a.trace, a.events, a.root, a.fast_name, a.fast_file, a.max_moves);
}

std::string config_line(const ConfigAdvice& c, const Advice& a) {
  return fmt::format("The tree on {} ({}): all on {} {}, all on {} {} (slowdown {}); {} placements predicted{}", c.name,
                     c.file, c.name, fmtx::ns(c.all_slow_ns), a.fast_name, fmtx::ns(c.all_fast_ns),
                     fmtx::signed_ns(int64_t(c.all_slow_ns) - int64_t(c.all_fast_ns)), c.evaluated,
                     c.exact ? " (every combination)" : " (beam search: too many combinations)");
}

std::string candidates_line(const ConfigAdvice& c) {
  std::string out;
  for (const Candidate& d : c.candidates)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", d.dir, fmtx::pct(d.share));
  return out.empty() ? "none" : out;
}

// The directories of the ranked rows, each once, in order of first mention.
std::vector<std::pair<std::string, const PlacedRow*>> moved_dirs(const Advice& a) {
  std::vector<std::pair<std::string, const PlacedRow*>> out;
  std::set<std::string> seen;
  for (const ConfigAdvice& c : a.configs)
    for (const PlacedRow& r : c.ranked)
      for (const std::string& m : r.moves)
        if (seen.insert(m).second) out.push_back({m, &r});
  return out;
}

std::string text(const Advice& a) {
  std::string o = header_line(a);
  if (!a.keep.empty()) {
    o += "Kept:";
    for (const std::string& k : a.keep) o += " " + k;
    o += "\n";
  }
  for (const ConfigAdvice& c : a.configs) {
    o += "\n" + config_line(c, a) + "\n";
    o += "  candidates (share of the slowdown): " + candidates_line(c) + "\n";
    if (c.ranked.empty()) continue;
    o += fmt::format("  {:>2}  {:<40} {:>10} {:>10} {:>8} {:>9}\n", "#", "on " + a.fast_name, "predicted", "saving",
                     "saving%", "recovered");
    for (size_t k = 0; k < c.ranked.size(); ++k) {
      const PlacedRow& r = c.ranked[k];
      o += fmt::format("  {:>2}  {:<40} {:>10} {:>10} {:>8} {:>9}\n", k + 1, fmtx::fit_left(moves_of(r), 40),
                       fmtx::ns(r.wall_ns), fmtx::signed_ns(r.saving_ns), fmtx::pct(r.saving), fmtx::pct(r.recovered));
    }
    o += "  verify #1: " + c.ranked[0].verify + "\n";
  }
  const auto dirs = moved_dirs(a);
  if (!dirs.empty()) o += "\nHow to move each directory ($FAST: a directory on " + a.fast_name + "):\n";
  for (const auto& [dir, row] : dirs) {
    o += "  " + dir + "\n";
    for (const Realisation& x : realisations(dir, a.root)) o += fmt::format("    {}: {}\n", x.how, x.command);
  }
  o += std::string("\n(") + kVerifyNote + ")\n";
  if (!a.verdict.empty()) o += "\n" + a.verdict + "\n";
  for (const std::string& p : a.problems) o += "warning: " + p + "\n";
  for (const std::string& n : a.notes) o += "assumed: " + n + "\n";
  return o;
}

std::string markdown(const Advice& a) {
  std::string o = "## fsreplay advise (predicted)\n\n" + header_line(a) + "\n";
  if (!a.keep.empty()) o += "Kept: " + fmt::format("{}", fmt::join(a.keep, ", ")) + "\n\n";
  for (const ConfigAdvice& c : a.configs) {
    o += "### The tree on " + c.name + "\n\n" + config_line(c, a) + "\n\nCandidates: " + candidates_line(c) + "\n\n";
    if (c.ranked.empty()) continue;
    o += "| # | on " + a.fast_name + " | predicted | saving | saving % | recovered | verify |\n";
    o += "|---|---|---:|---:|---:|---:|---|\n";
    for (size_t k = 0; k < c.ranked.size(); ++k) {
      const PlacedRow& r = c.ranked[k];
      o += fmt::format("| {} | {} | {} | {} | {} | {} | `{}` |\n", k + 1, moves_of(r), fmtx::ns(r.wall_ns),
                       fmtx::signed_ns(r.saving_ns), fmtx::pct(r.saving), fmtx::pct(r.recovered), r.verify);
    }
    o += "\n";
  }
  const auto dirs = moved_dirs(a);
  if (!dirs.empty()) o += "### How to move each directory ($FAST: a directory on " + a.fast_name + ")\n\n";
  for (const auto& [dir, row] : dirs)
    for (const Realisation& x : realisations(dir, a.root))
      o += fmt::format("- `{}`, {}: `{}`\n", dir, x.how, x.command);
  o += std::string("\n_") + kVerifyNote + "._\n";
  if (!a.verdict.empty()) o += "\n**" + a.verdict + "**\n";
  for (const std::string& p : a.problems) o += "\n- warning: " + p;
  for (const std::string& n : a.notes) o += "\n- assumed: " + n;
  return o + "\n";
}

nlohmann::json json(const Advice& a) {
  using J = nlohmann::json;
  J configs = J::array();
  for (const ConfigAdvice& c : a.configs) {
    J cands = J::array(), rows = J::array();
    for (const Candidate& d : c.candidates)
      cands.push_back({{"dir", d.dir}, {"added_ns", d.added_ns}, {"share", d.share}});
    for (size_t k = 0; k < c.ranked.size(); ++k) {
      const PlacedRow& r = c.ranked[k];
      J how = J::array();
      for (const Realisation& x : r.realise) how.push_back({{"how", x.how}, {"command", x.command}});
      rows.push_back({{"rank", k + 1},
                      {"moves", r.moves},
                      {"wall_ns", r.wall_ns},
                      {"saving_ns", r.saving_ns},
                      {"saving", r.saving},
                      {"recovered", r.recovered},
                      {"realise", how},
                      {"verify", r.verify}});
    }
    configs.push_back({{"name", c.name},
                       {"profile", c.file},
                       {"all_slow_ns", c.all_slow_ns},
                       {"all_fast_ns", c.all_fast_ns},
                       {"exact", c.exact},
                       {"evaluated", c.evaluated},
                       {"candidates", cands},
                       {"placements", rows}});
  }
  return {{"schema", "fsreplay.advise/1"},
          {"predicted", true},
          {"trace", a.trace},
          {"root", a.root},
          {"events", a.events},
          {"fast", {{"name", a.fast_name}, {"profile", a.fast_file}}},
          {"max_moves", a.max_moves},
          {"keep", a.keep},
          {"configs", configs},
          {"verdict", a.verdict},
          {"verify_note", kVerifyNote},
          {"problems", a.problems},
          {"notes", a.notes}};
}

std::string esc(std::string_view s) {
  std::string o;
  for (char ch : s)
    o += ch == '&' ? "&amp;" : ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '"' ? "&quot;" : std::string(1, ch);
  return o;
}

// One horizontal bar per placement (and the all-on figures), per configuration.
std::string chart(const Advice& a) {
  struct Bar {
    std::string label;
    uint64_t ns;
  };
  std::vector<Bar> bars;
  for (const ConfigAdvice& c : a.configs) {
    bars.push_back({"all on " + c.name, c.all_slow_ns});
    for (const PlacedRow& r : c.ranked) bars.push_back({c.name + ": " + moves_of(r) + " on " + a.fast_name, r.wall_ns});
  }
  if (!a.configs.empty()) bars.push_back({"all on " + a.fast_name, a.configs[0].all_fast_ns});
  uint64_t top = 1;
  for (const Bar& b : bars) top = std::max(top, b.ns);
  const int w = 420, left = 330, row = 22;
  std::string o = fmt::format(
      "<svg class=\"fsr-chart advise\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n"
      "<text x=\"0\" y=\"14\" class=\"ttl\">Predicted wall time per placement</text>\n",
      left + w + 90, 30 + row * bars.size());
  for (size_t k = 0; k < bars.size(); ++k) {
    const double len = double(w) * double(bars[k].ns) / double(top);
    const size_t y = 24 + row * k;
    o += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" "
        "fill=\"#4c78a8\"/><text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
        left - 6, y + 12, esc(fmtx::fit_left(bars[k].label, 52)), left, y, len, left + len + 4, y + 12,
        fmtx::ns(bars[k].ns));
  }
  return o + "</svg>\n";
}

std::string html(const Advice& a) {
  std::string o =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fsreplay advise: " + esc(a.trace) +
      "</title>\n<style>body{font:14px system-ui,sans-serif;margin:1em 2em}svg text{font:12px system-ui,sans-serif}"
      "svg .ttl{font-weight:bold}pre{background:#f6f6f6;padding:8px}</style></head><body>\n"
      "<h1>fsreplay advise (PREDICTED): " +
      esc(a.trace) + "</h1>\n";
  o += chart(a);
  o += "<pre>" + esc(text(a)) + "</pre>\n</body></html>\n";
  return o;
}

}  // namespace

Result<std::string> render_advice(const Advice& a, OutputFormat format) {
  switch (format) {
    case OutputFormat::kText:
      return text(a);
    case OutputFormat::kMarkdown:
      return markdown(a);
    case OutputFormat::kJson:
      return json(a).dump(2) + "\n";
    case OutputFormat::kHtml:
      return html(a);
    default:
      return Status::error("advise: --format is text, json, markdown or html");
  }
}

}  // namespace fsr
