// SPDX-License-Identifier: Apache-2.0
// predict's text, JSON and HTML output for a fixed trace and two fixed
// profiles (golden/; FSR_UPDATE_GOLDEN=1 rewrites them, then review the diff).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/predict/predict_testdata.h"
#include "tests/report/golden.h"
#include "tests/report/json_schema.h"
#include "predict/predict.h"

namespace fsr {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

class PredictGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    char tpl[] = "/tmp/fsr-predict-golden-XXXXXX";
    dir_ = mkdtemp(tpl);
    ASSERT_TRUE(testdata::small_build_trace().write(dir_ + "/build.trace"));
    // 9p with a server model (one slot, the seeds' dd bandwidths); virtiofs without one (an old profile).
    Profile p9 = testdata::fixed_profile("wsl2-9p", 800'000, {{ProbeKind::kStat, 1'000'000}});
    p9.server.slots = 1;
    p9.server.service_ns = 700'000;
    p9.server.sweep = {{ProbeKind::kStat, 1, 1000, 800'000'000, 800'000},
                       {ProbeKind::kStat, 4, 1000, 700'000'000, 2'800'000}};
    p9.server.read_bw_direct = 40'000'000, p9.server.write_bw_direct = 20'000'000;
    p9.server.read_bw_buffered = 45'000'000, p9.server.write_bw_buffered = 22'000'000;
    p9.server.fit_note = "1 slot, 700 us per request (stat at 1 and 4 streams)";
    ASSERT_TRUE(write_profile(dir_ + "/9p.profile", p9));
    ASSERT_TRUE(write_profile(dir_ + "/virtiofs.profile", testdata::fixed_profile("wsl2-virtiofs", 250'000)));
    PredictOptions o;
    o.profiles = {dir_ + "/9p.profile", dir_ + "/virtiofs.profile"};
    auto pr = run_predict(dir_ + "/build.trace", o);
    ASSERT_TRUE(pr) << pr.message();
    pred_ = std::move(pr).value();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string render(OutputFormat f) {
    auto out = render_prediction(pred_, f, {});
    EXPECT_TRUE(out) << out.message();
    return replace_all(out ? *out : "", dir_, "DIR");
  }

  std::string dir_;
  Prediction pred_;
};

TEST_F(PredictGolden, Text) {
  const std::string t = render(OutputFormat::kText);
  EXPECT_NE(t.find("PREDICTED"), std::string::npos);
  EXPECT_EQ(testdata::check_golden("predict.txt", t), "");
}

TEST_F(PredictGolden, Json) {
  const std::string j = render(OutputFormat::kJson);
  EXPECT_NE(j.find("\"predicted\": true"), std::string::npos);
  EXPECT_EQ(testdata::check_golden("predict.json", j), "");
  // The schemas: predict's own, and compare's and report's for its parts.
  auto errors_of = [](const std::string& schema, const nlohmann::json& doc) {
    std::ifstream in(std::string(FSR_SOURCE_DIR) + "/" + schema);
    std::string out;
    for (const std::string& e : testdata::validate_json(nlohmann::json::parse(in), doc)) out += e + "\n";
    return out;
  };
  const nlohmann::json doc = nlohmann::json::parse(j);
  EXPECT_EQ(errors_of("predict/predict.schema.json", doc), "");
  EXPECT_EQ(errors_of("report/compare.schema.json", doc["compare"]), "");
  ASSERT_FALSE(doc["reports"].empty());
  for (const auto& r : doc["reports"]) EXPECT_EQ(errors_of("report/report.schema.json", r), "");
  nlohmann::json bad = doc;
  bad["columns"][1]["draws"]["values_ns"] = "many";
  EXPECT_NE(errors_of("predict/predict.schema.json", bad), "");
}

TEST_F(PredictGolden, Html) {
  const std::string h = render(OutputFormat::kHtml);
  EXPECT_NE(h.find("PREDICTED"), std::string::npos);
  EXPECT_NE(h.find("fuse.slowfs"), std::string::npos);  // the fingerprint
  EXPECT_EQ(testdata::check_golden("predict.html", h), "");
}

TEST_F(PredictGolden, PerfettoIsRefused) { EXPECT_FALSE(render_prediction(pred_, OutputFormat::kPerfetto, {})); }

}  // namespace
}  // namespace fsr
