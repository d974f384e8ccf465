// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The recorder's rodata knobs and maps, shared by every
 * program file of the recorder (the .bpf.c files). Everything is __weak: each
 * program file includes this header, and `bpftool gen object` merges the
 * identical definitions into one (falcosecurity/libs' modern_bpf does the
 * same). Which syscalls are recorded comes from fsr::syscall_table() through
 * the rodata arrays: no syscall number is written in the BPF sources. */
#ifndef FSREPLAY_RECORD_MAPS_BPF_H
#define FSREPLAY_RECORD_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "fsreplay_record.h"

/* Filled by user space from the syscall table before load. */
__weak const volatile __u8 sys_flags[FSR_MAX_NR] = {};
__weak const volatile __u8 sys_class[FSR_MAX_NR] = {};
__weak const volatile __u8 sys_path0[FSR_MAX_NR] = {};
__weak const volatile __u8 sys_path1[FSR_MAX_NR] = {};
__weak const volatile __u8 sys_statbuf[FSR_MAX_NR] = {};
__weak const volatile __u8 sys_fd[FSR_MAX_NR] = {};
/* Arguments the record carries (fsr_rec.arg_mask): the ones the decoder reads. */
__weak const volatile __u8 sys_args[FSR_MAX_NR] = {};
/* Classes of the pseudo events (process, mmap). */
__weak const volatile __u32 class_process = 0;
__weak const volatile __u32 class_mmap = 0;
/* Knobs. */
__weak const volatile __u32 record_faults = 1;
__weak const volatile __u32 mmap_real_inode = 0; /* bpf_find_vma is there (record_inode.bpf.h) */

/* Segments per lane minus one (a power of two minus one). */
__weak const volatile __u32 lane_seg_mask = 0;
/* The early rewind (fsreplay_record.h): its window in bytes (0: only empty
 * lanes rewind) and the least time a lap must have taken. */
__weak const volatile __u64 lane_window = 0;
__weak const volatile __u64 lane_min_cycle_ns = 0;

/* The registers libbpf 1.1's bpf_tracing.h has no macro for: the sixth
 * syscall argument (newer libbpf defines PT_REGS_PARM6_SYSCALL) and the
 * syscall number at sys_exit. */
#if defined(__TARGET_ARCH_x86)
#define FSR_SYSCALL_NR(regs) ((const struct pt_regs*)(regs))->orig_ax
#define FSR_PARM6_SYSCALL(regs) ((const struct pt_regs*)(regs))->r9
#elif defined(__TARGET_ARCH_arm64)
#define FSR_SYSCALL_NR(regs) ((const struct pt_regs*)(regs))->syscallno
#define FSR_PARM6_SYSCALL(regs) ((const struct pt_regs*)(regs))->regs[5]
#else
#error "give the registers of the syscall number and sixth argument for this architecture"
#endif
#ifndef PT_REGS_PARM6_SYSCALL
#define PT_REGS_PARM6_SYSCALL(regs) FSR_PARM6_SYSCALL(regs)
#endif

#define ANON_INODE_MAGIC 0x09041934
#define S_IFMT_ 00170000
#define S_IFIFO_ 0010000
#define S_IFSOCK_ 0140000

/* The tracked processes, by tgid in the recording's PID namespace. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u32); /* address-space generation: new at fork and exec */
} tracked __weak SEC(".maps");

/* Set by user space when some tracked task may lack task state (--pid:
 * threads that existed before the recording; pidfd seeding failed; task
 * state in the task hash, which user space cannot seed). Then sys_enter
 * looks tasks without state up in the tracked hash. */
__weak __u32 lazy_track = 0;

/* Generations handed out by the kernel side; user space seeds with values
 * that have bit 31 set, so the two never collide. */
__weak __u32 next_gen = 0;

/* File pages already reported, per address space (generation): a page is
 * reported the first time a tracked process touches it. LRU: an evicted
 * entry only means the page may be reported once more. */
struct fault_key {
  __u32 gen;
  __u32 dev;
  __u64 ino;
  __u64 pgoff;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 1 << 16);
  __type(key, struct fault_key);
  __type(value, __u8);
} faulted __weak SEC(".maps");

static __always_inline __u32 new_gen(void) { return __sync_fetch_and_add(&next_gen, 1) & 0x7fffffff; }

/* A record in its lane layout. Syscall records are built in the lane itself
 * when a frame of the largest size fits there; the others (fork, exec, exit,
 * fault), and syscall records meeting a nearly full lane, are assembled here
 * and copied into the lane with one bpf_probe_read_kernel of their length. */
struct scratch {
  struct fsr_rec rec;
  __u64 args[FSR_ARGS_MAX]; /* section 1, packed (the first popcount(arg_mask)) */
  /* the inode facts and strings: at an offset that depends on the sections before */
  char tail[FSR_INODE_SIZE + 2 * FSR_PATH_MAX];
};

_Static_assert(sizeof(struct scratch) == FSR_REC_MAX, "scratch must hold exactly the largest record");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} scratch __weak SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fsr_counters);
} counters __weak SEC(".maps");

/* The lanes (fsreplay_record.h): segments of every CPU, and one control
 * block per CPU. Sized by user space before load. */
struct fsr_seg {
  __u8 d[FSR_SEG_SIZE];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1); /* CPUs x segments per lane */
  __type(key, __u32);
  __type(value, struct fsr_seg);
} lanes __weak SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1); /* CPUs */
  __type(key, __u32);
  __type(value, struct fsr_lane_ctl);
} lane_ctl __weak SEC(".maps");

static __always_inline struct fsr_counters* get_counters(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline struct scratch* get_scratch(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&scratch, &zero);
}

static __always_inline int is_tracked(__u32 tgid) { return bpf_map_lookup_elem(&tracked, &tgid) != 0; }

#endif
