#include "replayer/path_map.h"

#include <vector>

namespace fsr {
namespace {

void split_into(std::string_view p, std::vector<std::string_view>& out) {
  size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) {
      std::string_view c = p.substr(i, j - i);
      if (c == "..") {
        if (!out.empty()) out.pop_back();
      } else if (c != ".") {
        out.push_back(c);
      }
    }
    i = j;
  }
}

std::string join_components(const std::vector<std::string_view>& parts, bool leading_slash) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 || leading_slash) s += '/';
    s += parts[i];
  }
  if (s.empty() && leading_slash) s.push_back('/');
  return s;
}

}  // namespace

std::string normalize_abs(std::string_view path) {
  std::vector<std::string_view> parts;
  split_into(path, parts);
  return join_components(parts, true);
}

std::string join_abs(std::string_view base, std::string_view rel) {
  if (!rel.empty() && rel[0] == '/') return normalize_abs(rel);
  std::vector<std::string_view> parts;
  split_into(base, parts);
  split_into(rel, parts);
  return join_components(parts, true);
}

std::string_view parent_of(std::string_view abs) {
  size_t k = abs.rfind('/');
  if (k == std::string_view::npos || k == 0) return "/";
  return abs.substr(0, k);
}

PathMap::PathMap(std::string recorded_root) : root_(normalize_abs(recorded_root)) {}

MappedPath PathMap::map(std::string_view abs) const {
  std::string n = normalize_abs(abs);
  if (root_ == "/") return {Root::kTarget, n.substr(1)};
  if (n == root_) return {Root::kTarget, ""};
  if (n.size() > root_.size() && n.compare(0, root_.size(), root_) == 0 && n[root_.size()] == '/')
    return {Root::kTarget, n.substr(root_.size() + 1)};
  return {Root::kScratch, n.substr(1)};
}

bool stays_beneath(std::string_view dir_rel, std::string_view target) {
  if (!target.empty() && target[0] == '/') return false;
  long depth = 0;
  std::vector<std::string_view> d;
  split_into(dir_rel, d);
  depth = static_cast<long>(d.size());
  size_t i = 0;
  while (i < target.size()) {
    while (i < target.size() && target[i] == '/') ++i;
    size_t j = i;
    while (j < target.size() && target[j] != '/') ++j;
    std::string_view c = target.substr(i, j - i);
    if (c == "..") {
      if (--depth < 0) return false;
    } else if (!c.empty() && c != ".") {
      ++depth;
    }
    i = j;
  }
  return true;
}

std::string relative_path(std::string_view from_rel, std::string_view to_rel) {
  std::vector<std::string_view> a, b;
  split_into(from_rel, a);
  split_into(to_rel, b);
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

std::string PathMap::symlink_target(std::string_view link_abs, std::string_view target,
                                    const std::string& target_dir,
                                    const std::string& scratch_dir) const {
  MappedPath link = map(link_abs);
  std::string link_abs_mapped("/");
  link_abs_mapped.append(link.rel);
  std::string link_dir_rel(parent_of(link_abs_mapped).substr(1));
  if (!target.empty() && target[0] != '/' && stays_beneath(link_dir_rel, target))
    return std::string(target);
  // Resolve lexically where the recorded link pointed, then map that.
  std::string abs_target = join_abs(parent_of(normalize_abs(link_abs)), target);
  MappedPath to = map(abs_target);
  if (to.root == link.root) return relative_path(link_dir_rel, to.rel);
  const std::string& dir = to.root == Root::kTarget ? target_dir : scratch_dir;
  return to.rel.empty() ? dir : dir + "/" + to.rel;
}

}  // namespace fsr
