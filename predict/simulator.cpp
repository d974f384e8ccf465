// SPDX-License-Identifier: Apache-2.0
#include "predict/simulator.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "base/saturating.h"
#include "replayer/engine/engine.h"

namespace fsr {
namespace {

constexpr uint32_t kNone = OpWindow::kNone;

constexpr uint64_t kMaxWakeNs = 1'000'000;

}  // namespace

Simulator::Simulator(const WindowView& v, OpCost& cost, const SimOptions& o, uint64_t slots)
    : v_(v),
      cost_(cost),
      opt_(o),
      ws_(v.worker_count()),
      win_(o.window_ops ? o.window_ops : slots),
      rec_(slots),
      tag_(slots, 0),
      rec_end_(slots, 0),
      mask_(slots - 1) {
  heap_.reserve(ws_.size());
}

void Simulator::push(uint32_t w) {
  WorkerState& s = ws_[w];
  if (s.queued || s.pos >= v_.worker_end(w)) return;
  s.queued = true;
  heap_.push_back({v_.worker_op(w, s.pos), w});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
}

bool Simulator::step() {
  for (uint32_t w = 0; w < ws_.size(); ++w)  // workers the planner gave ops since
    if (ws_[w].blocked_on == kNone) push(w);
  bool ran = false;
  while (!heap_.empty()) {
    const auto [i, w] = heap_.front();
    if (!v_.final(i)) break;  // its plan may still change: the planner first
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    ws_[w].queued = false;
    if (!run_op(i, w, false)) continue;  // waits on a dependency
    ran = true;
    ++ws_[w].pos;
    push(w);
  }
  return ran;
}

bool Simulator::force_one() {
  uint32_t best = kNone, bw = kNone;
  for (uint32_t w = 0; w < ws_.size(); ++w) {
    const WorkerState& s = ws_[w];
    if (s.blocked_on == kNone || s.pos >= v_.worker_end(w)) continue;
    const uint32_t i = v_.worker_op(w, s.pos);
    if (i < best) best = i, bw = w;
  }
  if (bw == kNone) return false;
  unlink_waiter(bw);
  run_op(best, bw, true);
  ++st_.forced;
  ++ws_[bw].pos;
  push(bw);
  return true;
}

void Simulator::unlink_waiter(uint32_t w) {
  WorkerState& s = ws_[w];
  if (s.blocked_on == kNone) return;
  uint32_t* link = &win_.waiter_head(s.blocked_on);
  while (*link != kNone && *link != w) link = &ws_[*link].next_waiter;
  if (*link == w) *link = s.next_waiter;
  s.blocked_on = s.next_waiter = kNone;
}

void Simulator::wake(uint32_t i) {
  uint32_t& head = win_.waiter_head(i);
  for (uint32_t w = head; w != kNone;) {
    const uint32_t next = ws_[w].next_waiter;
    ws_[w].blocked_on = ws_[w].next_waiter = kNone;
    push(w);
    w = next;
  }
  head = kNone;
}

void Simulator::release(uint64_t low) {
  st_.window_bytes =
      std::max<uint64_t>(st_.window_bytes, win_.bytes() + rec_.size() * sizeof(OpRecord) +
                                               (tag_.size() + rec_end_.size()) * sizeof(uint64_t) +
                                               heap_.capacity() * sizeof(Item) + ws_.size() * sizeof(WorkerState));
  win_.release_below(static_cast<uint32_t>(low));
}

SimStats Simulator::stats() const {
  SimStats st = st_;
  st.window_lookups = win_.released_lookups();
  return st;
}

uint64_t Simulator::pay(WorkerState& s, uint64_t gap) {
  const uint64_t paid = std::min(gap, s.debt);
  s.debt -= paid;
  return gap - paid;
}

// The op's figures, and the queue's wait on its chain: from `from` (an op),
// else from its worker's previous op (none for a thread's first).
void Simulator::count_op(WorkerState& s, bool issued, uint64_t end, uint32_t from, bool first) {
  const uint64_t qwait = issued ? cost_.last_wait() : 0;
  s.path_wait = (from != kNoOp ? win_.path_wait_ns(from) : first ? 0 : s.path_wait) + qwait;
  ++st_.ops;
  if (issued) ++st_.issued;
  if (qwait) ++st_.queued_ops, st_.queue_wait_ns += qwait;
  if (end > st_.wall_ns) st_.wall_ns = end, st_.path_queue_ns = s.path_wait;
}

// A call the replay does not make (a futex or epoll wait, a wait4) that
// blocked until its dependency released it: in the original it returned
// that much after the release (the waker's end to its own: the scheduler
// waking it), and a replay's worker, woken by the engine, pays its own such
// delay. Only where the dependency decided (the caller checks) and the call
// had begun before the release ended; at most kMaxWakeNs.
uint64_t Simulator::wake_after(const Event& e, uint32_t dep) const {
  if (dep == kNoOp || tag_[dep & mask_] != dep + 1ull) return 0;
  const uint64_t released = rec_end_[dep & mask_], mine = e.ts + e.dur;
  if (e.ts >= released || mine <= released) return 0;
  return std::min(mine - released, kMaxWakeNs);
}

// engine.cpp run_worker, think mode, with simulated time.
bool Simulator::run_op(uint32_t i, uint32_t w, bool force) {
  const PlanOp& op = v_.op(i);
  uint64_t dep_done = 0;
  uint32_t last_dep = kNoOp;
  uint32_t last_k = 0;
  for (uint32_t k = op.dep_begin; k != op.dep_end; ++k) {
    const uint32_t d = v_.dep(k);
    if (d == kNoOp) continue;  // room kept for an edge never found
    uint64_t t;
    if (!win_.done(d, t)) {
      if (force) continue;
      WorkerState& s = ws_[w];
      uint32_t& head = win_.waiter_head(d);
      s.blocked_on = d;
      s.next_waiter = head;
      head = w;
      return false;
    }
    if (t >= dep_done) dep_done = t, last_dep = d, last_k = k;
  }
  WorkerState& s = ws_[w];
  const Event& e = v_.event(i);
  const uint64_t gap = less_recording(op, e, opt_.clock).gap;  // (engine.h)
  const uint64_t now = s.prev_done;
  const bool first = op.flags & kPfFirstOfThread;
  const bool created = first && v_.thread_creator(op.thread) != kNoOp;
  const bool fault = e.nr == kEvPageFault;
  uint64_t fault_gap = 0, target, start, slept, dep_wait, want = UINT64_MAX;
  if (fault && !first) {
    fault_gap = pay(s, gap + s.carry);  // the touch uses up the fault's own gap
    target = now;
  } else {
    target = first ? (created ? 0 : gap) : now + pay(s, gap + s.carry);
  }
  const bool issued = op.action == OpAction::kIssue;
  if (!issued && !created && dep_done > std::max(now, target)) dep_done += wake_after(e, last_dep);
  if (created) {  // its creator first; its start-up gap runs from the creator's completion
    const uint64_t t1 = std::max(now, dep_done);
    dep_wait = t1 - now;
    const ThreadStart ts = thread_start(last_dep != kNoOp, dep_done, t1, pay(s, gap));  // (engine.h)
    want = ts.want;
    target = ts.target;
    s.debt += ts.owed;
    start = target;
    slept = target - t1;
  } else {
    const uint64_t t1 = std::max(now, target);
    slept = t1 - now;
    start = std::max(t1, dep_done);
    dep_wait = start - t1;
  }
  const uint64_t lat = issued ? cost_.latency(i, start) : 0;
  const uint64_t end = start + lat;
  s.prev_done = end;
  s.carry = 0;
  if (fault) {
    if (lat < fault_gap)
      s.carry = fault_gap - lat;
    else
      s.debt += lat - fault_gap;
  } else if (issued) {
    s.debt += std::min(cost_.syscall_overhead_ns(), lat);
  }
  uint64_t completes = end;
  if (e.nr == kEvProcExit)
    completes += op.own_ns;
  else if (op.own_ns)
    s.carry = op.own_ns > lat ? op.own_ns - lat : 0;
  // (what made it start then: its last dependency, else its worker's previous op)
  count_op(s, issued, end, last_dep != kNoOp && (created || dep_wait > 0) ? last_dep : kNoOp, first);
  win_.set_done(i, completes, s.path_wait);
  wake(i);  // (kPfNotify: the plan's engine waits only on these; the waiters are known here)
  {
    OpRecord& r = rec_[i & mask_];
    tag_[i & mask_] = i + 1ull;
    rec_end_[i & mask_] = e.ts + e.dur;
    r.event_index = i;
    r.start = start;
    r.latency = lat;
    r.lateness = signed_delta(start, want != UINT64_MAX ? want : std::max(target, dep_done));
    r.dep_wait = dep_wait;
    r.gap = slept;
    r.ret = e.ret;
    r.recorded_ret = e.ret;
    r.waited_on = last_dep != kNoOp && dep_wait > 0 ? last_dep + 1ull : 0;
    r.recorded_dur = e.dur;
    r.pid = e.pid;
    r.tid = e.tid;
    r.worker = w;
    r.nr = e.nr;
    r.flags = 0;
    if (!issued && e.nr != kEvProcExec) r.flags |= kOfSkipped;
    if (op.flags & kPfApproxDep) r.flags |= kOfApproxDep;
    if (dep_wait > 0 && last_dep != kNoOp)  // what released it last, as the replay records
      r.flags |= static_cast<uint16_t>(static_cast<unsigned>(v_.dep_kind(last_k)) << kOfDepKindShift);
  }
  return true;
}

}  // namespace fsr
