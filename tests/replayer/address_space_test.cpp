// SPDX-License-Identifier: Apache-2.0
// The replay's mappings (address_space.h) over many short-lived processes,
// as a build has them: the live mapping count must come back to where it
// started after each process, and nothing may diverge.
#include "replayer/exec/address_space.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "replayer/engine/engine.h"
#include "replayer/exec/executor.h"
#include "tests/replayer/replay_fixture.h"
#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

constexpr uint64_t kLibPages = 8;
constexpr int kLibs = 4;

// One compiler-like process: exec, the loader cache, four libraries mapped as
// glibc's loader maps them (whole, then two segments MAP_FIXED over it), some
// pages touched, the cache unmapped, exit. Its parent forks it and waits.
void add_process(Synth& t, uint32_t pid, uint64_t& ts) {
  const uint64_t base = 0x7f0000000000ull;
  t.add(1, 1, SYS_clone, ts, 10, pid, {SIGCHLD});
  ts += 100;
  t.add(pid, pid, kEvProcExec, ts, 10, 0, {}, "/w/p/bin/cc1");
  t.add(pid, pid, SYS_openat, ts + 10, 5, 3, {kAtCwd, 0, O_RDONLY | O_CLOEXEC}, "/w/p/ld.so.cache");
  t.add(pid, pid, SYS_mmap, ts + 20, 5, static_cast<int64_t>(base), {0, 4096, PROT_READ, MAP_PRIVATE, 3, 0});
  t.add(pid, pid, SYS_close, ts + 30, 5, 0, {3});
  for (int l = 0; l < kLibs; ++l) {
    const uint64_t at = base + 0x100000 * (l + 1);
    const std::string lib = "/w/p/lib/lib" + std::to_string(l) + ".so";
    ts += 100;
    t.add(pid, pid, SYS_openat, ts, 5, 3, {kAtCwd, 0, O_RDONLY | O_CLOEXEC}, lib);
    t.add(pid, pid, SYS_mmap, ts + 10, 5, static_cast<int64_t>(at),
          {0, kLibPages * 4096, PROT_READ, MAP_PRIVATE, 3, 0});
    t.add(pid, pid, SYS_mmap, ts + 20, 5, static_cast<int64_t>(at + 0x2000),
          {at + 0x2000, 0x3000, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, 3, 0x2000});
    t.add(pid, pid, SYS_mmap, ts + 30, 5, static_cast<int64_t>(at + 0x6000),
          {at + 0x6000, 0x1000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, 3, 0x6000});
    t.add(pid, pid, SYS_close, ts + 40, 5, 0, {3});
    t.add(pid, pid, kEvPageFault, ts + 50, 0, 0, {0x3000, at + 0x3000}, lib);
    t.add(pid, pid, kEvPageFault, ts + 60, 0, 0, {0x6000, at + 0x6010}, lib);
  }
  ts += 100;
  t.add(pid, pid, SYS_munmap, ts, 5, 0, {base, 4096});
  t.add(pid, pid, kEvProcExit, ts + 10, 0, 0, {0, 1});
  t.add(1, 1, SYS_wait4, ts - 200, 220, pid, {static_cast<uint64_t>(-1), 0, 0, 0});
  ts += 100;
}

class AddressSpaces : public test::ReplayDirs {
 protected:
  void make_files() {
    ASSERT_EQ(mkdir((target + "/lib").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((target + "/bin").c_str(), 0755), 0);
    test::write_file(target + "/ld.so.cache", std::string(4096, 'c'));
    test::write_file(target + "/bin/cc1", "#!");
    for (int l = 0; l < kLibs; ++l)
      test::write_file(target + "/lib/lib" + std::to_string(l) + ".so", std::string(kLibPages * 4096, 'l'));
  }
};

// 5,000 processes, one after another: after each one's exec and exit the replay holds
// exactly what it held before it (its count, and the kernel's), and no mmap,
// munmap or page touch diverges or is skipped.
TEST_F(AddressSpaces, FiveThousandShortProcessesLeaveNothingMapped) {
  make_files();
  Synth t;
  uint64_t ts = 1000;
  constexpr uint32_t kProcesses = 5000;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  for (uint32_t k = 0; k < kProcesses; ++k) add_process(t, 100 + k, ts);
  PlanInputs in;
  in.recorded_root = "/w/p";
  in.target_dir = target;
  in.scratch_dir = scratch;
  in.initial.cwd = "/w/p";
  in.initial.pid = 1;
  Plan plan = build_plan(t.ev, t.lookup(), in);
  EXPECT_EQ(plan.peak_spaces, 1u) << "the forecast: one process at a time";
  EXPECT_EQ(plan.peak_mappings, 1u + kLibs * (1 + 2 * 2));

  ExecEnv env;
  env.root[0] = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  env.root[1] = open(scratch.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Features feat = Features::probe(env.root[0], {});
  env.features = &feat;
  env.plan = &plan;
  init_exec_env(env);
  struct End {
    int64_t live;
    uint64_t kernel;
  };
  std::vector<End> ends;
  ends.reserve(kProcesses);
  env.maps.on_space_end = [&](uint32_t, int64_t live) { ends.push_back({live, own_mapping_count()}); };
  auto r = run_engine(plan, env, TimingMode::kAfap, nullptr);
  const MappingStats st = env.maps.stats();
  release_all(env);
  close(env.root[0]);
  close(env.root[1]);
  ASSERT_TRUE(r.is_ok()) << r.message();

  ASSERT_EQ(ends.size(), 2 * kProcesses) << "each process: the forked copy ends at its exec, the new image at its exit";
  size_t kernel_moved = 0;
  for (size_t k = 0; k < ends.size(); ++k) {
    ASSERT_EQ(ends[k].live, 0) << "process " << k << " left mappings behind";
    // The kernel's count: the replayer's own mappings, give or take an
    // allocator arena or a thread stack of the workers starting up.
    if (ends[k].kernel > ends[0].kernel + 4 || ends[k].kernel + 4 < ends[0].kernel) ++kernel_moved;
  }
  EXPECT_EQ(kernel_moved, 0u) << "the kernel's mapping count after the first process: " << ends[0].kernel
                              << ", after the last: " << ends.back().kernel;
  EXPECT_EQ(st.peak, 1u + kLibs * (1 + 2 * 2)) << "one process's mappings at most";
  EXPECT_EQ(st.peak_spaces, 1u);
  EXPECT_EQ(st.enomem, 0u);

  uint64_t mm = 0, touched = 0;
  for (const OpRecord& op : r->ops) {
    if (op.nr != SYS_mmap && op.nr != SYS_munmap && op.nr != kEvPageFault) continue;
    EXPECT_FALSE(op.flags & kOfDivergent) << "event " << op.event_index << " (" << op.nr << ") ret " << op.ret;
    EXPECT_FALSE(op.flags & kOfSkipped) << "event " << op.event_index << " (" << op.nr << ")";
    (op.nr == kEvPageFault ? touched : mm) += 1;
  }
  EXPECT_EQ(mm, kProcesses * (1 + 3 * kLibs + 1));
  EXPECT_EQ(touched, kProcesses * 2 * kLibs);
}

// A munmap and the end of the address space racing on other workers, while
// touches go on: each mapping is unmapped once, a lost touch is skipped, and
// the replayer never faults.
TEST_F(AddressSpaces, UnmapsAndTouchesRacingNeverCrash) {
  make_files();
  Synth t;
  const uint64_t at = 0x7f0000100000ull;
  t.add(5, 5, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/lib/lib0.so");
  const uint32_t m =
      t.add(5, 5, SYS_mmap, 20, 5, static_cast<int64_t>(at), {0, kLibPages * 4096, PROT_READ, MAP_PRIVATE, 3, 0});
  const uint32_t seg = t.add(5, 5, SYS_mmap, 30, 5, static_cast<int64_t>(at + 0x2000),
                             {at + 0x2000, 0x3000, PROT_READ, MAP_PRIVATE | MAP_FIXED, 3, 0x2000});
  const uint32_t f = t.add(5, 6, kEvPageFault, 40, 0, 0, {0x3000, at + 0x3000}, "/w/p/lib/lib0.so");
  const uint32_t un = t.add(5, 6, SYS_munmap, 50, 5, 0, {at, kLibPages * 4096});
  const uint32_t x6 = t.add(5, 6, kEvProcExit, 60, 0, 0, {0, 0});
  const uint32_t x5 = t.add(5, 5, kEvProcExit, 70, 0, 0, {0, 1});
  Plan plan = t.plan("/w/p");
  ASSERT_EQ(plan.ops[f].ref_op, seg);
  int fd = open((target + "/lib/lib0.so").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (int round = 0; round < 200; ++round) {
    ReplayMappings maps;
    maps.init(plan, test::space_threads(plan), plan.maps.size());
    ASSERT_GT(maps.mmap(m, fd), 0);
    ASSERT_GT(maps.mmap(seg, fd), 0);
    std::atomic<bool> stop{false};
    std::atomic<int> touched{0};
    std::thread toucher([&] {
      while (!stop.load()) touched += maps.touch(f) ? 1 : 0;
    });
    std::thread unmapper([&] { (void)maps.munmap(un); });
    maps.leave(x6);
    maps.leave(x5);
    unmapper.join();
    stop = true;
    toucher.join();
    EXPECT_FALSE(maps.touch(f)) << "round " << round;
    EXPECT_EQ(maps.stats().live, 0) << "round " << round;
    maps.release_all();
  }
  close(fd);
}

// A replay that would pass the kernel's limit says so before it starts, with
// the limit and how to raise it; one that stays under it says nothing.
TEST(MapLimit, AReplayPastTheLimitSaysSoBeforeItStarts) {
  Synth t;
  uint64_t ts = 1000;
  for (uint32_t k = 0; k < 3; ++k) add_process(t, 100 + k, ts);
  Plan plan = t.plan("/w/p");
  ASSERT_EQ(plan.peak_mappings, 1u + kLibs * 5);
  EXPECT_EQ(map_limit_warning(plan, 200, 65530), "");
  const std::string w = map_limit_warning(plan, 200, 210);
  EXPECT_NE(w.find("vm.max_map_count = 210"), std::string::npos) << w;
  EXPECT_NE(w.find("sysctl -w vm.max_map_count="), std::string::npos) << w;
  EXPECT_NE(w.find("ENOMEM"), std::string::npos) << w;

  MappingStats failed;
  failed.enomem = 7;
  failed.peak = 65400;
  const std::string f = map_failure_warning(failed, 120, 65530);
  EXPECT_NE(f.find("7 mmaps failed with ENOMEM"), std::string::npos) << f;
  EXPECT_NE(f.find("sysctl -w vm.max_map_count="), std::string::npos) << f;
  EXPECT_EQ(map_failure_warning(MappingStats{}, 120, 65530), "");
  EXPECT_GT(max_map_count(), 0u);
  EXPECT_GT(own_mapping_count(), 0u);
}

}  // namespace
}  // namespace fsr
