// SPDX-License-Identifier: Apache-2.0
#include "replayer/exec/dir_cache.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include "replayer/exec/resolver.h"

namespace fsr {

void DirCache::drop(int fd) {
  if (holds_ > 0 && n_deferred_ < static_cast<int>(std::size(deferred_)))
    deferred_[n_deferred_++] = fd;
  else
    close(fd);
}

void DirCache::release() {
  if (--holds_ > 0) return;
  holds_ = 0;
  for (int i = 0; i < n_deferred_; ++i) close(deferred_[i]);
  n_deferred_ = 0;
}

void DirCache::clear() {
  for (Entry& x : e_) {
    if (x.fd >= 0) drop(x.fd);
    x.fd = -1;
  }
}

int DirCache::open(int rootfd, std::string_view parent, const Features& f, bool& owned, const LinkRoots* links) {
  owned = false;
  if (parent.empty()) return rootfd;
  const uint64_t g = gen_ ? gen_->load(std::memory_order_acquire) : 0;
  if (g != seen_) {
    clear();
    seen_ = g;
  }
  Entry* victim = &e_[0];
  for (Entry& x : e_) {
    if (x.fd >= 0 && x.root == rootfd && x.len == parent.size() && memcmp(x.path, parent.data(), x.len) == 0) {
      x.used = ++tick_;
      ++hits_;
      return x.fd;
    }
    if (x.fd < 0 || (victim->fd >= 0 && x.used < victim->used)) victim = &x;
  }
  owned = true;
  if (!f.has(Feature::kOpenat2) || parent.size() >= kMaxPath)
    return open_beneath(rootfd, parent, O_PATH | O_DIRECTORY, 0, f, links);
  const int fd = openat2_beneath(rootfd, parent, O_PATH | O_DIRECTORY, 0, RESOLVE_NO_SYMLINKS);
  // ELOOP: a symlink on the way (followed, beneath the root, and not kept).
  // Any other failure is the one the full resolution meets first.
  if (fd < 0) return fd == -ELOOP ? open_beneath(rootfd, parent, O_PATH | O_DIRECTORY, 0, f, links) : fd;
  if (victim->fd >= 0) drop(victim->fd);
  victim->root = rootfd;
  victim->fd = fd;
  victim->used = ++tick_;
  victim->len = static_cast<uint16_t>(parent.size());
  memcpy(victim->path, parent.data(), parent.size());
  owned = false;
  return victim->fd;
}

}  // namespace fsr
