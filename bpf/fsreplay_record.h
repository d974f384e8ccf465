/* The kernel/user boundary of the fsreplay recorder: the layout of one
 * ring-buffer record and the indices of the shared maps. Plain C, fixed-width
 * types only, explicit padding; the user side static_asserts every size. It
 * must never contain a pointer, bool or pid_t (the BPF object is 64-bit, user
 * space must not depend on the compiler agreeing on anything else). */
#ifndef FSREPLAY_BPF_RECORD_H
#define FSREPLAY_BPF_RECORD_H

#ifdef __bpf__
/* vmlinux.h provides __u8.. __u64 */
#else
#include <linux/types.h>
#endif

#define FSR_MAX_NR 512        /* syscall numbers indexed by the rodata tables */
#define FSR_PATH_MAX 4096     /* bytes per path string, NUL included */
#define FSR_CLASS_MAX 32      /* >= fsr::kClassCount, size of the counter array */

/* Per-nr rodata flag bits (sys_flags[nr]). */
#define FSR_SF_RECORD 0x01    /* record this syscall */
#define FSR_SF_RET_FD 0x02    /* non-negative return is a new fd: read its inode */
#define FSR_SF_STAT 0x04      /* struct stat buffer at sys_statbuf[nr] */
#define FSR_SF_STATX 0x08     /* struct statx buffer at sys_statbuf[nr] */
#define FSR_SF_EXEC 0x10      /* execve/execveat: path unreadable after success */
#define FSR_SF_IO_URING 0x20  /* counted in the io_uring counter */
#define FSR_SF_FD_INODE 0x40  /* read the inode of the fd operand (mmap) */
#define FSR_SF_FD_PAIR 0x80   /* int[2] of new fds at sys_statbuf[nr]: stored in that arg as fd0 | fd1 << 32 */
#define FSR_NO_ARG 0xff       /* "no such argument" in sys_path0/1, sys_statbuf, sys_fd */

/* Record kinds */
#define FSR_REC_SYSCALL 1
#define FSR_REC_FORK 2
#define FSR_REC_EXEC 3
#define FSR_REC_EXIT 4
#define FSR_REC_FAULT 5

/* Record flag bits (match fsr::EventFlag where named alike) */
#define FSR_RF_PATH_TRUNC 0x0002
#define FSR_RF_NO_INODE 0x0004
#define FSR_RF_UNFINISHED 0x0008 /* submitted at task exit: the call never returned */
#define FSR_RF_THREAD 0x0010
#define FSR_RF_SHARED_FILES 0x0020
#define FSR_RF_FD_IS_PIPE 0x0040
#define FSR_RF_SHARED_FS 0x0100   /* fork: child shares cwd (CLONE_FS) */
#define FSR_RF_HAS_INODE 0x0200   /* dev/ino/size/mode are valid */

/* Counter slots beyond the classes (index in the per-CPU counter array). */
#define FSR_CNT_STRING_DROPS 0
#define FSR_CNT_IO_URING 1
#define FSR_CNT_ENTER_MISS 2      /* sys_exit without task storage (entered before tracking) */
#define FSR_CNT_EXTRA 4

struct fsr_counters {
  __u64 seen[FSR_CLASS_MAX];
  __u64 drops[FSR_CLASS_MAX];
  __u64 extra[FSR_CNT_EXTRA];
};

/* One record as submitted to the ring: this fixed header, then only the
 * sections the event has (sections 1 and 2 start 8-byte aligned):
 *   1. one __u64 per bit set in arg_mask, in argument order (the arguments the
 *      decoder reads: pointer arguments and arguments past the call's arity
 *      are not sent);
 *   2. struct fsr_inode, when flags has FSR_RF_HAS_INODE;
 *   3. len0 bytes of path0 (NUL-terminated), then path1: the rest of the
 *      record (its length is the ring sample's size minus all of the above).
 * Every record is written into ring memory (cold: a cache line per 64
 * bytes), so nothing goes in that the decoder does not read. */
struct fsr_rec {
  __u64 ts;       /* enter time, CLOCK_MONOTONIC ns (event time for non-syscalls) */
  __u64 end;      /* exit time; records of one CPU are submitted in `end` order */
  __s64 ret;
  __u32 pid;      /* tgid */
  __u32 tid;
  __u16 nr;
  __u8 kind;      /* FSR_REC_* */
  __u8 arg_mask;  /* bit i: args[i] follows (section 1) */
  __u16 flags;    /* FSR_RF_* */
  __u16 len0;     /* bytes of path0 incl. NUL, 0 = none */
};

/* Section 2: inode facts of the event's file. */
struct fsr_inode {
  __u64 dev;      /* user-space st_dev encoding */
  __u64 ino;
  __u64 size;
  __u32 mode;
  __u32 pad0;
};

#define FSR_REC_SIZE 40
#define FSR_INODE_SIZE 32
#define FSR_ARGS_MAX 6

#endif
