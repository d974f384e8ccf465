// SPDX-License-Identifier: Apache-2.0
// slowfs_dirops: directory handles of slowfs (opendir/readdir[plus]/...).
// Offsets are telldir() cookies, so a directory that changes between two
// getdents calls lists as it does on the backing file system.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <vector>

#include "emulators/slowfs/slowfs_ops.h"

namespace fsr {
namespace {

struct DirHandle {
  DIR* dp = nullptr;
  dirent* entry = nullptr;  // read but not yet returned to the kernel
  off_t offset = 0;
  std::mutex mu;
  ~DirHandle() {
    if (dp) closedir(dp);
  }
};

SlowfsState& S(fuse_req_t req) { return *static_cast<SlowfsState*>(fuse_req_userdata(req)); }
DirHandle& D(fuse_file_info* fi) { return *reinterpret_cast<DirHandle*>(static_cast<uintptr_t>(fi->fh)); }

void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  Served served(req, OpClass::kOpen, FuseOp::kOpendir);
  SlowfsState& s = S(req);
  int fd = openat(s.inodes.get(ino).fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return (void)fuse_reply_err(req, errno);
  auto* d = new DirHandle;
  d->dp = fdopendir(fd);
  if (!d->dp) {
    int err = errno;
    close(fd);
    delete d;
    return (void)fuse_reply_err(req, err);
  }
  fi->fh = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(d));
  fuse_reply_open(req, fi);
}

void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* fi, bool plus) {
  Served served(req, OpClass::kReaddir, plus ? FuseOp::kReaddirplus : FuseOp::kReaddir);
  SlowfsState& s = S(req);
  DirHandle& d = D(fi);
  std::lock_guard lock(d.mu);
  if (offset != d.offset) {
    seekdir(d.dp, offset);
    d.entry = nullptr;
    d.offset = offset;
  }
  std::vector<char> buf(size);
  size_t used = 0;
  while (true) {
    if (!d.entry) {
      errno = 0;
      d.entry = readdir(d.dp);
      if (!d.entry) {
        if (errno && used == 0) return (void)fuse_reply_err(req, errno);
        break;
      }
    }
    off_t next = telldir(d.dp);
    const char* name = d.entry->d_name;
    size_t n;
    if (plus) {
      fuse_entry_param e{};
      bool dot = name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
      if (dot) {
        // The kernel does not look these up; report them without a reference.
        e.attr.st_ino = d.entry->d_ino;
        e.attr.st_mode = static_cast<mode_t>(d.entry->d_type) << 12;
      } else {
        SlowfsInode* inode = s.inodes.lookup(s.inodes.get(ino), name, &e.attr);
        if (!inode) {  // vanished since readdir(): skip it, as getdents would
          d.entry = nullptr;
          d.offset = next;
          continue;
        }
        e.ino = s.inodes.id_of(*inode);
        e.attr_timeout = s.options.attr_timeout;
        e.entry_timeout = s.options.entry_timeout;
      }
      n = fuse_add_direntry_plus(req, buf.data() + used, size - used, name, &e, next);
      if (n > size - used) {
        if (!dot) s.inodes.forget(e.ino, 1);  // did not fit: undo the reference
        break;
      }
    } else {
      struct stat st {};
      st.st_ino = d.entry->d_ino;
      st.st_mode = static_cast<mode_t>(d.entry->d_type) << 12;
      n = fuse_add_direntry(req, buf.data() + used, size - used, name, &st, next);
      if (n > size - used) break;
    }
    used += n;
    d.entry = nullptr;
    d.offset = next;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  do_readdir(req, ino, size, off, fi, false);
}

void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  do_readdir(req, ino, size, off, fi, true);
}

void op_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  S(req).op_counts.add(FuseOp::kReleasedir);
  delete &D(fi);
  fuse_reply_err(req, 0);
}

void op_fsyncdir(fuse_req_t req, fuse_ino_t, int datasync, fuse_file_info* fi) {
  Served served(req, OpClass::kSync, FuseOp::kFsyncdir);
  int fd = dirfd(D(fi).dp);
  int r = datasync ? fdatasync(fd) : fsync(fd);
  fuse_reply_err(req, r == 0 ? 0 : errno);
}

}  // namespace

void add_dir_operations(fuse_lowlevel_ops& o) {
  o.opendir = op_opendir;
  o.readdir = op_readdir;
  o.readdirplus = op_readdirplus;
  o.releasedir = op_releasedir;
  o.fsyncdir = op_fsyncdir;
}

}  // namespace fsr
