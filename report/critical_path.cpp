// SPDX-License-Identifier: Apache-2.0
#include "report/critical_path.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include "report/result_set.h"
#include "base/saturating.h"

namespace fsr {

uint64_t PathAttribution::total() const {
  return std::accumulate(class_ns.begin(), class_ns.end(), uint64_t{0}) + compute_ns + unexplained_ns;
}

// The path's ops, shared between the partial paths that run through them
// (keep_path only).
struct CriticalPathBuilder::Node {
  size_t position;
  std::shared_ptr<const Node> prev;
};

// The critical path up to where an op starts: [0, start] split into parts.
struct CriticalPathBuilder::Chain {
  std::array<uint64_t, kClassCount> class_ns{};
  uint64_t compute = 0, unexplained = 0, ops = 0;
  std::shared_ptr<const Node> nodes;
};

struct CriticalPathBuilder::Done {
  uint64_t event_index = UINT64_MAX;  // UINT64_MAX: empty slot
  uint64_t start = 0, end = 0;
  size_t position = 0;
  uint8_t cls = 0;
  Last* worker = nullptr;  // its worker's entry in last_
  Chain before;
};

// A worker's last op: in the window at event_index, or copied out.
struct CriticalPathBuilder::Last {
  uint64_t event_index = UINT64_MAX;
  std::unique_ptr<Done> spilled;  // its state once its slot was reused (null: still in the window)
};

CriticalPathBuilder::CriticalPathBuilder(bool keep_path, size_t window)
    : keep_path_(keep_path), window_(std::max<size_t>(window, 1)), best_(std::make_unique<Done>()) {}

CriticalPathBuilder::~CriticalPathBuilder() = default;

// `op` on the path after `pred` (nullptr: nothing before it). The op could
// start only when both its worker's previous op (plus the think gap) and its
// last dependency had ended: `pred` is whichever ended later. The gap was
// slept right after the worker's previous op; when a dependency released the
// op instead, the gap is not on the path, but for a thread's first op, whose
// start-up gap follows its creator.
void CriticalPathBuilder::extend(const OpRecord& op, size_t position, const Done* pred, bool via_dep, Done& d) const {
  d.event_index = op.event_index;
  d.start = op.start;
  d.end = op.start + op.latency;
  d.position = position;
  d.cls = static_cast<uint8_t>(class_of(op.nr));
  uint64_t pred_end = 0;
  if (pred) {
    d.before = pred->before;
    pred_end = std::min(pred->end, op.start);
    d.before.class_ns[pred->cls] += pred_end - pred->start;
    ++d.before.ops;
    if (keep_path_) d.before.nodes = std::make_shared<const Node>(Node{pred->position, pred->before.nodes});
  } else {
    d.before = Chain{};
  }
  const uint64_t between = op.start - pred_end;
  // (A new thread's start-up gap is slept after its creator, the dependency
  // that released it: on the path, as the original's start-up compute was.)
  const bool gap_after_dep = via_dep && op_dep_kind(op.flags) == DepKind::kThreadStart;
  const uint64_t think = via_dep && !gap_after_dep ? 0 : std::min(op.gap, between);
  d.before.compute += think;
  d.before.unexplained += between - think;
}

// The window slot holding `d` is about to be reused.
void CriticalPathBuilder::evict(const Done& d) {
  if (d.event_index == UINT64_MAX) return;
  if (d.event_index == best_index_ && best_->event_index == UINT64_MAX) *best_ = d;
  Last& l = *d.worker;
  if (l.event_index == d.event_index && !l.spilled) l.spilled = std::make_unique<Done>(d);
}

const CriticalPathBuilder::Done& CriticalPathBuilder::best() const {
  return best_->event_index != UINT64_MAX ? *best_ : window_[best_index_ % window_.size()];
}

void CriticalPathBuilder::add(const OpRecord& op, size_t position) {
  Last& last = last_[op.worker];
  const Done* prev = last.event_index == UINT64_MAX ? nullptr
                     : last.spilled                 ? last.spilled.get()
                                                    : &window_[last.event_index % window_.size()];
  const Done* pred = prev && prev->start <= op.start ? prev : nullptr;
  bool via_dep = false;
  if (op.dep_wait > 0 && op.waited_on > 0 && op.waited_on - 1 < op.event_index) {
    const uint64_t j = op.waited_on - 1;
    const Done& dep = window_[j % window_.size()];
    if (dep.event_index == j) {
      const uint64_t prog_end = pred ? pred->end + op.gap : 0;
      if (dep.start <= op.start && (!pred || dep.end > prog_end)) pred = &dep, via_dep = true;
    } else if (!pred && op.event_index - j >= window_.size()) {
      // Only here does the lost op change the path for sure: with a previous
      // op on the worker, a dependency that many events older ended before
      // that op did (it would not be the predecessor).
      ++misses_;
    }
  }
  Done& slot = window_[op.event_index % window_.size()];
  evict(slot);
  Done aliased;  // (pred may be the slot's op itself: a wait on an op a window back)
  Done& d = pred == &slot ? aliased : slot;
  extend(op, position, pred, via_dep, d);
  d.worker = &last;
  if (&d == &aliased) slot = std::move(aliased);
  if (best_index_ == UINT64_MAX || slot.end > best().end) {
    best_index_ = slot.event_index;
    best_->event_index = UINT64_MAX;
  }
  last.event_index = slot.event_index;
  last.spilled.reset();
}

PathAttribution CriticalPathBuilder::finish(uint64_t wall_ns) {
  PathAttribution pa;
  pa.window_misses = misses_;
  if (best_index_ == UINT64_MAX) {
    pa.wall_ns = wall_ns;
    pa.unexplained_ns = wall_ns;
    return pa;
  }
  const Done& last = best();
  pa.wall_ns = std::max(wall_ns, last.end);
  pa.class_ns = last.before.class_ns;
  pa.class_ns[last.cls] += last.end - last.start;
  pa.compute_ns = last.before.compute;
  pa.unexplained_ns = last.before.unexplained + (pa.wall_ns - last.end);
  pa.path_ops = last.before.ops + 1;
  if (keep_path_) {
    pa.path.push_back(last.position);
    for (const Node* n = last.before.nodes.get(); n; n = n->prev.get()) pa.path.push_back(n->position);
  }
  return pa;
}

PathAttribution critical_path(const std::vector<OpRecord>& ops, uint64_t wall_ns, bool keep_path) {
  const std::vector<size_t> order = event_order(ops);
  uint64_t top = 0;  // every earlier op stays in the window
  for (const OpRecord& op : ops) top = std::max(top, op.event_index);
  CriticalPathBuilder b(keep_path, static_cast<size_t>(std::min<uint64_t>(top + 1, 1u << 24)));
  for (size_t i : order) b.add(ops[i], i);
  return b.finish(wall_ns);
}

WallSplit split_wall(const PathAttribution& t, const PathAttribution& b) {
  WallSplit s;
  for (size_t c = 0; c < s.class_delta.size(); ++c) s.class_delta[c] = signed_delta(t.class_ns[c], b.class_ns[c]);
  s.compute_delta = signed_delta(t.compute_ns, b.compute_ns);
  s.unexplained_delta = signed_delta(t.unexplained_ns, b.unexplained_ns);
  s.wall_delta = signed_delta(t.wall_ns, b.wall_ns);
  return s;
}

}  // namespace fsr
