// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The floor under `fsreplay record`'s per-syscall cost, for
 * dev/bench/record_floor.cpp: the sys_enter/sys_exit pair with only the work
 * the recorder cannot avoid, in three levels chosen by `level` before load:
 *   0  both programs return at once (the tracepoint dispatch alone);
 *   1  + the recorder's rodata test on the syscall number and its task-storage
 *        lookup (created at enter for the tracked tgid, looked up at exit);
 *   2  + a bpf_ktime_get_ns() at enter and one at exit.
 * It records nothing and must never write shared memory: a global counter's
 * cache line bouncing between CPUs would be measured instead of the floor.
 * From level 1 a tracked task's children get storage at fork, so a whole
 * process tree (a `git clone` and its helpers) is timed as the recorder
 * times it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fsreplay_record.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load. The verifier knows rodata, so levels not chosen are dead
 * code and cost nothing. */
const volatile __u32 level = 0;
const volatile __u32 tgid = 0;
const volatile __u8 sys_flags[FSR_MAX_NR] = {}; /* FSR_SF_RECORD as in the recorder */

struct floor_task {
  __u64 ts;    /* level 2: clock at enter */
  __u64 spent; /* level 2: exit - enter, kept so that the clock reads stay */
  __u32 nr;
  __u32 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct floor_task);
} tasks SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs* regs, long id) {
  struct task_struct* task;
  struct floor_task* t;
  if (level == 0) return 0;
  if (id < 0 || id >= FSR_MAX_NR || !(sys_flags[id] & FSR_SF_RECORD)) return 0;
  /* The recorder's shape: a lookup first (its tracked tasks carry storage
   * from birth); the tgid test only for a task without storage yet. */
  task = bpf_get_current_task_btf();
  t = bpf_task_storage_get(&tasks, task, 0, 0);
  if (!t) {
    if (bpf_get_current_pid_tgid() >> 32 != tgid) return 0;
    t = bpf_task_storage_get(&tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!t) return 0;
  }
  t->nr = id;
  if (level >= 2) t->ts = bpf_ktime_get_ns();
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs* regs, long ret) {
  struct floor_task* t;
  __u64 nr;
  if (level == 0) return 0;
  nr = regs->orig_ax;
  if (nr >= FSR_MAX_NR || !(sys_flags[nr] & FSR_SF_RECORD)) return 0;
  t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
  if (!t || t->nr != nr) return 0;
  if (level >= 2) t->spent = bpf_ktime_get_ns() - t->ts;
  return 0;
}

/* The recorder's fork rule: a tracked parent's child is tracked from birth. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(floor_fork, struct task_struct* parent, struct task_struct* child) {
  if (level == 0) return 0;
  if (!bpf_task_storage_get(&tasks, parent, 0, 0)) return 0;
  bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  return 0;
}
