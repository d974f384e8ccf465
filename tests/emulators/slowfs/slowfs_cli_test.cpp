// SPDX-License-Identifier: Apache-2.0
// The slowfs command: --help, and one-line errors that name the path.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"

namespace fsr::testing {
namespace {

struct CliRun {
  int status = -1;
  std::string output;  // stdout and stderr
};

CliRun run_slowfs(const std::string& args) {
  CliRun r;
  std::string cmd = std::string(SLOWFS_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(SlowfsCli, HelpPrintsUsageAndSucceeds) {
  CliRun r = run_slowfs("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("usage: slowfs BACKING MOUNTPOINT"), std::string::npos);
  EXPECT_NE(r.output.find("--profile"), std::string::npos);
}

TEST(SlowfsCli, MissingBackingDirIsOneLineNamingIt) {
  std::string tmp = make_temp_dir("slowfs-cli-");
  ASSERT_FALSE(tmp.empty());
  CliRun r = run_slowfs(tmp + "/nope " + tmp);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("backing directory " + tmp + "/nope does not exist"), std::string::npos) << r.output;
  r = run_slowfs(tmp + " " + tmp + "/nomnt");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("mount point " + tmp + "/nomnt does not exist"), std::string::npos) << r.output;
  r = run_slowfs(tmp + " " + tmp + " --profile wsl9");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown profile 'wsl9'"), std::string::npos) << r.output;
  remove_tree(tmp);
}

TEST(SlowfsCli, BadServerValuesAreOneLineNamingTheOption) {
  for (const char* bad : {"--server-slots 0", "--server-slots -1", "--bandwidth read=-5MB", "--bandwidth write=fast"}) {
    CliRun r = run_slowfs(std::string("b m ") + bad);
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_NE(r.output.find(std::string(bad).substr(2, 6)), std::string::npos) << r.output;  // server / bandwi
  }
  CliRun r = run_slowfs("--help");
  EXPECT_NE(r.output.find("--server-slots N"), std::string::npos);
  EXPECT_NE(r.output.find("--bandwidth LIST"), std::string::npos);
}

TEST(SlowfsCli, BusyMountPointIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting slowfs with allow_other needs root";
  if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
  SlowfsMount m;
  ASSERT_EQ(m.mount({}), "");
  CliRun r = run_slowfs(m.backing() + " " + m.mountpoint());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("is busy"), std::string::npos) << r.output;
  EXPECT_TRUE(is_mounted(m.mountpoint()));  // the first mount is untouched
}

TEST(SlowfsCli, DaemonModePrintsPidAndUnmountsCleanly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
  std::string tmp = make_temp_dir("slowfs-cli-");
  ASSERT_FALSE(tmp.empty());
  std::string mnt = tmp + "/m";
  ASSERT_EQ(mkdir(mnt.c_str(), 0755), 0);
  CliRun r = run_slowfs(tmp + " " + mnt + " --profile wsl1-drvfs");
  EXPECT_EQ(r.status, 0) << r.output;
  int pid = 0;
  EXPECT_EQ(std::sscanf(r.output.c_str(), "slowfs: pid %d serving", &pid), 1) << r.output;
  EXPECT_TRUE(is_mounted(mnt));
  EXPECT_GT(pid, 0);
  EXPECT_EQ(kill(pid, 0), 0);
  EXPECT_EQ(system(("fusermount3 -u " + mnt).c_str()), 0);
  for (int i = 0; i < 200 && pid > 0 && kill(pid, 0) == 0; ++i) usleep(10000);
  EXPECT_NE(kill(pid, 0), 0) << "daemon still running after unmount";
  EXPECT_FALSE(is_mounted(mnt));
  if (is_mounted(mnt)) (void)!system(("umount -l " + mnt).c_str());
  remove_tree(tmp);
}

}  // namespace
}  // namespace fsr::testing
