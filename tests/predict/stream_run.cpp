// SPDX-License-Identifier: Apache-2.0
#include "tests/predict/stream_run.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace fsr::testdata {

StreamOptions stream_options(uint64_t seed, uint64_t window) {
  StreamOptions o;
  o.seed = seed;
  o.window = window;
  return o;
}

SimRun simulate_fixture(const TraceFixture& t, const LatencyModel* model, const StreamOptions& o) {
  PlanInputs in;
  in.recorded_root = t.header.root;
  in.target_dir = "/T";
  in.scratch_dir = "/S";
  in.initial = t.header.initial;
  in.walks_as_passed = t.header.has_choice(kRecorderChoiceWalks);  // (as predict reads it)
  SimRun run;
  std::vector<StreamColumn> cols(1);
  cols[0].model = model;
  cols[0].sink = [&run](const OpRecord& r, const Event&, const PlanOp& op) {
    EXPECT_EQ(r.event_index, run.ops.size()) << "records leave in event order";
    run.ops.push_back(r);
    run.action.push_back(op.action);
  };
  auto st = simulate_stream(
      in, [&](StrId id) { return std::string_view(t.strs[id]); }, chunks_of(t.ev), chunks_of(t.ev), cols, o);
  EXPECT_TRUE(st) << st.message();
  if (st) run.stream = st.value();
  run.sim = cols[0].sim;
  return run;
}

}  // namespace fsr::testdata
