// SPDX-License-Identifier: Apache-2.0
// What a replay tells about itself, apart from its ops: the think clock's
// corrections, the calls in flight in the original, the most frequent
// divergences, the timing modes' names (replay.h) and the summary as JSON
// (`replay --json`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "replayer/engine/engine.h"
#include "replayer/plan/plan.h"
#include "replayer/session/replay_types.h"
#include "replayer/engine/replay_cost.h"
#include "traces/event.h"

namespace fsr {

nlohmann::json clock_json(const ThinkClock& c, const IssueCost& ic, const ClockTotals& t);

// Divergent ops by (syscall, recorded result class, replayed result class),
// a class being 0 for success or the negative errno: counted per op with no
// string made (a third of a synthetic trace's ops diverge), named once by
// top_divergences.
using DivergenceTally = std::map<std::tuple<uint16_t, int64_t, int64_t>, uint64_t>;
void count_divergence(DivergenceTally& by, const OpRecord& r);
// The most frequent rows of a tally, at most 8.
std::vector<DivergenceRow> top_divergences(const DivergenceTally& by);

}  // namespace fsr
