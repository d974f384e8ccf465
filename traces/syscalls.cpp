// SPDX-License-Identifier: Apache-2.0
#include "traces/syscalls.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <string>

#if !defined(__x86_64__)
#error "the syscall table is for x86-64"
#endif

namespace fsr {
namespace {

constexpr std::array<std::string_view, kClassCount> kClassNames = {
    "stat", "open", "close", "read", "write", "readdir", "mkdir", "rmdir",   "unlink", "rename",
    "link", "attr", "xattr", "sync", "mmap",  "copy",    "fd",    "process", "wait",   "other"};

using C = SyscallClass;
constexpr int8_t N = -1;
constexpr uint8_t P(int a) { return static_cast<uint8_t>(1u << a); }

// Shorthands for the common shapes.
constexpr SyscallInfo path1(uint16_t nr, std::string_view name, C cls, uint16_t flags = 0, uint8_t extra_ptr = 0) {
  return {nr, name, cls, {0, N}, {N, N}, N, N, static_cast<uint8_t>(P(0) | extra_ptr), flags};
}
constexpr SyscallInfo at1(uint16_t nr, std::string_view name, C cls, uint16_t flags = 0, uint8_t extra_ptr = 0) {
  return {nr, name, cls, {1, N}, {0, N}, N, N, static_cast<uint8_t>(P(1) | extra_ptr), flags};
}
constexpr SyscallInfo fd0(uint16_t nr, std::string_view name, C cls, uint16_t flags = 0, uint8_t ptr = 0) {
  return {nr, name, cls, {N, N}, {N, N}, 0, N, ptr, flags};
}
constexpr SyscallInfo bare(uint16_t nr, std::string_view name, C cls, uint16_t flags = 0, uint8_t ptr = 0) {
  return {nr, name, cls, {N, N}, {N, N}, N, N, ptr, flags};
}

constexpr uint16_t kNs = kSfNamespace;

// Sorted by number (checked at startup by the table test).
constexpr SyscallInfo kTable[] = {
    fd0(SYS_read, "read", C::kRead, kSfBlocking, P(1)),
    fd0(SYS_write, "write", C::kWrite, kSfWakes, P(1)),
    path1(SYS_open, "open", C::kOpen, kSfReturnsFd),
    fd0(SYS_close, "close", C::kClose, kSfWakes),
    {SYS_stat, "stat", C::kStat, {0, N}, {N, N}, N, 1, P(0) | P(1), kSfStatBuf},
    {SYS_fstat, "fstat", C::kStat, {N, N}, {N, N}, 0, 1, P(1), kSfStatBuf},
    {SYS_lstat, "lstat", C::kStat, {0, N}, {N, N}, N, 1, P(0) | P(1), kSfStatBuf},
    bare(SYS_poll, "poll", C::kWait, kSfBlocking, P(0)),
    fd0(SYS_lseek, "lseek", C::kFd),
    {SYS_mmap, "mmap", C::kMmap, {N, N}, {N, N}, 4, N, 0, 0},
    bare(SYS_munmap, "munmap", C::kMmap),
    fd0(SYS_pread64, "pread64", C::kRead, 0, P(1)),
    fd0(SYS_pwrite64, "pwrite64", C::kWrite, 0, P(1)),
    fd0(SYS_readv, "readv", C::kRead, kSfBlocking, P(1)),
    fd0(SYS_writev, "writev", C::kWrite, kSfWakes, P(1)),
    path1(SYS_access, "access", C::kStat),
    bare(SYS_pipe, "pipe", C::kFd, kSfFdPairOut, P(0)),
    bare(SYS_select, "select", C::kWait, kSfBlocking, P(1) | P(2) | P(3) | P(4)),
    bare(SYS_msync, "msync", C::kSync),
    fd0(SYS_dup, "dup", C::kFd, kSfReturnsFd),
    fd0(SYS_dup2, "dup2", C::kFd, kSfReturnsFd),
    fd0(SYS_sendfile, "sendfile", C::kCopy, 0, P(2)),
    bare(SYS_socketpair, "socketpair", C::kFd, kSfFdPairOut, P(3)),
    bare(SYS_clone, "clone", C::kProcess, 0, P(1) | P(2) | P(3)),
    bare(SYS_fork, "fork", C::kProcess),
    bare(SYS_vfork, "vfork", C::kProcess, kSfBlocking),
    {SYS_execve, "execve", C::kProcess, {0, N}, {N, N}, N, N, P(0) | P(1) | P(2), 0},
    bare(SYS_exit, "exit", C::kProcess, kSfWakes),
    bare(SYS_wait4, "wait4", C::kWait, kSfBlocking, P(1) | P(3)),
    fd0(SYS_fcntl, "fcntl", C::kFd),
    fd0(SYS_flock, "flock", C::kAttr, kSfBlocking),
    fd0(SYS_fsync, "fsync", C::kSync),
    fd0(SYS_fdatasync, "fdatasync", C::kSync),
    path1(SYS_truncate, "truncate", C::kAttr),
    fd0(SYS_ftruncate, "ftruncate", C::kAttr),
    fd0(SYS_getdents, "getdents", C::kReaddir, 0, P(1)),
    bare(SYS_getcwd, "getcwd", C::kOther, 0, P(0)),
    path1(SYS_chdir, "chdir", C::kOther),
    fd0(SYS_fchdir, "fchdir", C::kOther),
    {SYS_rename, "rename", C::kRename, {0, 1}, {N, N}, N, N, P(0) | P(1), kNs},
    path1(SYS_mkdir, "mkdir", C::kMkdir, kNs),
    path1(SYS_rmdir, "rmdir", C::kRmdir, kNs),
    path1(SYS_creat, "creat", C::kOpen, kSfReturnsFd | kNs),
    {SYS_link, "link", C::kLink, {0, 1}, {N, N}, N, N, P(0) | P(1), kNs},
    path1(SYS_unlink, "unlink", C::kUnlink, kNs),
    {SYS_symlink, "symlink", C::kLink, {0, 1}, {N, N}, N, N, P(0) | P(1), kSfLiteralPath0 | kNs},
    path1(SYS_readlink, "readlink", C::kStat, 0, P(1)),
    path1(SYS_chmod, "chmod", C::kAttr),
    fd0(SYS_fchmod, "fchmod", C::kAttr),
    path1(SYS_chown, "chown", C::kAttr),
    fd0(SYS_fchown, "fchown", C::kAttr),
    path1(SYS_lchown, "lchown", C::kAttr),
    bare(SYS_umask, "umask", C::kOther),
    path1(SYS_utime, "utime", C::kAttr, 0, P(1)),
    path1(SYS_mknod, "mknod", C::kOpen, kNs),
    path1(SYS_statfs, "statfs", C::kStat, 0, P(1)),
    fd0(SYS_fstatfs, "fstatfs", C::kStat, 0, P(1)),
    bare(SYS_sync, "sync", C::kSync),
    fd0(SYS_readahead, "readahead", C::kRead),
    path1(SYS_setxattr, "setxattr", C::kAttr, 0, P(1) | P(2)),
    path1(SYS_lsetxattr, "lsetxattr", C::kAttr, 0, P(1) | P(2)),
    fd0(SYS_fsetxattr, "fsetxattr", C::kAttr, 0, P(1) | P(2)),
    path1(SYS_getxattr, "getxattr", C::kXattr, 0, P(1) | P(2)),
    path1(SYS_lgetxattr, "lgetxattr", C::kXattr, 0, P(1) | P(2)),
    fd0(SYS_fgetxattr, "fgetxattr", C::kXattr, 0, P(1) | P(2)),
    path1(SYS_listxattr, "listxattr", C::kXattr, 0, P(1)),
    path1(SYS_llistxattr, "llistxattr", C::kXattr, 0, P(1)),
    fd0(SYS_flistxattr, "flistxattr", C::kXattr, 0, P(1)),
    path1(SYS_removexattr, "removexattr", C::kAttr, 0, P(1)),
    path1(SYS_lremovexattr, "lremovexattr", C::kAttr, 0, P(1)),
    fd0(SYS_fremovexattr, "fremovexattr", C::kAttr, 0, P(1)),
    bare(SYS_futex, "futex", C::kWait, kSfBlocking | kSfWakes, P(3) | P(4)),
    fd0(SYS_getdents64, "getdents64", C::kReaddir, 0, P(1)),
    fd0(SYS_fadvise64, "fadvise64", C::kOther),
    bare(SYS_exit_group, "exit_group", C::kProcess, kSfWakes),
    bare(SYS_epoll_wait, "epoll_wait", C::kWait, kSfBlocking, P(1)),
    fd0(SYS_epoll_ctl, "epoll_ctl", C::kFd, 0, P(3)),
    path1(SYS_utimes, "utimes", C::kAttr, 0, P(1)),
    bare(SYS_waitid, "waitid", C::kWait, kSfBlocking, P(2) | P(4)),
    at1(SYS_openat, "openat", C::kOpen, kSfReturnsFd),
    at1(SYS_mkdirat, "mkdirat", C::kMkdir, kNs),
    at1(SYS_mknodat, "mknodat", C::kOpen, kNs),
    at1(SYS_fchownat, "fchownat", C::kAttr, kSfEmptyPathForm),
    at1(SYS_futimesat, "futimesat", C::kAttr, 0, P(2)),
    {SYS_newfstatat, "newfstatat", C::kStat, {1, N}, {0, N}, N, 2, P(1) | P(2), kSfStatBuf | kSfPathOptional},
    at1(SYS_unlinkat, "unlinkat", C::kUnlink, kNs),
    {SYS_renameat, "renameat", C::kRename, {1, 3}, {0, 2}, N, N, P(1) | P(3), kNs},
    {SYS_linkat, "linkat", C::kLink, {1, 3}, {0, 2}, N, N, P(1) | P(3), kNs | kSfEmptyPathForm},
    {SYS_symlinkat, "symlinkat", C::kLink, {0, 2}, {N, 1}, N, N, P(0) | P(2), kSfLiteralPath0 | kNs},
    at1(SYS_readlinkat, "readlinkat", C::kStat, 0, P(2)),
    at1(SYS_fchmodat, "fchmodat", C::kAttr, kSfEmptyPathForm),
    at1(SYS_faccessat, "faccessat", C::kStat),
    bare(SYS_pselect6, "pselect6", C::kWait, kSfBlocking, P(1) | P(2) | P(3) | P(4) | P(5)),
    bare(SYS_ppoll, "ppoll", C::kWait, kSfBlocking, P(0) | P(2) | P(3)),
    fd0(SYS_splice, "splice", C::kCopy, 0, P(1) | P(3)),
    fd0(SYS_tee, "tee", C::kCopy),
    fd0(SYS_sync_file_range, "sync_file_range", C::kSync),
    at1(SYS_utimensat, "utimensat", C::kAttr, kSfPathOptional, P(2)),
    bare(SYS_epoll_pwait, "epoll_pwait", C::kWait, kSfBlocking, P(1) | P(4)),
    bare(SYS_eventfd, "eventfd", C::kFd, kSfReturnsFd),
    fd0(SYS_fallocate, "fallocate", C::kAttr),
    bare(SYS_eventfd2, "eventfd2", C::kFd, kSfReturnsFd),
    bare(SYS_epoll_create1, "epoll_create1", C::kFd, kSfReturnsFd),
    fd0(SYS_dup3, "dup3", C::kFd, kSfReturnsFd),
    bare(SYS_pipe2, "pipe2", C::kFd, kSfFdPairOut, P(0)),
    fd0(SYS_preadv, "preadv", C::kRead, 0, P(1)),
    fd0(SYS_pwritev, "pwritev", C::kWrite, 0, P(1)),
    fd0(SYS_syncfs, "syncfs", C::kSync),
    {SYS_renameat2, "renameat2", C::kRename, {1, 3}, {0, 2}, N, N, P(1) | P(3), kNs},
    {SYS_execveat, "execveat", C::kProcess, {1, N}, {0, N}, N, N, P(1) | P(2) | P(3), kSfPathOptional},
    fd0(SYS_copy_file_range, "copy_file_range", C::kCopy, 0, P(1) | P(3)),
    fd0(SYS_preadv2, "preadv2", C::kRead, 0, P(1)),
    fd0(SYS_pwritev2, "pwritev2", C::kWrite, 0, P(1)),
    {SYS_statx, "statx", C::kStat, {1, N}, {0, N}, N, 4, P(1) | P(4), kSfStatxBuf | kSfPathOptional},
    bare(SYS_io_uring_setup, "io_uring_setup", C::kOther, kSfIoUring, P(1)),
    fd0(SYS_io_uring_enter, "io_uring_enter", C::kOther, kSfIoUring, P(4)),
    bare(SYS_clone3, "clone3", C::kProcess, 0, P(0)),
    bare(SYS_close_range, "close_range", C::kClose),
    {SYS_openat2, "openat2", C::kOpen, {1, N}, {0, N}, N, N, P(1) | P(2), kSfReturnsFd},
    at1(SYS_faccessat2, "faccessat2", C::kStat, kSfEmptyPathForm),
    bare(SYS_epoll_pwait2, "epoll_pwait2", C::kWait, kSfBlocking, P(1) | P(3) | P(4)),
    bare(kEvProcExec, "proc_exec", C::kProcess),
    bare(kEvProcExit, "proc_exit", C::kProcess, kSfWakes),
    bare(kEvPageFault, "page_fault", C::kMmap),
    bare(kEvProcFork, "proc_fork", C::kProcess),
};

// Table position by number (the planner, the simulator and the reports ask
// several times per event): kNone where the table has no entry.
constexpr uint16_t kNone = UINT16_MAX;
constexpr size_t kIndexSize = size_t{kTable[std::size(kTable) - 1].nr} + 1;  // (sorted: the last is the largest)
constexpr std::array<uint16_t, kIndexSize> make_index() {
  std::array<uint16_t, kIndexSize> ix{};
  for (uint16_t& k : ix) k = kNone;
  for (size_t k = std::size(kTable); k-- > 0;) ix[kTable[k].nr] = static_cast<uint16_t>(k);  // the first of a number
  return ix;
}
constexpr std::array<uint16_t, kIndexSize> kIndex = make_index();
static_assert(std::size(kTable) < kNone);

}  // namespace

std::string_view class_name(SyscallClass c) {
  auto i = static_cast<size_t>(c);
  return i < kClassNames.size() ? kClassNames[i] : std::string_view("?");
}

std::optional<SyscallClass> class_from_name(std::string_view name) {
  for (size_t i = 0; i < kClassNames.size(); ++i)
    if (kClassNames[i] == name) return static_cast<SyscallClass>(i);
  return std::nullopt;
}

std::span<const SyscallInfo> syscall_table() { return kTable; }

const SyscallInfo* syscall_info(uint32_t nr) {
  if (nr >= kIndexSize || kIndex[nr] == kNone) return nullptr;
  return &kTable[kIndex[nr]];
}

SyscallClass class_of(uint32_t nr) {
  const SyscallInfo* s = syscall_info(nr);
  return s ? s->cls : SyscallClass::kOther;
}

std::string syscall_name(uint32_t nr) {
  const SyscallInfo* s = syscall_info(nr);
  return s ? std::string(s->name) : "sys_" + std::to_string(nr);
}

std::optional<uint16_t> syscall_from_name(std::string_view name) {
  for (const auto& s : kTable)
    if (s.name == name) return s.nr;
  return std::nullopt;
}

uint32_t open_flags(uint32_t nr, uint64_t arg1, uint64_t arg2) {
  switch (nr) {
    case SYS_open:
      return static_cast<uint32_t>(arg1);
    case SYS_openat:
      return static_cast<uint32_t>(arg2);
    case SYS_creat:
      return O_CREAT | O_WRONLY | O_TRUNC;
    default:
      return 0;
  }
}

}  // namespace fsr
