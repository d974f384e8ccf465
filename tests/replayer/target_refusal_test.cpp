// SPDX-License-Identifier: Apache-2.0
// Targets that prepare and replay refuse with one line naming them: a
// read-only mount, a full one, one the user cannot write. Root: they mount
// tmpfs or drop to another user (CI is root; elsewhere they skip, saying so).
#include <fcntl.h>
#include <sys/mount.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class TargetRefusals : public ReplayDirs {};

// A read-only mount: prepare and replay refuse it with one line naming it.
TEST_F(TargetRefusals, PrepareRefusesAReadOnlyTarget) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a read-only tmpfs";
  const std::string ro = base + "/ro";
  ASSERT_EQ(mkdir(ro.c_str(), 0755), 0);
  ASSERT_EQ(mount("fsreplay-test", ro.c_str(), "tmpfs", MS_RDONLY, "size=1m"), 0) << strerror(errno);
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/a");
  std::string trace = write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/a", PrestateKind::kFile, 10)});
  ReplayOptions o = options(TimingMode::kAfap);
  o.target = ro;
  auto p = run_prepare(trace, o);
  auto r = run_replay(trace, o);
  umount(ro.c_str());
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.message().find("target " + ro + " is on a read-only mount"), std::string::npos) << p.message();
  EXPECT_EQ(p.message().find('\n'), std::string::npos);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("read-only"), std::string::npos) << r.message();
}

TEST_F(TargetRefusals, PrepareRefusesAFullTarget) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string full = base + "/full";
  ASSERT_EQ(mkdir(full.c_str(), 0755), 0);
  ASSERT_EQ(mount("fsreplay-test", full.c_str(), "tmpfs", 0, "size=4m"), 0) << strerror(errno);
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/big");
  std::string trace = write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/big", PrestateKind::kFile, 64u << 20)});
  ReplayOptions o = options(TimingMode::kAfap);
  o.target = full;
  auto p = run_prepare(trace, o);
  umount(full.c_str());
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.message().find("MiB free (of 4) and the trace's initial tree needs 64 MiB"), std::string::npos)
      << p.message();
  EXPECT_NE(p.message().find("target " + full + " has "), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("nothing was written"), std::string::npos) << p.message();
}

// An empty 1 MiB tmpfs holds a trace's small tree: the headroom kept for the
// replay's own entries is an eighth of so small a file system, not 1 MiB
// (it was refused: "full: 1 MiB free ... need at least 1 MiB").
TEST_F(TargetRefusals, ASmallEmptyTmpfsTakesASmallTree) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string tiny = base + "/tiny";
  ASSERT_EQ(mkdir(tiny.c_str(), 0755), 0);
  ASSERT_EQ(mount("fsreplay-test", tiny.c_str(), "tmpfs", 0, "size=1m"), 0) << strerror(errno);
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/a");
  std::string trace = write_trace(
      t, "/w/p",
      {ReplayDirs::entry("/w/p", PrestateKind::kDir), ReplayDirs::entry("/w/p/a", PrestateKind::kFile, 4096)});
  ReplayOptions o = options(TimingMode::kAfap);
  o.target = tiny;
  auto r = run_replay(trace, o);
  umount(tiny.c_str());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
}

// A hostile trace's 1 TiB file, outside the recorded root (so in the
// scratch): refused before anything is written, for a scratch the user gave
// and for the default one under TMPDIR; the file system stays empty.
TEST_F(TargetRefusals, ATerabyteFileInTheScratchIsRefusedBeforeAnyWrite) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string small = base + "/smallscratch";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  ASSERT_EQ(mount("fsreplay-test", small.c_str(), "tmpfs", 0, "size=16m"), 0) << strerror(errno);
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/other/big");
  std::string trace = write_trace(t, "/w/p",
                                  {ReplayDirs::entry("/w/p", PrestateKind::kDir),
                                   ReplayDirs::entry("/w/other/big", PrestateKind::kFile, 1ull << 40)});
  for (bool given : {true, false}) {
    ReplayOptions o = options(TimingMode::kAfap);
    if (given)
      o.scratch = small;
    else
      o.scratch.clear(), setenv("TMPDIR", small.c_str(), 1);
    auto r = run_replay(trace, o);
    unsetenv("TMPDIR");
    ASSERT_FALSE(r.is_ok()) << "a 1 TiB file was prepared on a 16 MiB tmpfs";
    EXPECT_NE(r.message().find("scratch directory " + small), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("needs 1048576 MiB there"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("--scratch"), std::string::npos) << r.message();
    struct statvfs v;
    ASSERT_EQ(statvfs(small.c_str(), &v), 0);
    EXPECT_EQ(v.f_bfree, v.f_blocks) << "something was written";
    DIR* d = opendir(small.c_str());
    int n = 0;
    while (dirent* de = d ? readdir(d) : nullptr) n += de->d_name[0] != '.';
    if (d) closedir(d);
    EXPECT_EQ(n, 0) << (given ? "the given scratch" : "TMPDIR") << " is not empty";
  }
  umount(small.c_str());
}

// A mount that reports no size (FUSE without statfs: 0 blocks) is "size
// unknown": warned about, replayed on (it was refused as "full: 0 MiB free").
TEST_F(TargetRefusals, AFuseMountWithoutStatfsIsReplayedOn) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount FUSE";
  const std::string bin = FSR_SLOWFS_BIN;
  if (bin.empty() || access(bin.c_str(), X_OK) != 0) GTEST_SKIP() << "slowfs not built (needs libfuse3)";
  if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no /dev/fuse on this machine";
  const std::string backing = base + "/backing", mnt = base + "/nostatfs";
  ASSERT_EQ(mkdir(backing.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(mnt.c_str(), 0755), 0);
  ASSERT_EQ(system((bin + " --no-statfs " + backing + " " + mnt).c_str()), 0);
  struct statvfs v;
  ASSERT_EQ(statvfs(mnt.c_str(), &v), 0);
  EXPECT_EQ(v.f_blocks, 0u) << "slowfs --no-statfs still reports a size";
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/a");
  t.add(1, 1, SYS_read, 20, 5, 100, {3, 0, 4096});
  t.add(1, 1, SYS_close, 30, 5, 0, {3});
  std::string trace = write_trace(
      t, "/w/p",
      {ReplayDirs::entry("/w/p", PrestateKind::kDir), ReplayDirs::entry("/w/p/a", PrestateKind::kFile, 100)});
  ReplayOptions o = options(TimingMode::kAfap);
  o.target = mnt;
  std::vector<std::string> said;
  o.on_warning = [&](const std::string& w) { said.push_back(w); };
  auto r = run_replay(trace, o);
  EXPECT_EQ(system(("fusermount3 -u " + mnt + " || umount -l " + mnt).c_str()), 0);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  bool told = false;
  for (const auto& w : said) told = told || w.find("reports no size") != std::string::npos;
  EXPECT_TRUE(told) << "no warning that the target's room is unknown";
}

// The tree fits but the trace's writes do not: said before the clock, naming
// the target, as the ENOSPC that follows shows only as divergences. (A
// git/git clone writes 546 MiB; onto a 64 MiB tmpfs: 34% divergent.)
TEST_F(TargetRefusals, ReplayWarnsWhenTheTracesWritesExceedTheFreeSpace) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string small = base + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  ASSERT_EQ(mount("fsreplay-test", small.c_str(), "tmpfs", 0, "size=4m"), 0) << strerror(errno);
  auto replay_writing = [&](uint64_t chunks) {
    Synth t;
    t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/out");
    for (uint64_t k = 0; k < chunks; ++k) t.add(1, 1, SYS_write, 20 + k, 1, 1 << 20, {3, 0, 1 << 20});
    t.add(1, 1, SYS_close, 100, 5, 0, {3});
    std::string trace = write_trace(t, "/w/p");
    ReplayOptions o = options(TimingMode::kAfap);
    o.target = small;
    o.max_divergence_pct = 100;
    std::vector<std::string> said;
    o.on_warning = [&](const std::string& w) { said.push_back(w); };
    auto r = run_replay(trace, o);
    EXPECT_TRUE(r.is_ok()) << r.message();
    for (const auto& w : said)
      if (w.find("come to") != std::string::npos) return w;
    return std::string();
  };
  const std::string w = replay_writing(8);  // 8 MiB onto 4
  EXPECT_NE(w.find("the trace's writes to the target " + small + " come to 8 MiB"), std::string::npos) << w;
  EXPECT_EQ(replay_writing(1), "") << "1 MiB fits: no warning";
  umount(small.c_str());
}

TEST_F(TargetRefusals, PrepareRefusesATargetTheUserCannotWrite) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the check as another user";
  const std::string locked = base + "/locked";
  ASSERT_EQ(mkdir(locked.c_str(), 0555), 0);
  ASSERT_EQ(chmod(base.c_str(), 0755), 0);
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  ASSERT_EQ(chmod(trace.c_str(), 0644), 0);
  int pfd[2];
  ASSERT_EQ(pipe(pfd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // as nobody: the target is not theirs to write
    close(pfd[0]);
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(2);
    ReplayOptions o = options(TimingMode::kAfap);
    o.target = locked;
    o.scratch.clear();
    setenv("TMPDIR", "/tmp", 1);
    auto p = run_prepare(trace, o);
    std::string m = p.is_ok() ? std::string("ok") : p.message();
    (void)!write(pfd[1], m.data(), m.size());
    _exit(0);
  }
  close(pfd[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(pfd[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
  close(pfd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the child could not drop privileges";
  EXPECT_NE(msg.find("target " + locked + " is not writable by uid 65534"), std::string::npos) << msg;
}

}  // namespace
}  // namespace fsr
