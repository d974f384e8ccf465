// SPDX-License-Identifier: Apache-2.0
// End-to-end replays of what a call's path names: the empty path the kernel
// refused, endings ("x/", "x/."), AT_EMPTY_PATH on an fd, the root itself,
// files outside the root seen through links or run as scripts, renames
// between the scratch tree and the target across file systems or not.
#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"
#include "traces/event_format.h"
#include "base/paths.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class ReplayPaths : public ReplayDirs {};

// mkdir("") failed with ENOENT in the kernel before any lookup; the trace
// names the cwd it is relative to. Issued on the cwd, it was EEXIST, a
// divergence (cmake: 6 in a configure); now it replays as what it was.
TEST_F(ReplayPaths, AnEmptyPathThatTheKernelRefusedIsNoDivergence) {
  Synth t;
  uint32_t m = t.add(1, 1, SYS_mkdir, 10, 1, -ENOENT, {0, 0777}, "/w/p");
  t.ev[m].flags |= kEfEmptyPath;
  uint32_t n = t.add(1, 1, SYS_mkdir, 20, 1, -EEXIST, {0, 0777}, "/w/p");  // a real mkdir of the root
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  auto ops = read_result(r->result_path);
  EXPECT_FALSE(ops[m].flags & kOfDivergent);
  EXPECT_EQ(ops[n].ret, -EEXIST);
}

// gnulib's configure probes what "x/" and "x/." do (stat of a file through a
// slash, mkdir "x/./", rename onto "y/", rmdir "d/."): the trace stores the
// normalised path and the ending beside it; replayed without the ending, a
// sed configure diverged 50 times (renames and unlinks that had failed went
// through, and what followed them diverged in turn).
TEST_F(ReplayPaths, APathsTrailingSlashOrDotReplaysAsPassed) {
  auto run = [&](bool tails) {
    Synth t;
    auto tailed = [&](uint32_t i, int k, PathTail tl) {
      if (tails) set_event_tail_code(t.ev[i], k, static_cast<uint8_t>(tl));
    };
    tailed(t.add(1, 1, SYS_newfstatat, 10, 1, -ENOTDIR, {kAtCwd, 0, 0, 0}, "/w/p/f"), 0, PathTail::kSlash);
    tailed(t.add(1, 1, SYS_newfstatat, 20, 1, 0, {kAtCwd, 0, 0, 0}, "/w/p/d"), 0, PathTail::kSlash);
    tailed(t.add(1, 1, SYS_mkdir, 30, 1, -ENOENT, {0, 0700}, "/w/p/n"), 0, PathTail::kDot);
    tailed(t.add(1, 1, SYS_rename, 40, 1, -ENOTDIR, {}, "/w/p/f", "/w/p/g"), 1, PathTail::kSlash);
    tailed(t.add(1, 1, SYS_unlink, 50, 1, -ENOTDIR, {}, "/w/p/f"), 0, PathTail::kSlash);
    tailed(t.add(1, 1, SYS_rmdir, 60, 1, -EINVAL, {}, "/w/p/d"), 0, PathTail::kDot);
    tailed(t.add(1, 1, SYS_rmdir, 62, 1, -ENOTEMPTY, {}, "/w/p/d"), 0, PathTail::kDotDot);  // rmdir("d/e/..")
    tailed(t.add(1, 1, SYS_rmdir, 64, 1, -ENOTEMPTY, {}, "/w/p"), 0, PathTail::kDotDot);    // rmdir("d/.."): the root
    t.add(1, 1, SYS_newfstatat, 70, 1, 0, {kAtCwd, 0, 0, 0}, "/w/p/f");                     // still there
    t.add(1, 1, SYS_newfstatat, 80, 1, 0, {kAtCwd, 0, 0, 0}, "/w/p/d");
    t.add(1, 1, SYS_newfstatat, 90, 1, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/n");
    std::string trace =
        write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 5), entry("/w/p/d", PrestateKind::kDir)});
    if (tails) {  // dump shows the path as the program passed it
      auto rd = TraceReader::open(trace);
      EXPECT_TRUE(rd.is_ok());
      std::vector<Event> evs;
      EXPECT_TRUE(rd.value()->next(evs).is_ok());
      EXPECT_NE(format_event(evs.at(0), *rd.value(), false).find("\"/w/p/f/\""), std::string::npos);
    }
    auto opts = options();
    opts.max_divergence_pct = 100;
    auto r = run_replay(trace, opts);
    EXPECT_TRUE(r.is_ok()) << r.message();
    return r.is_ok() ? r->divergences : ~0ull;
  };
  EXPECT_EQ(run(true), 0u);
  EXPECT_GE(run(false), 7u);  // the same calls without their endings: the test can tell
}

// glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH); the recorder names
// the fd's path. Replayed as a path walk it would fail once the name is gone
// (and cost a lookup the original never made): it must run on the fd.
TEST_F(ReplayPaths, AtEmptyPathStatRunsOnTheFdNotThePath) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  t.add(1, 1, SYS_unlink, 20, 5, 0, {}, "/w/p/f");
  uint32_t st = t.add(1, 1, SYS_newfstatat, 30, 5, 0, {3, 0, 0, AT_EMPTY_PATH}, "/w/p/f");
  t.add(1, 1, SYS_close, 40, 5, 0, {3});
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 100)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[st].ret, 0) << "a path walk would have failed with ENOENT";
  EXPECT_EQ(r->divergences, 0u);
}

// `mkdir -p` of a path under the root also tries the root itself.
TEST_F(ReplayPaths, MkdirOfTheRootItselfIsEexist) {
  Synth t;
  uint32_t m = t.add(1, 1, SYS_mkdir, 10, 5, -EEXIST, {0, 0777}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(read_result(r->result_path)[m].ret, -EEXIST);
  EXPECT_EQ(r->divergences, 0u);
}

// `ln -sf /etc/hostname a; cat a`: the file outside the root was seen only
// through a link the trace made, so nothing prepared it and the open
// diverged (ENOENT), and every call on its fd after it. What a call that
// follows the link sees is the link's target's, which existed at start.
TEST_F(ReplayPaths, AFileSeenOnlyThroughALinkTheTraceMadeIsPrepared) {
  Synth t;
  t.add(1, 1, SYS_symlink, 10, 5, 0, {}, "/etc/zone", "/w/p/a");
  uint32_t o = t.add(1, 1, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/a");
  t.ev[o].mode = S_IFREG | 0644;
  t.ev[o].size = 300;
  t.ev[o].ino = 7;
  t.add(1, 1, SYS_read, 30, 5, 300, {3, 0, 4096});
  t.add(1, 1, SYS_close, 40, 5, 0, {3});
  t.add(1, 1, SYS_readlink, 50, 5, 9, {}, "/w/p/a");  // the link itself: no facts of its target
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(r->short_reads, 0u);
}

// bash runs a script by reading a block of it, then lseek'ing back to the
// end of the line it will run next. A script outside the recorded root is
// prepared in scratch from the trace; prepared empty (its execve was its
// first mention), each read returned 0 bytes and each lseek -EINVAL.
TEST_F(ReplayPaths, AScriptRunFromOutsideTheRootReadsAndSeeksAsRecorded) {
  Synth t;
  t.add(1, 1, kEvProcExec, 10, 0, 0, {}, "/opt/shims/tool");
  t.add(1, 1, SYS_execve, 10, 5, 0, {}, "/opt/shims/tool");
  uint32_t o = t.add(1, 1, SYS_openat, 20, 1, 3, {kAtCwd, 0, O_RDONLY}, "/opt/shims/tool");
  t.ev[o].mode = S_IFREG | 0755;
  t.ev[o].size = 3341;
  uint32_t rd = t.add(1, 1, SYS_read, 30, 1, 3341, {3, 0, 3341});
  uint32_t sk = t.add(1, 1, SYS_lseek, 40, 1, 1162, {3, static_cast<uint64_t>(-2179), SEEK_CUR});
  t.add(1, 1, SYS_close, 50, 1, 0, {3});
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[rd].ret, 3341);
  EXPECT_EQ(ops[sk].ret, 1162);
  EXPECT_EQ(r->divergences, 0u);
}

// An O_TMPFILE file made visible by linkat(fd, "", dir, name, AT_EMPTY_PATH):
// the recorder names the fd's path, the file's directory; linked by that
// path, the replay's call was EINVAL and the name never came.
TEST_F(ReplayPaths, ALinkOfAnFdByAtEmptyPathGivesItsFileTheName) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 1, 3, {kAtCwd, 0, O_TMPFILE | O_RDWR, 0644}, "/w/p");
  t.add(1, 1, SYS_write, 20, 1, 6, {3, 0, 6});
  uint32_t ln = t.add(1, 1, SYS_linkat, 30, 1, 0, {3, 0, kAtCwd, 0, AT_EMPTY_PATH}, "/w/p", "/w/p/named");
  t.add(1, 1, SYS_close, 40, 1, 0, {3});
  uint32_t o = t.add(1, 1, SYS_openat, 50, 1, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/named");
  uint32_t rd = t.add(1, 1, SYS_read, 60, 1, 6, {3, 0, 4096});
  t.add(1, 1, SYS_close, 70, 1, 0, {3});
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[ln].ret, 0);
  EXPECT_GE(ops[o].ret, 0);
  EXPECT_EQ(ops[rd].ret, 6) << "the named file is the one written through the fd";
  EXPECT_EQ(r->divergences, 0u);
}

// `mv /tmp/x proj/out` recorded where /tmp and the project share one file
// system (WSL2's distro disk): the rename succeeded. Replayed onto a target
// on another mount than the scratch tree, it was EXDEV, and every call on the
// moved file after it diverged. It is moved as mv(1) moves across file
// systems now, a directory with what it holds; a hard link made so (a
// package store's into node_modules) is a copy, and a copy_file_range
// (coreutils 9's cp) is done by reads and writes.
TEST_F(ReplayPaths, ARenameLinkOrCopyFromScratchIntoATargetOnAnotherFileSystemCopiesTheFile) {
  char tpl[] = "/dev/shm/fsreplay-scratch-XXXXXX";
  if (!mkdtemp(tpl)) GTEST_SKIP() << "no /dev/shm here: the test needs a scratch tree on another file system";
  const std::string other = tpl;
  struct stat a {
  }, b{};
  ASSERT_EQ(stat(other.c_str(), &a), 0);
  ASSERT_EQ(stat(target.c_str(), &b), 0);
  if (a.st_dev == b.st_dev) {
    rmdir(other.c_str());
    GTEST_SKIP() << "/dev/shm and " << base << " are one file system here: no rename across file systems to test";
  }
  Synth t;
  // made: a file of n bytes written from ts on; read_back: its open (returned) and read from ts on.
  auto made = [&](uint64_t ts, const char* path, int64_t n) {
    t.add(1, 1, SYS_openat, ts, 1, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0640}, path);
    t.add(1, 1, SYS_write, ts + 1, 1, n, {3, 0, static_cast<uint64_t>(n)});
    t.add(1, 1, SYS_close, ts + 2, 1, 0, {3});
  };
  auto read_back = [&](uint64_t ts, const char* path, int64_t n) {
    const uint32_t o = t.add(1, 1, SYS_openat, ts, 1, 3, {kAtCwd, 0, O_RDONLY}, path);
    t.add(1, 1, SYS_read, ts + 1, 1, n, {3, 0, 4096});
    t.add(1, 1, SYS_close, ts + 2, 1, 0, {3});
    return o;
  };
  made(10, "/tmp/fsr-x", 6);
  uint32_t mv = t.add(1, 1, SYS_rename, 40, 1, 0, {}, "/tmp/fsr-x", "/w/p/out");
  uint32_t o = read_back(50, "/w/p/out", 6);
  uint32_t gone = t.add(1, 1, SYS_newfstatat, 80, 1, -ENOENT, {kAtCwd, 0, 0, 0}, "/tmp/fsr-x");
  // A directory, with a file and a link in it (`mv /tmp/build proj/out-dir`).
  t.add(1, 1, SYS_mkdir, 90, 1, 0, {0, 0750}, "/tmp/fsr-d");
  made(100, "/tmp/fsr-d/f", 5);
  t.add(1, 1, SYS_symlink, 130, 1, 0, {}, "f", "/tmp/fsr-d/l");
  uint32_t mvd = t.add(1, 1, SYS_rename, 140, 1, 0, {}, "/tmp/fsr-d", "/w/p/d");
  uint32_t od = read_back(150, "/w/p/d/l", 5);
  uint32_t goned = t.add(1, 1, SYS_newfstatat, 180, 1, -ENOENT, {kAtCwd, 0, 0, 0}, "/tmp/fsr-d");
  // A hard link from a store outside the root (pnpm's into node_modules).
  made(190, "/tmp/fsr-store", 7);
  uint32_t ln = t.add(1, 1, SYS_link, 220, 1, 0, {}, "/tmp/fsr-store", "/w/p/linked");
  uint32_t ol = read_back(230, "/w/p/linked", 7);
  uint32_t kept = t.add(1, 1, SYS_newfstatat, 260, 1, 0, {kAtCwd, 0, 0, 0}, "/tmp/fsr-store");
  uint32_t again = t.add(1, 1, SYS_link, 270, 1, -EEXIST, {}, "/tmp/fsr-store", "/w/p/linked");
  // coreutils 9's cp: copy_file_range from a file outside the root into one in it.
  made(280, "/tmp/fsr-src", 9);
  t.add(1, 1, SYS_openat, 290, 1, 3, {kAtCwd, 0, O_RDONLY}, "/tmp/fsr-src");
  t.add(1, 1, SYS_openat, 291, 1, 4, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/copied");
  uint32_t cp = t.add(1, 1, SYS_copy_file_range, 292, 1, 9, {3, 0, 4, 0, 1 << 20, 0});
  t.add(1, 1, SYS_close, 293, 1, 0, {3});
  t.add(1, 1, SYS_close, 294, 1, 0, {4});
  uint32_t oc = read_back(300, "/w/p/copied", 9);
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  ReplayOptions opt = options();
  opt.scratch = other;
  auto r = run_replay(trace, opt);
  system(("rm -rf --one-file-system '" + other + "'").c_str());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[mv].ret, 0);
  EXPECT_GE(ops[o].ret, 0);
  EXPECT_EQ(ops[o + 1].ret, 6) << "the moved file keeps its bytes";
  EXPECT_EQ(ops[gone].ret, -ENOENT) << "the old name is gone";
  EXPECT_EQ(ops[mvd].ret, 0);
  EXPECT_GE(ops[od].ret, 0) << "the directory's link came along";
  EXPECT_EQ(ops[od + 1].ret, 5) << "and its file's bytes";
  EXPECT_EQ(ops[goned].ret, -ENOENT);
  EXPECT_EQ(ops[ln].ret, 0);
  EXPECT_GE(ops[ol].ret, 0);
  EXPECT_EQ(ops[ol + 1].ret, 7) << "the linked name has the store file's bytes";
  EXPECT_EQ(ops[kept].ret, 0) << "a link keeps the old name";
  EXPECT_EQ(ops[again].ret, -EEXIST);
  EXPECT_EQ(ops[cp].ret, 9) << "copied by reads and writes where copy_file_range cannot cross";
  EXPECT_EQ(ops[oc + 1].ret, 9);
  EXPECT_EQ(r->divergences, 0u);
}

// The other way round: the original's rename crossed file systems (EXDEV)
// and mv copied; the replay's scratch tree and target share one. Issued, the
// rename went through, and the copy's exclusive create and the unlink after
// it diverged (jar's temporary file in /tmp: 12 divergent ops).
TEST_F(ReplayPaths, ARenameLinkOrCopyThatWasExdevStaysExdevWhereBothShareAFileSystem) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 1, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/tmp/fsr-y");
  t.add(1, 1, SYS_close, 20, 1, 0, {3});
  uint32_t mv = t.add(1, 1, SYS_rename, 30, 1, -EXDEV, {}, "/tmp/fsr-y", "/w/p/out");
  uint32_t cr = t.add(1, 1, SYS_openat, 40, 1, 3, {kAtCwd, 0, O_CREAT | O_EXCL | O_WRONLY, 0644}, "/w/p/out");
  t.add(1, 1, SYS_close, 50, 1, 0, {3});
  uint32_t rm = t.add(1, 1, SYS_unlink, 60, 1, 0, {}, "/tmp/fsr-y");
  uint32_t lnx = t.add(1, 1, SYS_link, 65, 1, -EXDEV, {}, "/w/p/out", "/tmp/fsr-y2");
  uint32_t miss = t.add(1, 1, SYS_rename, 70, 1, -EXDEV, {}, "/tmp/fsr-none", "/w/p/out");
  // copy_file_range that was EXDEV, then cp's reads and writes: copied, it
  // would have moved both positions, and the read found nothing.
  t.add(1, 1, SYS_openat, 80, 1, 3, {kAtCwd, 0, O_CREAT | O_RDWR | O_TRUNC, 0644}, "/tmp/fsr-z");
  t.add(1, 1, SYS_write, 81, 1, 4, {3, 0, 4});
  t.add(1, 1, SYS_lseek, 82, 1, 0, {3, 0, SEEK_SET});
  t.add(1, 1, SYS_openat, 83, 1, 4, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/z");
  uint32_t cpx = t.add(1, 1, SYS_copy_file_range, 84, 1, -EXDEV, {3, 0, 4, 0, 1 << 20, 0});
  uint32_t rdz = t.add(1, 1, SYS_read, 85, 1, 4, {3, 0, 4096});
  t.add(1, 1, SYS_write, 86, 1, 4, {4, 0, 4});
  t.add(1, 1, SYS_close, 87, 1, 0, {3});
  t.add(1, 1, SYS_close, 88, 1, 0, {4});
  std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[mv].ret, -EXDEV);
  EXPECT_GE(ops[cr].ret, 0) << "the copy's exclusive create finds no file there";
  EXPECT_EQ(ops[rm].ret, 0);
  EXPECT_EQ(ops[lnx].ret, -EXDEV) << "a link that was EXDEV stays so";
  EXPECT_EQ(ops[cpx].ret, -EXDEV);
  EXPECT_EQ(ops[rdz].ret, 4) << "the read after it finds what the original's found";
  EXPECT_EQ(ops[miss].ret, -ENOENT) << "a missing source is the replay's own answer, a divergence";
  EXPECT_EQ(r->divergences, 1u);
}

}  // namespace
}  // namespace fsr
