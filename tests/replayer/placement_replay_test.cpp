// SPDX-License-Identifier: Apache-2.0
// replay and prepare --place SUBDIR=OTHER, end to end through the fsreplay
// binary: OTHER (a tmpfs of its own, another mount) is bind-mounted over
// TARGET/SUBDIR in the replay's private mount namespace. Exactly the ops
// under SUBDIR land in OTHER, a rename across the placement fails EXDEV, a
// hostile trace cannot leave through the placed directory, each bad input
// gets its one line, and the result and its report name the placement.
// Root: they mount tmpfs and the replay enters a mount namespace (CI is
// root; elsewhere they skip, saying so).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class SplitReplay : public ReplayDirs {
 protected:
  void SetUp() override {
    ReplayDirs::SetUp();
    if (geteuid() != 0) GTEST_SKIP() << "needs root: mounts a tmpfs and replays in a private mount namespace";
    mnt = base + "/fast";
    ASSERT_EQ(mkdir(mnt.c_str(), 0755), 0);
    ASSERT_EQ(mount("fsreplay-place-test", mnt.c_str(), "tmpfs", 0, "size=16m"), 0) << strerror(errno);
    mounted = true;
    other = mnt + "/place";
    ASSERT_EQ(mkdir(other.c_str(), 0755), 0);
    test::write_file(mnt + "/user.txt", "the user's, beside the placed directory");
  }
  void TearDown() override {
    if (mounted) {
      EXPECT_EQ(names_in(mnt), (std::vector<std::string>{"place", "user.txt"})) << "the other mount changed";
      umount(mnt.c_str());
    }
    ReplayDirs::TearDown();
  }
  static bool exists(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
  }
  static std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> v;
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) v.emplace_back(e->d_name);
      closedir(d);
    }
    std::sort(v.begin(), v.end());
    return v;
  }
  // A tree with sub/ (placed) and files beside it; ops on both sides.
  std::string two_sided_trace() {
    Synth t;
    t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/sub/new");
    t.add(1, 1, SYS_close, 20, 5, 0, {3});
    t.add(1, 1, SYS_openat, 30, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/topnew");
    t.add(1, 1, SYS_close, 40, 5, 0, {3});
    t.add(1, 1, SYS_mkdir, 50, 5, 0, {0, 0755}, "/w/p/sub/d");
    t.add(1, 1, SYS_newfstatat, 60, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/sub/a");
    t.add(1, 1, SYS_rename, 70, 5, 0, {}, "/w/p/sub/a", "/w/p/moved");
    return write_trace(t, "/w/p",
                       {entry("/w/p", PrestateKind::kDir), entry("/w/p/sub", PrestateKind::kDir),
                        entry("/w/p/sub/a", PrestateKind::kFile, 10), entry("/w/p/top", PrestateKind::kFile, 20)});
  }
  CliRun replay(const std::string& trace, std::vector<std::string> extra) {
    std::vector<std::string> args{"replay",
                                  trace,
                                  "--target",
                                  target,
                                  "--scratch",
                                  scratch,
                                  "--timing",
                                  "afap",
                                  "--quiet",
                                  "-o",
                                  base + "/r" + std::to_string(++runs_) + ".result"};
    args.insert(args.end(), extra.begin(), extra.end());
    return fsreplay(args);
  }
  static size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

  std::string mnt, other;
  bool mounted = false;
  int runs_ = 0;
};

// Exactly the ops under sub/ reach OTHER: what they make is there, what the
// others make is on the target, the target's sub/ is only the mount point.
// The rename from sub/ to the root meets EXDEV from the kernel, as across a
// user's bind mount, and the replayer then does what mv does after EXDEV
// (exec_files.cpp copy_across, its rule for names kept on two file
// systems): the file is copied onto the target and removed from OTHER.
TEST_F(SplitReplay, SendsExactlyTheOpsUnderSubdirToOther) {
  const std::string trace = two_sided_trace();
  const std::string res = base + "/kept.result";
  CliRun r = fsreplay({"replay", trace, "--target", target, "--scratch", scratch, "--timing", "afap", "--quiet",
                       "--keep-tree", "--max-divergence", "100", "-o", res, "--place", "sub=" + other});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("placement    sub -> " + other + " (tmpfs)"), std::string::npos) << r.out;
  EXPECT_EQ(names_in(other), (std::vector<std::string>{".fsreplay-target", "d", "new"}));
  EXPECT_EQ(names_in(target + "/sub"), std::vector<std::string>{}) << "the mount point on the target holds files";
  EXPECT_EQ(names_in(target), (std::vector<std::string>{".fsreplay-target", "moved", "sub", "top", "topnew"}));
  struct stat moved, root;
  ASSERT_EQ(stat((target + "/moved").c_str(), &moved), 0);
  ASSERT_EQ(stat(target.c_str(), &root), 0);
  EXPECT_EQ(moved.st_dev, root.st_dev) << "moved across by a copy, onto the target's file system";
  EXPECT_EQ(moved.st_size, 10);
  int renames = 0;
  for (const OpRecord& op : read_result(res)) {
    if (op.nr != SYS_rename) continue;
    ++renames;
    EXPECT_EQ(op.ret, 0) << "a rename across the placement, done as mv does after EXDEV";
  }
  EXPECT_EQ(renames, 1);
  // The reset puts the initial tree back on both sides; nothing stays mounted.
  r = replay(trace, {"--max-divergence", "100", "--place", "sub=" + other});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(names_in(other), (std::vector<std::string>{".fsreplay-target", "a"}));
  EXPECT_EQ(names_in(target), (std::vector<std::string>{".fsreplay-target", "sub", "top"}));
}

// prepare --place writes sub/'s initial tree into OTHER; replay --no-prepare
// with the same --place finds it there; without it, the tree is incomplete.
TEST_F(SplitReplay, PrepareWritesThePlacedTreeIntoOther) {
  const std::string trace = two_sided_trace();
  CliRun p = fsreplay({"prepare", trace, "--target", target, "--quiet", "--place", "sub=" + other});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("placement: sub -> " + other + " (tmpfs)"), std::string::npos) << p.out;
  EXPECT_EQ(names_in(other), (std::vector<std::string>{".fsreplay-target", "a"}));
  EXPECT_EQ(names_in(target + "/sub"), std::vector<std::string>{});
  CliRun r = replay(trace, {"--no-prepare", "--max-divergence", "100", "--place", "sub=" + other});
  EXPECT_EQ(r.code, 0) << r.err;
  CliRun bare = replay(trace, {"--no-prepare", "--max-divergence", "100"});
  EXPECT_NE(bare.code, 0) << "the tree under sub/ is in OTHER, not on the target";
}

// A hostile trace: .. out of the placed directory, symlinks in it pointing
// out (recorded and made by the trace), a rename of an outside directory
// into it. Nothing outside target, scratch and OTHER changes (the
// fixture's sentinel hash; TearDown checks the other mount's own files).
TEST_F(SplitReplay, AHostileTraceCannotEscapeThroughThePlacedDirectory) {
  Synth t;
  t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/w/p/sub/../../../../../.." + sentinel + "/evil");
  t.add(1, 1, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/sub/out/keep.txt");
  t.add(1, 1, SYS_write, 25, 5, 100, {3, 0, 100});
  t.add(1, 1, SYS_unlink, 30, 5, 0, {}, "/w/p/sub/up/sub/x");
  t.add(1, 1, SYS_symlink, 40, 5, 0, {}, "../../../../../../../..", "/w/p/sub/climb");
  t.add(1, 1, SYS_openat, 50, 5, 4, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/sub/climb" + mnt + "/evil2");
  t.add(1, 1, SYS_unlink, 60, 5, 0, {}, "/w/p/sub/climb" + mnt + "/user.txt");
  t.add(1, 1, SYS_rename, 70, 5, 0, {}, sentinel + "/sub", "/w/p/sub/stolen");
  const std::string trace = write_trace(t, "/w/p",
                                        {entry("/w/p", PrestateKind::kDir), entry("/w/p/sub", PrestateKind::kDir),
                                         entry("/w/p/sub/out", PrestateKind::kSymlink, 0, sentinel),
                                         entry("/w/p/sub/up", PrestateKind::kSymlink, 0, "../../.." + sentinel)});
  for (const char* resolver : {"openat2", "user-space"}) {
    std::vector<std::string> extra{"--keep-tree", "--max-divergence", "100", "--place", "sub=" + other};
    if (std::string(resolver) == "user-space") extra.insert(extra.end(), {"--disable-feature", "openat2"});
    CliRun r = replay(trace, extra);
    EXPECT_EQ(r.code, 0) << resolver << ": " << r.err;
    EXPECT_FALSE(exists(sentinel + "/evil")) << resolver;
    EXPECT_TRUE(exists(sentinel + "/keep.txt")) << resolver;
    EXPECT_FALSE(exists(mnt + "/evil2")) << resolver;
    EXPECT_TRUE(exists(mnt + "/user.txt")) << resolver;
  }
}

// Each bad input: one line naming it; a refusal changes nothing.
TEST_F(SplitReplay, EachBadInputGetsItsLine) {
  const std::string trace = two_sided_trace();
  CliRun r = replay(trace, {"--max-divergence", "100", "--place", "sub=" + other, "--place", "nothere=" + other + "2"});
  EXPECT_EQ(r.code, 2) << "the second OTHER is missing: " << r.err;
  EXPECT_NE(r.err.find(other + "2: No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;

  test::write_file(base + "/afile", "x");
  r = replay(trace, {"--place", "sub=" + base + "/afile"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(base + "/afile is not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;

  ASSERT_EQ(mkdir((mnt + "/place2").c_str(), 0755), 0);
  r = replay(trace, {"--place", "sub=" + other, "--place", "sub/d=" + mnt + "/place2"});
  rmdir((mnt + "/place2").c_str());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("overlaps --place sub="), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(names_in(other), std::vector<std::string>{}) << "a refusal made something";

  // Goes on: a SUBDIR the trace never touches.
  ASSERT_EQ(mkdir((mnt + "/place2").c_str(), 0755), 0);
  r = replay(trace, {"--max-divergence", "100", "--place", "nothere=" + mnt + "/place2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--place nothere=" + mnt + "/place2: the trace never touches nothere"), std::string::npos)
      << r.err;
  remove_tree_at(AT_FDCWD, (mnt + "/place2").c_str());

  // Goes on: OTHER on the target's own file system.
  const std::string same = base + "/samefs";
  ASSERT_EQ(mkdir(same.c_str(), 0755), 0);
  r = replay(trace, {"--max-divergence", "100", "--place", "sub=" + same});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("is on the same file system as the target"), std::string::npos) << r.err;
  EXPECT_TRUE(exists(same + "/a")) << "the placement was made all the same";

  // An OTHER holding the user's files is refused, as a target is.
  test::write_file(other + "/mine", "the user's");
  r = replay(trace, {"--max-divergence", "100", "--place", "sub=" + other});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("place " + other + " holds 1 entries fsreplay did not make (mine)"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(names_in(other), std::vector<std::string>{"mine"});
  unlink((other + "/mine").c_str());
}

// Without CAP_SYS_ADMIN (another user): one line saying what --place needs
// and what to do, exit 5, nothing made.
TEST_F(SplitReplay, WithoutCapSysAdminOneLineSaysWhatToDo) {
  const std::string trace = two_sided_trace();
  ASSERT_EQ(chmod(base.c_str(), 0755), 0);
  ASSERT_EQ(chmod(trace.c_str(), 0644), 0);
  const std::string out = base + "/nobody.out", err = base + "/nobody.err";
  for (const std::string& f : {out, err}) {  // (made here: the other user cannot create them in base)
    test::write_file(f, "");
    ASSERT_EQ(chmod(f.c_str(), 0666), 0);
  }
  const pid_t p =
      start_fsreplay({"replay", trace, "--target", target, "--quiet", "--place", "sub=" + other}, out, err, false, [] {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(99);
      });
  int st = 0;
  ASSERT_EQ(waitpid(p, &st, 0), p);
  ASSERT_TRUE(WIFEXITED(st));
  const std::string said = slurp(err);
  EXPECT_EQ(WEXITSTATUS(st), 5) << said;
  EXPECT_NE(said.find("needs CAP_SYS_ADMIN: run fsreplay as root (sudo), or leave --place out"), std::string::npos)
      << said;
  EXPECT_EQ(lines(said), 1u) << said;
  EXPECT_EQ(names_in(other), std::vector<std::string>{});
  EXPECT_EQ(names_in(target), std::vector<std::string>{});
}

// The result records the placement (with OTHER's file-system type); report
// and compare show it in text, JSON and Markdown; replay --json too.
TEST_F(SplitReplay, TheResultAndItsReportsNameThePlacement) {
  const std::string trace = two_sided_trace();
  const std::string res = base + "/placed.result", plain = base + "/plain.result";
  CliRun r = fsreplay({"replay", trace, "--target", target, "--scratch", scratch, "--timing", "afap", "--quiet",
                       "--json", "--max-divergence", "100", "-o", res, "--place", "sub=" + other});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("placement")) << r.out;
  EXPECT_EQ(j["placement"][0]["subdir"], "sub");
  EXPECT_EQ(j["placement"][0]["other"], other);
  EXPECT_EQ(j["placement"][0]["fs_type"], "tmpfs");
  EXPECT_EQ(j["placement"][0]["same_mount"], false);
  ASSERT_EQ(fsreplay({"replay", trace, "--target", target, "--scratch", scratch, "--timing", "afap", "--quiet",
                      "--max-divergence", "100", "-o", plain})
                .code,
            0);
  const std::string shown = "sub on " + other + " (tmpfs)";
  CliRun t = fsreplay({"report", res, "--quiet"});
  EXPECT_NE(t.out.find("placed: " + shown), std::string::npos) << t.out;
  CliRun m = fsreplay({"report", res, "--quiet", "--format", "markdown"});
  EXPECT_NE(m.out.find("Placed: " + shown), std::string::npos) << m.out;
  CliRun js = fsreplay({"report", res, "--quiet", "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out)["target"]["placement"][0]["fs_type"], "tmpfs") << js.out;
  CliRun plain_report = fsreplay({"report", plain, "--quiet", "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(plain_report.out)["target"].contains("placement"));
  CliRun c = fsreplay({"compare", plain, res, "--quiet"});
  EXPECT_NE(c.out.find("placed: " + shown), std::string::npos) << c.out;
  CliRun cm = fsreplay({"compare", plain, res, "--quiet", "--format", "markdown"});
  EXPECT_NE(cm.out.find("placed: " + shown), std::string::npos) << cm.out;
  CliRun cj = fsreplay({"compare", plain, res, "--quiet", "--format", "json"});
  ASSERT_EQ(cj.code, 0) << cj.err;
  const auto cmp = nlohmann::json::parse(cj.out);
  EXPECT_FALSE(cmp["mounts"][0].contains("placement"));
  EXPECT_EQ(cmp["mounts"][1]["placement"][0]["subdir"], "sub") << cj.out;
}

}  // namespace
}  // namespace fsr
