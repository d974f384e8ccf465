// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sys_exit: the record of a recorded call of a tracked task, built in
 * place in this CPU's lane (record_syscall.bpf.h); a call that leaves task
 * work to its return opens a release window (record_release.bpf.h). */
#include "record_release.bpf.h"

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs* regs, long ret) {
  struct task_struct* task;
  struct fsr_task* s;
  __u64 nr = FSR_SYSCALL_NR(regs);
  __u16 late;
  /* Only tracked tasks have state: its lookup (a pointer test for every
   * other task with task storage) replaces the tracked-hash lookup. The
   * rodata test first skips unrecorded calls without touching any map. */
  if (nr >= FSR_MAX_NR || !(sys_flags[nr] & FSR_SF_RECORD)) return 0;
  task = bpf_get_current_task_btf();
  s = task_get(task);
  if (!s || !s->active) return 0;
  late = release_pending(task) ? FSR_RF_RELEASE_PENDING : 0;
  emit_syscall(task, s, ret, 0, late);
  if (late) release_open(s);
  return 0;
}
