// SPDX-License-Identifier: Apache-2.0
// `fsreplay detect PATH [--json]` end to end: the binary's output against
// the library's view of the same path, and its error line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mount_helpers.h"
#include "detect/detect.h"

namespace fsr {
namespace {

const std::string kBin = FSR_DETECT_BIN;

TEST(DetectCli, TextNamesKindMountAndStatfsType) {
  int st = -1;
  std::string out = test::run_capture(kBin + " detect /", &st);
  ASSERT_EQ(st, 0) << out;
  Result<Environment> e = detect_environment("/");
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(out, environment_to_text(e.value()));
  EXPECT_NE(out.find("kind:          " + e->mount_class.kind + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mount point:   /\n"), std::string::npos) << out;
  EXPECT_NE(out.find("statfs type:   0x"), std::string::npos) << out;
}

TEST(DetectCli, JsonParsesAndMatchesLibrary) {
  int st = -1;
  std::string out = test::run_capture(kBin + " detect --json /proc", &st);
  ASSERT_EQ(st, 0) << out;
  ASSERT_TRUE(nlohmann::json::accept(out)) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["path"], "/proc");
  EXPECT_EQ(j["mount"]["mount_point"], "/proc");
  EXPECT_EQ(j["mount"]["kind"], "proc");
  EXPECT_EQ(j["statfs_type_name"], "proc");
}

TEST(DetectCli, MissingPathIsOneLineNamingIt) {
  int st = -1;
  std::string out = test::run_capture(kBin + " detect /nonexistent/fsr-cli-probe 2>&1 >/dev/null", &st);
  EXPECT_EQ(st, 1);
  EXPECT_EQ(out,
            "fsreplay detect: /nonexistent/fsr-cli-probe: No such file or directory; give an existing file or "
            "directory\n");
}

TEST(DetectCli, NoPathIsAUsageError) {
  int st = -1;
  std::string out = test::run_capture(kBin + " detect 2>&1", &st);
  EXPECT_NE(st, 0);
  EXPECT_NE(out.find("PATH"), std::string::npos) << out;
}

}  // namespace
}  // namespace fsr
