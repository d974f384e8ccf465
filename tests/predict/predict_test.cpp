// predict: the simulation follows the replay's plan and clock, prices ops
// from the profile, blames what the profile makes slow, and names what it
// could not price.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "replayer/plan.h"
#include "tests/predict/predict_testdata.h"
#include "tools/predict/op_cost.h"
#include "tools/predict/plan_view.h"
#include "tools/predict/predict.h"
#include "tools/predict/simulator.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::mixed_trace;
using testdata::small_build_trace;
using testdata::TraceFixture;

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tpl[] = "/tmp/fsr-predict-test-XXXXXX";
    path = mkdtemp(tpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

Plan plan_of(const TraceFixture& t) {
  PlanInputs in;
  in.recorded_root = t.header.root;
  in.target_dir = "/T";
  in.scratch_dir = "/S";
  in.initial = t.header.initial;
  return build_plan(t.ev, [&](StrId id) { return std::string_view(t.strs[id]); }, in);
}

std::optional<double> share(const Report& r, SyscallClass c) {
  for (const ClassRow& row : r.classes)
    if (row.cls == c) return row.share_of_slowdown;
  return std::nullopt;
}

TEST(Simulator, RecordedDurationsReplayTheRecordedTimeline) {
  // One thread, no syscall payback: every op starts where it was recorded.
  const TraceFixture t = mixed_trace(50);
  const Plan plan = plan_of(t);
  const PlanView view(plan, t.ev);
  OpCost cost(view, nullptr, 1, false);
  std::vector<OpRecord> ops;
  const SimStats st = simulate(view, cost, {}, &ops);
  ASSERT_EQ(st.ops, t.ev.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i].start, t.ev[i].ts - t.ev.front().ts) << "op " << i;
    EXPECT_EQ(ops[i].latency, plan.ops[i].action == OpAction::kIssue ? t.ev[i].dur : 0u) << "op " << i;
  }
  EXPECT_EQ(st.wall_ns, t.ev.back().ts + t.ev.back().dur - t.ev.front().ts);
}

TEST(Simulator, WaitsForTheChildAndItsHeldExit) {
  const TraceFixture t = small_build_trace();
  const Plan plan = plan_of(t);
  const PlanView view(plan, t.ev);
  Profile p = fixed_profile("slow", 1'000'000);  // 1 ms every op: the child's work grows
  LatencyModel model(p);
  OpCost cost(view, &model, 1, false);
  std::vector<OpRecord> ops;
  simulate(view, cost, {}, &ops);
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
  const TraceFixture t = mixed_trace(600);  // 7,200 ops, a window of 1,024 behind
  const Plan plan = plan_of(t);
  const PlanView view(plan, t.ev);
  Profile p = fixed_profile("p", 50'000);
  LatencyModel model(p);
  OpCost a(view, &model, 7, false), b(view, &model, 7, false);
  std::vector<OpRecord> wide, narrow;
  SimOptions wide_opt, narrow_opt;
  wide_opt.window_ops = 1u << 20;
  narrow_opt.window_ops = 1024;
  const SimStats sw = simulate(view, a, wide_opt, &wide);
  const SimStats sn = simulate(view, b, narrow_opt, &narrow);
  EXPECT_EQ(sw.wall_ns, sn.wall_ns);
  ASSERT_EQ(wide.size(), narrow.size());
  for (size_t i = 0; i < wide.size(); ++i) ASSERT_EQ(wide[i].start, narrow[i].start) << "op " << i;
}

// As tests/e2e/attribution_e2e.sh does for replay: one class made slow in the
// profile, and the critical path must give it the slowdown.
class BlameTest : public ::testing::TestWithParam<std::pair<SyscallClass, std::vector<ProbeKind>>> {};

TEST_P(BlameTest, ProfileWithOneClassSlowedBlamesThatClass) {
  TempDir dir;
  const auto& [cls, kinds] = GetParam();
  ASSERT_TRUE(mixed_trace(300).write(dir.file("t.trace")));
  std::map<ProbeKind, uint64_t> slow;
  for (ProbeKind k : kinds) slow[k] = 1'000'000;
  ASSERT_TRUE(write_profile(dir.file("base.profile"), fixed_profile("base", 5'000)));
  ASSERT_TRUE(write_profile(dir.file("slow.profile"), fixed_profile("slow", 5'000, slow)));
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

INSTANTIATE_TEST_SUITE_P(
    Classes, BlameTest,
    ::testing::Values(std::pair{SyscallClass::kStat, std::vector{ProbeKind::kStat, ProbeKind::kStatMissing}},
                      std::pair{SyscallClass::kOpen, std::vector{ProbeKind::kOpenFile, ProbeKind::kOpenDir,
                                                                 ProbeKind::kOpenCreate}},
                      std::pair{SyscallClass::kReaddir, std::vector{ProbeKind::kReaddir}},
                      std::pair{SyscallClass::kWrite, std::vector{ProbeKind::kWrite}}),
    [](const auto& info) { return std::string(class_name(info.param.first)); });

TEST(Predict, NamesTheClassesTheProfileNeverMeasured) {
  TempDir dir;
  ASSERT_TRUE(small_build_trace().write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("p.profile"),
                            fixed_profile("nox", 10'000, {}, {ProbeKind::kXattr, ProbeKind::kRename})));
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
  EXPECT_TRUE(has("never measured 1 ops of class xattr: assumed their recorded duration")) << ::testing::PrintToString(a);
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
