// SPDX-License-Identifier: Apache-2.0
// How a worker (engine_worker.cpp) waits on the window it shares with the
// planner and the other workers (plan_stream.h WindowSync): for its next op,
// for an op's plan to be final, for an op's dependencies, for a time; and how
// it publishes an op's completion. Spins a while before it parks, so that a
// short wait costs no wake-up. Internal to the engine's workers.
#pragma once

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

#include "replayer/engine/engine_worker.h"
#include "replayer/engine/interrupt.h"

namespace fsr::engine_detail {

inline constexpr uint64_t kSpinTailNs = 60'000;      // sleep to this much before the deadline, then spin
inline constexpr uint64_t kStopPollNs = 50'000'000;  // a sleep's slice between looks at a stop

inline void cpu_relax() { __builtin_ia32_pause(); }

// Sleeps until absolute monotonic time `t` (ns), precise to a few µs.
// Returns the clock when it woke (its last reading, so callers need none).
// A stop (interrupt.h) cuts it short: it sleeps in slices of at most
// kStopPollNs, so that a signal ends a long think time within that.
// `spin`: never sleeps, burns the CPU to `t` (ThinkClock::spin_gaps).
inline uint64_t sleep_until(uint64_t t, bool spin = false) {
  uint64_t now = mono_ns();
  for (uint32_t n = 0; spin && now < t; ++n) {
    if ((n & 1023) == 0 && stop_signal()) return now;
    cpu_relax();
    now = mono_ns();
  }
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
inline uint64_t next_op(Shared& s, uint32_t w, uint64_t& pos) {
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
      if (v < dep + 1ull)
        s.sync.done_lot.park(dep, [&] {
          return w.load(std::memory_order_acquire) >= dep + 1ull ||
                 s.sync.deps_released.load(std::memory_order_acquire);
        });
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

}  // namespace fsr::engine_detail
