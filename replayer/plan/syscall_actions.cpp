// SPDX-License-Identifier: Apache-2.0
// The per-syscall part of the planner (plan_stream.h): what one recorded
// event does to the processes' fd tables, cwd and mappings, and how it is
// replayed (issued, emulated as a synchronisation point, or skipped). The
// calls on fd tables and processes are planned by their families
// (syscall_actions_fds.cpp, syscall_actions_procs.cpp); the reads, writes and
// the rest here.
#include "replayer/plan/syscall_actions.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>

namespace fsr {
namespace {

// Calls replayed as synchronisation points only: their effect is on what
// the replay does not hold (waits, exits, the process's own state).
bool is_emulated_call(uint16_t nr) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_futex: case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_epoll_ctl:
    case SYS_wait4: case SYS_waitid: case SYS_exit: case SYS_exit_group: case SYS_getcwd:
    case SYS_umask: case SYS_tee: case SYS_sync: case SYS_msync:
      return true;
    default:
      return false;
  }
  // clang-format on
}

}  // namespace

void PlanStream::plan_syscall(uint64_t i) {
  const Event& e = plan_.event(i);
  PlanOp& op = plan_.op(i);
  OpFacts& f = facts_[i & plan_.op_mask];
  TidState& st = procs_.state_for(i, e, f.creator);
  place_in_thread(e, op, st);
  const uint16_t exec_done = st.exec_done;
  st.exec_done = 0;

  const SyscallInfo* si = syscall_info(e.nr);
  if (!si || (si->flags & kSfIoUring)) {
    op.action = OpAction::kSkip;
    return;
  }
  closed_.clear();
  SyscallCtx c{i, e, op, f, st, *si, closed_, exec_done};
  if (!plan_operands(c)) return;
  plan_namespace_change(c);
  if (is_emulated_call(e.nr))
    op.action = OpAction::kEmulate;
  else if (!plan_fd_table_call(c) && !plan_process_call(c) && !plan_memory_call(c) && !plan_data_call(c))
    plan_other_call(c);
  record_facts(c);
  if (!closed_.empty()) {
    set_closes(op, closed_);
    procs_.released(i, closed_);
  }
}

// The op's place in its thread's time: the gap before it, and for the calls
// that make or replace a process, their own recorded time.
void PlanStream::place_in_thread(const Event& e, PlanOp& op, TidState& st) {
  maps_.saw_thread(e.tid, e.pid);
  op.thread = st.thread;
  RecordedThread& rt = plan_.threads[st.thread];
  if (rt.n_ops == 0) {
    op.flags |= kPfFirstOfThread;
    op.gap = rt.creator != kNoOp ? (e.ts > rt.creator_end ? e.ts - rt.creator_end : 0)
                                 : (e.ts > plan_.base_ts ? e.ts - plan_.base_ts : 0);
  } else {
    op.gap = e.ts > st.last_end ? e.ts - st.last_end : 0;
  }
  ++rt.n_ops;
  // (Not vfork: its parent waits for the child, which is a dependency, not work.)
  if (e.nr == SYS_execve || e.nr == SYS_execveat || e.nr == SYS_clone || e.nr == SYS_clone3 || e.nr == SYS_fork) {
    uint64_t before = rt.n_ops > 1 ? st.last_end : rt.creator != kNoOp ? rt.creator_end : e.ts;
    uint64_t from = std::max(e.ts, before);
    op.own_ns = static_cast<uint32_t>(std::min<uint64_t>(e.ts + e.dur > from ? e.ts + e.dur - from : 0, UINT32_MAX));
  }
  st.last_end = std::max(st.last_end, e.ts + e.dur);
  rt.end = std::max(rt.end, e.ts + e.dur);
}

// The op's paths, walk bases and fd, in the form it is replayed in.
bool PlanStream::plan_operands(SyscallCtx& c) {
  const Event& e = c.e;
  const SyscallInfo& si = c.si;
  PlanOp& op = c.op;
  TidState& st = c.st;
  // Paths (symlink targets are literal text, rewritten to stay beneath their root).
  if (si.flags & kSfLiteralPath0) {
    op.path[1] = procs_.resolve_path(e, si, 1, st);
    if (e.path[0] != kNoStr && op.path[1] != kNoPath)
      op.path[0] = procs_.add_literal(procs_.path_map().symlink_target(plan_.paths[op.path[1]].abs, str_(e.path[0]),
                                                                       in_.target_dir, in_.scratch_dir));
  } else {
    op.path[0] = procs_.resolve_path(e, si, 0, st);
    op.path[1] = procs_.resolve_path(e, si, 1, st);
  }
  for (int k = 0; k < 2; ++k) op.walk[k] = procs_.walk_base(e, si, k, op.path[k], st);
  if (si.fd >= 0)
    op.ofd = st.table->lookup(c.fdarg(si.fd));
  else if (op.path[0] == kNoPath && si.dirfd[0] >= 0 && c.fdarg(si.dirfd[0]) != kAtFdcwd)
    op.ofd = st.table->lookup(c.fdarg(si.dirfd[0]));  // AT_EMPTY_PATH / NULL path forms

  // An empty path where the call takes none (cmake's mkdir("") as it walks a
  // path's components): the kernel refused it with ENOENT before any lookup.
  // The recorder named the directory it is relative to; issued on that, the
  // call would find it (mkdir: EEXIST). Nothing of the mount is timed.
  if ((e.flags & kEfEmptyPath) && e.ret < 0) {
    op.path[0] = op.path[1] = kNoPath;
    op.ofd = kNoOfd;
    op.action = OpAction::kEmulate;
    return false;
  }

  // glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH): the recorder names
  // the fd's path, but the original walked no path. Replay it as the fd form.
  if ((e.nr == SYS_newfstatat && (e.args[3] & AT_EMPTY_PATH)) || (e.nr == SYS_statx && (e.args[2] & AT_EMPTY_PATH))) {
    int dfd = c.fdarg(si.dirfd[0]);
    uint32_t o = dfd == kAtFdcwd ? kNoOfd : st.table->lookup(dfd);
    if (o != kNoOfd && plan_.ofds[o].path != kNoPath && plan_.ofds[o].path == op.path[0]) {
      op.ofd = o;
      op.path[0] = kNoPath;
    }
  }
  // linkat(fd, "", dir, name, AT_EMPTY_PATH): the fd's file gets the name
  // (an O_TMPFILE file made visible). The recorder names the fd's path (for
  // an O_TMPFILE file, its directory); linked by that path, it was EINVAL.
  c.link_fd = e.nr == SYS_linkat && (e.args[4] & AT_EMPTY_PATH) && c.fdarg(0) != kAtFdcwd;
  if (c.link_fd) {
    op.ofd = st.table->lookup(c.fdarg(0));
    op.path[0] = kNoPath;
  }
  c.has_path = op.path[0] != kNoPath;
  return true;
}

// Issued when it has a path; which of its paths a namespace call changes.
void PlanStream::plan_namespace_change(SyscallCtx& c) {
  const uint16_t nr = c.e.nr;
  PlanOp& op = c.op;
  op.action = c.has_path ? OpAction::kIssue : OpAction::kSkip;
  if (!(c.si.flags & kSfNamespace)) return;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_rename: case SYS_renameat: case SYS_renameat2: c.f.ns_mask = 3; break;
    case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat: c.f.ns_mask = 2; break;
    default: c.f.ns_mask = 1;
  }
  // clang-format on
  if (nr == SYS_linkat && op.path[0] == kNoPath)
    op.action = c.link_fd && op.ofd != kNoOfd && op.path[1] != kNoPath ? OpAction::kIssue : OpAction::kSkip;
  if ((nr == SYS_symlink || nr == SYS_symlinkat) && op.path[1] == kNoPath) op.action = OpAction::kSkip;
}

// Listings, reads, writes and copies: on a file issued, on a pipe or socket
// emulated as the channel's order.
bool PlanStream::plan_data_call(SyscallCtx& c) {
  const Event& e = c.e;
  PlanOp& op = c.op;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_getdents: case SYS_getdents64:
      fd_op_action(op);
      if (op.ofd != kNoOfd) c.f.readdir_dir = plan_.ofds[op.ofd].path;
      return true;
    case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
    case SYS_pread64: case SYS_pwrite64: case SYS_preadv: case SYS_pwritev:
    case SYS_preadv2: case SYS_pwritev2: {
      fd_op_action(op);
      if (op.ofd != kNoOfd) {
        bool w = class_of(e.nr) == SyscallClass::kWrite;
        c.f.chan = w ? plan_.ofds[op.ofd].chan_write : plan_.ofds[op.ofd].chan_read;
        c.f.chan_write = w;
      }
      return true;
    }
    case SYS_copy_file_range: case SYS_splice: case SYS_sendfile:
      op.ofd2 = c.st.table->lookup(c.fdarg(e.nr == SYS_sendfile ? 1 : 2));
      fd_op_action(op);
      if (op.action == OpAction::kIssue && !is_file(op.ofd2)) op.action = OpAction::kEmulate;
      return true;
    default:
      return false;
  }
  // clang-format on
}

// The calls of no family: by path issued; by fd as the fd's kind says.
void PlanStream::plan_other_call(SyscallCtx& c) {
  const Event& e = c.e;
  PlanOp& op = c.op;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_mknod: case SYS_mknodat: {
      uint32_t mode = static_cast<uint32_t>(e.args[e.nr == SYS_mknod ? 1 : 2]);
      if (!S_ISREG(mode) && !S_ISFIFO(mode) && (mode & S_IFMT) != 0) op.action = OpAction::kSkip;
      if (S_ISFIFO(mode) && e.ret == 0 && op.path[0] != kNoPath)
        fifo_chan(op.path[0]);  // its opens are a FIFO's (syscall_actions_fds.cpp)
      return;
    }
    case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr: case SYS_removexattr:
    case SYS_lremovexattr: case SYS_fremovexattr:
      op.action = OpAction::kSkip;  // the attribute name is a pointer the trace does not hold
      return;
    case SYS_statx:
      // Rust's std probes for statx with statx(0, NULL, 0, STATX_ALL, NULL)
      // and expects EFAULT (every cargo and rustc): no path, and no fd of
      // its own; issued as that call (exec_files.cpp do_statx).
      if (!c.has_path && e.ret == -EFAULT && !(e.args[2] & AT_EMPTY_PATH)) {
        op.ofd = kNoOfd;
        op.action = OpAction::kIssue;
        return;
      }
      break;
    default:
      break;
  }
  // clang-format on
  if (!c.has_path) {
    if (c.si.fd >= 0 || op.ofd != kNoOfd)
      fd_op_action(op);
    else
      op.action = OpAction::kEmulate;
  }
}

// What deps.cpp orders the op by: the directories it changes or looks in,
// and the regular file whose contents it reads or changes.
void PlanStream::record_facts(SyscallCtx& c) {
  const Event& e = c.e;
  PlanOp& op = c.op;
  OpFacts& f = c.f;
  if (f.ns_mask) {
    op.flags |= static_cast<uint8_t>(f.ns_mask << 4);
    for (int k = 0; k < 2; ++k)
      if ((f.ns_mask >> k & 1) && op.path[k] != kNoPath) f.parent[k] = procs_.changed_dir(op.path[k]);
  }
  // The directory holding each path (deps.cpp orders ops beneath a directory after its changes).
  for (int k = (c.si.flags & kSfLiteralPath0) ? 1 : 0; k < 2; ++k)
    if (op.path[k] != kNoPath) f.dir[k] = procs_.parent_id(op.path[k]);
  if (op.action != OpAction::kIssue) return;
  auto file_of = [&](uint32_t o) {
    return o != kNoOfd && plan_.ofds[o].kind == OfdKind::kFile ? plan_.ofds[o].path : kNoPath;
  };
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2:
      f.data = file_of(op.ofd);
      break;
    case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_pwritev: case SYS_pwritev2:
    case SYS_ftruncate: case SYS_fallocate:
      f.data = file_of(op.ofd);
      f.data_write = true;
      break;
    case SYS_truncate:
      f.data = op.path[0];
      f.data_write = true;
      break;
    default:
      break;
  }
  // clang-format on
}

}  // namespace fsr
