// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* tp_btf/sched_switch: the CPU time the recorder's own threads take from the
 * workload. When a recorder thread takes a CPU from a tracked task that is
 * still runnable (preempted), the task waits until the recorder leaves that
 * CPU; a tracked task queued on a CPU a recorder thread holds waits until
 * it leaves: those waits, when the task is between calls, are counted
 * (FSR_CNT_STOLEN_NS). The wait lies inside the
 * task's recorded gaps (or calls), and an untraced run has none of it: the
 * replay takes it out of the gaps (DESIGN.md "The replay clock").
 *
 * The recorder's threads are known by their kernel thread-group id
 * (`rec_tgid`): user space sets it where its own pid is the kernel's (the
 * initial PID namespace); elsewhere the first switch away from one of its
 * threads learns it (`rec_ns_tgid` as the recording's namespace numbers the
 * recorder; the recorder sleeps right after attaching, so that is at once).
 * Every other switch costs two loads and a compare (and, while a task is in
 * a release window, two task-state lookups: record_release.bpf.h). */
#include "record_release.bpf.h"

__weak const volatile __u32 rec_ns_tgid = 0; /* the recorder's pid in its namespace */
__weak const volatile __u64 pidns_dev = 0;   /* st_dev of that namespace's nsfs file */
__u32 rec_tgid = 0;                          /* the recorder's kernel tgid (0: not known yet) */

struct fsr_switch {
  __u64 since;     /* a recorder thread came on this CPU then (0: none is on it) */
  __u32 preempted; /* ... taking it from a runnable tracked task */
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fsr_switch);
} switch_state SEC(".maps");

/* How long of the recorder's `ran` ns on this CPU the tracked task `next`,
 * which takes the CPU after it, was queued: its queueing time and the
 * recorder's arrival are both on the run queue's clock (sched_info, where
 * the kernel has it). */
static __always_inline __u64 queued_behind(struct task_struct* prev, struct task_struct* next, __u64 ran) {
  __u64 queued, arrived;
  if (!bpf_core_field_exists(next->sched_info.last_queued)) return 0;
  queued = BPF_CORE_READ(next, sched_info.last_queued);
  arrived = BPF_CORE_READ(prev, sched_info.last_arrival);
  if (!queued) return 0; /* (not waiting: woken just now, or no sched_info) */
  if (queued <= arrived) return ran;
  return queued - arrived < ran ? ran - (queued - arrived) : 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct* prev, struct task_struct* next, unsigned int prev_state) {
  struct bpf_pidns_info ns;
  struct fsr_switch* sw;
  struct fsr_counters* c;
  struct fsr_task* s;
  __u32 zero = 0, rt = rec_tgid;
  __u64 now, ran, took;
  int from_rec, to_rec;
  if (release_windows > 0) release_switch(preempt, prev, next, prev_state, bpf_ktime_get_ns());
  if (!rt) {
    if (!rec_ns_tgid || bpf_get_ns_current_pid_tgid(pidns_dev, pidns_inum, &ns, sizeof(ns)) != 0 ||
        ns.tgid != rec_ns_tgid)
      return 0;
    rt = prev->tgid; /* current is prev here */
    rec_tgid = rt;
  }
  from_rec = prev->tgid == rt;
  to_rec = next->tgid == rt;
  if (from_rec == to_rec) return 0; /* neither, or one recorder thread after another */
  sw = bpf_map_lookup_elem(&switch_state, &zero);
  if (!sw) return 0;
  now = bpf_ktime_get_ns();
  if (to_rec) {
    s = task_get(prev);
    sw->since = now;
    sw->preempted = (preempt || prev_state == 0 /* TASK_RUNNING */) && s && !s->active;
    return 0;
  }
  if (!sw->since) return 0;
  ran = now - sw->since;
  /* A tracked task it preempted waited all along; one that takes the CPU
   * from it waited for as long as it was queued behind it. Only waits
   * between calls are counted: a wait inside a call lies in its recorded
   * duration, which a replay does not sleep. */
  s = sw->preempted ? 0 : task_get(next);
  took = sw->preempted ? ran : s && !s->active ? queued_behind(prev, next, ran) : 0;
  sw->since = 0;
  if (took) {
    c = get_counters();
    if (c) c->extra[FSR_CNT_STOLEN_NS] += took;
  }
  return 0;
}
