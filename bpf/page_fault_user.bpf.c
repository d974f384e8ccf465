// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/page_fault_user, in one of two programs (record_fault.bpf.h): with
 * the page cache's fault tracepoints, on_fault notes the fault for them;
 * without, on_fault_vma looks the faulting address up and records the first
 * touch of each file page per address space itself. */
#include "record_fault.bpf.h"

SEC("tp_btf/page_fault_user")
int BPF_PROG(on_fault, unsigned long address, struct pt_regs* regs, unsigned long error_code) {
  __u64 t0 = fault_clock_start();
  struct fsr_task* s = task_get(bpf_get_current_task_btf());
  if (s) {
    release_close(s); /* user code ran: a release window is over */
    s->fault_addr = address;
    s->fault_err = error_code;
    s->fault_armed = 1;
    s->faults++;
  }
  fault_clock_stop(t0);
  return 0;
}

struct fault_ctx {
  __u64 addr;
  __u64 off;
  struct file* file;
};

static long fault_vma(struct task_struct* task, struct vm_area_struct* vma, void* data) {
  struct fault_ctx* c = data;
  struct file* f = vma->vm_file;
  if (!f) return 0;
  c->file = f;
  c->off = (vma->vm_pgoff << 12) + ((c->addr - vma->vm_start) & ~0xfffULL);
  return 0;
}

static __always_inline void fault_vma_record(unsigned long address, unsigned long error_code) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct fsr_task* s;
  struct fault_ctx c = {.addr = address};
  struct fault_key k = {};
  struct file* fp;
  struct inode* ino;
  struct scratch* sc;
  struct fsr_rec* r;
  __u32* gen;
  __u8 one = 1;
  if (!record_faults) return;
  s = task_get(task);
  if (!s) return;
  s->faults++;
  gen = bpf_map_lookup_elem(&tracked, &s->pid);
  if (!gen) return;
  if (bpf_find_vma(task, address, fault_vma, &c, 0) != 0 || !c.file) return;
  fp = c.file;
  ino = BPF_CORE_READ(fp, f_inode);
  if (!ino) return;
  k.gen = *gen;
  k.dev = BPF_CORE_READ(ino, i_sb, s_dev);
  k.ino = BPF_CORE_READ(ino, i_ino);
  k.pgoff = c.off >> 12;
  if (bpf_map_update_elem(&faulted, &k, &one, BPF_NOEXIST) == -17 /* EEXIST */)
    return; /* already reported for this address space */
  sc = get_scratch();
  if (!sc) return;
  r = begin_rec(sc, FSR_REC_FAULT, s->pid, s->tid, 3);
  sc->args[0] = c.off;
  sc->args[1] = address;
  sc->args[2] = error_code;
  file_facts(r, inode_at(sc, 3 * 8), fp, 1);
  emit(sc, sizeof(*r) + 3 * 8 + ((r->flags & FSR_RF_HAS_INODE) ? FSR_INODE_SIZE : 0), class_mmap);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(on_fault_vma, unsigned long address, struct pt_regs* regs, unsigned long error_code) {
  __u64 t0 = fault_clock_start();
  struct fsr_task* s = release_windows > 0 ? task_get(bpf_get_current_task_btf()) : 0;
  if (s) release_close(s); /* user code ran: a release window is over */
  fault_vma_record(address, error_code);
  fault_clock_stop(t0);
  return 0;
}
