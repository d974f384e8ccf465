// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/inode_paths.h"

#include <functional>

namespace fsr {

// The slot of (dev, ino): its own, or the empty one where it would go.
InodePaths::Slot& InodePaths::slot(uint64_t dev, uint64_t ino) {
  const size_t mask = slots_.size() - 1;
  for (size_t i = std::hash<uint64_t>{}(ino * 0x9e3779b97f4a7c15ull ^ dev) & mask;; i = (i + 1) & mask) {
    Slot& x = slots_[i];
    if (x.path == kNoStr || (x.ino == ino && x.dev == dev)) return x;
  }
}

void InodePaths::set(uint64_t dev, uint64_t ino, StrId path) {
  Slot* x = &slot(dev, ino);
  if (x->path == kNoStr) {
    if (2 * (used_ + 1) > slots_.size()) {  // keep the table at most half full
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      for (const Slot& o : old)
        if (o.path != kNoStr) slot(o.dev, o.ino) = o;
      x = &slot(dev, ino);
    }
    ++used_;
  }
  *x = {dev, ino, path};
}

}  // namespace fsr
