// SPDX-License-Identifier: Apache-2.0
// EventDecoder's per-process tables (event_decoder.h): tasks with their fd
// tables and cwds, created, seeded from /proc, and changed by what each
// successful call did. Decoding a record into an Event is event_decoder.cpp.
#include "recorder/core/event_decoder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>

#include "recorder/core/initial_state.h"
#include "base/paths.h"

namespace fsr {
namespace {

constexpr uint64_t kCloseRangeCloexec = 4;  // CLOSE_RANGE_CLOEXEC
constexpr int kMaxTrackedFd = 1 << 20;

}  // namespace

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
    bool pipe = f.path.rfind("pipe:", 0) == 0 || f.path.rfind("socket:", 0) == 0 || f.path.rfind("anon_inode:", 0) == 0;
    set_fd(t, f.fd, pipe || f.path.empty() || f.path[0] != '/' ? kNoStr : intern(f.path), (f.flags & O_CLOEXEC) != 0,
           pipe);
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

// What a successful call changes in the tables: its fds, the cwd, which
// paths are symlinks. The three groups of calls are disjoint.
void EventDecoder::apply(const RecordView& v, Task& t, const Event& e) {
  apply_new_fds(v, t, e);
  apply_fd_changes(v, t);
  apply_path_changes(v, t, e);
}

// Calls that make fds: opens, pipes, socket pairs, event and epoll fds.
void EventDecoder::apply_new_fds(const RecordView& v, Task& t, const Event& e) {
  const fsr_rec& r = v.hdr;
  const int64_t ret = r.ret;
  const bool pipe = (r.flags & FSR_RF_FD_IS_PIPE) != 0;
  // The fd of a directory opened through a symlink is the directory itself.
  auto opened = [&] { return (r.flags & FSR_RF_HAS_INODE) && S_ISDIR(v.inode.mode) ? dir_id(e.path[0]) : e.path[0]; };
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
    default:
      break;
  }
}

void EventDecoder::dup_fd(Task& t, int64_t from, int64_t to, bool cloexec) {
  if (from == to) return;
  FdSlot* src = slot(t, from);
  set_fd(t, to, src ? src->path : kNoStr, cloexec, src ? src->pipe : 0);
}

// Calls that copy, flag or close fds, and exec, which drops the close-on-exec ones.
void EventDecoder::apply_fd_changes(const RecordView& v, Task& t) {
  const fsr_rec& r = v.hdr;
  const int64_t ret = r.ret;
  switch (r.nr) {
    case SYS_dup:
    case SYS_dup2:
      dup_fd(t, static_cast<int32_t>(v.args[0]), ret, false);
      break;
    case SYS_dup3:
      dup_fd(t, static_cast<int32_t>(v.args[0]), ret, (v.args[2] & O_CLOEXEC) != 0);
      break;
    case SYS_fcntl: {
      int64_t fd = static_cast<int32_t>(v.args[0]);
      if (v.args[1] == F_DUPFD || v.args[1] == F_DUPFD_CLOEXEC) {
        dup_fd(t, fd, ret, v.args[1] == F_DUPFD_CLOEXEC);
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

// Calls that change the cwd, and what the trace changes about which paths
// are symlinks.
void EventDecoder::apply_path_changes(const RecordView& v, Task& t, const Event& e) {
  switch (v.hdr.nr) {
    case SYS_chdir:
      if (e.path[0] != kNoStr && !(e.flags & kEfPathUnresolved)) t.fs->cwd = dir_id(e.path[0]);
      break;
    case SYS_fchdir:
      if (FdSlot* sl = slot(t, static_cast<int32_t>(v.args[0])); sl && sl->path) t.fs->cwd = sl->path;
      break;
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
    default:
      break;
  }
}

}  // namespace fsr
