// SPDX-License-Identifier: Apache-2.0
// The planner's process calls (syscall_actions.h): forks and clones, execs,
// exits, the cwd's changes, and the mappings a process makes and touches.
// What they do to the processes' fd tables, cwd and address spaces is
// planned here; forks and exits are emulated.
#include <linux/sched.h>
#include <sys/syscall.h>

#include "replayer/plan/syscall_actions.h"

namespace fsr {

bool PlanStream::plan_process_call(SyscallCtx& c) {
  const Event& e = c.e;
  PlanOp& op = c.op;
  TidState& st = c.st;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork: {
      op.action = OpAction::kEmulate;
      bool thread = (e.flags & kEfThreadClone) || (e.nr == SYS_clone && (e.args[0] & CLONE_THREAD));
      bool share = (e.flags & kEfSharedFiles) || (e.nr == SYS_clone && (e.args[0] & CLONE_FILES));
      bool share_fs = thread || (e.nr == SYS_clone && (e.args[0] & CLONE_FS));
      if (e.ret > 0) procs_.child_created(c.i, e.ts + e.dur, static_cast<uint32_t>(e.ret), share_fs, share, st);
      return true;
    }
    case kEvProcFork: {  // arg0 child tid, arg1 child tgid, arg2 1 when the cwd is shared
      op.action = OpAction::kEmulate;
      bool thread = e.args[1] == e.pid;
      procs_.child_created(c.i, e.ts + e.dur, static_cast<uint32_t>(e.args[0]), thread || e.args[2] == 1,
                           (e.flags & kEfSharedFiles) != 0, st);
      return true;
    }
    case SYS_execve: case SYS_execveat: case kEvProcExec:
      if (e.nr == kEvProcExec) op.action = OpAction::kEmulate;
      // The kernel's exec record and the execve's own are one exec, in either order.
      if (e.ret == 0 && (c.exec_done == 0 || (c.exec_done == kEvProcExec) == (e.nr == kEvProcExec))) {
        st.table->exec(c.closed);
        st.exec_done = e.nr;
        maps_.exec(static_cast<uint32_t>(c.i), e.tid, e.pid);
      }
      return true;
    case kEvProcExit:
      op.action = OpAction::kEmulate;
      if (procs_.drop_user(st)) st.table->clear(c.closed);
      maps_.exit(static_cast<uint32_t>(c.i), e.tid);
      return true;
    case SYS_chdir:
      if (e.ret == 0 && c.has_path) {
        st.cwd->abs = plan_.paths[op.path[0]].abs;
        // The walk the chdir made, its directory kept open: relative walks
        // after it start there (the cwd of every task sharing it).
        st.cwd->ofd = in_.walks_as_passed ? procs_.cwd_ofd(op.path[0]) : kNoOfd;
        op.new_ofd = st.cwd->ofd;
      }
      return true;
    case SYS_fchdir:
      op.action = OpAction::kEmulate;
      if (e.ret == 0 && op.ofd != kNoOfd && plan_.ofds[op.ofd].path != kNoPath) {
        st.cwd->abs = plan_.paths[plan_.ofds[op.ofd].path].abs;
        st.cwd->ofd = kNoOfd;  // (that OFD is closed and its slot reused as the fd's are: walks start at the root)
      }
      return true;
    default:
      return false;
  }
  // clang-format on
}

bool PlanStream::plan_memory_call(SyscallCtx& c) {
  const Event& e = c.e;
  const uint32_t i = static_cast<uint32_t>(c.i);
  PlanOp& op = c.op;
  switch (e.nr) {
    case SYS_mmap:
      fd_op_action(op);
      if (op.action == OpAction::kIssue && e.ret > 0) maps_.mmap(i, e);
      return true;
    case SYS_munmap:
      op.action = OpAction::kSkip;
      if (e.ret == 0) maps_.munmap(i, e);  // (a failed one changed nothing: the trace's own behaviour)
      return true;
    case kEvPageFault:
      op.action = in_.mmap_touch && maps_.fault(i, e) ? OpAction::kIssue : OpAction::kSkip;
      return true;
    default:
      return false;
  }
}

}  // namespace fsr
