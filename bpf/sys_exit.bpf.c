// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sys_exit: the record of a recorded call of a tracked task, built in
 * place in this CPU's lane (record_syscall.bpf.h). */
#include "record_syscall.bpf.h"

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs* regs, long ret) {
  struct task_struct* task;
  struct fsr_task* s;
  __u64 nr = FSR_SYSCALL_NR(regs);
  /* Only tracked tasks have state: its lookup (a pointer test for every
   * other task with task storage) replaces the tracked-hash lookup. The
   * rodata test first skips unrecorded calls without touching any map. */
  if (nr >= FSR_MAX_NR || !(sys_flags[nr] & FSR_SF_RECORD)) return 0;
  task = bpf_get_current_task_btf();
  s = task_get(task);
  if (!s || !s->active) return 0;
  emit_syscall(task, s, ret, 0);
  return 0;
}
