// SPDX-License-Identifier: Apache-2.0
// Whose a replay root is (target_guard.h): fsreplay writes only into an
// empty directory or one it prepared, refuses the rest unless --force (and
// then lists what it overwrites), holds a lock while it works there, clears
// what it made for another trace, and a stop (a signal) during the replay or
// the prepare cleans up: the target reset or emptied, no scratch, no result.
#include "replayer/session/target_guard.h"

#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "replayer/engine/interrupt.h"
#include "replayer/session/root_policy.h"
#include "tests/cli/cli_run.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;
using test::write_file;

std::string read_text(const std::string& p) {
  std::string out;
  int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "<absent>";
  char b[4096];
  for (ssize_t n; (n = read(fd, b, sizeof b)) > 0;) out.append(b, static_cast<size_t>(n));
  close(fd);
  return out;
}

bool exists(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> v;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* de = readdir(d))
      if (std::string n = de->d_name; n != "." && n != "..") v.push_back(n);
    closedir(d);
  }
  std::sort(v.begin(), v.end());
  return v;
}

class TargetGuard : public test::ReplayDirs {
 protected:
  void TearDown() override {
    clear_stop();
    ReplayDirs::TearDown();
  }
  // The reproduction: the workload reads config.txt (19 bytes) and
  // writes out.txt, both in the recorded root.
  std::string config_trace() {
    Synth t;
    t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/config.txt");
    t.add(1, 1, SYS_read, 20, 5, 19, {3, 0, 4096});
    t.add(1, 1, SYS_close, 30, 5, 0, {3});
    t.add(1, 1, SYS_openat, 40, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/out.txt");
    t.add(1, 1, SYS_write, 50, 5, 4, {3, 0, 4});
    t.add(1, 1, SYS_close, 60, 5, 0, {3});
    return write_trace(t, "/w/p",
                       {entry("/w/p", PrestateKind::kDir), entry("/w/p/config.txt", PrestateKind::kFile, 19)});
  }
};

TEST_F(TargetGuard, ATargetHoldingTheUsersFilesIsRefusedAndLeftByteIdentical) {
  const std::string trace = config_trace();
  write_file(target + "/config.txt", "MY SOURCE CODE, longer than the recorded file\n");
  write_file(target + "/out.txt", "notes\n");
  write_file(target + "/unrelated.md", "mine\n");
  const uint64_t before = test::tree_hash(target);
  for (bool prepare_only : {false, true}) {
    ReplayOptions o = options();
    Status st = prepare_only ? run_prepare(trace, o).status() : run_replay(trace, o).status();
    ASSERT_FALSE(st.is_ok()) << (prepare_only ? "prepare" : "replay") << " took an occupied target";
    EXPECT_NE(st.message().find("target " + real_path(target) + " holds 3 entries fsreplay did not make"),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("would overwrite or remove 2 of its files (config.txt, out.txt (removed))"),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("--force"), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find('\n'), std::string::npos) << "one line";
    EXPECT_EQ(test::tree_hash(target), before) << "the user's files changed";
    EXPECT_FALSE(exists(target + "/" + kMarkerName)) << "a refusal leaves no marker";
  }
  EXPECT_EQ(read_text(target + "/config.txt"), "MY SOURCE CODE, longer than the recorded file\n");
  EXPECT_EQ(read_text(target + "/out.txt"), "notes\n");
}

TEST_F(TargetGuard, ForceListsWhatItOverwritesThenOverwritesOnlyThat) {
  const std::string trace = config_trace();
  write_file(target + "/config.txt", "MY SOURCE CODE, longer than the recorded file\n");
  write_file(target + "/out.txt", "notes\n");
  write_file(target + "/unrelated.md", "mine\n");
  ReplayOptions o = options();
  o.force = true;
  std::vector<std::string> said;
  o.on_warning = [&](const std::string& w) { said.push_back(w); };
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  std::string listed;
  for (const auto& w : said)
    if (w.rfind("--force:", 0) == 0) listed = w;
  EXPECT_NE(listed.find("these 2 are overwritten with filler or removed"), std::string::npos) << listed;
  EXPECT_NE(listed.find("\n  config.txt"), std::string::npos) << listed;
  EXPECT_NE(listed.find("\n  out.txt (removed)"), std::string::npos) << listed;
  EXPECT_EQ(read_text(target + "/config.txt").size(), 19u) << "prepared at the recorded size";
  EXPECT_FALSE(exists(target + "/out.txt")) << "the reset removes what the trace creates";
  EXPECT_EQ(read_text(target + "/unrelated.md"), "mine\n") << "a file the trace does not name is left alone";
  EXPECT_TRUE(exists(target + "/" + kMarkerName));
}

TEST_F(TargetGuard, AnEmptyOrPreparedTargetIsTakenAndMarkedWithTheTrace) {
  const std::string trace = config_trace();
  ReplayOptions o = options();
  ASSERT_TRUE(run_prepare(trace, o).is_ok());
  const std::string marker = read_text(target + "/" + kMarkerName);
  EXPECT_NE(marker.find("trace " + real_path(trace)), std::string::npos) << marker;
  EXPECT_NE(marker.find("pid " + std::to_string(getpid())), std::string::npos) << marker;
  o.prepare = false;  // the prepared tree, verified
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  o.prepare = true;
  r = run_replay(trace, o);  // and again, preparing over its own tree
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(names_in(target), (std::vector<std::string>{kMarkerName, "config.txt"}));
}

TEST_F(TargetGuard, AnEmptyLostAndFoundDoesNotMakeATargetOccupied) {
  ASSERT_EQ(mkdir((target + "/lost+found").c_str(), 0700), 0);
  auto r = run_replay(config_trace(), options());
  EXPECT_TRUE(r.is_ok()) << r.message();
}

TEST_F(TargetGuard, ASecondReplayOnAHeldTargetIsRefusedNamingTheHolder) {
  const std::string trace = config_trace();
  ASSERT_TRUE(run_prepare(trace, options()).is_ok());
  // Another fsreplay holds the target: a child process claims it and waits.
  int go[2], done[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(go[0]);
    close(done[1]);
    int fd = open(target.c_str(), O_RDONLY | O_DIRECTORY);
    TreeSpec spec;
    RootClaim claim;
    Status st =
        claim_root(fd, {.what = "target", .dir = target, .trace_path = "/elsewhere/other.trace", .recording = "x"},
                   spec, Root::kTarget, claim, nullptr);
    char c = st.is_ok() ? 'y' : 'n';
    (void)!write(go[1], &c, 1);
    (void)!read(done[0], &c, 1);  // until the parent has tried
    _exit(0);
  }
  close(go[1]);
  close(done[0]);
  char c = 0;
  ASSERT_EQ(read(go[0], &c, 1), 1);
  ASSERT_EQ(c, 'y') << "the child could not claim the target";
  auto r = run_replay(trace, options());
  (void)!write(done[1], "x", 1);
  int st = 0;
  waitpid(child, &st, 0);
  ASSERT_FALSE(r.is_ok()) << "two replays ran on one target";
  EXPECT_NE(r.message().find("is in use by another fsreplay (pid " + std::to_string(child) +
                             ", trace /elsewhere/other.trace)"),
            std::string::npos)
      << r.message();
  // Once it is gone, the target is free again.
  EXPECT_TRUE(run_replay(trace, options()).is_ok());
}

TEST_F(TargetGuard, ATargetPreparedForAnotherTraceIsClearedFirst) {
  ASSERT_TRUE(run_prepare(config_trace(), options()).is_ok());
  write_file(target + "/left-by-it", "x");  // (what fsreplay made for that trace)
  // The marker names another recording.
  const std::string m = target + "/" + kMarkerName;
  std::string text = read_text(m);
  const size_t at = text.find("recording ");
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) + "recording otherhost:1:/w/q\n";
  write_file(m, text);
  std::vector<std::string> said;
  ReplayOptions o = options();
  o.on_warning = [&](const std::string& w) { said.push_back(w); };
  auto r = run_replay(config_trace(), o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(exists(target + "/left-by-it"));
  bool told = false;
  for (const auto& w : said) told = told || w.find("was prepared for another trace") != std::string::npos;
  EXPECT_TRUE(told);
  // Without preparing, it is refused instead.
  write_file(m, text);
  o.prepare = false;
  auto v = run_replay(config_trace(), o);
  ASSERT_FALSE(v.is_ok());
  EXPECT_NE(v.message().find("was prepared for another trace"), std::string::npos) << v.message();
}

// A prepared target's link into the scratch names the scratch of the run
// that made it, removed since: a later replay --no-prepare (a fresh scratch)
// points it again instead of refusing the tree as pointing outside the roots.
TEST_F(TargetGuard, APreparedTargetsLinksIntoTheScratchFollowEachNewScratch) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/lnk");
  t.add(1, 1, SYS_read, 20, 5, 5, {3, 0, 4096});
  t.add(1, 1, SYS_close, 30, 5, 0, {3});
  const std::string trace =
      write_trace(t, "/w/p",
                  {entry("/w/p", PrestateKind::kDir), entry("/w/p/lnk", PrestateKind::kSymlink, 0, "/w/other/f"),
                   entry("/w/other", PrestateKind::kDir), entry("/w/other/f", PrestateKind::kFile, 5)});
  const std::string tmp = base + "/tmpdir";
  ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  setenv("TMPDIR", tmp.c_str(), 1);
  ReplayOptions o = options();
  o.scratch.clear();
  ASSERT_TRUE(run_prepare(trace, o).is_ok());
  o.prepare = false;
  for (int run = 0; run < 2; ++run) {
    auto r = run_replay(trace, o);
    ASSERT_TRUE(r.is_ok()) << "run " << run << ": " << r.message();
    EXPECT_EQ(r->divergences, 0u) << "the link did not lead into this run's scratch";
    EXPECT_EQ(r->short_reads, 0u);
  }
  unsetenv("TMPDIR");
}

// A stop during the clock: the workers stop at once (a 60 s think time is
// not slept out), the tree is reset, the scratch removed, no result left.
TEST_F(TargetGuard, AStopDuringTheReplayResetsTheTargetAndLeavesNoScratchOrResult) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/made.txt");
  t.add(1, 1, SYS_close, 20, 5, 0, {3});
  t.add(1, 1, SYS_newfstatat, 60'000'000'020ull, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/config.txt");
  const std::string trace =
      write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir), entry("/w/p/config.txt", PrestateKind::kFile, 19)});
  const std::string tmp = base + "/tmpdir";
  ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  setenv("TMPDIR", tmp.c_str(), 1);
  ReplayOptions o = options(TimingMode::kThink);
  o.scratch.clear();  // a fresh one under TMPDIR
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    request_stop(SIGINT);
  });
  auto r = run_replay(trace, o);
  stopper.join();
  unsetenv("TMPDIR");
  ASSERT_FALSE(r.is_ok()) << "the replay slept its 60 s out";
  EXPECT_EQ(r.code(), StatusCode::kInterrupted) << r.message();
  EXPECT_NE(r.message().find("stopped by SIGINT"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("the target " + real_path(target) + " was reset"), std::string::npos) << r.message();
  EXPECT_EQ(names_in(tmp), std::vector<std::string>{}) << "the scratch was left";
  EXPECT_EQ(names_in(target), (std::vector<std::string>{kMarkerName, "config.txt"})) << "not reset";
  EXPECT_FALSE(exists(o.output)) << "a result was written";
  EXPECT_FALSE(exists(o.output + ".partial")) << "the partial result was left";
}

// A stop while the tree is being made: the target, empty before, is empty
// again (no marker either).
TEST_F(TargetGuard, AStopDuringThePrepareEmptiesATargetThatWasEmpty) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/f0");
  std::vector<PrestateEntry> pre{entry("/w/p", PrestateKind::kDir)};
  for (int i = 0; i < 4000; ++i)
    pre.push_back(entry("/w/p/d" + std::to_string(i % 40) + "/f" + std::to_string(i), PrestateKind::kFile, 4096));
  for (int i = 0; i < 40; ++i) pre.push_back(entry("/w/p/d" + std::to_string(i), PrestateKind::kDir));
  const std::string trace = write_trace(t, "/w/p", pre);
  ReplayOptions o = options();
  o.progress = true;
  bool asked = false;
  o.on_progress = [&](const char* phase, uint64_t done, uint64_t, std::string_view) {
    if (std::string_view(phase) == "prepare" && done > 10 && !asked) asked = true, request_stop(SIGTERM);
  };
  auto r = run_prepare(trace, o);
  if (r.is_ok()) GTEST_SKIP() << "the prepare finished before its progress reported (nothing to stop)";
  EXPECT_EQ(r.code(), StatusCode::kInterrupted) << r.message();
  EXPECT_NE(r.message().find("stopped by SIGTERM while preparing the tree"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("the target " + real_path(target) + " was emptied"), std::string::npos) << r.message();
  EXPECT_EQ(names_in(target), std::vector<std::string>{});
}

// The command: SIGINT, SIGTERM or SIGHUP in the middle of `fsreplay replay`
// stops it within a moment (not after the trace's 60 s think time), exits
// 128+signal, and leaves the target reset, no scratch and no result.
TEST_F(TargetGuard, ASignalToTheReplayCommandCleansUpAndExits128PlusIt) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/made.txt");
  t.add(1, 1, SYS_close, 20, 5, 0, {3});
  t.add(1, 1, SYS_newfstatat, 60'000'000'020ull, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/config.txt");
  const std::string trace =
      write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir), entry("/w/p/config.txt", PrestateKind::kFile, 19)});
  const std::string tmp = base + "/tmpdir";
  ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const std::string out = base + "/cli.result", err = base + "/cli.err";
    const pid_t pid = start_fsreplay({"replay", trace, "--target", target, "-o", out, "--timing", "think", "-q"}, err,
                                     err, false, [&] { setenv("TMPDIR", tmp.c_str(), 1); });
    ASSERT_GE(pid, 0);
    // Until the clock runs (the result's spool exists), then the signal.
    for (int i = 0; i < 300 && !exists(out + ".partial"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(exists(out + ".partial")) << "the replay never started";
    ASSERT_EQ(kill(pid, sig), 0);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    const std::string said = read_text(err);
    ASSERT_TRUE(WIFEXITED(st)) << "killed by the signal instead of stopping: " << said;
    EXPECT_EQ(WEXITSTATUS(st), 128 + sig) << said;
    EXPECT_NE(said.find("stopping and cleaning up"), std::string::npos) << said;
    EXPECT_NE(said.find("the target " + real_path(target) + " was reset"), std::string::npos) << said;
    EXPECT_NE(said.find("was removed"), std::string::npos) << said;
    EXPECT_EQ(names_in(tmp), std::vector<std::string>{}) << "scratch left after signal " << sig;
    EXPECT_EQ(names_in(target), (std::vector<std::string>{kMarkerName, "config.txt"})) << "not reset";
    EXPECT_FALSE(exists(out)) << "a result was written";
    EXPECT_FALSE(exists(out + ".partial")) << "the partial result was left";
  }
}

// The command under `ulimit -f`: a write past the limit is an EFBIG
// divergence the result counts, not a SIGXFSZ that kills the replay before
// it resets the target and removes its scratch.
TEST_F(TargetGuard, AWritePastTheFileSizeLimitDivergesInsteadOfKillingTheReplay) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/w/p/big.bin");
  t.add(1, 1, SYS_pwrite64, 20, 5, 4096, {3, 0, 4096, 1 << 20});  // starts past the limit: EFBIG
  t.add(1, 1, SYS_close, 30, 5, 0, {3});
  const std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  const std::string tmp = base + "/tmpdir", out = base + "/cli.result", err = base + "/cli.err";
  ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  const pid_t pid = start_fsreplay({"replay", trace, "--target", target, "-o", out, "-q"}, err, err, false, [&] {
    setenv("TMPDIR", tmp.c_str(), 1);
    struct rlimit lim = {4096, 4096};  // the result itself stays smaller than this
    setrlimit(RLIMIT_FSIZE, &lim);
  });
  ASSERT_GE(pid, 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  const std::string said = read_text(err);
  ASSERT_TRUE(WIFEXITED(st)) << "killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ": " << said;
  EXPECT_EQ(WEXITSTATUS(st), 6) << "the refused write is a divergence: " << said;
  EXPECT_NE(said.find("EFBIG"), std::string::npos) << said;
  EXPECT_TRUE(exists(out)) << said;
  EXPECT_EQ(names_in(tmp), std::vector<std::string>{}) << "scratch left";
  EXPECT_EQ(names_in(target), std::vector<std::string>{kMarkerName}) << "not reset";
}

// The command, mid-prepare: a target that was empty is empty again.
TEST_F(TargetGuard, ASignalToThePrepareCommandEmptiesTheTargetAgain) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/d0/f0");
  std::vector<PrestateEntry> pre{entry("/w/p", PrestateKind::kDir)};
  for (int i = 0; i < 100; ++i) pre.push_back(entry("/w/p/d" + std::to_string(i), PrestateKind::kDir));
  for (int i = 0; i < 40000; ++i)
    pre.push_back(entry("/w/p/d" + std::to_string(i % 100) + "/f" + std::to_string(i), PrestateKind::kFile, 512));
  const std::string trace = write_trace(t, "/w/p", pre);
  const std::string err = base + "/prep.err";
  const pid_t pid = start_fsreplay({"prepare", trace, "--target", target, "-q"}, err, err);
  ASSERT_GE(pid, 0);
  // Until it has begun to make the tree (its directories come first).
  for (int i = 0; i < 2000 && !exists(target + "/d99"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  const std::string said = read_text(err);
  ASSERT_TRUE(WIFEXITED(st)) << said;
  if (WEXITSTATUS(st) == 0) GTEST_SKIP() << "the prepare finished before the signal came: " << said;
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGINT) << said;
  EXPECT_NE(said.find("stopped by SIGINT while preparing the tree"), std::string::npos) << said;
  EXPECT_NE(said.find("was emptied"), std::string::npos) << said;
  EXPECT_EQ(names_in(target), std::vector<std::string>{}) << said;
}

}  // namespace
}  // namespace fsr
