// SPDX-License-Identifier: Apache-2.0
#include "report/critical_path.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "tests/report/test_results.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

using testdata::SimOp;
using testdata::SimWorkload;

size_t cls(SyscallClass c) { return static_cast<size_t>(c); }
uint16_t nr(const char* name) { return *syscall_from_name(name); }

TEST(CriticalPath, SingleWorkerChainIsLatencyPlusGaps) {
  SimWorkload w;
  w.ops = {{0, 1, nr("newfstatat"), 1000, 0, {}, "/a"},
           {0, 1, nr("openat"), 2000, 500, {}, "/a"},
           {0, 1, nr("read"), 3000, 0, {}, ""}};
  ResultSet rs = testdata::simulate(
      w, [](const SimOp& o) { return o.latency; }, /*overhead=*/10,
      /*teardown=*/100);
  PathAttribution pa = critical_path(rs.ops, rs.wall_ns());
  EXPECT_EQ(pa.wall_ns, 6000u + 500 + 3 * 10 + 100);
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kStat)], 1000u);
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kOpen)], 2000u);
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kRead)], 3000u);
  EXPECT_EQ(pa.compute_ns, 500u);
  EXPECT_EQ(pa.unexplained_ns, 30u + 100);
  EXPECT_EQ(pa.total(), pa.wall_ns);
  EXPECT_EQ(pa.path, (std::vector<size_t>{2, 1, 0}));
}

TEST(CriticalPath, FollowsTheDependencyThatReleasedTheOp) {
  // Worker 1 does a long write; worker 0's stat waits for it. The path must
  // run through the write (worker 1), not through worker 0's short open.
  SimWorkload w;
  w.ops = {{0, 1, nr("openat"), 1000, 0, {}, "/a"},
           {1, 2, nr("write"), 50000, 0, {}, "/b"},
           {0, 1, nr("newfstatat"), 2000, 300, {1}, "/b"}};
  ResultSet rs = testdata::simulate(
      w, [](const SimOp& o) { return o.latency; }, 0, 0);
  ASSERT_GT(rs.ops[2].dep_wait, 0u);
  ASSERT_EQ(rs.ops[2].waited_on, 2u);
  PathAttribution pa = critical_path(rs.ops, rs.wall_ns());
  EXPECT_EQ(pa.path, (std::vector<size_t>{2, 1}));
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kWrite)], 50000u);
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kStat)], 2000u);
  EXPECT_EQ(pa.class_ns[cls(SyscallClass::kOpen)], 0u);
  EXPECT_EQ(pa.compute_ns, 0u);  // the gap was hidden behind the dependency
  EXPECT_EQ(pa.total(), pa.wall_ns);
}

TEST(CriticalPath, AThreadsStartUpGapAfterItsCreatorIsComputeOnThePath) {
  // Worker 0's clone makes a thread; its first op (worker 1) waits for the
  // clone, then sleeps the recorded start-up gap (5 us) before its call: that
  // gap is the original's start-up compute, on the path, not residue.
  std::vector<OpRecord> ops(2);
  ops[0].event_index = 0, ops[0].start = 0, ops[0].latency = 1000, ops[0].nr = nr("clone");
  ops[1].event_index = 1, ops[1].start = 6000, ops[1].latency = 2000, ops[1].worker = 1;
  ops[1].nr = nr("newfstatat"), ops[1].dep_wait = 1000, ops[1].gap = 5000, ops[1].waited_on = 1;
  ops[1].flags = static_cast<uint16_t>(static_cast<unsigned>(DepKind::kThreadStart) << kOfDepKindShift);
  PathAttribution pa = critical_path(ops, 8000);
  EXPECT_EQ(pa.path, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(pa.compute_ns, 5000u);
  EXPECT_EQ(pa.unexplained_ns, 0u);
  EXPECT_EQ(pa.total(), pa.wall_ns);
  // Released by any other kind of dependency, the gap was slept before the
  // wait and hidden behind it: the time after the dependency is residue.
  ops[1].flags = static_cast<uint16_t>(static_cast<unsigned>(DepKind::kPath) << kOfDepKindShift);
  pa = critical_path(ops, 8000);
  EXPECT_EQ(pa.compute_ns, 0u);
  EXPECT_EQ(pa.unexplained_ns, 5000u);
}

TEST(CriticalPath, MissingDependencyFallsBackToWorkerOrder) {
  SimWorkload w;
  w.ops = {{0, 1, nr("openat"), 1000, 0, {}, "/a"}, {0, 1, nr("read"), 1000, 0, {}, ""}};
  ResultSet rs = testdata::simulate(
      w, [](const SimOp& o) { return o.latency; }, 0, 0);
  rs.ops[1].dep_wait = 5;
  rs.ops[1].waited_on = 999;  // not in this result
  PathAttribution pa = critical_path(rs.ops, rs.wall_ns());
  EXPECT_EQ(pa.path, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(pa.total(), pa.wall_ns);
}

TEST(CriticalPath, EmptyResultIsAllUnexplained) {
  PathAttribution pa = critical_path({}, 12345);
  EXPECT_EQ(pa.unexplained_ns, 12345u);
  EXPECT_EQ(pa.total(), 12345u);
}

TEST(CriticalPath, PartsAlwaysAddUpToWallEvenOnInconsistentInput) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<OpRecord> ops(1 + rng() % 40);
    for (size_t i = 0; i < ops.size(); ++i) {
      OpRecord& o = ops[i];
      o.event_index = i;
      o.start = rng() % 100000;
      o.latency = rng() % 20000;
      o.gap = rng() % 5000;
      o.dep_wait = rng() % 3 ? 0 : rng() % 1000;
      o.waited_on = rng() % (ops.size() + 2);  // may point anywhere, even at itself
      o.worker = rng() % 3;
      o.nr = static_cast<uint16_t>(rng() % 330);
    }
    const uint64_t wall = rng() % 150000;
    PathAttribution pa = critical_path(ops, wall);
    ASSERT_EQ(pa.total(), pa.wall_ns) << "round " << round;
    ASSERT_GE(pa.wall_ns, wall);
  }
}

// The backward walk the one-pass builder replaced, kept as the oracle: from
// the op that ended last, back through the worker's previous op (by start) or
// the dependency that released the op, whichever ended later.
PathAttribution backward_walk(const std::vector<OpRecord>& ops, uint64_t wall_ns) {
  PathAttribution pa;
  constexpr size_t kNone = SIZE_MAX;
  size_t last = kNone;
  uint64_t last_end = 0;
  for (size_t i = 0; i < ops.size(); ++i)
    if (last == kNone || ops[i].start + ops[i].latency > last_end) last = i, last_end = ops[i].start + ops[i].latency;
  pa.wall_ns = std::max(wall_ns, last_end);
  std::map<uint32_t, std::vector<size_t>> by_worker;
  for (size_t i = 0; i < ops.size(); ++i) by_worker[ops[i].worker].push_back(i);
  std::vector<size_t> prev(ops.size(), kNone);
  for (auto& [w, idx] : by_worker) {
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return ops[a].start < ops[b].start; });
    for (size_t k = 1; k < idx.size(); ++k) prev[idx[k]] = idx[k - 1];
  }
  uint64_t cursor = last_end;
  pa.unexplained_ns = pa.wall_ns - last_end;
  for (size_t cur = last; cur != kNone;) {
    ++pa.path_ops;
    const OpRecord& op = ops[cur];
    const uint64_t start = std::min(op.start, cursor);
    pa.class_ns[cls(class_of(op.nr))] += cursor - start;
    cursor = start;
    size_t pred = prev[cur];
    bool via_dep = false;
    if (op.dep_wait > 0 && op.waited_on > 0) {
      const size_t dep = op.waited_on - 1;  // event index == position here
      const uint64_t prog_end = pred == kNone ? 0 : ops[pred].start + ops[pred].latency + op.gap;
      if (pred == kNone || ops[dep].start + ops[dep].latency > prog_end) pred = dep, via_dep = true;
    }
    const uint64_t pred_end = pred == kNone ? 0 : std::min(ops[pred].start + ops[pred].latency, cursor);
    const uint64_t think = via_dep ? 0 : std::min(op.gap, cursor - pred_end);
    pa.compute_ns += think;
    pa.unexplained_ns += cursor - pred_end - think;
    cursor = pred_end;
    cur = pred;
  }
  pa.unexplained_ns += cursor;
  return pa;
}

// On replays as the replayer makes them (each op after its worker's previous
// one and after what it waited on), the one pass gives the walk's figures.
TEST(CriticalPath, OnePassEqualsTheBackwardWalk) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    SimWorkload w;
    const size_t n = 1 + rng() % 200;
    const uint32_t workers = 1 + static_cast<uint32_t>(rng() % 6);
    const uint16_t kinds[] = {nr("newfstatat"), nr("openat"), nr("read"), nr("write"), nr("wait4")};
    for (size_t i = 0; i < n; ++i) {
      SimOp op{static_cast<uint32_t>(rng() % workers),
               1,
               kinds[rng() % 5],
               rng() % 30000,
               rng() % 3 ? 0 : rng() % 20000,
               {},
               ""};
      for (int d = 0; i > 0 && d < 2; ++d)
        if (rng() % 3 == 0) op.deps.push_back(rng() % i);
      w.ops.push_back(op);
    }
    ResultSet rs = testdata::simulate(
        w, [](const SimOp& o) { return o.latency; }, rng() % 200, rng() % 5000);
    PathAttribution want = backward_walk(rs.ops, rs.wall_ns());
    PathAttribution got = critical_path(rs.ops, rs.wall_ns());
    ASSERT_EQ(got.class_ns, want.class_ns) << "round " << round;
    ASSERT_EQ(got.compute_ns, want.compute_ns) << "round " << round;
    ASSERT_EQ(got.unexplained_ns, want.unexplained_ns) << "round " << round;
    ASSERT_EQ(got.wall_ns, want.wall_ns) << "round " << round;
    ASSERT_EQ(got.path_ops, want.path_ops) << "round " << round;
    ASSERT_EQ(got.path.size(), got.path_ops);
  }
}

// A worker's first op that waited on an op the window no longer holds: its
// wait is unexplained time, and the builder says so; the parts still tile.
TEST(CriticalPath, AWaitOlderThanTheWindowIsCounted) {
  SimWorkload w;
  w.ops.push_back({1, 2, nr("write"), 900000, 0, {}, ""});  // long, on worker 1
  for (int i = 0; i < 20; ++i) w.ops.push_back({0, 1, nr("newfstatat"), 1000, 0, {}, ""});
  w.ops.push_back({2, 3, nr("read"), 1000, 0, {0}, ""});  // worker 2's first: waits for the write, 21 events later
  ResultSet rs = testdata::simulate(
      w, [](const SimOp& o) { return o.latency; }, 0, 0);
  ASSERT_GT(rs.ops.back().dep_wait, 0u);
  CriticalPathBuilder wide, narrow(false, 8);
  for (size_t i = 0; i < rs.ops.size(); ++i) wide.add(rs.ops[i], i), narrow.add(rs.ops[i], i);
  PathAttribution a = wide.finish(rs.wall_ns()), b = narrow.finish(rs.wall_ns());
  EXPECT_EQ(a.window_misses, 0u);
  EXPECT_EQ(a.class_ns[cls(SyscallClass::kWrite)], 900000u);
  EXPECT_EQ(b.window_misses, 1u);
  EXPECT_EQ(b.class_ns[cls(SyscallClass::kWrite)], 0u);
  EXPECT_EQ(b.total(), b.wall_ns);
}

TEST(SplitWall, DeltasAddUpToWallDifference) {
  ResultSet base = testdata::small_result(false), slow = testdata::small_result(true);
  PathAttribution b = critical_path(base.ops, base.wall_ns());
  PathAttribution t = critical_path(slow.ops, slow.wall_ns());
  WallSplit s = split_wall(t, b);
  int64_t sum = s.compute_delta + s.unexplained_delta;
  for (int64_t d : s.class_delta) sum += d;
  EXPECT_EQ(sum, s.wall_delta);
  EXPECT_EQ(s.wall_delta, int64_t(slow.wall_ns()) - int64_t(base.wall_ns()));
  EXPECT_GT(s.class_delta[cls(SyscallClass::kStat)], 0);
}

// Parts near 2^64 ns (a hostile trace's durations; the replay fuzzer's
// find): the differences are exact where they fit and saturate where they
// do not, instead of overflowing (UBSan-clean).
TEST(CriticalPath, SplitOfPartsNear2To64Saturates) {
  PathAttribution t, b;
  t.unexplained_ns = 9223372036854774272ull;  // the fuzzer's values
  b.unexplained_ns = static_cast<uint64_t>(-9223372036853601752ll);
  t.wall_ns = 5;
  b.wall_ns = UINT64_MAX;
  t.compute_ns = UINT64_MAX;
  b.compute_ns = 0;
  t.class_ns[0] = 7;
  b.class_ns[0] = 3;
  WallSplit s = split_wall(t, b);
  EXPECT_EQ(s.unexplained_delta, -1175592) << "exact where the difference fits (the signed casts overflowed)";
  EXPECT_EQ(s.wall_delta, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(s.compute_delta, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(s.class_delta[0], 4);
}

// A build-shaped workload: a driver worker starts stages of parallel jobs;
// every job of a stage waits for the previous stage's jobs to end (a barrier
// through the driver). Jobs mix stat, open, read, readdir, write, close with
// think time, so every class is on the critical path.
SimWorkload build_workload(uint32_t stages, uint32_t jobs, uint32_t ops_per_job) {
  SimWorkload w;
  w.header.root = "/w";
  const uint16_t mix[] = {nr("newfstatat"), nr("openat"), nr("read"),       nr("getdents64"),
                          nr("write"),      nr("close"),  nr("newfstatat"), nr("lstat")};
  std::mt19937 rng(1234);
  std::vector<uint64_t> barrier;
  for (uint32_t s = 0; s < stages; ++s) {
    w.ops.push_back({0, 1, nr("wait4"), 20000, 1000, barrier, ""});
    const uint64_t spawn = w.ops.size() - 1;
    barrier.clear();
    for (uint32_t j = 0; j < jobs; ++j) {
      const uint32_t worker = 1 + j, pid = 100 + s * jobs + j;
      for (uint32_t k = 0; k < ops_per_job; ++k) {
        const uint16_t n = mix[rng() % std::size(mix)];
        const uint64_t lat = 2000 + rng() % 30000;
        const uint64_t gap = rng() % 4 == 0 ? rng() % 20000 : 0;
        std::vector<uint64_t> deps;
        if (k == 0) deps.push_back(spawn);
        w.ops.push_back({worker, pid, n, lat, gap, deps, "/w/src/f" + std::to_string(k % 7)});
      }
      barrier.push_back(w.ops.size() - 1);
    }
  }
  w.ops.push_back({0, 1, nr("wait4"), 20000, 0, barrier, ""});
  return w;
}

class AttributionAccuracy : public ::testing::TestWithParam<SyscallClass> {};

TEST_P(AttributionAccuracy, SlowedClassGetsAtLeast95PercentOfWallSlowdown) {
  const SyscallClass slowed = GetParam();
  SimWorkload w = build_workload(/*stages=*/6, /*jobs=*/4, /*ops_per_job=*/60);
  auto base_lat = [](const SimOp& o) { return o.latency; };
  auto slow_lat = [slowed](const SimOp& o) {
    return class_of(o.nr) == slowed ? o.latency + 150000 : o.latency;  // +150 us per call
  };
  ResultSet base = testdata::simulate(w, base_lat);
  ResultSet slow = testdata::simulate(w, slow_lat);
  PathAttribution b = critical_path(base.ops, base.wall_ns());
  PathAttribution t = critical_path(slow.ops, slow.wall_ns());
  WallSplit s = split_wall(t, b);
  ASSERT_GT(s.wall_delta, 0);
  const double share = double(s.class_delta[static_cast<size_t>(slowed)]) / double(s.wall_delta);
  EXPECT_GE(share, 0.95) << class_name(slowed) << ": wall +" << s.wall_delta << " ns, class +"
                         << s.class_delta[static_cast<size_t>(slowed)] << " ns";
  // Above 1 only when the slower path carries less of the other classes than
  // the baseline's path did (they show as small negative deltas).
  EXPECT_LE(share, 1.15);
  for (size_t c = 0; c < s.class_delta.size(); ++c)
    if (c != static_cast<size_t>(slowed)) {
      EXPECT_LE(std::abs(double(s.class_delta[c])) / double(s.wall_delta), 0.1)
          << class_name(static_cast<SyscallClass>(c));
    }
}

INSTANTIATE_TEST_SUITE_P(Classes, AttributionAccuracy,
                         ::testing::Values(SyscallClass::kStat, SyscallClass::kOpen, SyscallClass::kReaddir,
                                           SyscallClass::kWrite),
                         [](const auto& info) { return std::string(class_name(info.param)); });

}  // namespace
}  // namespace fsr
