// SPDX-License-Identifier: Apache-2.0
#include "report/render.h"

#include "report/compare.h"
#include "report/render_html.h"
#include "report/render_json.h"
#include "report/render_perfetto.h"
#include "report/render_table.h"
#include "report/render_text.h"
#include "base/text_safe.h"

namespace fsr {

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "text") return OutputFormat::kText;
  if (name == "json") return OutputFormat::kJson;
  if (name == "html") return OutputFormat::kHtml;
  if (name == "perfetto") return OutputFormat::kPerfetto;
  if (name == "markdown") return OutputFormat::kMarkdown;
  if (name == "csv") return OutputFormat::kCsv;
  return std::nullopt;
}

std::string render_report(const ResultSummary& target, const ResultSummary* baseline, OutputFormat format,
                          const ReportOptions& opt) {
  switch (format) {
    case OutputFormat::kText:
      return render_report_text(build_report(target, baseline, opt));
    case OutputFormat::kJson:
      return json_text(report_to_json(build_report(target, baseline, opt)), 2) + "\n";
    case OutputFormat::kMarkdown:
      return render_report_markdown(build_report(target, baseline, opt));
    case OutputFormat::kCsv:
      return render_report_csv(build_report(target, baseline, opt));
    case OutputFormat::kPerfetto:
      return {};  // a timeline needs every op: see the ResultSet overload
    case OutputFormat::kHtml: {
      std::vector<const ResultSummary*> cols;
      if (baseline) cols.push_back(baseline);
      cols.push_back(&target);
      return render_html(compare_summaries(cols), {.title = "fsreplay report: " + target.label(), .top = opt.top});
    }
  }
  return {};
}

Result<std::string> render_compare(const std::vector<const ResultSummary*>& results, OutputFormat format,
                                   const ReportOptions& opt) {
  std::vector<std::vector<const ResultSummary*>> runs;
  for (const ResultSummary* r : results) runs.push_back({r});
  return render_compare(runs, format, opt);
}

Result<std::string> render_compare(const std::vector<std::vector<const ResultSummary*>>& runs, OutputFormat format,
                                   const ReportOptions& opt) {
  const Comparison c = compare_runs(runs);
  switch (format) {
    case OutputFormat::kText:
      return render_compare_text(c);
    case OutputFormat::kJson:
      return json_text(compare_to_json(c), 2) + "\n";
    case OutputFormat::kMarkdown:
      return render_compare_markdown(c);
    case OutputFormat::kCsv:
      return render_compare_csv(c);
    case OutputFormat::kHtml:
      return render_html(c, {.title = "fsreplay compare", .top = opt.top});
    case OutputFormat::kPerfetto:
      return Status::error(
          "compare: --format perfetto shows one replay's timeline; use `fsreplay report RESULT --format perfetto`");
  }
  return Status::error("compare: unknown format");
}

std::string render_report(const ResultSet& target, const ResultSet* baseline, OutputFormat format,
                          const ReportOptions& opt) {
  if (format == OutputFormat::kPerfetto) return perfetto_trace(target);
  const StatsOptions so{.dir_depth = opt.dir_depth};
  const ResultSummary t = summarize(target, so);
  std::optional<ResultSummary> b;
  if (baseline) b = summarize(*baseline, so);
  return render_report(t, b ? &*b : nullptr, format, opt);
}

Result<std::string> render_compare(const std::vector<const ResultSet*>& results, OutputFormat format,
                                   const ReportOptions& opt) {
  std::vector<ResultSummary> sums;
  for (const ResultSet* rs : results) sums.push_back(summarize(*rs, {.dir_depth = opt.dir_depth}));
  std::vector<const ResultSummary*> ptrs;
  for (const ResultSummary& s : sums) ptrs.push_back(&s);
  return render_compare(ptrs, format, opt);
}

}  // namespace fsr
