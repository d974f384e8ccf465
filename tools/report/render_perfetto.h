// Perfetto / Chrome trace-event JSON of one replay's timeline: a process per
// recorded pid (named after its program), a thread track per replay worker,
// one complete ("X") slice per op named after its syscall, with the path,
// return values and waits as args. Opens in ui.perfetto.dev and chrome://tracing.
#pragma once

#include <nlohmann/json.hpp>

#include "tools/report/result_set.h"

namespace fsr {

nlohmann::ordered_json perfetto_trace(const ResultSet& rs);

}  // namespace fsr
