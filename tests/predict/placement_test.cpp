// SPDX-License-Identifier: Apache-2.0
// predict --place: each op priced by the profile of the mount its path lands
// on, exactly the ops under SUBDIR by its profile; and the bad placements.
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <cmath>
#include <utility>

#include "tests/predict/predict_testdata.h"
#include "predict/predict.h"
#include "replayer/plan/placement.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::TempDir;

// mixed_trace(40): 12 ops a round over /w/d(k % 8) (9 of them: two stats,
// open, read, close of a file; open, two getdents, close of the directory)
// and /w/o (create, write, close). 40 rounds: 45 ops under each d, 120 under o.
struct Fixture {
  TempDir dir;
  Fixture() {
    EXPECT_TRUE(testdata::mixed_trace(40).write(dir.file("t.trace")));
    EXPECT_TRUE(write_profile(dir.file("fast.profile"), fixed_profile("fast", 5'000)));
    EXPECT_TRUE(write_profile(dir.file("slow.profile"), fixed_profile("slow", 1'000'000)));
  }
  Result<Prediction> run(const std::vector<std::string>& places) {
    PredictOptions o;
    o.profiles = {dir.file("fast.profile"), dir.file("slow.profile")};
    o.recorded_column = false;
    o.draws = 1;
    PlacementRequest& req = o.placements.emplace_back();
    for (const std::string& a : places) {
      auto r = parse_place(a);
      EXPECT_TRUE(r) << r.message();
      if (r) req.rules.push_back(*r);
    }
    return run_predict(dir.file("t.trace"), o);
  }
};

bool has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& s : lines)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

TEST(Placement, ParsesAndNormalisesAndRefusesEscapes) {
  EXPECT_EQ(parse_place("./a//b/=fast")->subdir, "a/b");
  EXPECT_EQ(parse_place("=x")->subdir, ".");
  EXPECT_EQ(parse_place("a/.git=p=q")->where, "q");  // the last '=' splits: a profile name has none
  EXPECT_FALSE(parse_place("/abs=fast"));
  EXPECT_FALSE(parse_place("a/../../b=fast"));
  EXPECT_FALSE(parse_place("nowhere"));
  std::vector<std::string> problems;
  const Placement p = make_placement({{"a", "x"}, {"a/b", "y"}, {"ab", "z"}, {".", "r"}}, problems);
  ASSERT_EQ(p.rules.size(), 2u);  // a/b nests in a: left out
  EXPECT_EQ(p.rest, "r");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("overlaps --place a=x"), std::string::npos) << problems[0];
  EXPECT_EQ(p.match("a"), 0);
  EXPECT_EQ(p.match("a/b/c"), 0);
  EXPECT_EQ(p.match("ab/c"), 1);
  EXPECT_EQ(p.match("abc"), -1);
  EXPECT_EQ(p.match(""), -1);
}

TEST(PredictPlacement, PricesExactlyTheOpsUnderSubdirWithItsProfile) {
  Fixture f;
  auto pr = f.run({"d3=fast"});
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->columns.size(), 3u);
  const PredictColumn& c = pr->columns[2];
  EXPECT_EQ(c.placement, "d3=fast, rest=slow");
  ASSERT_EQ(c.placed.ops.size(), 2u);
  EXPECT_EQ(c.placed.ops[1], 45u);   // under d3: by fast
  EXPECT_EQ(c.placed.ops[0], 435u);  // every other op: by the rest, slow
  EXPECT_EQ(c.placed.crossing, 0u);
  // 45 ops a ms faster, less the lookup of d3 on slow (0.2 ms) that each of
  // its 20 path ops' walks makes first: about 40 ms below slow's.
  const double fast = double(pr->columns[0].sim.wall_ns), slow = double(pr->columns[1].sim.wall_ns);
  const double placed = double(c.sim.wall_ns);
  EXPECT_LT(placed, slow - 30e6);
  EXPECT_GT(placed, slow - 45e6);
  EXPECT_GT(placed, fast + 380e6);
  EXPECT_TRUE(pr->problems.empty()) << ::testing::PrintToString(pr->problems);
}

TEST(PredictPlacement, EveryDirectoryPlacedIsTheFastColumnAndNoneIsTheSlow) {
  Fixture f;
  std::vector<std::string> all{"o=fast", ".=fast"};
  for (int k = 0; k < 8; ++k) all.push_back("d" + std::to_string(k) + "=fast");
  auto every = f.run(all);
  ASSERT_TRUE(every) << every.message();
  EXPECT_EQ(every->columns[2].sim.wall_ns, every->columns[0].sim.wall_ns);
  EXPECT_EQ(every->columns[2].placed.ops[0], 0u);
  // The root left on slow: each path op's walk looks its directory up there first.
  all[1] = ".=slow";
  auto root_slow = f.run(all);
  ASSERT_TRUE(root_slow) << root_slow.message();
  const double fast = double(every->columns[0].sim.wall_ns), slow = double(every->columns[1].sim.wall_ns);
  const double walked = double(root_slow->columns[2].sim.wall_ns);
  EXPECT_GT(walked, fast + 200 * 0.9 * 200e3) << walked;  // 200 path ops, a 200 us lookup each
  EXPECT_LT(walked, slow) << walked;
  auto none = f.run({"never/touched=fast"});
  ASSERT_TRUE(none) << none.message();
  EXPECT_EQ(none->columns[2].sim.wall_ns, none->columns[1].sim.wall_ns);
  EXPECT_TRUE(has(none->columns[2].assumptions, "the trace never touched never/touched"))
      << ::testing::PrintToString(none->columns[2].assumptions);
}

// The walk to a placed path (issue 43's validation: npm's node_modules): a
// bind-mounted SUBDIR is entered by looking its name up in its parent, on
// the rest's mount. Absolute walks start above it and pay that lookup, walks
// from a cwd inside SUBDIR do not, walks from the root pay SUBDIR's depth.
TEST(PredictPlacement, AWalkIntoSubdirLooksItUpOnTheRestsMountFirst) {
  auto wall = [](const char* cwd, bool relative, bool nine_p = false) {
    TempDir dir;
    testdata::TraceFixture t;
    t.header.root = "/w";
    t.header.initial.pid = 1;
    t.header.initial.cwd = "/w";
    t.header.recorder_choices.push_back(kRecorderChoiceWalks);
    t.add(1, 1, SYS_chdir, 1'000, 2'000, 0, {}, cwd);
    for (int k = 0; k < 20; ++k) {
      const uint32_t i = t.add(1, 1, SYS_newfstatat, 10'000 + k * 10'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0},
                               "/w/d/e/x" + std::to_string(k));
      if (relative) t.ev[i].flags |= kEfRelative0;
    }
    EXPECT_TRUE(t.write(dir.file("t.trace")));
    EXPECT_TRUE(write_profile(dir.file("fast.profile"), fixed_profile("fast", 5'000)));
    Profile slow = fixed_profile("slow", 1'000'000);
    if (nine_p) slow.environment_json = R"({"platform":"linux","mount":{"mount_point":"/mnt/test","kind":"9p"}})";
    EXPECT_TRUE(write_profile(dir.file("slow.profile"), slow));
    PredictOptions o;
    o.profiles = {dir.file("fast.profile"), dir.file("slow.profile")};
    o.recorded_column = false;
    o.draws = 1;
    o.placements.push_back({{{"d", "fast"}, {".", "slow"}}, ""});
    auto pr = run_predict(dir.file("t.trace"), o);
    EXPECT_TRUE(pr) << pr.message();
    if (!pr) return std::pair<double, double>{0, 0};
    return std::pair<double, double>{double(pr->columns[2].sim.wall_ns), double(pr->columns[0].sim.wall_ns)};
  };
  constexpr double kLookup = 200e3;                       // the slow profile's stat: +0.2 of its 1 ms per component
  const auto [inside, fast_inside] = wall("/w/d", true);  // "e/xK" from d: nothing on slow
  EXPECT_LT(std::abs(inside - fast_inside), 20 * 0.1 * kLookup) << inside << " against " << fast_inside;
  const auto [absolute, fast_abs] = wall("/w", false);  // "/w/d/e/xK": d looked up on slow
  EXPECT_NEAR(absolute - fast_abs, 20 * kLookup, 20 * 0.15 * kLookup) << absolute << " against " << fast_abs;
  const auto [from_root, fast_root] = wall("/w", true);  // "d/e/xK" from the root: the same
  EXPECT_NEAR(from_root - fast_root, 20 * kLookup, 20 * 0.15 * kLookup) << from_root << " against " << fast_root;
  // The kernel's 9p client trusts the entries it holds, and the bind mount
  // on d holds d and its ancestors: the walk into d costs nothing there (a
  // real 9p counted 513 TWALKs for a split git run, not the 3,782 unsplit).
  const auto [nine_p, fast_9p] = wall("/w", false, true);
  EXPECT_LT(std::abs(nine_p - fast_9p), 20 * 0.1 * kLookup) << nine_p << " against " << fast_9p;
}

TEST(PredictPlacement, TheRestIsTheLastProfileNoRuleNamesOrTheDotRule) {
  Fixture f;
  auto by_default = f.run({"d1=slow"});  // slow is named: the rest is fast
  ASSERT_TRUE(by_default) << by_default.message();
  EXPECT_EQ(by_default->columns[2].placement, "d1=slow, rest=fast");
  auto all_named = f.run({"d1=slow", "d2=fast"});
  ASSERT_TRUE(all_named);
  EXPECT_EQ(all_named->columns.size(), 2u);  // no placement column: say where the rest goes
  EXPECT_TRUE(has(all_named->problems, "say where the rest of the tree lives with --place .=PROFILE"))
      << ::testing::PrintToString(all_named->problems);
}

TEST(PredictPlacement, OverlapsAndUnknownProfilesAreNamedAndLeftOut) {
  Fixture f;
  auto pr = f.run({"d1=fast", "d1/x=fast", "d2=nosuch"});
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->columns.size(), 3u);
  EXPECT_EQ(pr->columns[2].placement, "d1=fast, rest=slow");
  EXPECT_TRUE(has(pr->problems, "--place d1/x=fast: overlaps --place d1=fast"));
  EXPECT_TRUE(has(pr->problems, "--place d2=nosuch: no readable --profile is named 'nosuch'"));
}

TEST(PredictPlacement, AProfileOfAnotherFormatIsLeftOutOfThePlacement) {
  Fixture f;
  PredictOptions o;
  o.profiles = {f.dir.file("fast.profile"), f.dir.file("t.trace"), f.dir.file("slow.profile")};
  o.recorded_column = false;
  o.placements.push_back({{{"d1", f.dir.file("t.trace")}, {"d2", "fast"}}, ""});
  auto pr = run_predict(f.dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  EXPECT_TRUE(has(pr->problems, "is a trace, not a profile")) << ::testing::PrintToString(pr->problems);
  EXPECT_TRUE(has(pr->problems, "--place d1=")) << ::testing::PrintToString(pr->problems);
  EXPECT_EQ(pr->columns.back().placement, "d2=fast, rest=slow");
}

TEST(PredictPlacement, ARenameAcrossPlacementsIsCounted) {
  TempDir dir;
  ASSERT_TRUE(testdata::small_build_trace().write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("fast.profile"), fixed_profile("fast", 5'000)));
  ASSERT_TRUE(write_profile(dir.file("slow.profile"), fixed_profile("slow", 1'000'000)));
  PredictOptions o;
  o.profiles = {dir.file("fast.profile"), dir.file("slow.profile")};
  o.placements.push_back({{{"out/a.o.tmp", "fast"}}, ""});  // renamed to out/a.o, on slow
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  EXPECT_EQ(pr->columns.back().placed.crossing, 1u);
  EXPECT_TRUE(has(pr->columns.back().assumptions, "fail with EXDEV"));
}

// Two workers stat under d/t0 and d/t1 on one-slot mounts: on one mount
// they wait in turn; each on its own mount's queue, they do not.
TEST(PredictPlacement, EachMountHasItsOwnServerQueue) {
  TempDir dir;
  ASSERT_TRUE(testdata::parallel_stats(2, 40).write(dir.file("t.trace")));
  for (const char* name : {"a", "b"}) {
    Profile p = fixed_profile(name, 100'000);
    p.server.slots = 1;
    p.server.service_ns = 99'500;
    ASSERT_TRUE(write_profile(dir.file(std::string(name) + ".profile"), p));
  }
  PredictOptions o;
  o.profiles = {dir.file("a.profile"), dir.file("b.profile")};
  o.recorded_column = false;
  o.draws = 1;
  o.placements.push_back({{{"d/t1", "b"}, {".", "a"}}, "split"});
  o.placements.push_back({{{"d/t1", "a"}, {".", "a"}}, "same"});
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->columns.size(), 4u);
  const uint64_t one_mount = pr->columns[0].sim.wall_ns;
  EXPECT_EQ(pr->columns[3].sim.wall_ns, one_mount);  // both rules on a: one queue
  // (t1's stats still look d and t1 up on a first: 2 of its 20 us components, then 100 us on b)
  EXPECT_LT(double(pr->columns[2].sim.wall_ns), 0.8 * double(one_mount))
      << pr->columns[2].sim.wall_ns << " of " << one_mount;
  EXPECT_EQ(pr->columns[2].placed.ops[1], 40u);
}

}  // namespace
}  // namespace fsr
