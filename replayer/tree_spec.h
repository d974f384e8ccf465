// The initial tree a replay needs: the trace's prestate (mapped, symlink
// targets rewritten to stay inside, hard links recognised by inode) plus what
// the events show existed without the prestate naming it — per path,
// everything the trace saw before the path's first creation or removal
// (inode facts of opens and stats, executables run, symlinks shown by
// readlink, parents of everything) — and the list of paths the trace creates.
// Pure computation over the plan: never touches the file system.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replayer/path_map.h"
#include "replayer/plan.h"
#include "traces/event.h"
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

}  // namespace fsr
