// SPDX-License-Identifier: Apache-2.0
// Plain-text rendering of reports and comparisons: aligned columns, at most
// 100 characters a line, deterministic (golden-tested).
#pragma once

#include <string>

#include "report/compare.h"
#include "report/report.h"

namespace fsr {

std::string render_report_text(const Report& r);
std::string render_compare_text(const Comparison& c);

}  // namespace fsr
