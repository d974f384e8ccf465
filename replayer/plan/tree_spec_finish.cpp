// SPDX-License-Identifier: Apache-2.0
// TreeSpecBuilder::finish (tree_spec.h): what the gathering found made into
// the tree prepare builds: the entries that existed at the start (devices
// left out), paths known only to exist made empty files or directories by
// what lies beneath them, the directories above every entry.
#include "replayer/plan/tree_spec.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

namespace fsr {

namespace {

// Per node, while finish() runs: something lies beneath it, the trace creates it.
constexpr uint8_t kAbove = 1, kCreated = 2;

}  // namespace

TreeSpec TreeSpecBuilder::finish(const std::function<bool(uint32_t path)>& is_device) {
  TreeSpec spec = std::move(spec_);
  spec.paths.drop_index();  // every path is a node by now
  const PathTree& paths = spec.paths;
  std::vector<uint32_t> created, touched;
  add_seen(is_device, created, touched);
  std::unordered_map<uint32_t, Seen>().swap(seen_);
  std::unordered_map<uint32_t, TreeEntry>().swap(followed_);
  std::unordered_map<uint32_t, uint64_t>().swap(offsets_);
  std::vector<uint8_t> mark(paths.size(), 0);
  make_touched(paths, created, touched, mark);
  std::vector<bool> drop = add_ancestors(paths, created, touched, mark);
  std::vector<uint8_t>().swap(mark);
  for (auto& [idx, to] : links_) all_[idx].link_to = entry_of(to);
  std::vector<uint32_t>().swap(entry_of_);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(links_);
  decltype(inodes_)().swap(inodes_);
  order_entries(paths, drop);
  spec.entries = std::move(all_);
  all_ = {};
  std::stable_sort(created.begin(), created.end(),
                   [&](uint32_t a, uint32_t b) { return paths.depth(a) > paths.depth(b); });
  for (uint32_t c : created) spec.created.push_back(paths.path(c));
  std::vector<std::pair<uint32_t, uint32_t>>().swap(created_);
  std::vector<uint32_t>().swap(seen_order_);
  std::vector<uint32_t>().swap(plan_node_);
  return spec;
}

// The entries the trace showed existed at start (devices left out); the
// nodes the trace creates, and those known only to exist (`touched`).
void TreeSpecBuilder::add_seen(const std::function<bool(uint32_t path)>& is_device, std::vector<uint32_t>& created,
                               std::vector<uint32_t>& touched) {
  for (const auto& [node, p] : created_)
    if (p == kNoPath || !is_device(p)) created.push_back(node);
  for (uint32_t node : seen_order_) {
    Seen& sn = seen_.at(node);
    if (!sn.existed || (sn.path != kNoPath && is_device(sn.path))) continue;
    if (sn.has_facts) {
      add(sn.entry);
    } else if (auto f = followed_.find(node); f != followed_.end()) {
      TreeEntry t = f->second;  // seen through a symlink only: its size, not an empty file
      t.node = node;
      t.link_to = t.target = UINT32_MAX;
      add(t);
    } else {
      touched.push_back(node);
    }
  }
}

// Paths known only to exist (no kind, no size; e.g. the end of a symlink
// chain that was only followed) become empty files, unless other paths lie
// beneath them (then the ancestor walk makes them directories) or a lookup
// beneath them found no name (then they are empty directories). `touched`
// keeps those left to the ancestor walk; `mark` gets kAbove.
void TreeSpecBuilder::make_touched(const PathTree& paths, const std::vector<uint32_t>& created,
                                   std::vector<uint32_t>& touched, std::vector<uint8_t>& mark) {
  auto above = [&](uint32_t n) {
    for (uint32_t p = paths.parent(n); p != PathTree::kNone && !paths.is_root(p); p = paths.parent(p)) {
      if (mark[p] & kAbove) break;
      mark[p] |= kAbove;
    }
  };
  for (const TreeEntry& t : all_) above(t.node);
  for (uint32_t c : created) above(c);
  for (uint32_t c : touched) above(c);
  std::vector<uint32_t> still;
  for (uint32_t n : touched) {
    if (paths.is_root(n) || entry_of(n) != UINT32_MAX || (mark[n] & kAbove)) {
      still.push_back(n);
      continue;
    }
    TreeEntry t;
    t.node = n;
    const bool dir = n < dir_hint_.size() && dir_hint_[n];
    t.kind = dir ? PrestateKind::kDir : PrestateKind::kFile;
    t.mode = dir ? 040755 : 0100755;
    add(t);
  }
  touched = std::move(still);
  std::vector<bool>().swap(dir_hint_);
}

// Every ancestor is a directory, except those the trace creates itself; an
// implied entry beneath a prestate symlink or file cannot be made and is
// dropped. Returns, per entry, whether it is dropped.
std::vector<bool> TreeSpecBuilder::add_ancestors(const PathTree& paths, const std::vector<uint32_t>& created,
                                                 const std::vector<uint32_t>& touched, std::vector<uint8_t>& mark) {
  for (uint32_t c : created) mark[c] |= kCreated;
  const size_t n = all_.size();
  std::vector<bool> drop;
  std::vector<uint32_t> chain;
  // (path, entry index or UINT32_MAX, whether it is a path the trace creates)
  auto need = [&](uint32_t node, uint32_t idx, bool is_created) {
    chain.clear();
    bool blocked = false;
    for (uint32_t p = paths.parent(node); p != PathTree::kNone && !paths.is_root(p); p = paths.parent(p)) {
      if (uint32_t e = entry_of(p); e != UINT32_MAX) {
        blocked = all_[e].kind != PrestateKind::kDir;
        break;
      }
      if (!(mark[p] & kCreated)) {
        chain.push_back(p);
      } else if (!is_created) {  // beneath something the trace creates: not there at start
        blocked = true;
        break;
      } else {  // a created path beneath a created one: nothing between existed at start
        chain.clear();
        break;
      }
    }
    if (blocked) {
      if (idx != UINT32_MAX) {
        drop.resize(all_.size());
        drop[idx] = true;
      }
      return;
    }
    for (uint32_t d : chain) {
      TreeEntry t;
      t.node = d;
      t.kind = PrestateKind::kDir;
      t.mode = 040755;
      add(t);
    }
  };
  for (size_t i = 0; i < n; ++i) need(all_[i].node, static_cast<uint32_t>(i), false);
  for (uint32_t c : created) need(c, UINT32_MAX, true);
  for (uint32_t c : touched) need(c, UINT32_MAX, false);
  drop.resize(all_.size());
  return drop;
}

// Order: directories by depth, then files, symlinks, hard links (link_to
// remapped), permuted in place: the entries are never copied. The dropped
// entries and the roots (which exist) are cut off the end.
void TreeSpecBuilder::order_entries(const PathTree& paths, std::vector<bool>& drop) {
  std::vector<uint32_t> pos(all_.size(), UINT32_MAX);  // index now -> index in the spec
  size_t kept = 0;
  {
    std::vector<uint32_t> order;
    order.reserve(all_.size());
    for (size_t i = 0; i < all_.size(); ++i)
      if (!paths.is_root(all_[i].node) && !drop[i]) order.push_back(static_cast<uint32_t>(i));  // the roots exist
    auto rank = [&](const TreeEntry& t) {
      if (t.link_to != UINT32_MAX) return 3;
      return t.kind == PrestateKind::kDir ? 0 : t.kind == PrestateKind::kFile ? 1 : 2;
    };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      int ra = rank(all_[a]), rb = rank(all_[b]);
      if (ra != rb) return ra < rb;
      return ra == 0 && paths.depth(all_[a].node) < paths.depth(all_[b].node);
    });
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<uint32_t>(i);
    kept = order.size();
  }
  std::vector<bool>().swap(drop);
  for (TreeEntry& t : all_)
    if (t.link_to != UINT32_MAX) t.link_to = pos[t.link_to];  // (a link to a dropped entry: a file)
  // What is not kept goes after what is; then each entry is swapped into its place.
  for (size_t i = 0, next = kept; i < pos.size(); ++i)
    if (pos[i] == UINT32_MAX) pos[i] = static_cast<uint32_t>(next++);
  for (uint32_t i = 0; i < pos.size(); ++i)
    while (pos[i] != i) {
      const uint32_t j = pos[i];
      std::swap(all_[i], all_[j]);
      std::swap(pos[i], pos[j]);
    }
  std::vector<uint32_t>().swap(pos);
  all_.resize(kept);
}

TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir) {
  TreeSpecBuilder b(map, target_dir, scratch_dir);
  b.add_prestate(prestate);
  b.add_initial(plan);
  for (uint64_t i = 0; i < plan.size; ++i) b.add_op(plan, i);
  return b.finish([](uint32_t) { return false; });  // (the plan's ops carry their device marks)
}

}  // namespace fsr
