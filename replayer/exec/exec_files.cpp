// SPDX-License-Identifier: Apache-2.0
// The executor's calls on names: opens, stats, the name space (mkdir,
// unlink, rename, link, symlink, mknod), exec and chdir, and the
// stand-in for character devices; attributes, xattrs and statfs in
// exec_attrs.cpp.
// See executor.h.
#include <dirent.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "replayer/exec/exec_context.h"

namespace fsr::exec {
namespace {

int64_t do_open(Ctx& c, int flags, mode_t mode) {
  if (c.op.path[0] == kNoPath) return -EFAULT;
  if ((flags & O_TMPFILE) == O_TMPFILE && !c.feat().has(Feature::kOTmpfile)) {
    c.fallback(Feature::kOTmpfile);  // a named file in that directory, unlinked at once
    // (from the root, whatever the walk: a name of the replay's own)
    std::string rel = c.plan_rel(0);
    if (!rel.empty()) rel += '/';
    rel += ".fsreplay-tmp-" + std::to_string(c.i);
    int fd =
        open_beneath(c.root_fd(0), rel, (flags & ~O_TMPFILE) | O_CREAT | O_EXCL | O_RDWR, mode, c.feat(), c.links());
    if (fd >= 0) {
      std::string base;
      int pfd = open_parent_beneath(c.root_fd(0), rel, base, c.feat(), c.links());
      if (pfd >= 0) {
        unlinkat(pfd, base.c_str(), 0);
        close(pfd);
      }
      if (c.op.new_ofd != kNoOfd)
        c.env.ofd_fd[c.op.new_ofd] = fd;
      else
        close(fd);
    }
    return fd;
  }
  // A FIFO (the plan made its OFD a pipe's: syscall_actions.cpp) is opened
  // O_PATH: the lookup the original made, without waiting for a writer or
  // reader that the replay may run later (`mkfifo f; cat f & echo x > f`
  // blocked the replay for good). What goes through it is emulated as a pipe's.
  if (c.op.new_ofd != kNoOfd && c.env.plan->ofds[c.op.new_ofd].kind == OfdKind::kPipe && !(flags & O_PATH))
    flags = O_PATH | (flags & (O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY));
  int fd = c.open_path(0, flags, mode);
  if (fd >= 0) {
    if (c.op.new_ofd != kNoOfd)
      c.env.ofd_fd[c.op.new_ofd] = fd;
    else
      close(fd);  // recorded as a failure: nothing will use it
  }
  return fd;
}

// rmdir of "x/." or "x/..": the kernel walks to x, then refuses by the last
// component alone (EINVAL for ".", ENOTEMPTY for ".."), whatever x holds. The
// stored path is the directory either names, so the walk is replayed and the
// answer given; std::nullopt for any other rmdir.
std::optional<int64_t> dot_rmdir(Ctx& c) {
  const auto t = static_cast<PathTail>(event_tail_code(c.e, 0));
  if (t != PathTail::kDot && t != PathTail::kDotDot) return std::nullopt;
  struct stat st;
  if (fstatat(c.dirfd(0), c.rel(0), &st, 0) != 0) return -errno;
  return t == PathTail::kDot ? -EINVAL : -ENOTEMPTY;
}

int64_t do_stat(Ctx& c, int flags) {
  struct stat st;
  if (c.op.path[0] == kNoPath) return rc(fstat(c.fd(), &st));
  return rc(fstatat(c.dirfd(0), c.rel(0), &st, flags & AT_SYMLINK_NOFOLLOW));
}

int64_t do_statx(Ctx& c) {
  int flags = static_cast<int>(c.e.args[2]);
  // Neither path nor fd: a NULL path (Rust's probe, syscall_actions.cpp).
  const bool null_path = c.op.path[0] == kNoPath && c.op.ofd == kNoOfd;
  if (c.feat().has(Feature::kStatx)) {
    struct statx sx;
    if (null_path) return rc(syscall(SYS_statx, AT_FDCWD, nullptr, flags, static_cast<unsigned>(c.e.args[3]), nullptr));
    if (c.op.path[0] == kNoPath)
      return rc(syscall(SYS_statx, c.fd(), "", AT_EMPTY_PATH, static_cast<unsigned>(c.e.args[3]), &sx));
    return rc(
        syscall(SYS_statx, c.dirfd(0), c.rel(0), flags & ~AT_EMPTY_PATH, static_cast<unsigned>(c.e.args[3]), &sx));
  }
  c.fallback(Feature::kStatx);
  if (null_path) return c.skipped();
  return do_stat(c, flags);
}

// Copies regular file `in` to `out`: copy_file_range, else sendfile, else
// read and write (file systems that offer neither between them).
int64_t copy_contents(Ctx& c, int in, int out) {
  for (;;) {
    const ssize_t n = copy_file_range(in, nullptr, out, nullptr, 1 << 30, 0);
    if (n == 0) return 0;
    if (n > 0) continue;
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return -errno;
    break;
  }
  for (;;) {
    const ssize_t n = sendfile(out, in, nullptr, 1 << 30);
    if (n == 0) return 0;
    if (n > 0) continue;
    if (errno == EINTR) continue;
    if (errno != EINVAL && errno != ENOSYS) return -errno;
    break;
  }
  uint64_t size = 0;
  char* buf = c.io_buf(1 << 20, size);
  for (;;) {
    const ssize_t n = read(in, buf, size);
    if (n == 0) return 0;
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(out, buf + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return w < 0 ? -errno : -EIO;
      done += w;
    }
  }
}

// Copies the entry `name` beneath `from` to `to_name` beneath `to`: a regular
// file's bytes and mode, a link's target, a directory's entries (recursively);
// 0, or -errno. Anything else (a device, a FIFO, a socket) is -EXDEV.
int64_t copy_entry(Ctx& c, int from, const char* name, int to, const char* to_name) {
  struct stat st;
  if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    const ssize_t n = readlinkat(from, name, target, sizeof target - 1);
    if (n < 0) return -errno;
    target[n] = 0;
    return symlinkat(target, to, to_name) == 0 ? 0 : -errno;
  }
  if (S_ISREG(st.st_mode)) {
    const int in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) return -errno;
    const int out = openat(to, to_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
    if (out < 0) {
      const int err = errno;
      close(in);
      return -err;
    }
    int64_t r = copy_contents(c, in, out);
    if (r == 0 && fchmod(out, st.st_mode & 07777) != 0) r = -errno;  // (the umask took bits off)
    close(in);
    if (close(out) != 0 && r == 0) r = -errno;
    return r;
  }
  if (!S_ISDIR(st.st_mode)) return -EXDEV;
  if (mkdirat(to, to_name, st.st_mode & 07777) != 0) return -errno;
  const int src = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (src < 0) return -errno;
  const int dst = openat(to, to_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR* d = dst >= 0 ? fdopendir(src) : nullptr;
  if (!d) {
    const int err = errno;
    close(src);
    if (dst >= 0) close(dst);
    return -err;
  }
  int64_t r = 0;
  while (const dirent* de = r == 0 ? readdir(d) : nullptr) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    r = copy_entry(c, src, de->d_name, dst, de->d_name);
  }
  closedir(d);
  if (r == 0 && fchmodat(dst, ".", st.st_mode & 07777, 0) != 0) r = -errno;
  close(dst);
  return r;
}

// Removes the entry `name` beneath `dir`, a directory with what it holds.
void remove_entry(int dir, const char* name) {
  if (unlinkat(dir, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  const int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (DIR* d = fd >= 0 ? fdopendir(fd) : nullptr) {
    while (const dirent* de = readdir(d))
      if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) remove_entry(fd, de->d_name);
    closedir(d);
  } else if (fd >= 0) {
    close(fd);
  }
  unlinkat(dir, name, AT_REMOVEDIR);
}

// A rename or a hard link the original made within one file system, whose
// two names the replay keeps on two (the scratch tree, by default under
// $TMPDIR, beside a target on another mount: `mv /tmp/x proj/` or a package
// store's link into node_modules, recorded where both share the distro's
// ext4, replayed onto /mnt/c). Done as mv(1) moves and as a linker falls
// back after EXDEV: copied beside the new name (a directory with what it
// holds), renamed onto it, and for a rename the old name removed. The cost is
// the copy's: what the original, had its files been on that mount, would
// have done after its EXDEV. A write through one of two linked names no
// longer shows through the other.
int64_t copy_across(Ctx& c, bool move, bool noreplace) {
  return with_parent(c, 0, [&](int p0, const char* b0) {
    return with_parent(c, 1, [&](int p1, const char* b1) -> int64_t {
      struct stat there;
      if (noreplace && fstatat(p1, b1, &there, AT_SYMLINK_NOFOLLOW) == 0) return -EEXIST;
      const std::string tmp = ".fsreplay-move-" + std::to_string(c.i);
      if (const int64_t r = copy_entry(c, p0, b0, p1, tmp.c_str()); r < 0) {
        remove_entry(p1, tmp.c_str());
        return r;
      }
      if (renameat(p1, tmp.c_str(), p1, b1) != 0) {
        const int err = errno;
        remove_entry(p1, tmp.c_str());
        return -err;
      }
      if (move) remove_entry(p0, b0);
      return 0;
    });
  });
}

// The original's two names lay on two file systems; the replay's may share
// one (the scratch tree and a target on one disk). Done, the rename or link
// would leave a file where the original's was not, and what the original did
// after its EXDEV (mv's copy, jar's sendfile) would fail on it. The lookup of
// the source is replayed; the answer is the original's.
std::optional<int64_t> was_exdev(Ctx& c) {
  if (c.e.ret != -EXDEV) return std::nullopt;
  struct stat st;
  if (fstatat(c.dirfd(0), c.rel(0), &st, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
  return -EXDEV;
}

int64_t do_link(Ctx& c) {
  if (c.op.path[1] == kNoPath) return -EFAULT;
  if (c.op.path[0] == kNoPath) {  // linkat(fd, "", ..., AT_EMPTY_PATH) (syscall_actions.cpp)
    if (c.fd() < 0) return -EBADF;
    return with_parent(c, 1, [&](int p1, const char* b1) {
      int64_t r = rc(linkat(c.fd(), "", p1, b1, AT_EMPTY_PATH));
      // Without CAP_DAC_READ_SEARCH: the /proc link form, which needs none.
      if (r == -ENOENT || r == -EPERM) r = rc(linkat(AT_FDCWD, proc_fd(c.fd()).c_str(), p1, b1, AT_SYMLINK_FOLLOW));
      return r;
    });
  }
  if (auto r = was_exdev(c)) return *r;
  const int64_t r = with_parent(c, 0, [&](int p0, const char* b0) {
    return with_parent(c, 1, [&](int p1, const char* b1) { return rc(linkat(p0, b0, p1, b1, 0)); });
  });
  return r == -EXDEV && c.e.ret == 0 ? copy_across(c, false, true) : r;
}

int64_t do_rename(Ctx& c, unsigned rflags) {
  if (c.op.path[1] == kNoPath) return -EFAULT;
  if (auto r = was_exdev(c)) return *r;
  if (rflags && !c.feat().has(Feature::kRenameat2Flags)) {
    if (rflags != RENAME_NOREPLACE) return -EINVAL;  // exchange/whiteout have no equivalent
    c.fallback(Feature::kRenameat2Flags);
    struct stat st;
    if (fstatat(c.dirfd(1), c.rel(1), &st, AT_SYMLINK_NOFOLLOW) == 0) return -EEXIST;
    rflags = 0;
  }
  const int64_t r = with_parent(c, 0, [&](int p0, const char* b0) {
    return with_parent(c, 1, [&](int p1, const char* b1) {
      return rflags ? rc(syscall(SYS_renameat2, p0, b0, p1, b1, rflags)) : rc(renameat(p0, b0, p1, b1));
    });
  });
  tree_changed(c);
  if (r == -EXDEV && c.e.ret == 0) {
    const int64_t m = copy_across(c, true, rflags & RENAME_NOREPLACE);
    tree_changed(c);
    return m;
  }
  return r;
}

// Opens path 0 beneath its root with `flags` and closes it: what exec and
// chdir cost the file system.
// A chdir with an OFD (plan.h PlanOp::walk: a cwd walks start from) keeps it.
int64_t open_close(Ctx& c, int flags) {
  int fd = c.open_path(0, flags, 0);
  if (fd < 0) return fd;
  if (c.e.nr == SYS_chdir && c.op.new_ofd != kNoOfd && c.env.ofd_fd[c.op.new_ofd] < 0)
    c.env.ofd_fd[c.op.new_ofd] = fd;
  else
    close(fd);
  return 0;
}

}  // namespace

std::optional<int64_t> files_op(Ctx& c) {
  const Event& e = c.e;
  const uint64_t* a = e.args;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_open: return do_open(c, static_cast<int>(a[1]), static_cast<mode_t>(a[2]));
    case SYS_openat: return do_open(c, static_cast<int>(a[2]), static_cast<mode_t>(a[3]));
    case SYS_creat: return do_open(c, O_CREAT | O_WRONLY | O_TRUNC, static_cast<mode_t>(a[1]));
    case SYS_openat2: return do_open(c, O_RDONLY, 0);
    case SYS_fstat: return do_stat(c, 0);
    case SYS_stat: return do_stat(c, 0);
    case SYS_lstat: return do_stat(c, AT_SYMLINK_NOFOLLOW);
    case SYS_newfstatat: return do_stat(c, static_cast<int>(a[3]));
    case SYS_statx: return do_statx(c);
    case SYS_access: return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[1]), 0));
    case SYS_faccessat: return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[2]), 0));
    case SYS_faccessat2:
      if (c.op.path[0] == kNoPath) return rc(faccessat(c.fd(), "", static_cast<int>(a[2]), AT_EMPTY_PATH));
      return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[2]),
                          static_cast<int>(a[3]) & (AT_EACCESS | AT_SYMLINK_NOFOLLOW)));
    case SYS_readlink: case SYS_readlinkat:
      return rc(readlinkat(c.dirfd(0), c.rel(0), c.buf, std::min<uint64_t>(c.buf_size, 4096)));
    case SYS_mkdir: case SYS_mkdirat: {
      mode_t m = static_cast<mode_t>(a[e.nr == SYS_mkdir ? 1 : 2]);
      // `mkdir -p` walks up to the root itself, which always exists.
      if (c.plan_rel(0).empty() || c.mapped_rel(0).empty()) return -EEXIST;  // the root, or the walk base itself
      return with_parent(c, 0, [&](int p, const char* b) { return rc(mkdirat(p, b, m)); });
    }
    case SYS_rmdir: {
      if (auto r = dot_rmdir(c)) return *r;
      const int64_t r = with_parent(c, 0, [&](int p, const char* b) { return rc(unlinkat(p, b, AT_REMOVEDIR)); });
      tree_changed(c);
      return r;
    }
    case SYS_unlink:
      return with_parent(c, 0, [&](int p, const char* b) { return rc(unlinkat(p, b, 0)); });
    case SYS_unlinkat: {
      const int dir = static_cast<int>(a[2]) & AT_REMOVEDIR;
      if (dir)
        if (auto r = dot_rmdir(c)) return *r;
      const int64_t r = with_parent(c, 0, [&](int p, const char* b) { return rc(unlinkat(p, b, dir)); });
      if (dir) tree_changed(c);
      return r;
    }
    case SYS_rename: case SYS_renameat: return do_rename(c, 0);
    case SYS_renameat2: return do_rename(c, static_cast<unsigned>(a[4]));
    case SYS_link: case SYS_linkat: return do_link(c);
    case SYS_symlink: case SYS_symlinkat: {
      const std::string& target = c.env.plan->paths[c.op.path[0]].abs;
      return with_parent(c, 1, [&](int p, const char* b) { return rc(symlinkat(target.c_str(), p, b)); });
    }
    case SYS_mknod: case SYS_mknodat: {
      mode_t m = static_cast<mode_t>(a[e.nr == SYS_mknod ? 1 : 2]);
      return with_parent(c, 0, [&](int p, const char* b) { return rc(mknodat(p, b, m, 0)); });
    }
    case SYS_execve: case SYS_execveat:
      if (c.op.path[0] == kNoPath) return c.skipped();
      return open_close(c, O_RDONLY);
    case SYS_chdir: return open_close(c, O_PATH | O_DIRECTORY | O_CLOEXEC);
    default: return attr_op(c);
  }
  // clang-format on
}

// An op on a character device (kPfDevice): the stand-in device, by name.
int64_t device_op(Ctx& c) {
  const char* dev = device_standin(c.env.plan->paths[c.op.path[0]].abs);
  const uint64_t* a = c.e.args;
  auto open_dev = [&](int flags) -> int64_t {
    int fd = open(dev, flags & (O_ACCMODE | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_APPEND));
    if (fd < 0) return -errno;
    if (c.op.new_ofd != kNoOfd)
      c.env.ofd_fd[c.op.new_ofd] = fd;
    else
      close(fd);
    return fd;
  };
  struct stat st;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (c.e.nr) {
    case SYS_open: return open_dev(static_cast<int>(a[1]));
    case SYS_openat: return open_dev(static_cast<int>(a[2]));
    case SYS_openat2: return open_dev(O_RDONLY);
    case SYS_stat: case SYS_lstat: case SYS_newfstatat: case SYS_statx: return rc(stat(dev, &st));
    case SYS_access: case SYS_faccessat: case SYS_faccessat2:
      return rc(access(dev, static_cast<int>(a[c.e.nr == SYS_access ? 1 : 2]) & (R_OK | W_OK | X_OK)));
    default:
      return c.skipped();  // never change a device node
  }
  // clang-format on
}

}  // namespace fsr::exec
