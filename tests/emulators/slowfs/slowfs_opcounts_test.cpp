// SPDX-License-Identifier: Apache-2.0
// slowfs --op-stats: exact per-FUSE-opcode request counts for known syscall
// sequences on an uncached mount (entry, attribute and negative timeouts 0),
// read at unmount and, while mounted, through SIGUSR1. Counts only, never
// timings: these counts are what request-fidelity comparisons rest on.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"
#include "emulators/slowfs/slowfs_opcounts.h"

namespace fsr::testing {
namespace {

using Counts = std::map<std::string, uint64_t>;

// Parses an --op-stats file; empty map if missing or malformed.
Counts read_op_stats(const std::string& path) {
  std::ifstream in(path);
  std::string header;
  if (!std::getline(in, header) || header != "opcode count") return {};
  Counts c;
  std::string name;
  uint64_t n = 0;
  while (in >> name >> n) c[name] = n;
  return c;
}

// Asks the mounted daemon for its counts: delete the file, SIGUSR1, wait for
// the file to reappear (it is renamed into place whole).
Counts snapshot(const SlowfsMount& mnt, const std::string& path) {
  unlink(path.c_str());
  if (kill(mnt.pid(), SIGUSR1) != 0) return {};
  for (int i = 0; i < 500; ++i) {
    if (access(path.c_str(), F_OK) == 0) return read_op_stats(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

Counts minus(Counts a, const Counts& b) {
  for (auto& [k, v] : a) v -= b.count(k) ? b.at(k) : 0;
  return a;
}

class OpCounts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting slowfs with allow_other needs root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
    dir_ = make_temp_dir("slowfs-opstats-");
    ASSERT_FALSE(dir_.empty());
    file_ = dir_ + "/ops.txt";
  }
  void TearDown() override {
    if (!dir_.empty()) remove_tree(dir_);
  }
  std::string mount(SlowfsMount& mnt) {
    return mnt.mount({"--lat", "all=0", "--attr-timeout", "0", "--entry-timeout", "0", "--negative-timeout", "0",
                      "--op-stats", file_});
  }
  std::string dir_, file_;
};

TEST_F(OpCounts, FileAtUnmountCountsEachOpcode) {
  {
    SlowfsMount mnt;
    ASSERT_EQ(mount(mnt), "");
    const std::string& m = mnt.mountpoint();
    for (int i = 0; i < 10; ++i) ASSERT_EQ(mkdir((m + "/d" + std::to_string(i)).c_str(), 0755), 0);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(rmdir((m + "/d" + std::to_string(i)).c_str()), 0);
    int fd = open((m + "/f").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(write(fd, "abc", 3), 3);
    ASSERT_EQ(close(fd), 0);
    ASSERT_EQ(rename((m + "/f").c_str(), (m + "/g").c_str()), 0);
    ASSERT_EQ(unlink((m + "/g").c_str()), 0);
  }  // unmounted: the daemon writes the file as it exits
  Counts c = read_op_stats(file_);
  ASSERT_FALSE(c.empty()) << "no or malformed op stats file " << file_;
  EXPECT_EQ(c.size(), kFuseOpCount);  // every opcode listed, zeros included
  EXPECT_EQ(c["MKDIR"], 10u);
  EXPECT_EQ(c["RMDIR"], 4u);
  EXPECT_EQ(c["CREATE"], 1u);
  EXPECT_EQ(c["WRITE"], 1u);
  EXPECT_EQ(c["FLUSH"], 1u);
  EXPECT_EQ(c["RENAME"], 1u);
  EXPECT_EQ(c["UNLINK"], 1u);
  EXPECT_EQ(c["OPEN"], 0u);  // the create opened it
  EXPECT_EQ(c["READ"], 0u);
}

TEST_F(OpCounts, UncachedStatLooksUpEveryComponent) {
  SlowfsMount mnt;
  ASSERT_EQ(mount(mnt), "");
  const std::string& m = mnt.mountpoint();
  ASSERT_EQ(mkdir((m + "/a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((m + "/a/b").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((m + "/a/b/c").c_str(), 0755), 0);
  Counts before = snapshot(mnt, file_);
  ASSERT_FALSE(before.empty()) << "SIGUSR1 did not produce " << file_;
  // Reading the counts sent the mount nothing: a second snapshot is the same.
  EXPECT_EQ(snapshot(mnt, file_), before);

  struct stat st {};
  for (int i = 0; i < 10; ++i) ASSERT_EQ(stat((m + "/a/b/c").c_str(), &st), 0);
  // A missing last component: the walk's LOOKUPs, the miss included, nothing cached.
  for (int i = 0; i < 5; ++i) ASSERT_NE(stat((m + "/a/b/nope").c_str(), &st), 0);
  Counts d = minus(snapshot(mnt, file_), before);
  EXPECT_EQ(d["LOOKUP"], 10u * 3 + 5u * 3);  // a, b, c / a, b, nope: one per component per call
  EXPECT_GE(d["GETATTR"], 10u);              // attributes expire at once: at least one per stat()
  EXPECT_EQ(d["MKDIR"], 0u);
  EXPECT_EQ(d["OPEN"] + d["OPENDIR"] + d["READ"], 0u);
}

}  // namespace
}  // namespace fsr::testing
