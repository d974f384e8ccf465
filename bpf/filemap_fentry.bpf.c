// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* fentry on filemap_fault and filemap_map_pages: file page faults on a
 * kernel without the page cache's fault tracepoints (before 6.11: WSL2's
 * default 6.6, Debian 12's 6.1), at the same two places those tracepoints
 * are in. The VMA lookup that kernel has otherwise (on_fault_vma) runs
 * bpf_find_vma on every user fault with interrupts off, where the helper
 * unlocks the mm through an irq_work: a self-IPI per fault, which on this
 * project's VM cost 12.7 µs of program time per fault and made a recorded
 * C build 3.7x slower. Here anonymous faults cost what they cost with the
 * tracepoints (on_fault notes the fault), and a file fault reaches
 * emit_file_fault with its mapping directly (record_fault.bpf.h). */
#include "record_fault.bpf.h"

SEC("fentry/filemap_fault")
int BPF_PROG(on_fentry_filemap_fault, struct vm_fault* vmf) {
  __u64 t0 = fault_clock_start();
  struct file* f = BPF_CORE_READ(vmf, vma, vm_file);
  if (f) emit_file_fault(BPF_CORE_READ(f, f_mapping), BPF_CORE_READ(vmf, pgoff));
  fault_clock_stop(t0);
  return 0;
}

/* Fault-around [start_pgoff, end_pgoff] of cached pages around the faulting
 * one; the window's first page stands for it, as with the tracepoint. */
SEC("fentry/filemap_map_pages")
int BPF_PROG(on_fentry_filemap_map_pages, struct vm_fault* vmf, unsigned long start_pgoff, unsigned long end_pgoff) {
  __u64 t0 = fault_clock_start();
  struct file* f = BPF_CORE_READ(vmf, vma, vm_file);
  if (f) emit_file_fault(BPF_CORE_READ(f, f_mapping), start_pgoff);
  fault_clock_stop(t0);
  return 0;
}
