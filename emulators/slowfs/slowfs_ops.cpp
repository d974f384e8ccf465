// SPDX-License-Identifier: Apache-2.0
#include "emulators/slowfs/slowfs_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace fsr {
namespace {

SlowfsState& S(fuse_req_t req) { return *static_cast<SlowfsState*>(fuse_req_userdata(req)); }
SlowfsInode& I(fuse_req_t req, fuse_ino_t ino) { return S(req).inodes.get(ino); }
int fh_fd(const fuse_file_info* fi) { return static_cast<int>(fi->fh); }

// Looks `name` up and replies with the entry (one kernel reference).
void reply_entry(fuse_req_t req, fuse_ino_t parent, const char* name) {
  SlowfsState& s = S(req);
  fuse_entry_param e{};
  SlowfsInode* inode = s.inodes.lookup(s.inodes.get(parent), name, &e.attr);
  if (!inode) {
    int err = errno;
    if (err == ENOENT && s.options.negative_timeout > 0) {
      e.ino = 0;  // cache the miss
      e.entry_timeout = s.options.negative_timeout;
      fuse_reply_entry(req, &e);
      return;
    }
    fuse_reply_err(req, err);
    return;
  }
  e.ino = s.inodes.id_of(*inode);
  e.attr_timeout = s.options.attr_timeout;
  e.entry_timeout = s.options.entry_timeout;
  fuse_reply_entry(req, &e);
}

// As root, new objects belong to root; hand them to the caller as a local
// file system would. A set-group-ID parent keeps its group.
void give_to_caller(fuse_req_t req, fuse_ino_t parent, const char* name) {
  SlowfsState& s = S(req);
  if (!s.chown_new_files) return;
  const fuse_ctx* ctx = fuse_req_ctx(req);
  SlowfsInode& p = s.inodes.get(parent);
  struct stat pst {};
  gid_t gid = ctx->gid;
  if (fstat(p.fd, &pst) == 0 && (pst.st_mode & S_ISGID)) gid = static_cast<gid_t>(-1);
  (void)fchownat(p.fd, name, ctx->uid, gid, AT_SYMLINK_NOFOLLOW);  // best effort
}

void op_init(void* userdata, fuse_conn_info* conn) {
  auto& o = static_cast<SlowfsState*>(userdata)->options;
  if (o.writeback_cache && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
  else
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  if (!o.readdirplus) conn->want &= ~(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
  if (conn->capable & FUSE_CAP_FLOCK_LOCKS) conn->want |= FUSE_CAP_FLOCK_LOCKS;
  // The kernel queues asynchronous requests (readahead, O_DIRECT chunks) past
  // max_background (default 12); with a server model the queue must be ours.
  if (o.models_server()) {
    conn->max_background = static_cast<unsigned>(std::min(o.max_threads, 65535u));
    conn->congestion_threshold = conn->max_background * 3 / 4;
  }
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Served served(req, OpClass::kLookup, FuseOp::kLookup);
  reply_entry(req, parent, name);
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t n) {
  S(req).op_counts.add(FuseOp::kForget);
  S(req).inodes.forget(ino, n);
  fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  S(req).op_counts.add(FuseOp::kBatchForget);
  for (size_t i = 0; i < count; ++i) S(req).inodes.forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  Served served(req, OpClass::kStat, FuseOp::kGetattr);
  struct stat st {};
  if (fstatat(I(req, ino).fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
    return (void)fuse_reply_err(req, errno);
  fuse_reply_attr(req, &st, S(req).options.attr_timeout);
}

int do_setattr(SlowfsInode& in, const struct stat* attr, int to_set, fuse_file_info* fi) {
  std::string pp = proc_path(in.fd);
  if (to_set & FUSE_SET_ATTR_MODE) {
    if ((fi ? fchmod(fh_fd(fi), attr->st_mode) : chmod(pp.c_str(), attr->st_mode)) != 0) return errno;
  }
  if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
    uid_t uid = (to_set & FUSE_SET_ATTR_UID) ? attr->st_uid : static_cast<uid_t>(-1);
    gid_t gid = (to_set & FUSE_SET_ATTR_GID) ? attr->st_gid : static_cast<gid_t>(-1);
    if (fchownat(in.fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return errno;
  }
  if (to_set & FUSE_SET_ATTR_SIZE) {
    if ((fi ? ftruncate(fh_fd(fi), attr->st_size) : truncate(pp.c_str(), attr->st_size)) != 0) return errno;
  }
  if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
    timespec tv[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
    if (to_set & FUSE_SET_ATTR_ATIME_NOW)
      tv[0].tv_nsec = UTIME_NOW;
    else if (to_set & FUSE_SET_ATTR_ATIME)
      tv[0] = attr->st_atim;
    if (to_set & FUSE_SET_ATTR_MTIME_NOW)
      tv[1].tv_nsec = UTIME_NOW;
    else if (to_set & FUSE_SET_ATTR_MTIME)
      tv[1] = attr->st_mtim;
    if ((fi ? futimens(fh_fd(fi), tv) : utimensat(AT_FDCWD, pp.c_str(), tv, 0)) != 0) return errno;
  }
  return 0;
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  Served served(req, OpClass::kAttr, FuseOp::kSetattr);
  SlowfsInode& in = I(req, ino);
  if (int err = do_setattr(in, attr, to_set, fi)) return (void)fuse_reply_err(req, err);
  struct stat st {};
  if (fstatat(in.fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return (void)fuse_reply_err(req, errno);
  fuse_reply_attr(req, &st, S(req).options.attr_timeout);
}

void op_readlink(fuse_req_t req, fuse_ino_t ino) {
  Served served(req, OpClass::kStat, FuseOp::kReadlink);
  char buf[PATH_MAX + 1];
  ssize_t n = readlinkat(I(req, ino).fd, "", buf, sizeof buf - 1);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  buf[n] = '\0';
  fuse_reply_readlink(req, buf);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  Served served(req, OpClass::kOpen, FuseOp::kMknod);
  if (mknodat(I(req, parent).fd, name, mode, rdev) != 0) return (void)fuse_reply_err(req, errno);
  give_to_caller(req, parent, name);
  reply_entry(req, parent, name);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  Served served(req, OpClass::kMkdir, FuseOp::kMkdir);
  if (mkdirat(I(req, parent).fd, name, mode) != 0) return (void)fuse_reply_err(req, errno);
  give_to_caller(req, parent, name);
  reply_entry(req, parent, name);
}

void op_symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  Served served(req, OpClass::kLink, FuseOp::kSymlink);
  if (symlinkat(target, I(req, parent).fd, name) != 0) return (void)fuse_reply_err(req, errno);
  give_to_caller(req, parent, name);
  reply_entry(req, parent, name);
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  Served served(req, OpClass::kLink, FuseOp::kLink);
  // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc path works for anyone.
  if (linkat(AT_FDCWD, proc_path(I(req, ino).fd).c_str(), I(req, newparent).fd, newname, AT_SYMLINK_FOLLOW) != 0)
    return (void)fuse_reply_err(req, errno);
  reply_entry(req, newparent, newname);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Served served(req, OpClass::kUnlink, FuseOp::kUnlink);
  fuse_reply_err(req, unlinkat(I(req, parent).fd, name, 0) == 0 ? 0 : errno);
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Served served(req, OpClass::kRmdir, FuseOp::kRmdir);
  fuse_reply_err(req, unlinkat(I(req, parent).fd, name, AT_REMOVEDIR) == 0 ? 0 : errno);
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent, const char* newname,
               unsigned int flags) {
  Served served(req, OpClass::kRename, FuseOp::kRename);
  int r = renameat2(I(req, parent).fd, name, I(req, newparent).fd, newname, flags);
  fuse_reply_err(req, r == 0 ? 0 : errno);
}

int open_flags(fuse_req_t req, int flags) {
  // O_DIRECT stays on the mount (uncached READ/WRITE requests), not on the
  // backing fd: libfuse's buffers are unaligned, and pwrite there gets EINVAL.
  flags &= ~(O_NOFOLLOW | O_DIRECT);
  // With writeback caching the kernel may read a write-only file (to fill
  // pages) and appends itself; passthrough_ll does the same.
  if (S(req).options.writeback_cache) {
    if ((flags & O_ACCMODE) == O_WRONLY) flags = (flags & ~O_ACCMODE) | O_RDWR;
    flags &= ~O_APPEND;
  }
  return flags | O_CLOEXEC;
}

void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  Served served(req, OpClass::kOpen, FuseOp::kOpen);
  int fd = open(proc_path(I(req, ino).fd).c_str(), open_flags(req, fi->flags));
  if (fd < 0) return (void)fuse_reply_err(req, errno);
  fi->fh = static_cast<uint64_t>(fd);
  fi->direct_io = S(req).options.direct_io ? 1 : 0;
  fuse_reply_open(req, fi);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi) {
  Served served(req, OpClass::kOpen, FuseOp::kCreate);
  SlowfsState& s = S(req);
  int fd = openat(s.inodes.get(parent).fd, name, open_flags(req, fi->flags) | O_CREAT, mode);
  if (fd < 0) return (void)fuse_reply_err(req, errno);
  give_to_caller(req, parent, name);
  fuse_entry_param e{};
  SlowfsInode* inode = s.inodes.lookup(s.inodes.get(parent), name, &e.attr);
  if (!inode) {
    int err = errno;
    close(fd);
    return (void)fuse_reply_err(req, err);
  }
  e.ino = s.inodes.id_of(*inode);
  e.attr_timeout = s.options.attr_timeout;
  e.entry_timeout = s.options.entry_timeout;
  fi->fh = static_cast<uint64_t>(fd);
  fi->direct_io = s.options.direct_io ? 1 : 0;
  fuse_reply_create(req, &e, fi);
}

void op_read(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
  Served served(req, OpClass::kRead, FuseOp::kRead);
  // Without splice (not asked for) libfuse would pread into a buffer too; here
  // the pread is part of the transfer's time on the pipe, not added to it.
  thread_local std::vector<char> buf;
  buf.resize(std::max(buf.size(), size));
  const int64_t since = mono_ns();
  ssize_t n = pread(fh_fd(fi), buf.data(), size, off);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  sleep_until_ns(served.state().server.reserve(static_cast<uint64_t>(n), false, since));
  fuse_reply_buf(req, buf.data(), static_cast<size_t>(n));
}

void op_write(fuse_req_t req, fuse_ino_t, const char* data, size_t size, off_t off, fuse_file_info* fi) {
  Served served(req, OpClass::kWrite, FuseOp::kWrite);
  const int64_t until = served.state().server.reserve(size, true);  // the backing write is part of it
  ssize_t n = pwrite(fh_fd(fi), data, size, off);
  sleep_until_ns(until);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  fuse_reply_write(req, static_cast<size_t>(n));
}

// close(2) waits for FLUSH, not for RELEASE (sent asynchronously after the
// last close), so the close class is charged here and release is free.
void op_flush(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  Served served(req, OpClass::kClose, FuseOp::kFlush);
  int fd = dup(fh_fd(fi));
  fuse_reply_err(req, fd < 0 ? errno : (close(fd) == 0 ? 0 : errno));
}

void op_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  S(req).op_counts.add(FuseOp::kRelease);
  close(fh_fd(fi));
  fuse_reply_err(req, 0);
}

void op_fsync(fuse_req_t req, fuse_ino_t, int datasync, fuse_file_info* fi) {
  Served served(req, OpClass::kSync, FuseOp::kFsync);
  int r = datasync ? fdatasync(fh_fd(fi)) : fsync(fh_fd(fi));
  fuse_reply_err(req, r == 0 ? 0 : errno);
}

void op_fallocate(fuse_req_t req, fuse_ino_t, int mode, off_t off, off_t len, fuse_file_info* fi) {
  Served served(req, OpClass::kAttr, FuseOp::kFallocate);
  fuse_reply_err(req, fallocate(fh_fd(fi), mode, off, len) == 0 ? 0 : errno);
}

void op_flock(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, int op) {
  S(req).op_counts.add(FuseOp::kFlock);
  fuse_reply_err(req, flock(fh_fd(fi), op) == 0 ? 0 : errno);
}

void op_statfs(fuse_req_t req, fuse_ino_t ino) {
  Served served(req, OpClass::kStat, FuseOp::kStatfs);
  struct statvfs sv {};
  if (!S(req).options.statfs) {  // libfuse's answer when a file system has no statfs
    sv.f_namemax = 255;
    sv.f_bsize = 512;
    return (void)fuse_reply_statfs(req, &sv);
  }
  if (fstatvfs(I(req, ino).fd, &sv) != 0) return (void)fuse_reply_err(req, errno);
  fuse_reply_statfs(req, &sv);
}

void op_access(fuse_req_t req, fuse_ino_t ino, int mask) {
  Served served(req, OpClass::kStat, FuseOp::kAccess);
  fuse_reply_err(req, faccessat(AT_FDCWD, proc_path(I(req, ino).fd).c_str(), mask, 0) == 0 ? 0 : errno);
}

// xattrs go through the /proc path of the O_PATH fd (no f*xattr on O_PATH).
// For symlinks that path would follow the link, so they get ENOTSUP, as
// user.* xattrs on symlinks are refused by Linux anyway.
bool is_symlink(SlowfsInode& in) {
  struct stat st {};
  return fstatat(in.fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size, int flags) {
  Served served(req, OpClass::kAttr, FuseOp::kSetxattr);
  SlowfsInode& in = I(req, ino);
  if (is_symlink(in)) return (void)fuse_reply_err(req, EPERM);
  fuse_reply_err(req, setxattr(proc_path(in.fd).c_str(), name, value, size, flags) == 0 ? 0 : errno);
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  Served served(req, OpClass::kAttr, FuseOp::kRemovexattr);
  SlowfsInode& in = I(req, ino);
  if (is_symlink(in)) return (void)fuse_reply_err(req, EPERM);
  fuse_reply_err(req, removexattr(proc_path(in.fd).c_str(), name) == 0 ? 0 : errno);
}

// getxattr and listxattr share the size-probe protocol: size 0 asks for the size.
template <typename Fn>
void reply_xattr(fuse_req_t req, size_t size, Fn fn) {
  if (size == 0) {
    ssize_t n = fn(nullptr, 0);
    if (n < 0) return (void)fuse_reply_err(req, errno);
    return (void)fuse_reply_xattr(req, static_cast<size_t>(n));
  }
  std::vector<char> buf(size);
  ssize_t n = fn(buf.data(), size);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  fuse_reply_buf(req, buf.data(), static_cast<size_t>(n));
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  Served served(req, OpClass::kXattr, FuseOp::kGetxattr);
  SlowfsInode& in = I(req, ino);
  if (is_symlink(in)) return (void)fuse_reply_err(req, ENODATA);
  std::string pp = proc_path(in.fd);
  reply_xattr(req, size, [&](char* b, size_t n) { return getxattr(pp.c_str(), name, b, n); });
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  Served served(req, OpClass::kXattr, FuseOp::kListxattr);
  SlowfsInode& in = I(req, ino);
  if (is_symlink(in)) return (void)(size == 0 ? fuse_reply_xattr(req, 0) : fuse_reply_buf(req, nullptr, 0));
  std::string pp = proc_path(in.fd);
  reply_xattr(req, size, [&](char* b, size_t n) { return listxattr(pp.c_str(), b, n); });
}

}  // namespace

void add_dir_operations(fuse_lowlevel_ops& ops);  // slowfs_dirops.cpp

const fuse_lowlevel_ops& slowfs_operations() {
  static const fuse_lowlevel_ops ops = [] {
    fuse_lowlevel_ops o{};
    o.init = op_init;
    o.lookup = op_lookup;
    o.forget = op_forget;
    o.forget_multi = op_forget_multi;
    o.getattr = op_getattr;
    o.setattr = op_setattr;
    o.readlink = op_readlink;
    o.mknod = op_mknod;
    o.mkdir = op_mkdir;
    o.symlink = op_symlink;
    o.link = op_link;
    o.unlink = op_unlink;
    o.rmdir = op_rmdir;
    o.rename = op_rename;
    o.open = op_open;
    o.create = op_create;
    o.read = op_read;
    o.write = op_write;
    o.flush = op_flush;
    o.release = op_release;
    o.fsync = op_fsync;
    o.fallocate = op_fallocate;
    o.flock = op_flock;
    o.statfs = op_statfs;
    o.access = op_access;
    o.setxattr = op_setxattr;
    o.getxattr = op_getxattr;
    o.listxattr = op_listxattr;
    o.removexattr = op_removexattr;
    add_dir_operations(o);
    return o;
  }();
  return ops;
}

}  // namespace fsr
