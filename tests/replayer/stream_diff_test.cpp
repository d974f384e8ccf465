// SPDX-License-Identifier: Apache-2.0
// The streaming planner against the batch planner (stream_diff.h): the same
// traces planned with a window smaller than the trace and with one that
// holds it all must give the same ops.
#include <algorithm>
#include <fcntl.h>
#include <linux/sched.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include <gtest/gtest.h>

#include "tests/replayer/build_shaped.h"
#include "tests/replayer/stream_diff.h"
#include "traces/synthetic/synthetic.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

using test::build_shaped;
using test::kAtCwd;
using test::Synth;

constexpr uint64_t kSmall = 1024;  // the stream's window in these tests

void expect_same(const Synth& t, uint64_t window, const char* what, uint64_t* window_edges = nullptr,
                 const PlanInputs& in = test::synth_inputs("/w/p")) {
  const Plan b = build_plan(t.ev, t.lookup(), in);
  const test::Streamed s = test::stream_plan(t, in, window, window / 4);
  const test::DiffResult d = test::diff_plans(b, s, window, window / 4);
  EXPECT_EQ(d.mismatched_ops, 0u) << what << " (" << t.ev.size() << " events, window " << window
                                  << "): " << d.summary();
  EXPECT_FALSE(s.stuck) << what;
  // An edge the batch drops (against the keys' order) may point a window back
  // in the stream, where it is satisfied before its keys are compared.
  EXPECT_LE(s.dropped_edges, b.dropped_edges) << what;
  if (window_edges) *window_edges = d.window_edges;
  EXPECT_EQ(s.approx_deps, b.approx_deps) << what;
  EXPECT_EQ(s.lock_waits, b.lock_waits) << what;
  std::cerr << what << ": " << t.ev.size() << " events, window " << window << ": " << d.window_edges
            << " edges a window back (satisfied), " << d.window_causal << " waits exact only streamed, " << d.late_reaps
            << " exits reaped beyond the lookahead, " << d.implied_edges << " implied by program order, approx "
            << s.approx_deps << " (at once " << b.approx_deps << "), beyond the lookahead " << s.beyond_window
            << ", dropped " << s.dropped_edges << " (at once " << b.dropped_edges << ")\n";
}

// A process opens a file at the start and uses it at the end; another
// stats a file all along, removed by the first at the end.
Synth spanning(uint32_t n) {
  Synth t;
  uint64_t ts = 1000;
  t.add(1, 1, SYS_openat, ts, 5, 3, {kAtCwd, 0, O_WRONLY | O_CREAT}, "/w/p/made");
  t.add(1, 1, SYS_close, ts += 10, 2, 0, {3});
  for (uint32_t k = 0; k < n; ++k) {
    ts += 10;
    if (k == n / 2)
      t.add(2, 2, SYS_unlink, ts, 5, 0, {0}, "/w/p/src/a.c");
    else if (k % 2)
      t.add(2, 2, SYS_newfstatat, ts, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/made");
    else
      t.add(2, 2, SYS_newfstatat, ts, 5, k < n / 2 ? 0 : -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/src/a.c");
  }
  t.add(1, 1, SYS_unlink, ts += 10, 5, 0, {0}, "/w/p/made");
  t.add(2, 2, kEvProcExit, ts += 10, 0, 0, {0, 0});
  t.add(1, 1, kEvProcExit, ts += 10, 0, 0, {0, 0});
  return t;
}

// traces/synthetic's build-shaped stream (the scale bench's), as a Synth.
Synth build_like(uint64_t events) {
  Synth t;
  BuildLikeStream g(2000, 7);
  while (t.ev.size() < events) {
    g.step(t.ev);
    for (const std::string& n : g.new_paths()) t.strs.push_back(n);
  }
  return t;
}

TEST(StreamDiff, AWindowSpanningTracePlansAsAtOnce) {
  Synth t = spanning(20'000);
  uint64_t window_edges = 0;
  expect_same(t, kSmall, "spanning", &window_edges);
}

TEST(StreamDiff, ABuildShapedTracePlansAsAtOnce) {
  for (uint64_t seed : {1, 2, 3}) {
    Synth t = build_shaped(400, seed);
    ASSERT_GT(t.ev.size(), 8 * kSmall);
    expect_same(t, kSmall, "build-shaped");
    expect_same(t, 4 * kSmall, "build-shaped, a larger window");
  }
}

TEST(StreamDiff, TheScaleBenchTracePlansAsAtOnce) {
  Synth t = build_like(40'000);
  expect_same(t, kSmall, "build-like");
}

// Each recorded thread's first op is marked as such (think mode times it
// from its creator) and starts with the gap after its creator, at once and
// streamed; the survey's counts do not leak into the replay pass.
TEST(StreamDiff, EveryThreadsFirstOpIsMarked) {
  Synth t = build_shaped(60, 4);
  const PlanInputs in = test::synth_inputs("/w/p");
  const Plan b = build_plan(t.ev, t.lookup(), in);
  const test::Streamed s = test::stream_plan(t, in, kSmall, kSmall / 4);
  std::vector<bool> seen(b.threads.size(), false);
  uint64_t firsts = 0;
  for (uint64_t i = 0; i < b.size; ++i) {
    const uint32_t th = b.op(i).thread;
    const bool first = !seen[th];
    seen[th] = true;
    firsts += first;
    EXPECT_EQ((b.op(i).flags & kPfFirstOfThread) != 0, first) << "op " << i << " at once";
    ASSERT_LT(i, s.ops.size());
    EXPECT_EQ((s.ops[i].flags & kPfFirstOfThread) != 0, first) << "op " << i << " streamed";
    if (first && b.threads[th].creator != kNoOp) {
      const Event& c = b.event(b.threads[th].creator);
      EXPECT_EQ(b.op(i).gap, b.event(i).ts > c.ts + c.dur ? b.event(i).ts - c.ts - c.dur : 0) << "op " << i;
    }
  }
  EXPECT_EQ(firsts, b.threads.size());
  EXPECT_GT(firsts, 60u);
}

// Waits whose wakers the stream must still find when it finalizes them, a
// lookahead after planning them (and the batch plan at the trace's end):
// thousands of wakes on one futex, a wait4 whose child's last event lies
// most of a window back, and a pipe read long after the writes that fed it.
Synth late_wakers() {
  Synth t;
  uint64_t ts = 1'000'000;
  t.add(10, 10, SYS_clone, ts += 1000, 5000, 11, {0x3d0f00});
  t.add(50, 50, SYS_pipe2, ts += 1000, 800, 0, {3ull | 4ull << 32, 0});
  for (int k = 0; k < 4; ++k) t.add(50, 50, SYS_write, ts += 1000, 900, 1, {4, 0, 1});
  t.add(50, 50, SYS_clone, ts += 1000, 5000, 51, {0x3d0f00});
  for (int k = 0; k < 3000; ++k) {  // thread 11 waits, thread 10 wakes it
    const uint64_t wait = ts += 1000;
    t.add(10, 10, SYS_futex, wait + 300, 200, 1, {0x7f0000002000, 1, 1});
    t.add(10, 11, SYS_futex, wait, 700, 0, {0x7f0000002000, 0, 0});
  }
  for (uint32_t c = 0; c < 5; ++c) {  // a child exits; 900 events later its parent reaps it
    const uint32_t pid = 200 + c;
    t.add(30, 30, SYS_clone, ts += 1000, 5000, pid, {17});
    t.add(pid, pid, SYS_newfstatat, ts += 1000, 900, 0, {kAtCwd, 0, 0, 0}, "/w/p/src/a.c");
    t.add(pid, pid, kEvProcExit, ts += 1000, 0, 0, {0, 0});
    for (int k = 0; k < 900; ++k) t.add(40, 40, SYS_newfstatat, ts += 1000, 900, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/x");
    t.add(30, 30, SYS_wait4, ts += 1000, 2000, pid, {static_cast<uint64_t>(-1)});
  }
  for (int k = 0; k < 4; ++k) t.add(50, 51, SYS_read, ts += 1000, 900, 1, {3, 0, 1});  // the bytes written at the start
  return t;
}

TEST(StreamDiff, WaitsFinalizedLateFindTheirWakers) {
  Synth t = late_wakers();
  expect_same(t, kSmall, "late wakers");
  const Plan b = build_plan(t.ev, t.lookup(), test::synth_inputs("/w/p"));
  EXPECT_EQ(b.approx_deps, 0u) << "every wait has its recorded waker";
  EXPECT_EQ(b.exact_causal, 3000u + 5u + 4u);
}

// npm's mkdir -p, over and over on three threads (deps_test.cpp has it
// once): thread 3's mkdir(d/x) fails with ENOENT, then threads 1 and 2 mkdir
// d at once and the loser (EEXIST) returns first. The loser must follow the
// maker: an edge the results turn around, into an op that returned earlier.
Synth mkdir_races(uint32_t rounds, uint64_t maker_dur) {
  Synth t;
  const uint64_t kThread = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;
  t.add(1, 1, SYS_clone, 0, 1, 2, {kThread});
  t.add(1, 1, SYS_clone, 1, 1, 3, {kThread});
  uint64_t ts = 1000;
  for (uint32_t r = 0; r < rounds; ++r, ts += maker_dur + 10'000) {
    const std::string d = "/w/p/node_modules/m" + std::to_string(r);
    t.add(1, 3, SYS_mkdir, ts, 10, -ENOENT, {0, 0755}, d + "/x");
    t.add(1, 2, SYS_mkdir, ts + 300, 500, -EEXIST, {0, 0755}, d);
    // Stats by thread 3 while the maker is in the kernel (ops in between in
    // the trace, which is in completion order).
    for (uint64_t k = 0; k < maker_dur / 1000; ++k)
      t.add(1, 3, SYS_newfstatat, ts + 900 + k * 1000, 100, -ENOENT, {kAtCwd}, "/w/p/f" + std::to_string(k));
    t.add(1, 1, SYS_mkdir, ts + 100, maker_dur, 0, {0, 0755}, d);
  }
  return t;
}

TEST(StreamDiff, OverlappingCallsTheResultsTurnAroundPlanAsAtOnce) {
  Synth t = mkdir_races(3000, 4000);
  expect_same(t, kSmall, "mkdir races");
  const Plan b = build_plan(t.ev, t.lookup(), test::synth_inputs("/w/p"));
  EXPECT_EQ(b.moved_edges, 3000u) << "each loser follows its maker";
  EXPECT_EQ(b.moves_beyond_window, 0u);
  const test::Streamed s = test::stream_plan(t, test::synth_inputs("/w/p"), kSmall, kSmall / 4);
  EXPECT_EQ(s.moved_edges, 3000u);
  EXPECT_EQ(s.moves_beyond_window, 0u);
}

// A maker that returns more than the lookahead after the loser: the loser's
// plan was published by then, and the stream counts the order it lost.
TEST(StreamDiff, AnEdgeTurnedAroundBeyondTheLookaheadIsCounted) {
  Synth t = mkdir_races(1, 500 * 1000);  // 500 ops between them: past the lookahead, within the window
  const test::Streamed s = test::stream_plan(t, test::synth_inputs("/w/p"), kSmall, kSmall / 4);
  EXPECT_EQ(s.moved_edges, 0u);
  EXPECT_EQ(s.moves_beyond_window, 1u);
  const Plan b = build_plan(t.ev, t.lookup(), test::synth_inputs("/w/p"));
  EXPECT_EQ(b.moved_edges, 1u) << "at once, the whole trace is the lookahead";
}

// A recorded trace (FSR_STREAM_DIFF_TRACE=path; none is in the repository:
// recordings come from dev/workloads/run-workload.sh).
TEST(StreamDiff, ARecordedTracePlansAsAtOnce) {
  const char* path = getenv("FSR_STREAM_DIFF_TRACE");
  if (!path) GTEST_SKIP() << "set FSR_STREAM_DIFF_TRACE to a recorded trace to compare its plans";
  auto rd = TraceReader::open(path);
  ASSERT_TRUE(rd.is_ok()) << rd.message();
  TraceReader& r = *rd.value();
  Synth t;
  std::vector<Event> chunk;
  while (true) {
    auto more = r.next(chunk);
    ASSERT_TRUE(more.is_ok()) << more.message();
    if (!more.value()) break;
    t.ev.insert(t.ev.end(), chunk.begin(), chunk.end());
  }
  StrId top = 0;
  for (const Event& e : t.ev)
    for (StrId p : e.path)
      if (p != kNoStr) top = std::max(top, p);
  t.strs.assign(top + 1, "");
  for (StrId id = 1; id <= top; ++id) t.strs[id] = std::string(r.str(id));
  PlanInputs in = test::synth_inputs(r.header().root.empty() ? "/" : r.header().root);
  in.initial = r.header().initial;
  const uint64_t w =
      getenv("FSR_STREAM_DIFF_WINDOW") ? strtoull(getenv("FSR_STREAM_DIFF_WINDOW"), nullptr, 10) : kSmall;
  expect_same(t, w, path, nullptr, in);
}

// The harness itself: a batch plan compared with itself agrees, and one
// changed op is found.
TEST(StreamDiff, TheHarnessFindsAChangedOp) {
  Synth t = build_shaped(20, 9);
  const PlanInputs in = test::synth_inputs("/w/p");
  const Plan b = build_plan(t.ev, t.lookup(), in);
  uint64_t w = 16;
  while (w < t.ev.size() + 1) w <<= 1;
  test::Streamed s = test::stream_plan(t, in, w, w);
  EXPECT_EQ(test::diff_plans(b, s, w, w).mismatched_ops, 0u);
  ASSERT_GT(s.ops.size(), 40u);
  s.ops[40].path[0] += "x";
  EXPECT_EQ(test::diff_plans(b, s, w, w).mismatched_ops, 1u);
}

}  // namespace
}  // namespace fsr
