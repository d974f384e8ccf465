// SPDX-License-Identifier: Apache-2.0
// Interned paths beneath the two replay roots, as a tree of components: a
// path is a node id (4 bytes) and its text is built on demand by walking up
// to its root. The prepare tree of millions of entries is held this way
// (tree_spec.h): 16 bytes a node plus its name's bytes, plus an index of
// 4-8 bytes a node while paths are still added (drop_index()). Nodes are
// numbered in creation order, so a parent's id is always smaller than its
// children's. Pure data: never touches the file system.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "replayer/plan/path_map.h"

namespace fsr {

class PathTree {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  PathTree();  // nodes 0 and 1: the target's and the scratch's roots (Root's values)
  static uint32_t root_node(Root r) { return static_cast<uint32_t>(r); }

  // The node of `m` (a normalised relative path, path_map.h), made with every
  // ancestor it lacks; find() makes nothing and returns kNone when absent.
  uint32_t intern(const MappedPath& m);
  void reserve(size_t nodes);  // room for this many without growing
  uint32_t find(const MappedPath& m) const;

  size_t size() const { return nodes_.size(); }
  bool is_root(uint32_t n) const { return n < 2; }
  uint32_t parent(uint32_t n) const { return nodes_[n].parent; }  // kNone for a root
  uint32_t depth(uint32_t n) const { return nodes_[n].depth; }    // 0 for a root
  Root root(uint32_t n) const { return static_cast<Root>(nodes_[n].root); }
  std::string_view name(uint32_t n) const { return {names_.data() + nodes_[n].name_off, nodes_[n].name_len}; }
  // Its path beneath its root ("" for a root), into `out` (reused: no allocation once grown).
  void rel(uint32_t n, std::string& out) const;
  MappedPath path(uint32_t n) const;

  // Frees the index: intern() and find() may not be called after.
  void drop_index();

 private:
  struct Node {
    uint64_t name_off = 0;
    uint32_t parent = kNone;
    uint16_t name_len = 0;
    uint16_t depth : 15 = 0;
    uint16_t root : 1 = 0;
  };
  static_assert(sizeof(Node) == 16);
  uint32_t child(uint32_t parent, std::string_view name, bool make);
  size_t slot_of(uint32_t parent, std::string_view name) const;
  void grow(size_t room);

  std::vector<Node> nodes_;
  std::string names_;
  std::vector<uint32_t> slots_;  // open addressing: node ids by (parent, name); kNone = empty
};

}  // namespace fsr
