// What a replay tells about itself, apart from its ops: the think clock's
// corrections, the calls in flight in the original and the replay, the most
// frequent divergences, and the summary as JSON (`replay --json`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replayer/engine.h"
#include "replayer/plan.h"
#include "replayer/replay.h"
#include "replayer/replay_cost.h"
#include "traces/event.h"

namespace fsr {

nlohmann::json clock_json(const ThinkClock& c, const IssueCost& ic, const ClockTotals& t);
// The recorded calls the plan issues: how many were in flight while any was.
double recorded_overlap(const Plan& plan, const std::vector<Event>& ev);
nlohmann::json overlap_json(const Plan& plan, const std::vector<Event>& ev, const std::vector<OpRecord>& ops);
std::vector<DivergenceRow> top_divergences(const std::vector<OpRecord>& ops);

}  // namespace fsr
