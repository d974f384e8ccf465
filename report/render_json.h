// SPDX-License-Identifier: Apache-2.0
// JSON rendering of reports and comparisons. Keys are stable and documented
// in report/SCHEMA.md (schema ids "fsreplay.report/1" and
// "fsreplay.compare/1"); absent numbers are null, never omitted.
#pragma once

#include <nlohmann/json.hpp>

#include "report/compare.h"
#include "report/report.h"

namespace fsr {

nlohmann::ordered_json report_to_json(const Report& r);
nlohmann::ordered_json compare_to_json(const Comparison& c);
// One figure's runs: their values and summary, and the median's interval
// when there are enough of them (run_spread.h).
nlohmann::ordered_json spread_to_json(const std::vector<double>& values);

}  // namespace fsr
