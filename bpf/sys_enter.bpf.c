// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sys_enter: saves a recorded call of a tracked task (its number,
 * arguments and enter time) in the task's state, for sys_exit. Untracked
 * tasks leave after a rodata test and a task-state lookup (a pointer test
 * with task storage). */
#include "record_release.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs* regs, long id) {
  struct fsr_task* s;
  __u8 f;
  /* Any syscall ends a task's release window: only while one is open
   * anywhere is the task's state looked at for it. */
  if (release_windows > 0) {
    s = task_get(bpf_get_current_task_btf());
    if (s) release_close(s);
  }
  /* Cheapest test first: a rodata byte, no map. Most syscalls system-wide
   * (futex, epoll, clock_*, ...) of untracked tasks leave here. */
  if (id < 0 || id >= FSR_MAX_NR) return 0;
  f = sys_flags[id];
  if (!(f & FSR_SF_RECORD)) return 0;
  /* Tracked tasks carry their state from birth (on_fork; user space seeds
   * the first one through a pidfd); with lazy tracking, a task of a tracked
   * process gets it at its first recorded call. */
  s = task_get_or_lazy(bpf_get_current_task_btf(), sys_class[id]);
  if (!s) return 0;
  s->nr = id;
  s->fault_armed = 0; /* a user fault noted earlier has been handled */
  /* The syscall-argument macros name the registers of the target
   * architecture; on the tp_btf pointer they are plain loads, at CO-RE
   * offsets (vmlinux.h's structs preserve access indices). */
  s->args[0] = PT_REGS_PARM1_SYSCALL(regs);
  s->args[1] = PT_REGS_PARM2_SYSCALL(regs);
  s->args[2] = PT_REGS_PARM3_SYSCALL(regs);
  s->args[3] = PT_REGS_PARM4_SYSCALL(regs);
  s->args[4] = PT_REGS_PARM5_SYSCALL(regs);
  s->args[5] = PT_REGS_PARM6_SYSCALL(regs);
  s->active = 1;
  s->ts = bpf_ktime_get_ns();
  return 0;
}
