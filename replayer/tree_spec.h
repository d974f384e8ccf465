// The initial tree a replay needs: the trace's prestate (mapped, symlink
// targets rewritten to stay inside, hard links recognised by inode) plus what
// the events show existed without the prestate naming it — per path,
// everything the trace saw before the path's first creation or removal
// (inode facts of opens and stats, executables run, symlinks shown by
// readlink, parents of everything) — and the list of paths the trace creates.
// Pure computation over the plan: never touches the file system.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
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

// Built as the survey streams the trace (survey.h): the prestate, then every
// op once the ops a lookahead after it are planned (a readlink's target is
// guessed from the lookups that follow it), then finish() once, when it is
// known which paths are character devices (never made).
class TreeSpecBuilder {
 public:
  TreeSpecBuilder(const PathMap& map, std::string target_dir, std::string scratch_dir);
  void add_prestate(const std::vector<PrestateEntry>& prestate);
  void add_initial(const Plan& plan);
  void add_op(const Plan& plan, uint64_t i);
  TreeSpec finish(const std::function<bool(uint32_t path)>& is_device);

 private:
  struct Seen {
    bool settled = false, existed = false, has_facts = false, made = false;
    uint32_t path = kNoPath;
    TreeEntry entry;
  };
  void add(TreeEntry t);

  PathMap map_;
  TreeSpec spec_;
  std::vector<TreeEntry> all_;
  std::unordered_map<std::string, size_t> known_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> inodes_;
  std::vector<std::pair<size_t, std::string>> links_;  // entry -> key of the entry it links to
  std::unordered_map<std::string, Seen> seen_;
  std::vector<std::string> seen_order_;
  std::vector<std::pair<MappedPath, uint32_t>> created_;  // (where, plan path)
};

// The same over a whole plan (tests).
TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir);

}  // namespace fsr
