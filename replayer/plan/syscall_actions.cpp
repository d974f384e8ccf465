// The per-syscall part of the planner (plan_stream.h): what one recorded
// event does to the processes' fd tables, cwd and mappings, and how it is
// replayed (issued, emulated as a synchronisation point, or skipped).
#include <fcntl.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>

#include "replayer/plan/plan_stream.h"
#include "traces/syscalls.h"

namespace fsr {

void PlanStream::plan_syscall(uint64_t i) {
  const Event& e = plan_.event(i);
  PlanOp& op = plan_.op(i);
  OpFacts& f = facts_[i & plan_.op_mask];
  TidState& st = procs_.state_for(i, e, f.creator);
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
  if (e.nr == SYS_execve || e.nr == SYS_execveat || e.nr == SYS_clone || e.nr == SYS_clone3 ||
      e.nr == SYS_fork) {
    uint64_t before = rt.n_ops > 1 ? st.last_end : rt.creator != kNoOp ? rt.creator_end : e.ts;
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
  const int64_t ret = e.ret;
  std::vector<uint32_t>& closed = closed_;
  closed.clear();
  auto fdarg = [&](int k) { return static_cast<int>(static_cast<int64_t>(e.args[k])); };

  // Paths (symlink targets are literal text, rewritten to stay beneath their root).
  if (si->flags & kSfLiteralPath0) {
    op.path[1] = procs_.resolve_path(e, *si, 1, st);
    if (e.path[0] != kNoStr && op.path[1] != kNoPath)
      op.path[0] = procs_.add_literal(procs_.path_map().symlink_target(
          plan_.paths[op.path[1]].abs, str_(e.path[0]), in_.target_dir, in_.scratch_dir));
  } else {
    op.path[0] = procs_.resolve_path(e, *si, 0, st);
    op.path[1] = procs_.resolve_path(e, *si, 1, st);
  }
  for (int k = 0; k < 2; ++k) op.walk[k] = procs_.walk_base(e, *si, k, op.path[k], st);
  if (si->fd >= 0) op.ofd = st.table->lookup(fdarg(si->fd));
  else if (op.path[0] == kNoPath && si->dirfd[0] >= 0 && fdarg(si->dirfd[0]) != kAtFdcwd)
    op.ofd = st.table->lookup(fdarg(si->dirfd[0]));  // AT_EMPTY_PATH / NULL path forms

  // An empty path where the call takes none (cmake's mkdir("") as it walks a
  // path's components): the kernel refused it with ENOENT before any lookup.
  // The recorder named the directory it is relative to; issued on that, the
  // call would find it (mkdir: EEXIST). Nothing of the mount is timed.
  if ((e.flags & kEfEmptyPath) && ret < 0) {
    op.path[0] = op.path[1] = kNoPath;
    op.ofd = kNoOfd;
    op.action = OpAction::kEmulate;
    return;
  }

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
  // linkat(fd, "", dir, name, AT_EMPTY_PATH): the fd's file gets the name
  // (an O_TMPFILE file made visible). The recorder names the fd's path (for
  // an O_TMPFILE file, its directory); linked by that path, it was EINVAL.
  const bool link_fd = e.nr == SYS_linkat && (e.args[4] & AT_EMPTY_PATH) && fdarg(0) != kAtFdcwd;
  if (link_fd) {
    op.ofd = st.table->lookup(fdarg(0));
    op.path[0] = kNoPath;
  }

  const bool has_path = op.path[0] != kNoPath;
  op.action = has_path ? OpAction::kIssue : OpAction::kSkip;
  if (si->flags & kSfNamespace) {
    switch (e.nr) {
      case SYS_rename: case SYS_renameat: case SYS_renameat2: f.ns_mask = 3; break;
      case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat: f.ns_mask = 2; break;
      default: f.ns_mask = 1;
    }
    if (e.nr == SYS_linkat && op.path[0] == kNoPath)
      op.action = link_fd && op.ofd != kNoOfd && op.path[1] != kNoPath ? OpAction::kIssue : OpAction::kSkip;
    if ((e.nr == SYS_symlink || e.nr == SYS_symlinkat) && op.path[1] == kNoPath)
      op.action = OpAction::kSkip;
  }

  switch (e.nr) {
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      const uint32_t flags = open_flags(e.nr, e.args[1], e.args[2]);
      if (flags & O_CREAT) f.ns_mask |= 1;
      // A named FIFO: the open's inode says so, or, without inode facts, the
      // trace made its path one. The open is a lookup (the executor opens a
      // pipe-kind OFD O_PATH, not to wait for the other end), what goes
      // through it a pipe's, each read ordered after the writes of that
      // FIFO's earlier opens.
      const bool fifo = ret >= 0 && has_path &&
                        (S_ISFIFO(e.mode) || ((e.flags & kEfNoInode) && fifo_chan_.count(op.path[0])));
      if (fifo) {
        op.new_ofd = procs_.new_ofd(OfdKind::kPipe, op.path[0], flags);
        plan_.ofds[op.new_ofd].chan_read = plan_.ofds[op.new_ofd].chan_write = fifo_chan(op.path[0]);
        st.table->bind(static_cast<int>(ret), op.new_ofd, (flags & O_CLOEXEC) != 0, closed);
      } else if (ret >= 0 && has_path) {
        bool dir = (flags & O_DIRECTORY) || S_ISDIR(e.mode);
        op.new_ofd = procs_.new_ofd(dir ? OfdKind::kDir : OfdKind::kFile, op.path[0], flags);
        st.table->bind(static_cast<int>(ret), op.new_ofd, (flags & O_CLOEXEC) != 0, closed);
      }
      break;
    }
    case SYS_close:
      // An fd whose OFD keeps other references closes nothing real: emulated.
      op.action = OpAction::kEmulate;
      if (op.ofd != kNoOfd) {
        st.table->close(fdarg(0), closed);
        if (!closed.empty() && is_file(op.ofd)) op.action = OpAction::kIssue;
        procs_.released(i, closed);
        closed.clear();  // the issued close is the real close of op.ofd
      }
      break;
    case SYS_close_range:
      op.action = OpAction::kEmulate;
      st.table->close_range(static_cast<unsigned>(e.args[0]), static_cast<unsigned>(e.args[1]),
                            (e.args[2] & 4) != 0, closed);
      break;
    case SYS_dup: case SYS_dup2: case SYS_dup3:
      op.action = OpAction::kEmulate;
      if (ret >= 0 && op.ofd != kNoOfd && static_cast<int>(ret) != fdarg(0))
        st.table->bind(static_cast<int>(ret), op.ofd,
                       e.nr == SYS_dup3 && (e.args[2] & O_CLOEXEC), closed);
      break;
    case SYS_fcntl: {
      int cmd = static_cast<int>(e.args[1]);
      fd_op_action(op);
      if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 && op.ofd != kNoOfd) {
        st.table->bind(static_cast<int>(ret), op.ofd, cmd == F_DUPFD_CLOEXEC, closed);
        op.action = OpAction::kEmulate;
      } else if (cmd == F_SETFD) {
        st.table->set_cloexec(fdarg(0), (e.args[2] & FD_CLOEXEC) != 0);
      } else if (cmd != F_GETFD && cmd != F_GETFL && cmd != F_SETFL && op.action == OpAction::kIssue) {
        op.action = OpAction::kEmulate;  // locks and the like take pointers we never recorded
      }
      break;
    }
    case SYS_pipe: case SYS_pipe2: case SYS_socketpair: {
      op.action = OpAction::kEmulate;
      // Recorder convention (bpf/fsreplay_record.h FSR_SF_FD_PAIR): the int[2] is
      // stored in its own argument slot (arg0 for pipe/pipe2, arg3 for
      // socketpair) as fd0 | fd1 << 32.
      const uint64_t pair = e.args[e.nr == SYS_socketpair ? 3 : 0];
      if (ret == 0 && pair != 0) {
        bool sock = e.nr == SYS_socketpair;
        uint32_t a = procs_.new_chan(), b = sock ? procs_.new_chan() : a;
        uint32_t r = procs_.new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
        uint32_t w = procs_.new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
        plan_.ofds[r].chan_read = a;
        plan_.ofds[w].chan_write = a;
        if (sock) { plan_.ofds[w].chan_read = b; plan_.ofds[r].chan_write = b; }
        unsigned fl = e.nr == SYS_pipe2 ? static_cast<unsigned>(e.args[1])
                      : e.nr == SYS_socketpair ? static_cast<unsigned>(e.args[1]) : 0;
        bool cx = (fl & O_CLOEXEC) != 0;
        st.table->bind(static_cast<int>(pair & 0xffffffffu), r, cx, closed);
        st.table->bind(static_cast<int>(pair >> 32), w, cx, closed);
      }
      break;
    }
    case SYS_eventfd: case SYS_eventfd2: case SYS_epoll_create1:
      op.action = OpAction::kEmulate;
      if (ret >= 0) {
        bool efd = e.nr != SYS_epoll_create1;
        uint32_t o = procs_.new_ofd(efd ? OfdKind::kEventfd : OfdKind::kEpoll, kNoPath);
        if (efd) plan_.ofds[o].chan_read = plan_.ofds[o].chan_write = procs_.new_chan();
        st.table->bind(static_cast<int>(ret), o,
                       (e.args[e.nr == SYS_eventfd2 ? 1 : 0] & O_CLOEXEC) != 0, closed);
      }
      break;
    case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork: {
      op.action = OpAction::kEmulate;
      bool thread = (e.flags & kEfThreadClone) || (e.nr == SYS_clone && (e.args[0] & CLONE_THREAD));
      bool share = (e.flags & kEfSharedFiles) || (e.nr == SYS_clone && (e.args[0] & CLONE_FILES));
      bool share_fs = thread || (e.nr == SYS_clone && (e.args[0] & CLONE_FS));
      if (ret > 0) procs_.child_created(i, e.ts + e.dur, static_cast<uint32_t>(ret), share_fs, share, st);
      break;
    }
    case kEvProcFork: {  // arg0 child tid, arg1 child tgid, arg2 1 when the cwd is shared
      op.action = OpAction::kEmulate;
      bool thread = e.args[1] == e.pid;
      procs_.child_created(i, e.ts + e.dur, static_cast<uint32_t>(e.args[0]), thread || e.args[2] == 1,
                           (e.flags & kEfSharedFiles) != 0, st);
      break;
    }
    case SYS_execve: case SYS_execveat: case kEvProcExec:
      if (e.nr == kEvProcExec) op.action = OpAction::kEmulate;
      // The kernel's exec record and the execve's own are one exec, in either order.
      if (ret == 0 && (exec_done == 0 || (exec_done == kEvProcExec) == (e.nr == kEvProcExec))) {
        st.table->exec(closed);
        st.exec_done = e.nr;
        maps_.exec(static_cast<uint32_t>(i), e.tid, e.pid);
      }
      break;
    case kEvProcExit:
      op.action = OpAction::kEmulate;
      if (procs_.drop_user(st)) st.table->clear(closed);
      maps_.exit(static_cast<uint32_t>(i), e.tid);
      break;
    case SYS_chdir:
      if (ret == 0 && has_path) {
        st.cwd->abs = plan_.paths[op.path[0]].abs;
        // The walk the chdir made, its directory kept open: relative walks
        // after it start there (the cwd of every task sharing it).
        st.cwd->ofd = in_.walks_as_passed ? procs_.cwd_ofd(op.path[0]) : kNoOfd;
        op.new_ofd = st.cwd->ofd;
      }
      break;
    case SYS_fchdir:
      op.action = OpAction::kEmulate;
      if (ret == 0 && op.ofd != kNoOfd && plan_.ofds[op.ofd].path != kNoPath) {
        st.cwd->abs = plan_.paths[plan_.ofds[op.ofd].path].abs;
        st.cwd->ofd = kNoOfd;  // (that OFD is closed and its slot reused as the fd's are: walks start at the root)
      }
      break;
    case SYS_mmap:
      fd_op_action(op);
      if (op.action == OpAction::kIssue && ret > 0) maps_.mmap(static_cast<uint32_t>(i), e);
      break;
    case SYS_munmap:
      op.action = OpAction::kSkip;
      if (ret == 0) maps_.munmap(static_cast<uint32_t>(i), e);  // (a failed one changed nothing: the trace's own behaviour)
      break;
    case kEvPageFault:
      op.action = in_.mmap_touch && maps_.fault(static_cast<uint32_t>(i), e) ? OpAction::kIssue : OpAction::kSkip;
      break;
    case SYS_getdents: case SYS_getdents64:
      fd_op_action(op);
      if (op.ofd != kNoOfd) f.readdir_dir = plan_.ofds[op.ofd].path;
      break;
    case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
    case SYS_pread64: case SYS_pwrite64: case SYS_preadv: case SYS_pwritev:
    case SYS_preadv2: case SYS_pwritev2: {
      fd_op_action(op);
      if (op.ofd != kNoOfd) {
        bool w = class_of(e.nr) == SyscallClass::kWrite;
        f.chan = w ? plan_.ofds[op.ofd].chan_write : plan_.ofds[op.ofd].chan_read;
        f.chan_write = w;
      }
      break;
    }
    case SYS_copy_file_range: case SYS_splice:
      op.ofd2 = st.table->lookup(fdarg(2));
      fd_op_action(op);
      if (op.action == OpAction::kIssue && !is_file(op.ofd2)) op.action = OpAction::kEmulate;
      break;
    case SYS_sendfile:
      op.ofd2 = st.table->lookup(fdarg(1));
      fd_op_action(op);
      if (op.action == OpAction::kIssue && !is_file(op.ofd2)) op.action = OpAction::kEmulate;
      break;
    case SYS_futex: case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_epoll_ctl:
    case SYS_wait4: case SYS_waitid: case SYS_exit: case SYS_exit_group: case SYS_getcwd:
    case SYS_umask: case SYS_tee: case SYS_sync: case SYS_msync:
      op.action = OpAction::kEmulate;
      break;
    case SYS_mknod: case SYS_mknodat: {
      uint32_t mode = static_cast<uint32_t>(e.args[e.nr == SYS_mknod ? 1 : 2]);
      if (!S_ISREG(mode) && !S_ISFIFO(mode) && (mode & S_IFMT) != 0) op.action = OpAction::kSkip;
      if (S_ISFIFO(mode) && ret == 0 && op.path[0] != kNoPath) fifo_chan(op.path[0]);  // its opens are a FIFO's (above)
      break;
    }
    case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr: case SYS_removexattr:
    case SYS_lremovexattr: case SYS_fremovexattr:
      op.action = OpAction::kSkip;  // the attribute name is a pointer the trace does not hold
      break;
    case SYS_statx:
      // Rust's std probes for statx with statx(0, NULL, 0, STATX_ALL, NULL)
      // and expects EFAULT (every cargo and rustc): no path, and no fd of
      // its own; issued as that call (exec_files.cpp do_statx).
      if (!has_path && ret == -EFAULT && !(e.args[2] & AT_EMPTY_PATH)) {
        op.ofd = kNoOfd;
        op.action = OpAction::kIssue;
        break;
      }
      [[fallthrough]];
    default:
      if (!has_path) {
        if (si->fd >= 0 || op.ofd != kNoOfd) fd_op_action(op);
        else op.action = OpAction::kEmulate;
      }
  }
  if (f.ns_mask) {
    op.flags |= static_cast<uint8_t>(f.ns_mask << 4);
    for (int k = 0; k < 2; ++k)
      if ((f.ns_mask >> k & 1) && op.path[k] != kNoPath)
        f.parent[k] = procs_.changed_dir(op.path[k]);
  }
  // The directory holding each path (deps.cpp orders ops beneath a directory after its changes).
  for (int k = (si->flags & kSfLiteralPath0) ? 1 : 0; k < 2; ++k)
    if (op.path[k] != kNoPath) f.dir[k] = procs_.parent_id(op.path[k]);
  // The regular file whose contents it reads or changes (deps.cpp).
  if (op.action == OpAction::kIssue) {
    auto file_of = [&](uint32_t o) {
      return o != kNoOfd && plan_.ofds[o].kind == OfdKind::kFile ? plan_.ofds[o].path : kNoPath;
    };
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
  }
  if (!closed.empty()) {
    set_closes(op, closed);
    procs_.released(i, closed);
  }
}

}  // namespace fsr
