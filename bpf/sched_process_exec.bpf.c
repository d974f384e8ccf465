// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sched_process_exec: the exec record (the program's path and its
 * arguments, read here: the old address space is gone by sys_exit) and a new
 * address-space generation for the page-fault dedupe. A thread other than
 * the leader that execs takes the leader's pid: its state follows. */
#include "record_syscall.bpf.h"

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct* p, pid_t old_pid, struct linux_binprm* bprm) {
  struct fsr_task* s = task_rekey(p, old_pid);
  struct scratch* sc;
  struct fsr_rec* r;
  const char* fname;
  __u64 start, end, len;
  long n;
  __u32 n0 = 0, old_tid, *gen;
  char* str;
  if (!s) return 0;
  gen = bpf_map_lookup_elem(&tracked, &s->pid);
  if (!gen) return 0;
  *gen = new_gen(); /* a new address space: its pages are touched anew */
  old_tid = s->tid;
  s->tid = s->pid;
  sc = get_scratch();
  if (!sc) return 0;
  r = begin_rec_at(sc, FSR_REC_EXEC, s->pid, s->tid, 1, marker_ts(s));
  sc->args[0] = old_tid;
  str = (char*)&sc->args[1];
  fname = BPF_CORE_READ(bprm, filename);
  n = bpf_probe_read_kernel_str(str, FSR_PATH_MAX, fname);
  if (n > 0) {
    n0 = n;
    r->len0 = n;
  }
  start = BPF_CORE_READ(p, mm, arg_start);
  end = BPF_CORE_READ(p, mm, arg_end);
  len = end > start ? end - start : 0;
  if (len > FSR_PATH_MAX) {
    len = FSR_PATH_MAX;
    r->flags |= FSR_RF_PATH_TRUNC;
  }
  if (!(n0 <= FSR_PATH_MAX && len > 0 && bpf_probe_read_user(str + n0, len, (const void*)start) == 0)) len = 0;
  emit(sc, sizeof(*r) + 8 + n0 + len, class_process);
  return 0;
}
