// SPDX-License-Identifier: Apache-2.0
// predict's streaming simulation run on a fixture held in memory: one
// column's records by event index, for tests that follow op by op what the
// simulator did (predict.cpp reduces them to summaries instead).
#pragma once

#include <vector>

#include "tests/predict/predict_testdata.h"
#include "predict/predict_stream.h"

namespace fsr::testdata {

struct SimRun {
  std::vector<OpRecord> ops;     // by event index
  std::vector<OpAction> action;  // each op's plan action
  SimStats sim;
  StreamStats stream;
};

// Options with `seed` and `window` (the rest their defaults).
StreamOptions stream_options(uint64_t seed, uint64_t window = StreamOptions{}.window);

// One column priced by `model` (null: the recorded durations), planned as
// predict plans it (PlanInputs of a replay into /T, scratch /S).
SimRun simulate_fixture(const TraceFixture& t, const LatencyModel* model, const StreamOptions& o = {});

}  // namespace fsr::testdata
