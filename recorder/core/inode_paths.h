// SPDX-License-Identifier: Apache-2.0
// InodePaths: (device, inode) -> the path a file was last opened by, so that
// a page-fault record (which names only the inode) gets its file's path.
// Open addressing over flat slots (a tree map allocated a node for each new
// inode in the drain loop); grows, never shrinks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/event.h"

namespace fsr {

class InodePaths {
 public:
  void set(uint64_t dev, uint64_t ino, StrId path);
  // kNoStr when the inode was never opened by path.
  StrId find(uint64_t dev, uint64_t ino) { return slot(dev, ino).path; }

 private:
  struct Slot {
    uint64_t dev = 0, ino = 0;
    StrId path = kNoStr;  // kNoStr: an empty slot
  };
  // The slot of (dev, ino): its own, or the empty one where it would go.
  Slot& slot(uint64_t dev, uint64_t ino);
  std::vector<Slot> slots_ = std::vector<Slot>(1u << 12);
  size_t used_ = 0;
};

}  // namespace fsr
