// The narrow view of a replay plan the simulator reads: per op its plan entry,
// its recorded event and its dependencies; per worker its ops in issue order;
// per recorded thread its creator. It wraps a whole plan (build_plan: every
// op in it, op i at slot i) and builds, once, what the plan does not hold as
// lists: each worker's ops (the plan keeps the worker per recorded thread)
// and each op's dependencies without the plan's unused edge slots (kNoOp, the
// room a causal wait kept for a waker it never found). Inline, non-virtual:
// the simulator calls these per op.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "replayer/plan.h"
#include "traces/event.h"

namespace fsr {

class PlanView {
 public:
  PlanView(const Plan& plan, const std::vector<Event>& events)
      : plan_(plan), events_(events), workers_(plan.worker_count) {
    const uint32_t n = op_count();
    dep_begin_.reserve(n + 1);
    for (uint32_t i = 0; i < n; ++i) {
      const PlanOp& o = plan.op(i);
      workers_[plan.threads[o.thread].worker].push_back(i);
      dep_begin_.push_back(static_cast<uint32_t>(deps_.size()));
      for (uint32_t k = o.dep_begin; k != o.dep_end; ++k) {
        if (plan.dep(k) == kNoOp) continue;
        deps_.push_back(plan.dep(k));
        dep_kinds_.push_back(plan.dep_kind(k));
      }
    }
    dep_begin_.push_back(static_cast<uint32_t>(deps_.size()));
  }

  uint32_t op_count() const { return static_cast<uint32_t>(plan_.size); }
  uint32_t worker_count() const { return static_cast<uint32_t>(workers_.size()); }
  const PlanOp& op(uint32_t i) const { return plan_.op(i); }
  const Event& event(uint32_t i) const { return events_[i]; }
  std::span<const uint32_t> deps(uint32_t i) const {
    return {deps_.data() + dep_begin_[i], deps_.data() + dep_begin_[i + 1]};
  }
  // Why op i's k-th dependency exists (deps.h).
  DepKind dep_kind(uint32_t i, size_t k) const { return dep_kinds_[dep_begin_[i] + k]; }
  std::span<const uint32_t> worker_ops(uint32_t w) const { return workers_[w]; }
  uint32_t thread_creator(uint32_t thread) const { return plan_.threads[thread].creator; }
  const Plan& plan() const { return plan_; }

 private:
  const Plan& plan_;
  const std::vector<Event>& events_;
  std::vector<std::vector<uint32_t>> workers_;
  std::vector<uint32_t> deps_, dep_begin_;
  std::vector<DepKind> dep_kinds_;
};

}  // namespace fsr
