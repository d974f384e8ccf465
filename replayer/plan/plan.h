// SPDX-License-Identifier: Apache-2.0
// The replay plan: everything the issue loop needs, as flat arrays indexed by
// event. A streaming replay holds a window of it (plan_stream.h): the per-op
// arrays are rings (op i at slot i & op_mask) and the edge, close and unmap
// lists ring arenas, so memory follows the window, not the trace; a plan built
// at once (build_plan) is the same with every op in it. For each event:
// what to do (issue a real syscall, emulate it as a pure synchronisation
// point, or skip it), its mapped paths, the open-file-description slots it
// uses or creates, the OFDs whose last reference it drops, and the ops it must
// wait for (dependency edges, see deps.h). Built from events plus a string
// lookup, never from a file, so that tests need no trace on disk.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "replayer/plan/fd_table.h"
#include "replayer/plan/path_map.h"
#include "traces/event.h"
#include "traces/trace_model.h"

namespace fsr {

inline constexpr uint32_t kNoPath = UINT32_MAX;
inline constexpr uint32_t kNoOp = UINT32_MAX;
inline constexpr uint32_t kNoSpace = UINT32_MAX;
inline constexpr uint32_t kWalkFromRoot = UINT32_MAX - 1;  // PlanOp::walk: from the root's fd

enum class OpAction : uint8_t {
  kIssue,    // re-issued against target/scratch and timed
  kEmulate,  // a synchronisation point only (pipes, futexes, wait4, fork, exit)
  kSkip,     // cannot be replayed (unknown fd, unsupported call): recorded as skipped
};

enum PlanOpFlag : uint8_t {
  kPfApproxDep = 1 << 0,  // one of its dependencies is approximate (//TRACE fallback)
  kPfNotify = 1 << 1,     // another thread waits for this op: wake waiters on completion
  kPfFirstOfThread = 1 << 2,
  kPfCausal = 1 << 3,  // has an exact causal dependency (wait4, pipe, futex)
  kPfNs0 = 1 << 4,     // path[0] / path[1] gains or loses a directory entry
  kPfNs1 = 1 << 5,
  kPfDevice = 1 << 7,  // path[0] is a character device (/dev/null, a tty): see device_standin()
};

// Character devices are not on the mount under test: opens, stats and
// accesses of one go to a harmless stand-in outside target and scratch
// (the same device for /dev/null, /dev/zero, /dev/full, /dev/random,
// /dev/urandom; /dev/null for any other), never created or changed.
const char* device_standin(const std::string& recorded_path);

enum class OfdKind : uint8_t { kFile, kDir, kPipe, kSocket, kEventfd, kEpoll, kUnknown };

struct OfdInfo {
  OfdKind kind = OfdKind::kUnknown;
  uint32_t path = kNoPath;           // plan path it was opened from
  uint32_t chan_read = UINT32_MAX;   // byte channel this end reads (pipes, sockets, eventfd)
  uint32_t chan_write = UINT32_MAX;  // byte channel this end writes
  uint32_t open_flags = 0;
  bool cwd = false;  // a cwd's (ProcessTracker::cwd_ofd): open until the end, used unordered
};

struct PlanPath {
  MappedPath mapped;
  std::string abs;  // recorded absolute path (normalised); for symlink targets: replay text
};

struct PlanOp {
  uint32_t thread = 0;        // index into Plan::threads
  uint32_t ofd = kNoOfd;      // fd operand
  uint32_t ofd2 = kNoOfd;     // second fd operand (copy_file_range/sendfile/splice output)
  uint32_t new_ofd = kNoOfd;  // OFD this op opens (its real fd is stored there)
  uint32_t path[2] = {kNoPath, kNoPath};
  // The directory OFD path k's walk starts from, as the original's did (its
  // dirfd, or its cwd: ProcessTracker::walk_base); the walk is the path's
  // mapped text past that directory's. kNoOfd: from the root, the whole text.
  // kWalkFromRoot: relative to a cwd or dirfd that is the root itself.
  uint32_t walk[2] = {kNoOfd, kNoOfd};
  uint32_t dep_begin = 0, dep_end = 0;      // Plan::deps[dep_begin, dep_end)
  uint32_t close_begin = 0, close_end = 0;  // Plan::closes[...]: OFDs to close after this op
  uint32_t unmap_begin = 0, unmap_end = 0;  // munmap: Plan::unmaps[...], what it takes
  uint32_t map = UINT32_MAX;                // mmap: the mapping it makes; page fault: the one it touches (Plan::maps)
  // page fault: the mmap op it touches, and the offset into that mapping.
  // mmap with MAP_FIXED inside an earlier mapping of its thread: that base
  // op, and the offset to place it at in the base's copy (mapping_tracker.h).
  uint32_t ref_op = kNoOp;
  // mmap: the address space it maps in. Exit, exec: the address space this
  // thread leaves (Plan::spaces; the last to leave unmaps what is left).
  uint32_t space = kNoSpace;
  // clone/fork/exec: the part of the recorded call that lies after the end of
  // its thread's previous op (ns, capped). The replay reduces these calls to
  // an open or to nothing and sleeps this instead. Not the whole duration: a
  // vfork child's execve is entered before, and ends after, the exec event
  // the kernel reports from inside it, whose gap already holds that time.
  // A process's exit event: the teardown its waiting parent still waited
  // for after it (deps.cpp, exit_holds), held before the exit counts as done.
  uint32_t own_ns = 0;
  uint64_t ref_off = 0;
  uint64_t gap = 0;  // recorded compute gap before this op, ns
  OpAction action = OpAction::kSkip;
  uint8_t flags = 0;
};

// A replayed address space (mapping_tracker.h): a recorded process from its
// start or exec to its exec or last exit.
struct PlanSpace {
  uint32_t threads = 0;                     // ops that leave it (one per recorded thread in it)
  uint32_t unmap_begin = 0, unmap_end = 0;  // Plan::unmaps: its mappings still there at its end
};

inline constexpr uint32_t kNoMap = UINT32_MAX;

// A replayed file mapping (mapping_tracker.h), by dense id: outlives the window.
struct PlanMap {
  uint64_t len = 0;        // recorded length, rounded up to pages
  uint32_t base = kNoMap;  // MAP_FIXED inside another mapping: that one
  uint32_t op = kNoOp;     // the mmap op that made it
};

// What a munmap (or an address space's end) takes of one replayed mapping.
struct PlanUnmap {
  uint32_t map = kNoMap;  // the mapping (Plan::maps)
  uint32_t whole = 1;     // 0: only [off, off + len) of it
  uint64_t off = 0, len = 0;
};

struct RecordedThread {
  uint32_t tid = 0, pid = 0;
  uint64_t start = 0, end = 0;  // first event enter, last event exit (recorded ns)
  uint32_t creator = kNoOp;     // op that created it (clone/fork), if traced
  uint64_t creator_end = 0;     // that op's recorded end
  uint32_t worker = 0;
  uint64_t n_ops = 0;  // its ops so far
};

struct Plan {
  // Rings (streaming) or whole arrays (build_plan: masks of all ones).
  std::vector<PlanOp> ops;         // op i at ops[i & op_mask]
  std::vector<Event> ev;           // its event, same slot
  std::vector<uint32_t> deps;      // arena: deps[k & dep_mask]
  std::vector<DepKind> dep_kinds;  // parallel to deps: why (deps.h)
  std::vector<uint32_t> closes;    // arena: closes[k & close_mask]
  std::vector<PlanUnmap> unmaps;   // arena: unmaps[k & unmap_mask]
  uint32_t op_mask = UINT32_MAX, dep_mask = UINT32_MAX, close_mask = UINT32_MAX, unmap_mask = UINT32_MAX;
  uint64_t size = 0;                                   // ops planned so far (events)
  uint32_t dep_pos = 0, close_pos = 0, unmap_pos = 0;  // arena ends (positions wrap with the masks)
  // Whole-trace tables, sized by the survey (survey.h) before any op runs:
  // never reallocated while workers read them.
  std::vector<PlanSpace> spaces;
  std::vector<PlanMap> maps;
  std::vector<PlanPath> paths;
  std::vector<OfdInfo> ofds;
  std::vector<RecordedThread> threads;
  bool fixed_tables = false;  // the tables above are presized: growing them is a bug
  uint32_t worker_count = 0;
  uint64_t base_ts = 0;  // earliest enter time: replay time 0
  // Latest enter time less base_ts (the survey's; 0 without one): no
  // recorded gap or exact-mode offset is longer (the reader clamps times
  // past the recording's end, trace_reader.h), so no op's own recorded time
  // may hold back the stall report longer (engine.h).
  uint64_t enter_span = 0;
  std::vector<uint32_t> initial_ofds;  // OFDs of the first process's files at start (opened before the clock)
  uint64_t approx_deps = 0;            // ops whose causal wait fell back to //TRACE's rule
  uint64_t lock_waits = 0;             // futex waits on a lock not held across a call: no edge (deps.h)
  uint64_t file_data_edges = 0;        // edges of a file's contents (a read after another thread's write: deps.h)
  uint64_t beyond_window = 0;          // ... of them because their waker lay beyond the window
  uint64_t exact_causal = 0;
  uint64_t dep_edges = 0;
  uint64_t moved_edges = 0;          // edges the results of overlapping calls turned around (ns_order.h)
  uint64_t moves_beyond_window = 0;  // ... that could not be: the earlier op's plan was already published
  uint64_t dropped_edges = 0;        // edges refused because they could deadlock the replay
  uint64_t overlapping_ops = 0;      // ops that entered before the previous op of their worker returned (damaged trace)
  bool serial_dirs = false;          // PlanInputs::serial_dirs
  bool walks_as_passed = false;      // PlanInputs::walks_as_passed
  // In recorded order: the most kernel mappings the replay's mappings make at
  // once (an upper bound), and the most address spaces holding one.
  uint64_t peak_mappings = 0, peak_spaces = 0;

  PlanOp& op(uint64_t i) { return ops[i & op_mask]; }
  const PlanOp& op(uint64_t i) const { return ops[i & op_mask]; }
  const Event& event(uint64_t i) const { return ev[i & op_mask]; }
  uint32_t dep(uint32_t k) const { return deps[k & dep_mask]; }
  DepKind dep_kind(uint32_t k) const { return dep_kinds[k & dep_mask]; }
  uint32_t close(uint32_t k) const { return closes[k & close_mask]; }
  const PlanUnmap& unmap(uint32_t k) const { return unmaps[k & unmap_mask]; }
  std::vector<uint32_t> deps_of(uint32_t i) const {
    std::vector<uint32_t> v;
    for (uint32_t k = op(i).dep_begin; k != op(i).dep_end; ++k)
      if (dep(k) != kNoOp) v.push_back(dep(k));
    return v;
  }
};

// Appends to a ring arena (or a whole array when mask is all ones).
template <typename T>
void arena_push(std::vector<T>& v, uint32_t mask, uint32_t& pos, const T& x) {
  if (mask == UINT32_MAX)
    v.push_back(x);
  else
    v[pos & mask] = x;
  ++pos;
}

struct PlanInputs {
  std::string recorded_root;
  std::string target_dir;  // for symlink targets that cross roots
  std::string scratch_dir;
  ProcessState initial;  // the first process's cwd and fds
  bool mmap_touch = true;
  // Keep every namespace op in a directory in its recorded order, as before
  // ROOT/ARTC's rule (deps.h); the default orders them only against listings.
  bool serial_dirs = false;
  // Walk each relative path from its dirfd or cwd (PlanOp::walk), and no
  // walk saved that the original made (no parent-directory cache): the
  // trace marks relative paths (event.h kRecorderChoiceWalks).
  bool walks_as_passed = false;
};

using StringLookup = std::function<std::string_view(StrId)>;

// The whole plan at once (tests, calibration): the survey and the streaming
// planner over `events`, with a window that holds them all.
Plan build_plan(const std::vector<Event>& events, const StringLookup& str, const PlanInputs& in);

}  // namespace fsr
