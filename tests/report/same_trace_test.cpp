// SPDX-License-Identifier: Apache-2.0
// Results of different traces are refused side by side, or labelled a
// different workload when allowed (report/same_trace.h); results
// without a trace id are warned about, not refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/report/json_schema.h"
#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render_json.h"
#include "report/render_text.h"
#include "report/same_trace.h"

namespace fsr {
namespace {

constexpr uint64_t kT1 = 0x1111222233334444ull, kT2 = 0x5555666677778888ull;

ResultSet result_of(uint64_t trace_id, const char* trace, const char* file, bool slow) {
  ResultSet rs = testdata::small_result(slow);
  rs.header.source_trace = trace;
  rs.header.source_trace_id = trace_id;
  rs.file = file;
  return rs;
}

TEST(SameTrace, ResultsOfDifferentTracesAreRefusedNamingBothFilesAndTraces) {
  ResultSet a = result_of(kT1, "/t/one.trace", "a.result", false);
  ResultSet b = result_of(kT2, "/t/two.trace", "b.result", true);
  std::vector<std::string> warnings;
  Status st = check_same_trace({&a, &b}, false, warnings);
  ASSERT_FALSE(st);
  const std::string& m = st.message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
  for (const char* want : {"a.result", "b.result", "/t/one.trace", "/t/two.trace", "1111222233334444",
                           "5555666677778888", "--allow-different-traces"})
    EXPECT_NE(m.find(want), std::string::npos) << want << " in: " << m;
  EXPECT_TRUE(warnings.empty());
}

TEST(SameTrace, ResultsOfOneTraceAreAccepted) {
  ResultSet a = result_of(kT1, "/t/one.trace", "a.result", false);
  ResultSet b = result_of(kT1, "/elsewhere/copy-of-one.trace", "b.result", true);  // a copy keeps its id
  ResultSet c = result_of(kT1, "/t/one.trace", "c.result", true);
  std::vector<std::string> warnings;
  EXPECT_TRUE(check_same_trace({&a, &b, &c}, false, warnings).is_ok());
  EXPECT_TRUE(warnings.empty());
  for (const ResultSet* r : {&a, &b, &c}) EXPECT_FALSE(r->different_trace);
}

TEST(SameTrace, AllowedDifferentTracesAreMarkedAgainstTheFirst) {
  ResultSet a = result_of(kT1, "/t/one.trace", "a.result", false);
  ResultSet b = result_of(kT2, "/t/two.trace", "b.result", true);
  ResultSet c = result_of(kT1, "/t/one.trace", "c.result", true);
  std::vector<std::string> warnings;
  ASSERT_TRUE(check_same_trace({&a, &b, &c}, true, warnings).is_ok());
  EXPECT_FALSE(a.different_trace);
  EXPECT_TRUE(b.different_trace);
  EXPECT_FALSE(c.different_trace);
}

TEST(SameTrace, AResultWithoutAnIdIsWarnedAboutNotRefused) {
  ResultSet old = result_of(0, "/t/one.trace", "old.result", false);
  ResultSet now = result_of(kT2, "/t/two.trace", "new.result", true);
  std::vector<std::string> warnings;
  EXPECT_TRUE(check_same_trace({&old, &now}, false, warnings).is_ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("old.result"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("new.result"), std::string::npos) << warnings[0];
  EXPECT_FALSE(old.different_trace);
  EXPECT_FALSE(now.different_trace);
  warnings.clear();
  EXPECT_TRUE(check_same_trace({&now}, false, warnings).is_ok());
  EXPECT_TRUE(warnings.empty()) << "a single result is compared with nothing";
}

// --allow-different-traces: every format says which column is another workload.
TEST(SameTrace, DifferentTraceColumnsAreLabelledInEveryFormat) {
  ResultSet a = result_of(kT1, "/t/one.trace", "a.result", false);
  ResultSet b = result_of(kT2, "/t/two.trace", "b.result", true);
  std::vector<std::string> warnings;
  ASSERT_TRUE(check_same_trace({&a, &b}, true, warnings).is_ok());

  const Comparison cmp = build_comparison({&a, &b});
  const std::string text = render_compare_text(cmp);
  EXPECT_NE(text.find("DIFFERENT TRACE"), std::string::npos) << text;
  EXPECT_NE(text.find("diff. trace"), std::string::npos) << "the column header says so:\n" << text;
  EXPECT_NE(text.find("/t/two.trace (trace id 5555666677778888)"), std::string::npos) << text;

  const std::string report = render_report_text(build_report(b, &a));
  EXPECT_NE(report.find("DIFFERENT TRACE"), std::string::npos) << report;
  for (const std::string* t : {&text, &report}) {  // the tables fit 100 columns
    size_t start = 0;
    for (size_t end; (end = t->find('\n', start)) != std::string::npos; start = end + 1)
      EXPECT_LE(end - start, 100u) << t->substr(start, end - start);
  }

  const auto cj = nlohmann::json::parse(compare_to_json(cmp).dump());
  EXPECT_FALSE(cj["mounts"][0].contains("different_trace"));
  EXPECT_EQ(cj["mounts"][1]["different_trace"], true);
  EXPECT_EQ(cj["mounts"][1]["source_trace_id"], "5555666677778888");
  const auto rj = nlohmann::json::parse(report_to_json(build_report(b, &a)).dump());
  EXPECT_EQ(rj["target"]["different_trace"], true);
  for (auto [schema, doc] : {std::pair{"compare.schema.json", cj}, std::pair{"report.schema.json", rj}}) {
    std::ifstream in(std::string(FSR_SCHEMA_DIR) + "/" + schema);
    ASSERT_TRUE(in) << schema;
    EXPECT_TRUE(testdata::validate_json(nlohmann::json::parse(in), doc).empty()) << schema;
  }

  // The same results of one trace: no label anywhere.
  b.header.source_trace_id = kT1;
  ASSERT_TRUE(check_same_trace({&a, &b}, true, warnings).is_ok());
  const std::string same = render_compare_text(build_comparison({&a, &b}));
  EXPECT_EQ(same.find("DIFFERENT TRACE"), std::string::npos) << same;
  EXPECT_EQ(same.find("diff. trace"), std::string::npos) << same;
}

}  // namespace
}  // namespace fsr
