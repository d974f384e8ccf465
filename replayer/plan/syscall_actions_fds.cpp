// SPDX-License-Identifier: Apache-2.0
// The planner's fd-table calls (syscall_actions.h): opens, closes, dups,
// fcntl, and the pipes, sockets and eventfds a process makes. What they do
// to the fd table is planned here; most are emulated, only opens and the
// last close of a file are issued.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "replayer/plan/syscall_actions.h"

namespace fsr {

bool PlanStream::plan_fd_table_call(SyscallCtx& c) {
  const Event& e = c.e;
  const int64_t ret = e.ret;
  PlanOp& op = c.op;
  TidState& st = c.st;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      const uint32_t flags = open_flags(e.nr, e.args[1], e.args[2]);
      if (flags & O_CREAT) c.f.ns_mask |= 1;
      // A named FIFO: the open's inode says so, or, without inode facts, the
      // trace made its path one. The open is a lookup (the executor opens a
      // pipe-kind OFD O_PATH, not to wait for the other end), what goes
      // through it a pipe's, each read ordered after the writes of that
      // FIFO's earlier opens.
      const bool fifo = ret >= 0 && c.has_path &&
                        (S_ISFIFO(e.mode) || ((e.flags & kEfNoInode) && fifo_chan_.count(op.path[0])));
      if (fifo) {
        op.new_ofd = procs_.new_ofd(OfdKind::kPipe, op.path[0], flags);
        plan_.ofds[op.new_ofd].chan_read = plan_.ofds[op.new_ofd].chan_write = fifo_chan(op.path[0]);
        st.table->bind(static_cast<int>(ret), op.new_ofd, (flags & O_CLOEXEC) != 0, c.closed);
      } else if (ret >= 0 && c.has_path) {
        bool dir = (flags & O_DIRECTORY) || S_ISDIR(e.mode);
        op.new_ofd = procs_.new_ofd(dir ? OfdKind::kDir : OfdKind::kFile, op.path[0], flags);
        st.table->bind(static_cast<int>(ret), op.new_ofd, (flags & O_CLOEXEC) != 0, c.closed);
      }
      return true;
    }
    case SYS_close:
      // An fd whose OFD keeps other references closes nothing real: emulated.
      op.action = OpAction::kEmulate;
      if (op.ofd != kNoOfd) {
        st.table->close(c.fdarg(0), c.closed);
        if (!c.closed.empty() && is_file(op.ofd)) op.action = OpAction::kIssue;
        procs_.released(c.i, c.closed);
        c.closed.clear();  // the issued close is the real close of op.ofd
      }
      return true;
    case SYS_close_range:
      op.action = OpAction::kEmulate;
      st.table->close_range(static_cast<unsigned>(e.args[0]), static_cast<unsigned>(e.args[1]),
                            (e.args[2] & 4) != 0, c.closed);
      return true;
    case SYS_dup: case SYS_dup2: case SYS_dup3:
      op.action = OpAction::kEmulate;
      if (ret >= 0 && op.ofd != kNoOfd && static_cast<int>(ret) != c.fdarg(0))
        st.table->bind(static_cast<int>(ret), op.ofd, e.nr == SYS_dup3 && (e.args[2] & O_CLOEXEC), c.closed);
      return true;
    case SYS_fcntl: {
      int cmd = static_cast<int>(e.args[1]);
      fd_op_action(op);
      if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 && op.ofd != kNoOfd) {
        st.table->bind(static_cast<int>(ret), op.ofd, cmd == F_DUPFD_CLOEXEC, c.closed);
        op.action = OpAction::kEmulate;
      } else if (cmd == F_SETFD) {
        st.table->set_cloexec(c.fdarg(0), (e.args[2] & FD_CLOEXEC) != 0);
      } else if (cmd != F_GETFD && cmd != F_GETFL && cmd != F_SETFL && op.action == OpAction::kIssue) {
        op.action = OpAction::kEmulate;  // locks and the like take pointers we never recorded
      }
      return true;
    }
    case SYS_pipe: case SYS_pipe2: case SYS_socketpair:
      plan_fd_pair(c);
      return true;
    case SYS_eventfd: case SYS_eventfd2: case SYS_epoll_create1:
      op.action = OpAction::kEmulate;
      if (ret >= 0) {
        bool efd = e.nr != SYS_epoll_create1;
        uint32_t o = procs_.new_ofd(efd ? OfdKind::kEventfd : OfdKind::kEpoll, kNoPath);
        if (efd) plan_.ofds[o].chan_read = plan_.ofds[o].chan_write = procs_.new_chan();
        st.table->bind(static_cast<int>(ret), o, (e.args[e.nr == SYS_eventfd2 ? 1 : 0] & O_CLOEXEC) != 0, c.closed);
      }
      return true;
    default:
      return false;
  }
  // clang-format on
}

// pipe, pipe2, socketpair: two OFDs on one channel (a pipe's) or two (a
// socket pair's, one each way), emulated.
void PlanStream::plan_fd_pair(SyscallCtx& c) {
  const Event& e = c.e;
  c.op.action = OpAction::kEmulate;
  // Recorder convention (bpf/fsreplay_record.h FSR_SF_FD_PAIR): the int[2] is
  // stored in its own argument slot (arg0 for pipe/pipe2, arg3 for
  // socketpair) as fd0 | fd1 << 32.
  const uint64_t pair = e.args[e.nr == SYS_socketpair ? 3 : 0];
  if (e.ret != 0 || pair == 0) return;
  bool sock = e.nr == SYS_socketpair;
  uint32_t a = procs_.new_chan(), b = sock ? procs_.new_chan() : a;
  uint32_t r = procs_.new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
  uint32_t w = procs_.new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
  plan_.ofds[r].chan_read = a;
  plan_.ofds[w].chan_write = a;
  if (sock) {
    plan_.ofds[w].chan_read = b;
    plan_.ofds[r].chan_write = b;
  }
  unsigned fl = e.nr == SYS_pipe2        ? static_cast<unsigned>(e.args[1])
                : e.nr == SYS_socketpair ? static_cast<unsigned>(e.args[1])
                                         : 0;
  bool cx = (fl & O_CLOEXEC) != 0;
  c.st.table->bind(static_cast<int>(pair & 0xffffffffu), r, cx, c.closed);
  c.st.table->bind(static_cast<int>(pair >> 32), w, cx, c.closed);
}

}  // namespace fsr
