// The plan builder's state (plan.cpp: process, thread, fd and cwd tracking;
// plan_actions.cpp: what each syscall does to it). Internal to the replayer.
#pragma once

#include <fcntl.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "replayer/deps.h"
#include "replayer/mapping_tracker.h"
#include "replayer/plan.h"
#include "replayer/plan_layout.h"
#include "traces/syscalls.h"

namespace fsr::plan_detail {

struct TidState {
  uint32_t thread = 0;
  uint32_t pid = 0;
  std::shared_ptr<FdTable> table;
  std::shared_ptr<std::string> cwd;
  uint64_t last_end = 0;
  uint16_t exec_done = 0;  // the exec record (execve, proc_exec) just applied: its pair, next, applies nothing
};

struct Pending {
  uint32_t creator = kNoOp;
  uint32_t pid = 0;
  std::shared_ptr<FdTable> table;
  std::shared_ptr<std::string> cwd;
};

class Builder {
 public:
  Builder(const std::vector<Event>& ev, const StringLookup& str, const PlanInputs& in)
      : ev_(ev), str_(str), in_(in), map_(in.recorded_root), maps_(plan_) {}

  Plan build() {
    plan_.ops.resize(ev_.size());
    facts_.resize(ev_.size());
    plan_.base_ts = UINT64_MAX;
    for (const Event& e : ev_) plan_.base_ts = std::min(plan_.base_ts, e.ts);
    if (ev_.empty()) plan_.base_ts = 0;
    for (uint32_t i = 0; i < ev_.size(); ++i) step(i);
    mark_devices(ev_, facts_, plan_);
    assign_workers(plan_);
    plan_.serial_dirs = in_.serial_dirs;
    add_dependencies(ev_, facts_, plan_);
    return std::move(plan_);
  }

 private:
  uint32_t intern(const std::string& abs) {
    auto it = path_ids_.find(abs);
    if (it != path_ids_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(plan_.paths.size());
    plan_.paths.push_back({map_.map(abs), abs});
    path_ids_.emplace(abs, id);
    return id;
  }

  uint32_t new_ofd(OfdKind kind, uint32_t path, uint32_t flags = 0) {
    uint32_t id = refs_.create();
    OfdInfo info;
    info.kind = kind;
    info.path = path;
    info.open_flags = flags;
    plan_.ofds.push_back(info);
    return id;
  }

  uint32_t new_chan() { return next_chan_++; }

  TidState& state_for(uint32_t i) {
    const Event& e = ev_[i];
    auto it = tids_.find(e.tid);
    if (it != tids_.end()) return it->second;
    TidState st;
    st.pid = e.pid;
    st.thread = static_cast<uint32_t>(plan_.threads.size());
    RecordedThread rt;
    rt.tid = e.tid;
    rt.pid = e.pid;
    rt.start = e.ts;
    auto pend = pending_.find(e.tid);
    if (pend != pending_.end()) {
      st.table = pend->second.table;
      st.cwd = pend->second.cwd;
      rt.creator = pend->second.creator;
      facts_[i].creator = pend->second.creator;
      pending_.erase(pend);
    } else if (auto sib = by_pid_.find(e.pid); sib != by_pid_.end()) {
      TidState& s = tids_.at(sib->second);  // a thread that existed before the trace
      st.table = s.table;
      st.cwd = s.cwd;
    } else {
      st.table = std::make_shared<FdTable>(&refs_);
      st.cwd = std::make_shared<std::string>(in_.initial.cwd.empty() ? "/" : in_.initial.cwd);
      if (!initial_used_ && (e.pid == in_.initial.pid || in_.initial.pid == 0)) {
        initial_used_ = true;
        std::vector<uint32_t> closed;
        for (const FdEntry& f : in_.initial.fds) {
          OfdKind k = OfdKind::kUnknown;
          uint32_t p = kNoPath;
          if (!f.path.empty() && f.path[0] == '/') {
            k = OfdKind::kFile;
            p = intern(normalize_abs(f.path));
          } else if (f.path.rfind("pipe:", 0) == 0) {
            k = OfdKind::kPipe;
          } else if (f.path.rfind("socket:", 0) == 0) {
            k = OfdKind::kSocket;
          }
          uint32_t o = new_ofd(k, p, f.flags);
          st.table->bind(f.fd, o, (f.flags & O_CLOEXEC) != 0, closed);
          if (k == OfdKind::kFile) plan_.initial_ofds.push_back(o);
        }
      }
    }
    ++users_[st.table.get()];
    plan_.threads.push_back(std::move(rt));
    by_pid_.emplace(e.pid, e.tid);
    maps_.saw_thread(e.tid, e.pid);
    return tids_.emplace(e.tid, std::move(st)).first->second;
  }

  uint32_t resolve_path(const Event& e, const SyscallInfo& si, int k, TidState& st) {
    if (si.path[k] < 0 || e.path[k] == kNoStr) return kNoPath;
    std::string s(str_(e.path[k]));
    if (s.empty()) return kNoPath;
    if (s[0] != '/') {
      std::string base = *st.cwd;
      if (si.dirfd[k] >= 0) {
        int dfd = static_cast<int>(e.args[si.dirfd[k]]);
        if (dfd != kAtFdcwd) {
          uint32_t o = st.table->lookup(dfd);
          if (o != kNoOfd && plan_.ofds[o].path != kNoPath) base = plan_.paths[plan_.ofds[o].path].abs;
        }
      }
      return intern(join_abs(base, s));
    }
    return intern(normalize_abs(s));
  }


  void set_closes(PlanOp& op, const std::vector<uint32_t>& closed) {
    op.close_begin = static_cast<uint32_t>(plan_.closes.size());
    for (uint32_t c : closed) plan_.closes.push_back(c);
    op.close_end = static_cast<uint32_t>(plan_.closes.size());
  }

  bool is_file(uint32_t ofd) const {
    return ofd != kNoOfd && (plan_.ofds[ofd].kind == OfdKind::kFile ||
                             plan_.ofds[ofd].kind == OfdKind::kDir);
  }

  void fd_op_action(PlanOp& op) {
    if (op.ofd == kNoOfd) op.action = OpAction::kSkip;
    else op.action = is_file(op.ofd) ? OpAction::kIssue : OpAction::kEmulate;
  }

  void child_created(uint32_t i, uint32_t child_tid, bool share_fs, bool share_files, TidState& st) {
    if (child_tid == 0 || tids_.count(child_tid) || pending_.count(child_tid)) return;
    Pending p;
    p.creator = i;
    p.table = share_files ? st.table : st.table->fork_copy();
    p.cwd = share_fs ? st.cwd : std::make_shared<std::string>(*st.cwd);
    pending_.emplace(child_tid, std::move(p));
  }

  void step(uint32_t i);
  // The per-syscall part of step (plan_actions.cpp): the op's action, the
  // fds it binds or closes, its namespace mask.
  void apply_action(uint32_t i, const Event& e, const SyscallInfo& info, uint16_t exec_done, PlanOp& op, OpFacts& f,
                    TidState& st, std::vector<uint32_t>& closed);

  const std::vector<Event>& ev_;
  const StringLookup& str_;
  const PlanInputs& in_;
  PathMap map_;
  Plan plan_;
  std::vector<OpFacts> facts_;
  OfdRefs refs_;
  std::unordered_map<std::string, uint32_t> path_ids_;
  std::unordered_map<uint32_t, TidState> tids_;
  std::unordered_map<uint32_t, uint32_t> by_pid_;
  std::unordered_map<uint32_t, Pending> pending_;
  std::map<const FdTable*, int> users_;
  MappingTracker maps_;
  uint32_t next_chan_ = 0;
  bool initial_used_ = false;
};

}  // namespace fsr::plan_detail
