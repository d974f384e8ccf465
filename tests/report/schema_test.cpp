// SPDX-License-Identifier: Apache-2.0
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "tests/report/json_schema.h"
#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render_json.h"

namespace fsr {
namespace {

using nlohmann::json;

json load_schema(const char* name) {
  std::ifstream in(std::string(FSR_SCHEMA_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += e + "\n";
  return s;
}

json report_json(bool with_baseline) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  return json::parse(report_to_json(build_report(slow, with_baseline ? &base : nullptr, {})).dump());
}

TEST(ReportSchema, ReportWithAndWithoutBaselineValidates) {
  const json schema = load_schema("report.schema.json");
  EXPECT_EQ(joined(testdata::validate_json(schema, report_json(true))), "");
  EXPECT_EQ(joined(testdata::validate_json(schema, report_json(false))), "");
}

TEST(ReportSchema, CompareValidates) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  const json doc = json::parse(compare_to_json(build_comparison({&base, &slow, &slow})).dump());
  EXPECT_EQ(joined(testdata::validate_json(load_schema("compare.schema.json"), doc)), "");
}

// Two recordings compared (recording_test.cpp's golden): the recording
// marks and the behaviour diff are in the schema.
TEST(ReportSchema, ACompareOfRecordingsValidates) {
  std::ifstream in(std::string(FSR_GOLDEN_DIR) + "/compare_recordings.json");
  ASSERT_TRUE(in.good());
  const json doc = json::parse(in);
  ASSERT_TRUE(doc.contains("behaviour_diff"));
  EXPECT_EQ(joined(testdata::validate_json(load_schema("compare.schema.json"), doc)), "");
  json bad = doc;
  bad["behaviour_diff"]["rows"][0]["kind"] = "file";
  EXPECT_NE(joined(testdata::validate_json(load_schema("compare.schema.json"), bad)), "");
}

TEST(ReportSchema, RequiredKeysAndTypesAreEnforced) {
  const json schema = load_schema("report.schema.json");
  json doc = report_json(true);
  // Every documented per-class key is present, with the documented type.
  for (const auto& row : doc["classes"]) {
    for (const char* k : {"count", "total_ns", "p50_ns", "p99_ns"}) EXPECT_TRUE(row[k].is_number_integer()) << k;
    EXPECT_TRUE(row["share_of_slowdown"].is_number());
  }
  json missing = doc;
  missing["classes"][0].erase("p99_ns");
  EXPECT_NE(joined(testdata::validate_json(schema, missing)).find("/classes/0: missing key p99_ns"), std::string::npos);
  json wrong_type = doc;
  wrong_type["classes"][1]["share_of_slowdown"] = "77%";
  EXPECT_NE(joined(testdata::validate_json(schema, wrong_type)).find("/classes/1/share_of_slowdown: type string"),
            std::string::npos);
  json extra = doc;
  extra["target"]["surprise"] = 1;
  EXPECT_NE(joined(testdata::validate_json(schema, extra)).find("/target/surprise: unexpected key"), std::string::npos);
  json bad_class = doc;
  bad_class["classes"][0]["class"] = "stats";
  EXPECT_NE(joined(testdata::validate_json(schema, bad_class)).find("not in enum"), std::string::npos);
  json negative = doc;
  negative["wall_ns"] = -1;
  EXPECT_NE(joined(testdata::validate_json(schema, negative)).find("below minimum"), std::string::npos);
}

// Every golden JSON of the tree names its schema ("schema": "fsreplay.X/1")
// and validates against it: a golden regenerated with a key the schema does
// not list, or a schema that loses one, fails here.
TEST(GoldenSchemas, EveryGoldenJsonValidatesAgainstTheSchemaItNames) {
  const std::string root = FSR_SOURCE_DIR;
  const std::map<std::string, std::string> schema_file = {
      {"fsreplay.report/1", "report/report.schema.json"},
      {"fsreplay.compare/1", "report/compare.schema.json"},
      {"fsreplay.predict/1", "predict/predict.schema.json"},
      {"fsreplay.replay/1", "replayer/session/replay.schema.json"},
      {"fsreplay.advise/1", "advise/advise.schema.json"},
      {"fsreplay.profile/1", "traces/profile.schema.json"},
  };
  int checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/tests")) {
    const auto& p = e.path();
    if (p.extension() != ".json" || p.parent_path().filename() != "golden") continue;
    std::ifstream in(p);
    const json doc = json::parse(in, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << p << ": not a JSON object";
    ASSERT_TRUE(doc.contains("schema") && doc["schema"].is_string()) << p << ": names no schema";
    const auto f = schema_file.find(doc["schema"].get<std::string>());
    ASSERT_NE(f, schema_file.end()) << p << ": unknown schema " << doc["schema"];
    std::ifstream sin(root + "/" + f->second);
    ASSERT_TRUE(sin) << f->second;
    EXPECT_EQ(joined(testdata::validate_json(json::parse(sin), doc)), "") << p;
    ++checked;
  }
  EXPECT_GE(checked, 6);  // report x2, compare x3, predict
}

}  // namespace
}  // namespace fsr
