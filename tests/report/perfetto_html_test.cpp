// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <map>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/report/test_results.h"
#include "report/compare.h"
#include "report/render_html.h"
#include "report/render_perfetto.h"

namespace fsr {
namespace {

TEST(Perfetto, OneSlicePerOpOnSaneTracks) {
  const ResultSet rs = testdata::small_result(true);
  // Round-trip through text, as a viewer would read it.
  const auto j = nlohmann::json::parse(perfetto_trace(rs));
  ASSERT_TRUE(j.contains("traceEvents"));
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<double, double>>> tracks;
  size_t slices = 0, process_names = 0, thread_names = 0;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e["ph"].is_string());
    if (e["ph"] == "M") {
      (e["name"] == "process_name" ? process_names : thread_names)++;
      EXPECT_TRUE(e["args"]["name"].is_string());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ++slices;
    ASSERT_TRUE(e["ts"].is_number());
    ASSERT_TRUE(e["dur"].is_number());
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_TRUE(e["args"].contains("path"));
    EXPECT_TRUE(e["args"].contains("ret"));
    tracks[{e["pid"].get<uint32_t>(), e["tid"].get<uint32_t>()}].push_back(
        {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  }
  EXPECT_EQ(slices, rs.ops.size());
  EXPECT_EQ(process_names, 3u);  // sh, git, node
  EXPECT_EQ(thread_names, tracks.size());
  // Slices on one track are sequential (a worker issues one op at a time):
  // each starts at or after the previous one ends (1 ns of rounding slack).
  for (auto& [track, sl] : tracks) {
    std::sort(sl.begin(), sl.end());
    for (size_t i = 1; i < sl.size(); ++i) EXPECT_GE(sl[i].first + 0.001, sl[i - 1].second);
  }
  // Times are the ops' ns, exactly: the first op's slice.
  const auto& e0 = j["traceEvents"][0];
  EXPECT_NEAR(e0["ts"].get<double>() * 1000.0, double(rs.ops[0].start), 0.01);
  EXPECT_NEAR(e0["dur"].get<double>() * 1000.0, double(rs.ops[0].latency), 0.01);
  EXPECT_EQ(e0["args"]["path"], "/w/proj");
  // Paths are escaped: a quote or backslash in a file name keeps the JSON valid.
  ResultSet odd = rs;
  odd.strings[odd.ops[0].path] = "/w/a\"b\\c\n";
  const auto j2 = nlohmann::json::parse(perfetto_trace(odd));
  EXPECT_EQ(j2["traceEvents"][0]["args"]["path"], "/w/a\"b\\c\n");
  // Names are syscall names.
  bool saw_stat = false;
  for (const auto& e : j["traceEvents"]) saw_stat = saw_stat || e["name"] == "newfstatat";
  EXPECT_TRUE(saw_stat);
}

TEST(Html, SelfContainedWithChartsAndTables) {
  const ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  const std::string html = render_html(build_comparison({&base, &slow}), {.title = "t <&>", .top = 5});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only URL is the SVG namespace.
  std::regex url("https?://[^\"]*");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  EXPECT_NE(html.find("id=\"stacked-wall\""), std::string::npos);
  EXPECT_NE(html.find("id=\"stacked-latency\""), std::string::npos);
  EXPECT_NE(html.find("id=\"cdf-stat\""), std::string::npos);
  EXPECT_NE(html.find("id=\"cdf-open\""), std::string::npos);
  EXPECT_NE(html.find("id=\"top-processes\""), std::string::npos);
  EXPECT_NE(html.find("id=\"top-dirs\""), std::string::npos);
  EXPECT_NE(html.find("id=\"wall-split\""), std::string::npos);
  EXPECT_NE(html.find("t &lt;&amp;&gt;"), std::string::npos);  // title escaped
  // Two mounts: two bars in each stacked chart, two lines per CDF.
  const size_t cdf = html.find("id=\"cdf-stat\"");
  const size_t cdf_end = html.find("</svg>", cdf);
  size_t lines = 0;
  for (size_t p = html.find("<polyline", cdf); p < cdf_end; p = html.find("<polyline", p + 1)) ++lines;
  EXPECT_EQ(lines, 2u);
}

}  // namespace
}  // namespace fsr
