// SPDX-License-Identifier: Apache-2.0
// The streaming dependency tracker's state (deps.h says what it orders and
// what it remembers): resource edges and the overlap rule in deps.cpp, causal
// waits and held exits in deps_causal.cpp.
#pragma once

#include <sys/syscall.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "replayer/plan/deps.h"
#include "replayer/plan/id_states.h"
#include "traces/syscalls.h"

namespace fsr {

struct DepTracker::Impl {
  Impl(Plan& p, const std::vector<OpFacts>& f, uint64_t w, uint64_t floor)
      : plan(p),
        facts(f),
        window(w),
        exit_floor(floor),
        key(p.ops.size(), 0),
        waiter(p.ops.size(), 0),
        late(p.ops.size(), 0),
        exits(p.ops.size(), 0),
        final_(p.ops.size(), 0),
        rev_at(p.ops.size(), 0),
        rev_free(p.ops.size(), 0),
        out_min(p.ops.size(), UINT64_MAX),
        next_key(p.ops.size(), UINT64_MAX),
        last_key(p.worker_count, 0),
        last_op(p.worker_count, UINT64_MAX) {}

  Plan& plan;
  const std::vector<OpFacts>& facts;
  uint64_t window, exit_floor;
  std::vector<uint64_t> key;      // per slot
  std::vector<uint8_t> waiter;    // per slot: its key is its exit time
  std::vector<uint8_t> late;      // per slot: final a lookahead after it (a waiter, or it may be moved)
  std::vector<uint8_t> exits;     // per slot: a process's exit (held: hold_exit)
  std::vector<uint8_t> final_;    // per slot: its edge list is complete
  std::vector<uint32_t> rev_at;   // per slot: arena position of its room for moved edges
  std::vector<uint8_t> rev_free;  // ... and how much of it is left
  // Per slot, what bounds a raise of its key (raise): the least key of the
  // ops that took an edge from it, and the key of the next op on its worker.
  std::vector<uint64_t> out_min, next_key;
  std::vector<uint64_t> last_key;  // per worker
  std::vector<uint64_t> last_op;   // per worker: its latest op (UINT64_MAX: none)
  struct Edge {
    uint32_t from;
    DepKind kind;
  };
  std::vector<Edge> buf;  // the current op's edges
  // Edges the overlap rule turns around: the op being added must precede
  // `to`, an earlier op (in completion order) not final yet.
  struct Moved {
    uint32_t to;
    DepKind kind;
  };
  std::vector<Moved> moved;

  const Event& ev(uint64_t i) const { return plan.event(i); }
  uint64_t end(uint64_t i) const { return ev(i).ts + ev(i).dur; }
  const OpFacts& fact(uint64_t i) const { return facts[i & plan.op_mask]; }
  uint64_t k(uint64_t i) const { return key[i & plan.op_mask]; }
  bool key_less(uint64_t a, uint64_t b) const { return k(a) < k(b) || (k(a) == k(b) && a < b); }
  bool same_thread(uint64_t a, uint64_t b) const { return plan.op(a).thread == plan.op(b).thread; }
  bool far_back(uint64_t from, uint64_t to) const { return from + window <= to; }

  // Raises op `o`'s key to `need` where that keeps every edge made from it
  // and its worker's order, and stays within its own call.
  bool raise(uint64_t o, uint64_t need) {
    const size_t slot = o & plan.op_mask;
    if (key[slot] >= need) return true;
    if (need > end(o) || need > out_min[slot] || need > next_key[slot]) return false;
    key[slot] = need;
    const uint32_t w = plan.threads[plan.op(o).thread].worker;
    if (last_op[w] == o) last_key[w] = std::max(last_key[w], need);
    return true;
  }

  // An edge whose keys disagree (`to` entered first but must follow `from`,
  // which entered inside its call) raises `to`'s key (raise); when that
  // cannot be, the edge is dropped and counted.
  enum class Made { kNo, kAdded, kSatisfied };
  Made edge(uint32_t from, uint64_t to, DepKind kind) {
    if (from == kNoOp || from == to) return Made::kNo;
    // Its slot went to a later op: it has run (plan_stream.h). Not only a
    // window before `to`: a wait is finalized a lookahead after it was
    // planned, when ops less than a window before it may have lost theirs.
    if (from < to && from + window < plan.size) return Made::kSatisfied;
    if (same_thread(from, to)) return Made::kNo;
    if (!key_less(from, to) && !raise(to, k(from) + 1)) {
      ++plan.dropped_edges;
      return Made::kNo;
    }
    if (buf.size() >= kMaxEdgesPerOpHere) {
      ++plan.dropped_edges;
      return Made::kNo;
    }
    buf.push_back({from, kind});
    uint64_t& m = out_min[from & plan.op_mask];
    m = std::min(m, k(to));
    return Made::kAdded;
  }
  static constexpr size_t kMaxEdgesPerOpHere = 4000;
  static constexpr uint8_t kMovedRoom = 2;  // moved edges an op can take (rev_free)

  bool is_blocking_read(uint64_t i) const {
    return fact(i).chan != UINT32_MAX && !fact(i).chan_write && plan.op(i).ofd != kNoOfd;
  }
  bool classify(uint64_t i) const {
    // The case labels stay packed, one line per family of calls.
    // clang-format off
    switch (ev(i).nr) {
      case SYS_wait4: case SYS_waitid: case SYS_futex: case SYS_poll: case SYS_ppoll:
      case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait:
      case SYS_epoll_pwait2: case SYS_vfork:
        return true;
      default:
        return is_blocking_read(i);
    }
    // clang-format on
  }
  // An op on a path may learn from a later-completing op that overlapped it
  // that it must follow that op (path_edge): it stays open for that.
  bool may_be_moved(uint64_t i) const {
    const PlanOp& op = plan.op(i);
    return op.path[0] != kNoPath || op.path[1] != kNoPath;
  }

  // Readers of a resource since its last writer: the latest op of each
  // thread, with the op before it on that thread on the resource (`prev`,
  // kNoOp when not known). Appended, and compacted to one per thread when
  // it grows (a path every process reads, such as a shared library, is read
  // by thousands). Each with its thread (`op`'s), read once when it is
  // added: the ring slots of the ops it names are cold by the time the
  // list is compacted. The list's last one is kept beside the others, in
  // the resource's own entry: the next read, often by the same thread,
  // replaces it without touching the list.
  struct Reader {
    uint32_t op, prev, thread;
  };
  struct Readers {
    std::vector<Reader> ops;       // in order, but for the last
    Reader last{kNoOp, kNoOp, 0};  // (op kNoOp: none)
    size_t compact_at = 16;
    bool empty() const { return last.op == kNoOp; }
    void clear() {
      ops.clear();
      last.op = kNoOp;
      compact_at = 16;
    }
    template <typename F>
    void for_each(F f) const {  // in order
      for (const Reader& r : ops) f(r);
      if (!empty()) f(last);
    }
  };
  void add_reader(Readers& r, uint64_t i) {
    const uint32_t t = plan.op(i).thread;
    if (!r.empty() && !far_back(r.last.op, i) && r.last.thread == t) {
      r.last = {static_cast<uint32_t>(i), r.last.op, t};
      return;
    }
    if (r.empty()) {
      r.last = {static_cast<uint32_t>(i), kNoOp, t};
      return;  // (a list of one is below any compact_at)
    }
    r.ops.push_back(r.last);
    r.last = {static_cast<uint32_t>(i), kNoOp, t};
    if (r.ops.size() + 1 < r.compact_at) return;
    r.ops.push_back(r.last);
    // Latest per thread (ops a window back are dropped: they have run).
    std::erase_if(r.ops, [&](const Reader& a) { return far_back(a.op, i); });
    std::sort(r.ops.begin(), r.ops.end(), [](const Reader& a, const Reader& b) {
      return a.thread < b.thread || (a.thread == b.thread && a.op > b.op);
    });
    size_t n = 0;
    for (size_t j = 0; j < r.ops.size(); ++j) {
      if (n && r.ops[n - 1].thread == r.ops[j].thread) {
        Reader& kept = r.ops[n - 1];
        if (kept.prev == kNoOp || kept.prev < r.ops[j].op) kept.prev = r.ops[j].op;
        continue;
      }
      r.ops[n++] = r.ops[j];
    }
    r.ops.resize(n);
    r.compact_at = std::max<size_t>(16, 2 * r.ops.size());
    r.last = r.ops.back();  // (never empty: op i is in it)
    r.ops.pop_back();
  }

  struct Shared {
    uint32_t last_ns = kNoOp, last_ns_prev = kNoOp;
    Readers readers;
    uint64_t touched = 0;
  };
  // `p`: the plan path `s` stands for (kNoPath for a directory's entries).
  void writer(Shared& s, uint64_t i, DepKind kind, uint32_t p = kNoPath) {
    path_edge(s, s.last_ns, i, p, kind);
    s.readers.for_each([&](const Reader& r) { path_edge(s, r.op, i, p, kind); });
    s.last_ns_prev = prev_on_thread(s, i);
    s.last_ns = static_cast<uint32_t>(i);
    s.readers.clear();
    s.touched = i;
  }
  void reader(Shared& s, uint64_t i, DepKind kind, uint32_t p = kNoPath) {
    path_edge(s, s.last_ns, i, p, kind);
    add_reader(s.readers, i);
    s.touched = i;
  }
  // An edge on plan path `p` from `from` to the op being added. Two calls
  // that overlapped on a path may have taken effect in the other order than
  // they returned (an EEXIST mkdir returns before the mkdir that made the
  // name did); their results decide the order then (ns_order.h), and the
  // edge is turned around (moved): `from` follows, and the op before it on
  // its thread on `p` (which `from` stood for) still precedes the new op.
  void path_edge(Shared& s, uint32_t from, uint64_t i, uint32_t p, DepKind kind);
  // The latest op before `o` on its thread that `s` saw; kNoOp if none known.
  uint32_t prev_on_thread(const Shared& s, uint64_t o) const;
  // Op `o`'s relation to plan path `p`: `p` is its path[k] (direct) or the
  // directory holding its path[k].
  bool relation(uint64_t o, uint32_t p, int& k, bool& direct) const;
  // The moved edges of the op being added, once its key is settled.
  void place_moved(uint64_t i);

  // A directory's entries (ROOT/ARTC): a listing follows the namespace
  // changes in the directory before it, and a change follows the listings
  // before it; changes of different names in one directory need no order
  // among themselves (the same name is ordered by its path), nor do listings.
  struct Contents {
    bool listing = false;
    Readers cur;
    std::vector<Reader> prev;
    uint64_t touched = 0;
  };
  void contents(Contents& c, uint64_t i, bool listing) {
    if (c.listing != listing) {
      if (!c.cur.empty()) {
        c.cur.ops.push_back(c.cur.last);
        c.prev.swap(c.cur.ops);
        c.cur.clear();
      }
      c.listing = listing;
    }
    for (const Reader& p : c.prev) edge(p.op, i, DepKind::kDirContents);
    add_reader(c.cur, i);
    c.touched = i;
  }

  void ofd_use(uint32_t ofd, uint64_t i) {
    if (ofd == kNoOfd) return;
    if (ofd >= last_on_ofd.size()) last_on_ofd.resize(std::max<size_t>(size_t{ofd} + 1, last_on_ofd.size() * 2), kNoOp);
    uint32_t& last = last_on_ofd[ofd];
    if (last != kNoOp) edge(last, i, DepKind::kOfd);
    last = static_cast<uint32_t>(i);
  }

  void resources(uint64_t i);
  void causal_edge(uint32_t from, uint64_t i, size_t slot);
  uint32_t approximate(uint64_t i) const;
  // waker(): no causal wait after all (a timed-out or non-blocking call), or
  // a lock wait replayed as its own time (lock_wait).
  static constexpr uint32_t kNoWait = kNoOp - 1, kLockWait = kNoOp - 2;
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
  void write_edges(uint64_t i);

  static uint64_t futex_key(const Event& e) {
    const bool priv = (e.args[1] & 128) != 0;
    return e.args[0] ^ (priv ? (static_cast<uint64_t>(e.pid) << 48) : 0);
  }

  IdStates<Shared> paths, dirs;                        // by plan path
  IdStates<Shared> data;                               // a regular file's contents, by plan path (writer: a write)
  IdStates<Contents> dir_contents;                     // by plan path (a directory)
  std::vector<uint32_t> last_on_ofd;                   // by OFD: its latest op (kNoOp: none lately)
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
    uint64_t call_end;  // the end of the latest call its thread issued before it (call_end)
  };
  struct Futex {
    std::vector<Wake> wakes;
    std::vector<std::pair<uint64_t, uint64_t>> unresolved;  // waits with no wake: [enter, exit)
    uint32_t last = 0;                                      // its latest wake
    bool other_values = false;  // waited on expecting another value than a lock's 2 (lock_wait)
  };
  std::unordered_map<uint64_t, Futex> futexes;
  std::vector<uint64_t> call_end;  // per plan thread: the end of its latest issued op (recorded ns)
  // A futex wait for a contended lock whose holder's latest call had ended
  // when the wait began (waker): the holder took the lock after that call, as
  // far as the trace tells, so the wait needs no order after the call. On a
  // slower mount the edge would make the waiter wait out the holder's slower
  // call, which the original, taking the lock while the holder was still in
  // it, did not (libuv's pool threads and loop, one mutex). The wait gets
  // no edge and no time of its own (deps.h).
  bool lock_wait(uint64_t i, const Futex& fx, const Wake& w) const;
  uint64_t next_sweep = 0;
};

}  // namespace fsr
