// SPDX-License-Identifier: Apache-2.0
// The WSL1 gap harness: every row of wsl1_gaps.h answers its call with
// WSL1's errno in a filtered child, the kernel answers differently without
// the filter, nearby calls still work, and the launcher carries the filter
// across exec.
#include <gtest/gtest.h>
#include <string.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>

#include "mount_helpers.h"
#include "emulators/wsl1/wsl1_filter.h"
#include "emulators/wsl1/wsl1_gaps.h"
#include "wsl1_probes.h"

namespace fsr {

// Test names and failure messages show the row, not its bytes.
void PrintTo(const Wsl1Gap& g, std::ostream* os) { *os << g.syscall << " (" << g.condition << ")"; }

namespace {

std::string err_name(int e) {
  if (e == 0) return "success";
  if (e == test::kInstallFailed) return "filter-install-failed";
  if (e == test::kChildDied) return "child-died";
  const char* n = strerrorname_np(e);
  return n ? n : std::to_string(e);
}

class Wsl1Gaps : public ::testing::TestWithParam<Wsl1Gap> {};

TEST_P(Wsl1Gaps, FilteredChildGetsWsl1Errno) {
  const Wsl1Gap& g = GetParam();
  const test::Probe* p = test::find_probe(g.syscall);
  ASSERT_NE(p, nullptr) << "no probe for " << g.syscall << "; add one to wsl1_probes.cpp";
  int filtered = test::run_in_child(p->run, true);
  EXPECT_EQ(err_name(filtered), err_name(g.err)) << g.syscall << " (" << g.condition << ") under the filter";
  int native = test::run_in_child(p->run, false);
  ASSERT_NE(native, test::kChildDied);
  if (native == g.err)
    GTEST_SKIP() << "this kernel itself answers the " << g.syscall << " probe with " << err_name(native)
                 << ", so the check above cannot tell the filter from the kernel";
}

INSTANTIATE_TEST_SUITE_P(Table, Wsl1Gaps, ::testing::ValuesIn(kWsl1Gaps),
                         [](const ::testing::TestParamInfo<Wsl1Gap>& i) { return std::string(i.param.syscall); });

TEST(Wsl1Filter, NearbyCallsStillWork) {
  for (const test::Probe& p : test::control_probes()) {
    EXPECT_EQ(err_name(test::run_in_child(p.run, false)), "success") << p.name << " without the filter";
    EXPECT_EQ(err_name(test::run_in_child(p.run, true)), "success") << p.name << " under the filter";
  }
}

TEST(Wsl1Filter, SecondInstallFailsBecauseSeccompIsAnswered) {
  int r = test::run_in_child(
      [] {
        if (!install_wsl1_filter().is_ok()) return 1;
        Status again = install_wsl1_filter();
        return again.is_ok() ? 2 : (again.message().find("seccomp") != std::string::npos ? 0 : 3);
      },
      false);
  EXPECT_EQ(r, 0);
}

TEST(Wsl1Filter, InheritedByForkedGrandchild) {
  int r = test::run_in_child(
      [] {
        if (!install_wsl1_filter().is_ok()) return -1;
        return test::run_in_child(test::find_probe("statx")->run, false);  // grandchild, no new filter
      },
      false);
  EXPECT_EQ(err_name(r), "ENOSYS");
}

TEST(Wsl1Harness, ListPrintsEveryRow) {
  int st = -1;
  std::string out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " --list", &st);
  EXPECT_EQ(st, 0);
  for (const Wsl1Gap& g : kWsl1Gaps) {
    EXPECT_NE(out.find(std::string(g.syscall) + " "), std::string::npos) << g.syscall << " missing:\n" << out;
    EXPECT_NE(out.find(err_name(g.err)), std::string::npos) << g.syscall;
  }
}

TEST(Wsl1Harness, FilterSurvivesExec) {
  int st = -1;
  std::string out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " -- " + WSL1_PROBE_BIN + " statx", &st);
  EXPECT_EQ(st, 0);
  EXPECT_EQ(out, std::to_string(ENOSYS) + "\n");
  out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " -- " + WSL1_PROBE_BIN + " mmap", &st);
  EXPECT_EQ(out, std::to_string(EOPNOTSUPP) + "\n");
  out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " " + WSL1_PROBE_BIN + " stat", &st);  // no "--"
  EXPECT_EQ(st, 0);
  EXPECT_EQ(out, "0\n");
  out = test::run_capture(std::string(WSL1_PROBE_BIN) + " statx", &st);  // and without the harness
  EXPECT_EQ(out, "0\n");
}

// Real tools take their fallbacks: cp without copy_file_range, stat without statx.
TEST(Wsl1Harness, CoreutilsStillWorkUnderTheFilter) {
  std::string dir = test::make_temp_dir("wsl1cp");
  std::string a = dir + "/a", b = dir + "/b";
  {
    std::ofstream f(a, std::ios::binary);
    for (int i = 0; i < 100000; ++i) f.put(static_cast<char>(i * 7919 % 251));
  }
  int st = -1;
  std::string out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " -- cp " + a + " " + b + " 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(test::run("cmp " + a + " " + b), 0) << "copy differs";
  out = test::run_capture(std::string(WSL1_HARNESS_BIN) + " -- stat -c %s " + b + " 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out, "100000\n");
  unlink(a.c_str());
  unlink(b.c_str());
  rmdir(dir.c_str());
}

TEST(Wsl1Harness, ReportsUsageAndMissingCommand) {
  int st = -1;
  std::string err = test::run_capture(std::string(WSL1_HARNESS_BIN) + " 2>&1", &st);
  EXPECT_EQ(st, 2);
  EXPECT_NE(err.find("no command given"), std::string::npos) << err;
  err = test::run_capture(std::string(WSL1_HARNESS_BIN) + " -- /nonexistent/fsr-cmd 2>&1", &st);
  EXPECT_EQ(st, 127);
  EXPECT_NE(err.find("cannot run /nonexistent/fsr-cmd"), std::string::npos) << err;
  err = test::run_capture(std::string(WSL1_HARNESS_BIN) + " --bogus true 2>&1", &st);
  EXPECT_EQ(st, 2);
}

TEST(Wsl1Harness, ProbeTableCoversEveryRowOnce) {
  std::set<std::string_view> seen;
  for (const Wsl1Gap& g : kWsl1Gaps) {
    EXPECT_TRUE(seen.insert(g.syscall).second) << g.syscall << " listed twice; merge the rows";
    EXPECT_NE(test::find_probe(g.syscall), nullptr) << g.syscall;
  }
  EXPECT_EQ(seen.size(), test::gap_probes().size());
}

}  // namespace
}  // namespace fsr
