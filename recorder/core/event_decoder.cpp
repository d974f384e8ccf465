#include "recorder/core/event_decoder.h"

#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

#include "recorder/core/initial_state.h"
#include "recorder/core/syscall_arity.h"
#include "base/paths.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

static_assert(kAtFdcwd == AT_FDCWD);
constexpr uint64_t kCloseRangeCloexec = 4;  // CLOSE_RANGE_CLOEXEC
constexpr int kMaxTrackedFd = 1 << 20;

std::string_view rec_str(const char* s, size_t len) {
  if (len == 0) return {};
  std::string_view v(s, len);
  while (!v.empty() && v.back() == '\0') v.remove_suffix(1);
  return v;
}

}  // namespace

EventDecoder::EventDecoder(uint64_t mono_start_ns, InternFn intern, uint64_t pidns_inum)
    : mono_start_(mono_start_ns), pidns_inum_(pidns_inum), strings_(std::move(intern)) {
  scratch_.reserve(2 * PATH_MAX);
  arity_.fill(6);
  for (const SyscallInfo& s : syscall_table())
    if (s.nr < arity_.size()) arity_[s.nr] = syscall_arity(s.name);
}

EventDecoder::Task& EventDecoder::task(uint32_t pid, uint32_t tid) {
  auto it = tasks_.find(tid);
  if (it != tasks_.end()) return it->second;
  Task t;
  auto leader = tasks_.find(pid);
  if (leader != tasks_.end()) {  // a thread we did not see being created: shares the process tables
    t.files = leader->second.files;
    t.fs = leader->second.fs;
  } else {
    t.files = std::make_shared<FileTable>();
    t.fs = std::make_shared<FsState>();
    char link[64], buf[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/%u/cwd", tid);
    ssize_t n = readlink(link, buf, sizeof(buf));
    if (n > 0) t.fs->cwd = intern(path_in_root(std::string_view(buf, static_cast<size_t>(n)), process_root(tid)));
  }
  return tasks_.emplace(tid, std::move(t)).first->second;
}

void EventDecoder::seed_process(const ProcessState& state) {
  Task& t = task(state.pid, state.pid);
  if (!state.cwd.empty()) t.fs->cwd = dir_id(intern(state.cwd));
  for (const FdEntry& f : state.fds) {
    bool pipe = f.path.rfind("pipe:", 0) == 0 || f.path.rfind("socket:", 0) == 0 ||
                f.path.rfind("anon_inode:", 0) == 0;
    set_fd(t, f.fd, pipe || f.path.empty() || f.path[0] != '/' ? kNoStr : intern(f.path),
           (f.flags & O_CLOEXEC) != 0, pipe);
  }
}

EventDecoder::FdSlot* EventDecoder::slot(Task& t, int64_t fd) {
  if (fd < 0 || fd >= static_cast<int64_t>(t.files->fds.size())) return nullptr;
  FdSlot* s = &t.files->fds[static_cast<size_t>(fd)];
  return s->used ? s : nullptr;
}

void EventDecoder::set_fd(Task& t, int64_t fd, StrId path, bool cloexec, bool pipe) {
  if (fd < 0 || fd >= kMaxTrackedFd) return;
  auto& fds = t.files->fds;
  if (fd >= static_cast<int64_t>(fds.size())) fds.resize(static_cast<size_t>(fd) + 16);
  fds[static_cast<size_t>(fd)] = FdSlot{path, 1, static_cast<uint8_t>(cloexec), static_cast<uint8_t>(pipe)};
}

// Whether "" names the dirfd itself in this call (AT_EMPTY_PATH); elsewhere
// the kernel refuses an empty path with ENOENT before any lookup.
static bool empty_path_allowed(uint16_t nr, const uint64_t* a) {
  switch (nr) {
    case SYS_newfstatat: return a[3] & AT_EMPTY_PATH;
    case SYS_statx: return a[2] & AT_EMPTY_PATH;
    case SYS_fchownat: case SYS_linkat: case SYS_execveat: case SYS_name_to_handle_at: return a[4] & AT_EMPTY_PATH;
    default: return false;
  }
}

StrId EventDecoder::resolve(Task& t, int64_t dirfd, std::string_view p, bool* unresolved) {
  if (!p.empty() && p.front() == '/') {
    paths_.resolve(scratch_, "/", p);
    return intern(scratch_);
  }
  StrId base = kNoStr;
  if (dirfd == kAtFdcwd) {
    base = t.fs->cwd;
  } else if (FdSlot* s = slot(t, dirfd)) {
    base = s->path;
  }
  if (base == kNoStr) {
    *unresolved = true;
    ++unresolved_;
    return p.empty() ? kNoStr : intern(p);
  }
  if (p.empty()) return base;  // AT_EMPTY_PATH: the fd itself
  paths_.resolve(scratch_, str(base), p);
  return intern(scratch_);
}

// A directory's path with its last component physical too: a cwd or a
// directory fd is where relative paths start from.
StrId EventDecoder::dir_id(StrId path) {
  if (path == kNoStr) return kNoStr;
  paths_.resolve_dir(scratch_, str(path));
  return intern(scratch_);
}

bool EventDecoder::decode(const void* rec, size_t size, Event& e) {
  if (!parse_record(rec, size, view_)) return false;
  return decode(view_, e);
}

bool EventDecoder::decode(const RecordView& v, Event& e) {
  const fsr_rec& r = v.hdr;
  const char* s = v.strings;
  e = Event{};
  e.ts = r.ts >= mono_start_ ? r.ts - mono_start_ : 0;
  e.dur = r.end > r.ts ? r.end - r.ts : 0;
  e.ret = r.ret;
  e.pid = r.pid;
  e.tid = r.tid;
  e.flags = r.flags & (kEfPathTruncated | kEfUnfinished | kEfThreadClone | kEfSharedFiles | kEfFdIsPipe);
  if (r.flags & FSR_RF_HAS_INODE) {
    e.dev = v.inode.dev;
    e.ino = v.inode.ino;
    e.size = v.inode.size;
    e.mode = v.inode.mode;
  }
  std::string_view p0 = rec_str(s, r.len0);
  std::string_view p1 = rec_str(s + r.len0, v.len1);
  Task& t = task(r.pid, r.tid);
  bool unresolved = false;
  if (r.kind == FSR_REC_SYSCALL) {  // (a thread's calls complete in order)
    if (t.last_end != UINT64_MAX && e.ts > t.last_end) gaps_ns_ += e.ts - t.last_end;
    t.last_end = e.ts + e.dur;
  }

  switch (r.kind) {
    case FSR_REC_FORK: {
      e.nr = kEvProcFork;
      e.dur = 0;  // a marker at the enter time of the call it happened in
      e.args[0] = v.args[0];
      e.args[1] = v.args[1];
      e.args[2] = (r.flags & FSR_RF_SHARED_FS) ? 1 : 0;
      e.ret = 0;
      Task child;
      child.files = (r.flags & FSR_RF_SHARED_FILES) ? t.files : std::make_shared<FileTable>(*t.files);
      child.fs = (r.flags & FSR_RF_SHARED_FS) ? t.fs : std::make_shared<FsState>(*t.fs);
      child.pidns = t.pidns;
      if (r.arg_mask & (1u << (FSR_FORK_NS_ARGS - 1))) child.pidns = note_ns_pids(v);
      tasks_[static_cast<uint32_t>(v.args[0])] = std::move(child);
      return true;
    }
    case FSR_REC_EXEC:
      e.nr = kEvProcExec;
      e.dur = 0;
      e.args[0] = v.args[0];
      e.ret = 0;
      e.path[0] = p0.empty() ? kNoStr : resolve(t, kAtFdcwd, p0, &unresolved);
      e.path[1] = p1.empty() ? kNoStr : intern(p1);
      t.pending_exec = e.path[0];
      if (unresolved) e.flags |= kEfPathUnresolved;
      return true;
    case FSR_REC_EXIT:
      e.nr = kEvProcExit;
      e.args[0] = v.args[0];
      e.args[1] = v.args[1];
      tasks_.erase(r.tid);
      return true;
    case FSR_REC_FAULT: {
      ++fault_records_;
      e.nr = kEvPageFault;
      e.args[0] = v.args[0];
      e.args[1] = v.args[1];
      e.args[2] = v.args[2];
      e.ret = 0;
      e.path[0] = inode_paths_.find(v.inode.dev, v.inode.ino);
      // (the filemap tracepoints' records carry the inode's generation)
      if (fault_files_ && (r.flags & FSR_RF_HAS_INODE) && (r.arg_mask & (1u << 3)))
        fault_files_->fault(r.pid, static_cast<uint32_t>(v.inode.dev), v.inode.ino, static_cast<uint32_t>(v.args[3]),
                            e.path[0] != kNoStr ? str(e.path[0]) : std::string_view());
      return true;
    }
    case FSR_REC_SYSCALL:
      break;
    default:
      return false;
  }

  const SyscallInfo* info = syscall_info(r.nr);
  if (!info) return false;
  e.nr = r.nr;
  const int nargs = arity_[r.nr % arity_.size()];
  for (int i = 0; i < nargs; ++i) e.args[i] = (info->ptr_mask & (1u << i)) ? 0 : v.args[i];
  if ((info->flags & kSfFdPairOut) && r.ret == 0) {
    const int a = fd_pair_arg(*info);
    e.args[a] = v.args[a];
  }
  if ((r.flags & FSR_RF_UNFINISHED) && (r.nr == SYS_exit || r.nr == SYS_exit_group)) {
    e.flags &= static_cast<uint16_t>(~kEfUnfinished);  // these never return: that is their normal end
  }

  std::string_view ps[2] = {p0, p1};
  for (int i = 0; i < 2; ++i) {
    if (info->path[i] < 0 || (i == 0 ? r.len0 : v.len1) == 0) continue;
    if (i == 0 && (info->flags & kSfLiteralPath0)) {
      e.path[0] = intern(ps[0]);
      continue;
    }
    int64_t dirfd = info->dirfd[i] >= 0 ? static_cast<int32_t>(v.args[info->dirfd[i]]) : kAtFdcwd;
    bool as_given = false;
    e.path[i] = resolve(t, dirfd, ps[i], &as_given);
    unresolved |= as_given;
    // Walked from its dirfd or the cwd: the replay walks it from there too.
    if (!as_given && !ps[i].empty() && ps[i].front() != '/') e.flags |= event_relative_flag(i);
    if (i == 0 && ps[0].empty() && !empty_path_allowed(r.nr, e.args)) e.flags |= kEfEmptyPath;
    // "x/" and "x/." normalise to x; the call's result depended on the ending
    // (a path stored as given, unresolved or truncated, keeps its own text).
    if (!as_given && !(e.flags & kEfPathTruncated))
      set_event_tail_code(e, i, static_cast<uint8_t>(path_tail(ps[i])));
  }
  const bool is_exec = r.nr == SYS_execve || r.nr == SYS_execveat;
  if (is_exec && r.ret == 0) {
    e.path[0] = t.pending_exec;  // (the exec record's path, resolved against the cwd as passed)
    e.flags &= static_cast<uint16_t>(~kEfRelative0);
  }

  if (info->fd >= 0 && e.path[0] == kNoStr) {
    bool anon_map = r.nr == SYS_mmap && (v.args[3] & MAP_ANONYMOUS);
    if (FdSlot* sl = anon_map ? nullptr : slot(t, static_cast<int32_t>(v.args[info->fd])))
      e.path[0] = sl->path;
  }
  if (unresolved) e.flags |= kEfPathUnresolved;
  const bool wants_inode = ((info->flags & (kSfStatBuf | kSfStatxBuf)) ||
                            (info->cls == SyscallClass::kOpen && (info->flags & kSfReturnsFd)));
  if (wants_inode && r.ret >= 0 && !(r.flags & FSR_RF_HAS_INODE)) e.flags |= kEfNoInode;
  if ((r.flags & FSR_RF_HAS_INODE) && e.path[0] != kNoStr && r.ret >= 0 && !(info->flags & kSfStatBuf) &&
      !(info->flags & kSfStatxBuf))
    inode_paths_.set(v.inode.dev, v.inode.ino, e.path[0]);
  if (t.pidns) map_ns_pids(t, e);
  if (r.ret >= 0) apply(v, t, e);
  return true;
}

// A fork in or into a PID namespace below the recording's: the pids the
// parent's and the child's namespaces give the child, for map_ns_pids.
uint64_t EventDecoder::note_ns_pids(const RecordView& v) {
  const uint32_t tid = static_cast<uint32_t>(v.args[0]);
  const uint64_t parent_ns = v.args[3], child_ns = v.args[5];
  if (parent_ns != pidns_inum_ && v.args[2] != 0) ns_pids_[ns_key(parent_ns, v.args[2])] = tid;
  if (child_ns == pidns_inum_) return 0;
  if (v.args[4] != 0) ns_pids_[ns_key(child_ns, v.args[4])] = tid;
  return child_ns;
}

// Pids a task in a namespace below the recording's got from the kernel (what
// fork-like calls return, what wait4 takes and returns) are that
// namespace's: numbered as the recording's namespace numbers the same tasks.
void EventDecoder::map_ns_pids(const Task& t, Event& e) {
  auto ours = [&](int64_t local) -> int64_t {
    if (local <= 0) return local;
    auto it = ns_pids_.find(ns_key(t.pidns, static_cast<uint64_t>(local)));
    return it != ns_pids_.end() ? it->second : local;
  };
  switch (e.nr) {
    case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
      e.ret = ours(e.ret);
      break;
    case SYS_wait4:
      e.ret = ours(e.ret);
      if (static_cast<int32_t>(e.args[0]) > 0) e.args[0] = static_cast<uint64_t>(ours(static_cast<int32_t>(e.args[0])));
      break;
    case SYS_waitid:
      if (e.args[0] == P_PID) e.args[1] = static_cast<uint64_t>(ours(static_cast<int32_t>(e.args[1])));
      break;
    default:
      break;
  }
}

void EventDecoder::apply(const RecordView& v, Task& t, Event& e) {
  const fsr_rec& r = v.hdr;
  const int64_t ret = r.ret;
  const bool pipe = (r.flags & FSR_RF_FD_IS_PIPE) != 0;
  // The fd of a directory opened through a symlink is the directory itself.
  auto opened = [&] { return (r.flags & FSR_RF_HAS_INODE) && S_ISDIR(v.inode.mode) ? dir_id(e.path[0]) : e.path[0]; };
  auto dup_to = [&](int64_t from, int64_t to, bool cloexec) {
    if (from == to) return;
    FdSlot* src = slot(t, from);
    set_fd(t, to, src ? src->path : kNoStr, cloexec, src ? src->pipe : 0);
  };
  switch (r.nr) {
    case SYS_open:
      set_fd(t, ret, opened(), (v.args[1] & O_CLOEXEC) != 0, pipe);
      break;
    case SYS_creat:
    case SYS_openat2:  // how->flags is behind a pointer: close-on-exec unknown, assumed off
      set_fd(t, ret, opened(), false, pipe);
      break;
    case SYS_openat:
      set_fd(t, ret, opened(), (v.args[2] & O_CLOEXEC) != 0, pipe);
      break;
    case SYS_dup:
    case SYS_dup2:
      dup_to(static_cast<int32_t>(v.args[0]), ret, false);
      break;
    case SYS_dup3:
      dup_to(static_cast<int32_t>(v.args[0]), ret, (v.args[2] & O_CLOEXEC) != 0);
      break;
    case SYS_fcntl: {
      int64_t fd = static_cast<int32_t>(v.args[0]);
      if (v.args[1] == F_DUPFD || v.args[1] == F_DUPFD_CLOEXEC) {
        dup_to(fd, ret, v.args[1] == F_DUPFD_CLOEXEC);
      } else if (v.args[1] == F_SETFD) {
        if (FdSlot* sl = slot(t, fd)) sl->cloexec = (v.args[2] & FD_CLOEXEC) ? 1 : 0;
      }
      break;
    }
    case SYS_close:
      if (FdSlot* sl = slot(t, static_cast<int32_t>(v.args[0]))) *sl = FdSlot{};
      break;
    case SYS_close_range: {
      auto& fds = t.files->fds;
      uint64_t last = std::min<uint64_t>(v.args[1], fds.empty() ? 0 : fds.size() - 1);
      for (uint64_t fd = v.args[0]; fd <= last && fd < fds.size(); ++fd) {
        if (v.args[2] & kCloseRangeCloexec)
          fds[fd].cloexec = 1;
        else
          fds[fd] = FdSlot{};
      }
      break;
    }
    case SYS_pipe:
    case SYS_pipe2: {
      bool cloexec = r.nr == SYS_pipe2 && (v.args[1] & O_CLOEXEC);
      set_fd(t, static_cast<int32_t>(e.args[0] & 0xffffffff), kNoStr, cloexec, true);
      set_fd(t, static_cast<int32_t>(e.args[0] >> 32), kNoStr, cloexec, true);
      break;
    }
    case SYS_socketpair: {
      bool cloexec = (v.args[1] & O_CLOEXEC) != 0;  // SOCK_CLOEXEC == O_CLOEXEC
      set_fd(t, static_cast<int32_t>(e.args[3] & 0xffffffff), kNoStr, cloexec, true);
      set_fd(t, static_cast<int32_t>(e.args[3] >> 32), kNoStr, cloexec, true);
      break;
    }
    case SYS_eventfd:
      set_fd(t, ret, kNoStr, false, true);
      break;
    case SYS_eventfd2:
      set_fd(t, ret, kNoStr, (v.args[1] & O_CLOEXEC) != 0, true);
      break;
    case SYS_epoll_create1:
      set_fd(t, ret, kNoStr, (v.args[0] & O_CLOEXEC) != 0, true);
      break;
    case SYS_chdir:
      if (e.path[0] != kNoStr && !(e.flags & kEfPathUnresolved)) t.fs->cwd = dir_id(e.path[0]);
      break;
    // What the trace changes about which paths are symlinks.
    case SYS_symlink:
    case SYS_symlinkat:
      if (e.path[0] != kNoStr && e.path[1] != kNoStr) paths_.add_link(str(e.path[1]), str(e.path[0]));
      break;
    case SYS_unlink:
    case SYS_unlinkat:
    case SYS_rmdir:
      if (e.path[0] != kNoStr) paths_.removed(str(e.path[0]));
      break;
    case SYS_mkdir:
    case SYS_mkdirat:
      if (e.path[0] != kNoStr) paths_.made_dir(str(e.path[0]));
      break;
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2:
      if (e.path[0] != kNoStr && e.path[1] != kNoStr) paths_.renamed(str(e.path[0]), str(e.path[1]));
      break;
    case SYS_fchdir:
      if (FdSlot* sl = slot(t, static_cast<int32_t>(v.args[0])); sl && sl->path) t.fs->cwd = sl->path;
      break;
    case SYS_execve:
    case SYS_execveat: {
      // exec unshares the fd table and closes close-on-exec fds.
      auto files = std::make_shared<FileTable>(*t.files);
      for (FdSlot& sl : files->fds)
        if (sl.used && sl.cloexec) sl = FdSlot{};
      t.files = std::move(files);
      t.pending_exec = kNoStr;
      break;
    }
    default:
      break;
  }
}

}  // namespace fsr
