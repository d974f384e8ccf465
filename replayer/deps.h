// Dependency edges of the replay plan (DESIGN.md "Replay", ROOT/ARTC resource
// ordering and //TRACE causal waits). Program order within a recorded thread is
// implicit (a thread's ops run in order on one worker). Across threads:
//   - per path: an op on a path follows the latest namespace op on it; a
//     namespace op follows the latest op of every other thread on it;
//   - per open file: ops on one OFD keep their recorded order;
//   - per parent directory: namespace ops in a directory and readdirs of it
//     keep their recorded order;
//   - a thread's first op follows the clone/fork that created it;
//   - causal waits: wait4/waitid -> the child's last event; a read on a pipe,
//     socketpair or eventfd -> the write that fed it; a futex wait -> the
//     matching wake; otherwise -> the latest event of another thread that
//     completed while the wait was blocked (approximate, counted).
// Two calls on one resource that overlapped in time are ordered as they
// returned, or, on a path, as their results say they saw each other (an
// ENOENT mkdir(d/x) before the mkdir(d) it overlapped; ns_order.h).
// Every edge points from an op with a smaller key to one with a larger key
// (key = enter time, or exit time for causal waits; raised, within the op's
// own call, where an edge needs it, and where needed so that keys never
// decrease along a worker's issue order: a damaged trace's overlapping calls
// are counted in Plan::overlapping_ops), so the replay cannot deadlock; an
// edge no key can allow is dropped and counted (Plan::dropped_edges).
#pragma once

#include <cstdint>
#include <vector>

#include "replayer/plan.h"
#include "traces/event.h"

namespace fsr {

struct OpFacts {
  uint32_t parent[2] = {kNoPath, kNoPath};  // parent directory of path[i] for namespace ops
  uint8_t ns_mask = 0;                      // bit i: path[i] is created/removed/renamed by this op
  uint32_t readdir_dir = kNoPath;           // directory listed by a getdents
  uint32_t chan = UINT32_MAX;               // byte channel read (reads) or written (writes)
  bool chan_write = false;
  uint32_t creator = kNoOp;                 // first op of a thread: the op that created it
};

// Fills plan.deps/dep ranges, flags and counters. `facts` is parallel to plan.ops.
void add_dependencies(const std::vector<Event>& events, const std::vector<OpFacts>& facts,
                      Plan& plan);

}  // namespace fsr
