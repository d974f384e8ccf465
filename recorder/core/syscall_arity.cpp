// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/syscall_arity.h"

#include <algorithm>
#include <array>
#include <utility>

namespace fsr {
namespace {

using A = std::pair<std::string_view, uint8_t>;
constexpr A kArity[] = {
    {"access", 2},
    {"chdir", 1},
    {"chmod", 2},
    {"chown", 3},
    {"clone", 5},
    {"clone3", 2},
    {"close", 1},
    {"close_range", 3},
    {"copy_file_range", 6},
    {"creat", 2},
    {"dup", 1},
    {"dup2", 2},
    {"dup3", 3},
    {"epoll_create1", 1},
    {"epoll_ctl", 4},
    {"epoll_pwait", 6},
    {"epoll_pwait2", 6},
    {"epoll_wait", 4},
    {"eventfd", 1},
    {"eventfd2", 2},
    {"execve", 3},
    {"execveat", 5},
    {"exit", 1},
    {"exit_group", 1},
    {"faccessat", 3},
    {"faccessat2", 4},
    {"fadvise64", 4},
    {"fallocate", 4},
    {"fchdir", 1},
    {"fchmod", 2},
    {"fchmodat", 3},
    {"fchown", 3},
    {"fchownat", 5},
    {"fcntl", 3},
    {"fdatasync", 1},
    {"fgetxattr", 4},
    {"flistxattr", 3},
    {"flock", 2},
    {"fork", 0},
    {"fremovexattr", 2},
    {"fsetxattr", 5},
    {"fstat", 2},
    {"fstatfs", 2},
    {"fsync", 1},
    {"ftruncate", 2},
    {"futex", 6},
    {"futimesat", 3},
    {"getcwd", 2},
    {"getdents", 3},
    {"getdents64", 3},
    {"getxattr", 4},
    {"io_uring_enter", 6},
    {"io_uring_setup", 2},
    {"lchown", 3},
    {"lgetxattr", 4},
    {"link", 2},
    {"linkat", 5},
    {"listxattr", 3},
    {"llistxattr", 3},
    {"lremovexattr", 2},
    {"lseek", 3},
    {"lsetxattr", 5},
    {"lstat", 2},
    {"mkdir", 2},
    {"mkdirat", 3},
    {"mknod", 3},
    {"mknodat", 4},
    {"mmap", 6},
    {"msync", 3},
    {"munmap", 2},
    {"newfstatat", 4},
    {"open", 3},
    {"openat", 4},
    {"openat2", 4},
    {"pipe", 1},
    {"pipe2", 2},
    {"poll", 3},
    {"ppoll", 5},
    {"pread64", 4},
    {"preadv", 5},
    {"preadv2", 6},
    {"pselect6", 6},
    {"pwrite64", 4},
    {"pwritev", 5},
    {"pwritev2", 6},
    {"read", 3},
    {"readahead", 3},
    {"readlink", 3},
    {"readlinkat", 4},
    {"readv", 3},
    {"removexattr", 2},
    {"rename", 2},
    {"renameat", 4},
    {"renameat2", 5},
    {"rmdir", 1},
    {"select", 5},
    {"sendfile", 4},
    {"setxattr", 5},
    {"socketpair", 4},
    {"splice", 6},
    {"stat", 2},
    {"statfs", 2},
    {"statx", 5},
    {"symlink", 2},
    {"symlinkat", 3},
    {"sync", 0},
    {"sync_file_range", 4},
    {"syncfs", 1},
    {"tee", 4},
    {"truncate", 2},
    {"umask", 1},
    {"unlink", 1},
    {"unlinkat", 3},
    {"utime", 2},
    {"utimensat", 4},
    {"utimes", 2},
    {"vfork", 0},
    {"wait4", 4},
    {"waitid", 5},
    {"write", 3},
    {"writev", 3},
};

}  // namespace

uint8_t syscall_arity(std::string_view name) {
  static_assert(
      std::is_sorted(std::begin(kArity), std::end(kArity), [](const A& a, const A& b) { return a.first < b.first; }));
  auto it = std::lower_bound(std::begin(kArity), std::end(kArity), name,
                             [](const A& a, std::string_view n) { return a.first < n; });
  return (it != std::end(kArity) && it->first == name) ? it->second : 6;
}

int fd_pair_arg(const SyscallInfo& s) { return (s.ptr_mask & 1) ? 0 : 3; }

uint8_t recorded_arg_mask(const SyscallInfo& s) {
  const unsigned below_arity = (1u << syscall_arity(s.name)) - 1;
  unsigned mask = below_arity & ~unsigned{s.ptr_mask};
  if (s.flags & kSfFdPairOut) mask |= 1u << fd_pair_arg(s);
  return static_cast<uint8_t>(mask);
}

bool path_only_on_failure(const SyscallInfo& s) { return s.cls == SyscallClass::kProcess && s.path[0] >= 0; }

}  // namespace fsr
