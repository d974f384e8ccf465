// SPDX-License-Identifier: Apache-2.0
#include "base/paths.h"

namespace fsr {
namespace {

std::string join_components(const std::vector<std::string_view>& parts) {
  std::string s;
  for (std::string_view c : parts) {
    s += '/';
    s += c;
  }
  if (s.empty()) s.push_back('/');
  return s;
}

}  // namespace

void split_path(std::string_view p, std::vector<std::string_view>& out) {
  for_each_component(p, [&](std::string_view c) { out.push_back(c); });
}

void split_folded(std::string_view p, std::vector<std::string_view>& out) {
  for_each_component(p, [&](std::string_view c) {
    if (c == "..") {
      if (!out.empty()) out.pop_back();
    } else if (c != ".") {
      out.push_back(c);
    }
  });
}

std::string normalize_abs(std::string_view path) {
  std::vector<std::string_view> parts;
  split_folded(path, parts);
  return join_components(parts);
}

std::string join_abs(std::string_view base, std::string_view rel) {
  if (!rel.empty() && rel[0] == '/') return normalize_abs(rel);
  std::vector<std::string_view> parts;
  split_folded(base, parts);
  split_folded(rel, parts);
  return join_components(parts);
}

std::string_view parent_of(std::string_view abs) {
  size_t k = abs.rfind('/');
  if (k == std::string_view::npos || k == 0) return "/";
  return abs.substr(0, k);
}

bool is_beneath(std::string_view path, std::string_view dir) {
  if (dir == "/") return !path.empty() && path.front() == '/';
  return !dir.empty() && path.starts_with(dir) && (path.size() == dir.size() || path[dir.size()] == '/');
}

PathTail path_tail(std::string_view raw) {
  if (raw.empty() || (raw.back() != '/' && raw.back() != '.')) return PathTail::kNone;  // most paths (the drain's loop)
  size_t n = raw.size();
  while (n > 0 && raw[n - 1] == '/') --n;
  if (n == 0) return PathTail::kNone;  // "" or the root
  const size_t k = raw.rfind('/', n - 1);
  const std::string_view last =
      raw.substr(k == std::string_view::npos ? 0 : k + 1, n - (k == std::string_view::npos ? 0 : k + 1));
  if (last == ".") return PathTail::kDot;
  if (last == "..") return PathTail::kDotDot;
  return n < raw.size() ? PathTail::kSlash : PathTail::kNone;
}

std::string_view tail_text(PathTail t) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (t) {
    case PathTail::kSlash: return "/";
    case PathTail::kDot: case PathTail::kDotDot: return "/.";
    case PathTail::kNone: break;
  }
  // clang-format on
  return {};
}

}  // namespace fsr
