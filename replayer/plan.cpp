#include "replayer/plan.h"
#include "replayer/plan_builder.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "replayer/deps.h"
#include "replayer/mapping_tracker.h"
#include "replayer/plan_layout.h"
#include "traces/syscalls.h"

namespace fsr::plan_detail {

void Builder::step(uint32_t i) {
  const Event& e = ev_[i];
  PlanOp& op = plan_.ops[i];
  OpFacts& f = facts_[i];
  TidState& st = state_for(i);
  op.thread = st.thread;
  RecordedThread& rt = plan_.threads[st.thread];
  if (rt.ops.empty()) {
    op.flags |= kPfFirstOfThread;
    op.gap = rt.creator != kNoOp
                 ? (e.ts > ev_[rt.creator].ts + ev_[rt.creator].dur
                        ? e.ts - ev_[rt.creator].ts - ev_[rt.creator].dur : 0)
                 : e.ts - plan_.base_ts;
  } else {
    op.gap = e.ts > st.last_end ? e.ts - st.last_end : 0;
  }
  rt.ops.push_back(i);
  // (Not vfork: its parent waits for the child, which is a dependency, not work.)
  if (e.nr == SYS_execve || e.nr == SYS_execveat || e.nr == SYS_clone || e.nr == SYS_clone3 ||
      e.nr == SYS_fork) {
    uint64_t before = rt.ops.size() > 1 ? st.last_end
                      : rt.creator != kNoOp ? ev_[rt.creator].ts + ev_[rt.creator].dur : e.ts;
    uint64_t from = std::max(e.ts, before);
    op.own_ns = static_cast<uint32_t>(std::min<uint64_t>(e.ts + e.dur > from ? e.ts + e.dur - from : 0, UINT32_MAX));
  }
  st.last_end = std::max(st.last_end, e.ts + e.dur);
  rt.end = std::max(rt.end, e.ts + e.dur);
  const uint16_t exec_done = st.exec_done;
  st.exec_done = 0;

  const SyscallInfo* si = syscall_info(e.nr);
  if (!si || (si->flags & kSfIoUring)) {
    op.action = OpAction::kSkip;
    return;
  }
  std::vector<uint32_t> closed;
  auto fdarg = [&](int k) { return static_cast<int>(static_cast<int64_t>(e.args[k])); };

  // Paths (symlink targets are literal text, rewritten to stay beneath their root).
  if (si->flags & kSfLiteralPath0) {
    op.path[1] = resolve_path(e, *si, 1, st);
    if (e.path[0] != kNoStr && op.path[1] != kNoPath) {
      std::string text = map_.symlink_target(plan_.paths[op.path[1]].abs, str_(e.path[0]),
                                             in_.target_dir, in_.scratch_dir);
      op.path[0] = static_cast<uint32_t>(plan_.paths.size());
      plan_.paths.push_back({MappedPath{}, std::move(text)});
    }
  } else {
    op.path[0] = resolve_path(e, *si, 0, st);
    op.path[1] = resolve_path(e, *si, 1, st);
  }
  if (si->fd >= 0) op.ofd = st.table->lookup(fdarg(si->fd));
  else if (op.path[0] == kNoPath && si->dirfd[0] >= 0 && fdarg(si->dirfd[0]) != kAtFdcwd)
    op.ofd = st.table->lookup(fdarg(si->dirfd[0]));  // AT_EMPTY_PATH / NULL path forms

  // glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH): the recorder names
  // the fd's path, but the original walked no path. Replay it as the fd form.
  if ((e.nr == SYS_newfstatat && (e.args[3] & AT_EMPTY_PATH)) ||
      (e.nr == SYS_statx && (e.args[2] & AT_EMPTY_PATH))) {
    int dfd = fdarg(si->dirfd[0]);
    uint32_t o = dfd == kAtFdcwd ? kNoOfd : st.table->lookup(dfd);
    if (o != kNoOfd && plan_.ofds[o].path != kNoPath && plan_.ofds[o].path == op.path[0]) {
      op.ofd = o;
      op.path[0] = kNoPath;
    }
  }

  const bool has_path = op.path[0] != kNoPath;
  op.action = has_path ? OpAction::kIssue : OpAction::kSkip;
  if (si->flags & kSfNamespace) {
    switch (e.nr) {
      case SYS_rename: case SYS_renameat: case SYS_renameat2: f.ns_mask = 3; break;
      case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat: f.ns_mask = 2; break;
      default: f.ns_mask = 1;
    }
    if (e.nr == SYS_linkat && op.path[0] == kNoPath) op.action = OpAction::kSkip;
    if ((e.nr == SYS_symlink || e.nr == SYS_symlinkat) && op.path[1] == kNoPath)
      op.action = OpAction::kSkip;
  }

  apply_action(i, e, *si, exec_done, op, f, st, closed);
  if (f.ns_mask) {
    op.flags |= static_cast<uint8_t>(f.ns_mask << 4);
    for (int k = 0; k < 2; ++k)
      if ((f.ns_mask >> k & 1) && op.path[k] != kNoPath)
        f.parent[k] = intern(std::string(parent_of(plan_.paths[op.path[k]].abs)));
  }
  if (!closed.empty()) set_closes(op, closed);
}

}  // namespace fsr::plan_detail

namespace fsr {

Plan build_plan(const std::vector<Event>& events, const StringLookup& str, const PlanInputs& in) {
  return plan_detail::Builder(events, str, in).build();
}

}  // namespace fsr
