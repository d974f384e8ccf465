// SPDX-License-Identifier: Apache-2.0
// open_beneath (resolver.h) while other threads rename: openat2 refuses a
// walk through a "..", a relative symlink's, with EAGAIN whenever a rename
// anywhere on the system raced it (this machine: 200-1,161 of 20,000 opens of
// such a symlink beside a rename loop). A replayed build renames all along
// (`mv` of temporary outputs), so its opens through /usr/bin/cc's links
// failed now and then as divergences; the resolver retries, then walks in
// user space.
#include "replayer/exec/resolver.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "replayer/exec/features.h"

namespace fsr {
namespace {

TEST(Resolver, AnOpenThroughARelativeSymlinkSucceedsWhileRenamesRace) {
  char tpl[] = "/tmp/fsreplay-resolver-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  const std::string root = tpl;
  for (const char* d : {"/s", "/d"}) ASSERT_EQ(mkdir((root + d).c_str(), 0755), 0);
  for (const char* f : {"/d/f", "/x"}) {
    const int fd = open((root + f).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  ASSERT_EQ(symlink("../d/f", (root + "/s/l").c_str()), 0);
  const int rootfd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(rootfd, 0);
  const Features f = Features::all();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> renames{0};
  std::thread storm([&] {
    const std::string x = root + "/x", y = root + "/y";
    while (!stop.load(std::memory_order_relaxed)) {
      if (rename(x.c_str(), y.c_str()) == 0 && rename(y.c_str(), x.c_str()) == 0) renames.fetch_add(2);
    }
  });
  int eagain = 0, other = 0, first_other = 0;
  constexpr int kOpens = 20000;
  for (int i = 0; i < kOpens; ++i) {
    const int fd = open_beneath(rootfd, "s/l", O_RDONLY, 0, f);
    if (fd >= 0)
      close(fd);
    else if (fd == -EAGAIN)
      ++eagain;
    else if (!other++)
      first_other = fd;
  }
  stop = true;
  storm.join();
  close(rootfd);
  EXPECT_GT(renames.load(), 0u) << "no rename raced the opens";
  EXPECT_EQ(eagain, 0) << "opens failed with EAGAIN, of " << kOpens;
  EXPECT_EQ(other, 0) << "opens failed, the first with " << first_other;
  const std::string rm = "rm -rf '" + root + "'";
  EXPECT_EQ(system(rm.c_str()), 0);
}

// "x/" names x only if it is a directory, after following it: with openat2
// and in the user-space walk (kernels without openat2, WSL1) alike.
// Both ways open_beneath resolves: openat2, or the user-space walk (kernels
// without it, WSL1).
Features resolving(bool openat2) {
  Features f = Features::all();
  f.set(Feature::kOpenat2, openat2);
  return f;
}

TEST(Resolver, ATrailingSlashAsksForADirectory) {
  char tpl[] = "/tmp/fsreplay-resolver-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  const std::string root = tpl;
  ASSERT_EQ(mkdir((root + "/d").c_str(), 0755), 0);
  const int ffd = open((root + "/f").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(ffd, 0);
  close(ffd);
  ASSERT_EQ(symlink("d", (root + "/ld").c_str()), 0);
  ASSERT_EQ(symlink("f", (root + "/lf").c_str()), 0);
  const int rootfd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(rootfd, 0);
  for (bool openat2 : {true, false}) {
    const Features f = resolving(openat2);
    SCOPED_TRACE(openat2 ? "openat2" : "user-space walk");
    auto opened = [&](const char* rel, int flags) {
      const int fd = open_beneath(rootfd, rel, flags, 0, f);
      if (fd >= 0) close(fd);
      return fd >= 0 ? 0 : fd;
    };
    EXPECT_EQ(opened("f", O_RDONLY), 0);
    EXPECT_EQ(opened("f/", O_RDONLY), -ENOTDIR);
    EXPECT_EQ(opened("lf/", O_RDONLY), -ENOTDIR);
    EXPECT_EQ(opened("d/", O_RDONLY), 0);
    EXPECT_EQ(opened("ld/", O_RDONLY), 0);
    EXPECT_EQ(opened("ld/", O_PATH | O_NOFOLLOW), 0);  // the slash follows the link
    EXPECT_EQ(opened("f/.", O_RDONLY), -ENOTDIR);
  }
  close(rootfd);
  EXPECT_EQ(system(("rm -rf " + root).c_str()), 0);
}

// The replayed calls were open(2)'s, which drops what openat2 refuses with
// EINVAL: a mode with the file type in it (Node's fs.cp passes the source's
// st_mode: 46% of a Node workload's ops diverged), flags beside O_PATH.
TEST(Resolver, WhatOpenIgnoresOpenat2IsNotGiven) {
  char tpl[] = "/tmp/fsreplay-resolver-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  const std::string root = tpl;
  const int rootfd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(rootfd, 0);
  for (bool openat2 : {true, false}) {
    const Features f = resolving(openat2);
    SCOPED_TRACE(openat2 ? "openat2" : "user-space walk");
    const std::string name = openat2 ? "a" : "b";
    int fd = open_beneath(rootfd, name, O_CREAT | O_WRONLY | O_TRUNC, S_IFREG | 0640, f);
    ASSERT_GE(fd, 0) << fd;
    close(fd);
    struct stat st;
    ASSERT_EQ(stat((root + "/" + name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u & ~static_cast<unsigned>(umask(umask(0))));
    fd = open_beneath(rootfd, name, O_PATH | O_NONBLOCK | O_NOATIME, 0, f);
    EXPECT_GE(fd, 0) << fd;
    if (fd >= 0) close(fd);
  }
  close(rootfd);
  EXPECT_EQ(system(("rm -rf " + root).c_str()), 0);
}

}  // namespace
}  // namespace fsr
