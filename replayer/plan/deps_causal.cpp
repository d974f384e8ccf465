// SPDX-License-Identifier: Apache-2.0
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>

#include "replayer/plan/dep_tracker.h"

namespace fsr {

uint32_t DepTracker::Impl::approximate(uint64_t i) const {
  const Event& e = ev(i);
  const uint64_t lo = i > 512 ? i - 512 : 0;
  const uint64_t floor = plan.size > window ? plan.size - window + 1 : 0;
  const uint64_t hi = std::min<uint64_t>(plan.size, i + 64);
  uint32_t best = kNoOp;
  for (uint64_t d = std::max(lo, floor); d < hi; ++d) {
    if (d == i) continue;
    const uint64_t ed = end(d);
    if (ed < e.ts || ed > end(i) || (ed == end(i) && d > i)) continue;
    if (same_thread(d, i) || !key_less(d, i)) continue;
    if (best == kNoOp || ed > end(best) || (ed == end(best) && d > best)) best = static_cast<uint32_t>(d);
  }
  return best;
}

void DepTracker::Impl::causal_edge(uint32_t from, uint64_t i, size_t slot) {
  PlanOp& op = plan.op(i);
  if (from != kNoOp) {
    const size_t before = buf.size();
    const Made m = edge(from, i, DepKind::kCausal);
    if (m != Made::kNo) {
      ++plan.exact_causal;
      op.flags |= kPfCausal;
      if (m == Made::kAdded && slot != SIZE_MAX) {  // into the room kept for it
        buf[slot] = buf.back();
        buf.resize(before);
      }
      return;
    }
  }
  const uint32_t d = approximate(i);
  if (d == kNoOp) return;
  const size_t before = buf.size();
  if (edge(d, i, DepKind::kApproxCausal) == Made::kNo) return;
  op.flags |= kPfApproxDep;
  ++plan.approx_deps;
  if (slot != SIZE_MAX && buf.size() > before) {
    buf[slot] = buf.back();
    buf.resize(before);
  }
}

void DepTracker::Impl::wait4(uint64_t i) {
  const Event& e = ev(i);
  const uint32_t child =
      e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret) : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
  auto it = last_of_pid.find(child);
  uint32_t last = kNoOp;
  if (child && it != last_of_pid.end() && !far_back(it->second - 1, i)) last = static_cast<uint32_t>(it->second - 1);
  causal_edge(last, i, SIZE_MAX);
}

// A process's exit event comes from inside the kernel's exit path, before
// its address space is torn down; its parent's wait returns after that. The
// time between, less a wake-up (the trace's smallest such lag, at most
// kWakeNs), is the exit's own work: the replay holds the exit op for it.
// Decided when the exit is final, a lookahead after it: by then the wait
// that reaped it has been planned, before or after it in the trace.
void DepTracker::Impl::hold_exit(uint64_t x) {
  auto it = reaped.find(ev(x).pid);
  if (it == reaped.end() || far_back(it->second.second, x + window / 2)) return;
  // Only the process's last event: a thread that exits before the others
  // (a joined worker thread) is not what the parent's wait waited for.
  auto last = last_of_pid.find(ev(x).pid);
  if (last == last_of_pid.end() || last->second != x + 1) return;
  const uint64_t wend = it->second.first;
  if (wend < end(x)) return;
  const uint64_t lag = wend - end(x);
  const uint64_t hold = std::min<uint64_t>(lag - std::min(exit_floor, lag), UINT32_MAX);
  PlanOp& op = plan.op(x);
  op.own_ns = std::max(op.own_ns, static_cast<uint32_t>(hold));
}

bool DepTracker::Impl::lock_wait(uint64_t i, const Futex& fx, const Wake& w) const {
  const Event& e = ev(i);
  return e.args[2] == kLockContended && !fx.other_values && w.call_end <= e.ts;
}

// The waker of a futex wait or a blocking read; kNoOp when none is known.
uint32_t DepTracker::Impl::waker(uint64_t i) {
  const Event& e = ev(i);
  if (e.nr == SYS_futex) {
    const int cmd = static_cast<int>(e.args[1] & 127);
    if (cmd != 0 && cmd != 9) return kNoWait;  // not a wait
    auto it = futexes.find(futex_key(e));
    uint32_t from = kNoOp;
    if (it != futexes.end()) {  // the latest wake entered while it waited, by another thread
      const std::vector<Wake>& v = it->second.wakes;
      auto p = std::lower_bound(v.begin(), v.end(), end(i), [](const Wake& w, uint64_t t) { return w.ts < t; });
      while (p != v.begin()) {
        const Wake& w = *--p;
        if (w.ts < e.ts) break;
        if (w.thread != plan.op(i).thread) {
          if (lock_wait(i, it->second, w)) return kLockWait;
          from = w.op;
          break;
        }
      }
    }
    if (from == kNoOp) {
      auto& u = futexes[futex_key(e)].unresolved;
      u.push_back({e.ts, end(i)});
      if (u.size() > 64) u.erase(u.begin());
    }
    return from;
  }
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6: case SYS_epoll_wait:
    case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_vfork:
      return e.ret > 0 ? kNoOp : kNoWait;
    default:
      break;
  }
  // clang-format on
  if (!is_blocking_read(i)) return kNoWait;
  const uint32_t ch = fact(i).chan;
  auto it = chans.find(ch);
  uint32_t from = kNoOp;
  if (e.ret > 0 && it != chans.end()) {
    Chan& c = it->second;
    c.touched = std::max<uint64_t>(c.touched, i);
    if (plan.ofds[plan.op(i).ofd].kind == OfdKind::kEventfd) {  // the latest write entered before the read returned
      uint64_t best = 0;
      for (const ChanWrite& x : c.writes)
        if (x.ts < end(i) && x.ts + 1 > best) {
          best = x.ts + 1;
          from = x.op;
        }
      if (from == kNoOp && c.trimmed_op != kNoOp) from = c.trimmed_op;
    } else {
      c.read_pos += static_cast<uint64_t>(e.ret);
      auto p = std::lower_bound(c.writes.begin(), c.writes.end(), c.read_pos,
                                [](const ChanWrite& x, uint64_t b) { return x.upto < b; });
      if (c.read_pos <= c.trimmed_upto)
        from = c.trimmed_op;  // fed by a write a window back
      else if (p != c.writes.end())
        from = p->op;
      else
        c.unresolved = c.read_pos;
      c.writes.erase(c.writes.begin(), p);  // consumed: later reads are further on
    }
  } else if (e.ret > 0) {
    Chan& c = chans[ch];
    c.read_pos += static_cast<uint64_t>(e.ret);
    c.unresolved = c.read_pos;
    c.touched = i;
  }
  if (from == kNoOp && e.ret == 0) return kNoWait;  // EOF or empty: nothing fed it
  return from;
}

void DepTracker::finalize(uint64_t i) {
  Impl& m = *impl_;
  const size_t slot = i & m.plan.op_mask;
  m.final_[slot] = 1;
  // (Not the event: a lookahead back, its slot is cold.)
  if (!m.waiter[slot] && !m.exits[slot]) return;  // kept open for moved edges only
  const Event& e = m.ev(i);
  if (e.nr == kEvProcExit) return m.hold_exit(i);
  if (e.ret < 0) return;
  if (e.nr == SYS_wait4 || e.nr == SYS_waitid) {
    m.buf.push_back({kNoOp, DepKind::kNone});
    m.wait4(i);
    m.buf.resize(std::min<size_t>(m.buf.size(), 2));
    if (m.buf.size() == 2) m.buf[0] = m.buf[1];
    m.buf.resize(1);
  } else {
    const uint32_t from = m.waker(i);
    if (from == Impl::kNoWait) return;  // no causal wait after all
    if (from == Impl::kLockWait) {      // no edge, and no time of its own (deps.h)
      ++m.plan.lock_waits;
      return;
    }
    m.buf.push_back({kNoOp, DepKind::kNone});
    m.causal_edge(from, i, 0);
  }
  const PlanOp& op = m.plan.op(i);
  if (!m.buf.empty() && m.buf[0].from != kNoOp && op.dep_end != op.dep_begin) {
    const uint32_t at = op.dep_end - 1;  // the room add() kept
    m.plan.deps[at & m.plan.dep_mask] = m.buf[0].from;
    m.plan.dep_kinds[at & m.plan.dep_mask] = m.buf[0].kind;
    m.plan.op(m.buf[0].from).flags |= kPfNotify;
    ++m.plan.dep_edges;
  }
  m.buf.clear();
}

}  // namespace fsr
