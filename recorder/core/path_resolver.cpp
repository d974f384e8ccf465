// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/path_resolver.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <vector>

#include "base/paths.h"

namespace fsr {
namespace {

constexpr int kMaxLinkDepth = 40;  // the kernel's MAXSYMLINKS

void pop(std::string& out) {
  const size_t slash = out.rfind('/');
  out.resize(slash == std::string::npos || slash == 0 ? 1 : slash);
}

void append(std::string& out, std::string_view name) {
  if (out.size() > 1) out.push_back('/');
  out.append(name);
}

}  // namespace

PathResolver::PathResolver(LinkProbe probe) : probe_(std::move(probe)) {}

bool PathResolver::live_link(const std::string& path, std::string* target) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
  char buf[PATH_MAX];
  const ssize_t n = readlink(path.c_str(), buf, sizeof(buf));
  if (n <= 0) return false;
  target->assign(buf, static_cast<size_t>(n));
  return true;
}

void PathResolver::set_root(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  root_ = std::move(root);
  forget_dirs();
}

bool PathResolver::under_root(std::string_view path) const { return is_beneath(path, root_); }

void PathResolver::add_link(std::string_view path, std::string_view target) {
  links_.insert_or_assign(std::string(path), std::string(target));
  if (auto it = not_links_.find(path); it != not_links_.end()) not_links_.erase(it);
  forget_dirs();
}

void PathResolver::removed(std::string_view path) {
  if (auto it = links_.find(path); it != links_.end()) {
    links_.erase(it);
    forget_dirs();
  }
  if (!under_root(path)) not_links_.emplace(path);
}

void PathResolver::made_dir(std::string_view path) { removed(path); }

void PathResolver::renamed(std::string_view from, std::string_view to) {
  // The link itself, and links below a renamed directory, move; whatever
  // was at `to` is replaced.
  std::vector<std::pair<std::string, std::string>> moved;
  for (auto it = links_.begin(); it != links_.end();) {
    const std::string& p = it->first;
    const bool at = p == from, below = !at && is_beneath(p, from);
    const bool over = is_beneath(p, to);
    if (at || below) moved.emplace_back(std::string(to) + p.substr(from.size()), std::move(it->second));
    if (at || below || over) {
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [p, t] : moved) links_.insert_or_assign(std::move(p), std::move(t));
  if (!under_root(from)) not_links_.emplace(from);
  if (!under_root(to) && moved.empty()) not_links_.emplace(to);
  forget_dirs();
}

bool PathResolver::is_link(const std::string& path, std::string* target) {
  if (auto it = links_.find(path); it != links_.end()) {
    *target = it->second;
    return true;
  }
  if (under_root(path) || not_links_.count(path)) return false;
  if (probe_ && probe_(path, target)) {
    links_.emplace(path, *target);
    return true;
  }
  not_links_.emplace(path);
  return false;
}

void PathResolver::walk(std::string& out, std::string_view path, int depth) {
  out.assign("/");
  std::string target;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    const std::string_view c = path.substr(i, j - i);
    i = j;
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      pop(out);
      continue;
    }
    const size_t parent = out.size();
    append(out, c);
    if (depth > 0 && is_link(out, &target)) {
      out.resize(parent);
      std::string next = target.front() == '/' ? target : out + (out.size() > 1 ? "/" : "") + target;
      walk(out, next, depth - 1);
    }
  }
}

void PathResolver::physical_dir(std::string& out, std::string_view dir) {
  if (auto it = dirs_.find(dir); it != dirs_.end()) {
    out.assign(it->second);
    return;
  }
  walk(out, dir, kMaxLinkDepth);
  dirs_.emplace(std::string(dir), out);
}

void PathResolver::resolve_dir(std::string& out, std::string_view abs) { physical_dir(out, abs); }

void PathResolver::resolve(std::string& out, std::string_view base, std::string_view rel) {
  if (rel.empty()) {
    out.assign(base);
    return;
  }
  if (rel.front() != '/' && rel.find('/') == std::string_view::npos) {  // a name in `base`: nothing to look up
    out.assign(base);
    if (rel == "..")
      pop(out);
    else if (rel != ".")
      append(out, rel);
    return;
  }
  std::string& full = dir_scratch_;
  if (rel.front() == '/') {
    full.assign(rel);
  } else {
    full.assign(base);
    full.push_back('/');
    full.append(rel);
  }
  while (full.size() > 1 && full.back() == '/') full.pop_back();
  const size_t last = full.rfind('/');
  const std::string_view name = std::string_view(full).substr(last + 1);
  physical_dir(out, last == 0 ? std::string_view("/") : std::string_view(full).substr(0, last));
  if (name == "..")
    pop(out);
  else if (!name.empty() && name != ".")
    append(out, name);
}

}  // namespace fsr
