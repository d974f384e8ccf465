// The think clock (engine.h ThinkClock): a trace's recorder cost comes out
// of its gaps, emulated fd-table calls sleep their in-kernel work, older
// traces replay as they did; and the divergence gate. Wall times are checked
// as ratios between two replays of one trace with wide bounds, never as
// absolute times (the machine is shared).
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "replayer/replay_cost.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class Clock : public ReplayDirs {
 protected:
  // Think mode without the executor calibration (its figures are the
  // machine's); with or without the trace's recorder cost taken out.
  Result<ReplaySummary> think(const std::string& trace, bool correct_recorder) {
    ReplayOptions o = options(TimingMode::kThink);
    o.calibrate_issue = false;
    o.correct_recorder = correct_recorder;
    return run_replay(trace, o);
  }
};

nlohmann::json result_options(const std::string& result) {
  auto rd = TraceReader::open(result);
  EXPECT_TRUE(rd.is_ok()) << rd.message();
  return rd.is_ok() ? nlohmann::json::parse(rd.value()->header().options_json) : nlohmann::json();
}

// 120 stats 2 ms apart whose recorder cost is 1 ms of each gap: the corrected
// replay takes about half the uncorrected one.
TEST_F(Clock, AKnownRecorderCostComesOutOfKnownGaps) {
  Synth t;
  constexpr int kOps = 120;
  constexpr uint64_t kGap = 2'000'000, kDur = 1000;
  for (int i = 0; i < kOps; ++i)
    t.add(1, 1, SYS_newfstatat, i * (kGap + kDur), kDur, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  RecordCost cost;
  cost.present = true;
  cost.gap_ns.fill(1'000'000);
  cost.method = "test";
  std::string trace = write_trace(t, "/w/p", {}, &cost);
  auto corrected = think(trace, true);
  ASSERT_TRUE(corrected.is_ok()) << corrected.message();
  auto plain = think(trace, false);
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  const double ratio = double(corrected->wall_ns) / double(plain->wall_ns);
  EXPECT_GT(ratio, 0.30) << corrected->wall_ns << " vs " << plain->wall_ns;
  EXPECT_LT(ratio, 0.75) << corrected->wall_ns << " vs " << plain->wall_ns;
  // Both corrections are in the result's options.
  auto opts = result_options(corrected->result_path);
  ASSERT_TRUE(opts["clock"]["recorder"].is_object());
  EXPECT_EQ(opts["clock"]["recorder"]["gap_ns"]["stat"].get<uint64_t>(), 1'000'000u);
  EXPECT_EQ(opts["clock"]["totals_ns"]["recorder_gap"].get<uint64_t>(), (kOps - 1) * 1'000'000ull);
  EXPECT_TRUE(opts["clock"]["replayer"].contains("syscall_ns"));
  EXPECT_TRUE(result_options(plain->result_path)["clock"]["recorder"].is_null());
}

// dup2 never reaches the target (the fd table is the replayer's), but the
// original's kernel spent its recorded duration on it, less what recording
// added inside that duration: think mode sleeps the rest (here 400 of 800 µs).
TEST_F(Clock, EmulatedFdCallsSleepTheirRecordedWorkLessRecordingsPart) {
  Synth t;
  t.add(1, 1, SYS_openat, 0, 1000, 3, {kAtCwd, 0, O_RDONLY, 0}, "/w/p/f");
  constexpr int kDups = 100;
  uint64_t ts = 10'000;
  for (int i = 0; i < kDups; ++i, ts += 801'000) t.add(1, 1, SYS_dup2, ts, 800'000, 10, {3, 10});
  t.add(1, 1, SYS_close, ts, 1000, 0, {3});
  RecordCost cost;
  cost.present = true;
  cost.dur_ns.fill(400'000);
  std::string trace = write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/f", PrestateKind::kFile, 10)}, &cost);
  auto r = think(trace, true);
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto whole = think(trace, false);  // the whole 800 µs slept
  ASSERT_TRUE(whole.is_ok()) << whole.message();
  const double ratio = double(r->wall_ns) / double(whole->wall_ns);
  EXPECT_GT(ratio, 0.30) << r->wall_ns << " vs " << whole->wall_ns;
  EXPECT_LT(ratio, 0.75) << r->wall_ns << " vs " << whole->wall_ns;
  // Afap sleeps nothing of it.
  auto afap = run_replay(trace, options(TimingMode::kAfap));
  ASSERT_TRUE(afap.is_ok()) << afap.message();
  EXPECT_LT(afap->wall_ns, r->wall_ns);
  auto opts = result_options(r->result_path);
  EXPECT_NEAR(double(opts["clock"]["totals_ns"]["emulated_work_slept"].get<uint64_t>()), kDups * 4e5, kDups * 1e4);
}

// Traces written by earlier writers (format 1 and 2, no recorder cost) still
// replay, their gaps as recorded.
TEST_F(Clock, OldFormatTracesReplayUncorrected) {
  for (const char* name : {"v1.trace", "v2.trace"}) {
    const std::string trace = std::string(FSR_TRACE_FIXTURES) + "/" + name;
    auto rd = TraceReader::open(trace);
    ASSERT_TRUE(rd.is_ok()) << rd.message();
    EXPECT_FALSE(rd.value()->header().record_cost.present) << name;
    ReplayOptions o = options(TimingMode::kThink);
    o.max_divergence_pct = 100;
    auto r = run_replay(trace, o);
    ASSERT_TRUE(r.is_ok()) << name << ": " << r.message();
    EXPECT_GT(r->ops + r->skipped, 0u) << name;
    EXPECT_TRUE(result_options(r->result_path)["clock"]["recorder"].is_null()) << name;
  }
}

TEST_F(Clock, DivergencesPastTheThresholdMarkTheResult) {
  // Two stats recorded as ENOENT of files the prestate has: both diverge.
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/here1");
  t.add(1, 1, SYS_newfstatat, 20, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/here2");
  for (int i = 0; i < 8; ++i) t.add(1, 1, SYS_newfstatat, 30 + 10 * i, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/here1", PrestateKind::kFile, 1),
                                              ReplayDirs::entry("/w/p/here2", PrestateKind::kFile, 1)});
  ReplayOptions o = options(TimingMode::kAfap);  // 2 of 10 ops diverge: 20%
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 2u);
  EXPECT_TRUE(r->diverged);
  ASSERT_FALSE(r->top_divergences.empty());
  EXPECT_EQ(r->top_divergences[0].call, "newfstatat");
  EXPECT_EQ(r->top_divergences[0].recorded, "ENOENT");
  EXPECT_EQ(r->top_divergences[0].replayed, "ok");
  EXPECT_EQ(r->top_divergences[0].count, 2u);
  auto opts = result_options(r->result_path);
  EXPECT_TRUE(opts["diverged"].get<bool>());
  // The threshold is the user's: 25% lets the same replay pass.
  ReplayOptions lax = options(TimingMode::kAfap);
  lax.max_divergence_pct = 25;
  auto ok = run_replay(trace, lax);
  ASSERT_TRUE(ok.is_ok()) << ok.message();
  EXPECT_FALSE(ok->diverged);
  EXPECT_FALSE(result_options(ok->result_path)["diverged"].get<bool>());
}

// A read-only mount: prepare and replay refuse it with one line naming it.
TEST_F(Clock, PrepareRefusesAReadOnlyTarget) {
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

TEST_F(Clock, PrepareRefusesAFullTarget) {
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
  EXPECT_NE(p.message().find("target " + full + " is full"), std::string::npos) << p.message();
}

TEST_F(Clock, PrepareRefusesATargetTheUserCannotWrite) {
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

// The calibration times only calls whose executor path does more than the
// plain call, and leaves nothing behind in the target.
TEST_F(Clock, IssueCalibrationMeasuresOnlyCallsWithExtraWork) {
  int fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const Features f = Features::probe(fd, {});
  auto c = calibrate_issue_cost(fd, target, f, {SYS_lgetxattr, SYS_newfstatat, SYS_unlinkat});
  close(fd);
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_EQ(c->measured, (std::vector<uint16_t>{SYS_lgetxattr, SYS_unlinkat}));
  EXPECT_EQ(c->ns[SYS_newfstatat], 0u);  // the executor makes the plain call itself
  DIR* d = opendir(target.c_str());
  ASSERT_NE(d, nullptr);
  int entries = 0;
  while (dirent* de = readdir(d)) entries += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  EXPECT_EQ(entries, 0) << "the calibration left something in the target";
}

}  // namespace
}  // namespace fsr

namespace fsr {
namespace {

// `fsreplay replay` on that trace: status 6, the calls named, the result
// marked in `report`; --help documents the status.
std::string run_cli(const std::string& args, int& status) {
  const std::string cmd = std::string(FSR_FSREPLAY_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = p ? pclose(p) : -1;
  status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

TEST_F(Clock, ReplayCommandExitsSixWhenDivergedAndReportShowsTheMark) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/here1");
  for (int i = 0; i < 4; ++i) t.add(1, 1, SYS_newfstatat, 30 + 10 * i, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/here1", PrestateKind::kFile, 1)});
  const std::string out = base + "/cli.result";
  const std::string common = trace + " --target " + target + " --scratch " + scratch + " --timing afap -o " + out;
  int st = 0;
  std::string text = run_cli("replay " + common, st);
  EXPECT_EQ(st, kExitDiverged) << text;
  EXPECT_NE(text.find("diverged: 1 of 5 ops"), std::string::npos) << text;
  EXPECT_NE(text.find("newfstatat"), std::string::npos) << text;
  EXPECT_NE(text.find("recorded ENOENT"), std::string::npos) << text;
  text = run_cli("report " + out, st);
  EXPECT_EQ(st, 0) << text;
  EXPECT_NE(text.find("DIVERGED"), std::string::npos) << text;
  text = run_cli("replay " + common + " --max-divergence 50", st);
  EXPECT_EQ(st, 0) << text;
  text = run_cli("replay --help", st);
  EXPECT_NE(text.find("6 the replay diverged"), std::string::npos) << text;
}

}  // namespace
}  // namespace fsr
