#include "replayer/plan.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "replayer/deps.h"
#include "replayer/mapping_tracker.h"
#include "replayer/plan_layout.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

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

void Builder::step(uint32_t i) {
  const Event& e = ev_[i];
  PlanOp& op = plan_.ops[i];
  OpFacts& f = facts_[i];
  TidState& st = state_for(i);
  op.thread = st.thread;
  RecordedThread& rt = plan_.threads[st.thread];
  if (rt.ops.empty()) {
    op.flags |= kPfFirstOfThread;
    op.gap = rt.creator != kNoOp
                 ? (e.ts > ev_[rt.creator].ts + ev_[rt.creator].dur
                        ? e.ts - ev_[rt.creator].ts - ev_[rt.creator].dur : 0)
                 : e.ts - plan_.base_ts;
  } else {
    op.gap = e.ts > st.last_end ? e.ts - st.last_end : 0;
  }
  rt.ops.push_back(i);
  // (Not vfork: its parent waits for the child, which is a dependency, not work.)
  if (e.nr == SYS_execve || e.nr == SYS_execveat || e.nr == SYS_clone || e.nr == SYS_clone3 ||
      e.nr == SYS_fork) {
    uint64_t before = rt.ops.size() > 1 ? st.last_end
                      : rt.creator != kNoOp ? ev_[rt.creator].ts + ev_[rt.creator].dur : e.ts;
    uint64_t from = std::max(e.ts, before);
    op.own_ns = static_cast<uint32_t>(std::min<uint64_t>(e.ts + e.dur > from ? e.ts + e.dur - from : 0, UINT32_MAX));
  }
  st.last_end = std::max(st.last_end, e.ts + e.dur);
  rt.end = std::max(rt.end, e.ts + e.dur);
  const uint16_t exec_done = st.exec_done;
  st.exec_done = 0;

  const SyscallInfo* si = syscall_info(e.nr);
  if (!si || (si->flags & kSfIoUring)) {
    op.action = OpAction::kSkip;
    return;
  }
  const int64_t ret = e.ret;
  std::vector<uint32_t> closed;
  auto fdarg = [&](int k) { return static_cast<int>(static_cast<int64_t>(e.args[k])); };

  // Paths (symlink targets are literal text, rewritten to stay beneath their root).
  if (si->flags & kSfLiteralPath0) {
    op.path[1] = resolve_path(e, *si, 1, st);
    if (e.path[0] != kNoStr && op.path[1] != kNoPath) {
      std::string text = map_.symlink_target(plan_.paths[op.path[1]].abs, str_(e.path[0]),
                                             in_.target_dir, in_.scratch_dir);
      op.path[0] = static_cast<uint32_t>(plan_.paths.size());
      plan_.paths.push_back({MappedPath{}, std::move(text)});
    }
  } else {
    op.path[0] = resolve_path(e, *si, 0, st);
    op.path[1] = resolve_path(e, *si, 1, st);
  }
  if (si->fd >= 0) op.ofd = st.table->lookup(fdarg(si->fd));
  else if (op.path[0] == kNoPath && si->dirfd[0] >= 0 && fdarg(si->dirfd[0]) != kAtFdcwd)
    op.ofd = st.table->lookup(fdarg(si->dirfd[0]));  // AT_EMPTY_PATH / NULL path forms

  // glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH): the recorder names
  // the fd's path, but the original walked no path. Replay it as the fd form.
  if ((e.nr == SYS_newfstatat && (e.args[3] & AT_EMPTY_PATH)) ||
      (e.nr == SYS_statx && (e.args[2] & AT_EMPTY_PATH))) {
    int dfd = fdarg(si->dirfd[0]);
    uint32_t o = dfd == kAtFdcwd ? kNoOfd : st.table->lookup(dfd);
    if (o != kNoOfd && plan_.ofds[o].path != kNoPath && plan_.ofds[o].path == op.path[0]) {
      op.ofd = o;
      op.path[0] = kNoPath;
    }
  }

  const bool has_path = op.path[0] != kNoPath;
  op.action = has_path ? OpAction::kIssue : OpAction::kSkip;
  if (si->flags & kSfNamespace) {
    switch (e.nr) {
      case SYS_rename: case SYS_renameat: case SYS_renameat2: f.ns_mask = 3; break;
      case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat: f.ns_mask = 2; break;
      default: f.ns_mask = 1;
    }
    if (e.nr == SYS_linkat && op.path[0] == kNoPath) op.action = OpAction::kSkip;
    if ((e.nr == SYS_symlink || e.nr == SYS_symlinkat) && op.path[1] == kNoPath)
      op.action = OpAction::kSkip;
  }

  switch (e.nr) {
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      uint32_t flags = e.nr == SYS_open ? static_cast<uint32_t>(e.args[1])
                       : e.nr == SYS_openat ? static_cast<uint32_t>(e.args[2])
                       : e.nr == SYS_creat ? (O_CREAT | O_WRONLY | O_TRUNC) : O_RDONLY;
      if (flags & O_CREAT) f.ns_mask |= 1;
      if (ret >= 0 && has_path) {
        bool dir = (flags & O_DIRECTORY) || S_ISDIR(e.mode);
        op.new_ofd = new_ofd(dir ? OfdKind::kDir : OfdKind::kFile, op.path[0], flags);
        st.table->bind(static_cast<int>(ret), op.new_ofd, (flags & O_CLOEXEC) != 0, closed);
      }
      break;
    }
    case SYS_close:
      // An fd whose OFD keeps other references closes nothing real: emulated.
      op.action = OpAction::kEmulate;
      if (op.ofd != kNoOfd) {
        st.table->close(fdarg(0), closed);
        if (!closed.empty() && is_file(op.ofd)) op.action = OpAction::kIssue;
        closed.clear();  // the issued close is the real close of op.ofd
      }
      break;
    case SYS_close_range:
      op.action = OpAction::kEmulate;
      st.table->close_range(static_cast<unsigned>(e.args[0]), static_cast<unsigned>(e.args[1]),
                            (e.args[2] & 4) != 0, closed);
      break;
    case SYS_dup: case SYS_dup2: case SYS_dup3:
      op.action = OpAction::kEmulate;
      if (ret >= 0 && op.ofd != kNoOfd && static_cast<int>(ret) != fdarg(0))
        st.table->bind(static_cast<int>(ret), op.ofd,
                       e.nr == SYS_dup3 && (e.args[2] & O_CLOEXEC), closed);
      break;
    case SYS_fcntl: {
      int cmd = static_cast<int>(e.args[1]);
      fd_op_action(op);
      if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 && op.ofd != kNoOfd) {
        st.table->bind(static_cast<int>(ret), op.ofd, cmd == F_DUPFD_CLOEXEC, closed);
        op.action = OpAction::kEmulate;
      } else if (cmd == F_SETFD) {
        st.table->set_cloexec(fdarg(0), (e.args[2] & FD_CLOEXEC) != 0);
      } else if (cmd != F_GETFD && cmd != F_GETFL && cmd != F_SETFL && op.action == OpAction::kIssue) {
        op.action = OpAction::kEmulate;  // locks and the like take pointers we never recorded
      }
      break;
    }
    case SYS_pipe: case SYS_pipe2: case SYS_socketpair: {
      op.action = OpAction::kEmulate;
      // Recorder convention (bpf/fsreplay_record.h FSR_SF_FD_PAIR): the int[2] is
      // stored in its own argument slot (arg0 for pipe/pipe2, arg3 for
      // socketpair) as fd0 | fd1 << 32.
      const uint64_t pair = e.args[e.nr == SYS_socketpair ? 3 : 0];
      if (ret == 0 && pair != 0) {
        bool sock = e.nr == SYS_socketpair;
        uint32_t a = new_chan(), b = sock ? new_chan() : a;
        uint32_t r = new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
        uint32_t w = new_ofd(sock ? OfdKind::kSocket : OfdKind::kPipe, kNoPath);
        plan_.ofds[r].chan_read = a;
        plan_.ofds[w].chan_write = a;
        if (sock) { plan_.ofds[w].chan_read = b; plan_.ofds[r].chan_write = b; }
        unsigned fl = e.nr == SYS_pipe2 ? static_cast<unsigned>(e.args[1])
                      : e.nr == SYS_socketpair ? static_cast<unsigned>(e.args[1]) : 0;
        bool cx = (fl & O_CLOEXEC) != 0;
        st.table->bind(static_cast<int>(pair & 0xffffffffu), r, cx, closed);
        st.table->bind(static_cast<int>(pair >> 32), w, cx, closed);
      }
      break;
    }
    case SYS_eventfd: case SYS_eventfd2: case SYS_epoll_create1:
      op.action = OpAction::kEmulate;
      if (ret >= 0) {
        bool efd = e.nr != SYS_epoll_create1;
        uint32_t o = new_ofd(efd ? OfdKind::kEventfd : OfdKind::kEpoll, kNoPath);
        if (efd) plan_.ofds[o].chan_read = plan_.ofds[o].chan_write = new_chan();
        st.table->bind(static_cast<int>(ret), o,
                       (e.args[e.nr == SYS_eventfd2 ? 1 : 0] & O_CLOEXEC) != 0, closed);
      }
      break;
    case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork: {
      op.action = OpAction::kEmulate;
      bool thread = (e.flags & kEfThreadClone) || (e.nr == SYS_clone && (e.args[0] & CLONE_THREAD));
      bool share = (e.flags & kEfSharedFiles) || (e.nr == SYS_clone && (e.args[0] & CLONE_FILES));
      bool share_fs = thread || (e.nr == SYS_clone && (e.args[0] & CLONE_FS));
      if (ret > 0) child_created(i, static_cast<uint32_t>(ret), share_fs, share, st);
      break;
    }
    case kEvProcFork: {  // arg0 child tid, arg1 child tgid, arg2 1 when the cwd is shared
      op.action = OpAction::kEmulate;
      bool thread = e.args[1] == e.pid;
      child_created(i, static_cast<uint32_t>(e.args[0]), thread || e.args[2] == 1,
                    (e.flags & kEfSharedFiles) != 0, st);
      break;
    }
    case SYS_execve: case SYS_execveat: case kEvProcExec:
      if (e.nr == kEvProcExec) op.action = OpAction::kEmulate;
      // The kernel's exec record and the execve's own are one exec, in either order.
      if (ret == 0 && (exec_done == 0 || (exec_done == kEvProcExec) == (e.nr == kEvProcExec))) {
        st.table->exec(closed);
        st.exec_done = e.nr;
        maps_.exec(i, e.tid, e.pid);
      }
      break;
    case kEvProcExit:
      op.action = OpAction::kEmulate;
      if (--users_[st.table.get()] == 0) st.table->clear(closed);
      maps_.exit(i, e.tid);
      break;
    case SYS_chdir:
      if (ret == 0 && has_path) *st.cwd = plan_.paths[op.path[0]].abs;
      break;
    case SYS_fchdir:
      op.action = OpAction::kEmulate;
      if (ret == 0 && op.ofd != kNoOfd && plan_.ofds[op.ofd].path != kNoPath)
        *st.cwd = plan_.paths[plan_.ofds[op.ofd].path].abs;
      break;
    case SYS_mmap:
      fd_op_action(op);
      if (op.action == OpAction::kIssue && ret > 0) maps_.mmap(i, e);
      break;
    case SYS_munmap:
      op.action = OpAction::kSkip;
      if (ret == 0) maps_.munmap(i, e);  // (a failed one changed nothing: the trace's own behaviour)
      break;
    case kEvPageFault:
      op.action = in_.mmap_touch && maps_.fault(i, e) ? OpAction::kIssue : OpAction::kSkip;
      break;
    case SYS_getdents: case SYS_getdents64:
      fd_op_action(op);
      if (op.ofd != kNoOfd) f.readdir_dir = plan_.ofds[op.ofd].path;
      break;
    case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
    case SYS_pread64: case SYS_pwrite64: case SYS_preadv: case SYS_pwritev:
    case SYS_preadv2: case SYS_pwritev2: {
      fd_op_action(op);
      if (op.ofd != kNoOfd) {
        bool w = class_of(e.nr) == SyscallClass::kWrite;
        f.chan = w ? plan_.ofds[op.ofd].chan_write : plan_.ofds[op.ofd].chan_read;
        f.chan_write = w;
      }
      break;
    }
    case SYS_copy_file_range: case SYS_splice:
      op.ofd2 = st.table->lookup(fdarg(2));
      fd_op_action(op);
      if (op.action == OpAction::kIssue && !is_file(op.ofd2)) op.action = OpAction::kEmulate;
      break;
    case SYS_sendfile:
      op.ofd2 = st.table->lookup(fdarg(1));
      fd_op_action(op);
      if (op.action == OpAction::kIssue && !is_file(op.ofd2)) op.action = OpAction::kEmulate;
      break;
    case SYS_futex: case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_epoll_ctl:
    case SYS_wait4: case SYS_waitid: case SYS_exit: case SYS_exit_group: case SYS_getcwd:
    case SYS_umask: case SYS_tee: case SYS_sync: case SYS_msync:
      op.action = OpAction::kEmulate;
      break;
    case SYS_mknod: case SYS_mknodat: {
      uint32_t mode = static_cast<uint32_t>(e.args[e.nr == SYS_mknod ? 1 : 2]);
      if (!S_ISREG(mode) && !S_ISFIFO(mode) && (mode & S_IFMT) != 0) op.action = OpAction::kSkip;
      break;
    }
    case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr: case SYS_removexattr:
    case SYS_lremovexattr: case SYS_fremovexattr:
      op.action = OpAction::kSkip;  // the attribute name is a pointer the trace does not hold
      break;
    default:
      if (!has_path) {
        if (si->fd >= 0 || op.ofd != kNoOfd) fd_op_action(op);
        else op.action = OpAction::kEmulate;
      }
  }
  if (f.ns_mask) {
    op.flags |= static_cast<uint8_t>(f.ns_mask << 4);
    for (int k = 0; k < 2; ++k)
      if ((f.ns_mask >> k & 1) && op.path[k] != kNoPath)
        f.parent[k] = intern(std::string(parent_of(plan_.paths[op.path[k]].abs)));
  }
  if (!closed.empty()) set_closes(op, closed);
}

}  // namespace

Plan build_plan(const std::vector<Event>& events, const StringLookup& str, const PlanInputs& in) {
  return Builder(events, str, in).build();
}

}  // namespace fsr
