// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/mm_filemap_fault (6.11 on): a user fault read a file page that was
 * not mapped and that fault-around did not map (record_fault.bpf.h). */
#include "record_fault.bpf.h"

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(on_filemap_fault, struct address_space* mapping, unsigned long index) {
  __u64 t0 = fault_clock_start();
  emit_file_fault(mapping, index);
  fault_clock_stop(t0);
  return 0;
}
