#include "replayer/engine/engine.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "replayer/engine/engine_worker.h"
#include "replayer/engine/interrupt.h"
#include "base/clock.h"
#include "base/saturating.h"

namespace fsr {

using engine_detail::Shared;
using engine_detail::WorkerSlot;

uint64_t mono_ns() { return now_ns(); }

uint64_t measure_syscall_overhead_ns() {
  constexpr int kRuns = 2001;
  std::vector<uint64_t> d(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    uint64_t t0 = mono_ns();
    syscall(SYS_getppid);
    d[i] = mono_ns() - t0;
  }
  std::nth_element(d.begin(), d.begin() + kRuns / 2, d.end());
  return d[kRuns / 2];
}

void prepare_worker_thread() {
  // The default 50 us timer slack lets the kernel fire a sleeper's timer that
  // much late (to batch wake-ups): every think-time sleep would overshoot by
  // it (measured here: 100 us sleeps woke 93 us late at the median with the
  // default, 52 us with 1 ns), beyond what the spin tail absorbs.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

namespace {

constexpr uint64_t kSpinTailNs = 60'000;  // sleep to this much before the deadline, then spin
constexpr uint64_t kStopPollNs = 50'000'000;   // a sleep's slice between looks at a stop
constexpr uint64_t kMaxSleptWorkNs = 1'000'000;  // an emulated call's work slept at most (sleeps_recorded_work)

inline void cpu_relax() { __builtin_ia32_pause(); }

// Sleeps until absolute monotonic time `t` (ns), precise to a few µs.
// Returns the clock when it woke (its last reading, so callers need none).
// A stop (interrupt.h) cuts it short: it sleeps in slices of at most
// kStopPollNs, so that a signal ends a long think time within that.
uint64_t sleep_until(uint64_t t) {
  uint64_t now = mono_ns();
  while (t > now + kSpinTailNs) {
    if (stop_signal()) return now;
    const uint64_t wake = std::min(t - kSpinTailNs, now + kStopPollNs);
    timespec ts{static_cast<time_t>(wake / 1'000'000'000ull), static_cast<long>(wake % 1'000'000'000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {}
    now = mono_ns();
  }
  while (now < t) {
    cpu_relax();
    now = mono_ns();
  }
  return now;
}

// Op `d` has completed: when (ns since start), or 0 when its slot went to a
// later op meanwhile (it completed long ago).
inline uint64_t completion_of(Shared& s, uint32_t d) {
  const size_t slot = d & s.plan.op_mask;
  const uint64_t t = s.sync.done_ns[slot].load(std::memory_order_acquire);
  return s.sync.done[slot].load(std::memory_order_acquire) == d + 1ull && t ? t - 1 : 0;
}

// The next op of worker `w` at or after `pos`, in event order; kNoOp at the end.
uint64_t next_op(Shared& s, uint32_t w, uint64_t& pos) {
  WindowSync& y = s.sync;
  for (int idle = 0;;) {
    const uint64_t p = y.planned.load(std::memory_order_acquire);
    const uint64_t planned = p & ~kPlannedEnd;
    if (pos >= planned) {
      if (p & kPlannedEnd) return kNoOp;
      if (++idle < s.spin / 10) {
        cpu_relax();
        continue;
      }
      y.planned_lot.park(0, [&] { return y.planned.load(std::memory_order_acquire) != p; });
      continue;
    }
    idle = 0;
    const uint64_t base = y.base.load(std::memory_order_acquire);
    if (pos < base) {  // all done: none of them is this worker's
      pos = base;
      continue;
    }
    const uint32_t ow = y.worker[pos & s.plan.op_mask].load(std::memory_order_acquire);
    if (y.base.load(std::memory_order_acquire) > pos) continue;  // its slot was reused meanwhile
    const uint64_t i = pos++;
    if (ow == w) return i;
  }
}

inline void wait_ready(Shared& s, uint64_t i) {
  std::atomic<uint64_t>& r = s.sync.ready[i & s.plan.op_mask];
  uint64_t v = r.load(std::memory_order_acquire);
  for (int spin = 0; v < i + 1 && spin < s.spin; ++spin) {
    cpu_relax();
    v = r.load(std::memory_order_acquire);
  }
  if (v < i + 1) s.sync.ready_lot.park(i, [&] { return r.load(std::memory_order_acquire) >= i + 1; });
}

// The op's record and completion words, last written or read on the other
// CPU (the record taker, the previous op in the slot): owned by this one
// while its call runs, so that publish_done's fence, which waits for these
// stores, does not wait for their misses (it was ~40% of this loop's own time).
inline void prefetch_for_write(Shared& s, uint64_t i, const OpRecord& r) {
  const size_t slot = i & s.plan.op_mask;
  for (size_t o = 0; o < sizeof(OpRecord); o += 64) __builtin_prefetch(reinterpret_cast<const char*>(&r) + o, 1, 3);
  __builtin_prefetch(&s.sync.done[slot], 1, 3);
  __builtin_prefetch(&s.sync.done_ns[slot], 1, 3);
}

inline void publish_done(Shared& s, uint64_t i, uint64_t completes) {
  const size_t slot = i & s.plan.op_mask;
  s.sync.done_ns[slot].store(completes + 1, std::memory_order_relaxed);
  s.sync.done[slot].store(i + 1, std::memory_order_release);
  s.sync.done_lot.unpark(i);
}

// Waits for op i's dependencies. Returns the latest completion time (ns since
// start; 0 without dependencies), with the index in plan.deps of the
// dependency it was, and whether it had to wait. `now` is the clock on entry.
struct DepWait {
  uint64_t latest = 0;
  uint32_t at = UINT32_MAX;  // index into plan.deps
  bool waited = false;
};
inline DepWait wait_deps(Shared& s, uint64_t i, uint64_t now) {
  const PlanOp& op = s.plan.op(i);
  DepWait d;
  for (uint32_t k = op.dep_begin; k != op.dep_end; ++k) {
    const uint32_t dep = s.plan.dep(k);
    if (dep == kNoOp) continue;
    std::atomic<uint64_t>& w = s.sync.done[dep & s.plan.op_mask];
    uint64_t v = w.load(std::memory_order_acquire);
    if (v < dep + 1ull) {
      d.waited = true;
      for (int spin = 0; v < dep + 1ull && spin < s.spin; ++spin) {
        cpu_relax();
        v = w.load(std::memory_order_acquire);
      }
      if (v < dep + 1ull) s.sync.done_lot.park(dep, [&] { return w.load(std::memory_order_acquire) >= dep + 1ull; });
    }
    const uint64_t t = completion_of(s, dep);
    if (t >= d.latest) {
      d.latest = t;
      d.at = k;
    }
  }
  // A dependency may complete later than it was published: a held exit
  // (plan.h) announces the time its teardown ends.
  if (d.latest > now - s.start && !d.waited) {
    d.waited = true;
    sleep_until(s.start + d.latest);
  } else if (d.waited && d.latest > mono_ns() - s.start) {
    sleep_until(s.start + d.latest);
  }
  return d;
}

// Dependencies the original never blocked on: ordering the replay adds to
// keep a shared resource's order. A late wake-up after one is the replayer's
// cost; after a causal wait the original woke up as late.
inline bool resource_dep(DepKind k) {
  return k != DepKind::kCausal && k != DepKind::kApproxCausal && k != DepKind::kThreadStart;
}


}  // namespace

void engine_detail::run_worker(Shared& s, uint32_t w, WorkerSlot& slot) {
  prepare_worker_thread();
  std::vector<char> buf(s.buf_size, 'f');
  DirCache dirs(&s.env.tree_gen);
  while (!s.go.load(std::memory_order_acquire)) s.go.wait(false);
  const bool think = s.timing == TimingMode::kThink;
  const RecordCost& rc = s.clock.recorded;
  ClockTotals& tot = slot.clock;
  uint64_t prev_done = 0;  // completion of this worker's previous op (ns since start)
  // Time owed back (think mode): sleeps that woke late, the replayer's own
  // work between ops, and the costs a recorded gap holds that the replay pays
  // again (entry/exit, the executor's work). Taken from the next gaps, so
  // that the replay's compute time sums to the original's instead of
  // accumulating the replayer's. Dropped when a dependency, not the gap,
  // decides when an op issues: the thread is then on the dependency's time.
  uint64_t debt = 0;
  uint64_t carry = 0;  // think time owed by the previous op (see below)
  auto pay = [&debt](uint64_t gap) {
    uint64_t paid = std::min(gap, debt);
    debt -= paid;
    return gap - paid;
  };
  // The recorded gap less what recording added to it (record_cost.h).
  auto gap_of = [&](const PlanOp& op, const Event& e) {
    if (!think) return op.gap;
    const LessRecording g = less_recording(op, e, s.clock);
    tot.recorder_gap_ns += g.taken;
    return g.gap;
  };
  uint64_t cur = kNoOp, pos = 0;
  try {
    for (uint64_t i; (i = next_op(s, w, pos)) != kNoOp;) {
      cur = i;
      wait_ready(s, i);
      const PlanOp& op = s.plan.op(i);
      const Event& e = s.plan.event(i);
      OpRecord& r = s.sync.rec[i & s.plan.op_mask];
      if (stop_signal()) [[unlikely]] {  // stopping: no call, no sleep; done at once, so that no one waits
        r = OpRecord{};
        r.event_index = i;
        r.flags = kOfSkipped;
        publish_done(s, i, mono_ns() - s.start);
        continue;
      }
      prefetch_for_write(s, i, r);
      uint64_t now = mono_ns() - s.start;
      uint64_t target = now;
      uint64_t t1 = now;  // after the sleep, before the dependencies
      DepWait dw;
      uint64_t slept = 0;
      const bool first = op.flags & kPfFirstOfThread;
      // A page fault's record is made at the end of the fault: the original's
      // fault work lies in the gap before it. Touch at once and let the touch
      // use up that gap; what is left of it is slept after (see `carry`).
      // (A thread's first op has no gap of its own: fault_gap stays 0.)
      const bool think_fault = think && e.nr == kEvPageFault;
      const bool fault_in_gap = think_fault && !first;
      uint64_t fault_gap = 0;
      if (s.timing == TimingMode::kExact) {
        target = e.ts - s.plan.base_ts;
      } else if (fault_in_gap) {
        fault_gap = pay(gap_of(op, e) + carry);
        target = now;
      } else if (think) {
        target = first ? (s.plan.threads[op.thread].creator == kNoOp ? gap_of(op, e) : 0)
                       : prev_done + pay(gap_of(op, e) + carry);
        // The previous op's bookkeeping outlasted the gap: late already.
        if (!first && target < now) {
          debt += now - target;
          tot.late_ns += now - target;
        }
      }
      uint64_t t0, dep_wait;
      uint64_t want = UINT64_MAX;  // a new thread's intended start (its creator's completion + its start-up gap)
      if (first && think && s.plan.threads[op.thread].creator != kNoOp) {
        // A new thread: its creator first, then its start-up gap (engine.h
        // thread_start; in the original that gap holds waiting for a CPU too:
        // a thread made while its siblings run starts when one of them ends).
        dw = wait_deps(s, i, now + s.start);
        uint64_t td = dw.waited ? mono_ns() - s.start : now;
        dep_wait = td - now;
        const ThreadStart ts = thread_start(dw.at != UINT32_MAX, dw.latest, td, pay(gap_of(op, e)));
        want = ts.want;
        target = ts.target;
        debt += ts.owed;
        tot.late_ns += ts.owed;
        t1 = target > td ? sleep_until(s.start + target) - s.start : td;
        slept = t1 - td;
        if (t1 > target) debt += t1 - target;
        t0 = t1 + s.start;
      } else {
        if (target > now) t1 = sleep_until(s.start + target) - s.start;
        slept = t1 - now;
        if (think && target > now && t1 > target) {
          debt += t1 - target;
          tot.late_ns += t1 - target;
        }
        dw = wait_deps(s, i, t1 + s.start);
        t0 = dw.waited ? mono_ns() : t1 + s.start;
        dep_wait = t0 - s.start - t1;
      }
      uint16_t flags = 0;
      int64_t ret = e.ret;
      if (think && dw.latest > target) {
        // The dependency decided the issue time, not the gap: the thread is on its time now.
        tot.unpaid_ns += debt;
        debt = 0;
        const DepKind k = s.plan.dep_kind(dw.at);
        if (resource_dep(k) && t0 - s.start > dw.latest) {
          debt += t0 - s.start - dw.latest;  // woken late by an order the original did not wait for
          tot.late_ns += t0 - s.start - dw.latest;
        }
      }
      if (op.action == OpAction::kIssue) {
        ret = execute_op(i, s.env, buf.data(), buf.size(), flags, &dirs);
        if (uint64_t extra = s.inject[static_cast<size_t>(class_of(e.nr))]) sleep_until(mono_ns() + extra);
      }
      uint64_t t2 = mono_ns();
      apply_closes(i, s.env);
      uint64_t issue = t0 - s.start;
      if (op.action != OpAction::kIssue && e.nr != kEvProcExec) flags |= kOfSkipped;
      if (op.action == OpAction::kIssue && !(flags & kOfSkipped) && !(e.flags & kEfUnfinished) &&
          (ret < 0 ? ret : 0) != (e.ret < 0 ? e.ret : 0))
        flags |= kOfDivergent;
      if (op.flags & kPfApproxDep) flags |= kOfApproxDep;
      if (dep_wait > 0 && dw.at != UINT32_MAX)
        flags |= static_cast<uint16_t>(static_cast<unsigned>(s.plan.dep_kind(dw.at)) << kOfDepKindShift);
      uint64_t intended = s.timing == TimingMode::kExact ? e.ts - s.plan.base_ts
                          : want != UINT64_MAX             ? want
                                                           : std::max(target, dw.latest);
      r.event_index = i;
      r.start = issue;
      r.latency = op.action == OpAction::kIssue ? t2 - t0 : 0;
      r.lateness = static_cast<int64_t>(issue) - static_cast<int64_t>(intended);
      r.dep_wait = dep_wait;
      r.gap = slept;
      r.ret = ret;
      r.recorded_ret = e.ret;
      r.waited_on = (dw.at != UINT32_MAX && dep_wait > 0) ? s.plan.dep(dw.at) + 1ull : 0;
      r.recorded_dur = e.dur;
      r.pid = e.pid;
      r.tid = e.tid;
      r.worker = w;
      r.nr = e.nr;
      r.flags = flags;
      prev_done = t2 - s.start;
      // fork/clone/exec are emulated or reduced to an open: the rest of their
      // recorded time (copying the address space, loading the program) is CPU
      // work of this thread and is replayed as think time before the next op
      // (PlanOp::own_ns: only what no earlier op's gap already covers).
      carry = 0;
      if (think_fault) {
        // The touch took (part of) the fault's gap: sleep the rest before the
        // next op, or pay a longer touch back from the gaps after.
        if (r.latency < fault_gap) carry = fault_gap - r.latency;
        else debt += r.latency - fault_gap;
      } else if (think && op.action == OpAction::kIssue && !(flags & kOfSkipped)) {
        // The entry/exit the recorded gap already holds, and what the
        // executor did beyond the plain call (never more than the call took).
        const uint64_t sys = std::min<uint64_t>(s.clock.syscall_ns, r.latency);
        const uint64_t extra = std::min<uint64_t>(e.nr < kMaxSyscallNr ? s.clock.issue_ns[e.nr] : 0, r.latency - sys);
        debt += sys + extra;
        tot.syscall_ns += sys;
        tot.issue_ns += extra;
      } else if (think && op.action == OpAction::kEmulate && sleeps_recorded_work(e.nr)) {
        // The kernel's work on the original's fd table, which the replay skips.
        const uint64_t work = std::min(kMaxSleptWorkNs, sat_sub(e.dur, rc.present ? rc.dur_ns[static_cast<size_t>(class_of(e.nr))] : 0));
        carry = work;
        tot.recorder_dur_slept_ns += work;
      }
      // A process's exit completes, for its waiting parent, after the
      // teardown the original's parent waited for (plan.h). The completion is
      // published as that future time, which the waiter sleeps to: this
      // worker goes on (it may carry a thread that started meanwhile).
      uint64_t completes = prev_done;
      if (e.nr == kEvProcExit) {
        if (think) completes += op.own_ns;
      } else if (op.own_ns) {
        carry = op.own_ns > r.latency ? op.own_ns - r.latency : 0;
      }
      publish_done(s, i, completes);
      slot.done.store(slot.done.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    tot.unpaid_ns += debt;
  } catch (...) {
    slot.error = std::current_exception();
    slot.error_op = "event " + std::to_string(cur);
    slot.failed.store(true, std::memory_order_release);
    // Release everyone waiting on this worker's remaining ops so the replay
    // ends: each is marked done, unrun.
    if (cur != kNoOp) {
      s.sync.rec[cur & s.plan.op_mask] = OpRecord{};
      publish_done(s, cur, mono_ns() - s.start);
    }
    for (uint64_t i; (i = next_op(s, w, pos)) != kNoOp;) {
      s.sync.rec[i & s.plan.op_mask] = OpRecord{};
      publish_done(s, i, mono_ns() - s.start);
    }
  }
  slot.finished_ns = mono_ns();
}

bool sleeps_recorded_work(uint16_t nr) {
  switch (nr) {
    case SYS_dup: case SYS_dup2: case SYS_dup3: case SYS_fcntl: case SYS_close: case SYS_close_range:
    case SYS_pipe: case SYS_pipe2: case SYS_socketpair: case SYS_eventfd: case SYS_eventfd2:
    case SYS_epoll_create1: case SYS_epoll_ctl: case SYS_getcwd: case SYS_umask: case SYS_fchdir:
    case SYS_lseek:
      return true;
    default:
      return false;
  }
}

}  // namespace fsr
