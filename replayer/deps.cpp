#include "replayer/deps.h"

#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>
#include <unordered_map>

#include "replayer/path_map.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

struct Edge {
  uint32_t to, from;
  DepKind kind;
};

class DepBuilder {
 public:
  DepBuilder(const std::vector<Event>& ev, const std::vector<OpFacts>& facts, Plan& plan)
      : ev_(ev), facts_(facts), plan_(plan), key_end_(ev.size(), false), key_(ev.size(), 0),
        parent_(plan.paths.size(), kUnset) {}

  void run() {
    classify_waiters();
    monotone_keys();
    for (uint32_t i = 0; i < ev_.size(); ++i) resources(i);
    causal();
    finish();
  }

 private:
  uint64_t end(uint32_t i) const { return ev_[i].ts + ev_[i].dur; }
  uint64_t key(uint32_t i) const { return key_[i]; }
  bool key_less(uint32_t a, uint32_t b) const {
    return key(a) < key(b) || (key(a) == key(b) && a < b);
  }
  bool same_thread(uint32_t a, uint32_t b) const {
    return plan_.ops[a].thread == plan_.ops[b].thread;
  }

  void edge(uint32_t from, uint32_t to, DepKind kind) {
    if (from == kNoOp || from == to || same_thread(from, to)) return;
    if (!key_less(from, to)) {
      ++plan_.dropped_edges;
      return;
    }
    edges_.push_back({to, from, kind});
  }

  bool is_blocking_read(uint32_t i) const {
    const PlanOp& op = plan_.ops[i];
    return facts_[i].chan != UINT32_MAX && !facts_[i].chan_write && op.ofd != kNoOfd;
  }

  // Ops that get a causal dependency sort by their exit time (see deps.h).
  void classify_waiters() {
    for (uint32_t i = 0; i < ev_.size(); ++i) {
      const Event& e = ev_[i];
      switch (e.nr) {
        case SYS_wait4: case SYS_waitid: case SYS_futex: case SYS_poll: case SYS_ppoll:
        case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait:
        case SYS_epoll_pwait2: case SYS_vfork:
          key_end_[i] = true;
          break;
        default:
          if (is_blocking_read(i)) key_end_[i] = true;
      }
    }
  }

  // An op's key is its enter time (exit time for a waiter), raised to the key
  // of the op before it on its worker: keys must not decrease in any worker's
  // issue order, or two workers could each wait for an op the other issues
  // later. A recorded thread's calls never overlap and a worker takes a thread
  // only after its previous one ended, so this changes only hand-made or
  // damaged traces (a call entered before its thread's previous one
  // returned); those are counted.
  void monotone_keys() {
    for (const auto& list : plan_.workers) {
      uint64_t last = 0;
      for (uint32_t i : list) {
        const uint64_t raw = key_end_[i] ? end(i) : ev_[i].ts;
        if (raw < last) ++plan_.overlapping_ops;
        key_[i] = last = std::max(raw, last);
      }
    }
  }

  // Readers of a resource since its last writer: the latest op of each
  // thread. Appended, and compacted to one per thread when it grows (a path
  // every process reads, such as a shared library, is read by thousands).
  struct Readers {
    std::vector<uint32_t> ops;
    size_t compact_at = 16;
  };
  void add_reader(Readers& r, uint32_t i) {
    if (!r.ops.empty() && same_thread(r.ops.back(), i)) {
      r.ops.back() = i;
      return;
    }
    r.ops.push_back(i);
    if (r.ops.size() < r.compact_at) return;
    // Latest per thread: ops arrive in event order, so keep the last of each.
    std::sort(r.ops.begin(), r.ops.end(), [&](uint32_t a, uint32_t b) {
      const uint32_t ta = plan_.ops[a].thread, tb = plan_.ops[b].thread;
      return ta < tb || (ta == tb && a > b);
    });
    r.ops.erase(std::unique(r.ops.begin(), r.ops.end(), [&](uint32_t a, uint32_t b) { return same_thread(a, b); }),
                r.ops.end());
    r.compact_at = std::max<size_t>(16, 2 * r.ops.size());
  }

  struct Shared {
    uint32_t last_ns = kNoOp;
    Readers readers;
  };

  void writer(Shared& s, uint32_t i, DepKind kind) {
    edge(s.last_ns, i, kind);
    for (uint32_t r : s.readers.ops) edge(r, i, kind);
    s.last_ns = i;
    s.readers.ops.clear();
    s.readers.compact_at = 16;
  }
  void reader(Shared& s, uint32_t i, DepKind kind) {
    edge(s.last_ns, i, kind);
    add_reader(s.readers, i);
  }

  // A directory's entries (ROOT/ARTC): a listing follows the namespace
  // changes in the directory before it, and a change follows the listings
  // before it; changes of different names in one directory need no order
  // among themselves (the same name is ordered by its path), nor do listings.
  struct Contents {
    bool listing = false;        // what the current group is
    Readers cur;                 // the current group, latest op per thread
    std::vector<uint32_t> prev;  // the group before it
  };
  void contents(Contents& c, uint32_t i, bool listing) {
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
  }

  void ofd_use(uint32_t ofd, uint32_t i) {
    if (ofd == kNoOfd) return;
    auto [it, fresh] = last_on_ofd_.try_emplace(ofd, i);
    if (!fresh) {
      edge(it->second, i, DepKind::kOfd);
      it->second = i;
    }
  }

  // The plan path of the directory holding path `p` (kNoPath when no op
  // names it): its namespace ops order the ops beneath it.
  static constexpr uint32_t kUnset = UINT32_MAX - 1;
  uint32_t parent_path(uint32_t p) {
    if (parent_[p] != kUnset) return parent_[p];
    if (by_abs_.empty())  // the paths ops name (not symlink texts, which are not paths)
      for (uint32_t o = 0; o < plan_.ops.size(); ++o) {
        const SyscallInfo* si = syscall_info(ev_[o].nr);
        const bool literal0 = si && (si->flags & kSfLiteralPath0);
        for (int k = literal0 ? 1 : 0; k < 2; ++k)
          if (plan_.ops[o].path[k] != kNoPath) by_abs_.emplace(plan_.paths[plan_.ops[o].path[k]].abs, plan_.ops[o].path[k]);
      }
    const std::string& abs = plan_.paths[p].abs;
    auto it = abs == "/" ? by_abs_.end() : by_abs_.find(parent_of(abs));
    return parent_[p] = it == by_abs_.end() ? kNoPath : it->second;
  }

  void resources(uint32_t i) {
    const PlanOp& op = plan_.ops[i];
    const OpFacts& f = facts_[i];
    const SyscallInfo* si = syscall_info(ev_[i].nr);
    bool literal0 = si && (si->flags & kSfLiteralPath0);
    // Per path, and the directory holding it.
    for (int k = 0; k < 2; ++k) {
      if (op.path[k] == kNoPath || (k == 0 && literal0)) continue;
      Shared& s = paths_[op.path[k]];
      if (f.ns_mask >> k & 1) writer(s, i, DepKind::kPath);
      else reader(s, i, DepKind::kPath);
      if (uint32_t par = parent_path(op.path[k]); par != kNoPath) reader(paths_[par], i, DepKind::kParentPath);
    }
    // Per parent directory's entries.
    if (plan_.serial_dirs) {
      for (int k = 0; k < 2; ++k)
        if (f.parent[k] != kNoPath) writer(dirs_[f.parent[k]], i, DepKind::kSerialDir);
      if (f.readdir_dir != kNoPath) reader(dirs_[f.readdir_dir], i, DepKind::kSerialDir);
    } else {
      for (int k = 0; k < 2; ++k)
        if (f.parent[k] != kNoPath && (k == 0 || f.parent[1] != f.parent[0])) contents(contents_[f.parent[k]], i, false);
      if (f.readdir_dir != kNoPath) contents(contents_[f.readdir_dir], i, true);
    }
    // Per open file (including the OFDs this op opens or finally closes).
    ofd_use(op.ofd, i);
    ofd_use(op.ofd2, i);
    ofd_use(op.new_ofd, i);
    for (uint32_t c = op.close_begin; c < op.close_end; ++c) ofd_use(plan_.closes[c], i);
    // A thread starts after the clone that created it; a page fault after its mmap.
    edge(f.creator, i, DepKind::kThreadStart);
    edge(op.ref_op, i, DepKind::kMapping);
    // Remember the last event per process (wait4 target) and writes per channel.
    const Event& e = ev_[i];
    uint64_t& le = last_of_pid_[e.pid];
    if (le == 0 || end(static_cast<uint32_t>(le - 1)) <= end(i)) le = i + 1;
    if (f.chan != UINT32_MAX && f.chan_write && e.ret > 0) {
      auto& w = chan_writes_[f.chan];
      uint64_t before = w.empty() ? 0 : w.back().first;
      w.push_back({before + static_cast<uint64_t>(e.ret), i});
    }
    if (e.nr == SYS_futex) {
      int cmd = static_cast<int>(e.args[1] & 127);
      if (cmd == 1 || cmd == 10 || cmd == 3 || cmd == 4 || cmd == 5)
        futex_wakes_[futex_key(e)].push_back(i);
    }
  }

  static uint64_t futex_key(const Event& e) {
    bool priv = (e.args[1] & 128) != 0;
    return e.args[0] ^ (priv ? (static_cast<uint64_t>(e.pid) << 48) : 0);
  }

  // Latest event of another thread that completed while `i` was blocked.
  uint32_t approximate(uint32_t i) {
    const Event& e = ev_[i];
    auto it = std::lower_bound(by_end_.begin(), by_end_.end(), i, [&](uint32_t a, uint32_t b) {
      return end(a) < end(b) || (end(a) == end(b) && a < b);
    });
    for (int steps = 0; it != by_end_.begin() && steps < 512; ++steps) {
      uint32_t d = *--it;
      if (end(d) < e.ts) break;
      if (!same_thread(d, i) && key_less(d, i)) return d;
    }
    return kNoOp;
  }

  void causal_edge(uint32_t from, uint32_t i) {
    if (from != kNoOp) {
      size_t before = edges_.size();
      edge(from, i, DepKind::kCausal);
      if (edges_.size() > before) {
        ++plan_.exact_causal;
        plan_.ops[i].flags |= kPfCausal;
        return;
      }
    }
    uint32_t d = approximate(i);
    if (d == kNoOp) return;
    edge(d, i, DepKind::kApproxCausal);
    plan_.ops[i].flags |= kPfApproxDep;
    ++plan_.approx_deps;
  }

  void causal() {
    // Events are stored in completion order; wakes are looked up by enter time.
    for (auto& [k, v] : futex_wakes_)
      std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return ev_[a].ts < ev_[b].ts; });
    by_end_.resize(ev_.size());
    for (uint32_t i = 0; i < ev_.size(); ++i) by_end_[i] = i;
    std::sort(by_end_.begin(), by_end_.end(), [&](uint32_t a, uint32_t b) {
      return end(a) < end(b) || (end(a) == end(b) && a < b);
    });
    std::unordered_map<uint32_t, uint64_t> chan_read_pos;
    // Reads consume channel bytes in completion order.
    for (uint32_t i : by_end_) {
      const Event& e = ev_[i];
      if (!key_end_[i] || e.ret < 0) continue;
      switch (e.nr) {
        case SYS_wait4: case SYS_waitid: {
          uint32_t child = e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret)
                           : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
          auto it = last_of_pid_.find(child);
          const uint32_t last = child && it != last_of_pid_.end() ? static_cast<uint32_t>(it->second - 1) : kNoOp;
          causal_edge(last, i);
          if (last != kNoOp && ev_[last].nr == kEvProcExit && end(i) >= end(last))
            exit_lags_.push_back({last, end(i) - end(last)});
          break;
        }
        case SYS_futex: {
          int cmd = static_cast<int>(e.args[1] & 127);
          if (cmd != 0 && cmd != 9) break;
          uint32_t from = kNoOp;
          auto it = futex_wakes_.find(futex_key(e));
          if (it != futex_wakes_.end()) {
            auto& v = it->second;
            auto p = std::lower_bound(v.begin(), v.end(), end(i),
                                      [&](uint32_t w, uint64_t t) { return ev_[w].ts < t; });
            while (p != v.begin()) {
              uint32_t w = *--p;
              if (ev_[w].ts < e.ts) break;
              if (!same_thread(w, i)) { from = w; break; }
            }
          }
          causal_edge(from, i);
          break;
        }
        case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6: case SYS_epoll_wait:
        case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_vfork:
          if (e.ret > 0) causal_edge(kNoOp, i);
          break;
        default: {
          if (!is_blocking_read(i)) break;
          uint32_t from = kNoOp;
          uint32_t chan = facts_[i].chan;
          auto it = chan_writes_.find(chan);
          const OfdInfo& o = plan_.ofds[plan_.ops[i].ofd];
          if (e.ret > 0 && it != chan_writes_.end()) {
            auto& w = it->second;
            if (o.kind == OfdKind::kEventfd) {  // the latest write that entered before the read returned
              uint64_t best = 0;
              for (const auto& x : w)
                if (ev_[x.second].ts < end(i) && ev_[x.second].ts + 1 > best) {
                  best = ev_[x.second].ts + 1;
                  from = x.second;
                }
            } else {
              uint64_t& pos = chan_read_pos[chan];
              pos += static_cast<uint64_t>(e.ret);
              auto p = std::lower_bound(w.begin(), w.end(), pos,
                                        [](const auto& x, uint64_t b) { return x.first < b; });
              if (p != w.end()) from = p->second;
            }
          }
          if (from == kNoOp && e.ret == 0) break;  // EOF or empty: nothing fed it
          causal_edge(from, i);
        }
      }
    }
  }

  // A process's exit event comes from inside the kernel's exit path, before
  // its address space is torn down; its parent's wait returns after that. The
  // time between the exit event and the wait's return, less a wake-up (the
  // trace's smallest such lag, at most kWakeNs), is the exit's own work: the
  // replay holds the exit op for it (PlanOp::own_ns).
  static constexpr uint64_t kWakeNs = 100'000;
  void exit_holds() {
    if (exit_lags_.empty()) return;
    uint64_t floor = kWakeNs;
    for (const auto& [op, lag] : exit_lags_) floor = std::min(floor, lag);
    for (const auto& [op, lag] : exit_lags_) {
      const uint64_t hold = std::min<uint64_t>(lag - floor, UINT32_MAX);
      plan_.ops[op].own_ns = std::max(plan_.ops[op].own_ns, static_cast<uint32_t>(hold));
    }
  }

  void finish() {
    exit_holds();
    std::sort(edges_.begin(), edges_.end(), [](const Edge& a, const Edge& b) {
      return a.to < b.to || (a.to == b.to && a.from < b.from);
    });
    plan_.deps.clear();
    plan_.deps.reserve(edges_.size());
    plan_.dep_kinds.clear();
    plan_.dep_kinds.reserve(edges_.size());
    size_t k = 0;
    for (uint32_t i = 0; i < plan_.ops.size(); ++i) {
      PlanOp& op = plan_.ops[i];
      op.dep_begin = static_cast<uint32_t>(plan_.deps.size());
      for (; k < edges_.size() && edges_[k].to == i; ++k) {
        if (!plan_.deps.empty() && plan_.deps.size() > op.dep_begin &&
            plan_.deps.back() == edges_[k].from)
          continue;
        plan_.deps.push_back(edges_[k].from);
        plan_.dep_kinds.push_back(edges_[k].kind);
        plan_.ops[edges_[k].from].flags |= kPfNotify;
      }
      op.dep_end = static_cast<uint32_t>(plan_.deps.size());
    }
    plan_.dep_edges = plan_.deps.size();
  }

  const std::vector<Event>& ev_;
  const std::vector<OpFacts>& facts_;
  Plan& plan_;
  std::vector<bool> key_end_;
  std::vector<std::pair<uint32_t, uint64_t>> exit_lags_;  // (exit op, its waiter's return - its end)
  std::vector<uint64_t> key_;
  std::vector<Edge> edges_;
  std::vector<uint32_t> by_end_;
  std::unordered_map<uint32_t, Shared> paths_, dirs_;
  std::unordered_map<uint32_t, Contents> contents_;
  std::vector<uint32_t> parent_;                             // per plan path: parent_path(), memoised
  std::unordered_map<std::string_view, uint32_t> by_abs_;    // plan path ids by text (parent_path)
  std::unordered_map<uint32_t, uint32_t> last_on_ofd_;
  std::unordered_map<uint32_t, uint64_t> last_of_pid_;  // pid -> event index + 1
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint32_t>>> chan_writes_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> futex_wakes_;
};

}  // namespace

void add_dependencies(const std::vector<Event>& events, const std::vector<OpFacts>& facts,
                      Plan& plan) {
  DepBuilder(events, facts, plan).run();
}

}  // namespace fsr
