// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/process_tracker.h"

#include <fcntl.h>

#include <algorithm>
#include <stdexcept>

namespace fsr {
namespace {

constexpr uint32_t kUnset = UINT32_MAX - 1;

}  // namespace

// The replay pass sizes these from its survey: growing past that would move
// them under the workers' feet.
template <typename T>
void ProcessTracker::grow_into(std::vector<T>& v, T x, const char* what) {
  if (plan_.fixed_tables && v.size() == v.capacity())
    throw std::logic_error(std::string("plan: more ") + what + " than the survey counted");
  v.push_back(std::move(x));
}

namespace {}  // namespace

uint32_t ProcessTracker::intern(const std::string& abs) {
  auto it = path_ids_.find(abs);
  if (it != path_ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(plan_.paths.size());
  grow_into(plan_.paths, PlanPath{map_.map(abs), abs}, "paths");
  parent_.push_back(kUnset);
  tty_.push_back(abs == "/dev/tty");
  path_ids_.emplace(abs, id);
  return id;
}

uint32_t ProcessTracker::add_literal(std::string text) {
  const uint32_t id = static_cast<uint32_t>(plan_.paths.size());
  const bool tty = text == "/dev/tty";
  grow_into(plan_.paths, PlanPath{MappedPath{}, std::move(text)}, "paths");
  parent_.push_back(kNoPath);
  tty_.push_back(tty);
  return id;
}

uint32_t ProcessTracker::parent_id(uint32_t p) {
  if (parent_[p] != kUnset) return parent_[p];
  const std::string abs = plan_.paths[p].abs;
  const uint32_t par = abs == "/" || abs.empty() ? kNoPath : intern(std::string(parent_of(abs)));
  return parent_[p] = par;
}

uint32_t ProcessTracker::new_ofd(OfdKind kind, uint32_t path, uint32_t flags) {
  const uint32_t id = refs_.create();
  OfdInfo info;
  info.kind = kind;
  info.path = path;
  info.open_flags = flags;
  if (id < plan_.ofds.size())
    plan_.ofds[id] = info;
  else
    grow_into(plan_.ofds, info, "open files");
  return id;
}

uint32_t ProcessTracker::cwd_ofd(uint32_t path) {
  if (path == kNoPath || cwd_ofds_ >= kMaxCwdOfds) return kNoOfd;
  ++cwd_ofds_;
  const uint32_t o = new_ofd(OfdKind::kDir, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  plan_.ofds[o].cwd = true;
  return o;
}

uint32_t ProcessTracker::walk_base(const Event& e, const SyscallInfo& si, int k, uint32_t path, TidState& st) {
  if (!in_.walks_as_passed || path == kNoPath || !(e.flags & event_relative_flag(k))) return kNoOfd;
  uint32_t o = st.cwd->ofd;
  if (si.dirfd[k] >= 0) {
    const int dfd = static_cast<int>(e.args[si.dirfd[k]]);
    if (dfd != kAtFdcwd) {
      o = st.table->lookup(dfd);
      if (o == kNoOfd || plan_.ofds[o].kind != OfdKind::kDir) return kNoOfd;
    }
  }
  if (o == kNoOfd || plan_.ofds[o].path == kNoPath) return kNoOfd;
  // Only a directory strictly beneath the same root as the path, holding it:
  // the walk is then the path's mapped text less the base's (plan.h).
  const MappedPath& b = plan_.paths[plan_.ofds[o].path].mapped;
  const MappedPath& m = plan_.paths[path].mapped;
  if (b.root == m.root && b.rel.empty()) return kWalkFromRoot;
  if (b.root != m.root || m.rel.size() < b.rel.size() || m.rel.compare(0, b.rel.size(), b.rel) != 0 ||
      (m.rel.size() > b.rel.size() && m.rel[b.rel.size()] != '/'))
    return kNoOfd;
  return o;
}

void ProcessTracker::released(uint64_t i, const std::vector<uint32_t>& ofds) {
  for (uint32_t o : ofds) to_free_.push_back({i, o});
  // A window behind: that op has run (plan_stream.h), nothing refers to the slot.
  while (!to_free_.empty() && to_free_.front().first + window_ < i) {
    refs_.recycle(to_free_.front().second);
    to_free_.pop_front();
  }
}

void ProcessTracker::bind_initial(TidState& st) {
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
    const uint32_t o = new_ofd(k, p, f.flags);
    st.table->bind(f.fd, o, (f.flags & O_CLOEXEC) != 0, closed);
    if (k == OfdKind::kFile) plan_.initial_ofds.push_back(o);
  }
}

TidState& ProcessTracker::state_for(uint64_t i, const Event& e, uint32_t& creator) {
  (void)i;
  auto it = tids_.find(e.tid);
  if (it != tids_.end()) return it->second;
  TidState st;
  st.pid = e.pid;
  st.thread = next_thread_++;
  RecordedThread rt;
  rt.tid = e.tid;
  rt.pid = e.pid;
  rt.start = e.ts;
  auto pend = pending_.find(e.tid);
  if (pend != pending_.end()) {
    st.table = pend->second.table;
    st.cwd = pend->second.cwd;
    rt.creator = creator = pend->second.creator;
    rt.creator_end = pend->second.creator_end;
    pending_.erase(pend);
  } else if (auto sib = by_pid_.find(e.pid); sib != by_pid_.end()) {
    TidState& s = tids_.at(sib->second);  // a thread that existed before the trace
    st.table = s.table;
    st.cwd = s.cwd;
  } else {
    st.table = std::make_shared<FdTable>(&refs_);
    st.cwd = std::make_shared<Cwd>();
    st.cwd->abs = in_.initial.cwd.empty() ? "/" : in_.initial.cwd;
    if (in_.walks_as_passed) {
      if (initial_cwd_ofd_ == kNoOfd) {
        initial_cwd_ofd_ = cwd_ofd(intern(normalize_abs(st.cwd->abs)));
        if (initial_cwd_ofd_ != kNoOfd) plan_.initial_ofds.push_back(initial_cwd_ofd_);
      }
      st.cwd->ofd = initial_cwd_ofd_;
    }
    if (!initial_used_ && (e.pid == in_.initial.pid || in_.initial.pid == 0)) {
      initial_used_ = true;
      bind_initial(st);
    }
  }
  ++users_[st.table.get()];
  if (st.thread == plan_.threads.size()) plan_.threads.push_back(rt);  // (the replay pass has the survey's)
  by_pid_.emplace(e.pid, e.tid);
  return tids_.emplace(e.tid, std::move(st)).first->second;
}

uint32_t ProcessTracker::resolve_path(const Event& e, const SyscallInfo& si, int k, TidState& st) {
  if (si.path[k] < 0 || e.path[k] == kNoStr) return kNoPath;
  const StrId sid = e.path[k];
  if (sid < abs_ids_.size() && abs_ids_[sid] != kNoPath) return abs_ids_[sid];  // (absolute, met before)
  const std::string_view v = str_(sid);
  if (v.empty()) return kNoPath;
  if (v[0] == '/') {
    const uint32_t id = intern(normalize_abs(std::string(v)));
    if (sid >= abs_ids_.size()) abs_ids_.resize(std::max<size_t>(sid + 1, abs_ids_.size() * 2), kNoPath);
    return abs_ids_[sid] = id;
  }
  std::string base = st.cwd->abs;  // relative: to the cwd, or to its directory fd
  if (si.dirfd[k] >= 0) {
    const int dfd = static_cast<int>(e.args[si.dirfd[k]]);
    if (dfd != kAtFdcwd) {
      const uint32_t o = st.table->lookup(dfd);
      if (o != kNoOfd && plan_.ofds[o].path != kNoPath) base = plan_.paths[plan_.ofds[o].path].abs;
    }
  }
  return intern(join_abs(base, std::string(v)));
}

void ProcessTracker::child_created(uint64_t i, uint64_t end, uint32_t child_tid, bool share_fs, bool share_files,
                                   TidState& st) {
  if (child_tid == 0 || tids_.count(child_tid) || pending_.count(child_tid)) return;
  Pending p;
  p.creator = static_cast<uint32_t>(i);
  p.creator_end = end;
  p.table = share_files ? st.table : st.table->fork_copy();
  p.cwd = share_fs ? st.cwd : std::make_shared<Cwd>(*st.cwd);
  pending_.emplace(child_tid, std::move(p));
}

}  // namespace fsr
