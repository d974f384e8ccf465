// SPDX-License-Identifier: Apache-2.0
// Repeated runs from the command (issue 42): `replay --runs N --warmup K
// --prepare-cmd CMD` keeps N results and N walls, runs CMD before every run
// and throws the warm-ups away; `compare TRACE --target A --target B --runs N`
// interleaves the targets and prints the runs' intervals. Runs the real
// binary on a small synthetic trace (no root).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "tests/cli/cli_run.h"
#include "tests/report/json_schema.h"
#include "tests/predict/predict_testdata.h"
#include "traces/profile.h"

namespace fsr {
namespace {

namespace fs = std::filesystem;

class CliRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testdata::small_build_trace().write(trace));
    fs::create_directory(target);
  }
  testdata::TempDir d;
  const std::string trace = d.file("build.trace"), target = d.file("target");
};

// `doc`'s violations of the schema at `path` (below the source tree), one per line.
std::string violations(const std::string& path, const nlohmann::json& doc) {
  const nlohmann::json schema = nlohmann::json::parse(slurp(std::string(FSR_SOURCE_DIR) + "/" + path));
  std::string out;
  for (const std::string& e : testdata::validate_json(schema, doc)) out += e + "\n";
  return out;
}

size_t lines_in(const std::string& path) {
  const std::string s = slurp(path);
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST_F(CliRuns, ReplayKeepsEveryRunAndPreparesBeforeEach) {
  const std::string count = d.file("prepared");
  const CliRun r = fsreplay({"replay", trace, "--target", target, "--timing", "afap", "--max-divergence", "100", "-o",
                             d.file("r.result"), "--runs", "3", "--warmup", "1", "--prepare-cmd", "echo x >> " + count,
                             "--json", "-q"});
  ASSERT_EQ(r.code, 0) << show(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("runs")) << r.out;
  EXPECT_EQ(j["runs"]["walls_ns"].size(), 3u);
  ASSERT_EQ(j["runs"]["results"].size(), 3u);
  for (int k = 1; k <= 3; ++k) {
    EXPECT_TRUE(fs::exists(d.file("r." + std::to_string(k) + ".result"))) << k;
    EXPECT_EQ(j["runs"]["results"][k - 1], d.file("r." + std::to_string(k) + ".result"));
  }
  EXPECT_TRUE(j["runs"].contains("median_interval_ns")) << r.out;
  EXPECT_EQ(violations("replayer/session/replay.schema.json", j), "");
  EXPECT_FALSE(fs::exists(d.file("r.result"))) << "the runs are numbered";
  EXPECT_FALSE(fs::exists(d.file("r.0.result.warmup"))) << "the warm-up is thrown away";
  EXPECT_EQ(lines_in(count), 4u) << "--prepare-cmd runs before the warm-up and each run";
  EXPECT_NE(r.err.find("warm-up 1 of 1"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("run 3 of 3"), std::string::npos) << show(r);
}

// One replay's --json summary, as every run's, meets the schema; a key it
// does not know fails it.
TEST_F(CliRuns, TheReplaySummaryMeetsItsSchema) {
  const CliRun r = fsreplay({"replay", trace, "--target", target, "--timing", "afap", "--max-divergence", "100", "-o",
                             d.file("one.result"), "--json", "-q"});
  ASSERT_EQ(r.code, 0) << show(r);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "fsreplay.replay/1");
  EXPECT_FALSE(j.contains("runs"));
  EXPECT_EQ(violations("replayer/session/replay.schema.json", j), "");
  j["walls"] = 1;
  EXPECT_NE(violations("replayer/session/replay.schema.json", j), "");
}

TEST_F(CliRuns, TwoRunsSayTheyHaveNoInterval) {
  const CliRun r = fsreplay({"replay", trace, "--target", target, "--timing", "afap", "--max-divergence", "100", "-o",
                             d.file("two.result"), "--runs", "2", "-q"});
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_NE(r.out.find("runs         2: median"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("no interval"), std::string::npos) << show(r);
}

TEST_F(CliRuns, AFailingPrepareCommandOrAKeptTreeIsRefused) {
  const CliRun f = fsreplay({"replay", trace, "--target", target, "--timing", "afap", "-o", d.file("f.result"),
                             "--runs", "2", "--prepare-cmd", "exit 3", "-q"});
  EXPECT_EQ(f.code, 1) << show(f);
  EXPECT_NE(f.err.find("--prepare-cmd 'exit 3' failed before run 1 of 2"), std::string::npos) << show(f);
  EXPECT_FALSE(fs::exists(d.file("f.1.result")));
  const CliRun k = fsreplay({"replay", trace, "--target", target, "--runs", "2", "--keep-tree", "-q"});
  EXPECT_EQ(k.code, 2) << show(k);
}

TEST_F(CliRuns, CompareInterleavesTheTargetsAndShowsIntervals) {
  const std::string target2 = d.file("target2"), results = d.file("results");
  fs::create_directory(target2);
  fs::create_directory(results);
  const CliRun c = fsreplay(
      {"compare", trace, "--target", target, "--target", target2, "--runs", "3", "--results-dir", results, "-q"});
  ASSERT_EQ(c.code, 0) << show(c);
  EXPECT_NE(c.out.find("Runs: 3 of each mount"), std::string::npos) << show(c);
  EXPECT_NE(c.out.find("interval of the median"), std::string::npos) << show(c);
  for (int m = 1; m <= 2; ++m)
    for (int k = 1; k <= 3; ++k)
      EXPECT_TRUE(fs::exists(results + "/build." + std::to_string(m) + ".run" + std::to_string(k) + ".result"))
          << m << " " << k;
  // Run by run: target 1, target 2, then the next run.
  const size_t a1 = c.err.find("on " + target + " (run 1 of 3)"), b1 = c.err.find("on " + target2 + " (run 1 of 3)"),
               a2 = c.err.find("on " + target + " (run 2 of 3)");
  ASSERT_NE(a1, std::string::npos) << show(c);
  ASSERT_NE(b1, std::string::npos) << show(c);
  ASSERT_NE(a2, std::string::npos) << show(c);
  EXPECT_LT(a1, b1);
  EXPECT_LT(b1, a2);
  // The same runs as files: every 3 consecutive results are one mount's.
  std::vector<std::string> args{"compare"};
  for (int m = 1; m <= 2; ++m)
    for (int k = 1; k <= 3; ++k)
      args.push_back(results + "/build." + std::to_string(m) + ".run" + std::to_string(k) + ".result");
  args.insert(args.end(), {"--runs", "3", "--format", "json"});
  const CliRun f = fsreplay(args);
  ASSERT_EQ(f.code, 0) << show(f);
  EXPECT_EQ(nlohmann::json::parse(f.out)["runs"], 3) << f.out;
  args[1] = args[2];  // 6 files is no multiple of 4
  args.insert(args.end(), {"--runs", "4"});
  const CliRun bad = fsreplay(args);
  EXPECT_EQ(bad.code, 2) << show(bad);
}

// The exports to paste, from the verbs: predict's and compare's tables in
// Markdown and CSV.
TEST_F(CliRuns, PredictAndCompareExportMarkdownAndCsv) {
  const std::string profile = d.file("base.profile");
  ASSERT_TRUE(write_profile(profile, testdata::fixed_profile("base", 20'000)));
  const CliRun md = fsreplay({"predict", trace, "-p", profile, "--format", "markdown"});
  ASSERT_EQ(md.code, 0) << show(md);
  EXPECT_NE(md.out.find("|---|"), std::string::npos) << show(md);
  EXPECT_NE(md.out.find("| wall |"), std::string::npos) << show(md);
  const CliRun csv = fsreplay({"predict", trace, "-p", profile, "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << show(csv);
  EXPECT_EQ(csv.out.rfind("row,mount,label,runs,median_ns", 0), 0u) << show(csv);
  const std::string results = d.file("results");
  fs::create_directory(results);
  const CliRun c =
      fsreplay({"compare", trace, "--target", target, "--results-dir", results, "--format", "markdown", "-q"});
  ASSERT_EQ(c.code, 0) << show(c);
  EXPECT_NE(c.out.find("One run per mount: no interval"), std::string::npos) << show(c);
  const CliRun r = fsreplay({"report", results + "/build.1.result", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_EQ(r.out.rfind("section,key,count,total_ns", 0), 0u) << show(r);
}

}  // namespace
}  // namespace fsr
