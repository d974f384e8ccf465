// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/mm_filemap_map_pages (6.11 on): fault-around mapped cached pages
 * [start, last] including the faulting one; the window's first page stands
 * for it (touching it again in replay maps the same window). */
#include "record_fault.bpf.h"

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(on_filemap_map_pages, struct address_space* mapping, unsigned long start, unsigned long last) {
  __u64 t0 = fault_clock_start();
  emit_file_fault(mapping, start);
  fault_clock_stop(t0);
  return 0;
}
