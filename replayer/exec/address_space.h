// SPDX-License-Identifier: Apache-2.0
// The replay's own copies of the recorded processes' file mappings, in the
// replayer's one address space: mmap, munmap and page touches as the plan
// laid them out (mapping_tracker.h), and the release of an address space once
// every recorded thread in it has left.
//
// Workers of different recorded threads may reach one mapping at once (a
// munmap by one thread, the end of the address space by another). Each
// mapping's slot is claimed (an atomic busy bit) around every call that
// unmaps it or places something inside it, so a range is never unmapped
// twice nor written over once it may belong to someone else; a page touch
// reads one byte under a SIGSEGV/SIGBUS guard and may lose a race, never crash.
// Counts the kernel mappings it makes (an upper bound: a segment placed inside
// a base splits it, at most twice) and their peak. Never allocates per op.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "replayer/plan/plan.h"
#include "traces/event.h"

namespace fsr {

struct MappingStats {
  int64_t live = 0;          // kernel mappings the replay's mappings make now (upper bound)
  uint64_t peak = 0;         // ... at most, at once
  uint64_t live_spaces = 0;  // address spaces holding a mapping now
  uint64_t peak_spaces = 0;
  uint64_t enomem = 0;  // mmaps that failed with ENOMEM (vm.max_map_count)
};

// The kernel's limit on one process's mappings (/proc/sys/vm/max_map_count;
// 65530 when unreadable), and how many this process has now (/proc/self/maps).
uint64_t max_map_count();
uint64_t own_mapping_count();

// Before a replay: a warning (empty if none) when the plan's forecast peak
// of mappings, on top of `baseline` (the replayer's own), would pass `limit`.
std::string map_limit_warning(const Plan& plan, uint64_t baseline, uint64_t limit);
// After it: a warning when mmaps failed with ENOMEM (the limit, or memory).
std::string map_failure_warning(const MappingStats& s, uint64_t baseline, uint64_t limit);

class ReplayMappings {
 public:
  // `space_threads`: per address space, the recorded threads that leave it
  // (the survey's count); `maps`: the plan's mappings, at most.
  void init(const Plan& plan, const std::vector<uint32_t>& space_threads, size_t maps);

  // mmap op `i` on real fd `fd`: the address (as the result's value) or -errno.
  int64_t mmap(uint32_t i, int fd);
  // munmap op `i`: 0, or -EINVAL when a mapping it takes is not there.
  int64_t munmap(uint32_t i);
  // Page fault op `i`: false when its mapping is gone or the page lies past
  // the file's end (the touch's SIGBUS is caught).
  bool touch(uint32_t i);
  // Exit/exec op `i` (PlanOp::space): the last thread to leave an address
  // space unmaps what is still mapped in it.
  void leave(uint32_t i);
  // Unmaps everything (end of replay).
  void release_all();

  MappingStats stats() const;
  // Test hook, called by the worker that ended an address space, after its unmaps.
  std::function<void(uint32_t space, int64_t live)> on_space_end;

 private:
  uint64_t claim(uint32_t m);
  void put(uint32_t m, uint64_t v) { slot_[m].store(v, std::memory_order_release); }
  uint64_t len_of(uint32_t m) const;
  bool alive(uint32_t m) const;
  bool take(const PlanUnmap& u);
  void unmap_base(uint32_t m, uint64_t v);
  void add_live(int64_t n);
  void space_holds(uint32_t s);

  const Plan* plan_ = nullptr;
  size_t n_maps_ = 0;
  // Per mapping (Plan::maps): address | kInside | kBusy | extra << kExtraShift; 0 = none.
  std::unique_ptr<std::atomic<uint64_t>[]> slot_;
  std::unique_ptr<std::atomic<uint32_t>[]> left_;  // per space: threads still in it
  std::unique_ptr<std::atomic<uint8_t>[]> holds_;  // per space: holds (held) a mapping
  std::atomic<int64_t> live_{0};
  std::atomic<uint64_t> peak_{0};
  std::atomic<uint64_t> live_spaces_{0}, peak_spaces_{0}, enomem_{0};
};

}  // namespace fsr
