// SPDX-License-Identifier: Apache-2.0
// One entry point per verb for all output formats, so the verbs stay thin:
// they load results, call these and write the string out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"
#include "report/result_set.h"
#include "report/result_summary.h"
#include "base/status.h"

namespace fsr {

enum class OutputFormat { kText, kJson, kHtml, kPerfetto, kMarkdown, kCsv };
// "text", "json", "html", "perfetto", "markdown", "csv"
std::optional<OutputFormat> parse_output_format(std::string_view name);

// `report` from summaries (result_summary.h): text, json, html. Perfetto is
// a timeline of every op: render_report over the ResultSet.
std::string render_report(const ResultSummary& target, const ResultSummary* baseline, OutputFormat format,
                          const ReportOptions& opt);

// `compare`: perfetto is refused (a timeline is per result: use `report`).
Result<std::string> render_compare(const std::vector<const ResultSummary*>& results, OutputFormat format,
                                   const ReportOptions& opt);
// Several runs per mount (each inner vector one mount's runs): medians with
// their intervals (compare.h compare_runs).
Result<std::string> render_compare(const std::vector<std::vector<const ResultSummary*>>& runs, OutputFormat format,
                                   const ReportOptions& opt);

// The same over results held in memory; perfetto renders the target's timeline only.
std::string render_report(const ResultSet& target, const ResultSet* baseline, OutputFormat format,
                          const ReportOptions& opt);
Result<std::string> render_compare(const std::vector<const ResultSet*>& results, OutputFormat format,
                                   const ReportOptions& opt);

}  // namespace fsr
