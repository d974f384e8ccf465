// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/deps.h"

#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>

#include "replayer/plan/dep_tracker.h"
#include "replayer/plan/ns_order.h"
#include "traces/syscalls.h"

namespace fsr {

void DepTracker::Impl::trim_chan(Chan& c, uint64_t i) {
  size_t n = 0;
  while (n < c.writes.size() && c.writes[n].op + 2 * window <= i) ++n;
  if (n == 0 || (n < 64 && n < c.writes.size())) return;
  c.trimmed_upto = c.writes[n - 1].upto;
  c.trimmed_op = c.writes[n - 1].op;
  c.writes.erase(c.writes.begin(), c.writes.begin() + static_cast<long>(n));
}

void DepTracker::Impl::resources(uint64_t i) {
  const PlanOp& op = plan.op(i);
  const OpFacts& f = fact(i);
  const SyscallInfo* si = syscall_info(ev(i).nr);
  const bool literal0 = si && (si->flags & kSfLiteralPath0);
  for (int k = 0; k < 2; ++k) {
    if (op.path[k] == kNoPath || (k == 0 && literal0)) continue;
    Shared& s = paths[op.path[k]];
    // A namespace call that failed changed nothing: it saw the name, as a
    // reader does (an EEXIST mkdir that returned before the mkdir that made
    // the name must not take the readers the maker has to follow).
    if ((f.ns_mask >> k & 1) && ev(i).ret >= 0)
      writer(s, i, DepKind::kPath, op.path[k]);
    else
      reader(s, i, DepKind::kPath, op.path[k]);
    if (f.dir[k] != kNoPath) reader(paths[f.dir[k]], i, DepKind::kParentPath, f.dir[k]);
  }
  if (plan.serial_dirs) {
    for (int k = 0; k < 2; ++k)
      if (f.parent[k] != kNoPath) writer(dirs[f.parent[k]], i, DepKind::kSerialDir);
    if (f.readdir_dir != kNoPath) reader(dirs[f.readdir_dir], i, DepKind::kSerialDir);
  } else {
    for (int k = 0; k < 2; ++k)
      if (f.parent[k] != kNoPath && (k == 0 || f.parent[1] != f.parent[0]))
        contents(dir_contents[f.parent[k]], i, false);
    if (f.readdir_dir != kNoPath) contents(dir_contents[f.readdir_dir], i, true);
  }
  // A failed write changed nothing: it orders as a read.
  if (f.data != kNoPath) {
    if (f.data_write && ev(i).ret >= 0)
      writer(data[f.data], i, DepKind::kFileData);
    else
      reader(data[f.data], i, DepKind::kFileData);
  }
  if (op.action == OpAction::kIssue) {
    if (op.thread >= call_end.size()) call_end.resize(size_t{op.thread} + 1, 0);
    call_end[op.thread] = end(i);
  }
  ofd_use(op.ofd, i);
  ofd_use(op.ofd2, i);
  ofd_use(op.new_ofd, i);
  // A walk from a directory fd: after its open, before its close. (A cwd's
  // OFD stays open to the end: its walks need no order among themselves.)
  for (uint32_t w : op.walk)
    if (w != kNoOfd && w != kWalkFromRoot && w != op.ofd && !plan.ofds[w].cwd) ofd_use(w, i);
  for (uint32_t c = op.close_begin; c != op.close_end; ++c) ofd_use(plan.close(c), i);
  edge(f.creator, i, DepKind::kThreadStart);
  edge(op.ref_op, i, DepKind::kMapping);
  const Event& e = ev(i);
  uint64_t& le = last_of_pid[e.pid];
  if (le == 0 || far_back(le - 1, i) || end(le - 1) <= end(i)) le = i + 1;
  if (f.chan != UINT32_MAX && f.chan_write && e.ret > 0) {
    Chan& c = chans[f.chan];
    c.written += static_cast<uint64_t>(e.ret);
    c.writes.push_back({c.written, e.ts, static_cast<uint32_t>(i)});
    c.touched = i;
    trim_chan(c, i);
    if (c.unresolved && c.written >= c.unresolved) {
      ++plan.beyond_window;
      c.unresolved = 0;
    }
  }
  if (e.nr == SYS_futex) {
    const int cmd = static_cast<int>(e.args[1] & 127);
    if (cmd == 1 || cmd == 10 || cmd == 3 || cmd == 4 || cmd == 5) {
      Futex& fx = futexes[futex_key(e)];
      auto at = fx.wakes.end();
      while (at != fx.wakes.begin() && (at - 1)->ts > e.ts) --at;
      fx.wakes.insert(
          at, Wake{e.ts, static_cast<uint32_t>(i), op.thread, op.thread < call_end.size() ? call_end[op.thread] : 0});
      fx.last = static_cast<uint32_t>(i);
      size_t old = 0;
      while (old < fx.wakes.size() && fx.wakes[old].op + 2 * window <= i) ++old;
      if (old > fx.wakes.size() / 2) fx.wakes.erase(fx.wakes.begin(), fx.wakes.begin() + static_cast<long>(old));
      for (auto it = fx.unresolved.begin(); it != fx.unresolved.end(); ++it)
        if (e.ts >= it->first && e.ts < it->second) {
          ++plan.beyond_window;
          fx.unresolved.erase(it);
          break;
        }
    } else if ((cmd == 0 || cmd == 9) && e.args[2] != kLockContended) {
      futexes[futex_key(e)].other_values = true;
    }
  }
}

// Latest event of another thread that completed while `i` was blocked (near
// it in the trace, which is in completion order).
void DepTracker::Impl::sweep(uint64_t i) {
  if (i < next_sweep) return;
  next_sweep = i + window;
  // Two windows back: a wait finalized up to a lookahead after it was
  // planned still finds what lay within a window of it.
  auto gone = [&](uint64_t t) { return t + 2 * window <= i; };
  paths.erase_if([&](const Shared& s) { return gone(s.touched); });
  dirs.erase_if([&](const Shared& s) { return gone(s.touched); });
  data.erase_if([&](const Shared& s) { return gone(s.touched); });
  dir_contents.erase_if([&](const Contents& c) { return gone(c.touched); });
  for (uint32_t& o : last_on_ofd)
    if (o != kNoOp && gone(o)) o = kNoOp;
  std::erase_if(last_of_pid, [&](const auto& kv) { return gone(kv.second - 1); });
  std::erase_if(reaped, [&](const auto& kv) { return gone(kv.second.second); });
  // A channel is forgotten only when every byte written was read (a fresh
  // one counts from there alike) and it was last used a window back; else
  // its writes a window back are trimmed (trim_chan). A futex, when its
  // latest wake lies two windows back (see Futex).
  for (auto it = chans.begin(); it != chans.end();) {
    Chan& c = it->second;
    trim_chan(c, i);
    if (c.read_pos >= c.written && gone(c.touched) && !c.unresolved)
      it = chans.erase(it);
    else
      ++it;
  }
  std::erase_if(futexes, [&](const auto& kv) { return kv.second.last + 2 * window <= i; });
}

void DepTracker::Impl::path_edge(Shared& s, uint32_t from, uint64_t i, uint32_t p, DepKind kind) {
  if (from == kNoOp || from == i || far_back(from, plan.size) || same_thread(from, i)) {
    edge(from, i, kind);
    return;
  }
  if (p != kNoPath && ev(from).ts < end(i) && ev(i).ts < end(from)) {
    int kf, ki;
    bool df, di;
    if (relation(from, p, kf, df) && relation(i, p, ki, di) &&
        ns_first(ns_effect(ev(from), kf, df), ns_seen(ev(from), kf, df), ns_effect(ev(i), ki, di),
                 ns_seen(ev(i), ki, di)) < 0) {
      edge(prev_on_thread(s, from), i, kind);
      moved.push_back({from, kind});
      return;
    }
  }
  edge(from, i, kind);
}

uint32_t DepTracker::Impl::prev_on_thread(const Shared& s, uint64_t o) const {
  uint32_t best = kNoOp;
  auto consider = [&](uint32_t c) {
    if (c != kNoOp && c < o && !far_back(c, plan.size) && same_thread(c, o) && (best == kNoOp || c > best)) best = c;
  };
  consider(s.last_ns);
  if (s.last_ns == o) consider(s.last_ns_prev);
  s.readers.for_each([&](const Reader& r) {
    consider(r.op);
    if (r.op == o) consider(r.prev);
  });
  return best;
}

bool DepTracker::Impl::relation(uint64_t o, uint32_t p, int& k, bool& direct) const {
  const SyscallInfo* si = syscall_info(ev(o).nr);
  const int k0 = si && (si->flags & kSfLiteralPath0) ? 1 : 0;
  const PlanOp& op = plan.op(o);
  for (direct = true, k = k0; k < 2; ++k)
    if (op.path[k] == p) return true;
  for (direct = false, k = k0; k < 2; ++k)
    if (op.path[k] != kNoPath && fact(o).dir[k] == p) return true;
  return false;
}

void DepTracker::Impl::place_moved(uint64_t i) {
  for (const Moved& m : moved) {
    const size_t slot = m.to & plan.op_mask;
    // Its slot reused, or its plan published: the order cannot be kept.
    if (far_back(m.to, plan.size) || final_[slot]) {
      ++plan.moves_beyond_window;
      continue;
    }
    if (rev_free[slot] == 0 || (!key_less(i, m.to) && !raise(m.to, k(i) + 1))) {
      ++plan.dropped_edges;
      continue;
    }
    out_min[i & plan.op_mask] = std::min(out_min[i & plan.op_mask], k(m.to));
    const uint32_t at = rev_at[slot] + (kMovedRoom - rev_free[slot]--);
    plan.deps[at & plan.dep_mask] = static_cast<uint32_t>(i);
    plan.dep_kinds[at & plan.dep_mask] = m.kind;
    plan.op(i).flags |= kPfNotify;
    ++plan.dep_edges;
    ++plan.moved_edges;
  }
  moved.clear();
}

void DepTracker::Impl::write_edges(uint64_t i) {
  PlanOp& op = plan.op(i);
  std::sort(buf.begin(), buf.end(), [](const Edge& a, const Edge& b) { return a.from < b.from; });
  buf.erase(std::unique(buf.begin(), buf.end(), [](const Edge& a, const Edge& b) { return a.from == b.from; }),
            buf.end());
  const size_t made = buf.size();
  const size_t slot = i & plan.op_mask;
  // Room for edges found later: moved ones (place_moved), then the causal
  // edge's (last; finalize).
  rev_at[slot] = plan.dep_pos + static_cast<uint32_t>(made);
  rev_free[slot] = late[slot] && may_be_moved(i) ? kMovedRoom : 0;
  for (uint8_t r = 0; r < rev_free[slot]; ++r) buf.push_back({kNoOp, DepKind::kNone});
  if (waiter[slot]) buf.push_back({kNoOp, DepKind::kNone});
  op.dep_begin = plan.dep_pos;
  for (const Edge& x : buf) {
    uint32_t pos = plan.dep_pos;
    arena_push(plan.deps, plan.dep_mask, pos, x.from);
    arena_push(plan.dep_kinds, plan.dep_mask, plan.dep_pos, x.kind);
    if (x.from != kNoOp) plan.op(x.from).flags |= kPfNotify;
  }
  op.dep_end = plan.dep_pos;
  plan.dep_edges += made;
  for (size_t e = 0; e < made; ++e) plan.file_data_edges += buf[e].kind == DepKind::kFileData;
  buf.clear();
}

DepTracker::DepTracker(Plan& plan, const std::vector<OpFacts>& facts, uint64_t window, uint64_t exit_floor)
    : impl_(std::make_unique<Impl>(plan, facts, window, exit_floor)) {}
DepTracker::~DepTracker() = default;

bool DepTracker::final_later(uint64_t i) const {
  Impl& m = *impl_;
  return m.late[i & m.plan.op_mask];
}

void DepTracker::add(uint64_t i) {
  Impl& m = *impl_;
  const size_t slot = i & m.plan.op_mask;
  m.waiter[slot] = m.classify(i);
  m.exits[slot] = m.ev(i).nr == kEvProcExit;
  m.late[slot] = m.waiter[slot] || m.may_be_moved(i);
  m.final_[slot] = 0;
  m.out_min[slot] = m.next_key[slot] = UINT64_MAX;
  // Keys never decrease along a worker's issue order (see deps.h).
  const uint32_t w = m.plan.threads[m.plan.op(i).thread].worker;
  const uint64_t raw = m.waiter[slot] ? m.end(i) : m.ev(i).ts;
  if (raw < m.last_key[w]) ++m.plan.overlapping_ops;
  m.key[slot] = m.last_key[w] = std::max(raw, m.last_key[w]);
  const uint64_t prev = m.last_op[w];
  m.last_op[w] = i;
  m.resources(i);  // may raise its key (edge)
  m.place_moved(i);
  if (prev != UINT64_MAX && !m.far_back(prev, i)) m.next_key[prev & m.plan.op_mask] = m.k(i);
  const Event& e = m.ev(i);
  if (e.ret > 0 && (e.nr == SYS_wait4 || e.nr == SYS_waitid)) {
    const uint32_t child =
        e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret) : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
    if (child) m.reaped[child] = {m.end(i), i};
  }
  m.write_edges(i);
  if (!m.late[slot]) m.final_[slot] = 1;
  m.sweep(i);
}

}  // namespace fsr
