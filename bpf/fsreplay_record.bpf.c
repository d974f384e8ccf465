// SPDX-License-Identifier: GPL-2.0
/* Kernel side of `fsreplay record`: captures the file-system syscalls and the
 * process/synchronisation events of one process tree. Untracked tasks leave
 * after one hash lookup. Pointer arguments are saved at sys_enter and strings
 * read at sys_exit (pages are resident then). Records go to a per-CPU lane
 * (a lock-free ring, fsreplay_record.h) without wake-up; user space drains on
 * a timer. Nothing here may block or
 * allocate: a record that does not fit is counted as a drop, never lost
 * silently. Which syscalls are recorded comes from fsr::syscall_table() through
 * the rodata arrays below: no syscall number is written in this file. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "fsreplay_record.h"

char LICENSE[] SEC("license") = "GPL";

/* Filled by user space from the syscall table before load. */
const volatile __u8 sys_flags[FSR_MAX_NR] = {};
const volatile __u8 sys_class[FSR_MAX_NR] = {};
const volatile __u8 sys_path0[FSR_MAX_NR] = {};
const volatile __u8 sys_path1[FSR_MAX_NR] = {};
const volatile __u8 sys_statbuf[FSR_MAX_NR] = {};
const volatile __u8 sys_fd[FSR_MAX_NR] = {};
/* Arguments the record carries (fsr_rec.arg_mask): the ones the decoder reads. */
const volatile __u8 sys_args[FSR_MAX_NR] = {};
/* Classes of the pseudo events (process, mmap). */
const volatile __u32 class_process = 0;
const volatile __u32 class_mmap = 0;
/* Knobs. */
const volatile __u32 record_faults = 1;

#define ANON_INODE_MAGIC 0x09041934
#define S_IFMT_ 00170000
#define S_IFIFO_ 0010000
#define S_IFSOCK_ 0140000

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u32);  /* address-space generation: new at fork and exec */
} tracked SEC(".maps");

/* Set by user space when some tracked task may lack task storage (--pid:
 * threads that existed before the recording; or pidfd seeding failed). Then
 * sys_enter falls back to the tracked hash for tasks without storage. */
__u32 lazy_track = 0;

/* Generations handed out by the kernel side; user space seeds with values
 * that have bit 31 set, so the two never collide. */
__u32 next_gen = 0;

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
} faulted SEC(".maps");

static __always_inline __u32 new_gen(void)
{
  return __sync_fetch_and_add(&next_gen, 1) & 0x7fffffff;
}

struct inflight {
  __u64 ts;
  __u64 args[6];
  __u32 nr;
  __u32 active;
  /* The user page fault in progress (page_fault_user), consumed by the page
   * cache's fault tracepoints of the same task when the fault reads a file. */
  __u64 fault_addr;
  __u32 fault_err;
  __u32 fault_armed;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct inflight);
} inflight SEC(".maps");

/* A record in its lane layout. Syscall records are built in the lane itself
 * when a frame of the largest size fits there; the others (fork, exec, exit,
 * fault), and syscall records meeting a nearly full lane, are assembled here
 * and copied into the lane with one bpf_probe_read_kernel of their length. */
struct scratch {
  struct fsr_rec rec;
  __u64 args[FSR_ARGS_MAX];  /* section 1, packed (the first popcount(arg_mask)) */
  /* the inode facts and strings: at an offset that depends on the sections before */
  char tail[FSR_INODE_SIZE + 2 * FSR_PATH_MAX];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fsr_counters);
} counters SEC(".maps");

/* The lanes (fsreplay_record.h): segments of every CPU, and one control
 * block per CPU. Sized by user space before load. */
struct fsr_seg {
  __u8 d[FSR_SEG_SIZE];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1);  /* CPUs x segments per lane */
  __type(key, __u32);
  __type(value, struct fsr_seg);
} lanes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1);  /* CPUs */
  __type(key, __u32);
  __type(value, struct fsr_lane_ctl);
} lane_ctl SEC(".maps");

/* Segments per lane minus one (a power of two minus one). */
const volatile __u32 lane_seg_mask = 0;
/* The early rewind (fsreplay_record.h): its window in bytes (0: only empty
 * lanes rewind) and the least time a lap must have taken. */
const volatile __u64 lane_window = 0;
const volatile __u64 lane_min_cycle_ns = 0;

static __always_inline struct fsr_counters *get_counters(void)
{
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counters, &zero);
}

_Static_assert(sizeof(struct scratch) == FSR_REC_MAX, "scratch must hold exactly the largest record");

/* A lane write in progress on this CPU (fsreplay_record.h): lane_open marks
 * the lane busy and finds where the next frame starts; lane_publish or
 * lane_close ends it. */
struct lane_pos {
  struct fsr_lane_ctl *ctl;
  __u64 head;  /* where the frame starts */
  __u64 tail;  /* free space counts from here (fsr_space_from) */
  __u32 cpu;
  __u32 rewind;   /* the frame starts a rewind: recorded when it is published */
  __u32 new_lap;  /* ... a lap (a rewind or a wrap): its time, lap_ns, too */
  __u64 now;
};

/* Bytes of one lane. */
static __always_inline __u64 lane_capacity(void)
{
  return ((__u64)lane_seg_mask + 1) << FSR_SEG_SHIFT;
}

/* 0 with the lane marked busy, or -1: no lane, or one being written (a
 * nested program; counted, never expected). `now`: the record's timestamp
 * (no clock read of its own). */
static __always_inline int lane_open(struct lane_pos *lp, __u64 now)
{
  __u64 cap = lane_capacity();
  struct fsr_lane_early early = {lane_window, lane_min_cycle_ns, now, 0};
  struct fsr_lane_plan plan;
  struct fsr_lane_ctl *ctl;
  lp->cpu = bpf_get_smp_processor_id();
  ctl = bpf_map_lookup_elem(&lane_ctl, &lp->cpu);
  if (!ctl)
    return -1;
  if (ctl->busy) {
    ctl->nested++;
    return -1;
  }
  ctl->busy = 1;
  lp->ctl = ctl;
  /* Empty, or kept up with, away from the lane's first byte: the frame goes
   * at its first byte (fsreplay_record.h); lane_publish records the rewind
   * with the frame, a refused frame leaves the lane as it was. */
  early.lap_ns = ctl->lap_ns;
  plan = fsr_plan_frame(ctl->head, *(volatile __u64 *)&ctl->tail, ctl->floor, ctl->rewind_from, cap, early);
  lp->head = plan.start;
  lp->tail = plan.space_from;
  lp->rewind = plan.rewind;
  lp->new_lap = plan.new_lap;
  lp->now = now;
  return 0;
}

/* The record's place in the frame at lp->head, if a frame of `frame` bytes
 * fits in the free space; else NULL. The control dependency on the tail
 * orders the reader's last reads of this space before the caller's writes
 * (fsreplay_record.h). */
static __always_inline struct scratch *lane_frame(struct lane_pos *lp, __u64 frame)
{
  __u64 off;
  __u32 seg;
  __u8 *buf;
  if (lp->head + frame - lp->tail > lane_capacity())
    return 0;
  seg = lp->cpu * (lane_seg_mask + 1) + ((lp->head >> FSR_SEG_SHIFT) & lane_seg_mask);
  buf = bpf_map_lookup_elem(&lanes, &seg);
  off = lp->head & (FSR_SEG_SIZE - 1) & ~7ULL;
  /* (fsr_frame_at made off <= FSR_SEG_SIZE - FSR_FRAME_MAX: told to the verifier) */
  if (!buf || off > FSR_SEG_SIZE - FSR_FRAME_MAX)
    return 0;
  return (struct scratch *)(buf + off + FSR_FRAME_HDR);
}

/* Ends the frame whose record (`len` bytes) is at `at`: its length word, the
 * rewind or lap it starts if any, then head, published with an atomic
 * exchange (a full barrier). */
static __always_inline void lane_publish(struct lane_pos *lp, struct scratch *at, __u64 len)
{
  *(__u64 *)((__u8 *)at - FSR_FRAME_HDR) = len;
  if (lp->rewind) {
    lp->ctl->rewind_from = lp->ctl->head;
    lp->ctl->floor = lp->head;
    if (lp->rewind == 2)
      lp->ctl->early_rewinds++;
  }
  if (lp->new_lap)
    lp->ctl->lap_ns = lp->now;
  lp->ctl->busy = 0;
  __sync_lock_test_and_set(&lp->ctl->head, lp->head + fsr_frame_size(len));
}

static __always_inline void lane_close(struct lane_pos *lp)
{
  lp->ctl->busy = 0;
}

/* Appends the record in `sc` (`len` bytes), built elsewhere, to this CPU's
 * lane: a copy. Syscall records, the bulk, are built in the lane instead
 * (emit_syscall). */
static __always_inline void emit_c(struct fsr_counters *c, struct scratch *sc, __u64 len, __u32 cls)
{
  struct lane_pos lp;
  struct scratch *at;
  cls &= FSR_CLASS_MAX - 1;
  if (c)
    c->seen[cls]++;
  if (len > sizeof(*sc))
    len = sizeof(*sc);
  if (lane_open(&lp, sc->rec.ts))
    goto drop;
  at = lane_frame(&lp, fsr_frame_size(len));
  if (!at) {
    lane_close(&lp);
    goto drop;
  }
  sc->rec.end = bpf_ktime_get_ns();
  bpf_probe_read_kernel(at, len, sc);
  lane_publish(&lp, at, len);
  return;
drop:
  if (c)
    c->drops[cls]++;
}

static __always_inline void emit(struct scratch *sc, __u64 len, __u32 cls)
{
  emit_c(get_counters(), sc, len, cls);
}

static __always_inline int is_tracked(__u32 tgid)
{
  return bpf_map_lookup_elem(&tracked, &tgid) != 0;
}

static __always_inline __u64 user_dev(__u32 kdev)
{
  __u64 major = kdev >> 20, minor = kdev & 0xfffff;
  return ((major & 0xfff) << 8) | ((major & ~0xfffULL) << 32) | (minor & 0xff) |
         ((minor & ~0xffULL) << 12);
}

/* The file at `fd` of the current task. `task` is a trusted BTF pointer:
 * task->files->fdt->{max_fds,fd} are plain (fault-tolerant) loads, not one
 * bpf_probe_read_kernel call each. The slot itself (fdt->fd is not a pointer
 * to a struct) and the file's fields below still need probe reads: making
 * them BTF loads takes bpf_rdonly_cast (6.2), which would drop 6.1 kernels. */
static __always_inline struct file *fd_file(struct task_struct *task, __s64 fd)
{
  struct fdtable *fdt;
  struct file *f = 0;
  if (fd < 0)
    return 0;
  fdt = task->files->fdt;
  if (!fdt || fd >= fdt->max_fds)
    return 0;
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

static __always_inline __u32 span_of(__u32 a, __u32 b)
{
  return a > b ? a : b;
}

/* Fills in->{dev, ino, size} from `ino` and returns 0 with its mode and its
 * super block's magic, or -1 if the inode could not be read. */
static __always_inline int inode_facts(struct fsr_inode *in, struct inode *ino, __u32 *mode, __u64 *magic)
{
  __u8 *tmp = (__u8 *)(in + 1);
  const __u32 o_mode = bpf_core_field_offset(struct inode, i_mode);
  const __u32 o_sb = bpf_core_field_offset(struct inode, i_sb);
  const __u32 o_ino = bpf_core_field_offset(struct inode, i_ino);
  const __u32 o_size = bpf_core_field_offset(struct inode, i_size);
  const __u32 o_dev = bpf_core_field_offset(struct super_block, s_dev);
  const __u32 o_magic = bpf_core_field_offset(struct super_block, s_magic);
  const __u32 ispan = span_of(span_of(o_mode + 2, o_sb + 8), span_of(o_ino + 8, o_size + 8));
  const __u32 sspan = span_of(o_dev + 4, o_magic + 8);
  struct super_block *sb;
  if (ispan <= FSR_FACTS_SPAN && sspan <= FSR_FACTS_SPAN) {
    if (bpf_probe_read_kernel(tmp, ispan, ino))
      return -1;
    *mode = *(__u16 *)(tmp + o_mode);
    sb = *(struct super_block **)(tmp + o_sb);
    in->ino = *(__u64 *)(tmp + o_ino);
    in->size = *(__u64 *)(tmp + o_size);
    if (bpf_probe_read_kernel(tmp, sspan, sb))
      return -1;
    *magic = *(__u64 *)(tmp + o_magic);
    in->dev = user_dev(*(__u32 *)(tmp + o_dev));
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

static __always_inline void file_facts(struct fsr_rec *r, struct fsr_inode *in, struct file *f,
                                       int facts)
{
  struct inode *ino;
  __u32 mode = 0;
  __u64 magic = 0;
  if (!f)
    return;
  ino = BPF_CORE_READ(f, f_inode);
  if (!ino || inode_facts(in, ino, &mode, &magic))
    return;
  if ((mode & S_IFMT_) == S_IFIFO_ || (mode & S_IFMT_) == S_IFSOCK_ || magic == ANON_INODE_MAGIC)
    r->flags |= FSR_RF_FD_IS_PIPE;
  if (facts)
    r->flags |= FSR_RF_HAS_INODE;
}

static __always_inline struct scratch *get_scratch(void)
{
  __u32 zero = 0;
  return bpf_map_lookup_elem(&scratch, &zero);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
  __u32 tgid;
  struct inflight *s;
  __u8 f;
  /* Cheapest test first: a rodata byte, no map. Most syscalls system-wide
   * (futex, epoll, clock_*, ...) of untracked tasks leave here. */
  if (id < 0 || id >= FSR_MAX_NR)
    return 0;
  f = sys_flags[id];
  if (!(f & FSR_SF_RECORD))
    return 0;
  /* Tracked tasks carry task storage from birth (on_fork; user space seeds
   * the first one through a pidfd): for every other task this is a pointer
   * test, cheaper than a hash lookup. */
  s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
  if (!s) {
    if (!lazy_track)
      return 0;
    tgid = bpf_get_current_pid_tgid() >> 32;
    if (!is_tracked(tgid))
      return 0;
    s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
                             BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!s) {
      struct fsr_counters *c = get_counters();
      if (c)
        c->drops[sys_class[id] & (FSR_CLASS_MAX - 1)]++;
      return 0;
    }
  }
  s->nr = id;
  s->fault_armed = 0;  /* a user fault noted earlier has been handled */
  s->args[0] = regs->di;
  s->args[1] = regs->si;
  s->args[2] = regs->dx;
  s->args[3] = regs->r10;
  s->args[4] = regs->r8;
  s->args[5] = regs->r9;
  s->active = 1;
  s->ts = bpf_ktime_get_ns();
  return 0;
}

static __always_inline __u32 read_path(char *dst, __u64 uptr, struct fsr_rec *r,
                                       struct fsr_counters *c)
{
  long n;
  if (!uptr)
    return 0;
  n = bpf_probe_read_user_str(dst, FSR_PATH_MAX, (const void *)uptr);
  if (n <= 0) {
    if (c)
      c->extra[FSR_CNT_STRING_DROPS]++;
    return 0;
  }
  if (n >= FSR_PATH_MAX)
    r->flags |= FSR_RF_PATH_TRUNC;
  return n;
}

static __always_inline void read_stat(struct fsr_rec *r, struct fsr_inode *in, __u64 uptr, __u8 f)
{
  if (!uptr)
    return;
  if (f & FSR_SF_STAT) {
    __u64 st[7];
    if (bpf_probe_read_user(st, sizeof(st), (const void *)uptr))
      return;
    in->dev = st[0];
    in->ino = st[1];
    in->mode = (__u32)st[3];
    in->size = st[6];
  } else {
    /* struct statx up to stx_dev_minor: one user read instead of two. */
    __u64 st[18];
    __u32 maj, min;
    if (bpf_probe_read_user(st, sizeof(st), (const void *)uptr))
      return;
    in->mode = (__u32)(st[3] >> 32) & 0xffff;
    in->ino = st[4];
    in->size = st[5];
    maj = (__u32)st[17];          /* stx_dev_major at 136 */
    min = (__u32)(st[17] >> 32);  /* stx_dev_minor at 140 */
    in->dev = ((__u64)(maj & 0xfff) << 8) | ((__u64)(maj & ~0xfffU) << 32) |
             (min & 0xff) | ((__u64)(min & ~0xffU) << 12);
  }
  in->pad0 = 0;
  r->flags |= FSR_RF_HAS_INODE;
}

/* Section 1: packs the arguments of `mask` into sc->args and returns the
 * bytes used. Branch-free, so the verifier walks one path instead of 64:
 * every argument is stored, the cursor moves only past those in the mask
 * (a later one overwrites a skipped one). */
static __always_inline __u32 put_args(struct scratch *sc, const __u64 *args, __u32 mask)
{
  __u32 j = 0;
#pragma unroll
  for (int i = 0; i < FSR_ARGS_MAX; i++) {
    sc->args[j] = args[i];
    j += (mask >> i) & 1;
  }
  return j * 8;
}

/* The inode section's place: right after `args_bytes` of arguments. */
static __always_inline struct fsr_inode *inode_at(struct scratch *sc, __u32 args_bytes)
{
  return (struct fsr_inode *)((char *)sc->args + args_bytes);
}

/* Builds the record of the syscall saved in `s` at `sc` (this CPU's lane, or
 * the scratch slot) but its `end`, and returns its length. */
static __always_inline __u32 build_syscall(struct scratch *sc, struct task_struct *task,
                                           struct inflight *s, long ret, __u16 extra_flags,
                                           struct fsr_counters *c)
{
  struct fsr_rec *r = &sc->rec;
  struct fsr_inode *in;
  __u32 nr = s->nr & (FSR_MAX_NR - 1), off, n0 = 0, n1 = 0;
  __u8 f = sys_flags[nr], idx;
  /* Every header field is set here (no memset of the record). */
  r->ts = s->ts;
  r->ret = ret;
  r->pid = task->tgid;
  r->tid = task->pid;
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
      if (idx < 6)
        read_stat(r, in, s->args[idx], f);
    }
    idx = sys_fd[nr];
    if (idx < 6 && !(r->flags & FSR_RF_HAS_INODE))
      file_facts(r, in, fd_file(task, (__s64)(__s32)s->args[idx]), (f & FSR_SF_FD_INODE) != 0);
  }
  off += sizeof(*r);
  if (r->flags & FSR_RF_HAS_INODE)
    off += sizeof(*in);

  /* A successful exec replaced the address space: the path is in the
   * exec record instead. */
  if (!((f & FSR_SF_EXEC) && ret == 0) && !extra_flags) {
    idx = sys_path0[nr];
    if (idx < 6) {
      n0 = read_path((char *)sc + off, s->args[idx], r, c);
      r->len0 = n0;
    }
    idx = sys_path1[nr];
    if (idx < 6 && n0 <= FSR_PATH_MAX)
      n1 = read_path((char *)sc + off + n0, s->args[idx], r, c);
  }
  return off + n0 + n1;
}

/* Builds and submits the record of the syscall saved in `s`: in place, in
 * this CPU's lane, when a frame of the largest size fits there (saves a copy
 * of every record: ~45 ns each here), else in the scratch slot, copied if it
 * fits. */
static __always_inline void emit_syscall(struct task_struct *task, struct inflight *s, long ret,
                                         __u16 extra_flags)
{
  struct fsr_counters *c = get_counters();
  struct lane_pos lp;
  struct scratch *at;
  __u32 nr = s->nr & (FSR_MAX_NR - 1), len, cls = sys_class[nr] & (FSR_CLASS_MAX - 1);
  __u8 f = sys_flags[nr], idx;
  s->active = 0;

  if ((f & FSR_SF_IO_URING) && c)
    c->extra[FSR_CNT_IO_URING]++;

  if (!extra_flags && (f & FSR_SF_FD_PAIR) && ret == 0) {
    __u32 fds[2] = {};
    idx = sys_statbuf[nr];
    /* The pointer is never stored (ptr_mask); the slot carries the new fds.
     * `s` is done with (active = 0): its copy of the argument is the one sent. */
    if (idx < 6 && bpf_probe_read_user(fds, sizeof(fds), (const void *)s->args[idx]) == 0)
      s->args[idx] = fds[0] | ((__u64)fds[1] << 32);
  }

  if (lane_open(&lp, s->ts))
    goto drop;
  at = lane_frame(&lp, FSR_FRAME_MAX);
  if (at) {
    len = build_syscall(at, task, s, ret, extra_flags, c);
    at->rec.end = bpf_ktime_get_ns();
    lane_publish(&lp, at, len);
    if (c)
      c->seen[cls]++;
    return;
  }
  lane_close(&lp);
  /* Less than the largest frame is free: build aside, copy if it fits. */
  at = get_scratch();
  if (!at)
    goto drop;
  emit_c(c, at, build_syscall(at, task, s, ret, extra_flags, c), cls);
  return;
drop:
  if (c) {
    c->seen[cls]++;
    c->drops[cls]++;
  }
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
  struct task_struct *task;
  struct inflight *s;
  __u64 nr = regs->orig_ax;
  /* Only tasks that entered a recorded syscall while tracked have storage:
   * the task-storage lookup (a pointer test for every other task) replaces
   * the tracked-hash lookup. The rodata test first skips unrecorded calls
   * without touching any map. */
  if (nr >= FSR_MAX_NR || !(sys_flags[nr] & FSR_SF_RECORD))
    return 0;
  task = bpf_get_current_task_btf();
  s = bpf_task_storage_get(&inflight, task, 0, 0);
  if (!s || !s->active)
    return 0;
  emit_syscall(task, s, ret, 0);
  return 0;
}

/* Starts a non-syscall record (fork, exec, exit, fault) in the scratch slot.
 * These carry the first `nargs` arguments (sc->args[0..nargs)), set by the
 * caller; the record's sections start at FSR_REC_SIZE + 8 * nargs. */
static __always_inline struct fsr_rec *begin_rec(struct scratch *sc, __u32 kind, __u32 pid, __u32 tid,
                                                 __u32 nargs)
{
  struct fsr_rec *r = &sc->rec;
  __builtin_memset(r, 0, sizeof(*r));
  r->ts = bpf_ktime_get_ns();
  r->kind = kind;
  r->arg_mask = (1u << nargs) - 1;
  r->pid = pid;
  r->tid = tid;
  return r;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
  __u32 ptgid = parent->tgid, ctgid = child->tgid;
  struct scratch *sc;
  struct fsr_rec *r;
  __u32 gen;
  if (!is_tracked(ptgid))
    return 0;
  gen = new_gen();
  /* A new thread shares the address space: keep the process's generation. */
  if ((ctgid != ptgid && bpf_map_update_elem(&tracked, &ctgid, &gen, BPF_ANY) != 0) ||
      !bpf_task_storage_get(&inflight, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE)) {
    struct fsr_counters *c = get_counters();
    if (c)
      c->drops[class_process & (FSR_CLASS_MAX - 1)]++;
  }
  sc = get_scratch();
  if (!sc)
    return 0;
  r = begin_rec(sc, FSR_REC_FORK, ptgid, parent->pid, 2);
  sc->args[0] = child->pid;
  sc->args[1] = ctgid;
  if (ctgid == ptgid)
    r->flags |= FSR_RF_THREAD;
  if (child->files == parent->files)
    r->flags |= FSR_RF_SHARED_FILES;
  if (child->fs == parent->fs)
    r->flags |= FSR_RF_SHARED_FS;
  emit(sc, sizeof(*r) + 2 * 8, class_process);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
  __u32 tgid = p->tgid;
  struct scratch *sc;
  struct fsr_rec *r;
  const char *fname;
  __u64 start, end, len;
  long n;
  __u32 n0 = 0;
  char *str;
  __u32 *gen = bpf_map_lookup_elem(&tracked, &tgid);
  if (!gen)
    return 0;
  *gen = new_gen();  /* a new address space: its pages are touched anew */
  sc = get_scratch();
  if (!sc)
    return 0;
  r = begin_rec(sc, FSR_REC_EXEC, tgid, p->pid, 1);
  sc->args[0] = old_pid;
  str = (char *)&sc->args[1];
  fname = BPF_CORE_READ(bprm, filename);
  n = bpf_probe_read_kernel_str(str, FSR_PATH_MAX, fname);
  if (n > 0) {
    n0 = n;
    r->len0 = n;
  }
  start = BPF_CORE_READ(p, mm, arg_start);
  end = BPF_CORE_READ(p, mm, arg_end);
  len = end > start ? end - start : 0;
  if (len > FSR_PATH_MAX) {
    len = FSR_PATH_MAX;
    r->flags |= FSR_RF_PATH_TRUNC;
  }
  if (!(n0 <= FSR_PATH_MAX && len > 0 &&
        bpf_probe_read_user(str + n0, len, (const void *)start) == 0))
    len = 0;
  emit(sc, sizeof(*r) + 8 + n0 + len, class_process);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
  __u32 tgid = p->tgid;
  struct scratch *sc;
  struct fsr_rec *r;
  int live;
  struct task_struct *task = bpf_get_current_task_btf();
  struct inflight *s;
  if (!is_tracked(tgid))
    return 0;
  /* exit/exit_group (or a call interrupted by a fatal signal) never returns:
   * submit it now, marked unfinished. */
  s = bpf_task_storage_get(&inflight, task, 0, 0);
  if (s && s->active)
    emit_syscall(task, s, 0, FSR_RF_UNFINISHED);
  live = BPF_CORE_READ(p, signal, live.counter);
  sc = get_scratch();
  if (sc) {
    r = begin_rec(sc, FSR_REC_EXIT, tgid, p->pid, 2);
    r->ret = p->exit_code;
    sc->args[0] = p->exit_code;
    sc->args[1] = live == 0;
    emit(sc, sizeof(*r) + 2 * 8, class_process);
  }
  if (live == 0)
    bpf_map_delete_elem(&tracked, &tgid);
  return 0;
}

/* Page faults on file mappings. Where the kernel has the page cache's fault
 * tracepoints (mm_filemap_fault, mm_filemap_map_pages: 6.11 on), the user
 * fault handler only notes the faulting address in the task's storage (a
 * pointer test for untracked tasks, two stores for tracked ones) and the
 * record is made only if the fault then reads a file: anonymous faults, the
 * bulk of a process's faults, cost nothing more. Older kernels use
 * on_fault_vma: a VMA lookup on every fault of a tracked task. */
SEC("tp_btf/page_fault_user")
int BPF_PROG(on_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
  struct inflight *s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
  if (!s)
    return 0;
  s->fault_addr = address;
  s->fault_err = error_code;
  s->fault_armed = 1;
  return 0;
}

static __always_inline void emit_file_fault(struct address_space *mapping, __u64 pgoff)
{
  struct task_struct *task = bpf_get_current_task_btf();
  struct inflight *s = bpf_task_storage_get(&inflight, task, 0, 0);
  struct scratch *sc;
  struct fsr_rec *r;
  struct fsr_inode *in;
  struct inode *ino;
  __u64 pid_tgid, magic = 0;
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
  pid_tgid = bpf_get_current_pid_tgid();
  r = begin_rec(sc, FSR_REC_FAULT, pid_tgid >> 32, (__u32)pid_tgid, 3);
  sc->args[0] = pgoff << 12;
  sc->args[1] = s->fault_addr;
  sc->args[2] = s->fault_err;
  in = inode_at(sc, 3 * 8);
  if (inode_facts(in, ino, &mode, &magic) == 0)
    r->flags |= FSR_RF_HAS_INODE;
  emit(sc, sizeof(*r) + 3 * 8 + ((r->flags & FSR_RF_HAS_INODE) ? sizeof(*in) : 0), class_mmap);
}

/* The page is not mapped yet and fault-around did not map it. */
SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(on_filemap_fault, struct address_space *mapping, unsigned long index)
{
  emit_file_fault(mapping, index);
  return 0;
}

/* Fault-around mapped cached pages [start, last] including the faulting one;
 * the window's first page stands for it (touching it again in replay maps
 * the same window). */
SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(on_filemap_map_pages, struct address_space *mapping, unsigned long start, unsigned long last)
{
  emit_file_fault(mapping, start);
  return 0;
}

struct fault_ctx {
  __u64 addr;
  __u64 off;
  struct file *file;
};

static long fault_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
  struct fault_ctx *c = data;
  struct file *f = vma->vm_file;
  if (!f)
    return 0;
  c->file = f;
  c->off = (vma->vm_pgoff << 12) + ((c->addr - vma->vm_start) & ~0xfffULL);
  return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(on_fault_vma, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  struct fault_ctx c = {.addr = address};
  struct fault_key k = {};
  struct file *fp;
  struct inode *ino;
  struct scratch *sc;
  struct fsr_rec *r;
  __u32 *gen;
  __u8 one = 1;
  if (!record_faults)
    return 0;
  gen = bpf_map_lookup_elem(&tracked, &tgid);
  if (!gen)
    return 0;
  if (bpf_find_vma(bpf_get_current_task_btf(), address, fault_vma, &c, 0) != 0 || !c.file)
    return 0;
  fp = c.file;
  ino = BPF_CORE_READ(fp, f_inode);
  if (!ino)
    return 0;
  k.gen = *gen;
  k.dev = BPF_CORE_READ(ino, i_sb, s_dev);
  k.ino = BPF_CORE_READ(ino, i_ino);
  k.pgoff = c.off >> 12;
  if (bpf_map_update_elem(&faulted, &k, &one, BPF_NOEXIST) == -17 /* EEXIST */)
    return 0;  /* already reported for this address space */
  sc = get_scratch();
  if (!sc)
    return 0;
  r = begin_rec(sc, FSR_REC_FAULT, tgid, (__u32)pid_tgid, 3);
  sc->args[0] = c.off;
  sc->args[1] = address;
  sc->args[2] = error_code;
  file_facts(r, inode_at(sc, 3 * 8), fp, 1);
  emit(sc, sizeof(*r) + 3 * 8 + ((r->flags & FSR_RF_HAS_INODE) ? FSR_INODE_SIZE : 0), class_mmap);
  return 0;
}
