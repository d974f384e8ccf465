// Causal waits (wait4, futex, pipe and eventfd reads, polls) and the plan's
// edge lists; resource edges are in deps.cpp.
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>

#include "replayer/dep_builder.h"

namespace fsr::deps_detail {

uint32_t DepBuilder::approximate(uint32_t i) {
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

void DepBuilder::causal_edge(uint32_t from, uint32_t i) {
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

void DepBuilder::causal() {
  // Events are stored in completion order; wakes are looked up by enter time.
  for (auto& [k, v] : futex_wakes_)
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return ev_[a].ts < ev_[b].ts; });
  by_end_.resize(ev_.size());
  for (uint32_t i = 0; i < ev_.size(); ++i) by_end_[i] = i;
  // Events are stored in completion order: sorted already, but for ties and damage.
  const auto by_end = [&](uint32_t a, uint32_t b) { return end(a) < end(b) || (end(a) == end(b) && a < b); };
  if (!std::is_sorted(by_end_.begin(), by_end_.end(), by_end)) std::sort(by_end_.begin(), by_end_.end(), by_end);
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

void DepBuilder::exit_holds() {
  if (exit_lags_.empty()) return;
  uint64_t floor = kWakeNs;
  for (const auto& [op, lag] : exit_lags_) floor = std::min(floor, lag);
  for (const auto& [op, lag] : exit_lags_) {
    const uint64_t hold = std::min<uint64_t>(lag - floor, UINT32_MAX);
    plan_.ops[op].own_ns = std::max(plan_.ops[op].own_ns, static_cast<uint32_t>(hold));
  }
}

void DepBuilder::finish() {
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

}  // namespace fsr::deps_detail
