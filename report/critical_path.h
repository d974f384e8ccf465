// SPDX-License-Identifier: Apache-2.0
// Wall-time attribution along a replay's critical path. Starting from the op
// that finished last, walk back: an op's predecessor is the op its waited_on
// names when it waited on a dependency (dep_wait > 0), else the previous op of
// its replay worker. Each op on the path contributes its latency to its class,
// the gap before it to "compute" (think time), and whatever else lies between
// the ops (scheduling, the tail after the last op, a missing predecessor) to
// "unexplained". The parts tile [0, wall] exactly: they always add up to wall.
//
// Computed in one pass over the ops in event order (CriticalPathBuilder): each
// op's predecessors come before it in that order (its worker's previous op;
// the dependency it waited on, an earlier event), so the path ending at an op
// is the one ending at its predecessor extended by the op. Memory: one such
// partial path per worker and per op of a window of recent ones that a later
// op may have waited on, not one per op.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "traces/event.h"
#include "traces/syscalls.h"

namespace fsr {

struct PathAttribution {
  std::array<uint64_t, kClassCount> class_ns{};
  uint64_t compute_ns = 0;
  uint64_t unexplained_ns = 0;
  uint64_t wall_ns = 0;      // max(given wall, last op end)
  uint64_t path_ops = 0;     // ops on the path
  std::vector<size_t> path;  // their positions, last op first (only when asked for: tests)
  uint64_t window_misses =
      0;  // first ops of a worker that waited on an op older than the builder's window (unexplained instead)

  uint64_t total() const;  // sum of all parts; == wall_ns
};

class CriticalPathBuilder {
 public:
  // Ops a later op may still have waited on. A real replay's waits that
  // matter end a few hundred events after what released them (a build's:
  // median 450); the older ones ended long before the op's worker was free.
  static constexpr size_t kDefaultWindow = 1 << 16;
  explicit CriticalPathBuilder(bool keep_path = false, size_t window = kDefaultWindow);
  ~CriticalPathBuilder();
  // Ops in event order; `position` is what PathAttribution::path names it by.
  void add(const OpRecord& op, size_t position);
  PathAttribution finish(uint64_t wall_ns);

 private:
  struct Node;
  struct Chain;
  struct Done;
  struct Last;
  void extend(const OpRecord& op, size_t position, const Done* pred, bool via_dep, Done& d) const;
  void evict(const Done& d);
  const Done& best() const;

  // An op's state is copied out of the window only when its slot is about
  // to be reused while it is still its worker's last op or the best one.
  bool keep_path_;
  std::vector<Done> window_;                 // by event index modulo its size
  std::unordered_map<uint32_t, Last> last_;  // per worker: its last op so far (never erased)
  uint64_t best_index_ = UINT64_MAX;         // the op that ended last so far (UINT64_MAX: none)
  std::unique_ptr<Done> best_;               // ... once its slot was reused (else event_index UINT64_MAX)
  uint64_t misses_ = 0;
};

// The same over ops held in memory (in any order: taken in event order).
PathAttribution critical_path(const std::vector<OpRecord>& ops, uint64_t wall_ns, bool keep_path = true);

// The wall-time difference target - baseline split into the same parts; the
// parts add up to wall_delta exactly (a part beyond ±2^63 ns, which only a
// damaged trace gives, saturates instead of overflowing).
struct WallSplit {
  std::array<int64_t, kClassCount> class_delta{};
  int64_t compute_delta = 0;
  int64_t unexplained_delta = 0;
  int64_t wall_delta = 0;
};

WallSplit split_wall(const PathAttribution& target, const PathAttribution& baseline);

}  // namespace fsr
