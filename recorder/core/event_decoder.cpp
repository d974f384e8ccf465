// SPDX-License-Identifier: Apache-2.0
// Decoding one kernel record into an Event: its paths resolved and
// interned, its pids mapped into the recording's PID namespace. The tables
// a call changes are event_decoder_tables.cpp.
#include "recorder/core/event_decoder.h"

#include "recorder/core/release_folder.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <climits>

#include "recorder/core/syscall_arity.h"
#include "base/paths.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

static_assert(kAtFdcwd == AT_FDCWD);

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

// Whether "" names the dirfd itself in this call (AT_EMPTY_PATH); elsewhere
// the kernel refuses an empty path with ENOENT before any lookup.
static bool empty_path_allowed(uint16_t nr, const uint64_t* a) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_newfstatat: return a[3] & AT_EMPTY_PATH;
    case SYS_statx: return a[2] & AT_EMPTY_PATH;
    case SYS_fchownat: case SYS_linkat: case SYS_execveat: case SYS_name_to_handle_at: return a[4] & AT_EMPTY_PATH;
    default: return false;
  }
  // clang-format on
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
  release_pending_ = r.kind == FSR_REC_SYSCALL && (r.flags & FSR_RF_RELEASE_PENDING);
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
  const std::string_view paths[2] = {rec_str(s, r.len0), rec_str(s + r.len0, v.len1)};
  Task& t = task(r.pid, r.tid);
  switch (r.kind) {
    case FSR_REC_FORK:
      decode_fork(v, t, e);
      return true;
    case FSR_REC_EXEC: {
      e.nr = kEvProcExec;
      e.dur = 0;
      e.args[0] = v.args[0];
      e.ret = 0;
      bool unresolved = false;
      e.path[0] = paths[0].empty() ? kNoStr : resolve(t, kAtFdcwd, paths[0], &unresolved);
      e.path[1] = paths[1].empty() ? kNoStr : intern(paths[1]);
      t.pending_exec = e.path[0];
      if (unresolved) e.flags |= kEfPathUnresolved;
      return true;
    }
    case FSR_REC_EXIT:
      e.nr = kEvProcExit;
      e.args[0] = v.args[0];
      e.args[1] = v.args[1];
      tasks_.erase(r.tid);
      return true;
    case FSR_REC_FAULT:
      decode_fault(v, e);
      return true;
    case FSR_REC_RELEASE:
      // Part of the thread's last call, not of the gap after it.
      e.nr = kEvDeferredRelease;
      e.dur = v.args[0];
      e.ret = 0;
      if (t.last_end != UINT64_MAX) t.last_end += e.dur;
      return true;
    case FSR_REC_SYSCALL:
      // (a thread's calls complete in order)
      if (t.last_end != UINT64_MAX && e.ts > t.last_end) gaps_ns_ += e.ts - t.last_end;
      t.last_end = e.ts + e.dur;
      return decode_syscall(v, t, paths, e);
    default:
      return false;
  }
}

// The child gets the parent's fd table and cwd, shared or copied as the
// clone flags said.
void EventDecoder::decode_fork(const RecordView& v, const Task& t, Event& e) {
  const fsr_rec& r = v.hdr;
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
}

void EventDecoder::decode_fault(const RecordView& v, Event& e) {
  const fsr_rec& r = v.hdr;
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
}

bool EventDecoder::decode_syscall(const RecordView& v, Task& t, const std::string_view (&paths)[2], Event& e) {
  const fsr_rec& r = v.hdr;
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

  const bool unresolved = resolve_call_paths(v, *info, t, paths, e);
  const bool is_exec = r.nr == SYS_execve || r.nr == SYS_execveat;
  if (is_exec && r.ret == 0) {
    e.path[0] = t.pending_exec;  // (the exec record's path, resolved against the cwd as passed)
    e.flags &= static_cast<uint16_t>(~kEfRelative0);
  }

  if (info->fd >= 0 && e.path[0] == kNoStr) {
    bool anon_map = r.nr == SYS_mmap && (v.args[3] & MAP_ANONYMOUS);
    if (FdSlot* sl = anon_map ? nullptr : slot(t, static_cast<int32_t>(v.args[info->fd]))) e.path[0] = sl->path;
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

// The call's path arguments, resolved against its dirfds or the cwd; true
// when one of them could not be (kept as given).
bool EventDecoder::resolve_call_paths(const RecordView& v, const SyscallInfo& info, Task& t,
                                      const std::string_view (&paths)[2], Event& e) {
  const fsr_rec& r = v.hdr;
  bool unresolved = false;
  for (int i = 0; i < 2; ++i) {
    if (info.path[i] < 0 || (i == 0 ? r.len0 : v.len1) == 0) continue;
    if (i == 0 && (info.flags & kSfLiteralPath0)) {
      e.path[0] = intern(paths[0]);
      continue;
    }
    int64_t dirfd = info.dirfd[i] >= 0 ? static_cast<int32_t>(v.args[info.dirfd[i]]) : kAtFdcwd;
    bool as_given = false;
    e.path[i] = resolve(t, dirfd, paths[i], &as_given);
    unresolved |= as_given;
    // Walked from its dirfd or the cwd: the replay walks it from there too.
    if (!as_given && !paths[i].empty() && paths[i].front() != '/') e.flags |= event_relative_flag(i);
    if (i == 0 && paths[0].empty() && !empty_path_allowed(r.nr, e.args)) e.flags |= kEfEmptyPath;
    // "x/" and "x/." normalise to x; the call's result depended on the ending
    // (a path stored as given, unresolved or truncated, keeps its own text).
    if (!as_given && !(e.flags & kEfPathTruncated))
      set_event_tail_code(e, i, static_cast<uint8_t>(path_tail(paths[i])));
  }
  return unresolved;
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
  // The case labels stay packed, one line per family of calls.
  // clang-format off
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
  // clang-format on
}

}  // namespace fsr
