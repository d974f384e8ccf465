// SPDX-License-Identifier: Apache-2.0
// A deterministic synthetic trace whose prestate is a large tree shaped like
// a real checkout (directories of 10-200 entries, 3-8 levels deep, mostly
// small files, some symlinks and hard links, a few empty directories, about
// 1% of it outside the recorded root), with a modest number of events on it:
// stats, reads, failed probes, new files and directories. For prepare's
// scale bench (dev/bench/prepare-scale.sh) and the prepare tests. The tree
// is generated and written entry by entry: the generator's memory stays flat
// at any size (a reservoir of paths for the events, the current branch).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace fsr {

struct TreeTraceShape {
  uint64_t entries = 100000;  // prestate entries, exactly
  uint64_t events = 20000;    // about (whole open/read/close sequences)
  uint64_t seed = 1;
  std::string root = "/home/dev/project";
};

struct TreeTraceStats {
  uint64_t entries = 0, dirs = 0, files = 0, symlinks = 0, hard_links = 0, outside = 0;
  uint64_t bytes = 0;  // sum of the files' sizes (hard links once)
  uint64_t events = 0;
  uint32_t max_depth = 0;
};

Result<TreeTraceStats> write_tree_trace(const std::string& path, const TreeTraceShape& shape);

}  // namespace fsr
