// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sched_process_fork: follows the tree. A tracked parent's child gets
 * its filter entry and task state, with its ids in the recording's PID
 * namespace, before it runs; a fork record says whether it is a thread, what
 * it shares with its parent and, for namespaces below the recording's, how
 * its pids there map (fsreplay_record.h). A child outside the recording's
 * namespace could not be named in the trace: it would be counted, not
 * followed (never expected: setns enters only namespaces below the
 * caller's, so a tree that starts in ours stays in it or below). */
#include "record_syscall.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct* parent, struct task_struct* child) {
  struct fsr_task *ps = task_get_or_lazy(parent, class_process), *cs;
  struct pid *ppid, *cpid;
  struct fsr_counters* c;
  struct scratch* sc;
  struct fsr_rec* r;
  __u32 gen, ctid, ctgid, plevel, clevel, here = 0, nargs = 2;
  int thread = child->tgid == parent->tgid;
  if (!ps) return 0;
  ppid = BPF_CORE_READ(parent, thread_pid);
  cpid = BPF_CORE_READ(child, thread_pid);
  ctid = pidns_init ? child->pid : pid_here(cpid, &here);
  if (!ctid) {
    if ((c = get_counters())) c->extra[FSR_CNT_FOREIGN]++;
    return 0;
  }
  ctgid = thread ? ps->pid : ctid;
  gen = new_gen();
  /* A new thread shares the address space: keep the process's generation. */
  cs = 0;
  if (thread || bpf_map_update_elem(&tracked, &ctgid, &gen, BPF_ANY) == 0) cs = task_new(child);
  task_named(cs, ctgid, ctid, class_process);
  sc = get_scratch();
  if (!sc) return 0;
  r = begin_rec_at(sc, FSR_REC_FORK, ps->pid, ps->tid, 2, marker_ts(ps));
  sc->args[0] = ctid;
  sc->args[1] = ctgid;
  plevel = BPF_CORE_READ(ppid, level);
  clevel = BPF_CORE_READ(cpid, level);
  if (plevel != here || clevel != here) {
    /* The parent or the child is in a namespace below ours: the pids the
     * parent's and the child's namespaces give the child, keyed by those
     * namespaces (the decoder maps wait4 and clone results with them). */
    __u32 pinum = 0, cinum = 0, seen = 0;
    pid_nr_at(ppid, plevel, &pinum);
    sc->args[2] = plevel <= clevel ? pid_nr_at(cpid, plevel, &seen) : 0;
    if (seen != pinum) sc->args[2] = 0; /* the child is not in the parent's namespace (setns) */
    sc->args[3] = pinum;
    sc->args[4] = pid_nr_at(cpid, clevel, &cinum);
    sc->args[5] = cinum;
    nargs = FSR_FORK_NS_ARGS;
    r->arg_mask = (1u << nargs) - 1;
  }
  if (thread) r->flags |= FSR_RF_THREAD;
  if (child->files == parent->files) r->flags |= FSR_RF_SHARED_FILES;
  if (child->fs == parent->fs) r->flags |= FSR_RF_SHARED_FS;
  emit(sc, sizeof(*r) + nargs * 8, class_process);
  return 0;
}
