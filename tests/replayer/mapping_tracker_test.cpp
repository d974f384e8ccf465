// SPDX-License-Identifier: Apache-2.0
// The plan's view of the recorded processes' mappings (mapping_tracker.h):
// placement of MAP_FIXED segments, what each munmap takes, when an address
// space ends, and the forecast of how many mappings the replay holds at once.
#include "replayer/plan/mapping_tracker.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <gtest/gtest.h>

#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

std::vector<uint32_t> unmapped_at_end(const Plan& p, uint32_t leaving_op) {
  std::vector<uint32_t> v;
  const uint32_t s = p.ops[leaving_op].space;
  if (s == kNoSpace) return v;
  for (uint32_t k = p.spaces[s].unmap_begin; k != p.spaces[s].unmap_end; ++k) v.push_back(p.maps[p.unmap(k).map].op);
  return v;
}

std::vector<PlanUnmap> taken(const Plan& p, uint32_t munmap_op) {
  return {p.unmaps.begin() + p.ops[munmap_op].unmap_begin, p.unmaps.begin() + p.ops[munmap_op].unmap_end};
}

// A library as glibc's loader maps it: the whole span, then segments MAP_FIXED over it.
uint32_t map_library(Synth& t, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t addr) {
  t.add(pid, tid, SYS_openat, ts, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/lib.so");
  const uint32_t base =
      t.add(pid, tid, SYS_mmap, ts + 10, 5, static_cast<int64_t>(addr), {0, 0x10000, PROT_READ, MAP_PRIVATE, 3, 0});
  t.add(pid, tid, SYS_mmap, ts + 20, 5, static_cast<int64_t>(addr + 0x2000),
        {addr + 0x2000, 0x4000, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, 3, 0x2000});
  t.add(pid, tid, SYS_mmap, ts + 30, 5, static_cast<int64_t>(addr + 0x8000),
        {addr + 0x8000, 0x2000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, 3, 0x8000});
  return base;
}

// Without this the replayer kept every short-lived process's libraries
// mapped (a build runs thousands), until the kernel refused every mmap.
TEST(MappingTracker, AnAddressSpaceEndsAtExecAndAtItsLastExit) {
  Synth t;
  const uint32_t m1 = map_library(t, 1, 1, 10, 0x7000000);
  const uint32_t ex = t.add(1, 1, SYS_execve, 100, 5, 0, {}, "/r/tool");
  const uint32_t m2 = map_library(t, 1, 1, 200, 0x7000000);
  const uint32_t x = t.add(1, 1, kEvProcExit, 300, 0, 0, {0, 1});
  Plan p = t.plan();
  EXPECT_EQ(unmapped_at_end(p, ex), (std::vector<uint32_t>{m1})) << "a segment goes with its base";
  EXPECT_EQ(unmapped_at_end(p, x), (std::vector<uint32_t>{m2}));
  EXPECT_NE(p.ops[ex].space, p.ops[x].space);
  EXPECT_EQ(p.spaces[p.ops[x].space].threads, 1u);
  EXPECT_EQ(p.ops[m2].space, p.ops[x].space);
}

// The replay unmaps a multi-threaded process's mappings once every one of its
// threads has left (the replay may run them in another order than recorded).
TEST(MappingTracker, AMultiThreadedSpaceWaitsForEveryThread) {
  Synth t;
  const uint32_t m = map_library(t, 5, 5, 10, 0x7000000);
  t.add(5, 6, kEvPageFault, 50, 0, 0, {0x1000, 0x7001000}, "/r/lib.so");
  const uint32_t x6 = t.add(5, 6, kEvProcExit, 60, 0, 0, {0, 0});
  const uint32_t x5 = t.add(5, 5, kEvProcExit, 70, 0, 0, {0, 1});
  Plan p = t.plan();
  const uint32_t s = p.ops[m].space;
  EXPECT_EQ(p.spaces[s].threads, 2u);
  EXPECT_EQ(p.ops[x6].space, s);
  EXPECT_EQ(p.ops[x5].space, s);
  EXPECT_EQ(unmapped_at_end(p, x5), (std::vector<uint32_t>{m}));

  // A thread without a recorded end keeps its space alive to the end of the replay.
  Synth u;
  map_library(u, 5, 5, 10, 0x7000000);
  u.add(5, 6, SYS_newfstatat, 25, 5, 0, {kAtCwd, 0, 0, 0}, "/r/lib.so");
  const uint32_t y5 = u.add(5, 5, kEvProcExit, 70, 0, 0, {0, 1});
  Plan q = u.plan();
  EXPECT_EQ(q.spaces[q.ops[y5].space].threads, 2u) << "thread 6 never leaves: the space never ends";
}

// The kernel reports an exec from inside execve: the two records are one exec.
TEST(MappingTracker, TheExecRecordAndTheExecveAreOneExec) {
  Synth t;
  const uint32_t m = map_library(t, 1, 1, 10, 0x7000000);
  const uint32_t pe = t.add(1, 1, kEvProcExec, 100, 1, 0, {}, "/r/tool");
  const uint32_t ev = t.add(1, 1, SYS_execve, 90, 20, 0, {}, "/r/tool");
  const uint32_t m2 = map_library(t, 1, 1, 200, 0x7000000);
  const uint32_t x = t.add(1, 1, kEvProcExit, 300, 0, 0, {0, 1});
  Plan p = t.plan();
  EXPECT_EQ(unmapped_at_end(p, pe), (std::vector<uint32_t>{m}));
  EXPECT_EQ(p.ops[ev].space, kNoSpace) << "the execve after its exec record changes nothing";
  EXPECT_EQ(p.ops[m2].space, p.ops[x].space);
  EXPECT_EQ(unmapped_at_end(p, x), (std::vector<uint32_t>{m2}));
}

// The dynamic loader maps a library whole, then its segments MAP_FIXED over
// that range. The replay places a segment inside its copy of the base (same
// thread only); a fault is in the latest mapping holding its address.
TEST(MappingTracker, FixedSegmentsArePlacedInsideTheirBase) {
  Synth t;
  const uint32_t base = map_library(t, 1, 1, 10, 0x7000000);
  const uint32_t seg = base + 1;
  const uint32_t out =
      t.add(1, 1, SYS_mmap, 45, 5, 0x7010000, {0x7010000, 0x1000, 5, 0x812, 3, 0});  // past the base's end
  const uint32_t other =
      t.add(1, 2, SYS_mmap, 46, 5, 0x700c000, {0x700c000, 0x1000, 5, 0x812, 3, 0});  // another thread
  const uint32_t f1 = t.add(1, 1, kEvPageFault, 50, 0, 0, {0x3000, 0x7003000}, "/r/lib.so");
  const uint32_t f2 = t.add(1, 1, kEvPageFault, 55, 0, 0, {0, 0x7000100}, "/r/lib.so");
  const uint32_t x = t.add(1, 1, kEvProcExit, 60, 0, 0, {0, 1});
  t.add(1, 2, kEvProcExit, 61, 0, 0, {0, 0});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[seg].ref_op, base);
  EXPECT_EQ(p.ops[seg].ref_off, 0x2000u);
  EXPECT_EQ(p.ops[out].ref_op, kNoOp);
  EXPECT_EQ(p.ops[other].ref_op, kNoOp) << "only the thread that mapped the base places in it";
  EXPECT_EQ(p.ops[base].ref_op, kNoOp);
  EXPECT_EQ(p.ops[f1].ref_op, seg) << "the fault is in the segment, the latest mapping there";
  EXPECT_EQ(p.ops[f1].ref_off, 0x1000u);
  EXPECT_EQ(p.ops[f2].ref_op, base);
  EXPECT_EQ(unmapped_at_end(p, x + 1), (std::vector<uint32_t>{base, out, other}));
}

TEST(MappingTracker, AMunmapTakesWholeBasesWithWhatLiesInThemAndPartsOfOthers) {
  Synth t;
  const uint32_t lib = map_library(t, 1, 1, 10, 0x7000000);
  const uint32_t cache = t.add(1, 1, SYS_mmap, 50, 5, 0x7100000, {0, 0x5000, PROT_READ, MAP_PRIVATE, 3, 0});
  // The loader's alignment trim: the head and tail of an over-long mapping.
  const uint32_t head = t.add(1, 1, SYS_munmap, 60, 5, 0, {0x7100000, 0x1000});
  // A whole library at once (dlclose), its length not page-rounded.
  const uint32_t all = t.add(1, 1, SYS_munmap, 70, 5, 0, {0x7000000, 0xf123});
  const uint32_t fault = t.add(1, 1, kEvPageFault, 80, 0, 0, {0x2000, 0x7002000}, "/r/lib.so");
  const uint32_t anon = t.add(1, 1, SYS_munmap, 90, 5, 0, {0x9000000, 0x1000});
  const uint32_t failed = t.add(1, 1, SYS_munmap, 95, 5, -EINVAL, {0x7100001, 0x1000});
  const uint32_t x = t.add(1, 1, kEvProcExit, 100, 0, 0, {0, 1});
  Plan p = t.plan();
  ASSERT_EQ(taken(p, head).size(), 1u);
  EXPECT_EQ(p.maps[taken(p, head)[0].map].op, cache);
  EXPECT_EQ(taken(p, head)[0].whole, 0u);
  EXPECT_EQ(taken(p, head)[0].off, 0u);
  EXPECT_EQ(taken(p, head)[0].len, 0x1000u);
  ASSERT_EQ(taken(p, all).size(), 1u) << "the segments go with their base";
  EXPECT_EQ(p.maps[taken(p, all)[0].map].op, lib);
  EXPECT_EQ(taken(p, all)[0].whole, 1u);
  EXPECT_EQ(p.ops[all].action, OpAction::kIssue);
  EXPECT_EQ(p.ops[fault].action, OpAction::kSkip) << "its mapping is gone";
  EXPECT_EQ(p.ops[anon].action, OpAction::kSkip) << "anonymous memory is not replayed";
  EXPECT_EQ(p.ops[failed].action, OpAction::kSkip) << "a failed munmap changed nothing";
  EXPECT_EQ(unmapped_at_end(p, x), (std::vector<uint32_t>{cache})) << "a trimmed mapping still ends with its space";
}

TEST(MappingTracker, AMunmapOfASegmentOnlyTakesTheSegment) {
  Synth t;
  const uint32_t base = map_library(t, 1, 1, 10, 0x7000000);
  const uint32_t u = t.add(1, 1, SYS_munmap, 60, 5, 0, {0x7002000, 0x4000});
  const uint32_t f = t.add(1, 1, kEvPageFault, 70, 0, 0, {0x3000, 0x7003000}, "/r/lib.so");
  const uint32_t x = t.add(1, 1, kEvProcExit, 100, 0, 0, {0, 1});
  Plan p = t.plan();
  ASSERT_EQ(taken(p, u).size(), 1u);
  EXPECT_EQ(p.maps[taken(p, u)[0].map].op, base + 1);
  EXPECT_EQ(taken(p, u)[0].whole, 1u);
  EXPECT_EQ(p.ops[f].ref_op, base) << "the base's copy is what is left there";
  EXPECT_EQ(unmapped_at_end(p, x), (std::vector<uint32_t>{base}));
}

// What the replay holds at once follows the processes alive at once, not the
// processes seen so far: 200 processes in turn, two at a time.
TEST(MappingTracker, ThePeakFollowsTheProcessesAliveAtOnce) {
  Synth t;
  uint64_t ts = 10;
  for (uint32_t k = 0; k < 100; ++k, ts += 1000) {
    for (uint32_t pid : {100 + 2 * k, 101 + 2 * k}) {
      map_library(t, pid, pid, ts, 0x7000000);
      map_library(t, pid, pid, ts + 40, 0x7100000);
    }
    for (uint32_t pid : {100 + 2 * k, 101 + 2 * k}) t.add(pid, pid, kEvProcExit, ts + 500, 0, 0, {0, 1});
  }
  Plan p = t.plan();
  EXPECT_EQ(p.peak_spaces, 2u);
  EXPECT_EQ(p.peak_mappings, 2u * 2 * (1 + 2 + 2)) << "per library: the base split twice per segment, at most";
  EXPECT_EQ(p.spaces.size(), 200u);
}

// A tid reused after its thread exited starts in the space of its new process.
TEST(MappingTracker, AReusedTidJoinsItsNewProcess) {
  Synth t;
  t.add(7, 7, kEvProcExit, 5, 0, 0, {0, 1});
  const uint32_t m = map_library(t, 7, 7, 10, 0x7000000);
  const uint32_t x = t.add(7, 7, kEvProcExit, 100, 0, 0, {0, 1});
  Plan p = t.plan();
  EXPECT_EQ(unmapped_at_end(p, x), (std::vector<uint32_t>{m}));
  EXPECT_EQ(p.spaces.size(), 2u);
}

}  // namespace
}  // namespace fsr
