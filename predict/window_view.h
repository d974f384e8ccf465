// SPDX-License-Identifier: Apache-2.0
// The narrow view of the streaming planner's window that the simulators
// read: per op its plan entry, its recorded event and its dependencies (the
// plan's rings, plan.h); per worker a FIFO of its ops in issue order, pushed
// as the planner adds them; whether an op's plan is final yet
// (WindowSync::ready); per file mapping the path it maps. It holds no op
// itself: an op is readable while its slot is in the window, i.e. until
// every simulator has taken its record and the driver moves WindowSync::base
// past it. The FIFOs keep only what some simulator has still to run
// (drop_below). Inline, non-virtual: the simulators call these per op.
#pragma once

#include <sys/syscall.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "replayer/plan/plan.h"
#include "replayer/plan/plan_stream.h"
#include "replayer/plan/survey.h"
#include "traces/event.h"

namespace fsr {

class WindowView {
 public:
  // `survey`: the plan's table sizes and workers (the pass before, survey.h).
  WindowView(const Plan& plan, const WindowSync& sync, const PlanSurvey& survey)
      : plan_(plan),
        sync_(sync),
        fifo_(survey.workers),
        map_path_(survey.maps, kNoPath),
        paths_(survey.paths),
        ofds_(survey.ofds) {}

  // Op i (the planner's newest) was added: onto its worker's FIFO.
  void publish(uint64_t i) {
    const PlanOp& o = plan_.op(i);
    fifo_[plan_.threads[o.thread].worker].push(static_cast<uint32_t>(i));
    if (o.map != kNoMap && plan_.event(i).nr == SYS_mmap) {  // the file it maps, while its OFD is known
      if (o.map >= map_path_.size()) map_path_.resize(o.map + 1, kNoPath);
      map_path_[o.map] = o.path[0] != kNoPath ? o.path[0] : o.ofd != kNoOfd ? plan_.ofds[o.ofd].path : kNoPath;
    }
  }

  bool final(uint64_t i) const { return sync_.ready[i & plan_.op_mask].load(std::memory_order_relaxed) >= i + 1; }

  uint32_t worker_count() const { return static_cast<uint32_t>(fifo_.size()); }
  // Worker w's ops by position (0, 1, ... in issue order); [begin, end) are held.
  uint64_t worker_end(uint32_t w) const { return fifo_[w].end; }
  uint32_t worker_op(uint32_t w, uint64_t pos) const { return fifo_[w].at(pos); }
  // No simulator will read worker w's positions below `pos` again.
  void drop_below(uint32_t w, uint64_t pos) { fifo_[w].drop(pos); }

  const PlanOp& op(uint64_t i) const { return plan_.op(i); }
  const Event& event(uint64_t i) const { return plan_.event(i); }
  // Op i's dependencies: plan.dep(k) for k in [op(i).dep_begin, dep_end), kNoOp for unused room.
  uint32_t dep(uint32_t k) const { return plan_.dep(k); }
  DepKind dep_kind(uint32_t k) const { return plan_.dep_kind(k); }
  uint32_t thread_creator(uint32_t thread) const { return plan_.threads[thread].creator; }
  uint32_t map_path(uint32_t map) const { return map < map_path_.size() ? map_path_[map] : kNoPath; }
  const Plan& plan() const { return plan_; }
  // The sizes plan.paths and plan.ofds reach by the end of the trace.
  size_t path_count() const { return paths_; }
  size_t ofd_count() const { return ofds_; }

  uint64_t bytes() const {
    uint64_t b = map_path_.capacity() * sizeof(uint32_t);
    for (const Fifo& f : fifo_) b += f.ring.size() * sizeof(uint32_t);
    return b;
  }

 private:
  // A power-of-two ring of op indices, positions absolute.
  struct Fifo {
    std::vector<uint32_t> ring = std::vector<uint32_t>(16);
    uint64_t begin = 0, end = 0;
    uint32_t at(uint64_t pos) const { return ring[pos & (ring.size() - 1)]; }
    void push(uint32_t i) {
      if (end - begin == ring.size()) {
        std::vector<uint32_t> next(ring.size() * 2);
        for (uint64_t p = begin; p < end; ++p) next[p & (next.size() - 1)] = at(p);
        ring.swap(next);
      }
      ring[end++ & (ring.size() - 1)] = i;
    }
    void drop(uint64_t pos) { begin = std::max(begin, std::min(pos, end)); }
  };

  const Plan& plan_;
  const WindowSync& sync_;
  std::vector<Fifo> fifo_;
  std::vector<uint32_t> map_path_;
  size_t paths_, ofds_;
};

}  // namespace fsr
