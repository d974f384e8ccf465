// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Per-task state of the tracked tasks (struct fsr_task, fsreplay_record.h):
 * the call in progress and the task's ids as the recording's PID namespace
 * numbers them. It lives in task storage, or, on a kernel without it (or
 * when user space says so: `use_task_storage` = 0), in a hash keyed by the
 * kernel's thread id, which never leaves the kernel side.
 *
 * PID namespaces: every pid and tid in a record is the one the recording's
 * namespace (the one `fsreplay record` runs in, `pidns_inum`) gives the
 * task: the task's struct pid holds one number per namespace level, and
 * the one whose namespace is ours is ours. Walking it works for the tasks of deeper
 * namespaces too (a workload that unshares a PID namespace is followed with
 * its pids mapped); bpf_get_ns_current_pid_tgid would only give the current
 * task's ids, and only in its own namespace. The walk uses probe reads
 * (struct pid's numbers[] is declared with one element before 6.x, which
 * BTF loads refuse past), so it runs at fork and when state is created,
 * never per syscall: the ids are kept in the state. In the initial
 * namespace the kernel's own ids are ours and nothing is walked. */
#ifndef FSREPLAY_RECORD_TASK_BPF_H
#define FSREPLAY_RECORD_TASK_BPF_H

#include "record_maps.bpf.h"

/* 1: task state in task storage; 0: in task_hash (set before load). */
__weak const volatile __u32 use_task_storage = 1;
/* The recording's PID namespace: whether it is the initial one (then the
 * kernel's ids are ours), and its nsfs inode number. */
__weak const volatile __u32 pidns_init = 1;
__weak const volatile __u32 pidns_inum = 0;
#define FSR_PIDNS_MAX_LEVEL 32 /* the kernel's MAX_PID_NS_LEVEL */

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct fsr_task);
} tasks __weak SEC(".maps");

/* Only created when use_task_storage is 0 (user space sets its size). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32); /* kernel thread id */
  __type(value, struct fsr_task);
} task_hash __weak SEC(".maps");

/* The state of `t`, or NULL if it has none (not tracked). */
static __always_inline struct fsr_task* task_get(struct task_struct* t) {
  __u32 k;
  if (use_task_storage) return bpf_task_storage_get(&tasks, t, 0, 0);
  k = t->pid;
  return bpf_map_lookup_elem(&task_hash, &k);
}

/* New, zeroed state for `t` (kept if task storage already has one). */
static __always_inline struct fsr_task* task_new(struct task_struct* t) {
  struct fsr_task zero = {};
  __u32 k;
  if (use_task_storage) return bpf_task_storage_get(&tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  k = t->pid;
  if (bpf_map_update_elem(&task_hash, &k, &zero, BPF_ANY)) return 0;
  return bpf_map_lookup_elem(&task_hash, &k);
}

/* The task is gone: task storage goes with it, the hash entry here. */
static __always_inline void task_drop(struct task_struct* t) {
  __u32 k;
  if (use_task_storage) return;
  k = t->pid;
  bpf_map_delete_elem(&task_hash, &k);
}

/* An exec by a thread other than the leader took the leader's kernel tid:
 * its hash entry moves with it. */
static __always_inline struct fsr_task* task_rekey(struct task_struct* t, __u32 old_tid) {
  struct fsr_task* s;
  __u32 k;
  if (use_task_storage) return bpf_task_storage_get(&tasks, t, 0, 0);
  k = t->pid;
  if (k == old_tid) return bpf_map_lookup_elem(&task_hash, &k);
  s = bpf_map_lookup_elem(&task_hash, &old_tid);
  if (!s || bpf_map_update_elem(&task_hash, &k, s, BPF_ANY)) return 0;
  bpf_map_delete_elem(&task_hash, &old_tid);
  return bpf_map_lookup_elem(&task_hash, &k);
}

/* numbers[level] of `pid`: its number there, and the nsfs inode number of
 * the namespace at that level. `level` must not exceed pid->level. */
static __always_inline __u32 pid_nr_at(struct pid* pid, __u32 level, __u32* inum) {
  const struct upid* up =
      (const void*)pid + bpf_core_field_offset(struct pid, numbers) + level * bpf_core_type_size(struct upid);
  struct pid_namespace* ns = BPF_CORE_READ(up, ns);
  *inum = BPF_CORE_READ(ns, ns.inum);
  return BPF_CORE_READ(up, nr);
}

/* The number of `pid` in the recording's namespace, and that namespace's
 * level in `*level` (not known in advance: a process cannot learn how deep
 * its own namespace is, NS_GET_PARENT stops at it); 0 if `pid` has none
 * there (a namespace that is not below ours). Looks from the pid's own
 * namespace upwards, so a task of ours costs one step. */
static __always_inline __u32 pid_here(struct pid* pid, __u32* level) {
  __u32 top, inum = 0, nr;
  if (!pid) return 0;
  top = BPF_CORE_READ(pid, level);
  if (pidns_init) {
    *level = 0;
    return pid_nr_at(pid, 0, &inum);
  }
  for (__u32 i = 0; i <= FSR_PIDNS_MAX_LEVEL; i++) {
    if (i > top) break;
    nr = pid_nr_at(pid, top - i, &inum);
    if (inum == pidns_inum) {
      *level = top - i;
      return nr;
    }
  }
  return 0;
}

/* The ids of `t` in the recording's namespace (0 where it has none). */
static __always_inline void ids_here(struct task_struct* t, __u32* tgid, __u32* tid) {
  __u32 level;
  if (pidns_init) {
    *tgid = t->tgid;
    *tid = t->pid;
    return;
  }
  *tid = pid_here(BPF_CORE_READ(t, thread_pid), &level);
  *tgid = pid_here(BPF_CORE_READ(t, group_leader, thread_pid), &level);
}

/* New state `s` gets the task's ids; no state (it could not be created) is
 * a drop of class `cls`. */
static __always_inline struct fsr_task* task_named(struct fsr_task* s, __u32 tgid, __u32 tid, __u32 cls) {
  struct fsr_counters* c;
  if (s) {
    s->pid = tgid;
    s->tid = tid;
  } else if ((c = get_counters())) {
    c->drops[cls & (FSR_CLASS_MAX - 1)]++;
  }
  return s;
}

/* The state of `t`, created if it has none but its process is tracked and
 * lazy tracking is on (--pid: threads that predate the recording; the task
 * hash: seeded tasks). A state that could not be created is a drop of class
 * `cls`. */
static __always_inline struct fsr_task* task_get_or_lazy(struct task_struct* t, __u32 cls) {
  struct fsr_task* s = task_get(t);
  __u32 tgid, tid;
  if (s || !lazy_track) return s;
  ids_here(t, &tgid, &tid);
  if (!tgid || !is_tracked(tgid)) return 0;
  return task_named(task_new(t), tgid, tid, cls);
}

#endif
