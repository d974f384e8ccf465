#include "replayer/executor.h"

#include <fcntl.h>
#include <linux/stat.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <csetjmp>
#include <csignal>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <cstdio>
#include <string>

#include "replayer/resolver.h"

namespace fsr {
namespace {

constexpr uint64_t kMaxBuf = 16ull << 20;
constexpr int kAtFdcwd = -100;

inline int64_t rc(long r) { return r < 0 ? -errno : r; }

struct Ctx {
  uint32_t i;
  ExecEnv& env;
  const Event& e;
  const PlanOp& op;
  char* buf;
  uint64_t buf_size;
  uint16_t& flags;

  const Features& feat() const { return *env.features; }
  int dirfd(int k) const {
    return env.root[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)];
  }
  const char* rel(int k) const {
    const std::string& r = env.plan->paths[op.path[k]].mapped.rel;
    return r.empty() ? "." : r.c_str();
  }
  int fd() const { return op.ofd == kNoOfd ? -1 : env.ofd_fd[op.ofd]; }
  int fd2() const { return op.ofd2 == kNoOfd ? -1 : env.ofd_fd[op.ofd2]; }
  uint64_t io_len(int count_arg) const {
    uint64_t n = e.ret >= 0 ? static_cast<uint64_t>(e.ret)
                            : (count_arg >= 0 ? e.args[count_arg] : 4096);
    return n;
  }
  void fallback(Feature f) {
    feat().used_fallback(f);
    flags |= kOfFallback;
  }
};

// Page touches: a page past the end of the mapped file raises SIGBUS. Rather
// than an fstat before every touch (timed, and racy against truncation by
// another worker), the touch runs under a per-thread jump buffer that the
// SIGBUS handler returns through. SA_NODEFER: the jump leaves no signal blocked.
thread_local sigjmp_buf* volatile t_touch_jump = nullptr;  // volatile: the stores around the touch must stay

void on_sigbus(int sig, siginfo_t*, void*) {
  if (sigjmp_buf* j = t_touch_jump) siglongjmp(*j, 1);
  signal(sig, SIG_DFL);  // not ours: die as the default would
  raise(sig);
}

void install_sigbus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

// Reads one byte at `p`; false if that raised SIGBUS (beyond the file's end).
// A mapping placed inside a base lives only as long as the base does.
bool mapping_alive(const ExecEnv& env, uint32_t m) {
  if (!env.map_addr[m]) return false;
  return !env.map_inside[m] || env.map_addr[env.plan->ops[m].ref_op] != nullptr;
}

bool touch_page(const char* p) {
  sigjmp_buf jump;
  if (sigsetjmp(jump, 0) != 0) {
    t_touch_jump = nullptr;
    return false;
  }
  t_touch_jump = &jump;
  volatile char v = *p;
  (void)v;
  t_touch_jump = nullptr;
  return true;
}

// Runs `fn(parent_fd, base)` on the parent of path k opened beneath its root.
template <typename F>
int64_t with_parent(Ctx& c, int k, F fn) {
  std::string base;
  int pfd = open_parent_beneath(c.dirfd(k), c.env.plan->paths[c.op.path[k]].mapped.rel, base,
                                c.feat());
  if (pfd < 0) return pfd;
  int64_t r = fn(pfd, base.c_str());
  close(pfd);
  return r;
}

// Runs `fn(fd)` on path k opened O_PATH beneath its root (following the last link unless asked).
template <typename F>
int64_t with_opath(Ctx& c, int k, bool nofollow, F fn) {
  int fd = open_beneath(c.dirfd(k), c.env.plan->paths[c.op.path[k]].mapped.rel,
                        O_PATH | (nofollow ? O_NOFOLLOW : 0), 0, c.feat());
  if (fd < 0) return fd;
  int64_t r = fn(fd);
  close(fd);
  return r;
}

std::string proc_fd(int fd) {
  char b[48];
  snprintf(b, sizeof b, "/proc/self/fd/%d", fd);
  return b;
}

// Reads or writes the recorded byte count in buffer-sized pieces (filler
// bytes for writes), stopping at a short transfer as the original would.
template <bool kWrite>
int64_t do_io(Ctx& c, bool positional, uint64_t off, int count_arg) {
  int fd = c.fd();
  uint64_t left = c.io_len(count_arg), done = 0;
  do {
    size_t n = static_cast<size_t>(std::min(left, c.buf_size));
    off_t at = static_cast<off_t>(off + done);
    long r;
    if constexpr (kWrite) r = positional ? pwrite(fd, c.buf, n, at) : write(fd, c.buf, n);
    else r = positional ? pread(fd, c.buf, n, at) : read(fd, c.buf, n);
    if (r < 0) return -errno;
    done += static_cast<uint64_t>(r);
    if (static_cast<uint64_t>(r) < n) break;
    left -= static_cast<uint64_t>(r);
  } while (left > 0);
  return static_cast<int64_t>(done);
}
int64_t do_read(Ctx& c, bool positional, uint64_t off, int count_arg) { return do_io<false>(c, positional, off, count_arg); }
int64_t do_write(Ctx& c, bool positional, uint64_t off, int count_arg) { return do_io<true>(c, positional, off, count_arg); }

int64_t do_open(Ctx& c, int flags, mode_t mode) {
  if (c.op.path[0] == kNoPath) return -EFAULT;
  if ((flags & O_TMPFILE) == O_TMPFILE && !c.feat().has(Feature::kOTmpfile)) {
    c.fallback(Feature::kOTmpfile);  // a named file in that directory, unlinked at once
    std::string rel = c.env.plan->paths[c.op.path[0]].mapped.rel;
    if (!rel.empty()) rel += '/';
    rel += ".fsreplay-tmp-" + std::to_string(c.i);
    int fd = open_beneath(c.dirfd(0), rel, (flags & ~O_TMPFILE) | O_CREAT | O_EXCL | O_RDWR,
                          mode, c.feat());
    if (fd >= 0) {
      std::string base;
      int pfd = open_parent_beneath(c.dirfd(0), rel, base, c.feat());
      if (pfd >= 0) {
        unlinkat(pfd, base.c_str(), 0);
        close(pfd);
      }
      if (c.op.new_ofd != kNoOfd) c.env.ofd_fd[c.op.new_ofd] = fd;
      else close(fd);
    }
    return fd;
  }
  int fd = open_beneath(c.dirfd(0), c.env.plan->paths[c.op.path[0]].mapped.rel, flags, mode,
                        c.feat());
  if (fd >= 0) {
    if (c.op.new_ofd != kNoOfd) c.env.ofd_fd[c.op.new_ofd] = fd;
    else close(fd);  // recorded as a failure: nothing will use it
  }
  return fd;
}

int64_t do_stat(Ctx& c, int flags) {
  struct stat st;
  if (c.op.path[0] == kNoPath) return rc(fstat(c.fd(), &st));
  return rc(fstatat(c.dirfd(0), c.rel(0), &st, flags & AT_SYMLINK_NOFOLLOW));
}

int64_t do_statx(Ctx& c) {
  int flags = static_cast<int>(c.e.args[2]);
  if (c.feat().has(Feature::kStatx)) {
    struct statx sx;
    if (c.op.path[0] == kNoPath)
      return rc(syscall(SYS_statx, c.fd(), "", AT_EMPTY_PATH, static_cast<unsigned>(c.e.args[3]), &sx));
    return rc(syscall(SYS_statx, c.dirfd(0), c.rel(0), flags & ~AT_EMPTY_PATH,
                      static_cast<unsigned>(c.e.args[3]), &sx));
  }
  c.fallback(Feature::kStatx);
  return do_stat(c, flags);
}

int64_t do_rename(Ctx& c, unsigned rflags) {
  if (c.op.path[1] == kNoPath) return -EFAULT;
  if (rflags && !c.feat().has(Feature::kRenameat2Flags)) {
    if (rflags != RENAME_NOREPLACE) return -EINVAL;  // exchange/whiteout have no equivalent
    c.fallback(Feature::kRenameat2Flags);
    struct stat st;
    if (fstatat(c.dirfd(1), c.rel(1), &st, AT_SYMLINK_NOFOLLOW) == 0) return -EEXIST;
    rflags = 0;
  }
  return with_parent(c, 0, [&](int p0, const char* b0) {
    return with_parent(c, 1, [&](int p1, const char* b1) {
      return rflags ? rc(syscall(SYS_renameat2, p0, b0, p1, b1, rflags))
                    : rc(renameat(p0, b0, p1, b1));
    });
  });
}

int64_t do_copy(Ctx& c, uint64_t len) {
  if (c.fd() < 0 || c.fd2() < 0) return -EBADF;
  if (c.feat().has(Feature::kCopyFileRange))
    return rc(syscall(SYS_copy_file_range, c.fd(), nullptr, c.fd2(), nullptr, len, 0));
  c.fallback(Feature::kCopyFileRange);
  uint64_t done = 0;
  while (done < len) {
    size_t n = static_cast<size_t>(std::min(len - done, c.buf_size));
    long r = read(c.fd(), c.buf, n);
    if (r < 0) return -errno;
    if (r == 0) break;
    long w = write(c.fd2(), c.buf, static_cast<size_t>(r));
    if (w < 0) return -errno;
    done += static_cast<uint64_t>(w);
  }
  return static_cast<int64_t>(done);
}

// An op on a character device (kPfDevice): the stand-in device, by name.
int64_t device_op(Ctx& c) {
  const char* dev = device_standin(c.env.plan->paths[c.op.path[0]].abs);
  const uint64_t* a = c.e.args;
  auto open_dev = [&](int flags) -> int64_t {
    int fd = open(dev, flags & (O_ACCMODE | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_APPEND));
    if (fd < 0) return -errno;
    if (c.op.new_ofd != kNoOfd) c.env.ofd_fd[c.op.new_ofd] = fd;
    else close(fd);
    return fd;
  };
  struct stat st;
  switch (c.e.nr) {
    case SYS_open: return open_dev(static_cast<int>(a[1]));
    case SYS_openat: return open_dev(static_cast<int>(a[2]));
    case SYS_openat2: return open_dev(O_RDONLY);
    case SYS_stat: case SYS_lstat: case SYS_newfstatat: case SYS_statx: return rc(stat(dev, &st));
    case SYS_access: case SYS_faccessat: case SYS_faccessat2:
      return rc(access(dev, static_cast<int>(a[c.e.nr == SYS_access ? 1 : 2]) & (R_OK | W_OK | X_OK)));
    default:
      c.flags |= kOfSkipped;  // never change a device node
      return c.e.ret;
  }
}

int64_t dispatch(Ctx& c) {
  const Event& e = c.e;
  const uint64_t* a = e.args;
  switch (e.nr) {
    case SYS_open: return do_open(c, static_cast<int>(a[1]), static_cast<mode_t>(a[2]));
    case SYS_openat: return do_open(c, static_cast<int>(a[2]), static_cast<mode_t>(a[3]));
    case SYS_creat: return do_open(c, O_CREAT | O_WRONLY | O_TRUNC, static_cast<mode_t>(a[1]));
    case SYS_openat2: return do_open(c, O_RDONLY, 0);
    case SYS_close: {
      int fd = c.fd();
      c.env.ofd_fd[c.op.ofd] = -1;
      return fd < 0 ? -EBADF : rc(close(fd));
    }
    case SYS_read: case SYS_readv: return do_read(c, false, 0, e.nr == SYS_read ? 2 : -1);
    case SYS_pread64: return do_read(c, true, a[3], 2);
    case SYS_preadv: case SYS_preadv2: return do_read(c, true, a[3], -1);
    case SYS_write: case SYS_writev: return do_write(c, false, 0, e.nr == SYS_write ? 2 : -1);
    case SYS_pwrite64: return do_write(c, true, a[3], 2);
    case SYS_pwritev: case SYS_pwritev2: return do_write(c, true, a[3], -1);
    case SYS_lseek: return rc(lseek(c.fd(), static_cast<off_t>(a[1]), static_cast<int>(a[2])));
    case SYS_fstat: return do_stat(c, 0);
    case SYS_stat: return do_stat(c, 0);
    case SYS_lstat: return do_stat(c, AT_SYMLINK_NOFOLLOW);
    case SYS_newfstatat: return do_stat(c, static_cast<int>(a[3]));
    case SYS_statx: return do_statx(c);
    case SYS_access: return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[1]), 0));
    case SYS_faccessat: return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[2]), 0));
    case SYS_faccessat2:
      return rc(faccessat(c.dirfd(0), c.rel(0), static_cast<int>(a[2]),
                          static_cast<int>(a[3]) & (AT_EACCESS | AT_SYMLINK_NOFOLLOW)));
    case SYS_readlink: case SYS_readlinkat:
      return rc(readlinkat(c.dirfd(0), c.rel(0), c.buf, std::min<uint64_t>(c.buf_size, 4096)));
    case SYS_getdents: case SYS_getdents64:
      return rc(syscall(SYS_getdents64, c.fd(), c.buf,
                        static_cast<unsigned>(std::min<uint64_t>(a[2], c.buf_size))));
    case SYS_mkdir: case SYS_mkdirat: {
      mode_t m = static_cast<mode_t>(a[e.nr == SYS_mkdir ? 1 : 2]);
      // `mkdir -p` walks up to the root itself, which always exists.
      if (c.env.plan->paths[c.op.path[0]].mapped.rel.empty()) return -EEXIST;
      return with_parent(c, 0, [&](int p, const char* b) { return rc(mkdirat(p, b, m)); });
    }
    case SYS_rmdir:
      return with_parent(c, 0, [&](int p, const char* b) { return rc(unlinkat(p, b, AT_REMOVEDIR)); });
    case SYS_unlink:
      return with_parent(c, 0, [&](int p, const char* b) { return rc(unlinkat(p, b, 0)); });
    case SYS_unlinkat:
      return with_parent(c, 0, [&](int p, const char* b) {
        return rc(unlinkat(p, b, static_cast<int>(a[2]) & AT_REMOVEDIR));
      });
    case SYS_rename: case SYS_renameat: return do_rename(c, 0);
    case SYS_renameat2: return do_rename(c, static_cast<unsigned>(a[4]));
    case SYS_link: case SYS_linkat:
      if (c.op.path[1] == kNoPath) return -EFAULT;
      return with_parent(c, 0, [&](int p0, const char* b0) {
        return with_parent(c, 1, [&](int p1, const char* b1) { return rc(linkat(p0, b0, p1, b1, 0)); });
      });
    case SYS_symlink: case SYS_symlinkat: {
      const std::string& target = c.env.plan->paths[c.op.path[0]].abs;
      return with_parent(c, 1, [&](int p, const char* b) { return rc(symlinkat(target.c_str(), p, b)); });
    }
    case SYS_mknod: case SYS_mknodat: {
      mode_t m = static_cast<mode_t>(a[e.nr == SYS_mknod ? 1 : 2]);
      return with_parent(c, 0, [&](int p, const char* b) { return rc(mknodat(p, b, m, 0)); });
    }
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
    case SYS_truncate: {
      int fd = open_beneath(c.dirfd(0), c.env.plan->paths[c.op.path[0]].mapped.rel, O_WRONLY, 0, c.feat());
      if (fd < 0) return fd;
      int64_t r = rc(ftruncate(fd, static_cast<off_t>(a[1])));
      close(fd);
      return r;
    }
    case SYS_ftruncate: return rc(ftruncate(c.fd(), static_cast<off_t>(a[1])));
    case SYS_fallocate:
      if (c.feat().has(Feature::kFallocate))
        return rc(fallocate(c.fd(), static_cast<int>(a[1]), static_cast<off_t>(a[2]), static_cast<off_t>(a[3])));
      c.fallback(Feature::kFallocate);
      if (a[1] != 0) return -EOPNOTSUPP;
      {
        struct stat st;
        if (fstat(c.fd(), &st) != 0) return -errno;
        off_t want = static_cast<off_t>(a[2] + a[3]);
        return st.st_size >= want ? 0 : rc(ftruncate(c.fd(), want));
      }
    case SYS_fsync: return rc(fsync(c.fd()));
    case SYS_fdatasync: return rc(fdatasync(c.fd()));
    case SYS_syncfs: return rc(syncfs(c.fd()));
    case SYS_sync_file_range:
      if (c.feat().has(Feature::kSyncFileRange))
        return rc(sync_file_range(c.fd(), static_cast<off_t>(a[1]), static_cast<off_t>(a[2]),
                                  static_cast<unsigned>(a[3])));
      c.fallback(Feature::kSyncFileRange);
      return rc(fdatasync(c.fd()));
    case SYS_flock: return rc(flock(c.fd(), static_cast<int>(a[1]) | LOCK_NB));
    case SYS_fadvise64: {
      int r = posix_fadvise(c.fd(), static_cast<off_t>(a[1]), static_cast<off_t>(a[2]), static_cast<int>(a[3]));
      return -r;
    }
    case SYS_readahead: return rc(readahead(c.fd(), static_cast<off64_t>(a[1]), a[2]));
    case SYS_fcntl: return rc(fcntl(c.fd(), static_cast<int>(a[1]), static_cast<long>(a[2])));
    case SYS_statfs:
      return with_opath(c, 0, false, [&](int fd) { struct statfs s; return rc(fstatfs(fd, &s)); });
    case SYS_fstatfs: { struct statfs s; return rc(fstatfs(c.fd(), &s)); }
    case SYS_getxattr: case SYS_lgetxattr: case SYS_listxattr: case SYS_llistxattr: {
      bool nofollow = e.nr == SYS_lgetxattr || e.nr == SYS_llistxattr;
      bool list = e.nr == SYS_listxattr || e.nr == SYS_llistxattr;
      return with_opath(c, 0, nofollow, [&](int fd) {
        std::string p = proc_fd(fd);
        return list ? rc(listxattr(p.c_str(), nullptr, 0))
                    : rc(getxattr(p.c_str(), "user.fsreplay", nullptr, 0));
      });
    }
    case SYS_fgetxattr: return rc(fgetxattr(c.fd(), "user.fsreplay", nullptr, 0));
    case SYS_flistxattr: return rc(flistxattr(c.fd(), nullptr, 0));
    case SYS_copy_file_range: return do_copy(c, c.io_len(4));
    case SYS_sendfile:
      return rc(sendfile(c.fd(), c.fd2(), nullptr, static_cast<size_t>(c.io_len(3))));
    case SYS_mmap: {
      int fl = static_cast<int>(a[3]) & (MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE | MAP_POPULATE | MAP_NORESERVE);
      // MAP_FIXED only inside the replay's own copy of the recorded base (plan.h).
      char* at = nullptr;
      if (c.op.ref_op != kNoOp) {
        char* b = static_cast<char*>(c.env.map_addr[c.op.ref_op]);
        if (b && c.op.ref_off + a[1] <= c.env.map_len[c.op.ref_op]) at = b + c.op.ref_off;
      }
      void* p = mmap(at, a[1], static_cast<int>(a[2]), fl | (at ? MAP_FIXED : 0), c.fd(), static_cast<off_t>(a[5]));
      if (p == MAP_FAILED) return -errno;
      c.env.map_addr[c.i] = p;
      c.env.map_len[c.i] = a[1];
      c.env.map_inside[c.i] = at != nullptr;
      if (!at) c.env.live_maps.fetch_add(1, std::memory_order_relaxed);
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p) & 0x7fffffffffffull);
    }
    case SYS_munmap: {
      const uint32_t m = c.op.ref_op;
      void*& p = c.env.map_addr[m];
      if (!mapping_alive(c.env, m)) return -EINVAL;
      int r;
      if (c.env.map_inside[m]) {
        // Keep the base's range whole: a hole could be handed to another
        // mapping, which the base's munmap would then take along.
        r = mmap(p, c.env.map_len[m], PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
                    MAP_FAILED ? -1 : 0;
      } else {
        r = munmap(p, c.env.map_len[m]);
        c.env.live_maps.fetch_sub(1, std::memory_order_relaxed);
      }
      p = nullptr;
      return rc(r);
    }
    case kEvPageFault: {
      char* p = static_cast<char*>(c.env.map_addr[c.op.ref_op]);
      if (!mapping_alive(c.env, c.op.ref_op) || c.op.ref_off >= c.env.map_len[c.op.ref_op] ||
          !touch_page(p + (c.op.ref_off & ~4095ull))) {
        c.flags |= kOfSkipped;  // unmapped, or past the file's end (SIGBUS caught)
        return e.ret;
      }
      return 0;
    }
    case SYS_execve: case SYS_execveat: {
      if (c.op.path[0] == kNoPath) { c.flags |= kOfSkipped; return e.ret; }
      int fd = open_beneath(c.dirfd(0), c.env.plan->paths[c.op.path[0]].mapped.rel, O_RDONLY, 0, c.feat());
      if (fd < 0) return fd;
      close(fd);
      return 0;
    }
    case SYS_chdir: {
      int fd = open_beneath(c.dirfd(0), c.env.plan->paths[c.op.path[0]].mapped.rel, O_PATH | O_DIRECTORY, 0, c.feat());
      if (fd < 0) return fd;
      close(fd);
      return 0;
    }
    default:
      c.flags |= kOfSkipped;
      return e.ret;
  }
}

}  // namespace

void init_exec_env(ExecEnv& env) {
  env.ofd_fd.assign(env.plan->ofds.size(), -1);
  env.map_addr.assign(env.plan->ops.size(), nullptr);
  env.map_len.assign(env.plan->ops.size(), 0);
  env.map_inside.assign(env.plan->ops.size(), 0);
  install_sigbus_handler();
  env.live_maps.store(0, std::memory_order_relaxed);
}

uint64_t max_io_size(const Plan& plan, const std::vector<Event>& events) {
  uint64_t m = 65536;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].action != OpAction::kIssue) continue;
    SyscallClass k = class_of(events[i].nr);
    if (k == SyscallClass::kRead || k == SyscallClass::kWrite || k == SyscallClass::kCopy ||
        k == SyscallClass::kReaddir)
      m = std::max<uint64_t>(m, events[i].ret > 0 ? static_cast<uint64_t>(events[i].ret) : 0);
  }
  return std::min(m, kMaxBuf);
}

int64_t execute_op(uint32_t i, ExecEnv& env, char* buf, uint64_t buf_size, uint16_t& op_flags) {
  Ctx c{i, env, (*env.events)[i], env.plan->ops[i], buf, buf_size, op_flags};
  const SyscallInfo* si = syscall_info(c.e.nr);
  if (si && si->fd >= 0 && c.e.nr != SYS_mmap && c.fd() < 0) return -EBADF;
  if (si && si->path[0] >= 0 && c.op.path[0] == kNoPath && c.op.ofd == kNoOfd &&
      !(si->flags & kSfPathOptional)) {
    op_flags |= kOfSkipped;
    return c.e.ret;
  }
  if (c.op.flags & kPfDevice) return device_op(c);
  return dispatch(c);
}

void apply_closes(uint32_t i, ExecEnv& env) {
  const PlanOp& op = env.plan->ops[i];
  if (op.unmap_end > op.unmap_begin && env.live_maps.load(std::memory_order_relaxed) > kUnmapAbove) {
    for (uint32_t k = op.unmap_begin; k < op.unmap_end; ++k) {
      uint32_t m = env.plan->unmaps[k];
      if (!env.map_addr[m] || env.map_inside[m]) continue;  // (the plan lists bases only)
      munmap(env.map_addr[m], env.map_len[m]);
      env.map_addr[m] = nullptr;
      env.live_maps.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  for (uint32_t k = op.close_begin; k < op.close_end; ++k) {
    int& fd = env.ofd_fd[env.plan->closes[k]];
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

void release_all(ExecEnv& env) {
  for (int& fd : env.ofd_fd)
    if (fd >= 0) close(fd), fd = -1;
  for (size_t i = 0; i < env.map_addr.size(); ++i)
    if (env.map_addr[i] && !env.map_inside[i]) munmap(env.map_addr[i], env.map_len[i]);
  env.map_addr.assign(env.map_addr.size(), nullptr);
}

}  // namespace fsr
