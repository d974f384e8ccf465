// SPDX-License-Identifier: Apache-2.0
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/report/test_results.h"
#include "report/render.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".result")).string();
}

TEST(LoadResult, RoundTripsOpsStringsAndFooter) {
  const ResultSet mem = testdata::small_result(true);
  const std::string path = temp_path("roundtrip");
  ASSERT_TRUE(testdata::write_result_file(mem, path).is_ok());
  auto loaded = load_result(path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  EXPECT_TRUE(loaded->complete);
  EXPECT_TRUE(loaded->problems.empty());
  ASSERT_EQ(loaded->ops.size(), mem.ops.size());
  for (size_t i = 0; i < mem.ops.size(); ++i) {
    const OpRecord &a = mem.ops[i], &b = loaded->ops[i];
    EXPECT_EQ(a.event_index, b.event_index);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.latency, b.latency);
    EXPECT_EQ(a.dep_wait, b.dep_wait);
    EXPECT_EQ(a.waited_on, b.waited_on);
    EXPECT_EQ(a.gap, b.gap);
    EXPECT_EQ(a.worker, b.worker);
    EXPECT_EQ(a.nr, b.nr);
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(mem.str(a.path), loaded->str(b.path));
  }
  EXPECT_EQ(loaded->wall_ns(), mem.wall_ns());
  EXPECT_EQ(loaded->label(), "/mnt/c/proj (9p-drvfs)");
  // The report of the file is the report of the in-memory result.
  const ReportOptions opt{.top = 5, .dir_depth = 2};
  EXPECT_EQ(render_report(*loaded, nullptr, OutputFormat::kText, opt),
            render_report(mem, nullptr, OutputFormat::kText, opt));
  std::remove(path.c_str());
}

TEST(LoadResult, TruncatedFileLoadsWhatIsReadableAndSaysSo) {
  const ResultSet mem = testdata::small_result(false);
  const std::string path = temp_path("truncated");
  ASSERT_TRUE(testdata::write_result_file(mem, path).is_ok());
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size * 2 / 3);
  auto loaded = load_result(path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  EXPECT_FALSE(loaded->complete);
  EXPECT_FALSE(loaded->problems.empty());
  EXPECT_LT(loaded->ops.size(), mem.ops.size());
  std::remove(path.c_str());
}

TEST(LoadResult, MissingFileIsAnErrorNamingIt) {
  auto r = load_result("/nonexistent/x.result");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("/nonexistent/x.result"), std::string::npos);
}

TEST(LoadResult, AProfileIsRefusedWithAHint) {
  const std::string path = temp_path("profile");
  {
    TraceHeader h;
    h.kind = PayloadKind::kProfile;
    auto w = TraceWriter::create(path, h);
    ASSERT_TRUE(w.is_ok()) << w.message();
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = load_result(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("fsreplay predict"), std::string::npos) << r.message();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fsr
