#include "replayer/deps.h"

#include <sys/syscall.h>

#include <algorithm>

#include "replayer/dep_builder.h"
#include "replayer/ns_order.h"
#include "replayer/path_map.h"
#include "traces/syscalls.h"

namespace fsr::deps_detail {

void DepBuilder::run() {
  classify_waiters();
  key_floor_.assign(ev_.size(), 0);
  for (int pass = 0;; ++pass) {
    monotone_keys();
    raises_ = 0;
    may_raise_ = pass < 3;
    for (uint32_t i = 0; i < ev_.size(); ++i) resources(i);
    if (raises_ == 0) break;
    reset_resources();
  }
  may_raise_ = false;
  causal();
  finish();
}

void DepBuilder::reset_resources() {
  edges_.clear();
  plan_.dropped_edges = 0;
  paths_.clear();
  dirs_.clear();
  contents_.clear();
  last_on_ofd_.clear();
  last_of_pid_.clear();
  chan_writes_.clear();
  futex_wakes_.clear();
}

void DepBuilder::path_edge(uint32_t from, uint32_t to, uint32_t p, DepKind kind) {
  if (from == kNoOp || from == to || same_thread(from, to)) return;
  if (p != kNoPath && ev_[from].ts < end(to) && ev_[to].ts < end(from)) {
    int kf, kt;
    bool df, dt;
    if (relation(from, p, kf, df) && relation(to, p, kt, dt) &&
        ns_first(ns_effect(ev_[from], kf, df), ns_seen(ev_[from], kf, df), ns_effect(ev_[to], kt, dt),
                 ns_seen(ev_[to], kt, dt)) < 0) {
      // `from` stood for its thread's earlier ops on p (a resource keeps
      // the latest op of each thread): now that it follows `to`, the one
      // before it on its thread must still precede `to`.
      edge(prev_on_thread(from, p), to, kind);
      std::swap(from, to);
    }
  }
  edge(from, to, kind);
}

uint32_t DepBuilder::prev_on_thread(uint32_t o, uint32_t p) {
  const std::vector<uint32_t>& ops = plan_.threads[plan_.ops[o].thread].ops;
  auto it = std::lower_bound(ops.begin(), ops.end(), o);
  int k;
  bool direct;
  for (int steps = 0; it != ops.begin() && steps < 256; ++steps)
    if (relation(*--it, p, k, direct)) return *it;
  return kNoOp;
}

bool DepBuilder::relation(uint32_t o, uint32_t p, int& k, bool& direct) {
  const SyscallInfo* si = syscall_info(ev_[o].nr);
  const int k0 = si && (si->flags & kSfLiteralPath0) ? 1 : 0;
  for (direct = true, k = k0; k < 2; ++k)
    if (plan_.ops[o].path[k] == p) return true;
  for (direct = false, k = k0; k < 2; ++k)
    if (plan_.ops[o].path[k] != kNoPath && parent_path(plan_.ops[o].path[k]) == p) return true;
  return false;
}

void DepBuilder::edge(uint32_t from, uint32_t to, DepKind kind) {
  if (from == kNoOp || from == to || same_thread(from, to)) return;
  if (!key_less(from, to)) {
    if (may_raise_ && key(from) < end(to)) {
      key_floor_[to] = std::max(key_floor_[to], key(from) + 1);
      ++raises_;
      return;
    }
    ++plan_.dropped_edges;
    return;
  }
  edges_.push_back({to, from, kind});
}

bool DepBuilder::is_blocking_read(uint32_t i) const {
  const PlanOp& op = plan_.ops[i];
  return facts_[i].chan != UINT32_MAX && !facts_[i].chan_write && op.ofd != kNoOfd;
}

void DepBuilder::classify_waiters() {
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

void DepBuilder::monotone_keys() {
  plan_.overlapping_ops = 0;
  for (const auto& list : plan_.workers) {
    uint64_t last = 0;
    for (uint32_t i : list) {
      const uint64_t raw = std::max(key_end_[i] ? end(i) : ev_[i].ts, key_floor_[i]);
      if (raw < last) ++plan_.overlapping_ops;
      key_[i] = last = std::max(raw, last);
    }
  }
}

void DepBuilder::add_reader(Readers& r, uint32_t i) {
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

void DepBuilder::writer(Shared& s, uint32_t i, DepKind kind, uint32_t p) {
  path_edge(s.last_ns, i, p, kind);
  for (uint32_t r : s.readers.ops) path_edge(r, i, p, kind);
  s.last_ns = i;
  s.readers.ops.clear();
  s.readers.compact_at = 16;
}

void DepBuilder::reader(Shared& s, uint32_t i, DepKind kind, uint32_t p) {
  path_edge(s.last_ns, i, p, kind);
  add_reader(s.readers, i);
}

void DepBuilder::contents(Contents& c, uint32_t i, bool listing) {
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

void DepBuilder::ofd_use(uint32_t ofd, uint32_t i) {
  if (ofd == kNoOfd) return;
  auto [it, fresh] = last_on_ofd_.try_emplace(ofd, i);
  if (!fresh) {
    edge(it->second, i, DepKind::kOfd);
    it->second = i;
  }
}

uint32_t DepBuilder::parent_path(uint32_t p) {
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

void DepBuilder::resources(uint32_t i) {
  const PlanOp& op = plan_.ops[i];
  const OpFacts& f = facts_[i];
  const SyscallInfo* si = syscall_info(ev_[i].nr);
  bool literal0 = si && (si->flags & kSfLiteralPath0);
  // Per path, and the directory holding it.
  for (int k = 0; k < 2; ++k) {
    if (op.path[k] == kNoPath || (k == 0 && literal0)) continue;
    Shared& s = paths_[op.path[k]];
    // A namespace call that failed changed nothing: it saw the name, as a
    // reader does (an EEXIST mkdir that returned before the mkdir that made
    // the name must not take the readers the maker has to follow).
    if ((f.ns_mask >> k & 1) && ev_[i].ret >= 0) writer(s, i, DepKind::kPath, op.path[k]);
    else reader(s, i, DepKind::kPath, op.path[k]);
    if (uint32_t par = parent_path(op.path[k]); par != kNoPath) reader(paths_[par], i, DepKind::kParentPath, par);
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

uint64_t DepBuilder::futex_key(const Event& e) {
  bool priv = (e.args[1] & 128) != 0;
  return e.args[0] ^ (priv ? (static_cast<uint64_t>(e.pid) << 48) : 0);
}

}  // namespace fsr::deps_detail

namespace fsr {

void add_dependencies(const std::vector<Event>& events, const std::vector<OpFacts>& facts,
                      Plan& plan) {
  deps_detail::DepBuilder(events, facts, plan).run();
}

}  // namespace fsr
