// The narrow view of a replay plan the simulator reads: per op its plan entry,
// its recorded event and its dependencies; per worker its ops in issue order;
// per recorded thread its creator. Today it wraps a whole Plan (build_plan);
// a streaming plan (a window of ops) can stand behind the same accessors, so
// that moving predict onto it changes this file, not the simulator. Inline,
// non-virtual: the simulator calls these per op.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "replayer/plan.h"
#include "traces/event.h"

namespace fsr {

class PlanView {
 public:
  PlanView(const Plan& plan, const std::vector<Event>& events) : plan_(plan), events_(events) {}

  uint32_t op_count() const { return static_cast<uint32_t>(plan_.ops.size()); }
  uint32_t worker_count() const { return static_cast<uint32_t>(plan_.workers.size()); }
  const PlanOp& op(uint32_t i) const { return plan_.ops[i]; }
  const Event& event(uint32_t i) const { return events_[i]; }
  std::span<const uint32_t> deps(uint32_t i) const {
    const PlanOp& o = plan_.ops[i];
    return {plan_.deps.data() + o.dep_begin, plan_.deps.data() + o.dep_end};
  }
  // Why op i's k-th dependency exists (deps.h).
  DepKind dep_kind(uint32_t i, size_t k) const { return plan_.dep_kinds[plan_.ops[i].dep_begin + k]; }
  std::span<const uint32_t> worker_ops(uint32_t w) const { return plan_.workers[w]; }
  uint32_t thread_creator(uint32_t thread) const { return plan_.threads[thread].creator; }
  const Plan& plan() const { return plan_; }

 private:
  const Plan& plan_;
  const std::vector<Event>& events_;
};

}  // namespace fsr
