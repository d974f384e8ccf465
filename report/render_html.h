// SPDX-License-Identifier: Apache-2.0
// One self-contained HTML page (inline CSS and SVG; no scripts, no network
// resources): time by class per mount as stacked bars (summed latency and the
// critical path's split of wall time), latency CDFs per class with a line per
// mount, the wall-time split against the first mount, and the top processes
// and directories tables.
#pragma once

#include <string>

#include "report/compare.h"

namespace fsr {

struct HtmlOptions {
  std::string title = "fsreplay report";
  size_t top = 10;
};

std::string render_html(const Comparison& c, const HtmlOptions& opt = {});

}  // namespace fsr
