// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Deferred releases. When a call drops the last reference to an open file
 * (munmap of a mapping whose fd was closed; close itself before Linux 6.6;
 * dup2 over an open fd), the kernel releases the file on the way back to
 * user space, after sys_exit: task work. On a network mount that release is
 * a round trip (9p's TCLUNK), and it lies in the gap after the call, where
 * a replay would count it a second time: the replayer's own call pays its
 * release before it returns to user space too.
 *
 * sys_exit opens a window when the task has task work pending
 * (release_open), and the record it submits says so
 * (FSR_RF_RELEASE_PENDING). While a window is open, on_switch notes when
 * the task blocks (uninterruptible, not preempted) and when it comes back.
 * The window closes at the task's next syscall entry, user page fault or
 * exit (release_close): nothing else can block it in between but the
 * release. If it blocked, a release record follows (FSR_REC_RELEASE, at the
 * call's exit time, args[0] the ns until it came back from its last block),
 * and user space adds it to the call's duration (ReleaseFolder). A release
 * that never blocked (a local file system's) costs CPU only and stays in
 * the gap, as before.
 *
 * `release_windows` counts the open windows: syscall entries and context
 * switches look at task state only while one is open. */
#ifndef FSREPLAY_RECORD_RELEASE_BPF_H
#define FSREPLAY_RECORD_RELEASE_BPF_H

#include "record_syscall.bpf.h"

__weak __s64 release_windows = 0;

#define FSR_TASK_UNINTERRUPTIBLE 0x0002

/* At sys_exit, after the call's record: whether the task leaves this call
 * with task work pending (the record carries FSR_RF_RELEASE_PENDING then). */
static __always_inline int release_pending(struct task_struct* task) { return task->task_works != 0; }

static __always_inline void release_open(struct fsr_task* s) {
  if (!s->rel_from) __sync_fetch_and_add(&release_windows, 1);
  s->rel_from = bpf_ktime_get_ns();
  s->rel_end = 0;
  s->rel_blocked = 0;
}

/* The release record: submitted here, in this CPU's lane (`end` now, so the
 * lane stays in end order); counted in the extra counters, not a class. */
static __always_inline void release_emit(struct fsr_task* s, __u64 from, __u64 ns) {
  struct fsr_counters* c = get_counters();
  struct scratch* sc = get_scratch();
  if (sc) {
    begin_rec_at(sc, FSR_REC_RELEASE, s->pid, s->tid, 1, from);
    sc->args[0] = ns;
  }
  if (!sc || lane_copy(sc, sizeof(struct fsr_rec) + 8)) {
    if (c) c->extra[FSR_CNT_RELEASE_DROPS]++;
  } else if (c) {
    c->extra[FSR_CNT_RELEASES]++;
  }
}

/* The task's next syscall entry, user page fault or exit: the window ends. */
static __always_inline void release_close(struct fsr_task* s) {
  __u64 from = s->rel_from, end = s->rel_end;
  if (!from) return;
  s->rel_from = 0;
  s->rel_end = 0;
  s->rel_blocked = 0;
  __sync_fetch_and_add(&release_windows, -1);
  if (end > from) release_emit(s, from, end - from);
}

/* on_switch, while windows are open: a task in a window that blocks, and
 * its return. */
static __always_inline void release_switch(bool preempt, struct task_struct* prev, struct task_struct* next,
                                           unsigned int prev_state, __u64 now) {
  struct fsr_task* s;
  if (!preempt && (prev_state & FSR_TASK_UNINTERRUPTIBLE)) {
    s = task_get(prev);
    if (s && s->rel_from) s->rel_blocked = 1;
  }
  s = task_get(next);
  if (s && s->rel_from && s->rel_blocked) {
    s->rel_end = now;
    s->rel_blocked = 0;
  }
}

#endif
