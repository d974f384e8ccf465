// SPDX-License-Identifier: Apache-2.0
#include <sstream>

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/report/golden.h"
#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/format.h"
#include "report/render_json.h"
#include "report/render_text.h"

namespace fsr {
namespace {

Report small_report(bool with_baseline) {
  static const ResultSet base = testdata::small_result(false);
  static const ResultSet slow = testdata::small_result(true);
  return build_report(slow, with_baseline ? &base : nullptr, {.top = 5, .dir_depth = 2});
}

void expect_fits_100_columns(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    EXPECT_LE(line.size(), 100u) << "line " << n << ": " << line;
  }
}

// The replayer's mappings appear in the report only when they came near the
// kernel's limit (or mmaps failed there): the golden files, far from it, lack them.
TEST(RenderText, ShowsMappingsOnlyNearTheLimit) {
  ResultSet near = testdata::small_result(true), far = near;
  near.header.options_json =
      R"({"address_space":{"peak_mappings":40000,"peak_spaces":311,"max_map_count":65530,"enomem":0}})";
  far.header.options_json =
      R"({"address_space":{"peak_mappings":274,"peak_spaces":5,"max_map_count":65530,"enomem":0}})";
  const std::string shown = render_report_text(build_report(near, nullptr));
  EXPECT_NE(shown.find("mappings  40000 at most, 61% of vm.max_map_count 65530; 311 address spaces at once"),
            std::string::npos)
      << shown;
  EXPECT_EQ(render_report_text(build_report(far, nullptr)).find("vm.max_map_count"), std::string::npos);
  ResultSet failed = far;
  failed.header.options_json =
      R"({"address_space":{"peak_mappings":65500,"peak_spaces":2000,"max_map_count":65530,"enomem":12}})";
  EXPECT_NE(render_report_text(build_report(failed, nullptr)).find("12 mmaps failed with ENOMEM"), std::string::npos);
}

// A statistic in ns past the uint64 range (a hostile trace's wall near
// 2^64, found by the replay fuzzer in predict's draws) clamps, as a cast
// of it would be undefined.
TEST(Format, StatisticsClampToTheCountRange) {
  EXPECT_EQ(fmtx::ns_count(18446744073709551616.0), UINT64_MAX);  // 2^64
  EXPECT_EQ(fmtx::ns_count(1.84467e19), 18446700000000000000u);
  EXPECT_EQ(fmtx::ns_count(1e30), UINT64_MAX);
  EXPECT_EQ(fmtx::ns_count(-5), 0u);
  EXPECT_EQ(fmtx::ns_count(std::nan("")), 0u);
  EXPECT_EQ(fmtx::ns_count(1234.9), 1234u);
  EXPECT_EQ(fmtx::ns_of(2.5e9), "2.50 s");
}

TEST(Format, ThreeSignificantDigits) {
  EXPECT_EQ(fmtx::ns(0), "0 ns");
  EXPECT_EQ(fmtx::ns(999), "999 ns");
  EXPECT_EQ(fmtx::ns(1000), "1.00 us");
  EXPECT_EQ(fmtx::ns(12345), "12.3 us");
  EXPECT_EQ(fmtx::ns(999499), "999 us");
  EXPECT_EQ(fmtx::ns(999500), "1.00 ms");
  EXPECT_EQ(fmtx::ns(305100000000), "305 s");
  EXPECT_EQ(fmtx::signed_ns(-1500), "-1.50 us");
  EXPECT_EQ(fmtx::signed_ns(1500), "+1.50 us");
  EXPECT_EQ(fmtx::ratio(2.7123), "2.71x");
  EXPECT_EQ(fmtx::ratio(std::nullopt), "-");
  EXPECT_EQ(fmtx::pct(0.7241), "72.4%");
  EXPECT_EQ(fmtx::fit_left("node_modules/react/lib", 10), "...act/lib");
}

// File names are bytes: one that is not UTF-8, or holds a newline or an
// escape sequence, renders in every format (JSON cannot hold it: U+FFFD), and
// the text tables show it escaped on one line.
TEST(Render, PathsThatAreNotUtf8OrHoldControlBytesRenderInEveryFormat) {
  testdata::SimWorkload w = testdata::small_workload();
  for (testdata::SimOp& op : w.ops)
    if (op.path.rfind("/w/proj/src", 0) == 0) op.path.replace(0, 11, "/w/proj/s\xff\xfe\nrc\x1b[2J");
  w.header.command = {"/bin/sh", "-c", "make\ngo \xff"};
  w.header.target = "/mnt/c/pro\xe9j";
  const ResultSet base = testdata::simulate(w, [](const testdata::SimOp& op) { return op.latency; });
  const ResultSet slow = testdata::simulate(w, [](const testdata::SimOp& op) { return op.latency * 3; });
  const ReportOptions opt{.top = 5, .dir_depth = 2};
  for (OutputFormat f : {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kHtml, OutputFormat::kPerfetto}) {
    std::string out;
    EXPECT_NO_THROW(out = render_report(slow, &base, f, opt)) << static_cast<int>(f);
    EXPECT_FALSE(out.empty());
    if (f == OutputFormat::kJson || f == OutputFormat::kPerfetto) {
      EXPECT_TRUE(nlohmann::json::accept(out)) << out.substr(0, 2000);
    }
    if (f == OutputFormat::kText) {
      EXPECT_NE(out.find("s\\xff\\xfe\\nrc\\x1b[2J"), std::string::npos) << out;
      EXPECT_EQ(out.find('\x1b'), std::string::npos);
      EXPECT_EQ(out.find('\xff'), std::string::npos);
    }
  }
  std::vector<const ResultSet*> both{&base, &slow};
  for (OutputFormat f : {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kHtml}) {
    Result<std::string> out = render_compare(both, f, opt);
    ASSERT_TRUE(out.is_ok()) << out.message();
    if (f == OutputFormat::kJson) {
      EXPECT_TRUE(nlohmann::json::accept(out.value()));
    }
  }
}

TEST(Format, FitLeftCountsCharactersAndNeverSplitsOne) {
  EXPECT_EQ(fmtx::fit_left("\xc3\xa9t\xc3\xa9", 3), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(fmtx::fit_left("abc\xc3\xa9\xc3\xa9\xc3\xa9", 5), "...\xc3\xa9\xc3\xa9");
  EXPECT_EQ(fmtx::fit_left("a\nb", 10), "a\\nb");
  EXPECT_EQ(fmtx::fit_left("x/\xff", 10), "x/\\xff");
}

TEST(RenderText, ReportWithBaselineMatchesGolden) {
  const std::string text = render_report_text(small_report(true));
  expect_fits_100_columns(text);
  EXPECT_EQ(testdata::check_golden("report_baseline.txt", text), "");
}

TEST(RenderText, ReportWithoutBaselineMatchesGolden) {
  const std::string text = render_report_text(small_report(false));
  expect_fits_100_columns(text);
  EXPECT_EQ(testdata::check_golden("report_single.txt", text), "");
}

TEST(RenderText, CompareMatchesGolden) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  const std::string text = render_compare_text(build_comparison({&base, &slow, &base}));
  expect_fits_100_columns(text);
  EXPECT_EQ(testdata::check_golden("compare.txt", text), "");
}

TEST(RenderText, ManyMountsWrapIntoBlocksWithinWidth) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  const std::string text = render_compare_text(build_comparison({&base, &slow, &base, &slow, &base, &slow}));
  expect_fits_100_columns(text);
  // Two blocks, each led by the reference mount; every mount's ratio appears once.
  size_t blocks = 0;
  for (size_t p = text.find("\nclass "); p != std::string::npos; p = text.find("\nclass ", p + 1)) ++blocks;
  EXPECT_EQ(blocks, 2u);
  for (const char* r : {"2/1", "3/1", "4/1", "5/1", "6/1"}) {
    const size_t first = text.find(r);
    EXPECT_NE(first, std::string::npos) << r;
    EXPECT_EQ(text.find(r, first + 1), std::string::npos) << r;
  }
}

TEST(RenderJson, ReportMatchesGolden) {
  EXPECT_EQ(testdata::check_golden("report_baseline.json", report_to_json(small_report(true)).dump(2) + "\n"), "");
  EXPECT_EQ(testdata::check_golden("report_single.json", report_to_json(small_report(false)).dump(2) + "\n"), "");
}

TEST(RenderJson, CompareMatchesGolden) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  EXPECT_EQ(testdata::check_golden("compare.json", compare_to_json(build_comparison({&base, &slow})).dump(2) + "\n"),
            "");
}

TEST(Report, SharesAddUpToWallDifference) {
  Report r = small_report(true);
  ASSERT_TRUE(r.split);
  double sum = 0;
  for (const ClassRow& c : r.classes) sum += c.share_of_slowdown.value_or(0);
  sum += double(r.split->compute_delta + r.split->unexplained_delta) / double(r.split->wall_delta);
  EXPECT_NEAR(sum, 1.0, 1e-9);
  // stat is 10x slower on the slow mount and dominates the slowdown.
  const ClassRow* stat = nullptr;
  for (const ClassRow& c : r.classes)
    if (c.cls == SyscallClass::kStat) stat = &c;
  ASSERT_NE(stat, nullptr);
  EXPECT_NEAR(*stat->ratio, 10.0, 0.01);
  EXPECT_GT(*stat->share_of_slowdown, 0.5);
  ASSERT_EQ(r.processes.size(), 3u);
  EXPECT_EQ(r.processes[0].key, "git");  // most added time: its stats and opens
  EXPECT_EQ(r.processes[1].key, "node");
  EXPECT_EQ(r.processes[2].key, "sh");
  EXPECT_EQ(r.processes_total, 3u);
  EXPECT_EQ(r.dirs.size(), 5u);  // --top 5
  EXPECT_EQ(r.dirs_total, 8u);
}

}  // namespace
}  // namespace fsr
