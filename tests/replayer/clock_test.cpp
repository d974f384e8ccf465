// SPDX-License-Identifier: Apache-2.0
// The think clock (engine.h ThinkClock): a trace's recorder cost comes out
// of its gaps, emulated fd-table calls sleep their in-kernel work, older
// traces replay as they did; and the divergence gate. Wall times are checked
// as ratios between two replays of one trace with wide bounds, never as
// absolute times (the machine is shared).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "replayer/engine/replay_cost.h"
#include "replayer/session/replay_summary.h"
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
  // Replays `trace` with and without the recorder's part taken out; checks
  // the corrected one takes about half as long. The two result files
  // (empty when a replay failed).
  std::pair<std::string, std::string> corrected_takes_about_half(const std::string& trace) {
    auto corrected = think(trace, true);
    auto plain = think(trace, false);
    EXPECT_TRUE(corrected.is_ok()) << corrected.message();
    EXPECT_TRUE(plain.is_ok()) << plain.message();
    if (!corrected.is_ok() || !plain.is_ok()) return {};
    const double ratio = double(corrected->wall_ns) / double(plain->wall_ns);
    EXPECT_GT(ratio, 0.30) << corrected->wall_ns << " vs " << plain->wall_ns;
    EXPECT_LT(ratio, 0.75) << corrected->wall_ns << " vs " << plain->wall_ns;
    return {corrected->result_path, plain->result_path};
  }
};

nlohmann::json result_options(const std::string& result) {
  auto rd = TraceReader::open(result);
  EXPECT_TRUE(rd.is_ok()) << rd.message();
  return rd.is_ok() ? nlohmann::json::parse(rd.value()->header().options_json) : nlohmann::json();
}

// 120 stats of 1 us, 2 ms apart.
constexpr int kOps = 120;
constexpr uint64_t kGap = 2'000'000, kDur = 1000;
Synth spaced_stats() {
  Synth t;
  for (int i = 0; i < kOps; ++i) t.add(1, 1, SYS_newfstatat, i * (kGap + kDur), kDur, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  return t;
}

// 120 stats 2 ms apart whose recorder cost is 1 ms of each gap: the corrected
// replay takes about half the uncorrected one.
TEST_F(Clock, AKnownRecorderCostComesOutOfKnownGaps) {
  const Synth t = spaced_stats();
  RecordCost cost;
  cost.present = true;
  cost.gap_ns.fill(1'000'000);
  cost.method = "test";
  std::string trace = write_trace(t, "/w/p", {}, &cost);
  const auto [corrected, plain] = corrected_takes_about_half(trace);
  if (corrected.empty()) return;
  // Both corrections are in the result's options.
  auto opts = result_options(corrected);
  ASSERT_TRUE(opts["clock"]["recorder"].is_object());
  EXPECT_EQ(opts["clock"]["recorder"]["gap_ns"]["stat"].get<uint64_t>(), 1'000'000u);
  EXPECT_EQ(opts["clock"]["totals_ns"]["recorder_gap"].get<uint64_t>(), (kOps - 1) * 1'000'000ull);
  EXPECT_TRUE(opts["clock"]["replayer"].contains("syscall_ns"));
  EXPECT_TRUE(result_options(plain)["clock"]["recorder"].is_null());
}

// What the recorder's threads took from the workload (the trace footer: 1 ms
// of each 2 ms gap) comes out of every gap as a share: the corrected replay
// takes about half the uncorrected one, and the share is in the options.
TEST_F(Clock, TheRecordersShareOfTheGapsComesOutOfEveryGap) {
  const Synth t = spaced_stats();
  TraceFooter f;
  f.stolen_measured = true;
  f.gaps_ns = (kOps - 1) * kGap;
  f.recorder_stolen_ns = f.gaps_ns / 2;
  std::string trace = write_trace(t, "/w/p", {}, nullptr, f);
  const auto [corrected, plain] = corrected_takes_about_half(trace);
  if (corrected.empty()) return;
  auto opts = result_options(corrected);
  EXPECT_EQ(opts["clock"]["recorder_stolen_ppm"].get<uint64_t>(), 500'000u);
  EXPECT_NEAR(double(opts["clock"]["totals_ns"]["recorder_gap"].get<uint64_t>()), (kOps - 1) * kGap / 2.0, 1e5);
  EXPECT_EQ(result_options(plain)["clock"]["recorder_stolen_ppm"].get<uint64_t>(), 0u);
}

TEST(StolenShare, IsZeroWhereTheTraceDidNotMeasureItAndAtMostHalf) {
  EXPECT_EQ(stolen_share_ppm(std::nullopt), 0u);
  TraceFooter f;
  f.recorder_stolen_ns = 10;
  f.gaps_ns = 100;
  EXPECT_EQ(stolen_share_ppm(f), 0u);  // not measured (an older recorder's footer)
  f.stolen_measured = true;
  EXPECT_EQ(stolen_share_ppm(f), 100'000u);
  f.gaps_ns = 0;
  EXPECT_EQ(stolen_share_ppm(f), 0u);
  f.gaps_ns = 10;
  f.recorder_stolen_ns = 30;
  EXPECT_EQ(stolen_share_ppm(f), 500'000u);
}

// The fault programs' time in the gaps counts with the recorder's threads',
// also in a trace that did not measure the threads.
TEST(StolenShare, TheFaultProgramsTimeInTheGapsCountsToo) {
  TraceFooter f;
  f.gaps_ns = 1000;
  f.fault_cost_ns = 20;
  EXPECT_EQ(stolen_share_ppm(f), 20'000u);
  f.recorder_stolen_ns = 30;
  EXPECT_EQ(stolen_share_ppm(f), 20'000u);  // (threads not measured)
  f.stolen_measured = true;
  EXPECT_EQ(stolen_share_ppm(f), 50'000u);
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
  std::string trace = write_trace(t, "/w/p",
                                  {ReplayDirs::entry("/w/p/here1", PrestateKind::kFile, 1),
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

// The calibration times only calls whose executor path does more than the
// plain call, and leaves nothing behind in the target.
// A recorded return of INT64_MIN (a crafted trace; found by replay_fuzz) was
// negated to name it as an errno: undefined. It is named as what it is.
TEST(TopDivergences, AReturnBeyondTheErrnoRangeIsNamedNotNegated) {
  DivergenceTally tally;
  OpRecord r;
  r.nr = 257;  // openat
  r.recorded_ret = INT64_MIN;
  r.ret = -2;
  count_divergence(tally, r);
  r.recorded_ret = -4096;
  count_divergence(tally, r);
  const auto rows = top_divergences(tally);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].recorded, "ret -4096");
  EXPECT_EQ(rows[1].recorded, "ret -9223372036854775808");
  EXPECT_EQ(rows[0].replayed, "ENOENT");
}

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

using test::run_cli;

// `fsreplay replay` on that trace: status 6, the calls named, the result
// marked in `report`; --help documents the status.
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
