// SPDX-License-Identifier: Apache-2.0
// The replay's clock end to end: think, afap and exact modes on synthetic
// traces written as real trace files, the worker's sleeps, and what think
// mode pays back from the recorded gaps (page faults, the syscall round trip).
#include "replayer/session/replay.h"
#include "replayer/engine/engine.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class ReplayTiming : public ReplayDirs {};

TEST_F(ReplayTiming, ThinkModeKeepsRecordedGapsAndAfapDropsThem) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 0, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 1, SYS_newfstatat, 50'001'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 1, SYS_newfstatat, 100'002'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  auto think = run_replay(trace, options(TimingMode::kThink));
  ASSERT_TRUE(think.is_ok()) << think.message();
  auto ops = read_result(think->result_path);
  // issue - previous completion is the recorded gap, less what an earlier
  // sleep overslept (paid back: on a loaded machine that can be milliseconds),
  // so each gap is mostly slept and together they are at least the recorded total.
  for (size_t i = 1; i < ops.size(); ++i)
    EXPECT_GE(ops[i].start - (ops[i - 1].start + ops[i - 1].latency), 40'000'000u);
  EXPECT_GE(ops[2].start - ops[0].start, 99'000'000u);
  EXPECT_GE(think->wall_ns, 100'000'000u);
  auto afap = run_replay(trace, options(TimingMode::kAfap));
  ASSERT_TRUE(afap.is_ok());
  EXPECT_LT(afap->wall_ns, think->wall_ns);
  for (const OpRecord& op : read_result(afap->result_path)) EXPECT_LT(op.gap, 50'000'000u);
}

// --gaps spin: the gaps burn a CPU as the original's compute did; sleep
// leaves it idle. Told apart by the process's CPU time, not by the clock: a
// spinner on a loaded machine still runs for a share of its 300 ms of gaps.
uint64_t replay_cpu_ns(const std::string& trace, ReplayOptions o, nlohmann::json& opts) {
  rusage a{}, b{};
  getrusage(RUSAGE_SELF, &a);
  auto r = run_replay(trace, o);
  getrusage(RUSAGE_SELF, &b);
  EXPECT_TRUE(r.is_ok()) << r.message();
  if (!r.is_ok()) return 0;
  auto rd = TraceReader::open(r->result_path);
  EXPECT_TRUE(rd.is_ok());
  if (rd.is_ok()) opts = nlohmann::json::parse(rd.value()->header().options_json);
  auto ns = [](const rusage& u) {
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1'000'000'000ull +
           (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1'000ull;
  };
  return ns(b) - ns(a);
}

TEST_F(ReplayTiming, SpinGapsBurnTheCpuThatSleepingGapsLeaveIdle) {
  Synth t;
  for (uint64_t k = 0; k < 4; ++k) t.add(1, 1, SYS_newfstatat, k * 100'001'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  ReplayOptions o = options(TimingMode::kThink);
  o.calibrate_issue = false;  // its own calls would blur the sleeper's CPU time
  nlohmann::json slept_opts, spun_opts;
  const uint64_t slept = replay_cpu_ns(trace, o, slept_opts);
  o.spin_gaps = true;
  const uint64_t spun = replay_cpu_ns(trace, o, spun_opts);
  EXPECT_GE(spun, 60'000'000u) << "spinning 300 ms of gaps used " << spun << " ns of CPU";
  EXPECT_GT(spun, 2 * slept) << "sleeping used " << slept << " ns, spinning " << spun;
  EXPECT_FALSE(slept_opts.contains("gaps"));
  ASSERT_TRUE(spun_opts.contains("gaps"));
  EXPECT_EQ(spun_opts["gaps"], "spin");
}

// A worker's sleeps must end at their deadline: the default 50 us timer
// slack would let every think-time sleep overshoot by up to that much.
TEST(Engine, WorkerThreadsSleepWithoutTimerSlack) {
  long before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), in_worker = 0;
  std::thread([&] {
    prepare_worker_thread();
    in_worker = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  }).join();
  EXPECT_EQ(in_worker, 1);
  EXPECT_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), before) << "only the worker's own slack changes";
}

// A page fault happens in user mode: the original's fault time is inside the
// recorded gap after it. Think mode pays the replayed touch back from that gap.
TEST_F(ReplayTiming, ThinkModePaysAPageFaultBackFromTheNextGap) {
  Synth t;
  const uint64_t addr = 0x7f0000000000ull;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  t.add(1, 1, SYS_mmap, 20, 5, static_cast<int64_t>(addr), {0, 8192, PROT_READ, MAP_PRIVATE, 3, 0});
  uint32_t pf = t.add(1, 1, kEvPageFault, 1000, 0, 0, {0, addr + 10, 0}, "/w/p/f");
  uint32_t next = t.add(1, 1, SYS_newfstatat, 1000 + 60'000'000, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/f");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 8192)});
  ReplayOptions o = options(TimingMode::kThink);
  o.inject_ns[static_cast<size_t>(SyscallClass::kMmap)] = 30'000'000;  // the touch takes >= 30 ms
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_FALSE(ops[pf].flags & kOfSkipped) << "the page was not touched";
  ASSERT_GE(ops[pf].latency, 30'000'000u);
  // Recorded gap 60 ms, of which the replayed touch already took >= 30 ms.
  EXPECT_LT(ops[next].gap, 50'000'000u) << "the fault's time was counted twice";
  EXPECT_GE(ops[next].start - (ops[pf].start + ops[pf].latency), 60'000'000u - ops[pf].latency - 1'000'000u);
}

// A recorded duration is taken inside the kernel; the replay times a call from
// user space, entry and exit included, which the recorded gap already holds.
// Think mode pays that overhead back from the next gap (here forced to 5 ms
// and made visible by a 10 ms injected latency: the cap is the op's latency).
TEST_F(ReplayTiming, ThinkModePaysTheSyscallOverheadBack) {
  Synth t;
  uint32_t a = t.add(1, 1, SYS_newfstatat, 0, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  uint32_t b = t.add(1, 1, SYS_newfstatat, 20'001'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  ReplayOptions o = options(TimingMode::kThink);
  o.inject_ns[static_cast<size_t>(SyscallClass::kStat)] = 10'000'000;
  o.syscall_overhead_ns = 5'000'000;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_GE(ops[a].latency, 5'000'000u);
  // The engine's plan for b, not the sleep it got (a loaded machine
  // oversleeps): b was meant to start what is left of the gap after a.
  const int64_t planned_gap =
      static_cast<int64_t>(ops[b].start) - ops[b].lateness - static_cast<int64_t>(ops[a].start + ops[a].latency);
  EXPECT_LT(planned_gap, 18'500'000) << "the 20 ms gap was planned whole";
  EXPECT_GE(ops[b].start - (ops[a].start + ops[a].latency), 14'000'000u);
  // Calibrated by default, and written into the result's options.
  o.syscall_overhead_ns = kMeasureOverhead;
  o.inject_ns = {};
  auto m = run_replay(trace, o);
  ASSERT_TRUE(m.is_ok()) << m.message();
  auto rd = TraceReader::open(m->result_path);
  ASSERT_TRUE(rd.is_ok());
  auto opts = nlohmann::json::parse(rd.value()->header().options_json);
  ASSERT_TRUE(opts.contains("syscall_overhead_ns"));
  EXPECT_GT(opts["syscall_overhead_ns"].get<uint64_t>(), 0u);
  EXPECT_LT(opts["syscall_overhead_ns"].get<uint64_t>(), 1'000'000u);
}

// A thread's start-up gap (its creator's clone to its first call) runs from
// the creator's completion, as in the original, not from when its worker is
// done with an earlier thread: thread 3 is made at 1 ms and starts at 41.5 ms,
// on the worker thread 2 holds until 41 ms. Counted from the worker it
// would start at ~81 ms.
TEST_F(ReplayTiming, AThreadsStartUpGapRunsFromItsCreatorNotFromItsWorker) {
  constexpr uint64_t kThread = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;
  constexpr uint64_t kMs = 1'000'000;
  Synth t;
  t.add(1, 1, SYS_clone, 0, 1000, 2, {kThread});
  t.add(1, 1, SYS_clone, 1 * kMs, 1000, 3, {kThread});
  uint32_t last2 = 0;
  for (uint64_t k = 0; k < 5; ++k)
    last2 = t.add(1, 2, SYS_newfstatat, (1 + 10 * k) * kMs, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  uint32_t first3 = t.add(1, 3, SYS_newfstatat, 41 * kMs + kMs / 2, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 3, SYS_newfstatat, 42 * kMs + kMs / 2, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 1, SYS_newfstatat, 44 * kMs, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");  // (keeps thread 1's worker busy)
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options(TimingMode::kThink));
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_EQ(ops[first3].worker, ops[last2].worker) << "the test needs both threads on one worker";
  const uint64_t start3 = ops[first3].start - ops[0].start;
  EXPECT_GE(start3, 40 * kMs) << "the start-up gap was not slept";
  EXPECT_LT(start3, 65 * kMs) << "the start-up gap was counted from the worker's previous thread";
  EXPECT_LT(ops[first3].lateness, static_cast<int64_t>(10 * kMs));

  // Thread 2 replayed 10 ms slower (2 ms injected into each of its stats):
  // thread 3 starts when its worker is free, late against its creator + gap,
  // and pays that back from its own next gap (1 ms, so slept not at all).
  ReplayOptions slow = options(TimingMode::kThink);
  slow.inject_ns[static_cast<size_t>(SyscallClass::kStat)] = 2 * kMs;
  auto rs = run_replay(trace, slow);
  ASSERT_TRUE(rs.is_ok()) << rs.message();
  auto sops = read_result(rs->result_path);
  ASSERT_EQ(sops[first3].worker, sops[last2].worker);
  EXPECT_GE(sops[first3].lateness, static_cast<int64_t>(5 * kMs)) << "its late start is reported";
  EXPECT_LT(sops[first3 + 1].gap, kMs / 2) << "the late start was not paid back from the next gap";
}

// A contended lock taken after the holder's call (deps.h): on a mount where
// that call is 30 ms slower the waiter does not wait it out: it goes on, as
// the original would have, taking the lock while the holder was still in its
// call.
TEST_F(ReplayTiming, ALockWaitDoesNotWaitOutTheHoldersSlowerCall) {
  constexpr uint64_t kThread = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;
  constexpr uint64_t kUs = 1'000;
  Synth t;
  t.add(1, 1, SYS_clone, 0, 1000, 2, {kThread});
  uint32_t call = t.add(1, 2, SYS_newfstatat, 100 * kUs, 100 * kUs, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 2, SYS_futex, 2200 * kUs, 5 * kUs, 1, {0x7f0000001000, FUTEX_WAKE_PRIVATE, 1});
  t.add(1, 1, SYS_futex, 250 * kUs, 2000 * kUs, 0, {0x7f0000001000, FUTEX_WAIT_PRIVATE, 2});
  uint32_t next = t.add(1, 1, SYS_mkdir, 3000 * kUs, 10 * kUs, 0, {0, 0755}, "/w/p/d");
  std::string trace = write_trace(t, "/w/p");
  ReplayOptions o = options(TimingMode::kThink);
  o.inject_ns[static_cast<size_t>(SyscallClass::kStat)] = 30'000 * kUs;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->lock_waits, 1u);
  auto ops = read_result(r->result_path);
  ASSERT_GE(ops[call].latency, 30'000 * kUs);
  EXPECT_LT(ops[next].start, ops[call].start + ops[call].latency) << "the waiter waited out the holder's call";
}

TEST_F(ReplayTiming, ExactModeNeverIssuesBeforeTheRecordedOffset) {
  Synth t;
  for (int i = 0; i < 5; ++i) t.add(1, 1, SYS_newfstatat, 2'000'000ull * (i + 1), 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options(TimingMode::kExact));
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  const auto ev = read_events(trace);  // the offsets as stored (the writer quantises timings)
  ASSERT_EQ(ev.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_GE(ops[i].start, ev[i].ts - ev[0].ts);  // offsets from the first event
    EXPECT_GE(ops[i].lateness, 0);
  }
}

// A crafted enter time near 2^63 ns (issue 39): think mode slept on it for
// centuries, exact mode too. The reader clamps it to the recording's end
// (footer), so the replay ends within the trace's own span plus a second,
// and says the trace is damaged. Run in a child with a watchdog: a hang
// fails the test instead of stopping the suite.
TEST_F(ReplayTiming, ACraftedTimeNear2To63EndsWithinTheTracesSpanAndIsDamage) {
  constexpr uint64_t kSpan = 300'000'000;  // the recording's end, as its footer says
  Synth t;
  t.add(1, 1, SYS_newfstatat, 1000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 1, SYS_newfstatat, 100'000'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(1, 1, SYS_newfstatat, (1ull << 63) - 4096, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  t.add(2, 2, SYS_newfstatat, 200'000'000, 1000, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  TraceFooter footer;
  footer.end_ns = kSpan;
  const std::string trace = write_trace(t, "/w/p", {}, nullptr, footer);
  for (TimingMode mode : {TimingMode::kThink, TimingMode::kExact}) {
    SCOPED_TRACE(mode == TimingMode::kThink ? "think" : "exact");
    ReplayOptions o = options(mode);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      auto r = run_replay(trace, o);
      uint64_t out[2] = {UINT64_MAX, 0};
      if (r.is_ok()) {
        out[0] = r->wall_ns;
        for (const std::string& p : r->trace_problems) out[1] += p.find("impossible event times") != std::string::npos;
      }
      (void)!write(fds[1], out, sizeof out);
      _exit(0);
    }
    close(fds[1]);
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 600 && !ended; ++i) {  // 60 s: a hang, not a slow machine
      ended = waitpid(child, &status, WNOHANG) == child;
      if (!ended) usleep(100'000);
    }
    if (!ended) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
    }
    uint64_t got[2] = {UINT64_MAX, 0};
    const bool read_ok = read(fds[0], got, sizeof got) == static_cast<ssize_t>(sizeof got);
    close(fds[0]);
    ASSERT_TRUE(ended) << "the replay still ran after 60 s: it sleeps on the crafted time";
    ASSERT_TRUE(read_ok && got[0] != UINT64_MAX) << "the replay failed";
    EXPECT_LT(got[0], kSpan + 1'000'000'000) << "replay wall time past the trace's span plus a second";
    EXPECT_GE(got[0], 150'000'000u) << "the sane gaps are still replayed";
    EXPECT_EQ(got[1], 1u) << "the clamped time is reported as trace damage, once";
  }
}

// The stall report waits for the oldest unfinished op's recorded time (so
// that a long call or gap of the original is not called a stall), but never
// longer than the trace's span: a crafted duration must not silence it.
TEST_F(ReplayTiming, AStallIsReportedWhateverTheOpsRecordedDuration) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 1ull << 62, 0, {kAtCwd, 0, 0, 0}, "/w/p/stuck");  // "recorded" for 146 years
  t.add(1, 1, SYS_newfstatat, 20, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/stuck");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/stuck", PrestateKind::kFile, 1)});
  ReplayOptions o = options();
  o.inject_ns[static_cast<size_t>(SyscallClass::kStat)] = 1'200'000'000;  // each stat "hangs" 1.2 s
  o.stall_warn_s = 0.4;
  std::vector<std::string> stalls;
  o.on_warning = [&](const std::string& w) {
    if (w.find("no op has finished") != std::string::npos) stalls.push_back(w);
  };
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_FALSE(stalls.empty());
  EXPECT_NE(stalls[0].find("op 1 of 2"), std::string::npos)
      << "the op with the crafted duration is named: " << stalls[0];
}

}  // namespace
}  // namespace fsr
