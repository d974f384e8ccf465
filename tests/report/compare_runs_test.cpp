// SPDX-License-Identifier: Apache-2.0
// compare --runs (compare.h compare_runs, run_spread.h): several runs of each
// mount give medians with intervals, a ratio marked where its interval
// excludes 1, none where the runs' noise explains the difference, and no
// interval from one run. Runs are the small workload's simulated replay with
// every latency scaled per run (a machine's noise), so the goldens are fixed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/report/golden.h"
#include "tests/report/json_schema.h"
#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render_json.h"
#include "report/render_text.h"
#include "report/result_summary.h"

namespace fsr {
namespace {

// One mount's runs: the small workload on `target`, stat and open `slow`x,
// each run's latencies scaled by its noise factor.
std::vector<ResultSummary> runs_of(const char* target, double slow, const std::vector<double>& noise) {
  std::vector<ResultSummary> out;
  for (double f : noise) {
    testdata::SimWorkload w = testdata::small_workload();
    w.header.target = target;
    w.header.source_trace = "build.trace";
    w.header.environment_json =
        slow > 1 ? R"({"mount":{"kind":"9p-drvfs","fs_type":"9p"}})" : R"({"mount":{"kind":"ext4","fs_type":"ext4"}})";
    const ResultSet rs = testdata::simulate(w, [&](const testdata::SimOp& op) {
      const SyscallClass c = class_of(op.nr);
      const double k = c == SyscallClass::kStat || c == SyscallClass::kOpen ? slow : 1.0;
      return static_cast<uint64_t>(double(op.latency) * k * f);
    });
    out.push_back(summarize(rs, {}));
  }
  return out;
}

Comparison compare_of(const std::vector<std::vector<ResultSummary>>& mounts) {
  std::vector<std::vector<const ResultSummary*>> cols;
  for (const auto& m : mounts) {
    cols.emplace_back();
    for (const ResultSummary& r : m) cols.back().push_back(&r);
  }
  return compare_runs(cols);
}

const std::vector<double> kNoise{1.00, 1.04, 0.97, 1.02, 0.98};

TEST(CompareRuns, EachMountIsItsMedianRunWithEveryRunKept) {
  const auto ext4 = runs_of("/home/u/proj", 1, kNoise), c9p = runs_of("/mnt/c/proj", 10, kNoise);
  const Comparison c = compare_of({ext4, c9p});
  ASSERT_EQ(c.columns.size(), 2u);
  EXPECT_EQ(c.runs, 5u);
  ASSERT_EQ(c.columns[1].walls_ns.size(), 5u);
  ASSERT_EQ(c.columns[1].class_ns.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(c.columns[1].walls_ns[k], double(c9p[k].wall_ns()));
  // The median run of noise {1.00, 1.04, 0.97, 1.02, 0.98} is the first (1.00).
  EXPECT_EQ(c.columns[1].run.wall_ns, c9p[0].wall_ns());
}

TEST(CompareRuns, ATenfoldStatIsSignificantAndMarked) {
  const Comparison c = compare_of({runs_of("/home/u/proj", 1, kNoise), runs_of("/mnt/c/proj", 10, kNoise)});
  const std::string text = render_compare_text(c);
  for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
    nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    EXPECT_LE(nl - at, 100u) << text.substr(at, nl - at);
  }
  EXPECT_EQ(testdata::check_golden("compare_runs.txt", text), "");
  EXPECT_NE(text.find("Runs: 5 of each mount"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(compare_to_json(c).dump());
  EXPECT_EQ(testdata::check_golden("compare_runs.json", compare_to_json(c).dump(2) + "\n"), "");
  EXPECT_EQ(j["runs"], 5);
  bool stat_row = false;
  for (const auto& row : j["rows"]) {
    if (row["row"] == "wall" || row["row"] == "stat") {
      stat_row = stat_row || row["row"] == "stat";
      EXPECT_TRUE(row["runs"][1]["ratio_to_first"]["significant"].get<bool>()) << row.dump();
      EXPECT_EQ(row["runs"][0]["values_ns"].size(), 5u);
      EXPECT_TRUE(row["runs"][0].contains("median_interval_ns"));
    }
  }
  EXPECT_TRUE(stat_row);
  std::ifstream in(std::string(FSR_SCHEMA_DIR) + "/compare.schema.json");
  const auto errors = testdata::validate_json(nlohmann::json::parse(in), j);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
}

// The same mount twice, 1% apart, each run +-8%: no row is a finding.
TEST(CompareRuns, AOnePercentDifferenceOnNoisyRunsIsNotMarked) {
  const std::vector<double> a{1.00, 1.08, 0.92, 1.05, 0.95},
      b{0.96 * 1.01, 1.07 * 1.01, 0.93 * 1.01, 1.04 * 1.01, 0.99 * 1.01};
  const Comparison c = compare_of({runs_of("/home/u/a", 1, a), runs_of("/home/u/b", 1, b)});
  const nlohmann::json j = nlohmann::json::parse(compare_to_json(c).dump());
  for (const auto& row : j["rows"]) {
    const auto& r = row["runs"][1]["ratio_to_first"];
    EXPECT_FALSE(r["significant"].get<bool>()) << row.dump();
    EXPECT_LT(r["interval"][0].get<double>(), 1) << row.dump();
    EXPECT_GT(r["interval"][1].get<double>(), 1) << row.dump();
  }
  EXPECT_EQ(render_compare_text(c).find(" *\n"), std::string::npos) << render_compare_text(c);
}

// Two mounts of one kind (slowfs emulating 9p and virtiofs are both fuse)
// are told apart by their targets' names; one kind on the same-named targets
// stays as it is.
TEST(CompareRuns, MountsOfOneKindAreNamedByTheirTargets) {
  const Comparison c = compare_of({runs_of("/home/u/proj", 1, {1.0}), runs_of("/var/t/target-wsl2-9p/", 10, {1.0}),
                                   runs_of("/var/t/target-wsl2-virtiofs", 3, {1.0})});
  EXPECT_EQ(c.columns[0].run.short_label, "ext4");
  EXPECT_EQ(c.columns[1].run.short_label, "target-wsl2-9p");
  EXPECT_EQ(c.columns[2].run.short_label, "target-wsl2-virtiofs");
  const Comparison same = compare_of({runs_of("/a/proj", 10, {1.0}), runs_of("/b/proj", 10, {1.0})});
  EXPECT_EQ(same.columns[0].run.short_label, "9p-drvfs");
  EXPECT_EQ(same.columns[1].run.short_label, "9p-drvfs");
}

TEST(CompareRuns, OneRunShowsNoInterval) {
  const Comparison one = compare_of({runs_of("/home/u/proj", 1, {1.0}), runs_of("/mnt/c/proj", 10, {1.0})});
  EXPECT_EQ(one.runs, 1u);
  const std::string text = render_compare_text(one);
  EXPECT_EQ(text.find("Runs:"), std::string::npos) << text;
  EXPECT_FALSE(nlohmann::json::parse(compare_to_json(one).dump()).contains("runs"));
  // Two runs: the block, but no interval and no marker.
  const Comparison two = compare_of({runs_of("/home/u/proj", 1, {1.0, 1.1}), runs_of("/mnt/c/proj", 10, {1.0, 1.1})});
  const std::string t2 = render_compare_text(two);
  EXPECT_NE(t2.find("(2 runs: no interval)"), std::string::npos) << t2;
  EXPECT_EQ(t2.find(" *\n"), std::string::npos) << t2;
}

}  // namespace
}  // namespace fsr
