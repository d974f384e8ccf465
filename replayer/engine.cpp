#include "replayer/engine.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

namespace fsr {

uint64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

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

inline void cpu_relax() { __builtin_ia32_pause(); }

// Sleeps until absolute monotonic time `t` (ns), precise to a few µs.
void sleep_until(uint64_t t) {
  uint64_t now = mono_ns();
  if (t > now + kSpinTailNs) {
    uint64_t wake = t - kSpinTailNs;
    timespec ts{static_cast<time_t>(wake / 1'000'000'000ull), static_cast<long>(wake % 1'000'000'000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {}
  }
  while (mono_ns() < t) cpu_relax();
}

struct alignas(64) WorkerSlot {
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::string error_op;
};

struct Shared {
  const Plan& plan;
  const std::vector<Event>& ev;
  ExecEnv& env;
  TimingMode timing;
  const InjectedLatency& inject;
  std::unique_ptr<std::atomic<uint64_t>[]> done;  // completion time + 1 (ns since start); 0 = pending
  std::vector<OpRecord>& out;
  uint64_t start = 0;
  std::atomic<bool> go{false};
  uint64_t syscall_ns = 0;  // paid back per issued call in think mode (measure_syscall_overhead_ns)
};

// Waits for op i's dependencies, up to the latest completion time, which it
// returns with the dep it was.
inline uint64_t wait_deps(Shared& s, uint32_t i, uint32_t& last_dep) {
  const PlanOp& op = s.plan.ops[i];
  uint64_t latest = 0;
  last_dep = kNoOp;
  for (uint32_t k = op.dep_begin; k < op.dep_end; ++k) {
    uint32_t d = s.plan.deps[k];
    std::atomic<uint64_t>& w = s.done[d];
    uint64_t v = w.load(std::memory_order_acquire);
    for (int spin = 0; v == 0 && spin < 2000; ++spin) {
      cpu_relax();
      v = w.load(std::memory_order_acquire);
    }
    while (v == 0) {
      w.wait(0, std::memory_order_acquire);
      v = w.load(std::memory_order_acquire);
    }
    if (v - 1 >= latest) {
      latest = v - 1;
      last_dep = d;
    }
  }
  // A dependency may complete later than it was published: a held exit
  // (plan.h) announces the time its teardown ends.
  if (latest > mono_ns() - s.start) sleep_until(s.start + latest);
  return latest;
}

void run_worker(Shared& s, uint32_t w, WorkerSlot& slot) {
  const std::vector<uint32_t>& list = s.plan.workers[w];
  prepare_worker_thread();
  std::vector<char> buf(max_io_size(s.plan, s.ev), 'f');
  while (!s.go.load(std::memory_order_acquire)) s.go.wait(false);
  uint64_t prev_done = 0;  // completion of this worker's previous op (ns since start)
  // Oversleep owed back (think mode): a sleep that woke late (scheduler delay)
  // shortens the next gaps, so that the replay's compute time sums to the
  // recorded one instead of accumulating wake-up latency.
  uint64_t debt = 0;
  uint64_t carry = 0;  // think time owed by the previous op (see below)
  auto pay = [&debt](uint64_t gap) {
    uint64_t paid = std::min(gap, debt);
    debt -= paid;
    return gap - paid;
  };
  uint32_t cur = kNoOp;
  try {
    for (uint32_t i : list) {
      cur = i;
      const PlanOp& op = s.plan.ops[i];
      const Event& e = s.ev[i];
      OpRecord& r = s.out[i];
      uint64_t now = mono_ns() - s.start;
      uint64_t target = now;
      uint32_t last_dep = kNoOp;
      uint64_t dep_done = 0, dep_wait = 0, slept = 0;
      const bool first = op.flags & kPfFirstOfThread;
      // A page fault's record is made at the end of the fault: the original's
      // fault work lies in the gap before it. Touch at once and let the touch
      // use up that gap; what is left of it is slept after (see `carry`).
      // (A thread's first op has no gap of its own: fault_gap stays 0.)
      const bool think_fault = s.timing == TimingMode::kThink && e.nr == kEvPageFault;
      const bool fault_in_gap = think_fault && !first;
      uint64_t fault_gap = 0;
      if (s.timing == TimingMode::kExact) {
        target = e.ts - s.plan.base_ts;
      } else if (fault_in_gap) {
        fault_gap = pay(op.gap + carry);
        target = now;
      } else if (s.timing == TimingMode::kThink) {
        target = first ? (s.plan.threads[op.thread].creator == kNoOp ? op.gap : 0)
                       : prev_done + pay(op.gap + carry);
      }
      if (first && s.timing == TimingMode::kThink && s.plan.threads[op.thread].creator != kNoOp) {
        // A new thread: its creator first, then its start-up compute.
        dep_done = wait_deps(s, i, last_dep);
        uint64_t t1 = mono_ns() - s.start;
        dep_wait = t1 - now;
        target = t1 + pay(op.gap);
        sleep_until(s.start + target);
        slept = mono_ns() - s.start - t1;
        if (t1 + slept > target) debt += t1 + slept - target;
      } else {
        if (target > now) sleep_until(s.start + target);
        uint64_t t1 = mono_ns() - s.start;
        slept = t1 - now;
        if (s.timing == TimingMode::kThink && target > now && t1 > target) debt += t1 - target;
        dep_done = wait_deps(s, i, last_dep);
        dep_wait = mono_ns() - s.start - t1;
      }
      uint16_t flags = 0;
      int64_t ret = e.ret;
      uint64_t t0 = mono_ns();
      if (op.action == OpAction::kIssue) {
        ret = execute_op(i, s.env, buf.data(), buf.size(), flags);
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
      uint64_t intended = s.timing == TimingMode::kExact ? e.ts - s.plan.base_ts : std::max(target, dep_done);
      r.event_index = i;
      r.start = issue;
      r.latency = op.action == OpAction::kIssue ? t2 - t0 : 0;
      r.lateness = static_cast<int64_t>(issue) - static_cast<int64_t>(intended);
      r.dep_wait = dep_wait;
      r.gap = slept;
      r.ret = ret;
      r.recorded_ret = e.ret;
      r.waited_on = (last_dep != kNoOp && dep_wait > 0) ? last_dep + 1ull : 0;
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
      } else if (op.action == OpAction::kIssue && !(flags & kOfSkipped))
        debt += std::min(s.syscall_ns, r.latency);  // the entry/exit the recorded gap already holds
      // A process's exit completes, for its waiting parent, after the
      // teardown the original's parent waited for (plan.h). The completion is
      // published as that future time, which the waiter sleeps to: this
      // worker goes on (it may carry a thread that started meanwhile).
      uint64_t completes = prev_done;
      if (e.nr == kEvProcExit) {
        if (s.timing == TimingMode::kThink) completes += op.own_ns;
      } else if (op.own_ns) {
        carry = op.own_ns > r.latency ? op.own_ns - r.latency : 0;
      }
      s.done[i].store(completes + 1, std::memory_order_release);
      if (op.flags & kPfNotify) s.done[i].notify_all();
      slot.done.store(slot.done.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  } catch (...) {
    slot.error = std::current_exception();
    slot.error_op = "event " + std::to_string(cur);
    slot.failed.store(true, std::memory_order_release);
    // Release everyone waiting on this worker's remaining ops so the replay ends.
    bool past = false;
    for (uint32_t i : list) {
      if (i == cur) past = true;
      if (past && s.done[i].load() == 0) {
        s.done[i].store(mono_ns() - s.start + 1, std::memory_order_release);
        s.done[i].notify_all();
      }
    }
  }
}

}  // namespace

Result<EngineResult> run_engine(const Plan& plan, const std::vector<Event>& events, ExecEnv& env,
                                TimingMode timing, const EngineProgress& progress,
                                const InjectedLatency& inject, uint64_t syscall_overhead_ns) {
  EngineResult res;
  res.ops.resize(events.size());
  Shared s{plan, events, env, timing, inject,
           std::unique_ptr<std::atomic<uint64_t>[]>(new std::atomic<uint64_t>[events.size() + 1]),
           res.ops};
  for (size_t i = 0; i < events.size(); ++i) s.done[i].store(0, std::memory_order_relaxed);
  if (timing == TimingMode::kThink)
    s.syscall_ns = res.syscall_overhead_ns =
        syscall_overhead_ns == kMeasureOverhead ? measure_syscall_overhead_ns() : syscall_overhead_ns;
  const uint32_t nw = static_cast<uint32_t>(plan.workers.size());
  std::unique_ptr<WorkerSlot[]> slots(new WorkerSlot[nw]);
  std::vector<std::thread> threads;
  threads.reserve(nw);
  for (uint32_t w = 0; w < nw; ++w) threads.emplace_back(run_worker, std::ref(s), w, std::ref(slots[w]));
  s.start = mono_ns();
  s.go.store(true, std::memory_order_release);
  s.go.notify_all();
  if (progress) {
    // Poll until every worker is done; the workers never wait on this thread.
    while (true) {
      uint64_t d = 0;
      for (uint32_t w = 0; w < nw; ++w) d += slots[w].done.load(std::memory_order_relaxed);
      progress(d, events.size());
      if (d >= events.size()) break;
      bool any_err = false;
      for (uint32_t w = 0; w < nw; ++w) any_err |= slots[w].failed.load(std::memory_order_acquire);
      if (any_err) break;
      struct timespec ts{0, 100'000'000};
      nanosleep(&ts, nullptr);
    }
  }
  for (auto& t : threads) t.join();
  res.wall_ns = mono_ns() - s.start;
  for (uint32_t w = 0; w < nw; ++w) {
    if (!slots[w].error) continue;
    try {
      std::rethrow_exception(slots[w].error);
    } catch (const std::exception& ex) {
      return Status::error("replay worker " + std::to_string(w) + " failed at " + slots[w].error_op +
                           ": " + ex.what() + " (a bug: please report it with the trace)");
    }
  }
  return res;
}

}  // namespace fsr
