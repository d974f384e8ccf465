#include "replayer/deps.h"

#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>
#include <unordered_map>

#include "traces/syscalls.h"

namespace fsr {

struct DepTracker::Impl {
  Impl(Plan& p, const std::vector<OpFacts>& f, uint64_t w, uint64_t floor)
      : plan(p), facts(f), window(w), exit_floor(floor), key(p.ops.size(), 0), waiter(p.ops.size(), 0),
        last_key(p.worker_count, 0) {}

  Plan& plan;
  const std::vector<OpFacts>& facts;
  uint64_t window, exit_floor;
  std::vector<uint64_t> key;     // per slot
  std::vector<uint8_t> waiter;   // per slot: its key is its exit time
  std::vector<uint64_t> last_key;  // per worker
  struct Edge {
    uint32_t from;
    DepKind kind;
  };
  std::vector<Edge> buf;         // the current op's edges

  const Event& ev(uint64_t i) const { return plan.event(i); }
  uint64_t end(uint64_t i) const { return ev(i).ts + ev(i).dur; }
  const OpFacts& fact(uint64_t i) const { return facts[i & plan.op_mask]; }
  uint64_t k(uint64_t i) const { return key[i & plan.op_mask]; }
  bool key_less(uint64_t a, uint64_t b) const { return k(a) < k(b) || (k(a) == k(b) && a < b); }
  bool same_thread(uint64_t a, uint64_t b) const { return plan.op(a).thread == plan.op(b).thread; }
  bool far_back(uint64_t from, uint64_t to) const { return from + window <= to; }

  enum class Made { kNo, kAdded, kSatisfied };
  Made edge(uint32_t from, uint64_t to, DepKind kind) {
    if (from == kNoOp || from == to) return Made::kNo;
    // Its slot went to a later op: it has run (plan_stream.h). Not only a
    // window before `to`: a wait is finalized a lookahead after it was
    // planned, when ops less than a window before it may have lost theirs.
    if (from < to && from + window < plan.size) return Made::kSatisfied;
    if (same_thread(from, to)) return Made::kNo;
    if (!key_less(from, to)) {
      ++plan.dropped_edges;
      return Made::kNo;
    }
    if (buf.size() >= kMaxEdgesPerOpHere) {
      ++plan.dropped_edges;
      return Made::kNo;
    }
    buf.push_back({from, kind});
    return Made::kAdded;
  }
  static constexpr size_t kMaxEdgesPerOpHere = 4000;

  bool is_blocking_read(uint64_t i) const {
    return fact(i).chan != UINT32_MAX && !fact(i).chan_write && plan.op(i).ofd != kNoOfd;
  }
  bool classify(uint64_t i) const {
    switch (ev(i).nr) {
      case SYS_wait4: case SYS_waitid: case SYS_futex: case SYS_poll: case SYS_ppoll:
      case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait:
      case SYS_epoll_pwait2: case SYS_vfork:
        return true;
      default:
        return is_blocking_read(i);
    }
  }

  // Readers of a resource since its last writer: the latest op of each
  // thread. Appended, and compacted to one per thread when it grows (a path
  // every process reads, such as a shared library, is read by thousands).
  struct Readers {
    std::vector<uint32_t> ops;
    size_t compact_at = 16;
  };
  void add_reader(Readers& r, uint64_t i) {
    if (!r.ops.empty() && same_or_gone(r.ops.back(), i)) {
      r.ops.back() = static_cast<uint32_t>(i);
      return;
    }
    r.ops.push_back(static_cast<uint32_t>(i));
    if (r.ops.size() < r.compact_at) return;
    // Latest per thread (ops a window back are dropped: they have run).
    std::erase_if(r.ops, [&](uint32_t a) { return far_back(a, i); });
    std::sort(r.ops.begin(), r.ops.end(), [&](uint32_t a, uint32_t b) {
      const uint32_t ta = plan.op(a).thread, tb = plan.op(b).thread;
      return ta < tb || (ta == tb && a > b);
    });
    r.ops.erase(std::unique(r.ops.begin(), r.ops.end(), [&](uint32_t a, uint32_t b) { return same_thread(a, b); }),
                r.ops.end());
    r.compact_at = std::max<size_t>(16, 2 * r.ops.size());
  }
  bool same_or_gone(uint32_t a, uint64_t i) const { return !far_back(a, i) && same_thread(a, i); }

  struct Shared {
    uint32_t last_ns = kNoOp;
    Readers readers;
    uint64_t touched = 0;
  };
  void writer(Shared& s, uint64_t i, DepKind kind) {
    edge(s.last_ns, i, kind);
    for (uint32_t r : s.readers.ops) edge(r, i, kind);
    s.last_ns = static_cast<uint32_t>(i);
    s.readers.ops.clear();
    s.readers.compact_at = 16;
    s.touched = i;
  }
  void reader(Shared& s, uint64_t i, DepKind kind) {
    edge(s.last_ns, i, kind);
    add_reader(s.readers, i);
    s.touched = i;
  }

  // A directory's entries (ROOT/ARTC): a listing follows the namespace
  // changes in the directory before it, and a change follows the listings
  // before it; changes of different names in one directory need no order
  // among themselves (the same name is ordered by its path), nor do listings.
  struct Contents {
    bool listing = false;
    Readers cur;
    std::vector<uint32_t> prev;
    uint64_t touched = 0;
  };
  void contents(Contents& c, uint64_t i, bool listing) {
    if (c.listing != listing) {
      if (!c.cur.ops.empty()) {
        c.prev.swap(c.cur.ops);
        c.cur.ops.clear();
        c.cur.compact_at = 16;
      }
      c.listing = listing;
    }
    for (uint32_t p : c.prev) edge(p, i, DepKind::kDirContents);
    add_reader(c.cur, i);
    c.touched = i;
  }

  void ofd_use(uint32_t ofd, uint64_t i) {
    if (ofd == kNoOfd) return;
    auto [it, fresh] = last_on_ofd.try_emplace(ofd, static_cast<uint32_t>(i));
    if (!fresh) {
      edge(it->second, i, DepKind::kOfd);
      it->second = static_cast<uint32_t>(i);
    }
  }

  void resources(uint64_t i);
  void causal_edge(uint32_t from, uint64_t i, size_t slot);
  uint32_t approximate(uint64_t i) const;
  uint32_t waker(uint64_t i);
  void wait4(uint64_t i);
  void hold_exit(uint64_t x);
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> reaped;  // child pid -> (its wait's end, that op)
  void note_late_waker(uint64_t j);
  // Drops a channel's writes two windows back (remembered as trimmed_*): no
  // read still to be finalized needs their op's slot, and their edge is
  // satisfied.
  struct Chan;
  void trim_chan(Chan& c, uint64_t i);
  void sweep(uint64_t i);
  void write_edges(uint64_t i, bool reserve);

  static uint64_t futex_key(const Event& e) {
    const bool priv = (e.args[1] & 128) != 0;
    return e.args[0] ^ (priv ? (static_cast<uint64_t>(e.pid) << 48) : 0);
  }

  std::unordered_map<uint32_t, Shared> paths, dirs;
  std::unordered_map<uint32_t, Contents> dir_contents;
  std::unordered_map<uint32_t, uint32_t> last_on_ofd;
  std::unordered_map<uint32_t, uint64_t> last_of_pid;  // pid -> event index + 1
  // A byte channel (pipe, socket end, eventfd): its writes not yet read, by
  // the bytes written up to and with each, and how far reads got. Positions
  // are counted in `written`, not from the list, which reads consume and the
  // sweep trims: a write trimmed a window back still fed the reads up to
  // `trimmed_upto` (by `trimmed_op`, which has run: their edge is satisfied).
  struct ChanWrite {
    uint64_t upto;  // bytes written up to and with it
    uint64_t ts;    // its enter time (eventfds: the latest write entered before a read returned)
    uint32_t op;
  };
  struct Chan {
    std::vector<ChanWrite> writes;
    uint64_t written = 0, read_pos = 0;
    uint64_t trimmed_upto = 0;
    uint32_t trimmed_op = kNoOp;
    uint64_t unresolved = 0;  // a finalized read found no write up to this position
    uint64_t touched = 0;     // its latest write or read (planned index)
  };
  std::unordered_map<uint32_t, Chan> chans;
  // A futex's wakes, sorted by enter time (the trace is in completion order:
  // each is inserted from the back), with their threads: a wake a window
  // back is still found (its edge is then satisfied) without reading its
  // reused slot. Trimmed once a wake lies two windows back, when no wait
  // still to be finalized can have entered before it.
  struct Wake {
    uint64_t ts;
    uint32_t op, thread;
  };
  struct Futex {
    std::vector<Wake> wakes;
    std::vector<std::pair<uint64_t, uint64_t>> unresolved;  // waits with no wake: [enter, exit)
    uint32_t last = 0;  // its latest wake
  };
  std::unordered_map<uint64_t, Futex> futexes;
  uint64_t next_sweep = 0;
};

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
    if (f.ns_mask >> k & 1) writer(s, i, DepKind::kPath);
    else reader(s, i, DepKind::kPath);
    if (f.dir[k] != kNoPath) reader(paths[f.dir[k]], i, DepKind::kParentPath);
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
  ofd_use(op.ofd, i);
  ofd_use(op.ofd2, i);
  ofd_use(op.new_ofd, i);
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
      fx.wakes.insert(at, Wake{e.ts, static_cast<uint32_t>(i), op.thread});
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
    }
  }
}

// Latest event of another thread that completed while `i` was blocked (near
// it in the trace, which is in completion order).
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
  const uint32_t child = e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret)
                         : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
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
  const uint64_t wend = it->second.first;
  if (wend < end(x)) return;
  const uint64_t lag = wend - end(x);
  const uint64_t hold = std::min<uint64_t>(lag - std::min(exit_floor, lag), UINT32_MAX);
  PlanOp& op = plan.op(x);
  op.own_ns = std::max(op.own_ns, static_cast<uint32_t>(hold));
}

// The waker of a futex wait or a blocking read; kNoOp when none is known.
uint32_t DepTracker::Impl::waker(uint64_t i) {
  const Event& e = ev(i);
  if (e.nr == SYS_futex) {
    const int cmd = static_cast<int>(e.args[1] & 127);
    if (cmd != 0 && cmd != 9) return kNoOp - 1;  // not a wait
    auto it = futexes.find(futex_key(e));
    uint32_t from = kNoOp;
    if (it != futexes.end()) {  // the latest wake entered while it waited, by another thread
      const std::vector<Wake>& v = it->second.wakes;
      auto p = std::lower_bound(v.begin(), v.end(), end(i), [](const Wake& w, uint64_t t) { return w.ts < t; });
      while (p != v.begin()) {
        const Wake& w = *--p;
        if (w.ts < e.ts) break;
        if (w.thread != plan.op(i).thread) {
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
  switch (e.nr) {
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6: case SYS_epoll_wait:
    case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_vfork:
      return e.ret > 0 ? kNoOp : kNoOp - 1;
    default:
      break;
  }
  if (!is_blocking_read(i)) return kNoOp - 1;
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
      if (c.read_pos <= c.trimmed_upto) from = c.trimmed_op;  // fed by a write a window back
      else if (p != c.writes.end()) from = p->op;
      else c.unresolved = c.read_pos;
      c.writes.erase(c.writes.begin(), p);  // consumed: later reads are further on
    }
  } else if (e.ret > 0) {
    Chan& c = chans[ch];
    c.read_pos += static_cast<uint64_t>(e.ret);
    c.unresolved = c.read_pos;
    c.touched = i;
  }
  if (from == kNoOp && e.ret == 0) return kNoOp - 1;  // EOF or empty: nothing fed it
  return from;
}

void DepTracker::Impl::sweep(uint64_t i) {
  if (i < next_sweep) return;
  next_sweep = i + window;
  // Two windows back: a wait finalized up to a lookahead after it was
  // planned still finds what lay within a window of it.
  auto gone = [&](uint64_t t) { return t + 2 * window <= i; };
  std::erase_if(paths, [&](const auto& kv) { return gone(kv.second.touched); });
  std::erase_if(dirs, [&](const auto& kv) { return gone(kv.second.touched); });
  std::erase_if(dir_contents, [&](const auto& kv) { return gone(kv.second.touched); });
  std::erase_if(last_on_ofd, [&](const auto& kv) { return gone(kv.second); });
  std::erase_if(last_of_pid, [&](const auto& kv) { return gone(kv.second - 1); });
  std::erase_if(reaped, [&](const auto& kv) { return gone(kv.second.second); });
  // A channel is forgotten only when every byte written was read (a fresh
  // one counts from there alike) and it was last used a window back; else
  // its writes a window back are trimmed (trim_chan). A futex, when its
  // latest wake lies two windows back (see Futex).
  for (auto it = chans.begin(); it != chans.end();) {
    Chan& c = it->second;
    trim_chan(c, i);
    if (c.read_pos >= c.written && gone(c.touched) && !c.unresolved) it = chans.erase(it);
    else ++it;
  }
  std::erase_if(futexes, [&](const auto& kv) { return kv.second.last + 2 * window <= i; });
}

void DepTracker::Impl::write_edges(uint64_t i, bool reserve) {
  PlanOp& op = plan.op(i);
  std::sort(buf.begin(), buf.end(), [](const Edge& a, const Edge& b) { return a.from < b.from; });
  buf.erase(std::unique(buf.begin(), buf.end(), [](const Edge& a, const Edge& b) { return a.from == b.from; }),
            buf.end());
  if (reserve) buf.push_back({kNoOp, DepKind::kNone});  // the causal edge's room (last)
  op.dep_begin = plan.dep_pos;
  for (const Edge& x : buf) {
    uint32_t pos = plan.dep_pos;
    arena_push(plan.deps, plan.dep_mask, pos, x.from);
    arena_push(plan.dep_kinds, plan.dep_mask, plan.dep_pos, x.kind);
    if (x.from != kNoOp) plan.op(x.from).flags |= kPfNotify;
  }
  op.dep_end = plan.dep_pos;
  plan.dep_edges += buf.size() - (reserve ? 1 : 0);
  buf.clear();
}

DepTracker::DepTracker(Plan& plan, const std::vector<OpFacts>& facts, uint64_t window, uint64_t exit_floor)
    : impl_(std::make_unique<Impl>(plan, facts, window, exit_floor)) {}
DepTracker::~DepTracker() = default;

bool DepTracker::waits_for_later(uint64_t i) const {
  Impl& m = *impl_;
  return m.waiter[i & m.plan.op_mask];
}

void DepTracker::add(uint64_t i) {
  Impl& m = *impl_;
  const size_t slot = i & m.plan.op_mask;
  m.waiter[slot] = m.classify(i);
  // Keys never decrease along a worker's issue order (see deps.h).
  const uint32_t w = m.plan.threads[m.plan.op(i).thread].worker;
  const uint64_t raw = m.waiter[slot] ? m.end(i) : m.ev(i).ts;
  if (raw < m.last_key[w]) ++m.plan.overlapping_ops;
  m.key[slot] = m.last_key[w] = std::max(raw, m.last_key[w]);
  m.resources(i);
  const Event& e = m.ev(i);
  if (e.ret > 0 && (e.nr == SYS_wait4 || e.nr == SYS_waitid)) {
    const uint32_t child = e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret)
                           : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
    if (child) m.reaped[child] = {m.end(i), i};
  }
  m.write_edges(i, waits_for_later(i));
  m.sweep(i);
}

void DepTracker::finalize(uint64_t i) {
  Impl& m = *impl_;
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
  if (from == kNoOp - 1) return;  // no causal wait after all
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
