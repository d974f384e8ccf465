// SPDX-License-Identifier: Apache-2.0
// The executor's calls on open files: reads and writes of the recorded sizes
// (filler bytes), directory reads, copies, truncation and allocation, syncs,
// advice, locks and fcntl. See executor.h.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "replayer/exec/exec_context.h"

namespace fsr::exec {
namespace {

// Reads or writes the recorded byte count in buffer-sized pieces (filler
// bytes for writes), stopping at a short transfer as the original would.
template <bool kWrite>
int64_t do_io(Ctx& c, bool positional, uint64_t off, int count_arg) {
  int fd = c.fd();
  uint64_t left = c.io_len(count_arg), done = 0, size;
  char* buf = c.io_buf(left, size);
  do {
    size_t n = static_cast<size_t>(std::min(left, size));
    off_t at = static_cast<off_t>(off + done);
    long r;
    if constexpr (kWrite)
      r = positional ? pwrite(fd, buf, n, at) : write(fd, buf, n);
    else
      r = positional ? pread(fd, buf, n, at) : read(fd, buf, n);
    if (r < 0) return -errno;
    done += static_cast<uint64_t>(r);
    if (static_cast<uint64_t>(r) < n) break;
    left -= static_cast<uint64_t>(r);
  } while (left > 0);
  return static_cast<int64_t>(done);
}

// copy_file_range between files on two file systems is EXDEV (since 5.19
// when their types differ): where the original's two files shared one and the
// replay's do not (one in the scratch tree, one in the target: `cp /tmp/x
// proj/` by coreutils 9), the bytes are copied by reads and writes, as cp
// does after the EXDEV. Where the original's was EXDEV, it stays so: copied,
// both files' positions would move, and the reads and writes the original
// made after it would not find what it found.
int64_t do_copy(Ctx& c, uint64_t len) {
  if (c.fd() < 0 || c.fd2() < 0) return -EBADF;
  if (c.e.ret == -EXDEV) return -EXDEV;
  if (c.feat().has(Feature::kCopyFileRange)) {
    const int64_t r = rc(syscall(SYS_copy_file_range, c.fd(), nullptr, c.fd2(), nullptr, len, 0));
    if (r != -EXDEV || c.e.ret < 0) return r;
  } else {
    c.fallback(Feature::kCopyFileRange);
  }
  uint64_t done = 0, size;
  char* buf = c.io_buf(len, size);
  while (done < len) {
    size_t n = static_cast<size_t>(std::min(len - done, size));
    long r = read(c.fd(), buf, n);
    if (r < 0) return -errno;
    if (r == 0) break;
    long w = write(c.fd2(), buf, static_cast<size_t>(r));
    if (w < 0) return -errno;
    done += static_cast<uint64_t>(w);
  }
  return static_cast<int64_t>(done);
}

int64_t do_fallocate(Ctx& c) {
  const uint64_t* a = c.e.args;
  if (c.feat().has(Feature::kFallocate))
    return rc(fallocate(c.fd(), static_cast<int>(a[1]), static_cast<off_t>(a[2]), static_cast<off_t>(a[3])));
  c.fallback(Feature::kFallocate);
  if (a[1] != 0) return -EOPNOTSUPP;
  struct stat st;
  if (fstat(c.fd(), &st) != 0) return -errno;
  off_t want = static_cast<off_t>(a[2] + a[3]);
  return st.st_size >= want ? 0 : rc(ftruncate(c.fd(), want));
}

}  // namespace

std::optional<int64_t> io_op(Ctx& c) {
  const Event& e = c.e;
  const uint64_t* a = e.args;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_close: {
      int fd = c.fd();
      c.env.ofd_fd[c.op.ofd] = -1;
      return fd < 0 ? -EBADF : rc(close(fd));
    }
    case SYS_read: case SYS_readv: return do_io<false>(c, false, 0, e.nr == SYS_read ? 2 : -1);
    case SYS_pread64: return do_io<false>(c, true, a[3], 2);
    case SYS_preadv: case SYS_preadv2: return do_io<false>(c, true, a[3], -1);
    case SYS_write: case SYS_writev: return do_io<true>(c, false, 0, e.nr == SYS_write ? 2 : -1);
    case SYS_pwrite64: return do_io<true>(c, true, a[3], 2);
    case SYS_pwritev: case SYS_pwritev2: return do_io<true>(c, true, a[3], -1);
    case SYS_lseek: return rc(lseek(c.fd(), static_cast<off_t>(a[1]), static_cast<int>(a[2])));
    case SYS_getdents: case SYS_getdents64: {
      uint64_t size;
      char* buf = c.io_buf(a[2], size);
      return rc(syscall(SYS_getdents64, c.fd(), buf, static_cast<unsigned>(std::min<uint64_t>(a[2], size))));
    }
    case SYS_truncate: {
      int fd = c.open_path(0, O_WRONLY, 0);
      if (fd < 0) return fd;
      int64_t r = rc(ftruncate(fd, static_cast<off_t>(a[1])));
      close(fd);
      return r;
    }
    case SYS_ftruncate: return rc(ftruncate(c.fd(), static_cast<off_t>(a[1])));
    case SYS_fallocate: return do_fallocate(c);
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
    case SYS_fadvise64:
      return -posix_fadvise(c.fd(), static_cast<off_t>(a[1]), static_cast<off_t>(a[2]), static_cast<int>(a[3]));
    case SYS_readahead: return rc(readahead(c.fd(), static_cast<off64_t>(a[1]), a[2]));
    case SYS_fcntl: return rc(fcntl(c.fd(), static_cast<int>(a[1]), static_cast<long>(a[2])));
    case SYS_copy_file_range: return do_copy(c, c.io_len(4));
    case SYS_sendfile: return rc(sendfile(c.fd(), c.fd2(), nullptr, static_cast<size_t>(c.io_len(3))));
    default: return std::nullopt;
  }
  // clang-format on
}

}  // namespace fsr::exec
