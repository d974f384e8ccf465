// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/path_map.h"

#include <vector>

#include "base/paths.h"

namespace fsr {

PathMap::PathMap(std::string recorded_root) : root_(normalize_abs(recorded_root)) {}

MappedPath PathMap::map(std::string_view abs) const {
  std::string n = normalize_abs(abs);
  if (root_ == "/") return {Root::kTarget, n.substr(1)};
  if (n == root_) return {Root::kTarget, ""};
  if (is_beneath(n, root_)) return {Root::kTarget, n.substr(root_.size() + 1)};
  return {Root::kScratch, n.substr(1)};
}

bool stays_beneath(std::string_view dir_rel, std::string_view target) {
  if (!target.empty() && target[0] == '/') return false;
  std::vector<std::string_view> d, t;
  split_folded(dir_rel, d);
  split_path(target, t);
  long depth = static_cast<long>(d.size());
  for (std::string_view c : t) {
    if (c == "..") {
      if (--depth < 0) return false;
    } else if (c != ".") {
      ++depth;
    }
  }
  return true;
}

std::string relative_path(std::string_view from_rel, std::string_view to_rel) {
  std::vector<std::string_view> a, b;
  split_folded(from_rel, a);
  split_folded(to_rel, b);
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  std::string s;
  for (size_t i = k; i < a.size(); ++i) s += s.empty() ? ".." : "/..";
  for (size_t i = k; i < b.size(); ++i) {
    if (!s.empty()) s += '/';
    s += b[i];
  }
  return s.empty() ? "." : s;
}

std::string PathMap::symlink_target(std::string_view link_abs, std::string_view target, const std::string& target_dir,
                                    const std::string& scratch_dir) const {
  MappedPath link = map(link_abs);
  std::string link_abs_mapped("/");
  link_abs_mapped.append(link.rel);
  std::string link_dir_rel(parent_of(link_abs_mapped).substr(1));
  if (!target.empty() && target[0] != '/' && stays_beneath(link_dir_rel, target)) return std::string(target);
  // Resolve lexically where the recorded link pointed, then map that.
  std::string abs_target = join_abs(parent_of(normalize_abs(link_abs)), target);
  MappedPath to = map(abs_target);
  if (to.root == link.root) return relative_path(link_dir_rel, to.rel);
  const std::string& dir = to.root == Root::kTarget ? target_dir : scratch_dir;
  return to.rel.empty() ? dir : dir + "/" + to.rel;
}

}  // namespace fsr
