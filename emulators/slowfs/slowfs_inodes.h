// SPDX-License-Identifier: Apache-2.0
// slowfs_inodes: the table of inodes the kernel knows about (FUSE node ids).
//
// Each entry holds an O_PATH fd on the backing object, so an inode stays
// reachable after it is unlinked or renamed (fstat of an unlinked open file,
// like on a local file system). Keyed by (st_dev, st_ino): hard links are one
// kernel inode, so their caches stay coherent. Never follows symlinks.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace fsr {

struct SlowfsInode {
  int fd = -1;  // O_PATH | O_NOFOLLOW
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t nlookup = 0;  // guarded by InodeTable::mu_
  ~SlowfsInode();
};

class InodeTable {
 public:
  // Opens the root; returns "" or an error naming the path.
  std::string open_root(const std::string& backing);
  SlowfsInode& root() { return *root_; }
  // FUSE node id <-> inode. The root is FUSE_ROOT_ID (1).
  SlowfsInode& get(uint64_t nodeid);
  uint64_t id_of(SlowfsInode& inode);

  // Looks `name` up under `parent` and adds one kernel reference. Returns
  // the inode and fills *st, or nullptr with errno set.
  SlowfsInode* lookup(SlowfsInode& parent, const char* name, struct stat* st);
  // Drops `n` kernel references (FORGET); frees the inode at zero.
  void forget(uint64_t nodeid, uint64_t n);

 private:
  std::mutex mu_;
  std::unique_ptr<SlowfsInode> root_;
  std::map<std::pair<dev_t, ino_t>, std::unique_ptr<SlowfsInode>> by_key_;
};

// "/proc/self/fd/N": the path that reopens an O_PATH fd.
std::string proc_path(int fd);

}  // namespace fsr
