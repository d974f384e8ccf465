#include "tools/report/critical_path.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace fsr {

uint64_t PathAttribution::total() const {
  return std::accumulate(class_ns.begin(), class_ns.end(), uint64_t{0}) + compute_ns + unexplained_ns;
}

PathAttribution critical_path(const std::vector<OpRecord>& ops, uint64_t wall_ns) {
  PathAttribution pa;
  constexpr size_t kNone = SIZE_MAX;
  size_t last = kNone;
  uint64_t last_end = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const uint64_t end = ops[i].start + ops[i].latency;
    if (last == kNone || end > last_end) last = i, last_end = end;
  }
  pa.wall_ns = std::max(wall_ns, last_end);
  if (last == kNone) {
    pa.unexplained_ns = pa.wall_ns;
    return pa;
  }

  // Previous op of the same worker, in issue order.
  std::unordered_map<uint32_t, std::vector<size_t>> by_worker;
  for (size_t i = 0; i < ops.size(); ++i) by_worker[ops[i].worker].push_back(i);
  std::vector<size_t> prev_on_worker(ops.size(), kNone);
  for (auto& [w, idx] : by_worker) {
    auto before = [&](size_t a, size_t b) {
      return ops[a].start != ops[b].start ? ops[a].start < ops[b].start
                                          : ops[a].event_index < ops[b].event_index;
    };
    if (!std::is_sorted(idx.begin(), idx.end(), before)) std::stable_sort(idx.begin(), idx.end(), before);
    for (size_t k = 1; k < idx.size(); ++k) prev_on_worker[idx[k]] = idx[k - 1];
  }
  // Op of an event index: the identity when ops are stored one per event
  // in event order (predict's results), else a map.
  bool identity = true;
  for (size_t i = 0; i < ops.size() && identity; ++i) identity = ops[i].event_index == i;
  std::unordered_map<uint64_t, size_t> by_event;
  if (!identity) {
    by_event.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) by_event.emplace(ops[i].event_index, i);
  }
  auto op_of_event = [&](uint64_t e) -> size_t {
    if (identity) return e < ops.size() ? static_cast<size_t>(e) : kNone;
    auto it = by_event.find(e);
    return it == by_event.end() ? kNone : it->second;
  };

  std::vector<bool> visited(ops.size(), false);
  uint64_t cursor = pa.wall_ns;  // everything in [cursor, wall] is accounted for
  size_t cur = last;
  pa.unexplained_ns += cursor - std::min(cursor, last_end);
  cursor = std::min(cursor, last_end);
  while (cur != kNone && !visited[cur]) {
    visited[cur] = true;
    pa.path.push_back(cur);
    const OpRecord& op = ops[cur];
    const uint64_t start = std::min(op.start, cursor);
    pa.class_ns[static_cast<size_t>(class_of(op.nr))] += cursor - start;
    cursor = start;

    // The op could start only when both its worker's previous op (plus the
    // think gap) and its last dependency had ended: the predecessor on the
    // critical path is whichever of the two ended later. A dependency that
    // ended long before (a wait that did not really block) is not on the path.
    size_t pred = prev_on_worker[cur];
    bool via_dep = false;
    if (op.dep_wait > 0 && op.waited_on > 0) {
      const size_t dep = op_of_event(op.waited_on - 1);
      if (dep != kNone && dep != cur) {
        const uint64_t dep_end = ops[dep].start + ops[dep].latency;
        const uint64_t prog_end = pred == kNone ? 0 : ops[pred].start + ops[pred].latency + op.gap;
        if (pred == kNone || dep_end > prog_end) pred = dep, via_dep = true;
      }
    }
    if (pred != kNone && visited[pred]) pred = kNone;  // a cycle: stop here

    const uint64_t pred_end = pred == kNone ? 0 : std::min(ops[pred].start + ops[pred].latency, cursor);
    const uint64_t between = cursor - pred_end;
    // The gap was slept right after the worker's previous op; when a
    // dependency released the op instead, the gap is not on the path.
    const uint64_t think = via_dep ? 0 : std::min(op.gap, between);
    pa.compute_ns += think;
    pa.unexplained_ns += between - think;
    cursor = pred_end;
    cur = pred;
  }
  pa.unexplained_ns += cursor;  // [0, cursor) before a path cut short by a cycle
  return pa;
}

WallSplit split_wall(const PathAttribution& t, const PathAttribution& b) {
  WallSplit s;
  for (size_t c = 0; c < s.class_delta.size(); ++c)
    s.class_delta[c] = static_cast<int64_t>(t.class_ns[c]) - static_cast<int64_t>(b.class_ns[c]);
  s.compute_delta = static_cast<int64_t>(t.compute_ns) - static_cast<int64_t>(b.compute_ns);
  s.unexplained_delta = static_cast<int64_t>(t.unexplained_ns) - static_cast<int64_t>(b.unexplained_ns);
  s.wall_delta = static_cast<int64_t>(t.wall_ns) - static_cast<int64_t>(b.wall_ns);
  return s;
}

}  // namespace fsr
