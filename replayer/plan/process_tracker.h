// SPDX-License-Identifier: Apache-2.0
// Plan-time model of the recorded processes, in event order: per thread its
// fd table and cwd (shared or copied as clone/fork said), the plan's paths
// (interned once, with the directory holding each) and its open-file
// descriptions. An OFD slot whose last reference went away is handed out
// again once the op that dropped it lies a whole window behind the planner,
// when it has surely run: live OFDs, not the trace's opens, size the table.
// Never issues a syscall.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "replayer/plan/fd_table.h"
#include "replayer/plan/mapping_tracker.h"
#include "replayer/plan/path_map.h"
#include "replayer/plan/plan.h"
#include "traces/syscalls.h"

namespace fsr {

// A process's working directory: its recorded path, and the OFD the replay
// keeps open on it (kNoOfd: none; walks from it then start at the root).
// Tasks that share their fs state share one.
struct Cwd {
  std::string abs;
  uint32_t ofd = kNoOfd;
};

struct TidState {
  uint32_t thread = 0;
  uint32_t pid = 0;
  std::shared_ptr<FdTable> table;
  std::shared_ptr<Cwd> cwd;
  uint64_t last_end = 0;
  uint16_t exec_done = 0;  // the exec record (execve, proc_exec) just applied: its pair, next, applies nothing
};

class ProcessTracker {
 public:
  ProcessTracker(Plan& plan, const PlanInputs& in, const StringLookup& str, uint64_t window)
      : plan_(plan), in_(in), str_(str), map_(in.recorded_root), window_(window) {}

  const PathMap& path_map() const { return map_; }
  // The thread of event `i` (`e`), made on its first event. `creator` is set
  // to the op that created it when that is known.
  TidState& state_for(uint64_t i, const Event& e, uint32_t& creator);
  uint32_t intern(const std::string& abs);
  uint32_t add_literal(std::string text);  // a symlink's text: a path entry that is no path
  uint32_t parent_id(uint32_t path);       // the directory holding it (kNoPath for "/")
  // The directory a namespace op on `path` (an interned path, not a
  // literal) changes: parent_id, and "/" itself for "/".
  uint32_t changed_dir(uint32_t path) {
    const uint32_t d = parent_id(path);
    return d == kNoPath ? path : d;
  }
  bool is_tty(uint32_t path) const { return tty_[path]; }  // "/dev/tty" (plan.h: a device whatever its result)
  uint32_t resolve_path(const Event& e, const SyscallInfo& si, int k, TidState& st);
  uint32_t new_ofd(OfdKind kind, uint32_t path, uint32_t flags = 0);
  // With PlanInputs::walks_as_passed: a directory OFD for a cwd at `path`
  // (opened by the chdir that makes it, or before the clock for the first
  // process's), never recycled, so that relative walks start from it; kNoOfd
  // past kMaxCwdOfds (those walks start at the root).
  uint32_t cwd_ofd(uint32_t path);
  static constexpr uint32_t kMaxCwdOfds = 4096;
  // The OFD path k's walk starts from (plan.h PlanOp::walk), kNoOfd: the root.
  uint32_t walk_base(const Event& e, const SyscallInfo& si, int k, uint32_t path, TidState& st);
  uint32_t new_chan() { return next_chan_++; }
  // OFDs whose last reference op `i` dropped: recycled a window later.
  void released(uint64_t i, const std::vector<uint32_t>& ofds);
  void child_created(uint64_t i, uint64_t end, uint32_t child_tid, bool share_fs, bool share_files, TidState& st);
  // The table's last user exited: true when it is to be cleared.
  bool drop_user(TidState& st) { return --users_[st.table.get()] == 0; }
  void forget_table(TidState& st) { users_.erase(st.table.get()); }

 private:
  struct Pending {
    uint32_t creator = kNoOp;
    uint64_t creator_end = 0;
    std::shared_ptr<FdTable> table;
    std::shared_ptr<Cwd> cwd;
  };
  void bind_initial(TidState& st);
  template <typename T>
  void grow_into(std::vector<T>& v, T x, const char* what);

  Plan& plan_;
  const PlanInputs& in_;
  const StringLookup& str_;
  PathMap map_;
  uint64_t window_;
  OfdRefs refs_;
  std::deque<std::pair<uint64_t, uint32_t>> to_free_;  // (op that dropped it, OFD)
  std::unordered_map<std::string, uint32_t> path_ids_;
  // Per trace string: the path an absolute one names (kNoPath: not yet met).
  // It names the same path whatever the cwd, and path ids are never taken
  // back: resolved once, not normalised, hashed and compared per event.
  std::vector<uint32_t> abs_ids_;
  std::vector<uint32_t> parent_;  // per path: parent_id(), memoised
  std::vector<uint8_t> tty_;      // per path: is_tty()
  std::unordered_map<uint32_t, TidState> tids_;
  std::unordered_map<uint32_t, uint32_t> by_pid_;
  std::unordered_map<uint32_t, Pending> pending_;
  std::map<const FdTable*, int> users_;
  uint32_t next_chan_ = 0;
  uint32_t cwd_ofds_ = 0;
  uint32_t initial_cwd_ofd_ = kNoOfd;  // shared by the processes that were there before the trace
  uint32_t next_thread_ = 0;
  bool initial_used_ = false;
};

}  // namespace fsr
