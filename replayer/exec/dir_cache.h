// SPDX-License-Identifier: Apache-2.0
// The parent directories of a worker's calls on names (mkdir, unlink,
// rename, link, symlink, mknod), opened beneath their root once and kept for
// the next call in the same directory: `rm -rf`, an archive's extraction or a
// build's outputs work one directory at a time, and each call otherwise paid
// an openat2 and a close around its own.
//
// Only a parent reached without a symlink is kept: its path then names that
// directory until a rename or an rmdir changes the tree. Either, anywhere,
// bumps ExecEnv::tree_gen; every cache drops its entries at its next lookup
// after a bump. An op ordered after the rename by a dependency sees the bump:
// the executor makes it before the op's completion is published.
// One cache per worker thread: not shared, never locked.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "replayer/exec/features.h"
#include "replayer/exec/resolver.h"

namespace fsr {

class DirCache {
 public:
  explicit DirCache(const std::atomic<uint64_t>* tree_gen) : gen_(tree_gen) {}
  ~DirCache() { clear(); }
  DirCache(const DirCache&) = delete;
  DirCache& operator=(const DirCache&) = delete;

  // `parent` (relative to `rootfd`; "" is the root itself) opened O_PATH
  // beneath the root, or a negative errno. `owned`: the caller closes it;
  // else the cache (or the caller of the replay, for the root) keeps it.
  int open(int rootfd, std::string_view parent, const Features& f, bool& owned, const LinkRoots* links = nullptr);

  uint64_t hits() const { return hits_; }

  // While held, entries the cache drops (a rename's bump, an eviction) are
  // closed only at the last release: a call on two names (rename, link)
  // uses the first parent while it looks up the second, and another
  // worker's rename in between made that lookup close the first one's fd
  // (renameat on a closed or reused fd: EBADF, or ENOENT in another
  // directory; npm ci's cache renames did that).
  void hold() { ++holds_; }
  void release();

 private:
  static constexpr int kEntries = 16;
  static constexpr size_t kMaxPath = 238;
  struct Entry {
    int root = -1;
    int fd = -1;
    uint64_t used = 0;
    uint16_t len = 0;
    char path[kMaxPath];
  };
  void clear();
  void drop(int fd);  // closes it, or defers that while held

  const std::atomic<uint64_t>* gen_;
  uint64_t seen_ = 0, tick_ = 0, hits_ = 0;
  int holds_ = 0, n_deferred_ = 0;
  int deferred_[kEntries * 2];  // dropped while held (at most all entries, twice: a clear and its refills)
  Entry e_[kEntries];
};

}  // namespace fsr
