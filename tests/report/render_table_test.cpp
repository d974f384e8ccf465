// SPDX-License-Identifier: Apache-2.0
// Markdown and CSV exports (render_table.h): goldens for report and compare,
// with and without repeated runs; CSV fields quoted where they must be, and
// every CSV line as wide as its header.
#include "report/render_table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/report/golden.h"
#include "tests/report/test_results.h"
#include "report/result_summary.h"

namespace fsr {
namespace {

// Fields of one CSV line (RFC 4180 quoting).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"')
      f.back() += '"', ++i;
    else if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      f.emplace_back();
    else
      f.back() += ch;
  }
  return f;
}

void expect_rectangular(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const size_t width = csv_fields(line).size();
  for (int n = 2; std::getline(in, line); ++n)
    EXPECT_EQ(csv_fields(line).size(), width) << "line " << n << ": " << line;
}

Report small_report(bool with_baseline) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  return build_report(slow, with_baseline ? &base : nullptr, {.top = 5, .dir_depth = 2});
}

TEST(RenderTable, CsvFieldsAreQuotedOnlyWhereTheyMustBe) {
  EXPECT_EQ(csv_field("node_modules/react"), "node_modules/react");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_fields("x,\"a,b\",\"say \"\"hi\"\"\""), (std::vector<std::string>{"x", "a,b", "say \"hi\""}));
}

TEST(RenderTable, ReportMatchesGoldens) {
  EXPECT_EQ(testdata::check_golden("report_baseline.md", render_report_markdown(small_report(true))), "");
  EXPECT_EQ(testdata::check_golden("report_single.md", render_report_markdown(small_report(false))), "");
  const std::string csv = render_report_csv(small_report(true));
  EXPECT_EQ(testdata::check_golden("report_baseline.csv", csv), "");
  expect_rectangular(csv);
  expect_rectangular(render_report_csv(small_report(false)));
}

TEST(RenderTable, CompareMatchesGoldens) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  const Comparison c = build_comparison({&base, &slow});
  const std::string md = render_compare_markdown(c);
  EXPECT_EQ(testdata::check_golden("compare.md", md), "");
  EXPECT_NE(md.find("One run per mount: no interval"), std::string::npos) << md;
  const std::string csv = render_compare_csv(c);
  EXPECT_EQ(testdata::check_golden("compare.csv", csv), "");
  expect_rectangular(csv);
}

// Runs of each mount: intervals in every cell, the marker on a real difference.
TEST(RenderTable, CompareOfRunsShowsIntervalsAndMarks) {
  std::vector<ResultSummary> a, b;
  for (double f : {1.00, 1.04, 0.97, 1.02, 0.98}) {
    for (bool slow : {false, true}) {
      testdata::SimWorkload w = testdata::small_workload();
      w.header.target = slow ? "/mnt/c/proj" : "/home/u/proj";
      w.header.environment_json =
          slow ? R"({"mount":{"kind":"9p-drvfs","fs_type":"9p"}})" : R"({"mount":{"kind":"ext4","fs_type":"ext4"}})";
      const ResultSet rs = testdata::simulate(w, [&](const testdata::SimOp& op) {
        const bool stat = class_of(op.nr) == SyscallClass::kStat;
        return static_cast<uint64_t>(double(op.latency) * (slow && stat ? 10 : 1) * f);
      });
      (slow ? b : a).push_back(summarize(rs, {}));
    }
  }
  std::vector<std::vector<const ResultSummary*>> cols(2);
  for (size_t k = 0; k < a.size(); ++k) cols[0].push_back(&a[k]), cols[1].push_back(&b[k]);
  const Comparison c = compare_runs(cols);
  const std::string md = render_compare_markdown(c);
  EXPECT_EQ(testdata::check_golden("compare_runs.md", md), "");
  EXPECT_NE(md.find("| stat |"), std::string::npos) << md;
  EXPECT_NE(md.find(" \\* |"), std::string::npos) << md;
  const std::string csv = render_compare_csv(c);
  EXPECT_EQ(testdata::check_golden("compare_runs.csv", csv), "");
  expect_rectangular(csv);
  EXPECT_NE(csv.find(",yes\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",no\n"), std::string::npos) << csv;  // the classes stat does not touch
}

}  // namespace
}  // namespace fsr
