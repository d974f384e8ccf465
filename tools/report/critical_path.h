// Wall-time attribution along a replay's critical path. Starting from the op
// that finished last, walk back: an op's predecessor is the op its waited_on
// names when it waited on a dependency (dep_wait > 0), else the previous op of
// its replay worker. Each op on the path contributes its latency to its class,
// the gap before it to "compute" (think time), and whatever else lies between
// the ops (scheduling, the tail after the last op, a missing predecessor) to
// "unexplained". The parts tile [0, wall] exactly: they always add up to wall.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "traces/event.h"
#include "traces/syscalls.h"

namespace fsr {

struct PathAttribution {
  std::array<uint64_t, kClassCount> class_ns{};
  uint64_t compute_ns = 0;
  uint64_t unexplained_ns = 0;
  uint64_t wall_ns = 0;             // max(given wall, last op end)
  std::vector<size_t> path;         // op indices on the path, last op first

  uint64_t total() const;           // sum of all parts; == wall_ns
};

PathAttribution critical_path(const std::vector<OpRecord>& ops, uint64_t wall_ns);

// The wall-time difference target - baseline split into the same parts; the
// parts add up to wall_delta exactly.
struct WallSplit {
  std::array<int64_t, kClassCount> class_delta{};
  int64_t compute_delta = 0;
  int64_t unexplained_delta = 0;
  int64_t wall_delta = 0;
};

WallSplit split_wall(const PathAttribution& target, const PathAttribution& baseline);

}  // namespace fsr
