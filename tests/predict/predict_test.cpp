// SPDX-License-Identifier: Apache-2.0
// predict: the simulation follows the replay's plan and clock, prices ops
// from the profile, blames what the profile makes slow, and names what it
// could not price.
#include <algorithm>
#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "replayer/plan/plan.h"
#include "tests/predict/predict_testdata.h"
#include "tests/predict/stream_run.h"
#include "tests/replayer/synthetic.h"
#include "predict/predict.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::many_builds;
using testdata::mixed_trace;
using testdata::mkdir_race;
using testdata::SimRun;
using testdata::simulate_fixture;
using testdata::small_build_trace;
using testdata::TempDir;
using testdata::TraceFixture;
using testdata::write_then_stat;

std::optional<double> share(const Report& r, SyscallClass c) {
  for (const ClassRow& row : r.classes)
    if (row.cls == c) return row.share_of_slowdown;
  return std::nullopt;
}

TEST(Simulator, RecordedDurationsReplayTheRecordedTimeline) {
  // One thread, no syscall payback: every op starts where it was recorded.
  const TraceFixture t = mixed_trace(50);
  const SimRun run = simulate_fixture(t, nullptr);
  ASSERT_EQ(run.sim.ops, t.ev.size());
  ASSERT_EQ(run.ops.size(), t.ev.size());
  for (size_t i = 0; i < run.ops.size(); ++i) {
    EXPECT_EQ(run.ops[i].start, t.ev[i].ts - t.ev.front().ts) << "op " << i;
    EXPECT_EQ(run.ops[i].latency, run.action[i] == OpAction::kIssue ? t.ev[i].dur : 0u) << "op " << i;
  }
  EXPECT_EQ(run.sim.wall_ns, t.ev.back().ts + t.ev.back().dur - t.ev.front().ts);
}

// A futex wait released by another thread's wake returned, in the
// original, some time after the wake ended (the scheduler waking it: here
// 105 us); the replay's worker pays its own such delay, so the simulation
// keeps the recorded one, and the waiter's next call starts as late as it
// did. A wait that began after its release ended adds nothing.
TEST(Simulator, AWaitReleasedByAnotherThreadReturnsAsLateAsItDid) {
  TraceFixture t;
  t.header.root = "/w";
  t.header.initial.pid = 1;
  t.header.initial.cwd = "/w";
  t.add(1, 1, SYS_clone, 0, 500, 2, {test::kThreadFlags});
  t.add(1, 1, SYS_futex, 10'000, 300'000, 0, {0xabc0, FUTEX_WAIT_PRIVATE, 0});  // returns at 310 us
  t.add(1, 2, SYS_newfstatat, 100'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/a");
  const uint32_t wake = t.add(1, 2, SYS_futex, 200'000, 5'000, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});  // ends at 205 us
  const uint32_t next = t.add(1, 1, SYS_newfstatat, 320'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/b");
  const SimRun run = simulate_fixture(t, nullptr);
  ASSERT_EQ(run.ops.size(), t.ev.size());
  const uint64_t released = run.ops[wake].start + run.ops[wake].latency;
  // 105 us of wake-up, then the waiter's own 10 us gap (as recorded: 320 - 310).
  EXPECT_NEAR(double(run.ops[next].start - released), 115'000.0, 2'000.0);
}

TEST(Simulator, WaitsForTheChildAndItsHeldExit) {
  const TraceFixture t = small_build_trace();
  Profile p = fixed_profile("slow", 1'000'000);  // 1 ms every op: the child's work grows
  LatencyModel model(p);
  const SimRun run = simulate_fixture(t, &model, testdata::stream_options(1));
  const std::vector<OpRecord>& ops = run.ops;
  ASSERT_EQ(ops.size(), t.ev.size());
  uint32_t exit_op = 0, wait_op = 0, rename_op = 0;
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    if (t.ev[i].nr == kEvProcExit && t.ev[i].pid == 11) exit_op = i;
    if (t.ev[i].nr == SYS_wait4) wait_op = i;
    if (t.ev[i].nr == SYS_renameat) rename_op = i;
  }
  EXPECT_GE(ops[wait_op].start, ops[exit_op].start + ops[exit_op].latency) << "wait4 before the child exited";
  EXPECT_EQ(ops[wait_op].waited_on, exit_op + 1ull);
  EXPECT_GE(ops[rename_op].start, ops[wait_op].start);
  // The child's writes went to the slow mount; its stdio.h read stayed local.
  for (uint32_t i = 0; i < t.ev.size(); ++i)
    if (t.ev[i].nr == SYS_write) {
      EXPECT_GE(ops[i].latency, 900'000u);
    }
}

TEST(Simulator, SmallWindowGivesTheSameTimeline) {
  const TraceFixture t = mixed_trace(600);  // 7,200 ops, op states kept 1,024 behind
  Profile p = fixed_profile("p", 50'000);
  LatencyModel model(p);
  StreamOptions wide_opt = testdata::stream_options(7), narrow_opt = testdata::stream_options(7);
  wide_opt.sim.window_ops = 1u << 20;
  narrow_opt.sim.window_ops = 1024;
  const SimRun wide = simulate_fixture(t, &model, wide_opt), narrow = simulate_fixture(t, &model, narrow_opt);
  EXPECT_EQ(wide.sim.wall_ns, narrow.sim.wall_ns);
  ASSERT_EQ(wide.ops.size(), narrow.ops.size());
  for (size_t i = 0; i < wide.ops.size(); ++i) ASSERT_EQ(wide.ops[i].start, narrow.ops[i].start) << "op " << i;
}

// The planner's window bounds predict's memory and changes nothing else: a
// trace many windows long is planned and simulated as with a window that
// holds all of it (its waits find their wakers within the lookahead).
TEST(StreamingPredict, ATraceLongerThanTheWindowPredictsAsAWholeWindow) {
  const TraceFixture t = many_builds(1000);
  Profile p = fixed_profile("p", 50'000);
  LatencyModel model(p);
  for (const LatencyModel* m : std::vector<const LatencyModel*>{nullptr, &model}) {
    const SimRun narrow = simulate_fixture(t, m, testdata::stream_options(3, 1024));
    const SimRun whole = simulate_fixture(t, m, testdata::stream_options(3, 2 * t.ev.size()));
    ASSERT_GT(t.ev.size(), 8 * narrow.stream.window);
    ASSERT_GE(whole.stream.window, t.ev.size());
    EXPECT_EQ(narrow.stream.beyond_window, 0u);
    EXPECT_EQ(narrow.sim.forced, 0u);
    EXPECT_EQ(narrow.sim.window_lookups, 0u);
    ASSERT_EQ(narrow.ops.size(), t.ev.size());
    ASSERT_EQ(whole.ops.size(), t.ev.size());
    EXPECT_EQ(narrow.sim.wall_ns, whole.sim.wall_ns);
    for (size_t i = 0; i < t.ev.size(); ++i) {
      ASSERT_EQ(narrow.ops[i].start, whole.ops[i].start) << "op " << i;
      ASSERT_EQ(narrow.ops[i].latency, whole.ops[i].latency) << "op " << i;
      ASSERT_EQ(narrow.ops[i].waited_on, whole.ops[i].waited_on) << "op " << i;
    }
  }
}

TEST(StreamingPredict, ItsMemoryDoesNotGrowWithTheTrace) {
  Profile p = fixed_profile("p", 50'000);
  LatencyModel model(p);
  const SimRun shorter = simulate_fixture(many_builds(1000), &model, testdata::stream_options(0x5eed, 1024));
  const SimRun longer = simulate_fixture(many_builds(4000), &model, testdata::stream_options(0x5eed, 1024));
  ASSERT_EQ(longer.sim.ops, 4 * shorter.sim.ops - 3);  // (one exit of make each)
  EXPECT_GT(shorter.sim.window_bytes, 0u);
  EXPECT_EQ(longer.sim.window_bytes, shorter.sim.window_bytes);
  EXPECT_GT(shorter.stream.view_bytes, 0u);
  EXPECT_EQ(longer.stream.view_bytes, shorter.stream.view_bytes);
}

TEST(StreamingPredict, TheVerbPredictsTheSameInASmallWindow) {
  TempDir dir;
  ASSERT_TRUE(many_builds(600).write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("p.profile"), fixed_profile("p", 80'000, {{ProbeKind::kWrite, 400'000}})));
  PredictOptions o;
  o.profiles = {dir.file("p.profile")};
  auto whole = run_predict(dir.file("t.trace"), o);
  o.stream.window = 1024;
  auto narrow = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(whole) << whole.message();
  ASSERT_TRUE(narrow) << narrow.message();
  EXPECT_EQ(narrow->window, 1024u);
  ASSERT_EQ(narrow->columns.size(), 2u);
  for (size_t c = 0; c < 2; ++c) EXPECT_EQ(narrow->columns[c].sim.wall_ns, whole->columns[c].sim.wall_ns) << c;
  ASSERT_EQ(narrow->reports.size(), 1u);
  EXPECT_EQ(narrow->reports[0].split->wall_delta, whole->reports[0].split->wall_delta);
  EXPECT_EQ(share(narrow->reports[0], SyscallClass::kWrite), share(whole->reports[0], SyscallClass::kWrite));
}

// An order the results of overlapping calls ask for beyond the planner's
// lookahead is kept as the calls returned, in replay as in predict; predict
// must name that assumption in each predicted column, and only when it
// happened.
TEST(StreamingPredict, AnOrderBeyondTheLookaheadIsNamedAsAnAssumption) {
  TempDir dir;
  ASSERT_TRUE(write_profile(dir.file("p.profile"), fixed_profile("p", 50'000)));
  PredictOptions o;
  o.profiles = {dir.file("p.profile")};
  o.stream.window = 1024;  // lookahead 256
  auto has_line = [](const Prediction& p) {
    for (const std::string& a : p.columns.back().assumptions)
      if (a.find("overlapping calls' order") != std::string::npos) return a;
    return std::string();
  };
  ASSERT_TRUE(mkdir_race(500).write(dir.file("far.trace")));
  auto far = run_predict(dir.file("far.trace"), o);
  ASSERT_TRUE(far) << far.message();
  const std::string line = has_line(*far);
  EXPECT_NE(line.find("1 overlapping calls' order"), std::string::npos) << line;
  EXPECT_NE(line.find("256-event lookahead"), std::string::npos) << line;
  ASSERT_TRUE(mkdir_race(20).write(dir.file("near.trace")));
  auto near = run_predict(dir.file("near.trace"), o);
  ASSERT_TRUE(near) << near.message();
  EXPECT_EQ(has_line(*near), "") << "the order lay within the lookahead";
}

// As tests/e2e/attribution_e2e.sh does for replay: one class made slow in the
// profile, and the critical path must give it the slowdown.
class BlameTest : public ::testing::TestWithParam<std::pair<SyscallClass, std::vector<ProbeKind>>> {};

// The share of the slowdown predict gives `cls` on `slow` against `base`.
void expect_blamed(const TraceFixture& t, const Profile& base, const Profile& slow, SyscallClass cls) {
  TempDir dir;
  ASSERT_TRUE(t.write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("base.profile"), base));
  ASSERT_TRUE(write_profile(dir.file("slow.profile"), slow));
  PredictOptions o;
  o.profiles = {dir.file("base.profile"), dir.file("slow.profile")};
  o.recorded_column = false;
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->reports.size(), 1u);
  const auto s = share(pr->reports[0], cls);
  ASSERT_TRUE(s.has_value());
  EXPECT_GE(*s, 0.95) << class_name(cls);
  EXPECT_GT(pr->reports[0].split->wall_delta, 0);
}

TEST_P(BlameTest, ProfileWithOneClassSlowedBlamesThatClass) {
  const auto& [cls, kinds] = GetParam();
  std::map<ProbeKind, uint64_t> slow;
  for (ProbeKind k : kinds) slow[k] = 1'000'000;
  expect_blamed(mixed_trace(300), fixed_profile("base", 5'000), fixed_profile("slow", 5'000, slow), cls);
}

// Stats of files just written: slow on the mount only in that state.
TEST(Blame, ProfileWithTheWrittenFilesStatSlowedBlamesStat) {
  expect_blamed(write_then_stat(100'000, 40), fixed_profile("base", 5'000, {{ProbeKind::kStatWritten, 5'000}}),
                fixed_profile("slow", 5'000, {{ProbeKind::kStatWritten, 1'000'000}}), SyscallClass::kStat);
}

INSTANTIATE_TEST_SUITE_P(
    Classes, BlameTest,
    ::testing::Values(std::pair{SyscallClass::kStat, std::vector{ProbeKind::kStat, ProbeKind::kStatMissing}},
                      std::pair{SyscallClass::kOpen,
                                std::vector{ProbeKind::kOpenFile, ProbeKind::kOpenDir, ProbeKind::kOpenCreate}},
                      std::pair{SyscallClass::kReaddir, std::vector{ProbeKind::kReaddir}},
                      std::pair{SyscallClass::kWrite, std::vector{ProbeKind::kWrite}}),
    [](const auto& info) { return std::string(class_name(info.param.first)); });

TEST(Predict, NamesTheClassesTheProfileNeverMeasured) {
  TempDir dir;
  ASSERT_TRUE(small_build_trace().write(dir.file("t.trace")));
  ASSERT_TRUE(
      write_profile(dir.file("p.profile"), fixed_profile("nox", 10'000, {}, {ProbeKind::kXattr, ProbeKind::kRename})));
  PredictOptions o;
  o.profiles = {dir.file("p.profile")};
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->columns.size(), 2u);
  const auto& a = pr->columns[1].assumptions;
  auto has = [&](const std::string& needle) {
    for (const std::string& s : a)
      if (s.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("never measured 1 ops of class xattr: assumed their recorded duration"))
      << ::testing::PrintToString(a);
  EXPECT_TRUE(has("never measured 1 ops of class rename")) << ::testing::PrintToString(a);
  EXPECT_TRUE(has("outside the recorded root")) << ::testing::PrintToString(a);
  for (const std::string& s : a) EXPECT_EQ(s.find('\n'), std::string::npos);
}

TEST(Predict, RunsOnTheGoodProfilesAndNamesTheBadOnes) {
  TempDir dir;
  ASSERT_TRUE(small_build_trace().write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("good.profile"), fixed_profile("good", 10'000)));
  ASSERT_TRUE(write_profile(dir.file("cut.profile"), fixed_profile("cut", 10'000)));
  std::filesystem::resize_file(dir.file("cut.profile"), 200);
  PredictOptions o;
  o.profiles = {dir.file("cut.profile"), dir.file("good.profile"), dir.file("t.trace")};
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  EXPECT_EQ(pr->columns.size(), 2u);  // recorded + good
  ASSERT_EQ(pr->problems.size(), 2u);
  EXPECT_NE(pr->problems[0].find("truncated profile"), std::string::npos) << pr->problems[0];
  EXPECT_NE(pr->problems[1].find("is a trace, not a profile"), std::string::npos) << pr->problems[1];
  o.profiles = {dir.file("cut.profile")};
  auto none = run_predict(dir.file("t.trace"), o);
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("truncated profile"), std::string::npos) << none.message();
}

// The trace footer's recorder share comes out of every gap, as the replay
// takes it: 120 ops of 2 us, 20 us apart, a quarter of every gap the
// recorder's: the recorded column's wall is 240 us + 119 x 15 us (to the
// trace's timestamp quantum).
TEST(Predict, TakesTheRecordersShareOutOfEveryGapAsTheReplayDoes) {
  TempDir dir;
  TraceFixture t = mixed_trace(10);
  ASSERT_EQ(t.ev.size(), 120u);
  ASSERT_TRUE(t.write(dir.file("plain.trace")));
  t.footer.stolen_measured = true;
  t.footer.recorder_stolen_ns = 119 * 5'000;
  t.footer.gaps_ns = 119 * 20'000;
  ASSERT_TRUE(t.write(dir.file("stolen.trace")));
  t.footer.stolen_measured = false;  // figures the recorder did not vouch for
  ASSERT_TRUE(t.write(dir.file("unmeasured.trace")));
  ASSERT_TRUE(write_profile(dir.file("p.profile"), fixed_profile("p", 10'000)));
  PredictOptions o;
  o.profiles = {dir.file("p.profile")};
  auto wall = [&](const char* name) -> uint64_t {
    auto pr = run_predict(dir.file(name), o);
    EXPECT_TRUE(pr) << pr.message();
    return pr ? pr->columns.at(0).sim.wall_ns : 0;
  };
  const uint64_t plain = wall("plain.trace");
  EXPECT_NEAR(double(plain), 120 * 2'000.0 + 119 * 20'000.0, 1'000);
  EXPECT_NEAR(double(wall("stolen.trace")), 120 * 2'000.0 + 119 * 15'000.0, 1'000);
  EXPECT_EQ(wall("unmeasured.trace"), plain);
}

TEST(Predict, RefusesAProfileGivenAsTheTrace) {
  TempDir dir;
  ASSERT_TRUE(write_profile(dir.file("p.profile"), fixed_profile("p", 10'000)));
  PredictOptions o;
  o.profiles = {dir.file("p.profile")};
  auto pr = run_predict(dir.file("p.profile"), o);
  ASSERT_FALSE(pr);
  EXPECT_NE(pr.message().find("is a profile, not a trace"), std::string::npos) << pr.message();
}

}  // namespace
}  // namespace fsr

namespace fsr {
namespace {

// --draws: each profile column simulated again with other seeds, its spread
// kept beside it; the first draw is the column itself, so asking for draws
// never moves the headline figure. A small trace on a probed profile (real
// latency samples) spreads; the recorded column has no draws.
TEST(PredictDraws, TheDrawsSpreadAndLeaveTheFirstDrawAsItWas) {
  testdata::TempDir dir;
  ASSERT_TRUE(testdata::mixed_trace(40).write(dir.file("t.trace")));
  PredictOptions o;
  o.profiles = {std::string(FSR_PROFILES_DIR) + "/wsl2-9p.profile"};
  o.draws = 1;
  auto one = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(one) << one.message();
  o.draws = 6;
  auto six = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(six) << six.message();
  ASSERT_EQ(six->columns.size(), 2u);
  EXPECT_TRUE(six->columns[0].draw_walls_ns.empty()) << "the recorded column draws nothing";
  const std::vector<double>& w = six->columns[1].draw_walls_ns;
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(one->columns[1].draw_walls_ns, std::vector<double>{w[0]});
  EXPECT_EQ(w[0], double(six->columns[1].sim.wall_ns));
  EXPECT_EQ(six->columns[1].sim.wall_ns, one->columns[1].sim.wall_ns) << "draws moved the headline figure";
  EXPECT_NE(*std::min_element(w.begin(), w.end()), *std::max_element(w.begin(), w.end()))
      << "six seeds on 40 rounds of real samples drew the same wall";
}

}  // namespace
}  // namespace fsr
