// SPDX-License-Identifier: Apache-2.0
// The executor's attribute calls: chmod, chown, utimes, truncate by name,
// access, statfs, and the xattr calls (probes by name from the walk's base where the
// kernel has getxattrat). See executor.h.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "replayer/exec/exec_context.h"

namespace fsr::exec {
namespace {

// getxattrat / listxattrat (Linux 6.13, Feature::kXattrAt): the probe from
// the walk's base, one call and one walk, as the original's (ls -l asks every
// file). Older kernels: -ENOSYS, a fallback the result lists (the caller
// walks through /proc instead: the same lookups, three calls).
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif
int64_t xattr_at(Ctx& c, bool list, bool nofollow) {
  if (!c.feat().has(Feature::kXattrAt)) {
    c.fallback(Feature::kXattrAt);
    return -ENOSYS;
  }
  struct {
    uint64_t value;
    uint32_t size, flags;
  } args{0, 0, 0};  // struct xattr_args: size 0 asks only whether, and how long
  const unsigned at = nofollow ? AT_SYMLINK_NOFOLLOW : 0;
  const long r = list ? syscall(SYS_listxattrat, c.dirfd(0), c.rel(0), at, nullptr, 0)
                      : syscall(SYS_getxattrat, c.dirfd(0), c.rel(0), at, "user.fsreplay", &args, sizeof args);
  return rc(r);
}

}  // namespace

std::optional<int64_t> attr_op(Ctx& c) {
  const Event& e = c.e;
  const uint64_t* a = e.args;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_chmod: case SYS_fchmodat: {
      mode_t m = static_cast<mode_t>(a[e.nr == SYS_chmod ? 1 : 2]);
      return with_opath(c, 0, false, [&](int fd) { return rc(chmod(proc_fd(fd).c_str(), m)); });
    }
    case SYS_fchmod: return rc(fchmod(c.fd(), static_cast<mode_t>(a[1])));
    case SYS_chown: case SYS_lchown: case SYS_fchownat: {
      bool nofollow = e.nr == SYS_lchown || (e.nr == SYS_fchownat && (a[4] & AT_SYMLINK_NOFOLLOW));
      if (c.op.path[0] == kNoPath) return rc(fchown(c.fd(), static_cast<uid_t>(-1), static_cast<gid_t>(-1)));
      return with_opath(c, 0, nofollow, [&](int fd) {
        return rc(fchownat(fd, "", static_cast<uid_t>(-1), static_cast<gid_t>(-1), AT_EMPTY_PATH));
      });
    }
    case SYS_fchown: return rc(fchown(c.fd(), static_cast<uid_t>(-1), static_cast<gid_t>(-1)));
    case SYS_utime: case SYS_utimes: case SYS_utimensat: case SYS_futimesat: {
      if (c.op.path[0] == kNoPath) return c.fd() < 0 ? -EBADF : rc(futimens(c.fd(), nullptr));
      bool nofollow = e.nr == SYS_utimensat && (a[3] & AT_SYMLINK_NOFOLLOW);
      return with_opath(c, 0, nofollow, [&](int fd) {
        return rc(utimensat(kAtFdcwd, proc_fd(fd).c_str(), nullptr, 0));
      });
    }
    case SYS_statfs:
      return with_opath(c, 0, false, [&](int fd) { struct statfs s; return rc(fstatfs(fd, &s)); });
    case SYS_fstatfs: { struct statfs s; return rc(fstatfs(c.fd(), &s)); }
    case SYS_getxattr: case SYS_lgetxattr: case SYS_listxattr: case SYS_llistxattr: {
      bool nofollow = e.nr == SYS_lgetxattr || e.nr == SYS_llistxattr;
      bool list = e.nr == SYS_listxattr || e.nr == SYS_llistxattr;
      if (c.env.plan->walks_as_passed)
        if (const int64_t r = xattr_at(c, list, nofollow); r != -ENOSYS) return r;
      if (char p[PATH_MAX]; abs_path(c, 0, p, sizeof p)) {
        if (list) return rc(nofollow ? llistxattr(p, nullptr, 0) : listxattr(p, nullptr, 0));
        return rc(nofollow ? lgetxattr(p, "user.fsreplay", nullptr, 0) : getxattr(p, "user.fsreplay", nullptr, 0));
      }
      return with_opath(c, 0, nofollow, [&](int fd) {
        std::string p = proc_fd(fd);
        return list ? rc(listxattr(p.c_str(), nullptr, 0))
                    : rc(getxattr(p.c_str(), "user.fsreplay", nullptr, 0));
      });
    }
    case SYS_fgetxattr: return rc(fgetxattr(c.fd(), "user.fsreplay", nullptr, 0));
    case SYS_flistxattr: return rc(flistxattr(c.fd(), nullptr, 0));
    default: return std::nullopt;
  }
  // clang-format on
}

}  // namespace fsr::exec
