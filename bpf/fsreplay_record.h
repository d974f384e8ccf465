// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The kernel/user boundary of the fsreplay recorder: the layout of one
 * record, of the per-CPU lanes that carry them, and the indices of the shared
 * maps. Plain C, fixed-width
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

#define FSR_MAX_NR 512    /* syscall numbers indexed by the rodata tables */
#define FSR_PATH_MAX 4096 /* bytes per path string, NUL included */
#define FSR_CLASS_MAX 32  /* >= fsr::kClassCount, size of the counter array */

/* Per-nr rodata flag bits (sys_flags[nr]). */
#define FSR_SF_RECORD 0x01   /* record this syscall */
#define FSR_SF_RET_FD 0x02   /* non-negative return is a new fd: read its inode */
#define FSR_SF_STAT 0x04     /* struct stat buffer at sys_statbuf[nr] */
#define FSR_SF_STATX 0x08    /* struct statx buffer at sys_statbuf[nr] */
#define FSR_SF_EXEC 0x10     /* execve/execveat: path unreadable after success */
#define FSR_SF_IO_URING 0x20 /* counted in the io_uring counter */
#define FSR_SF_FD_INODE 0x40 /* read the inode of the fd operand (mmap) */
#define FSR_SF_FD_PAIR 0x80  /* int[2] of new fds at sys_statbuf[nr]: stored in that arg as fd0 | fd1 << 32 */
#define FSR_NO_ARG 0xff      /* "no such argument" in sys_path0/1, sys_statbuf, sys_fd */

/* Record kinds */
#define FSR_REC_SYSCALL 1
#define FSR_REC_FORK 2
#define FSR_REC_EXEC 3
#define FSR_REC_EXIT 4
#define FSR_REC_FAULT 5
#define FSR_REC_RELEASE 6 /* a call's deferred file release (record_release.bpf.h): args[0] its ns */

/* Record flag bits (match fsr::EventFlag where named alike) */
#define FSR_RF_PATH_TRUNC 0x0002
#define FSR_RF_NO_INODE 0x0004
#define FSR_RF_UNFINISHED 0x0008 /* submitted at task exit: the call never returned */
#define FSR_RF_THREAD 0x0010
#define FSR_RF_SHARED_FILES 0x0020
#define FSR_RF_FD_IS_PIPE 0x0040
#define FSR_RF_SHARED_FS 0x0100 /* fork: child shares cwd (CLONE_FS) */
#define FSR_RF_HAS_INODE 0x0200 /* dev/ino/size/mode are valid */
#define FSR_RF_RELEASE_PENDING \
  0x0400 /* the call left task work (a file's last release) to its return: a release record may follow */

/* Counter slots beyond the classes (index in the per-CPU counter array). */
#define FSR_CNT_STRING_DROPS 0
#define FSR_CNT_IO_URING 1
#define FSR_CNT_ENTER_MISS 2    /* sys_exit without task storage (entered before tracking) */
#define FSR_CNT_FOREIGN 3       /* children of tracked tasks outside the recording's PID namespace: not followed */
#define FSR_CNT_STOLEN_NS 4     /* ns the recorder's threads ran in place of a runnable tracked task (on_switch) */
#define FSR_CNT_FAULTS 5        /* user page faults of tracked tasks that exited, recorded or not */
#define FSR_CNT_FAULT_SKIPS 6   /* of those, file faults fault_skip left out (record_fault.bpf.h) */
#define FSR_CNT_RELEASES 7      /* deferred releases that blocked, timed and recorded (record_release.bpf.h) */
#define FSR_CNT_RELEASE_DROPS 8 /* ... whose record found no room */
#define FSR_CNT_EXTRA 9

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
  __u64 ts;  /* enter time, CLOCK_MONOTONIC ns (event time for non-syscalls) */
  __u64 end; /* exit time; records of one CPU are submitted in `end` order */
  __s64 ret;
  __u32 pid; /* tgid */
  __u32 tid;
  __u16 nr;
  __u8 kind;     /* FSR_REC_* */
  __u8 arg_mask; /* bit i: args[i] follows (section 1) */
  __u16 flags;   /* FSR_RF_* */
  __u16 len0;    /* bytes of path0 incl. NUL, 0 = none */
};

/* Section 2: inode facts of the event's file. */
struct fsr_inode {
  __u64 dev; /* user-space st_dev encoding */
  __u64 ino;
  __u64 size;
  __u32 mode;
  __u32 pad0;
};

/* Per-task state of a tracked task (task storage, or the task hash on
 * kernels without it): the recorded call in progress, the user page fault
 * in progress, and the task's ids in the recording's PID namespace (the
 * records' pid and tid). User space writes one when it seeds a task through
 * a pidfd: zeros but pid and tid. */
struct fsr_task {
  __u64 ts; /* enter time of the call in progress */
  __u64 args[6];
  __u32 nr;
  __u32 active;     /* a call is in progress */
  __u64 fault_addr; /* page_fault_user, for the page cache's fault tracepoints */
  __u32 fault_err;
  __u32 fault_armed;
  __u32 pid; /* tgid in the recording's PID namespace */
  __u32 tid;
  /* The task's user page faults, and the file faults of them fault_skip
   * left out: added to the counters at its exit (FSR_CNT_FAULTS), for the
   * replay clock (the programs' time lies in the recorded gaps). */
  __u32 faults;
  __u32 fault_skips;
  /* A deferred release in progress (record_release.bpf.h): the exit time of
   * the call that left it (0: none), the time the task came back on a CPU
   * after blocking in it, and whether it is blocked now. */
  __u64 rel_from;
  __u64 rel_end;
  __u32 rel_blocked;
  __u32 rel_pad;
};

/* Fork records: args[0] the child's tid, args[1] its tgid; when the parent
 * or the child is in a PID namespace below the recording's (a workload that
 * unshares one), also args[2] the child's pid as its parent sees it, args[3]
 * the inode number of the parent's PID namespace, args[4] the child's pid in
 * its own namespace and args[5] that namespace's inode number. */
#define FSR_FORK_NS_ARGS 6

#define FSR_REC_SIZE 40
#define FSR_INODE_SIZE 32
#define FSR_TASK_SIZE 120
#define FSR_ARGS_MAX 6
/* The largest record: header, every argument, inode facts, two full paths. */
#define FSR_REC_MAX (FSR_REC_SIZE + 8 * FSR_ARGS_MAX + FSR_INODE_SIZE + 2 * FSR_PATH_MAX)

/* Lanes. Each CPU has one lane: a ring of 2^k segments of FSR_SEG_SIZE bytes
 * (the segments of CPU c are elements c * nseg .. c * nseg + nseg - 1 of the
 * `lanes` array map, mmapped by user space) and a struct fsr_lane_ctl. Only
 * programs running on CPU c write its lane, with preemption disabled (syscall
 * and scheduler tracepoints), so a lane has one writer and needs no lock:
 * that is what makes it cheaper than a BPF ring buffer, whose spinlock and
 * interrupt masking cost more per record than the rest of the record does.
 *
 * `head` and `tail` are byte positions that only grow; position p lives in
 * segment (p >> FSR_SEG_SHIFT) mod nseg at offset p mod FSR_SEG_SIZE. A frame
 * is an 8-byte length (of the record, without padding) and the record, padded
 * to 8 bytes. A frame never crosses a segment's end: where the largest frame
 * would not fit before it, the frame starts at the next segment instead
 * (fsr_frame_at), a rule both sides apply, so no marker is written. The
 * writer checks head + frame - max(tail, floor) <= capacity (else the record
 * is a counted drop), writes the frame (in place, or a copy of a record built
 * aside), then publishes head with an atomic exchange (a full barrier). The
 * reader loads head with acquire, reads frames up to it, and stores tail with
 * release once it is done with them (the recorder's merge keeps records in
 * the lane until it has released them).
 *
 * Rewind: a lane's memory is cold except where it was written lately, and
 * writing cold memory makes a record markedly dearer in a large lane than in
 * a small one that stays in cache. So when the writer finds its lane empty (tail == head) away from
 * the lane's first byte, it goes on at the next position that is the lane's
 * first byte (the next multiple of the capacity): it stores that in `floor`
 * and the position it left in `rewind_from` before it publishes head. A
 * reader whose tail reaches `rewind_from` continues at `floor`. (One slot is
 * enough: the next rewind needs an empty lane, so the reader is past this
 * one. No marker is written in the lane: the rewound writer reuses that
 * space.) Free space counts from max(tail, floor). A lane drained every
 * few ms thus keeps reusing its first few hundred KiB, while a burst can still
 * fill all of it.
 *
 * Early rewind: a busy lane is seldom empty (the reader keeps the records of
 * the last ms or two, waiting for other CPUs' older ones), so the rule above
 * alone let it walk all its capacity, cold: a large lane cost a clone
 * measurably more than a small one. So the writer also rewinds a
 * lane that is not empty, when
 *   - the tail is at least `window` bytes into the lane's current lap and
 *     the head in that lap too, at most window/2 bytes ahead of it (the
 *     reader keeps up);
 *   - the reader has passed the previous rewind (tail >= floor: the one
 *     slot is free);
 *   - the lap so far (since the writer last rewound or wrapped: `lap_ns`)
 *     took at least `min_cycle_ns`.
 * The unread records stay in [tail, rewind_from); new frames go in [floor,
 * tail + capacity), the start of the lane up to the tail's place, so free
 * space counts from the tail itself until the reader takes the jump, and
 * from max(tail, floor) after. That room is at least `window` bytes and at
 * least half the lap so far, so at the lap's rate it lasts min_cycle_ns / 2
 * or more: time for a drain running late (at low priority, on CPUs the
 * workload keeps busy) to come. A storm (a tight loop of recorded
 * calls) fills its lap too fast and keeps the whole lane. What the rule does
 * not cover: a burst that starts right after an early rewind has only that
 * room until the reader takes the jump (one drain period when the drain
 * keeps up; the governor raises a drain that leaves it less than half the
 * window), and a record that does not fit is a counted drop as anywhere
 * else. fsr_plan_frame is the writer's rule; the tests apply the same one. */
#define FSR_SEG_SHIFT 20
#define FSR_SEG_SIZE (1u << FSR_SEG_SHIFT)
#define FSR_FRAME_HDR 8
#define FSR_FRAME_MAX (FSR_FRAME_HDR + ((FSR_REC_MAX + 7) & ~7))

struct fsr_lane_ctl {
  __u64 head;          /* written by the BPF side */
  __u64 nested;        /* records refused because a lane write was in progress (never expected) */
  __u64 floor;         /* the last rewind's target: free space counts from max(tail, floor) */
  __u64 rewind_from;   /* the head that the last rewind left */
  __u64 lap_ns;        /* when the writer began its current lap: a rewind or a wrap (CLOCK_MONOTONIC ns) */
  __u64 early_rewinds; /* rewinds of a lane that was not empty */
  __u64 pad0[2];
  __u64 tail; /* written by user space */
  __u64 pad1[7];
  __u64 busy; /* set while a BPF program writes the lane */
  __u64 pad2[7];
};

/* Where a frame that would start at `pos` starts. */
static inline __u64 fsr_frame_at(__u64 pos) {
  return (pos & (FSR_SEG_SIZE - 1)) > FSR_SEG_SIZE - FSR_FRAME_MAX ? (pos | (FSR_SEG_SIZE - 1)) + 1 : pos;
}

/* Bytes a frame of a `len`-byte record takes: its length word and the record, padded to 8. */
static inline __u64 fsr_frame_size(__u64 len) { return FSR_FRAME_HDR + ((len + 7) & ~7ULL); }

/* Where a rewind at `pos` continues, for a lane of `capacity` bytes (a power of two). */
static inline __u64 fsr_rewind_to(__u64 pos, __u64 capacity) { return (pos | (capacity - 1)) + 1; }

/* Where free space counts from: `tail` while the reader has a rewind ahead of
 * it (tail < rewind_from), else max(tail, floor). */
static inline __u64 fsr_space_from(__u64 tail, __u64 floor, __u64 rewind_from) {
  return tail < rewind_from ? tail : (tail > floor ? tail : floor);
}

/* The writer's next frame, from the lane's control block as it found it. */
struct fsr_lane_plan {
  __u64 start;      /* where the frame starts */
  __u64 space_from; /* the frame fits if start + frame - space_from <= capacity */
  __u64 rewind;     /* rewind first (rewind_from = head, floor = start): 1 empty, 2 early */
  __u64 new_lap;    /* 1: the frame begins a lap (a rewind, or a wrap): lap_ns = now */
};

/* The early-rewind rule's settings (see "Early rewind" above). */
struct fsr_lane_early {
  __u64 window;       /* bytes; 0: only empty lanes rewind */
  __u64 min_cycle_ns; /* least time since the last rewind */
  __u64 now;          /* the time now (a record's timestamp) */
  __u64 lap_ns;       /* fsr_lane_ctl.lap_ns */
};

/* Plans the next frame of a lane of `capacity` bytes whose control block
 * holds head, tail, floor and rewind_from: an empty lane away from its first
 * byte rewinds, and so does a busy one the reader keeps up with and the
 * writer fills slowly enough (`early`). Always inlined: BPF has no stack
 * arguments nor aggregate returns, and clang 19 (Debian 13) does not inline
 * it by itself. */
static inline __attribute__((always_inline)) struct fsr_lane_plan fsr_plan_frame(__u64 head, __u64 tail, __u64 floor,
                                                                                 __u64 rewind_from, __u64 capacity,
                                                                                 struct fsr_lane_early early) {
  struct fsr_lane_plan p;
  __u64 mask = capacity - 1;
  p.start = fsr_frame_at(head);
  p.rewind = 0;
  if ((p.start & mask) != 0) {
    if (tail == head)
      p.rewind = 1;
    else if (early.window && tail >= floor && tail < head && head - tail <= early.window / 2 &&
             (tail & ~mask) == (p.start & ~mask) && (tail & mask) >= early.window && early.now >= early.lap_ns &&
             early.now - early.lap_ns >= early.min_cycle_ns)
      p.rewind = 2;
  }
  p.new_lap = p.rewind || (p.start & mask) == 0;
  if (p.rewind) {
    rewind_from = head;
    floor = fsr_rewind_to(p.start, capacity);
    p.start = floor;
  }
  p.space_from = fsr_space_from(tail, floor, rewind_from);
  return p;
}

#endif
