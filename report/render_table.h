// SPDX-License-Identifier: Apache-2.0
// Exports to paste (issue 42 item 4): Markdown tables for an issue or a pull
// request, and CSV in long form (one line per figure) for a spreadsheet.
// Same figures as the text output; with repeated runs, the medians with
// their 95% intervals and the marker where a ratio's interval excludes 1.
#pragma once

#include <string>

#include "report/compare.h"
#include "report/report.h"

namespace fsr {

std::string render_compare_markdown(const Comparison& c);
std::string render_compare_csv(const Comparison& c);
std::string render_report_markdown(const Report& r);
std::string render_report_csv(const Report& r);

// One CSV field: quoted (doubling its quotes) when it holds a comma, a quote
// or a line break (RFC 4180).
std::string csv_field(std::string_view s);

}  // namespace fsr
