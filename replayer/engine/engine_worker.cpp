// SPDX-License-Identifier: Apache-2.0
// The engine's workers (engine_worker.h): each issues its threads' ops in
// event order, at the time the timing mode gives each, after its
// dependencies, and publishes each op's record and completion.
#include "replayer/engine/engine_worker.h"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "replayer/engine/engine_wait.h"
#include "replayer/engine/interrupt.h"
#include "base/saturating.h"

namespace fsr {

using namespace engine_detail;

namespace {

constexpr uint64_t kMaxSleptWorkNs = 1'000'000;  // an emulated call's work slept at most (sleeps_recorded_work)

// When an op issues, as its worker decided it (ns since start unless said).
struct Turn {
  uint64_t target = 0;         // when the gap (or the trace's clock) has it issue
  uint64_t want = UINT64_MAX;  // a new thread's intended start (its creator's completion + its start-up gap)
  uint64_t t0 = 0;             // mono_ns() at issue
  uint64_t slept = 0;          // the sleep before it
  uint64_t dep_wait = 0;       // the wait for its dependencies
  uint64_t fault_gap = 0;      // think mode: the gap a page fault's touch uses up
  DepWait dw;
};

// One worker's issue loop, and its clock: in think mode, what it owes back
// to the gaps after.
class Worker {
 public:
  Worker(Shared& s, uint32_t w, WorkerSlot& slot)
      : s_(s),
        w_(w),
        slot_(slot),
        buf_(s.buf_size, 'f'),
        dirs_(&s.env.tree_gen),
        think_(s.timing == TimingMode::kThink),
        tot_(slot.clock) {}
  void run();

 private:
  void run_op(uint64_t i);
  uint64_t pay(uint64_t gap);
  uint64_t gap_of(const PlanOp& op, const Event& e);
  Turn wait_turn(uint64_t i, const PlanOp& op, const Event& e);
  uint64_t gap_target(const PlanOp& op, const Event& e, uint64_t now, uint64_t& fault_gap);
  void start_thread(uint64_t i, const PlanOp& op, const Event& e, uint64_t now, Turn& t);
  void sleep_then_wait(uint64_t i, uint64_t now, Turn& t);
  void follow_dependency(const Turn& t);
  void fill_record(uint64_t i, const PlanOp& op, const Event& e, const Turn& t, int64_t ret, uint16_t flags,
                   uint64_t t2, OpRecord& r) const;
  uint64_t settle_after(const PlanOp& op, const Event& e, const Turn& t, const OpRecord& r);
  void release_rest(uint64_t cur, uint64_t& pos);

  Shared& s_;
  const uint32_t w_;
  WorkerSlot& slot_;
  std::vector<char> buf_;
  DirCache dirs_;
  const bool think_;
  ClockTotals& tot_;
  uint64_t prev_done_ = 0;  // completion of this worker's previous op (ns since start)
  // Time owed back (think mode): sleeps that woke late, the replayer's own
  // work between ops, and the costs a recorded gap holds that the replay pays
  // again (entry/exit, the executor's work). Taken from the next gaps, so
  // that the replay's compute time sums to the original's instead of
  // accumulating the replayer's. Dropped when a dependency, not the gap,
  // decides when an op issues: the thread is then on the dependency's time.
  uint64_t debt_ = 0;
  uint64_t carry_ = 0;  // think time owed by the previous op (see settle_after)
};

void Worker::run() {
  while (!s_.go.load(std::memory_order_acquire)) s_.go.wait(false);
  uint64_t cur = kNoOp, pos = 0;
  try {
    for (uint64_t i; (i = next_op(s_, w_, pos)) != kNoOp;) {
      cur = i;
      run_op(i);
    }
    tot_.unpaid_ns += debt_;
  } catch (...) {
    slot_.error = std::current_exception();
    slot_.error_op = "event " + std::to_string(cur);
    slot_.failed.store(true, std::memory_order_release);
    release_rest(cur, pos);
  }
  s_.sync.finished.fetch_add(1, std::memory_order_release);
  slot_.finished_ns = mono_ns();
}

void Worker::run_op(uint64_t i) {
  wait_ready(s_, i);
  const PlanOp& op = s_.plan.op(i);
  const Event& e = s_.plan.event(i);
  OpRecord& r = s_.sync.rec[i & s_.plan.op_mask];
  auto stopped = [&] {  // stopping: no call, no sleep; done at once, so that no one waits
    if (!stop_signal()) [[likely]]
      return false;
    r = OpRecord{};
    r.event_index = i;
    r.flags = kOfSkipped;
    publish_done(s_, i, mono_ns() - s_.start);
    return true;
  };
  if (stopped()) return;
  prefetch_for_write(s_, i, r);
  const Turn t = wait_turn(i, op, e);
  if (stopped()) return;  // (a stop releases the waits: engine_run.cpp)
  uint16_t flags = 0;
  int64_t ret = e.ret;
  follow_dependency(t);
  if (op.action == OpAction::kIssue) {
    ret = execute_op(i, s_.env, buf_.data(), buf_.size(), flags, &dirs_);
    if (uint64_t extra = s_.inject[static_cast<size_t>(class_of(e.nr))]) sleep_until(mono_ns() + extra);
  }
  if (s_.clock.releases_in_calls) apply_closes(i, s_.env);
  const uint64_t t2 = mono_ns();
  if (!s_.clock.releases_in_calls) apply_closes(i, s_.env);
  fill_record(i, op, e, t, ret, flags, t2, r);
  prev_done_ = t2 - s_.start;
  publish_done(s_, i, settle_after(op, e, t, r));
  slot_.done.store(slot_.done.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

uint64_t Worker::pay(uint64_t gap) {
  uint64_t paid = std::min(gap, debt_);
  debt_ -= paid;
  return gap - paid;
}

// The recorded gap less what recording added to it (record_cost.h).
uint64_t Worker::gap_of(const PlanOp& op, const Event& e) {
  if (!think_) return op.gap;
  const LessRecording g = less_recording(op, e, s_.clock);
  tot_.recorder_gap_ns += g.taken;
  return g.gap;
}

// Sleeps to the op's time and waits for its dependencies.
Turn Worker::wait_turn(uint64_t i, const PlanOp& op, const Event& e) {
  Turn t;
  const uint64_t now = mono_ns() - s_.start;
  t.target = gap_target(op, e, now, t.fault_gap);
  if ((op.flags & kPfFirstOfThread) && think_ && s_.plan.threads[op.thread].creator != kNoOp)
    start_thread(i, op, e, now, t);
  else
    sleep_then_wait(i, now, t);
  return t;
}

// When the op's gap (exact mode: the trace's clock) has it issue; `now` when nothing holds it back.
uint64_t Worker::gap_target(const PlanOp& op, const Event& e, uint64_t now, uint64_t& fault_gap) {
  const bool first = op.flags & kPfFirstOfThread;
  if (s_.timing == TimingMode::kExact) return e.ts - s_.plan.base_ts;
  // A page fault's record is made at the end of the fault: the original's
  // fault work lies in the gap before it. Touch at once and let the touch
  // use up that gap; what is left of it is slept after (see `carry_`).
  // (A thread's first op has no gap of its own: fault_gap stays 0.)
  if (think_ && e.nr == kEvPageFault && !first) {
    fault_gap = pay(gap_of(op, e) + carry_);
    return now;
  }
  if (!think_) return now;
  const uint64_t target = first ? (s_.plan.threads[op.thread].creator == kNoOp ? gap_of(op, e) : 0)
                                : prev_done_ + pay(gap_of(op, e) + carry_);
  // The previous op's bookkeeping outlasted the gap: late already.
  if (!first && target < now) {
    debt_ += now - target;
    tot_.late_ns += now - target;
  }
  return target;
}

// A new thread: its creator first, then its start-up gap (engine.h
// thread_start; in the original that gap holds waiting for a CPU too:
// a thread made while its siblings run starts when one of them ends).
void Worker::start_thread(uint64_t i, const PlanOp& op, const Event& e, uint64_t now, Turn& t) {
  t.dw = wait_deps(s_, i, now + s_.start);
  uint64_t td = t.dw.waited ? mono_ns() - s_.start : now;
  t.dep_wait = td - now;
  const ThreadStart ts = thread_start(t.dw.at != UINT32_MAX, t.dw.latest, td, pay(gap_of(op, e)));
  t.want = ts.want;
  t.target = ts.target;
  debt_ += ts.owed;
  tot_.late_ns += ts.owed;
  const uint64_t t1 = t.target > td ? sleep_until(s_.start + t.target, s_.clock.spin_gaps) - s_.start : td;
  t.slept = t1 - td;
  if (t1 > t.target) debt_ += t1 - t.target;
  t.t0 = t1 + s_.start;
}

void Worker::sleep_then_wait(uint64_t i, uint64_t now, Turn& t) {
  uint64_t t1 = now;  // after the sleep, before the dependencies
  if (t.target > now) t1 = sleep_until(s_.start + t.target, s_.clock.spin_gaps) - s_.start;
  t.slept = t1 - now;
  if (think_ && t.target > now && t1 > t.target) {
    debt_ += t1 - t.target;
    tot_.late_ns += t1 - t.target;
  }
  t.dw = wait_deps(s_, i, t1 + s_.start);
  t.t0 = t.dw.waited ? mono_ns() : t1 + s_.start;
  t.dep_wait = t.t0 - s_.start - t1;
}

// The dependency decided the issue time, not the gap: the thread is on its time now.
void Worker::follow_dependency(const Turn& t) {
  if (!think_ || t.dw.latest <= t.target) return;
  tot_.unpaid_ns += debt_;
  debt_ = 0;
  const DepKind k = s_.plan.dep_kind(t.dw.at);
  if (resource_dep(k) && t.t0 - s_.start > t.dw.latest) {
    debt_ += t.t0 - s_.start - t.dw.latest;  // woken late by an order the original did not wait for
    tot_.late_ns += t.t0 - s_.start - t.dw.latest;
  }
}

void Worker::fill_record(uint64_t i, const PlanOp& op, const Event& e, const Turn& t, int64_t ret, uint16_t flags,
                         uint64_t t2, OpRecord& r) const {
  const DepWait& dw = t.dw;
  uint64_t issue = t.t0 - s_.start;
  if (op.action != OpAction::kIssue && e.nr != kEvProcExec) flags |= kOfSkipped;
  if (op.action == OpAction::kIssue && !(flags & kOfSkipped) && !(e.flags & kEfUnfinished) &&
      (ret < 0 ? ret : 0) != (e.ret < 0 ? e.ret : 0))
    flags |= kOfDivergent;
  if (op.flags & kPfApproxDep) flags |= kOfApproxDep;
  if (t.dep_wait > 0 && dw.at != UINT32_MAX)
    flags |= static_cast<uint16_t>(static_cast<unsigned>(s_.plan.dep_kind(dw.at)) << kOfDepKindShift);
  uint64_t intended = s_.timing == TimingMode::kExact ? e.ts - s_.plan.base_ts
                      : t.want != UINT64_MAX          ? t.want
                                                      : std::max(t.target, dw.latest);
  r.event_index = i;
  r.start = issue;
  r.latency = op.action == OpAction::kIssue ? t2 - t.t0 : 0;
  r.lateness = signed_delta(issue, intended);
  r.dep_wait = t.dep_wait;
  r.gap = t.slept;
  r.ret = ret;
  r.recorded_ret = e.ret;
  r.waited_on = (dw.at != UINT32_MAX && t.dep_wait > 0) ? s_.plan.dep(dw.at) + 1ull : 0;
  r.recorded_dur = e.dur;
  r.pid = e.pid;
  r.tid = e.tid;
  r.worker = w_;
  r.nr = e.nr;
  r.flags = flags;
}

// What the op leaves owed to this worker's next op (think mode), and when it
// completes for those waiting on it (ns since start).
uint64_t Worker::settle_after(const PlanOp& op, const Event& e, const Turn& t, const OpRecord& r) {
  const RecordCost& rc = s_.clock.recorded;
  // fork/clone/exec are emulated or reduced to an open: the rest of their
  // recorded time (copying the address space, loading the program) is CPU
  // work of this thread and is replayed as think time before the next op
  // (PlanOp::own_ns: only what no earlier op's gap already covers).
  carry_ = 0;
  if (think_ && e.nr == kEvPageFault) {
    // The touch took (part of) the fault's gap: sleep the rest before the
    // next op, or pay a longer touch back from the gaps after.
    if (r.latency < t.fault_gap)
      carry_ = t.fault_gap - r.latency;
    else
      debt_ += r.latency - t.fault_gap;
  } else if (think_ && op.action == OpAction::kIssue && !(r.flags & kOfSkipped)) {
    // The entry/exit the recorded gap already holds, and what the
    // executor did beyond the plain call (never more than the call took).
    const uint64_t sys = std::min<uint64_t>(s_.clock.syscall_ns, r.latency);
    const uint64_t extra = std::min<uint64_t>(e.nr < kMaxSyscallNr ? s_.clock.issue_ns[e.nr] : 0, r.latency - sys);
    debt_ += sys + extra;
    tot_.syscall_ns += sys;
    tot_.issue_ns += extra;
  } else if (think_ && op.action == OpAction::kEmulate && sleeps_recorded_work(e.nr)) {
    // The kernel's work on the original's fd table, which the replay skips.
    const uint64_t recorded = rc.present ? rc.dur_ns[static_cast<size_t>(class_of(e.nr))] : 0;
    const uint64_t work = std::min(kMaxSleptWorkNs, sat_sub(e.dur, recorded));
    carry_ = work;
    tot_.recorder_dur_slept_ns += work;
  }
  // A process's exit completes, for its waiting parent, after the
  // teardown the original's parent waited for (plan.h). The completion is
  // published as that future time, which the waiter sleeps to: this
  // worker goes on (it may carry a thread that started meanwhile).
  uint64_t completes = prev_done_;
  if (e.nr == kEvProcExit) {
    if (think_) completes += op.own_ns;
  } else if (op.own_ns) {
    carry_ = op.own_ns > r.latency ? op.own_ns - r.latency : 0;
  }
  return completes;
}

// Releases everyone waiting on this worker's remaining ops so the replay
// ends: each is marked done, unrun.
void Worker::release_rest(uint64_t cur, uint64_t& pos) {
  if (cur != kNoOp) {
    s_.sync.rec[cur & s_.plan.op_mask] = OpRecord{};
    publish_done(s_, cur, mono_ns() - s_.start);
  }
  for (uint64_t i; (i = next_op(s_, w_, pos)) != kNoOp;) {
    s_.sync.rec[i & s_.plan.op_mask] = OpRecord{};
    publish_done(s_, i, mono_ns() - s_.start);
  }
}

}  // namespace

void engine_detail::run_worker(Shared& s, uint32_t w, WorkerSlot& slot) {
  prepare_worker_thread();
  Worker(s, w, slot).run();
}

}  // namespace fsr
