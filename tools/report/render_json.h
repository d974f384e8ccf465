// JSON rendering of reports and comparisons. Keys are stable and documented
// in tools/report/SCHEMA.md (schema ids "fsreplay.report/1" and
// "fsreplay.compare/1"); absent numbers are null, never omitted.
#pragma once

#include <nlohmann/json.hpp>

#include "tools/report/compare.h"
#include "tools/report/report.h"

namespace fsr {

nlohmann::ordered_json report_to_json(const Report& r);
nlohmann::ordered_json compare_to_json(const Comparison& c);

}  // namespace fsr
