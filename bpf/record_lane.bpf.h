// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The writing side of a lane (fsreplay_record.h): a frame is opened on this
 * CPU's lane (lane_open), its record written in place (lane_frame) and
 * published (lane_publish), or the write abandoned (lane_close). Records
 * built elsewhere are copied in by emit_c. Programs run with preemption
 * disabled, so a lane has one writer; a nested write is refused and counted,
 * never waited for. Nothing here blocks, allocates or drops silently. */
#ifndef FSREPLAY_RECORD_LANE_BPF_H
#define FSREPLAY_RECORD_LANE_BPF_H

#include "record_maps.bpf.h"

/* A lane write in progress on this CPU: lane_open marks the lane busy and
 * finds where the next frame starts; lane_publish or lane_close ends it. */
struct lane_pos {
  struct fsr_lane_ctl* ctl;
  __u64 head; /* where the frame starts */
  __u64 tail; /* free space counts from here (fsr_space_from) */
  __u32 cpu;
  __u32 rewind;  /* the frame starts a rewind: recorded when it is published */
  __u32 new_lap; /* ... a lap (a rewind or a wrap): its time, lap_ns, too */
  __u64 now;
};

/* Bytes of one lane. */
static __always_inline __u64 lane_capacity(void) { return ((__u64)lane_seg_mask + 1) << FSR_SEG_SHIFT; }

/* 0 with the lane marked busy, or -1: no lane, or one being written (a
 * nested program; counted, never expected). `now`: the record's timestamp
 * (no clock read of its own). */
static __always_inline int lane_open(struct lane_pos* lp, __u64 now) {
  __u64 cap = lane_capacity();
  struct fsr_lane_early early = {lane_window, lane_min_cycle_ns, now, 0};
  struct fsr_lane_plan plan;
  struct fsr_lane_ctl* ctl;
  lp->cpu = bpf_get_smp_processor_id();
  ctl = bpf_map_lookup_elem(&lane_ctl, &lp->cpu);
  if (!ctl) return -1;
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
  plan = fsr_plan_frame(ctl->head, *(volatile __u64*)&ctl->tail, ctl->floor, ctl->rewind_from, cap, early);
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
static __always_inline struct scratch* lane_frame(struct lane_pos* lp, __u64 frame) {
  __u64 off;
  __u32 seg;
  __u8* buf;
  if (lp->head + frame - lp->tail > lane_capacity()) return 0;
  seg = lp->cpu * (lane_seg_mask + 1) + ((lp->head >> FSR_SEG_SHIFT) & lane_seg_mask);
  buf = bpf_map_lookup_elem(&lanes, &seg);
  off = lp->head & (FSR_SEG_SIZE - 1) & ~7ULL;
  /* (fsr_frame_at made off <= FSR_SEG_SIZE - FSR_FRAME_MAX: told to the verifier) */
  if (!buf || off > FSR_SEG_SIZE - FSR_FRAME_MAX) return 0;
  return (struct scratch*)(buf + off + FSR_FRAME_HDR);
}

/* Ends the frame whose record (`len` bytes) is at `at`: its length word, the
 * rewind or lap it starts if any, then head, published with an atomic
 * exchange (a full barrier). */
static __always_inline void lane_publish(struct lane_pos* lp, struct scratch* at, __u64 len) {
  *(__u64*)((__u8*)at - FSR_FRAME_HDR) = len;
  if (lp->rewind) {
    lp->ctl->rewind_from = lp->ctl->head;
    lp->ctl->floor = lp->head;
    if (lp->rewind == 2) lp->ctl->early_rewinds++;
  }
  if (lp->new_lap) lp->ctl->lap_ns = lp->now;
  lp->ctl->busy = 0;
  __sync_lock_test_and_set(&lp->ctl->head, lp->head + fsr_frame_size(len));
}

static __always_inline void lane_close(struct lane_pos* lp) { lp->ctl->busy = 0; }

/* Copies the record built in `sc` (`len` bytes) into this CPU's lane, its
 * `end` now: 0, or -1 when no frame of that size fit (nothing written). */
static __always_inline int lane_copy(struct scratch* sc, __u64 len) {
  struct lane_pos lp;
  struct scratch* at;
  if (len > sizeof(*sc)) len = sizeof(*sc);
  if (lane_open(&lp, sc->rec.ts)) return -1;
  at = lane_frame(&lp, fsr_frame_size(len));
  if (!at) {
    lane_close(&lp);
    return -1;
  }
  sc->rec.end = bpf_ktime_get_ns();
  bpf_probe_read_kernel(at, len, sc);
  lane_publish(&lp, at, len);
  return 0;
}

/* Appends the record in `sc` (`len` bytes), built elsewhere, to this CPU's
 * lane, counted in class `cls`: a copy. Syscall records, the bulk, are
 * built in the lane instead (emit_syscall). */
static __always_inline void emit_c(struct fsr_counters* c, struct scratch* sc, __u64 len, __u32 cls) {
  cls &= FSR_CLASS_MAX - 1;
  if (c) c->seen[cls]++;
  if (lane_copy(sc, len) && c) c->drops[cls]++;
}

static __always_inline void emit(struct scratch* sc, __u64 len, __u32 cls) { emit_c(get_counters(), sc, len, cls); }

#endif
