// SPDX-License-Identifier: Apache-2.0
// Rendering of a prediction: the report's own renderers (compare's table, a
// report per mount against the baseline, the HTML page), framed by what
// makes it a prediction: a PREDICTED banner, each profile's fingerprint and
// what predict assumed. JSON schema "fsreplay.predict/1" (predict.schema.json).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predict/predict.h"
#include "predict/validation.h"
#include "report/render_table.h"
#include "report/render_html.h"
#include "report/render_json.h"
#include "report/format.h"
#include "report/render_text.h"
#include "report/run_spread.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

using J = nlohmann::ordered_json;

constexpr const char* kBanner =
    "PREDICTED, not measured: each mount's figures come from simulating the trace's replay plan with "
    "latencies drawn from its profile";

// The probed mount's file-system type with its FUSE subtype ("9p",
// "fuse.sshfs"), as the fingerprint line shows it and the validation table
// names mounts; "" if unknown.
std::string fs_type_of(const nlohmann::json& mount) {
  if (!mount.is_object() || !mount.contains("fs_type") || !mount["fs_type"].is_string()) return {};
  std::string fs = mount["fs_type"].get<std::string>();
  if (mount.contains("fuse_subtype") && mount["fuse_subtype"].is_string() &&
      !mount["fuse_subtype"].get<std::string>().empty() && fs.find('.') == std::string::npos)
    fs += "." + mount["fuse_subtype"].get<std::string>();
  return fs;
}

std::string fs_type_of(const std::string& fingerprint_json) {
  auto j = nlohmann::json::parse(fingerprint_json, nullptr, false);
  return j.is_object() && j.contains("mount") ? fs_type_of(j["mount"]) : std::string();
}

// "linux, /mnt/c on 9p (9p-drvfs), kernel 6.1.0" from a `detect` fingerprint.
std::string fingerprint_line(const std::string& json) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) return "no fingerprint";
  auto s = [](const nlohmann::json& o, const char* k) {
    return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string("?");
  };
  const nlohmann::json m = j.contains("mount") ? j["mount"] : nlohmann::json();
  std::string fs = fs_type_of(m);
  if (fs.empty()) fs = "?";
  return fmt::format("{}, {} on {} ({}), kernel {}", s(j, "platform"), s(m, "mount_point"), fs, s(m, "kind"),
                     s(j, "kernel_release"));
}

ValidatedError column_validation(const PredictColumn& c) {
  return validated_error(validation_table(), c.profile_name, fs_type_of(c.fingerprint_json));
}

J validation_to_json(const ValidatedError& v) {
  J o;
  o["basis"] = v.basis.empty() ? J(nullptr) : J(v.basis);
  o["workloads"] = v.rows.size();
  if (!v.rows.empty()) {
    o["error_pct_min"] = v.min_pct;
    o["error_pct_median"] = v.median_pct;
    o["error_pct_max"] = v.max_pct;
    o["dates"] = J::array({v.first_date, v.last_date});
  }
  o["line"] = validated_error_line(v);
  return o;
}

// The spread of a profile column's wall over its draws: the profile's
// sampling noise alone (not the mount's day-to-day spread, nor predict's
// model error: the validated error, predict/validation.h).
std::string draws_line(const std::vector<double>& walls) {
  if (walls.size() < 2) return "1 draw of the profile's latency sampling (predict --draws N gives its spread)";
  const Spread s = spread_of(walls);
  using fmtx::ns_of;
  const std::string interval =
      s.has_interval() ? fmt::format(" (95% interval {}..{})", ns_of(s.lo), ns_of(s.hi)) : std::string();
  return fmt::format("{} draws of the profile's latency sampling: wall median {}{}, range {}..{} ({:+.1f}%..{:+.1f}%)",
                     walls.size(), ns_of(s.median), interval, ns_of(s.min), ns_of(s.max),
                     s.median > 0 ? 100 * (s.min / s.median - 1) : 0.0,
                     s.median > 0 ? 100 * (s.max / s.median - 1) : 0.0);
}

std::string mbps(uint64_t bytes_per_s) {
  return bytes_per_s ? fmt::format("{:.1f}", double(bytes_per_s) / 1e6) : std::string("-");
}

// A profile column's server: the model simulated, its queue's wait, and
// whether the queue rather than latency makes the predicted time.
std::string server_line(const PredictColumn& c) {
  using fmtx::ns_of;
  const ServerModel& m = c.server.model;
  if (!m.measured()) return "not modelled: every request served at once (no model in the profile)";
  std::string o =
      m.slots == kNoSlotLimit
          ? fmt::format("no slot limit seen (probe's sweep scaled to every concurrency it measured)")
          : fmt::format("{} slot{}, {} service ({} client side per request)", m.slots, m.slots == 1 ? "" : "s",
                        ns_of(double(m.service_ns)), ns_of(double(c.server.client_ns)));
  o += fmt::format("; MB/s read {}/{}, write {}/{} (direct/buffered)", mbps(m.read_bw_direct), mbps(m.read_bw_buffered),
                   mbps(m.write_bw_direct), mbps(m.write_bw_buffered));
  const SimStats& s = c.sim;
  if (!s.queued_ops) return o + "; no request waited";
  o += fmt::format("; queue wait {} over {} ops, {} on the critical path ({:.0f}% of the wall)",
                   ns_of(double(s.queue_wait_ns)), s.queued_ops, ns_of(double(s.path_queue_ns)),
                   s.wall_ns ? 100.0 * double(s.path_queue_ns) / double(s.wall_ns) : 0.0);
  if (queue_dominates(s)) o += ": the mount's queue, not its latency, dominates the predicted time";
  return o;
}

J server_to_json(const PredictColumn& c) {
  const ServerModel& m = c.server.model;
  const SimStats& s = c.sim;
  J o;
  o["measured"] = m.measured();
  o["slots"] = m.slots == kNoSlotLimit ? J(nullptr) : J(m.slots);
  o["no_slot_limit"] = m.slots == kNoSlotLimit;
  o["service_ns"] = m.service_ns;
  o["client_ns"] = c.server.client_ns;
  o["bandwidth_bytes_per_s"] = {{"read_direct", m.read_bw_direct},
                                {"read_buffered", m.read_bw_buffered},
                                {"write_direct", m.write_bw_direct},
                                {"write_buffered", m.write_bw_buffered}};
  o["fit_note"] = m.fit_note;
  o["queue_wait_ns"] = s.queue_wait_ns;
  o["queued_ops"] = s.queued_ops;
  o["slot_wait_ns"] = c.server.totals.slot_wait_ns;
  o["pipe_wait_ns"] = c.server.totals.pipe_wait_ns;
  o["large_transfers"] = c.server.totals.transfers;
  o["critical_path_queue_ns"] = s.path_queue_ns;
  o["queue_share_of_wall"] = s.wall_ns ? double(s.path_queue_ns) / double(s.wall_ns) : 0.0;
  o["queue_dominates"] = queue_dominates(s);
  return o;
}

std::string text(const Prediction& p) {
  std::string o = "fsreplay predict\n  " + std::string(kBanner) + "\n";
  o += fmt::format("  trace      {} ({} events)\n", p.trace, p.events);
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const PredictColumn& c = p.columns[i];
    o += fmt::format("  [{}] {}{}\n", i + 1, c.label, i == 0 ? "  (baseline)" : "");
    if (!c.profile_file.empty()) {
      o += "      profile  " + c.profile_file + "\n";
      o += "      probed   " + c.probed + "\n";
      o += "      mount    " + fingerprint_line(c.fingerprint_json) + "\n";
    } else {
      o += "      " + c.probed + "\n";
    }
    if (!c.draw_walls_ns.empty()) o += "      draws    " + draws_line(c.draw_walls_ns) + "\n";
    if (!c.profile_file.empty()) o += "      validated error " + validated_error_line(column_validation(c)) + "\n";
    if (!c.profile_file.empty()) o += "      server   " + server_line(c) + "\n";
    for (const std::string& a : c.assumptions) o += "      assumed: " + a + "\n";
  }
  for (const std::string& pr : p.problems) o += "  warning: " + pr + "\n";
  o += "\n" + render_compare_text(p.comparison);
  for (size_t i = 0; i < p.reports.size(); ++i) {
    o += fmt::format("\n== PREDICTED: [{}] {} against [1] {} ==\n", i + 2, p.columns[i + 1].label, p.columns[0].label);
    o += render_report_text(p.reports[i]);
  }
  o += "\n(PREDICTED: simulated from profiles; replay on the mount to measure)\n";
  return o;
}

J json(const Prediction& p) {
  J j;
  j["schema"] = "fsreplay.predict/1";
  j["predicted"] = true;
  j["note"] = kBanner;
  j["trace"] = p.trace;
  j["events"] = p.events;
  J cols = J::array();
  for (const PredictColumn& c : p.columns) {
    J o;
    o["label"] = c.label;
    o["profile"] = c.profile_file.empty() ? J(nullptr) : J(c.profile_file);
    o["name"] = c.profile_name;
    auto fp = J::parse(c.fingerprint_json.empty() ? "null" : c.fingerprint_json, nullptr, false);
    o["fingerprint"] = fp.is_discarded() ? J(nullptr) : fp;
    o["probed"] = c.probed;
    o["wall_ns"] = c.sim.wall_ns;
    o["ops"] = c.sim.ops;
    o["assumptions"] = c.assumptions;
    if (!c.draw_walls_ns.empty()) o["draws"] = spread_to_json(c.draw_walls_ns);
    if (!c.profile_file.empty()) o["validated_error"] = validation_to_json(column_validation(c));
    if (!c.placement.empty())
      o["placement"] = {{"rules", c.placement}, {"ops", c.placed.ops}, {"crossing", c.placed.crossing}};
    if (!c.profile_file.empty()) o["server"] = server_to_json(c);
    cols.push_back(std::move(o));
  }
  j["columns"] = cols;
  j["problems"] = p.problems;
  j["warnings"] = p.warnings;
  j["compare"] = compare_to_json(p.comparison);
  J reps = J::array();
  for (const Report& r : p.reports) reps.push_back(report_to_json(r));
  j["reports"] = reps;
  return j;
}

std::string html_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    const char* rep = ch == '&' ? "&amp;" : ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '"' ? "&quot;" : nullptr;
    if (rep)
      o += rep;
    else
      o += ch;
  }
  return o;
}

// The report's page, with what makes it a prediction under its title.
std::string html(const Prediction& p, const ReportOptions& opt) {
  HtmlOptions h;
  h.title = "fsreplay predict (PREDICTED): " + p.trace;
  h.top = opt.top;
  std::vector<std::string> notes{kBanner};
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const PredictColumn& c = p.columns[i];
    std::string n = fmt::format("[{}] {}: ", i + 1, c.label);
    n += c.profile_file.empty()
             ? c.probed
             : "profile " + c.profile_file + ", probed " + c.probed + "; " + fingerprint_line(c.fingerprint_json);
    notes.push_back(n);
    if (!c.draw_walls_ns.empty()) notes.push_back(fmt::format("[{}] {}", i + 1, draws_line(c.draw_walls_ns)));
    if (!c.profile_file.empty()) {
      notes.push_back(fmt::format("[{}] validated error {}", i + 1, validated_error_line(column_validation(c))));
      notes.push_back(fmt::format("[{}] server {}", i + 1, server_line(c)));
    }
    for (const std::string& a : c.assumptions) notes.push_back(fmt::format("[{}] assumed: {}", i + 1, a));
  }
  for (const std::string& pr : p.problems) notes.push_back("warning: " + pr);
  std::string page = render_html(p.comparison, h);
  std::string block;
  for (const std::string& n : notes) block += "<p class=\"predicted-note\">" + html_escape(n) + "</p>\n";
  const size_t at = page.find("</h1>\n");
  page.insert(at == std::string::npos ? 0 : at + 6, block);
  return page;
}

}  // namespace

Result<std::string> render_prediction(const Prediction& p, OutputFormat format, const ReportOptions& opt) {
  switch (format) {
    case OutputFormat::kText:
      return text(p);
    case OutputFormat::kJson:
      return json_text(json(p), 2) + "\n";
    case OutputFormat::kHtml:
      return html(p, opt);
    case OutputFormat::kMarkdown: {  // the columns' table, then what the prediction could not price
      std::string out = "Predicted for " + p.trace + "\n\n" + render_compare_markdown(p.comparison);
      for (size_t i = 0; i < p.columns.size(); ++i)
        if (!p.columns[i].profile_file.empty())
          out += fmt::format("\n- [{}] validated error {}\n- [{}] server {}", i + 1,
                             validated_error_line(column_validation(p.columns[i])), i + 1, server_line(p.columns[i]));
      out += "\n";
      for (const std::string& w : p.warnings) out += "- warning: " + w + "\n";
      return out;
    }
    case OutputFormat::kCsv:
      return render_compare_csv(p.comparison);
    case OutputFormat::kPerfetto:
      return Status::error("predict: --format perfetto is a replay's timeline; use text, json or html");
  }
  return Status::error("predict: unknown format");
}

}  // namespace fsr
