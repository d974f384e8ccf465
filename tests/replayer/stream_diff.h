// SPDX-License-Identifier: Apache-2.0
// A differential harness for the streaming planner (plan_stream.h): the same
// events planned at once (build_plan: the window holds the whole trace) and
// streamed through a window smaller than the trace, each op taken as it
// becomes final and its slot released as the engine would release it. The
// ops must agree: action, thread, worker, gap, flags, paths (by name), the
// OFDs they use, open and close (by a bijection between the two plans' OFD
// numbers, which differ once the stream recycles a slot), mappings, and
// their dependency edges. A stream edge may be missing only where the
// window makes it one (its op's slot had gone to a later op when the edge
// was made, so it was satisfied: that op ran; counted), never otherwise.
#pragma once

#include <algorithm>
#include <sys/syscall.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "replayer/plan/plan_stream.h"
#include "replayer/plan/survey.h"
#include "tests/replayer/synthetic.h"

namespace fsr::test {

struct OpSnap {
  OpAction action = OpAction::kSkip;
  uint32_t thread = 0, worker = 0;
  uint64_t gap = 0;
  uint32_t own_ns = 0;
  uint8_t flags = 0;  // without kPfNotify (set on an op after it is final: the engine wakes waiters anyway)
  uint32_t ofd = kNoOfd, ofd2 = kNoOfd, new_ofd = kNoOfd;
  std::string path[2];
  std::vector<uint32_t> closes;
  std::vector<std::pair<uint32_t, DepKind>> deps;
  uint32_t map = UINT32_MAX, ref_op = kNoOp, space = kNoSpace;
  uint64_t ref_off = 0;
  uint32_t unmaps = 0;
  uint64_t final_at =
      0;  // streamed: ops planned when it became final (an edge to an op whose slot was reused then is satisfied)
};

inline OpSnap snap(const Plan& p, uint64_t i) {
  const PlanOp& op = p.op(i);
  OpSnap s;
  s.action = op.action;
  s.thread = op.thread;
  s.worker = p.threads[op.thread].worker;
  s.gap = op.gap;
  s.own_ns = op.own_ns;
  s.flags = op.flags & ~kPfNotify;
  s.ofd = op.ofd;
  s.ofd2 = op.ofd2;
  s.new_ofd = op.new_ofd;
  for (int k = 0; k < 2; ++k)
    if (op.path[k] != kNoPath) s.path[k] = p.paths[op.path[k]].abs;
  for (uint32_t k = op.close_begin; k != op.close_end; ++k) s.closes.push_back(p.close(k));
  for (uint32_t k = op.dep_begin; k != op.dep_end; ++k)
    if (p.dep(k) != kNoOp) s.deps.push_back({p.dep(k), p.dep_kind(k)});
  std::sort(s.deps.begin(), s.deps.end());
  s.map = op.map;
  s.ref_op = op.ref_op;
  s.ref_off = op.ref_off;
  s.space = op.space;
  s.unmaps = op.unmap_end - op.unmap_begin;
  return s;
}

struct Streamed {
  std::vector<OpSnap> ops;
  uint64_t approx_deps = 0, beyond_window = 0, dropped_edges = 0, overlapping = 0;
  uint64_t moved_edges = 0, moves_beyond_window = 0, lock_waits = 0;
  bool stuck = false;  // the window filled with ops not final: the planner could not go on
};

// Streams `t` through a window of `window` ops (a power of two), looking
// `lookahead` events ahead for wakers. An op is taken once it is final and
// every op before it was taken (the engine's base), as the replay does.
inline Streamed stream_plan(const Synth& t, const PlanInputs& in, uint64_t window, uint64_t lookahead) {
  SurveyBuilder sb(in, t.lookup(), window, {});
  for (const Event& e : t.ev) sb.add(e);
  PlanSurvey s = sb.finish();
  WindowSync sync(window);
  PlanStream ps(in, t.lookup(), &s, window, lookahead, &sync);
  Streamed out;
  uint64_t base = 0;
  auto take = [&] {
    const Plan& p = ps.plan();
    while (base < p.size && sync.ready[base & p.op_mask].load() == base + 1) {
      out.ops.push_back(snap(p, base));
      out.ops.back().final_at = p.size;
      sync.base.store(++base);
    }
  };
  for (const Event& e : t.ev) {
    take();
    if (!ps.room()) {
      out.stuck = true;
      return out;
    }
    ps.add(e);
  }
  ps.finish();
  take();
  const Plan& p = ps.plan();
  out.approx_deps = p.approx_deps;
  out.beyond_window = p.beyond_window;
  out.dropped_edges = p.dropped_edges;
  out.overlapping = p.overlapping_ops;
  out.moved_edges = p.moved_edges;
  out.lock_waits = p.lock_waits;
  out.moves_beyond_window = p.moves_beyond_window;
  return out;
}

struct DiffResult {
  std::vector<std::string> problems;  // the first few
  uint64_t mismatched_ops = 0;
  uint64_t window_edges = 0;   // batch edges the stream did not need: a window back (satisfied)
  uint64_t late_reaps = 0;     // exits not held: the wait that reaped them lay beyond the lookahead
  uint64_t window_causal = 0;  // waits exact in the stream (waker a window back), edgeless at once
  uint64_t implied_edges = 0;  // edges one plan has and the other implies by program order
  std::string summary() const {
    std::ostringstream o;
    o << mismatched_ops << " ops differ";
    for (const auto& p : problems) o << "\n  " << p;
    return o.str();
  }
};

inline std::string kind_name(DepKind k) { return std::to_string(static_cast<int>(k)); }

// Compares a streamed plan with the batch plan of the same events.
// The first wait4/waitid after exit op `x` that reaped its process (kNoOp: none).
inline uint64_t reaped_after(const Plan& b, uint64_t x) {
  const uint32_t pid = b.event(x).pid;
  for (uint64_t j = x + 1; j < b.size; ++j) {
    const Event& e = b.event(j);
    if ((e.nr == SYS_wait4 && e.ret == static_cast<int64_t>(pid)) || (e.nr == SYS_waitid && e.args[1] == pid)) return j;
  }
  return kNoOp;
}

inline DiffResult diff_plans(const Plan& b, const Streamed& s, uint64_t window, uint64_t lookahead) {
  DiffResult r;
  // Stream OFD <-> batch OFD. The batch never recycles a slot, so a batch OFD
  // seen for the first time is a new OFD (an open, a pipe, the initial
  // files): it is paired with the stream's OFD then, and must stay paired.
  std::unordered_map<uint32_t, uint32_t> ofd_map, rev;
  auto problem = [&](uint64_t i, const std::string& what) {
    if (r.problems.size() < 12)
      r.problems.push_back("op " + std::to_string(i) + " (nr " + std::to_string(b.event(i).nr) + "): " + what);
  };
  auto same_ofd = [&](uint32_t so, uint32_t bo) {
    if (so == kNoOfd || bo == kNoOfd) return so == bo;
    if (!rev.count(bo)) {
      ofd_map[so] = bo;
      rev[bo] = so;
      return true;
    }
    auto it = ofd_map.find(so);
    return it != ofd_map.end() && it->second == bo && rev[bo] == so;
  };
  if (s.stuck) r.problems.push_back("the stream stopped: its window filled with ops not final");
  if (s.ops.size() != b.size) {
    r.problems.push_back("stream took " + std::to_string(s.ops.size()) + " ops, batch has " + std::to_string(b.size));
    ++r.mismatched_ops;
  }
  for (uint64_t i = 0; i < s.ops.size() && i < b.size; ++i) {
    const OpSnap x = snap(b, i);
    const OpSnap& y = s.ops[i];
    bool bad = false;
    auto check = [&](bool ok, const std::string& what) {
      if (!ok) {
        bad = true;
        problem(i, what);
      }
    };
    check(x.action == y.action, "action " + std::to_string(int(x.action)) + " vs " + std::to_string(int(y.action)));
    check(x.thread == y.thread && x.worker == y.worker, "thread/worker");
    check(x.gap == y.gap, "gap " + std::to_string(x.gap) + " vs " + std::to_string(y.gap));
    if (x.own_ns != y.own_ns && y.own_ns == 0 && b.event(i).nr == kEvProcExit && reaped_after(b, i) > i + lookahead)
      ++r.late_reaps;  // the wait that reaped it came after the lookahead: the exit is not held
    else
      check(x.own_ns == y.own_ns, "own_ns " + std::to_string(x.own_ns) + " vs " + std::to_string(y.own_ns));
    // A causal waker a window back is satisfied in the stream before the
    // keys are compared (its slot is reused): where the batch drops that edge
    // (against the keys' order), the stream counts the wait as exact.
    if (x.flags != y.flags && (x.flags | kPfCausal) == y.flags && !(x.flags & kPfApproxDep))
      ++r.window_causal;
    else
      check(x.flags == y.flags, "flags " + std::to_string(x.flags) + " vs " + std::to_string(y.flags));
    check(x.path[0] == y.path[0] && x.path[1] == y.path[1], "paths " + x.path[0] + " vs " + y.path[0]);
    check(same_ofd(y.ofd, x.ofd), "ofd " + std::to_string(x.ofd) + " vs " + std::to_string(y.ofd));
    check(same_ofd(y.ofd2, x.ofd2), "ofd2");
    if (y.new_ofd != kNoOfd || x.new_ofd != kNoOfd) {
      check(same_ofd(y.new_ofd, x.new_ofd), "new_ofd");
    }
    check(x.closes.size() == y.closes.size(),
          "closes " + std::to_string(x.closes.size()) + " vs " + std::to_string(y.closes.size()));
    for (size_t k = 0; k < x.closes.size() && k < y.closes.size(); ++k)
      check(same_ofd(y.closes[k], x.closes[k]), "close of another OFD");
    check(
        x.map == y.map && x.ref_op == y.ref_op && x.ref_off == y.ref_off && x.space == y.space && x.unmaps == y.unmaps,
        "mapping");
    // Edges: every stream edge is a batch edge of the same kind; a batch edge
    // the stream lacks must lie a window back. Either may have an edge the
    // other lacks when a later op of the same thread is among its edges
    // (program order implies it: readers lists are compacted at other times).
    auto implied = [&](uint32_t from, const std::vector<std::pair<uint32_t, DepKind>>& by) {
      for (const auto& [g, kind] : by)
        if (g > from && b.op(g).thread == b.op(from).thread) return true;
      return false;
    };
    size_t a = 0;
    auto extra = [&](uint32_t from, DepKind kind) {
      if (implied(from, x.deps))
        ++r.implied_edges;
      else
        check(false, "extra edge from " + std::to_string(from) + " kind " + kind_name(kind));
    };
    for (const auto& [from, kind] : x.deps) {
      for (; a < y.deps.size() && y.deps[a].first < from; ++a) extra(y.deps[a].first, y.deps[a].second);
      if (a < y.deps.size() && y.deps[a].first == from) {
        check(y.deps[a].second == kind,
              "edge from " + std::to_string(from) + " kind " + kind_name(kind) + " vs " + kind_name(y.deps[a].second));
        ++a;
      } else if (from + window < y.final_at) {
        ++r.window_edges;
      } else if (implied(from, y.deps)) {
        ++r.implied_edges;
      } else {
        check(false, "missing edge from " + std::to_string(from) + " kind " + kind_name(kind));
      }
    }
    for (; a < y.deps.size(); ++a) extra(y.deps[a].first, y.deps[a].second);
    if (bad) ++r.mismatched_ops;
  }
  return r;
}

inline PlanInputs synth_inputs(const std::string& root) {
  PlanInputs in;
  in.recorded_root = root;
  in.target_dir = "/T";
  in.scratch_dir = "/S";
  in.initial.cwd = root;
  return in;
}

}  // namespace fsr::test
