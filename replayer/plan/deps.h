// SPDX-License-Identifier: Apache-2.0
// Dependency edges of the replay plan (docs/design.md "Ordering", ROOT/ARTC resource
// ordering and //TRACE causal waits), made op by op as the planner streams
// (plan_stream.h). Program order within a recorded thread is implicit (a
// thread's ops run in order on one worker). Across threads:
//   - per path: an op on a path follows the latest namespace op on it; a
//     namespace op follows the latest op of every other thread on it (a
//     namespace call that failed changed nothing: it orders as a reader);
//   - two calls on a path that overlapped in time are ordered as their
//     results say the kernel applied them (ns_order.h: an ENOENT before a
//     creation of the name or its directory, an EEXIST after one, a found
//     name before its removal), else as they returned;
//   - per open file: ops on one OFD keep their recorded order;
//   - per regular file's contents: a read (read, pread, readv...) follows
//     the latest write, truncate or fallocate of the file by another thread,
//     and a write follows the reads and the write before it. What ordered
//     them in the original (fcntl byte-range locks, which the replay
//     emulates, or a lock word in a shared mapping, which it cannot see) is
//     not replayed: without this a reader reads before the bytes it read in
//     the original are there (SQLite's WAL: its reader process read 0 bytes
//     where it had read 4,096 its writer process wrote);
//   - per parent directory: namespace ops in a directory and readdirs of it
//     keep their recorded order;
//   - a thread's first op follows the clone/fork that created it;
//   - causal waits: wait4/waitid -> the child's last event; a read on a pipe,
//     socketpair or eventfd -> the write that fed it; a futex wait -> the
//     matching wake; otherwise -> the latest event of another thread that
//     completed while the wait was blocked (approximate, counted);
//   - but a futex wait for a contended lock (it expects the value 2, as every
//     wait on that futex did) whose waker had ended its latest call before
//     the wait began is no edge (counted: Plan::lock_waits). The holder took
//     the lock after that call as far as the trace shows; ordering the wait
//     after the call makes the waiter wait out the holder's call, slower on a
//     slower mount, which the original, taking the lock while the holder was
//     in that call, did not (libuv's thread pool and loop on one mutex). The
//     wait takes no time of its own either: its recorded time is the
//     recorded holder's critical section, which recording stretched (slept
//     as think time, it made the ext4 replay of npm ci 6% slower). A lock
//     held across a call (the wait began before the holder's call ended)
//     keeps its edge.
// Every edge points from an op with a smaller key to one with a larger key
// (key = enter time, or exit time for causal waits, raised where needed so
// that keys never decrease along a worker's issue order: a damaged trace's
// overlapping calls are counted in Plan::overlapping_ops), so the replay
// cannot deadlock. An edge into the op being added from an op that entered
// inside its call raises its key, within its own call. An edge the results
// turn around (the op being added must precede one that returned before it)
// goes into room that op kept, which is why an op on a path is final only a
// lookahead after it; one that finds the earlier op final already is counted
// (Plan::moves_beyond_window).
//
// Streaming: an edge from an op whose slot went to a later op (a window
// behind the planner) is satisfied already (that op has run) and is not
// stored. A waiter's waker may come later in the trace (a write entered
// before the read returned, but ended after it): the waiter's causal edge is
// decided `lookahead` events after it (finalize). A waker that shows up only
// after that is counted (Plan::beyond_window), and the waiter kept its
// approximate edge. What is remembered per path, file, channel, futex and
// process is forgotten two windows back, so that a wait finalized late still
// finds what lay within a window of it; a futex's wakes keep their enter
// times and threads, a channel's writes their byte positions (reads a window
// later still find the write that fed them), not read from reused slots.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "replayer/plan/plan.h"
#include "traces/event.h"

namespace fsr {

struct OpFacts {
  uint32_t parent[2] = {kNoPath, kNoPath};  // parent directory of path[i] for namespace ops
  uint32_t dir[2] = {kNoPath, kNoPath};     // the directory holding path[i] (any op)
  uint8_t ns_mask = 0;                      // bit i: path[i] is created/removed/renamed by this op
  uint32_t readdir_dir = kNoPath;           // directory listed by a getdents
  uint32_t chan = UINT32_MAX;               // byte channel read (reads) or written (writes)
  bool chan_write = false;
  uint32_t data = kNoPath;  // regular file whose contents it reads or writes (plan path)
  bool data_write = false;
  uint32_t creator = kNoOp;  // first op of a thread: the op that created it
};

class DepTracker {
 public:
  // `exit_floor`: the trace's smallest wait-after-exit lag (survey.h), at
  // most kWakeNs: a held exit holds its lag less this.
  DepTracker(Plan& plan, const std::vector<OpFacts>& facts, uint64_t window, uint64_t exit_floor);
  ~DepTracker();
  // Op `i`, just planned: its key and its edges to earlier ops (and, for an
  // op that waits_for_later, room for its causal edge).
  void add(uint64_t i);
  // Op i's plan is final only a lookahead later (finalize): a wait whose
  // waker may be a later op (its causal edge), or an op on a path that a
  // later-returning call it overlapped may have to precede (a moved edge).
  bool final_later(uint64_t i) const;
  // With the ops up to i + lookahead planned (or the trace's end).
  void finalize(uint64_t i);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

inline constexpr uint64_t kWakeNs = 100'000;  // a wake-up's latency, at most (held exits)
// The value a futex mutex holds when locked with waiters, which a waiter
// expects: glibc's lll_lock, Go's runtime locks, Rust's std::sync::Mutex
// (Drepper, "Futexes Are Tricky", mutex3).
inline constexpr uint64_t kLockContended = 2;

}  // namespace fsr
