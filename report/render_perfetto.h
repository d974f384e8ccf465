// SPDX-License-Identifier: Apache-2.0
// Perfetto / Chrome trace-event JSON of one replay's timeline: a process per
// recorded pid (named after its program), a thread track per replay worker,
// one complete ("X") slice per op named after its syscall, with the path,
// return values and waits as args. Opens in ui.perfetto.dev and chrome://tracing.
// Written as a stream of text (no JSON tree): a million ops is ~200 MB.
#pragma once

#include <string>

#include "report/result_set.h"

namespace fsr {

std::string perfetto_trace(const ResultSet& rs);

}  // namespace fsr
