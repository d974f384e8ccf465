// SPDX-License-Identifier: Apache-2.0
// Hostile traces: whatever they say, nothing outside target and scratch is
// created, changed or removed. The fixture's TearDown proves it with a hash of
// a sentinel tree beside target and scratch; each test also checks the
// attacked path directly. Run with openat2 and with the user-space resolver.
#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class Escape : public ReplayDirs, public ::testing::WithParamInterface<bool> {
 protected:
  ReplayOptions opts() {
    ReplayOptions o = options();
    if (!GetParam()) o.disable_features = {"openat2"};
    o.reset_after = false;
    return o;
  }
  bool exists(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
  }
};

TEST_P(Escape, DotDotAndAbsolutePathsStayInScratch) {
  Synth t;
  t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/w/p/../../.." + sentinel + "/evil");
  t.add(1, 1, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, sentinel + "/evil2");
  t.add(1, 1, SYS_unlink, 30, 5, 0, {}, sentinel + "/keep.txt");
  t.add(1, 1, SYS_rename, 40, 5, 0, {}, sentinel + "/sub", "/w/p/stolen");
  t.add(1, 1, SYS_truncate, 50, 5, 0, {0}, sentinel + "/sub/x");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, opts());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(exists(sentinel + "/evil"));
  EXPECT_TRUE(exists(scratch + sentinel + "/evil"));
  EXPECT_TRUE(exists(sentinel + "/keep.txt"));
}

TEST_P(Escape, SymlinksCreatedByTheTraceCannotLeadOut) {
  Synth t;
  t.add(1, 1, SYS_symlink, 10, 5, 0, {}, sentinel, "/w/p/abs");
  t.add(1, 1, SYS_symlink, 20, 5, 0, {}, "../../../../../../../../.." + sentinel, "/w/p/rel");
  t.add(1, 1, SYS_openat, 30, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/abs/keep.txt");
  t.add(1, 1, SYS_write, 35, 5, 100, {3, 0, 100});
  t.add(1, 1, SYS_mkdir, 40, 5, 0, {0, 0755}, "/w/p/rel/evil");
  t.add(1, 1, SYS_unlink, 50, 5, 0, {}, "/w/p/rel/keep.txt");
  t.add(1, 1, SYS_chmod, 60, 5, 0, {0777}, "/w/p/abs/sub");
  t.add(1, 1, SYS_truncate, 70, 5, 0, {0}, "/w/p/rel/sub/x");
  t.add(1, 1, SYS_rename, 80, 5, 0, {}, "/w/p/abs/sub", "/w/p/got");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, opts());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(exists(sentinel + "/evil"));
  EXPECT_TRUE(exists(sentinel + "/keep.txt"));
}

TEST_P(Escape, PrestateSymlinksPointingOutAreRewritten) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/out/keep.txt");
  t.add(1, 1, SYS_unlink, 20, 5, 0, {}, "/w/p/up/sub/x");
  std::string trace =
      write_trace(t, "/w/p",
                  {entry("/w/p", PrestateKind::kDir), entry("/w/p/out", PrestateKind::kSymlink, 0, sentinel),
                   entry("/w/p/up", PrestateKind::kSymlink, 0, "../.." + sentinel)});
  auto r = run_replay(trace, opts());
  ASSERT_TRUE(r.is_ok()) << r.message();
  char buf[4096];
  ssize_t n = readlink((target + "/out").c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), scratch + sentinel);
}

// A venv's bin/python3 links to the interpreter outside the recorded root,
// which the replay keeps in its scratch tree: the link is written as that
// absolute path, and a walk beneath the target refused it (EXDEV: `python3
// -m venv` then running it diverged 9 times). A walk through a link from one
// of the replay's roots into the other goes on there; the links pointing
// anywhere else stay refused (the tests around this one).
TEST_P(Escape, ALinkFromTheTargetIntoTheScratchTreeIsFollowed) {
  Synth t;
  t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/w/p/v");
  t.add(1, 1, SYS_symlink, 20, 5, 0, {}, "/opt/py/python3", "/w/p/v/python3");
  t.add(1, 1, SYS_openat, 30, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/v/python3");
  t.add(1, 1, SYS_read, 40, 5, 100, {3, 0, 4096});
  t.add(1, 1, SYS_close, 50, 5, 0, {3});
  t.add(1, 1, SYS_openat, 60, 5, 3, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/w/p/lib");  // a directory link
  t.add(1, 1, SYS_close, 70, 5, 0, {3});
  t.add(1, 1, SYS_openat, 80, 5, -ENOENT, {kAtCwd, 0, O_RDONLY}, "/w/p/lib/missing");
  std::string trace =
      write_trace(t, "/w/p",
                  {entry("/w/p", PrestateKind::kDir), entry("/w/p/lib", PrestateKind::kSymlink, 0, "/opt/py"),
                   entry("/opt/py", PrestateKind::kDir), entry("/opt/py/python3", PrestateKind::kFile, 100)});
  auto r = run_replay(trace, opts());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(r->short_reads, 0u);
}

TEST_P(Escape, ASymlinkMovedShallowerCannotClimbOut) {
  // A relative link that stays inside where it is made, then moved up so
  // that the same text climbs above the root; later ops go through it.
  Synth t;
  t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/w/p/a");
  // From TARGET/a, "../sentinel" is TARGET/sentinel; from TARGET it is the real sentinel.
  t.add(1, 1, SYS_symlink, 20, 5, 0, {}, "../sentinel", "/w/p/a/l");
  t.add(1, 1, SYS_rename, 30, 5, 0, {}, "/w/p/a/l", "/w/p/l");
  t.add(1, 1, SYS_mkdir, 40, 5, 0, {0, 0755}, "/w/p/l/evil");
  t.add(1, 1, SYS_openat, 50, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/l/evil2");
  t.add(1, 1, SYS_unlink, 60, 5, 0, {}, "/w/p/l/keep.txt");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, opts());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(exists(sentinel + "/evil"));
  EXPECT_FALSE(exists(sentinel + "/evil2"));
  EXPECT_TRUE(exists(sentinel + "/keep.txt"));
}

TEST_P(Escape, VerifyRefusesATreeWithASymlinkPointingOut) {
  std::string trace = write_trace(Synth{}, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  ASSERT_EQ(symlink(sentinel.c_str(), (target + "/planted").c_str()), 0);
  ReplayOptions o = opts();
  o.prepare = false;
  auto r = run_replay(trace, o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("planted"), std::string::npos) << r.message();
}

// A call that takes a path relative to a directory fd, recorded without one
// of its paths (the string lost, or "" with AT_EMPTY_PATH): each is replayed
// on the fd, or skipped, never walked as a path it does not have. Every such
// call of the table, each path left out in turn, and both walk modes.
TEST_P(Escape, EveryDirfdCallRecordedWithoutAPathIsReplayedSafely) {
  for (const bool walks : {false, true}) {
    for (const SyscallInfo& si : syscall_table()) {
      if (si.path[0] < 0 || (si.dirfd[0] < 0 && si.dirfd[1] < 0) || si.nr >= kEvProcExec) continue;
      for (int drop = 0; drop < (si.path[1] >= 0 ? 2 : 1); ++drop) {
        SCOPED_TRACE(std::string(si.name) + (drop ? " without its second path" : " without its path") +
                     (walks ? ", walks as passed" : ""));
        Synth t;
        t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/w/p/d");
        std::vector<uint64_t> args(6, 0);
        for (int k = 0; k < 2; ++k)
          if (si.dirfd[k] >= 0) args[static_cast<size_t>(si.dirfd[k])] = 3;
        const uint32_t i = t.add(1, 1, si.nr, 20, 5, 0, {args[0], args[1], args[2], args[3], args[4], args[5]});
        if (drop == 0 && si.path[1] >= 0) t.ev[i].path[1] = t.s("/w/p/d/g");
        if (drop == 1) t.ev[i].path[0] = t.s(si.flags & kSfLiteralPath0 ? "f" : "/w/p/d/f");
        std::string trace = write_trace(t, "/w/p",
                                        {entry("/w/p", PrestateKind::kDir), entry("/w/p/d", PrestateKind::kDir),
                                         entry("/w/p/d/f", PrestateKind::kFile, 10)});
        ReplayOptions o = opts();
        o.walks_as_passed = walks;
        auto r = run_replay(trace, o);
        ASSERT_TRUE(r.is_ok()) << r.message();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Resolvers, Escape, ::testing::Values(true, false),
                         [](const auto& i) { return i.param ? "openat2" : "userspace"; });

}  // namespace
}  // namespace fsr
