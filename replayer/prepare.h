// Prestate materialisation: builds, under target and scratch, the tree the
// recorded workload started from — directories, files of the recorded size
// filled with data (never sparse), symlinks (targets rewritten to stay inside,
// path_map.h) and hard links — plus what the trace shows existed without the
// prestate naming it (parents of paths that were created, paths that were read
// successfully, with their recorded inode facts). Idempotent: entries that
// already match are kept; paths the trace itself creates are removed, so that
// a tree can be reset after a replay and replayed again. Everything goes
// through resolver.h; nothing outside the two roots is touched.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "replayer/features.h"
#include "replayer/path_map.h"
#include "replayer/plan.h"
#include "traces/event.h"
#include "traces/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct TreeEntry {
  MappedPath where;
  PrestateKind kind = PrestateKind::kFile;
  uint32_t mode = 0;
  uint64_t size = 0;
  std::string target;            // symlink text to write (already rewritten)
  uint32_t link_to = UINT32_MAX; // hard link: index of the entry it shares an inode with
};

struct TreeSpec {
  std::vector<TreeEntry> entries;     // parents before children
  std::vector<MappedPath> created;    // paths the trace creates that are not in the prestate
  std::string target_dir, scratch_dir;  // absolute symlink targets may point into these
};

TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan,
                   const std::vector<Event>& events, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir);

struct PrepareStats {
  uint64_t dirs = 0, files = 0, symlinks = 0, links = 0, removed = 0, kept = 0;
  uint64_t bytes = 0;
};

using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Makes the tree match `spec`; `roots` are open directory fds (Root order).
Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f,
                                 unsigned threads, const ProgressFn& progress);

// Checks the tree matches `spec` (kinds, sizes, absence of created paths) and
// that no symlink in it points outside its root. First mismatch as an error.
Status verify_tree(const TreeSpec& spec, const int roots[2], const Features& f);

}  // namespace fsr
