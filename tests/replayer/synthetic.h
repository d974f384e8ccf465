// SPDX-License-Identifier: Apache-2.0
// Builds synthetic traces in memory for replayer tests: events plus a string table.
#pragma once

#include <sys/syscall.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "replayer/plan/plan.h"
#include "traces/event.h"
#include "traces/syscalls.h"

#include <linux/sched.h>
#include <sys/syscall.h>

namespace fsr::test {

struct Synth {
  std::vector<Event> ev;
  std::vector<std::string> strs{""};

  StrId s(const std::string& v) {
    for (size_t i = 1; i < strs.size(); ++i)
      if (strs[i] == v) return static_cast<StrId>(i);
    strs.push_back(v);
    return static_cast<StrId>(strs.size() - 1);
  }

  // Appends an event; returns its index.
  uint32_t add(uint32_t pid, uint32_t tid, uint16_t nr, uint64_t ts, uint64_t dur, int64_t ret,
               std::initializer_list<uint64_t> args = {}, const std::string& p0 = "", const std::string& p1 = "") {
    Event e;
    e.pid = pid;
    e.tid = tid;
    e.nr = nr;
    e.ts = ts;
    e.dur = dur;
    e.ret = ret;
    int k = 0;
    for (uint64_t a : args) e.args[k++] = a;
    if (!p0.empty()) e.path[0] = s(p0);
    if (!p1.empty()) e.path[1] = s(p1);
    ev.push_back(e);
    return static_cast<uint32_t>(ev.size() - 1);
  }

  StringLookup lookup() const {
    return [this](StrId id) -> std::string_view {
      return id < strs.size() ? std::string_view(strs[id]) : std::string_view();
    };
  }

  Plan plan(const std::string& root = "/r", bool mmap_touch = true, bool serial_dirs = false,
            bool walks_as_passed = false, const std::string& cwd = "") const {
    PlanInputs in;
    in.serial_dirs = serial_dirs;
    in.walks_as_passed = walks_as_passed;
    in.recorded_root = root;
    in.target_dir = "/T";
    in.scratch_dir = "/S";
    in.initial.cwd = cwd.empty() ? root : cwd;
    in.mmap_touch = mmap_touch;
    return build_plan(ev, lookup(), in);
  }
};

// Per worker, its ops in the order it issues them (event order).
inline std::vector<std::vector<uint32_t>> worker_lists(const Plan& p) {
  std::vector<std::vector<uint32_t>> w(p.worker_count);
  for (uint32_t i = 0; i < p.size; ++i) w[p.threads[p.op(i).thread].worker].push_back(i);
  return w;
}

inline std::vector<uint32_t> space_threads(const Plan& p) {
  std::vector<uint32_t> v;
  for (const PlanSpace& s : p.spaces) v.push_back(s.threads);
  return v;
}

inline constexpr uint64_t kAtCwd = kAtFdcwdArg;

inline bool has_dep(const Plan& p, uint32_t op, uint32_t dep) {
  for (uint32_t d : p.deps_of(op))
    if (d == dep) return true;
  return false;
}

// The kind of the edge op -> dep (DepKind::kNone when there is none).
inline DepKind dep_kind(const Plan& p, uint32_t op, uint32_t dep) {
  for (uint32_t k = p.op(op).dep_begin; k != p.op(op).dep_end; ++k)
    if (p.dep(k) == dep) return p.dep_kind(k);
  return DepKind::kNone;
}

// clone flags of a new thread, and two threads of one process (shared fd table).
inline constexpr uint64_t kThreadFlags = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;
inline Synth two_threads() {
  Synth t;
  t.add(1, 1, SYS_clone, 0, 1, 2, {kThreadFlags});
  return t;
}

}  // namespace fsr::test
