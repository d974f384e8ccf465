// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sched_process_exit: a tracked task's exit record, after the record
 * of the call it exits in (exit/exit_group, or a call a fatal signal ended),
 * which never returns to sys_exit. The last thread of a group takes the
 * group out of the filter. */
#include "record_release.bpf.h"

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct* p) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct fsr_task* s = task_get_or_lazy(task, class_process);
  struct scratch* sc;
  struct fsr_rec* r;
  struct fsr_counters* c;
  __u32 tgid;
  int live;
  if (!s) return 0;
  tgid = s->pid;
  release_close(s);
  if (s->active) emit_syscall(task, s, 0, FSR_RF_UNFINISHED, 0);
  live = BPF_CORE_READ(p, signal, live.counter);
  c = get_counters();
  if (c) {
    c->extra[FSR_CNT_FAULTS] += s->faults;
    c->extra[FSR_CNT_FAULT_SKIPS] += s->fault_skips;
  }
  sc = get_scratch();
  if (sc) {
    r = begin_rec(sc, FSR_REC_EXIT, tgid, s->tid, 2);
    r->ret = p->exit_code;
    sc->args[0] = p->exit_code;
    sc->args[1] = live == 0;
    emit(sc, sizeof(*r) + 2 * 8, class_process);
  }
  if (live == 0) bpf_map_delete_elem(&tracked, &tgid);
  task_drop(task);
  return 0;
}
