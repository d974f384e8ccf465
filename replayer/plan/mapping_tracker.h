// SPDX-License-Identifier: Apache-2.0
// The recorded processes' file mappings, followed at plan time in event order:
// which replayed mapping each munmap and page fault refers to, where a
// MAP_FIXED segment goes (inside the replay's copy of the mapping it overlays,
// as the dynamic loader lays out a library), and when an address space ends.
//
// An address space runs from a process's start (or exec) to its exec or the
// exit of its last thread. Every recorded thread that ran in it leaves it by
// one op (its exit, or the exec); the replay unmaps what is still mapped there
// when the last of them has left, so that what the replayer holds at any time
// is bounded by the processes alive at that time in the trace.
//
// Only mappings the replay makes are tracked (file mappings whose mmap is
// issued); munmaps of anything else (anonymous memory) are not replayed.
// mprotect and mremap are not in the trace: their cost lies in the recorded
// compute gaps. Never touches memory itself (see address_space.h).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "replayer/plan/plan.h"
#include "traces/event.h"

namespace fsr {

class MappingTracker {
 public:
  explicit MappingTracker(Plan& plan) : plan_(plan) {}

  // Any event of thread `tid`: it joins its process's current address space
  // (the first time, or again after it left one: a reused tid).
  void saw_thread(uint32_t tid, uint32_t pid);
  // A successful exec by `tid` at op `i` (the first of its kEvProcExec and
  // execve records: the caller passes one of the pair).
  void exec(uint32_t i, uint32_t tid, uint32_t pid);
  // The exit of thread `tid` at op `i`.
  void exit(uint32_t i, uint32_t tid);
  // A file mmap op `i` the replay issues, whose recorded call succeeded.
  void mmap(uint32_t i, const Event& e);
  // A munmap op `i`: its Plan::unmaps list (what it takes of the replay's
  // mappings) and its action: kIssue when it takes something, else kSkip.
  void munmap(uint32_t i, const Event& e);
  // A page fault op `i`: its mapping (ref_op, ref_off). False: none known.
  bool fault(uint32_t i, const Event& e);

 private:
  struct Mapping {
    uint64_t addr, len;  // recorded range, len rounded up to pages
    uint32_t op;         // its mmap op
    uint32_t tid;
    uint32_t base;  // mmap op it was placed inside (kNoOp: none)
    uint32_t vmas;  // kernel mappings it makes, at most (bases: with what lies in it)
    uint32_t id;    // Plan::maps
  };
  struct Space {
    std::vector<Mapping> maps;
    uint32_t threads_in = 0;  // recorded threads in it now
    int64_t vmas = 0;
    bool held = false;  // has held a mapping (counted in live_spaces_)
    bool ended = false;
  };

  uint32_t join(uint32_t tid, uint32_t pid);
  uint32_t new_space(uint32_t pid);
  void leave(uint32_t i, uint32_t tid);
  void end_space(uint32_t s);
  void add_vmas(Space& sp, int64_t n);
  Space* space_of(uint32_t tid);

  Plan& plan_;
  std::vector<Space> spaces_;                            // parallel to Plan::spaces
  std::unordered_map<uint32_t, uint32_t> current_;       // pid -> its current space
  std::unordered_map<uint32_t, uint32_t> space_of_tid_;  // tid -> its space (kNoSpace: left)
  int64_t live_vmas_ = 0;
  uint64_t live_spaces_ = 0;  // spaces holding a mapping
};

}  // namespace fsr
