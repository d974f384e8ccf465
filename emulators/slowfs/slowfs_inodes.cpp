// SPDX-License-Identifier: Apache-2.0
#include "emulators/slowfs/slowfs_inodes.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fsr {

SlowfsInode::~SlowfsInode() {
  if (fd >= 0) close(fd);
}

std::string proc_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

std::string InodeTable::open_root(const std::string& backing) {
  auto root = std::make_unique<SlowfsInode>();
  root->fd = open(backing.c_str(), O_PATH | O_DIRECTORY);
  if (root->fd < 0) return "cannot open backing directory " + backing + ": " + std::strerror(errno);
  struct stat st {};
  if (fstat(root->fd, &st) != 0) return "cannot stat backing directory " + backing + ": " + std::strerror(errno);
  root->dev = st.st_dev;
  root->ino = st.st_ino;
  root->nlookup = 2;  // never freed
  root_ = std::move(root);
  return {};
}

SlowfsInode& InodeTable::get(uint64_t nodeid) {
  if (nodeid == 1) return *root_;
  return *reinterpret_cast<SlowfsInode*>(static_cast<uintptr_t>(nodeid));
}

uint64_t InodeTable::id_of(SlowfsInode& inode) {
  if (&inode == root_.get()) return 1;
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&inode));
}

SlowfsInode* InodeTable::lookup(SlowfsInode& parent, const char* name, struct stat* st) {
  int fd = openat(parent.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return nullptr;
  }
  std::lock_guard lock(mu_);
  if (st->st_dev == root_->dev && st->st_ino == root_->ino) {
    close(fd);
    ++root_->nlookup;
    return root_.get();
  }
  auto& slot = by_key_[{st->st_dev, st->st_ino}];
  if (slot) {
    close(fd);  // already known (a hard link, or looked up again)
  } else {
    slot = std::make_unique<SlowfsInode>();
    slot->fd = fd;
    slot->dev = st->st_dev;
    slot->ino = st->st_ino;
  }
  ++slot->nlookup;
  return slot.get();
}

void InodeTable::forget(uint64_t nodeid, uint64_t n) {
  if (nodeid == 1) return;
  std::lock_guard lock(mu_);
  SlowfsInode& inode = get(nodeid);
  inode.nlookup = inode.nlookup > n ? inode.nlookup - n : 0;
  if (inode.nlookup == 0) by_key_.erase({inode.dev, inode.ino});
}

}  // namespace fsr
