// SPDX-License-Identifier: Apache-2.0
// advise on synthetic traces: the directory that carries most of the slow
// mount's time is moved first, --keep is honoured, bad input is one line
// each and advise goes on; golden text, JSON and Markdown
// (FSR_UPDATE_GOLDEN=1 rewrites golden/, then review the diff).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "advise/advise.h"
#include "tests/predict/predict_testdata.h"
#include "tests/report/golden.h"
#include "tests/report/json_schema.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::TempDir;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

bool has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& s : lines)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

// fixed_profile(name, ns) probed on a mount of its own, /mnt/NAME.
Profile own_mount_profile(const std::string& name, uint64_t ns) {
  Profile p = fixed_profile(name, ns);
  auto env = nlohmann::json::parse(p.environment_json);
  env["mount"]["mount_point"] = "/mnt/" + name;
  p.environment_json = env.dump();
  return p;
}

// mixed_trace(40): 45 ops under each of /w/d0..d7, 120 under /w/o.
struct Fixture {
  TempDir dir;
  Fixture() {
    EXPECT_TRUE(testdata::mixed_trace(40).write(dir.file("t.trace")));
    EXPECT_TRUE(write_profile(dir.file("ext4.profile"), own_mount_profile("ext4", 5'000)));
    EXPECT_TRUE(write_profile(dir.file("9p.profile"), own_mount_profile("9p", 1'000'000)));
    EXPECT_TRUE(write_profile(dir.file("virtiofs.profile"), own_mount_profile("virtiofs", 300'000)));
  }
  AdviseOptions options(std::vector<std::string> names = {"ext4", "9p"}) {
    AdviseOptions o;
    for (const std::string& n : names) o.profiles.push_back(dir.file(n + ".profile"));
    return o;
  }
  Result<Advice> run(const AdviseOptions& o) { return run_advise(dir.file("t.trace"), o); }
};

TEST(Advise, MovesTheDirectoryBehindTheSlowMountFirst) {
  Fixture f;
  AdviseOptions o = f.options();
  o.max_moves = 1;
  auto a = f.run(o);
  ASSERT_TRUE(a) << a.message();
  ASSERT_EQ(a->configs.size(), 1u);
  const ConfigAdvice& c = a->configs[0];
  ASSERT_EQ(c.candidates.size(), 9u);  // d0..d7 and o, each far above 1%
  EXPECT_EQ(c.candidates[0].dir, "o");
  EXPECT_TRUE(c.exact);
  ASSERT_FALSE(c.ranked.empty());
  EXPECT_EQ(c.ranked[0].moves, std::vector<std::string>{"o"});
  EXPECT_LT(c.ranked[0].wall_ns, c.all_slow_ns);
  EXPECT_GT(c.ranked[0].recovered, 0.2);
  EXPECT_LT(c.ranked[0].recovered, 0.3);  // 120 of the 480 slowed ops
  EXPECT_NE(c.ranked[0].verify.find("--place o=$FAST/o"), std::string::npos) << c.ranked[0].verify;
}

TEST(Advise, BeyondTheExactLimitTheBeamStillStartsWithTheHeaviest) {
  Fixture f;
  AdviseOptions o = f.options();
  o.max_moves = 3;  // 129 combinations of 9: more than 64, a beam search
  auto a = f.run(o);
  ASSERT_TRUE(a) << a.message();
  const ConfigAdvice& c = a->configs[0];
  EXPECT_FALSE(c.exact);
  ASSERT_FALSE(c.ranked.empty());
  EXPECT_EQ(c.ranked[0].moves.size(), 3u);
  EXPECT_EQ(c.ranked[0].moves[0], "o");
  EXPECT_LT(c.evaluated, 129u);          // not every combination
  EXPECT_GT(c.evaluated, 9u + 8u + 7u);  // more than one greedy path
}

TEST(Advise, KeepIsHonoured) {
  Fixture f;
  AdviseOptions o = f.options();
  o.max_moves = 1;
  o.keep = {{"o", "9p"}};  // o stays on the slow mount
  auto stay = f.run(o);
  ASSERT_TRUE(stay) << stay.message();
  for (const PlacedRow& r : stay->configs[0].ranked)
    for (const std::string& m : r.moves) EXPECT_NE(m, "o");
  EXPECT_EQ(stay->keep, std::vector<std::string>{"o=9p"});
  o.keep = {{"d0", "ext4"}};  // d0 on the fast mount in every placement
  auto pinned = f.run(o);
  ASSERT_TRUE(pinned) << pinned.message();
  for (const PlacedRow& r : pinned->configs[0].ranked) EXPECT_EQ(r.moves.back(), "d0");
  EXPECT_EQ(pinned->configs[0].ranked[0].moves, (std::vector<std::string>{"o", "d0"}));
}

TEST(Advise, AKeepThatLeavesNothingToMoveIsOneLine) {
  Fixture f;
  AdviseOptions o = f.options();
  o.keep = {{".", "9p"}};
  auto a = f.run(o);
  ASSERT_TRUE(a) << a.message();
  EXPECT_TRUE(a->configs[0].ranked.empty());
  EXPECT_TRUE(has(a->problems, "--keep leaves no directory to move on 9p")) << ::testing::PrintToString(a->problems);
  o.keep = {{"o", "nosuch"}};
  auto b = f.run(o);
  ASSERT_TRUE(b) << b.message();
  EXPECT_TRUE(has(b->problems, "--keep o=nosuch: no readable --profile is named 'nosuch'"));
}

TEST(Advise, AProfileOfAnotherFormatIsLeftOutAndAdviseGoesOn) {
  Fixture f;
  AdviseOptions o = f.options();
  o.profiles.insert(o.profiles.begin() + 1, f.dir.file("t.trace"));
  o.max_moves = 1;
  auto a = f.run(o);
  ASSERT_TRUE(a) << a.message();
  EXPECT_TRUE(has(a->problems, "is a trace, not a profile")) << ::testing::PrintToString(a->problems);
  ASSERT_EQ(a->configs.size(), 1u);
  EXPECT_EQ(a->configs[0].ranked[0].moves, std::vector<std::string>{"o"});
  o.profiles = {f.dir.file("ext4.profile"), f.dir.file("t.trace")};
  auto none = f.run(o);
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("give two readable profiles"), std::string::npos) << none.message();
}

// Two profiles probed on one mount of one host: one line, and advise goes on.
TEST(Advise, ProfilesOfTheSameMountAreOneLine) {
  Fixture f;
  auto probed_on = [&](const char* name, uint64_t ns, const char* point) {
    Profile p = fixed_profile(name, ns);
    p.environment_json =
        nlohmann::json{{"hostname", "h"}, {"mount", {{"mount_point", point}, {"source", "/dev/x"}}}}.dump();
    EXPECT_TRUE(write_profile(f.dir.file(std::string(name) + ".profile"), p));
  };
  probed_on("ext4", 5'000, "/");
  probed_on("9p", 1'000'000, "/mnt/c");
  AdviseOptions o = f.options();
  o.max_moves = 1;
  auto apart = f.run(o);
  ASSERT_TRUE(apart) << apart.message();
  EXPECT_FALSE(has(apart->problems, "probed on the same mount")) << ::testing::PrintToString(apart->problems);
  probed_on("9p", 1'000'000, "/");
  auto same = f.run(o);
  ASSERT_TRUE(same) << same.message();
  EXPECT_TRUE(has(same->problems, "ext4 and 9p were probed on the same mount, h:/ (/dev/x)"))
      << ::testing::PrintToString(same->problems);
  ASSERT_EQ(same->configs.size(), 1u);
  EXPECT_FALSE(same->configs[0].ranked.empty());
}

TEST(Advise, SaysWhichConfigurationWins) {
  Fixture f;
  AdviseOptions o = f.options({"ext4", "9p", "virtiofs"});
  o.max_moves = 1;
  auto a = f.run(o);
  ASSERT_TRUE(a) << a.message();
  ASSERT_EQ(a->configs.size(), 2u);
  EXPECT_NE(a->verdict.find("Best: the tree on virtiofs with o on ext4"), std::string::npos) << a->verdict;
}

TEST(Advise, RealisesKnownDirectoriesTheirOwnWay) {
  auto git = realisations("clone/.git", "/w");
  ASSERT_GE(git.size(), 3u);
  EXPECT_EQ(git[0].how, "git --separate-git-dir");
  EXPECT_NE(git[0].command.find("--separate-git-dir=$FAST/clone/.git"), std::string::npos) << git[0].command;
  EXPECT_EQ(realisations("target", "/w")[0].how, "CARGO_TARGET_DIR");
  EXPECT_EQ(realisations("app/node_modules", "/w")[0].how, "node_modules on the Linux disk");
  auto plain = realisations("src", "/w");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[0].command,
            "mkdir -p $FAST/src && mount --bind $FAST/src /w/src  (/etc/fstab: $FAST/src /w/src "
            "none bind 0 0)");
}

class AdviseGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    AdviseOptions o = f_.options({"ext4", "9p", "virtiofs"});
    o.max_moves = 2;
    o.rows = 4;
    o.max_candidates = 4;
    auto a = f_.run(o);
    ASSERT_TRUE(a) << a.message();
    advice_ = std::move(a).value();
  }
  std::string render(OutputFormat fmt) {
    auto out = render_advice(advice_, fmt);
    EXPECT_TRUE(out) << out.message();
    return replace_all(out ? *out : "", f_.dir.path.string(), "DIR");
  }
  Fixture f_;
  Advice advice_;
};

TEST_F(AdviseGolden, Text) { EXPECT_EQ(testdata::check_golden("advise.txt", render(OutputFormat::kText)), ""); }
TEST_F(AdviseGolden, Markdown) { EXPECT_EQ(testdata::check_golden("advise.md", render(OutputFormat::kMarkdown)), ""); }
TEST_F(AdviseGolden, Json) {
  const std::string j = render(OutputFormat::kJson);
  EXPECT_EQ(testdata::check_golden("advise.json", j), "");
  std::ifstream in(std::string(FSR_SOURCE_DIR) + "/advise/advise.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  nlohmann::json doc = nlohmann::json::parse(j);
  EXPECT_EQ(testdata::validate_json(schema, doc), std::vector<std::string>{});
  doc["configs"][0]["placements"][0]["wall_ns"] = "slow";
  EXPECT_FALSE(testdata::validate_json(schema, doc).empty());
}
TEST_F(AdviseGolden, HtmlHasOneChartWithABarPerPlacement) {
  const std::string h = render(OutputFormat::kHtml);
  EXPECT_EQ(h.find("<svg"), h.rfind("<svg"));
  size_t bars = 0;
  for (size_t at = h.find("<rect"); at != std::string::npos; at = h.find("<rect", at + 1)) ++bars;
  size_t rows = 0;
  for (const ConfigAdvice& c : advice_.configs) rows += 1 + c.ranked.size();
  EXPECT_EQ(bars, rows + 1);
}

}  // namespace
}  // namespace fsr
