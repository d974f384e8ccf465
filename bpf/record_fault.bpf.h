/* Page faults on file mappings. Where the kernel has the page cache's fault
 * tracepoints (mm_filemap_fault, mm_filemap_map_pages: 6.11 on), the user
 * fault handler (page_fault_user.bpf.c, on_fault) only notes the faulting
 * address in the task's state and the record is made only if the fault then
 * reads a file (emit_file_fault): anonymous faults, the bulk of a process's
 * faults, cost nothing more. Older kernels use on_fault_vma: a VMA lookup on
 * every fault of a tracked task. */
#ifndef FSREPLAY_RECORD_FAULT_BPF_H
#define FSREPLAY_RECORD_FAULT_BPF_H

#include "record_syscall.bpf.h"

static __always_inline void emit_file_fault(struct address_space *mapping, __u64 pgoff)
{
  struct task_struct *task = bpf_get_current_task_btf();
  struct fsr_task *s = task_get(task);
  struct scratch *sc;
  struct fsr_rec *r;
  struct fsr_inode *in;
  struct inode *ino;
  __u64 magic = 0;
  __u32 mode = 0;
  /* Only a fault a user access started: populate, mlock and GUP from
   * syscalls reach the page cache without one and are the syscall's work. */
  if (!s || !s->fault_armed)
    return;
  s->fault_armed = 0;
  ino = BPF_CORE_READ(mapping, host);
  if (!ino)
    return;
  sc = get_scratch();
  if (!sc)
    return;
  r = begin_rec(sc, FSR_REC_FAULT, s->pid, s->tid, 3);
  sc->args[0] = pgoff << 12;
  sc->args[1] = s->fault_addr;
  sc->args[2] = s->fault_err;
  in = inode_at(sc, 3 * 8);
  if (inode_facts(in, ino, &mode, &magic) == 0)
    r->flags |= FSR_RF_HAS_INODE;
  emit(sc, sizeof(*r) + 3 * 8 + ((r->flags & FSR_RF_HAS_INODE) ? sizeof(*in) : 0), class_mmap);
}

#endif
