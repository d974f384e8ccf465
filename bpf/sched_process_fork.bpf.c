// SPDX-License-Identifier: GPL-2.0
/* tp_btf/sched_process_fork: follows the tree. A tracked parent's child gets
 * its filter entry and task storage before it runs, and a fork record says
 * whether it is a thread and what it shares with its parent. */
#include "record_syscall.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
  __u32 ptgid = parent->tgid, ctgid = child->tgid;
  struct scratch *sc;
  struct fsr_rec *r;
  __u32 gen;
  if (!is_tracked(ptgid))
    return 0;
  gen = new_gen();
  /* A new thread shares the address space: keep the process's generation. */
  if ((ctgid != ptgid && bpf_map_update_elem(&tracked, &ctgid, &gen, BPF_ANY) != 0) ||
      !bpf_task_storage_get(&inflight, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE)) {
    struct fsr_counters *c = get_counters();
    if (c)
      c->drops[class_process & (FSR_CLASS_MAX - 1)]++;
  }
  sc = get_scratch();
  if (!sc)
    return 0;
  r = begin_rec(sc, FSR_REC_FORK, ptgid, parent->pid, 2);
  sc->args[0] = child->pid;
  sc->args[1] = ctgid;
  if (ctgid == ptgid)
    r->flags |= FSR_RF_THREAD;
  if (child->files == parent->files)
    r->flags |= FSR_RF_SHARED_FILES;
  if (child->fs == parent->fs)
    r->flags |= FSR_RF_SHARED_FS;
  emit(sc, sizeof(*r) + 2 * 8, class_process);
  return 0;
}
