// SPDX-License-Identifier: Apache-2.0
// The engine's drivers (engine.h): the workers started and joined around a
// whole plan (run_engine) or around the planner streaming the trace into the
// window while they run it (run_engine_stream).
#include <sched.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "replayer/engine/engine.h"
#include "replayer/engine/engine_worker.h"
#include "replayer/engine/interrupt.h"
#include "base/saturating.h"

namespace fsr {

using engine_detail::Shared;
using engine_detail::WorkerSlot;

namespace {

// The CPUs this process may run on (its affinity: a container's or
// taskset's share, not the machine's).
uint32_t usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return std::max(1, CPU_COUNT(&set));
}

// Every dependency wait returns at once from now on (a stop, or a cycle in
// the plan: CycleWatch).
void release_deps(WindowSync& sync) {
  sync.deps_released.store(true, std::memory_order_release);
  sync.done_lot.unpark_all();
}

// The workers, started and joined around `body`, which plans and takes the
// records (run_engine, run_engine_stream).
template <typename Body>
Result<EngineResult> with_workers(const Plan& plan, WindowSync& sync, ExecEnv& env, TimingMode timing,
                                  const InjectedLatency& inject, const ThinkClock& clock, uint64_t buf_size,
                                  Body&& body) {
  EngineResult res;
  // Calls larger than a worker's buffer share one (executor.h big_buf).
  std::vector<char> big;
  if (buf_size > kWorkerBufMax) {
    big.assign(buf_size, 'f');
    env.big_buf = big.data();
    env.big_buf_size = big.size();
  }
  struct Unset {  // env outlives this call; `big` does not
    ExecEnv& env;
    ~Unset() { env.big_buf = nullptr, env.big_buf_size = 0; }
  } unset{env};
  Shared s{plan, env, timing, inject, clock, sync, std::min(buf_size, kWorkerBufMax)};
  if (timing == TimingMode::kThink) res.syscall_overhead_ns = clock.syscall_ns;
  const uint32_t nw = plan.worker_count;
  if (nw + 1 > usable_cpus()) s.spin = 50;
  std::unique_ptr<WorkerSlot[]> slots(new WorkerSlot[nw]);
  std::vector<std::thread> threads;
  threads.reserve(nw);
  sync.workers = nw;
  for (uint32_t w = 0; w < nw; ++w) threads.emplace_back(engine_detail::run_worker, std::ref(s), w, std::ref(slots[w]));
  auto failed = [&] {
    for (uint32_t w = 0; w < nw; ++w)
      if (slots[w].failed.load(std::memory_order_acquire)) return true;
    return false;
  };
  Status st = body(
      [&] {
        s.start = mono_ns();
        s.go.store(true, std::memory_order_release);
        s.go.notify_all();
      },
      failed);
  if (!st) {  // stop: the rest of the trace is not planned; workers end at what is
    release_deps(sync);
    sync.planned.store(sync.planned.load() | kPlannedEnd, std::memory_order_release);
    sync.planned_lot.unpark(0);
    for (uint64_t i = 0; i < plan.ops.size(); ++i)  // release every wait for a final plan
      sync.ready[i].store(UINT64_MAX, std::memory_order_release);
    sync.ready_lot.unpark_all();
    if (!s.go.load()) {
      s.start = mono_ns();
      s.go.store(true, std::memory_order_release);
      s.go.notify_all();
    }
  }
  for (auto& t : threads) t.join();
  uint64_t end = 0;
  for (uint32_t w = 0; w < nw; ++w) end = std::max(end, slots[w].finished_ns);
  res.wall_ns = (end > s.start ? end : mono_ns()) - s.start;
  for (uint32_t w = 0; w < nw; ++w) {
    const ClockTotals& c = slots[w].clock;
    res.clock.recorder_gap_ns += c.recorder_gap_ns;
    res.clock.recorder_dur_slept_ns += c.recorder_dur_slept_ns;
    res.clock.syscall_ns += c.syscall_ns;
    res.clock.issue_ns += c.issue_ns;
    res.clock.late_ns += c.late_ns;
    res.clock.unpaid_ns += c.unpaid_ns;
  }
  for (uint32_t w = 0; w < nw; ++w) {
    if (!slots[w].error) continue;
    try {
      std::rethrow_exception(slots[w].error);
    } catch (const std::exception& ex) {
      return Status::error("replay worker " + std::to_string(w) + " failed at " + slots[w].error_op + ": " + ex.what() +
                           " (a bug: please report it with the trace)");
    }
  }
  FSR_RETURN_IF_ERROR(st);
  return res;
}

Status stopped_by(int sig) {
  return Status::error(std::string("stopped by ") + (sigabbrev_np(sig) ? "SIG" + std::string(sigabbrev_np(sig))
                                                                       : "signal " + std::to_string(sig)),
                       StatusCode::kInterrupted);
}

// The planner's side of a streamed run: the trace read chunk by chunk and
// planned into the window as its slots free up.
class ChunkFeeder {
 public:
  ChunkFeeder(PlanStream& ps, const EventSource& next) : ps_(ps), next_(next) {}
  // Plans what fits; false on a read error (error()). `progressed`: an op was added.
  bool plan_some(bool& progressed);
  bool more() const { return more_; }  // false once the trace's end is planned
  const Status& error() const { return err_; }

 private:
  PlanStream& ps_;
  const EventSource& next_;
  std::vector<Event> chunk_;
  size_t at_ = 0;
  bool more_ = true;
  Status err_;
};

bool ChunkFeeder::plan_some(bool& progressed) {
  struct Woken {  // every way out wakes the workers on what was planned
    PlanStream& ps;
    ~Woken() { ps.wake(); }
  } woken{ps_};
  for (int n = 0; n < 4096 && ps_.room(); ++n) {
    if (at_ == chunk_.size()) {
      if (!more_) return true;
      ps_.wake();  // (reading and decoding the next chunk takes a while)
      auto r = next_(chunk_);
      if (!r) {
        err_ = r.status();
        return false;
      }
      at_ = 0;
      if (!r.value()) {
        more_ = false;
        chunk_.clear();
        ps_.finish();
        return true;
      }
      continue;
    }
    ps_.add(chunk_[at_++]);
    progressed = true;
  }
  return true;
}

// Says once when the oldest unfinished op has not finished for `stall_ns`
// beyond its own recorded time; again after the replay moved on.
struct StallWatch {
  const Plan& plan;
  const StallReport& stalled;
  uint64_t stall_ns;
  TimingMode timing;
  uint64_t advanced_at;  // when the oldest unfinished op last changed
  bool said = false;

  void check(uint64_t base, bool advanced, uint64_t now) {
    if (advanced) {
      advanced_at = now;
      said = false;
    } else if (stalled && !said && base < plan.size) {
      // The op's own recorded time (its call, and in think mode the gap
      // slept before it) holds the report back, but never longer than the
      // trace's enter span: a crafted duration or gap must not silence it.
      const uint64_t gap = timing == TimingMode::kThink ? plan.op(base).gap : 0;
      const uint64_t own = std::min(plan.enter_span, sat_add(plan.event(base).dur, gap));
      if (now - advanced_at > stall_ns + own) {
        said = true;
        stalled(base, now - advanced_at);
      }
    }
  }
};

// A plan whose dependency edges form a cycle (only a crafted or damaged
// trace makes one) would hold the replay forever: every worker still running
// waits for another op's completion, so none can come. Seen twice 100 ms
// apart with no op taken in between, the dependency waits are released for
// the rest of the run, and `replay` says so.
struct CycleWatch {
  uint64_t seen_at = 0;  // when the state was first seen (0: not seen)
  bool released = false;

  void check(WindowSync& sync, uint64_t base, bool advanced, uint64_t now) {
    if (released) return;
    const uint32_t running = sync.workers - std::min(sync.workers, sync.finished.load(std::memory_order_acquire));
    const bool stuck = !advanced && running > 0 && sync.done_lot.parked() >= running;
    if (!stuck) {
      seen_at = 0;
      return;
    }
    if (!seen_at) {
      seen_at = now;
      return;
    }
    if (now - seen_at < 100'000'000) return;
    released = true;
    std::fprintf(stderr,
                 "fsreplay replay: every worker waits for another op at op %llu: the plan's dependencies form a "
                 "cycle (a damaged or crafted trace); the rest replays without them\n",
                 static_cast<unsigned long long>(base));
    release_deps(sync);
  }
};

// Once the clock runs: records taken in order as the workers complete ops,
// the window refilled as they free its slots, until every op is taken.
Status take_records(PlanStream& ps, WindowSync& sync, ChunkFeeder& feed, const RecordSink& sink,
                    const StreamProgress& progress, StallWatch& stall) {
  CycleWatch cycle;
  const Plan& plan = ps.plan();
  // This thread shares the CPUs with the workers, and every wake-up of it
  // can preempt one of them: it wakes only as often as the window needs.
  // Records are taken in bulk; the planner refills when a slot frees up.
  // With the window more than three quarters full (workers may soon wait
  // for a plan) it polls every 50 us; else every 2 ms (at 1 M ops/s, 2,000
  // ops of a 131,072-op window); once the whole trace is planned only the
  // records remain, taken every 20 ms. The wall time is the workers' own
  // (WorkerSlot::finished_ns), so this sleep never lengthens it.
  const uint64_t window = plan.op_mask + 1;
  uint64_t base = 0, last_report = 0;
  while (true) {
    // A stop: the workers finish what they hold without a call or a sleep.
    if (int sig = stop_signal()) return stopped_by(sig);
    bool planned = false;
    if (!feed.plan_some(planned)) return feed.error();
    const uint64_t base_before = base;
    while (base < plan.size && sync.done[base & plan.op_mask].load(std::memory_order_acquire) == base + 1) {
      FSR_RETURN_IF_ERROR(sink(sync.rec[base & plan.op_mask], plan.event(base), plan.op(base)));
      sync.base.store(++base, std::memory_order_release);
    }
    if (!feed.more() && base == plan.size) return Status::ok();
    const uint64_t now = mono_ns();
    stall.check(base, base != base_before, now);
    cycle.check(sync, base, base != base_before, now);
    if (progress) {
      if (now - last_report > 100'000'000) {
        last_report = now;
        progress(base);
      }
    }
    if (planned && ps.room()) continue;  // more to plan now (plan_some stops every 4,096 events)
    const uint64_t lag = plan.size - base;
    const long ns = !feed.more() ? 20'000'000L : lag > window / 4 * 3 ? 50'000L : 2'000'000L;
    struct timespec ts {
      0, ns
    };
    nanosleep(&ts, nullptr);
  }
}

}  // namespace

Result<EngineResult> run_engine(const Plan& plan, ExecEnv& env, TimingMode timing, const EngineProgress& progress,
                                const InjectedLatency& inject, const ThinkClock& clock) {
  // The whole plan is the window: every op planned and final before the clock starts.
  WindowSync sync(plan.ops.size());
  for (uint64_t i = 0; i < plan.size; ++i) {
    sync.worker[i].store(plan.threads[plan.op(i).thread].worker, std::memory_order_relaxed);
    sync.ready[i].store(i + 1, std::memory_order_relaxed);
  }
  sync.planned.store(plan.size | kPlannedEnd, std::memory_order_release);
  const uint64_t n = plan.size;
  auto r = with_workers(plan, sync, env, timing, inject, clock, max_io_size(plan), [&](auto go, auto failed) {
    go();
    while (progress) {  // (without it, the workers are simply joined)
      uint64_t d = 0;
      while (d < n && sync.done[d].load(std::memory_order_acquire) == d + 1) ++d;
      if (progress) progress(d, n);
      if (d >= n || failed()) break;
      struct timespec ts {
        0, 100'000'000
      };
      nanosleep(&ts, nullptr);
    }
    return Status::ok();
  });
  FSR_RETURN_IF_ERROR(r);
  r.value().ops.assign(sync.rec.begin(), sync.rec.begin() + static_cast<std::ptrdiff_t>(n));
  return r;
}

Result<EngineResult> run_engine_stream(PlanStream& ps, WindowSync& sync, const EventSource& next,
                                       const RecordSink& sink, ExecEnv& env, TimingMode timing,
                                       const StreamProgress& progress, const InjectedLatency& inject,
                                       const ThinkClock& clock, uint64_t buf_size, const std::function<void()>& filled,
                                       const StallReport& stalled, uint64_t stall_ns) {
  const Plan& plan = ps.plan();
  ChunkFeeder feed(ps, next);
  return with_workers(plan, sync, env, timing, inject, clock, buf_size, [&](auto go, auto /*failed*/) -> Status {
    bool unused = false;
    // The window is filled before the clock starts, so that the planner is ahead.
    while (feed.more() && ps.room()) {
      if (!feed.plan_some(unused)) return feed.error();
      if (int sig = stop_signal()) return stopped_by(sig);
    }
    if (filled) filled();
    go();
    StallWatch stall{plan, stalled, stall_ns, timing, mono_ns()};  // (from the clock's start)
    return take_records(ps, sync, feed, sink, progress, stall);
  });
}

}  // namespace fsr
