// SPDX-License-Identifier: Apache-2.0
// Streaming replay (plan_stream.h): traces longer than the replay's window of
// 131,072 ops, replayed end to end through run_replay.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replayer/plan/plan_stream.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

constexpr uint32_t kLong = 300'000;  // events: more than two windows

class Stream : public test::ReplayDirs {};

// Thread 1 makes a file first and removes it last; thread 2 (another process,
// alive from the first event to the last) stats it all along and writes it
// once in the middle: the ordering edges of its stats span more than a window.
// Events are kStep apart: the trace keeps timings to 512 ns (timing_quant.h),
// so closer calls of two threads could swap their order in the trace read
// back, and an edge against the recorded order is dropped (deps.h).
constexpr uint64_t kStep = 1000;
Synth long_trace() {
  Synth t;
  uint64_t ts = 1000;
  t.add(1, 1, SYS_openat, ts, 5, 3, {kAtCwd, 0, O_WRONLY | O_CREAT}, "/w/p/made");
  t.add(1, 1, SYS_close, ts += kStep, 2, 0, {3});
  for (uint32_t k = 0; k < kLong; ++k) {
    ts += kStep;
    if (k == kLong / 2)
      t.add(2, 2, SYS_unlink, ts, 5, 0, {0}, "/w/p/src/a.c");
    else if (k % 2)
      t.add(2, 2, SYS_newfstatat, ts, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/made");
    else
      t.add(2, 2, SYS_newfstatat, ts, 5, k < kLong / 2 ? 0 : -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/src/a.c");
  }
  t.add(1, 1, SYS_unlink, ts += kStep, 5, 0, {0}, "/w/p/made");
  t.add(2, 2, kEvProcExit, ts += kStep, 0, 0, {0, 0});
  t.add(1, 1, kEvProcExit, ts += kStep, 0, 0, {0, 0});
  return t;
}

std::vector<PrestateEntry> tree() {
  return {test::ReplayDirs::entry("/w/p", PrestateKind::kDir), test::ReplayDirs::entry("/w/p/src", PrestateKind::kDir),
          test::ReplayDirs::entry("/w/p/src/a.c", PrestateKind::kFile, 100)};
}

TEST_F(Stream, DependenciesSpanningMoreThanAWindowKeepTheirOrder) {
  Synth t = long_trace();
  std::string trace = write_trace(t, "/w/p", tree());
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_EQ(ops.size(), t.ev.size()) << "one record per event, every window's";
  for (size_t i = 0; i < ops.size(); ++i) ASSERT_EQ(ops[i].event_index, i) << "records in event order";
  // Stats of "made" (thread 2) succeed only after thread 1 made it, a window
  // and more before most of them, and before thread 1 removes it at the end;
  // of a.c, fail only after the unlink: none diverges.
  size_t shown = 0;
  for (const OpRecord& o : ops)
    if ((o.flags & kOfDivergent) && shown++ < 3)
      ADD_FAILURE() << "event " << o.event_index << " (" << o.nr << ") returned " << o.ret << ", recorded "
                    << o.recorded_ret << " start " << o.start << " worker " << o.worker;
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(r->approx_deps, 0u);
}

TEST_F(Stream, AProcessAliveAcrossTheWholeTraceKeepsItsFds) {
  // Process 1 opens a file at the start and writes it at the very end, far
  // more than a window later: its fd table and the OFD outlive every window.
  Synth t;
  uint64_t ts = 1000;
  t.add(1, 1, SYS_openat, ts, 5, 3, {kAtCwd, 0, O_WRONLY | O_CREAT}, "/w/p/log");
  for (uint32_t k = 0; k < kLong; ++k) t.add(1, 1, SYS_newfstatat, ts += 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/src/a.c");
  const uint32_t w = t.add(1, 1, SYS_write, ts += 10, 5, 4, {3, 0, 4});
  const uint32_t c = t.add(1, 1, SYS_close, ts += 10, 2, 0, {3});
  std::string trace = write_trace(t, "/w/p", tree());
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_EQ(ops.size(), t.ev.size());
  EXPECT_FALSE(ops[w].flags & (kOfSkipped | kOfDivergent)) << "the write found its fd, " << kLong << " ops later";
  EXPECT_EQ(ops[w].ret, 4);
  EXPECT_FALSE(ops[c].flags & kOfDivergent);
  EXPECT_EQ(r->divergences, 0u);
}

TEST_F(Stream, ATruncatedTraceReplaysEveryCompleteChunkThenSaysSo) {
  Synth t = long_trace();
  std::string trace = write_trace(t, "/w/p", tree());
  struct stat st;
  ASSERT_EQ(stat(trace.c_str(), &st), 0);
  ASSERT_EQ(truncate(trace.c_str(), st.st_size * 2 / 3), 0);  // the recorder killed mid-trace
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_GT(ops.size(), t.ev.size() / 3) << "the readable chunks were replayed";
  EXPECT_LT(ops.size(), t.ev.size());
  ASSERT_FALSE(r->trace_problems.empty()) << "the truncation is reported";
  EXPECT_NE(r->trace_problems.front().find("without its footer"), std::string::npos) << r->trace_problems.front();
}

}  // namespace
}  // namespace fsr

namespace fsr {
namespace {
TEST(StreamPlan, TheLastRemovalFollowsTheLastReadOfAnotherThread) {
  test::Synth t = long_trace();
  Plan p = t.plan("/w/p");
  const uint32_t un = static_cast<uint32_t>(t.ev.size() - 3);
  EXPECT_TRUE(test::has_dep(p, un, un - 1))
      << "deps " << p.deps_of(un).size() << " first " << (p.deps_of(un).empty() ? 0 : p.deps_of(un)[0]) << " dropped "
      << p.dropped_edges << " flags " << int(p.ops[un].flags) << " path " << p.ops[un].path[0] << " stat path "
      << p.ops[un - 2].path[0] << " action " << int(p.ops[un].action);
}

// A short trace gets a window whose lookahead (a quarter) still holds all of
// it: the same plan as in the default window, with less to set up.
TEST(StreamPlan, AShortTracesWindowIsCutToFourTimesItsLength) {
  EXPECT_EQ(fit_window(kDefaultWindow, 7716), 32768u);
  EXPECT_EQ(fit_window(kDefaultWindow, 0), 1024u) << "never below plan_window's floor";
  EXPECT_EQ(fit_window(kDefaultWindow, 1'000'000), kDefaultWindow) << "a long trace keeps the window asked for";
  EXPECT_EQ(fit_window(plan_window(2048), 100'000), 2048u) << "nor is a window grown";
  for (uint64_t n : {1ull, 255ull, 256ull, 257ull, 30'000ull, 32'767ull})
    EXPECT_GE(fit_window(kDefaultWindow, n) / 4, n) << n << " events";
}
}  // namespace
}  // namespace fsr
