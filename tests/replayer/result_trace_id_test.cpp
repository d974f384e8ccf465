// SPDX-License-Identifier: Apache-2.0
// A replay's result names the trace it replayed by the trace's content id
// (traces/trace_id.h): what `compare` and `report --baseline` check.
#include <gtest/gtest.h>

#include "tests/replayer/replay_fixture.h"
#include "traces/trace_id.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class ResultTraceId : public ReplayDirs {
 protected:
  static uint64_t id_of_trace(const std::string& path) {
    auto r = TraceReader::open(path);
    EXPECT_TRUE(r.is_ok()) << r.message();
    return r.is_ok() ? r.value()->trace_id() : kNoTraceId;
  }
  static uint64_t id_in_result(const std::string& path) {
    auto r = TraceReader::open(path);
    EXPECT_TRUE(r.is_ok()) << r.message();
    return r.is_ok() ? r.value()->header().source_trace_id : kNoTraceId;
  }
};

TEST_F(ResultTraceId, EveryReplayOfATraceCarriesItsIdAndAnotherTracesDiffers) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  const std::string one = write_trace(t, "/w/p");
  t.add(1, 1, SYS_newfstatat, 30, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  const std::string two = write_trace(t, "/w/p");
  const uint64_t id1 = id_of_trace(one), id2 = id_of_trace(two);
  ASSERT_NE(id1, kNoTraceId);
  ASSERT_NE(id1, id2);
  auto r1 = run_replay(one, options());
  ASSERT_TRUE(r1.is_ok()) << r1.message();
  auto r1b = run_replay(one, options());  // as `compare TRACE --target A --target B` does
  ASSERT_TRUE(r1b.is_ok()) << r1b.message();
  auto r2 = run_replay(two, options());
  ASSERT_TRUE(r2.is_ok()) << r2.message();
  EXPECT_EQ(id_in_result(r1->result_path), id1);
  EXPECT_EQ(id_in_result(r1b->result_path), id1);
  EXPECT_EQ(id_in_result(r2->result_path), id2);
}

}  // namespace
}  // namespace fsr
