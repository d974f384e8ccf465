#include "tools/predict/simulator.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "tools/predict/op_window.h"

namespace fsr {
namespace {

constexpr uint32_t kNone = OpWindow::kNone;

struct WorkerState {
  uint64_t prev_done = 0;  // completion of its previous op (simulated ns)
  uint64_t debt = 0;       // think time owed back (the syscall round trip, a long fault)
  uint64_t carry = 0;      // think time owed by the previous op (fork/exec, a fault's rest)
  uint32_t pos = 0;        // next op in its list
  uint32_t blocked_on = kNone;
  uint32_t next_waiter = kNone;
};

using Item = std::pair<uint32_t, uint32_t>;  // (next op index, worker)

class Sim {
 public:
  Sim(const PlanView& v, OpCost& cost, const SimOptions& o, std::vector<OpRecord>* out)
      : v_(v), cost_(cost), opt_(o), out_(out), ws_(v.worker_count()), win_(o.window_ops) {}

  SimStats run() {
    const uint32_t n = v_.op_count();
    if (out_) out_->assign(n, OpRecord{});
    heap_.reserve(ws_.size());
    for (uint32_t w = 0; w < ws_.size(); ++w) push(w);
    uint64_t done = 0;
    bool force = false;
    while (done < n) {
      if (heap_.empty()) {
        if (!force_one()) break;  // nothing left to run at all
        force = true;
      }
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto [i, w] = heap_.back();
      heap_.pop_back();
      if (!run_op(i, w, force)) continue;  // waits on a dependency
      force = false;
      ++done;
      if ((done & 4095) == 0) release();
      WorkerState& s = ws_[w];
      ++s.pos;
      push(w);
    }
    st_.ops = done;
    st_.window_lookups = win_.released_lookups();
    st_.window_bytes = std::max<uint64_t>(st_.window_bytes, win_.bytes());
    return st_;
  }

 private:
  void push(uint32_t w) {
    const auto list = v_.worker_ops(w);
    if (ws_[w].pos >= list.size()) return;
    heap_.push_back({list[ws_[w].pos], w});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }

  // No worker can run: a dependency that is never simulated (the plan's
  // keys forbid it; a damaged plan could still). Runs the lowest waiting op.
  bool force_one() {
    uint32_t best = kNone, bw = kNone;
    for (uint32_t w = 0; w < ws_.size(); ++w) {
      const auto list = v_.worker_ops(w);
      if (ws_[w].pos < list.size() && list[ws_[w].pos] < best) best = list[ws_[w].pos], bw = w;
    }
    if (bw == kNone) return false;
    unlink_waiter(bw);
    heap_.push_back({best, bw});
    ++st_.forced;
    return true;
  }

  void unlink_waiter(uint32_t w) {
    WorkerState& s = ws_[w];
    if (s.blocked_on == kNone) return;
    uint32_t* link = &win_.waiter_head(s.blocked_on);
    while (*link != kNone && *link != w) link = &ws_[*link].next_waiter;
    if (*link == w) *link = s.next_waiter;
    s.blocked_on = s.next_waiter = kNone;
  }

  void wake(uint32_t i) {
    uint32_t& head = win_.waiter_head(i);
    for (uint32_t w = head; w != kNone;) {
      const uint32_t next = ws_[w].next_waiter;
      ws_[w].blocked_on = ws_[w].next_waiter = kNone;
      push(w);
      w = next;
    }
    head = kNone;
  }

  void release() {
    uint32_t low = UINT32_MAX;
    for (uint32_t w = 0; w < ws_.size(); ++w) {
      const auto list = v_.worker_ops(w);
      if (ws_[w].pos < list.size()) low = std::min(low, list[ws_[w].pos]);
    }
    st_.window_bytes = std::max<uint64_t>(st_.window_bytes, win_.bytes());
    if (low != UINT32_MAX) win_.release_below(low);
  }

  uint64_t pay(WorkerState& s, uint64_t gap) {
    const uint64_t paid = std::min(gap, s.debt);
    s.debt -= paid;
    return gap - paid;
  }

  // engine.cpp run_worker, think mode, with simulated time.
  bool run_op(uint32_t i, uint32_t w, bool force) {
    const PlanOp& op = v_.op(i);
    uint64_t dep_done = 0;
    uint32_t last_dep = kNoOp;
    size_t last_k = 0;
    const auto deps = v_.deps(i);
    for (size_t k = 0; k < deps.size(); ++k) {
      const uint32_t d = deps[k];
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
    const uint64_t gap = corrected_gap(op, e, opt_.gap);
    const uint64_t now = s.prev_done;
    const bool first = op.flags & kPfFirstOfThread;
    const bool created = first && v_.thread_creator(op.thread) != kNoOp;
    const bool fault = e.nr == kEvPageFault;
    uint64_t fault_gap = 0, target, start, slept, dep_wait;
    if (fault && !first) {
      fault_gap = pay(s, gap + s.carry);  // the touch uses up the fault's own gap
      target = now;
    } else {
      target = first ? (created ? 0 : gap) : now + pay(s, gap + s.carry);
    }
    if (created) {  // its creator first, then its start-up compute
      const uint64_t t1 = std::max(now, dep_done);
      dep_wait = t1 - now;
      target = t1 + pay(s, gap);
      start = target;
      slept = target - t1;
    } else {
      const uint64_t t1 = std::max(now, target);
      slept = t1 - now;
      start = std::max(t1, dep_done);
      dep_wait = start - t1;
    }
    const bool issued = op.action == OpAction::kIssue;
    const uint64_t lat = issued ? cost_.latency(i, start) : 0;
    const uint64_t end = start + lat;
    s.prev_done = end;
    s.carry = 0;
    if (fault) {
      if (lat < fault_gap) s.carry = fault_gap - lat;
      else s.debt += lat - fault_gap;
    } else if (issued) {
      s.debt += std::min(cost_.syscall_overhead_ns(), lat);
    }
    uint64_t completes = end;
    if (e.nr == kEvProcExit) completes += op.own_ns;
    else if (op.own_ns) s.carry = op.own_ns > lat ? op.own_ns - lat : 0;
    win_.set_done(i, completes);
    if (op.flags & kPfNotify) wake(i);
    if (issued) ++st_.issued;
    st_.wall_ns = std::max(st_.wall_ns, end);
    if (out_) {
      OpRecord& r = (*out_)[i];
      r.event_index = i;
      r.start = start;
      r.latency = lat;
      r.lateness = static_cast<int64_t>(start) - static_cast<int64_t>(std::max(target, dep_done));
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
        r.flags |= static_cast<uint16_t>(static_cast<unsigned>(v_.dep_kind(i, last_k)) << kOfDepKindShift);
    }
    return true;
  }

  const PlanView& v_;
  OpCost& cost_;
  const SimOptions& opt_;
  std::vector<OpRecord>* out_;
  std::vector<WorkerState> ws_;
  std::vector<Item> heap_;
  OpWindow win_;
  SimStats st_;
};

}  // namespace

SimStats simulate(const PlanView& view, OpCost& cost, const SimOptions& opt, std::vector<OpRecord>* out) {
  return Sim(view, cost, opt, out).run();
}

}  // namespace fsr
