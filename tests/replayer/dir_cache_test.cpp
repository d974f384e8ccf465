// SPDX-License-Identifier: Apache-2.0
// The workers' cache of parent directories (replayer/exec/dir_cache.h): a parent
// is opened once and reused; the root is never opened; a parent reached over
// a symlink is not kept; a rename or an rmdir anywhere drops every entry, so
// that a path names the directory that holds it now, not the one it named.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replayer/exec/dir_cache.h"
#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::ReplayDirs;
using test::Synth;

class DirCacheTest : public ReplayDirs {
 protected:
  void SetUp() override {
    ReplayDirs::SetUp();
    ASSERT_EQ(mkdir((target + "/a").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((target + "/a/b").c_str(), 0755), 0);
    ASSERT_EQ(symlink("a", (target + "/l").c_str()), 0);
    root = open(target.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root, 0);
    f = Features::probe(root, {});
  }
  void TearDown() override {
    close(root);
    ReplayDirs::TearDown();
  }
  static ino_t ino(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
  }
  static ino_t ino(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
  }
  int root = -1;
  Features f;
  std::atomic<uint64_t> gen{0};
};

// A rename looks up its second parent while it holds the first: another
// worker's rename in between (a bump) must not close the first one under it
// (it did: renameat on a closed fd, EBADF, or on the number reused for the
// second parent, ENOENT; npm ci's replay, 0-6 divergent renames a run).
TEST_F(DirCacheTest, AParentInUseStaysOpenWhileASecondLookupDropsTheCache) {
  if (!f.has(Feature::kOpenat2)) GTEST_SKIP() << "this kernel has no openat2: the cache keeps nothing";
  DirCache c(&gen);
  bool owned = true;
  const int a = c.open(root, "a", f, owned);
  ASSERT_GE(a, 0);
  ASSERT_FALSE(owned);
  c.hold();
  gen.fetch_add(1);  // another worker renamed something
  const int b = c.open(root, "a/b", f, owned);
  ASSERT_GE(b, 0);
  EXPECT_NE(b, a) << "the first parent's fd was closed and its number reused";
  EXPECT_EQ(ino(a), ino(target + "/a")) << "the first parent's fd no longer names it";
  EXPECT_EQ(ino(b), ino(target + "/a/b"));
  c.release();
  EXPECT_EQ(fcntl(a, F_GETFD), -1) << "dropped while held: closed at the release";
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(c.open(root, "a/b", f, owned), b);
}

TEST_F(DirCacheTest, AParentIsOpenedOnceAndTheRootNever) {
  if (!f.has(Feature::kOpenat2)) GTEST_SKIP() << "this kernel has no openat2: the cache keeps nothing";
  DirCache c(&gen);
  bool owned = true;
  EXPECT_EQ(c.open(root, "", f, owned), root);
  EXPECT_FALSE(owned);
  const int fd = c.open(root, "a/b", f, owned);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(owned);
  EXPECT_EQ(ino(fd), ino(target + "/a/b"));
  EXPECT_EQ(c.open(root, "a/b", f, owned), fd);
  EXPECT_EQ(c.hits(), 1u);
  EXPECT_EQ(c.open(root, "a/nope", f, owned), -ENOENT);
}

TEST_F(DirCacheTest, AParentReachedOverASymlinkIsFollowedButNotKept) {
  DirCache c(&gen);
  bool owned = false;
  const int fd = c.open(root, "l/b", f, owned);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(owned);
  EXPECT_EQ(ino(fd), ino(target + "/a/b"));
  close(fd);
  const int again = c.open(root, "l/b", f, owned);
  ASSERT_GE(again, 0);
  EXPECT_TRUE(owned);
  close(again);
  EXPECT_EQ(c.hits(), 0u);
}

TEST_F(DirCacheTest, ABumpedTreeReopensEveryParent) {
  if (!f.has(Feature::kOpenat2)) GTEST_SKIP() << "this kernel has no openat2: the cache keeps nothing";
  DirCache c(&gen);
  bool owned = true;
  const ino_t before = ino(c.open(root, "a/b", f, owned));
  ASSERT_EQ(rename((target + "/a").c_str(), (target + "/old").c_str()), 0);
  ASSERT_EQ(mkdir((target + "/a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((target + "/a/b").c_str(), 0755), 0);
  EXPECT_EQ(ino(c.open(root, "a/b", f, owned)), before) << "no bump: the cache still has the moved directory";
  gen.fetch_add(1);
  const int fd = c.open(root, "a/b", f, owned);
  EXPECT_EQ(ino(fd), ino(target + "/a/b"));
  EXPECT_NE(ino(fd), before);
}

// A replay: names made in a directory, the directory renamed away (then
// removed) and made again under its old name; the calls after each change
// reach the directory the name holds then.
TEST_F(DirCacheTest, CallsAfterARenameOrAnRmdirReachTheNewDirectory) {
  ASSERT_EQ(rmdir((target + "/a/b").c_str()), 0);
  ASSERT_EQ(rmdir((target + "/a").c_str()), 0);
  ASSERT_EQ(unlink((target + "/l").c_str()), 0);
  Synth t;
  uint64_t ts = 0;
  auto at = [&] { return ts += 100; };
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s/x");
  t.add(1, 1, SYS_rename, at(), 5, 0, {}, "/w/p/d", "/w/p/e");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s/y");
  t.add(1, 1, SYS_rmdir, at(), 5, 0, {}, "/w/p/d/s/y");
  t.add(1, 1, SYS_rmdir, at(), 5, 0, {}, "/w/p/d/s");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s");
  t.add(1, 1, SYS_mkdir, at(), 5, 0, {0, 0755}, "/w/p/d/s/z");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  ReplayOptions o = options();
  o.reset_after = false;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  struct stat st;
  EXPECT_EQ(stat((target + "/e/s/x").c_str(), &st), 0);
  EXPECT_NE(stat((target + "/e/s/y").c_str(), &st), 0) << "made through the renamed directory";
  EXPECT_EQ(stat((target + "/d/s/z").c_str(), &st), 0);
}

}  // namespace
}  // namespace fsr
