// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* File facts for records: the file behind an fd of a task, the facts of an
 * inode (device, inode number, size, mode), and those a stat call wrote to
 * user memory. Reads only; a fact that cannot be read leaves the record
 * without FSR_RF_HAS_INODE, never with a guess. */
#ifndef FSREPLAY_RECORD_INODE_BPF_H
#define FSREPLAY_RECORD_INODE_BPF_H

#include "record_maps.bpf.h"

static __always_inline __u64 user_dev(__u32 kdev) {
  __u64 major = kdev >> 20, minor = kdev & 0xfffff;
  return ((major & 0xfff) << 8) | ((major & ~0xfffULL) << 32) | (minor & 0xff) | ((minor & ~0xffULL) << 12);
}

/* The file at `fd` of the current task. `task` is a trusted BTF pointer:
 * task->files->fdt->{max_fds,fd} are plain (fault-tolerant) loads, not one
 * bpf_probe_read_kernel call each. The slot itself (fdt->fd is not a pointer
 * to a struct) and the file's fields below still need probe reads: making
 * them BTF loads takes bpf_rdonly_cast (6.2), which would drop 6.1 kernels. */
static __always_inline struct file* fd_file(struct task_struct* task, __s64 fd) {
  struct fdtable* fdt;
  struct file* f = 0;
  if (fd < 0) return 0;
  fdt = task->files->fdt;
  if (!fdt || fd >= fdt->max_fds) return 0;
  bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[fd]);
  return f;
}

/* Inode facts (inode_facts) and those of the file `f` (file_facts: also
 * flags pipes, sockets and anon inodes such as eventfd). Three
 * bpf_probe_read_kernel calls instead of seven: f->f_inode, then the inode's
 * first bytes (i_mode, i_sb, i_ino, i_size) and the super block's (s_dev,
 * s_magic) in one read each, into the record's space right after `in` (its
 * paths are written there later; a record is built where the largest one
 * fits). The field offsets are CO-RE relocations, so the reads'
 * lengths are constants once loaded: a kernel whose layout puts a field past
 * FSR_FACTS_SPAN bytes takes the field-by-field reads instead, and the
 * verifier drops the path not taken. */
#define FSR_FACTS_SPAN 256

static __always_inline __u32 span_of(__u32 a, __u32 b) { return a > b ? a : b; }

/* Fills in->{dev, ino, size} from `ino` and returns 0 with its mode and its
 * super block's magic, or -1 if the inode could not be read. */
static __always_inline int inode_facts(struct fsr_inode* in, struct inode* ino, __u32* mode, __u64* magic) {
  __u8* tmp = (__u8*)(in + 1);
  const __u32 o_mode = bpf_core_field_offset(struct inode, i_mode);
  const __u32 o_sb = bpf_core_field_offset(struct inode, i_sb);
  const __u32 o_ino = bpf_core_field_offset(struct inode, i_ino);
  const __u32 o_size = bpf_core_field_offset(struct inode, i_size);
  const __u32 o_dev = bpf_core_field_offset(struct super_block, s_dev);
  const __u32 o_magic = bpf_core_field_offset(struct super_block, s_magic);
  const __u32 ispan = span_of(span_of(o_mode + 2, o_sb + 8), span_of(o_ino + 8, o_size + 8));
  const __u32 sspan = span_of(o_dev + 4, o_magic + 8);
  struct super_block* sb;
  if (ispan <= FSR_FACTS_SPAN && sspan <= FSR_FACTS_SPAN) {
    if (bpf_probe_read_kernel(tmp, ispan, ino)) return -1;
    *mode = *(__u16*)(tmp + o_mode);
    sb = *(struct super_block**)(tmp + o_sb);
    in->ino = *(__u64*)(tmp + o_ino);
    in->size = *(__u64*)(tmp + o_size);
    if (bpf_probe_read_kernel(tmp, sspan, sb)) return -1;
    *magic = *(__u64*)(tmp + o_magic);
    in->dev = user_dev(*(__u32*)(tmp + o_dev));
  } else {
    *mode = BPF_CORE_READ(ino, i_mode);
    sb = BPF_CORE_READ(ino, i_sb);
    *magic = BPF_CORE_READ(sb, s_magic);
    in->ino = BPF_CORE_READ(ino, i_ino);
    in->size = BPF_CORE_READ(ino, i_size);
    in->dev = user_dev(BPF_CORE_READ(sb, s_dev));
  }
  in->mode = *mode;
  in->pad0 = 0;
  return 0;
}

/* Returns the file's super block magic (0 if unread). */
static __always_inline __u64 file_facts(struct fsr_rec* r, struct fsr_inode* in, struct file* f, int facts) {
  struct inode* ino;
  __u32 mode = 0;
  __u64 magic = 0;
  if (!f) return 0;
  ino = BPF_CORE_READ(f, f_inode);
  if (!ino || inode_facts(in, ino, &mode, &magic)) return 0;
  if ((mode & S_IFMT_) == S_IFIFO_ || (mode & S_IFMT_) == S_IFSOCK_ || magic == ANON_INODE_MAGIC)
    r->flags |= FSR_RF_FD_IS_PIPE;
  if (facts) r->flags |= FSR_RF_HAS_INODE;
  return magic;
}

/* A mapping of a file on a stacking file system (overlayfs: containers)
 * maps the file beneath it, and the page faults that follow name that
 * file's inode, not the one the fd shows: the mapping's facts are the ones
 * the faults will be matched by. Needs bpf_find_vma (5.17; `mmap_real_inode`). */
#define OVERLAYFS_SUPER_MAGIC_ 0x794c7630

static long vma_file(struct task_struct* task, struct vm_area_struct* vma, void* data) {
  *(struct file**)data = vma->vm_file;
  return 0;
}

static __always_inline void mapped_file_facts(struct fsr_rec* r, struct fsr_inode* in, struct task_struct* task,
                                              __u64 addr) {
  struct file* f = 0;
  if (mmap_real_inode && bpf_find_vma(task, addr, vma_file, &f, 0) == 0 && f) file_facts(r, in, f, 1);
}

/* The facts a stat (FSR_SF_STAT: struct stat) or statx (struct statx) call
 * wrote at `uptr`. */
static __always_inline void read_stat(struct fsr_rec* r, struct fsr_inode* in, __u64 uptr, __u8 f) {
  if (!uptr) return;
  if (f & FSR_SF_STAT) {
    __u64 st[7];
    if (bpf_probe_read_user(st, sizeof(st), (const void*)uptr)) return;
    in->dev = st[0];
    in->ino = st[1];
    in->mode = (__u32)st[3];
    in->size = st[6];
  } else {
    /* struct statx up to stx_dev_minor: one user read instead of two. */
    __u64 st[18];
    __u32 maj, min;
    if (bpf_probe_read_user(st, sizeof(st), (const void*)uptr)) return;
    in->mode = (__u32)(st[3] >> 32) & 0xffff;
    in->ino = st[4];
    in->size = st[5];
    maj = (__u32)st[17];         /* stx_dev_major at 136 */
    min = (__u32)(st[17] >> 32); /* stx_dev_minor at 140 */
    in->dev =
        ((__u64)(maj & 0xfff) << 8) | ((__u64)(maj & ~0xfffU) << 32) | (min & 0xff) | ((__u64)(min & ~0xffU) << 12);
  }
  in->pad0 = 0;
  r->flags |= FSR_RF_HAS_INODE;
}

#endif
