// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Syscall records: built from the call saved at sys_enter (struct fsr_task)
 * when it returns (sys_exit), or when its task exits without returning
 * (sched_process_exit), and the start of the other record kinds. Strings are
 * read here, at exit, when the user pages they live in are resident. */
#ifndef FSREPLAY_RECORD_SYSCALL_BPF_H
#define FSREPLAY_RECORD_SYSCALL_BPF_H

#include "record_inode.bpf.h"
#include "record_lane.bpf.h"
#include "record_task.bpf.h"

static __always_inline __u32 read_path(char* dst, __u64 uptr, struct fsr_rec* r, struct fsr_counters* c) {
  long n;
  if (!uptr) return 0;
  n = bpf_probe_read_user_str(dst, FSR_PATH_MAX, (const void*)uptr);
  if (n <= 0) {
    if (c) c->extra[FSR_CNT_STRING_DROPS]++;
    return 0;
  }
  if (n >= FSR_PATH_MAX) r->flags |= FSR_RF_PATH_TRUNC;
  return n;
}

/* Section 1: packs the arguments of `mask` into sc->args and returns the
 * bytes used. Branch-free, so the verifier walks one path instead of 64:
 * every argument is stored, the cursor moves only past those in the mask
 * (a later one overwrites a skipped one). */
static __always_inline __u32 put_args(struct scratch* sc, const __u64* args, __u32 mask) {
  __u32 j = 0;
#pragma unroll
  for (int i = 0; i < FSR_ARGS_MAX; i++) {
    sc->args[j] = args[i];
    j += (mask >> i) & 1;
  }
  return j * 8;
}

/* The inode section's place: right after `args_bytes` of arguments. */
static __always_inline struct fsr_inode* inode_at(struct scratch* sc, __u32 args_bytes) {
  return (struct fsr_inode*)((char*)sc->args + args_bytes);
}

/* Builds the record of the syscall saved in `s` at `sc` (this CPU's lane, or
 * the scratch slot) but its `end`, and returns its length. */
static __always_inline __u32 build_syscall(struct scratch* sc, struct task_struct* task, struct fsr_task* s, long ret,
                                           __u16 extra_flags, struct fsr_counters* c) {
  struct fsr_rec* r = &sc->rec;
  struct fsr_inode* in;
  __u32 nr = s->nr & (FSR_MAX_NR - 1), off, n0 = 0, n1 = 0;
  __u8 f = sys_flags[nr], idx;
  /* Every header field is set here (no memset of the record). */
  r->ts = s->ts;
  r->ret = ret;
  r->pid = s->pid;
  r->tid = s->tid;
  r->nr = nr;
  r->kind = FSR_REC_SYSCALL;
  r->arg_mask = sys_args[nr];
  r->flags = extra_flags;
  r->len0 = 0;

  off = put_args(sc, s->args, r->arg_mask);
  in = inode_at(sc, off);

  if (!extra_flags) {
    if ((f & FSR_SF_RET_FD) && ret >= 0) {
      file_facts(r, in, fd_file(task, ret), 1);
    } else if ((f & (FSR_SF_STAT | FSR_SF_STATX)) && ret == 0) {
      idx = sys_statbuf[nr];
      if (idx < 6) read_stat(r, in, s->args[idx], f);
    }
    idx = sys_fd[nr];
    if (idx < 6 && !(r->flags & FSR_RF_HAS_INODE) &&
        file_facts(r, in, fd_file(task, (__s64)(__s32)s->args[idx]), (f & FSR_SF_FD_INODE) != 0) ==
            OVERLAYFS_SUPER_MAGIC_ &&
        (f & FSR_SF_FD_INODE) && ret > 0 && ret < 0x800000000000LL)
      mapped_file_facts(r, in, task, ret);
  }
  off += sizeof(*r);
  if (r->flags & FSR_RF_HAS_INODE) off += sizeof(*in);

  /* A successful exec replaced the address space: the path is in the
   * exec record instead. */
  if (!((f & FSR_SF_EXEC) && ret == 0) && !extra_flags) {
    idx = sys_path0[nr];
    if (idx < 6) {
      n0 = read_path((char*)sc + off, s->args[idx], r, c);
      r->len0 = n0;
    }
    idx = sys_path1[nr];
    if (idx < 6 && n0 <= FSR_PATH_MAX) n1 = read_path((char*)sc + off + n0, s->args[idx], r, c);
  }
  return off + n0 + n1;
}

/* Builds and submits the record of the syscall saved in `s`: in place, in
 * this CPU's lane, when a frame of the largest size fits there (saves a
 * copy of every record), else in the scratch slot, copied if it fits.
 * `late_flags` are added to the built record (they change nothing of what
 * it holds). */
static __always_inline void emit_syscall(struct task_struct* task, struct fsr_task* s, long ret, __u16 extra_flags,
                                         __u16 late_flags) {
  struct fsr_counters* c = get_counters();
  struct lane_pos lp;
  struct scratch* at;
  __u32 nr = s->nr & (FSR_MAX_NR - 1), len, cls = sys_class[nr] & (FSR_CLASS_MAX - 1);
  __u8 f = sys_flags[nr], idx;
  s->active = 0;

  if ((f & FSR_SF_IO_URING) && c) c->extra[FSR_CNT_IO_URING]++;

  if (!extra_flags && (f & FSR_SF_FD_PAIR) && ret == 0) {
    __u32 fds[2] = {};
    idx = sys_statbuf[nr];
    /* The pointer is never stored (ptr_mask); the slot carries the new fds.
     * `s` is done with (active = 0): its copy of the argument is the one sent. */
    if (idx < 6 && bpf_probe_read_user(fds, sizeof(fds), (const void*)s->args[idx]) == 0)
      s->args[idx] = fds[0] | ((__u64)fds[1] << 32);
  }

  if (lane_open(&lp, s->ts)) goto drop;
  at = lane_frame(&lp, FSR_FRAME_MAX);
  if (at) {
    len = build_syscall(at, task, s, ret, extra_flags, c);
    at->rec.flags |= late_flags;
    at->rec.end = bpf_ktime_get_ns();
    lane_publish(&lp, at, len);
    if (c) c->seen[cls]++;
    return;
  }
  lane_close(&lp);
  /* Less than the largest frame is free: build aside, copy if it fits. */
  at = get_scratch();
  if (!at) goto drop;
  len = build_syscall(at, task, s, ret, extra_flags, c);
  at->rec.flags |= late_flags;
  emit_c(c, at, len, cls);
  return;
drop:
  if (c) {
    c->seen[cls]++;
    c->drops[cls]++;
  }
}

/* Starts a non-syscall record (fork, exec, exit, fault) in the scratch slot,
 * at time `ts`. These carry the first `nargs` arguments
 * (sc->args[0..nargs)), set by the caller; the record's sections start at
 * FSR_REC_SIZE + 8 * nargs. */
static __always_inline struct fsr_rec* begin_rec_at(struct scratch* sc, __u32 kind, __u32 pid, __u32 tid, __u32 nargs,
                                                    __u64 ts) {
  struct fsr_rec* r = &sc->rec;
  __builtin_memset(r, 0, sizeof(*r));
  r->ts = ts;
  r->kind = kind;
  r->arg_mask = (1u << nargs) - 1;
  r->pid = pid;
  r->tid = tid;
  return r;
}

static __always_inline struct fsr_rec* begin_rec(struct scratch* sc, __u32 kind, __u32 pid, __u32 tid, __u32 nargs) {
  return begin_rec_at(sc, kind, pid, tid, nargs, bpf_ktime_get_ns());
}

/* The time of a fork or exec record: the enter time of the call it happens
 * in (`s`, the task's state), so that the record, a marker of no duration,
 * sits before that call instead of inside it (a thread's records never
 * overlap: the replay relies on it); now, when that call was not recorded.
 * Its `end` stays its submission time: lanes are in `end` order. */
static __always_inline __u64 marker_ts(const struct fsr_task* s) { return s && s->active ? s->ts : bpf_ktime_get_ns(); }

#endif
