// SPDX-License-Identifier: Apache-2.0
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
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "replayer/plan/path_map.h"
#include "replayer/plan/path_tree.h"
#include "replayer/plan/plan.h"
#include "traces/event.h"
#include "traces/trace_model.h"

namespace fsr {

// One entry, compact (32 bytes): its path is a node of TreeSpec::paths, its
// symlink text an index into TreeSpec::targets.
struct TreeEntry {
  uint64_t size = 0;
  uint32_t node = 0;  // TreeSpec::paths
  uint32_t mode = 0;
  uint32_t link_to = UINT32_MAX;  // hard link: index of the entry it shares an inode with
  uint32_t target = UINT32_MAX;   // symlink: TreeSpec::targets (already rewritten)
  PrestateKind kind = PrestateKind::kFile;
};
static_assert(sizeof(TreeEntry) == 32);

// The tree to prepare: ~32 bytes an entry plus ~16 bytes and the name of each
// path component (path_tree.h), the symlinks' texts, and the paths the trace
// creates (few: one per creating op at most).
struct TreeSpec {
  PathTree paths;
  std::vector<TreeEntry> entries;       // parents before children
  std::vector<std::string> targets;     // symlink texts
  std::vector<MappedPath> created;      // paths the trace creates that are not in the prestate
  std::string target_dir, scratch_dir;  // absolute symlink targets may point into these

  Root root(size_t i) const { return paths.root(entries[i].node); }
  void rel(size_t i, std::string& out) const { paths.rel(entries[i].node, out); }
  MappedPath where(size_t i) const { return paths.path(entries[i].node); }
  std::string_view target(size_t i) const {
    return entries[i].target < targets.size() ? std::string_view(targets[entries[i].target]) : std::string_view();
  }
};

// Built as the survey streams the trace (survey.h): the prestate (block by
// block), then every op once the ops a lookahead after it are planned (a
// readlink's target is guessed from the lookups that follow it), then
// finish() once, when it is known which paths are character devices (never
// made). Holds ~40 bytes an entry besides its path's nodes; finish() needs
// ~10 more while it orders them (in place).
class TreeSpecBuilder {
 public:
  TreeSpecBuilder(const PathMap& map, std::string target_dir, std::string scratch_dir);
  // Room for `entries` (the prestate's size, from the trace's index): no
  // table grows by doubling, nor is copied while it does, on a large tree.
  void reserve(uint64_t entries);
  void add_prestate(std::span<const PrestateEntry> prestate);
  void add_initial(const Plan& plan);
  void add_op(const Plan& plan, uint64_t i);
  TreeSpec finish(const std::function<bool(uint32_t path)>& is_device);

 private:
  struct Seen {
    bool settled = false, existed = false, has_facts = false, made = false;
    bool exec_only = false;  // its facts came from an execve alone (no size): a later inode's replace them
    uint32_t path = kNoPath;
    TreeEntry entry;
  };
  void add(const TreeEntry& t);
  uint32_t entry_of(uint32_t node) const { return node < entry_of_.size() ? entry_of_[node] : UINT32_MAX; }
  uint32_t node_of(const Plan& plan, uint32_t path);
  uint32_t add_target(std::string text);
  void read_through(const Plan& plan, const PlanOp& op, const Event& e, SyscallClass cls);
  // add_op's steps (tree_spec.cpp).
  void track_made_links(const Plan& plan, const PlanOp& op, const SyscallInfo& si);
  void see_path(const Plan& plan, uint64_t i, const SyscallInfo& si, int k);
  void settle(Seen& sn, uint32_t node, const PlanOp& op, const Event& e, int k);
  void see_readlink(const Plan& plan, uint64_t i, uint32_t node, Seen& sn);
  // finish()'s steps (tree_spec_finish.cpp).
  void add_seen(const std::function<bool(uint32_t path)>& is_device, std::vector<uint32_t>& created,
                std::vector<uint32_t>& touched);
  void make_touched(const PathTree& paths, const std::vector<uint32_t>& created, std::vector<uint32_t>& touched,
                    std::vector<uint8_t>& mark);
  std::vector<bool> add_ancestors(const PathTree& paths, const std::vector<uint32_t>& created,
                                  const std::vector<uint32_t>& touched, std::vector<uint8_t>& mark);
  void order_entries(const PathTree& paths, std::vector<bool>& drop);

  PathMap map_;
  TreeSpec spec_;
  std::vector<TreeEntry> all_;
  std::vector<uint32_t> entry_of_;   // per node: its entry in all_, or UINT32_MAX
  std::vector<uint32_t> plan_node_;  // per plan path: its node (UINT32_MAX until asked)
  struct InodeHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const {
      return k.first * 0x9E3779B97F4A7C15ull ^ k.second;
    }
  };
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, InodeHash> inodes_;  // (dev, ino) -> first node
  std::vector<std::pair<uint32_t, uint32_t>> links_;  // entry -> node of the entry it links to
  std::unordered_map<uint32_t, Seen> seen_;           // by node
  std::vector<uint32_t> seen_order_;
  std::vector<std::pair<uint32_t, uint32_t>> created_;  // (node, plan path)
  // Facts a call saw through a symlink (an open or stat that followed it,
  // before a readlink showed it is one), by the node of the link's target:
  // that file's, when it has none of its own.
  std::unordered_map<uint32_t, TreeEntry> followed_;
  std::unordered_map<uint32_t, uint64_t> offsets_;  // per OFD: where its next read starts (read_through)
  // Symlinks the trace made (link node -> the node its text names, in replay
  // space), while they stand: what a call saw through one, it saw of that.
  std::unordered_map<uint32_t, uint32_t> made_links_;
  uint32_t made_link_target(const Plan& plan, const PlanOp& op);
  std::vector<bool> dir_hint_;  // per node: a lookup beneath it found no name (ENOENT): a directory, if it exists
  void hint_dir(uint32_t node) {
    if (node == PathTree::kNone) return;
    if (dir_hint_.size() <= node) dir_hint_.resize(std::max<size_t>(node + 1, dir_hint_.size() * 3 / 2));
    dir_hint_[node] = true;
  }
};

// The same over a whole plan (tests).
TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir);

}  // namespace fsr
