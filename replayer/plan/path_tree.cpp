// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/path_tree.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>

#include "base/paths.h"

namespace fsr {
namespace {
size_t hash_of(uint32_t parent, std::string_view name) {
  return std::hash<std::string_view>{}(name) ^ (static_cast<size_t>(parent) * 0x9E3779B97F4A7C15ull);
}
}  // namespace

PathTree::PathTree() {
  nodes_.resize(2);
  nodes_[1].root = 1;
  slots_.assign(16, kNone);
}

size_t PathTree::slot_of(uint32_t parent, std::string_view name) const {
  if (slots_.empty()) throw std::logic_error("PathTree: looked up after drop_index()");
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash_of(parent, name) & mask;; s = (s + 1) & mask) {
    const uint32_t n = slots_[s];
    if (n == kNone || (nodes_[n].parent == parent && this->name(n) == name)) return s;
  }
}

void PathTree::reserve(size_t nodes) {
  nodes_.reserve(nodes);
  if (slots_.size() < nodes * 2) grow(nodes);
}

void PathTree::grow(size_t room) {
  std::vector<uint32_t>().swap(slots_);
  slots_.assign(std::max<size_t>(16, std::bit_ceil(std::max(room, nodes_.size()) * 2 + 2)), kNone);
  const size_t mask = slots_.size() - 1;
  for (uint32_t n = 2; n < nodes_.size(); ++n) {
    size_t s = hash_of(nodes_[n].parent, name(n)) & mask;
    while (slots_[s] != kNone) s = (s + 1) & mask;
    slots_[s] = n;
  }
}

uint32_t PathTree::child(uint32_t parent, std::string_view name, bool make) {
  size_t s = slot_of(parent, name);
  if (slots_[s] != kNone || !make) return slots_[s];
  if (nodes_.size() >= kNone - 1) throw std::length_error("PathTree: more than 4G paths");
  Node nd;
  nd.name_off = names_.size();
  nd.name_len = static_cast<uint16_t>(std::min<size_t>(name.size(), UINT16_MAX));
  nd.parent = parent;
  nd.depth = static_cast<uint16_t>(std::min<uint32_t>(nodes_[parent].depth + 1u, 0x7fff));
  nd.root = nodes_[parent].root;
  names_.append(name.substr(0, nd.name_len));
  const uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(nd);
  slots_[s] = id;
  if (nodes_.size() * 2 > slots_.size()) grow(nodes_.size());
  return id;
}

uint32_t PathTree::intern(const MappedPath& m) {
  uint32_t n = root_node(m.root);
  for_each_component(m.rel, [&](std::string_view c) {
    n = child(n, c, true);
    return true;
  });
  return n;
}

uint32_t PathTree::find(const MappedPath& m) const {
  uint32_t n = root_node(m.root);
  for_each_component(m.rel, [&](std::string_view c) {
    n = slots_[slot_of(n, c)];
    return n != kNone;
  });
  return n;
}

void PathTree::rel(uint32_t n, std::string& out) const {
  size_t len = nodes_[n].depth ? nodes_[n].depth - 1 : 0;
  for (uint32_t p = n; !is_root(p); p = nodes_[p].parent) len += nodes_[p].name_len;
  out.resize(len);
  size_t end = len;
  for (uint32_t p = n; !is_root(p); p = nodes_[p].parent) {
    const Node& nd = nodes_[p];
    end -= nd.name_len;
    std::copy_n(names_.data() + nd.name_off, nd.name_len, out.data() + end);
    if (end) out[--end] = '/';
  }
}

MappedPath PathTree::path(uint32_t n) const {
  MappedPath m;
  m.root = root(n);
  rel(n, m.rel);
  return m;
}

void PathTree::drop_index() {
  std::vector<uint32_t>().swap(slots_);
  nodes_.shrink_to_fit();
  names_.shrink_to_fit();
}

}  // namespace fsr
