// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Page faults on file mappings. Where the kernel has the page cache's fault
 * tracepoints (mm_filemap_fault, mm_filemap_map_pages: 6.11 on), the user
 * fault handler (page_fault_user.bpf.c, on_fault) only notes the faulting
 * address in the task's state and the record is made only if the fault then
 * reads a file (emit_file_fault): anonymous faults, the bulk of a process's
 * faults, cost nothing more. Older kernels use on_fault_vma: a VMA lookup on
 * every fault of a tracked task. */
#ifndef FSREPLAY_RECORD_FAULT_BPF_H
#define FSREPLAY_RECORD_FAULT_BPF_H

#include "record_release.bpf.h"

/* Files whose faults are not recorded: files outside the recorded root,
 * which user space adds as it learns their paths from their first fault
 * records (recorder/recorder.cpp). A replay puts them under its scratch
 * directory on the local disk, where their faults cost what they did here,
 * and an unrecorded fault's time stays in the recorded gap: recording them
 * only costs (a record and a drain per fault-around of every process, the
 * bulk of a build's events). Keyed by the inode's identity, generation
 * included (an inode number reused under the root is another file), the
 * device as user space numbers it (the records' inode facts). */
struct fault_skip_key {
  __u64 ino;
  __u32 dev;
  __u32 gen;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, struct fault_skip_key);
  __type(value, __u8);
} fault_skip __weak SEC(".maps");

/* The fault programs' own run time, while the recorder calibrates what
 * they cost the workload (recorder/fault_cost.cpp): with time_faults set,
 * each fault program adds its body's duration to fault_run_ns. Not the
 * kernel's BPF run-time stats: turning those on and off patches a static
 * key in every BPF program's dispatch, machine-wide, and needs
 * CAP_SYS_ADMIN, which a container given CAP_BPF and CAP_PERFMON lacks; in
 * the lab's 6.1 guest under TCG, that patching of a site every syscall runs
 * through livelocked both vCPUs (a soft lockup). */
__weak __u32 time_faults = 0;
__weak __u64 fault_run_ns = 0;

static __always_inline __u64 fault_clock_start(void) { return time_faults ? bpf_ktime_get_ns() : 0; }

static __always_inline void fault_clock_stop(__u64 t0) {
  if (t0) __sync_fetch_and_add(&fault_run_ns, bpf_ktime_get_ns() - t0);
}

static __always_inline void emit_file_fault(struct address_space* mapping, __u64 pgoff) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct fsr_task* s = task_get(task);
  struct scratch* sc;
  struct fsr_rec* r;
  struct fsr_inode* in;
  struct inode* ino;
  __u64 magic = 0;
  __u32 mode = 0;
  /* Only a fault a user access started: populate, mlock and GUP from
   * syscalls reach the page cache without one and are the syscall's work. */
  if (!s || !s->fault_armed) return;
  s->fault_armed = 0;
  ino = BPF_CORE_READ(mapping, host);
  if (!ino) return;
  struct fault_skip_key k = {.ino = BPF_CORE_READ(ino, i_ino),
                             .dev = (__u32)user_dev(BPF_CORE_READ(ino, i_sb, s_dev)),
                             .gen = BPF_CORE_READ(ino, i_generation)};
  if (bpf_map_lookup_elem(&fault_skip, &k)) {
    s->fault_skips++;
    return;
  }
  sc = get_scratch();
  if (!sc) return;
  r = begin_rec(sc, FSR_REC_FAULT, s->pid, s->tid, 4);
  sc->args[0] = pgoff << 12;
  sc->args[1] = s->fault_addr;
  sc->args[2] = s->fault_err;
  sc->args[3] = k.gen; /* (for the skip key user space makes; not in the trace) */
  in = inode_at(sc, 4 * 8);
  if (inode_facts(in, ino, &mode, &magic) == 0) r->flags |= FSR_RF_HAS_INODE;
  emit(sc, sizeof(*r) + 4 * 8 + ((r->flags & FSR_RF_HAS_INODE) ? sizeof(*in) : 0), class_mmap);
}

#endif
