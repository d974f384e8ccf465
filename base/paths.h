// SPDX-License-Identifier: Apache-2.0
// Lexical path handling every room shares: splitting into components,
// normalising an absolute path, joining, the parent, and whether one path lies
// beneath another. Purely lexical (no symlinks are followed, nothing touches
// the file system): `.` folds away, `..` pops a component and is clamped at
// `/`, repeated slashes count as one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fsr {

// Calls fn(component) for each non-empty component of `p`, as it is ("." and
// ".." included), without allocating; a fn that returns bool stops the walk
// by returning false.
template <typename Fn>
void for_each_component(std::string_view p, Fn&& fn) {
  size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) {
      if constexpr (std::is_same_v<decltype(fn(p.substr(i, j - i))), bool>) {
        if (!fn(p.substr(i, j - i))) return;
      } else {
        fn(p.substr(i, j - i));
      }
    }
    i = j;
  }
}

// Appends the non-empty components of `p` to `out`, as they are ("." and ".."
// included): "/a//b/./c" -> a, b, ., c.
void split_path(std::string_view p, std::vector<std::string_view>& out);

// Appends the components of `p` to `out` folding "." and ".." (".." pops what
// `out` holds already, and nothing once it is empty).
void split_folded(std::string_view p, std::vector<std::string_view>& out);

// Lexical normalisation of an absolute path ("/a//b/./c/../d" -> "/a/b/d");
// `..` at `/` stays at `/`. A relative input is taken relative to `/`.
std::string normalize_abs(std::string_view path);

// `base` joined with `rel` (rel absolute: rel itself), normalised.
std::string join_abs(std::string_view base, std::string_view rel);

// Parent of a normalised absolute path ("/a/b" -> "/a", "/a" -> "/", "/" -> "/").
std::string_view parent_of(std::string_view abs);

// True when `path` is `dir` or lies below it on a component boundary
// ("/mnt/c" holds "/mnt/c" and "/mnt/c/x", not "/mnt/cd"); "/" holds every
// absolute path. Both are taken as given: normalise first where it matters
// (a trailing slash on `dir` other than "/" never matches).
bool is_beneath(std::string_view path, std::string_view dir);

// How a path as a program passed it ends, which normalisation folds away but
// the kernel does not: "x/" asks for a directory at x (stat of a file through
// it is ENOTDIR, rename onto it of a file ENOTDIR), "x/." and "x/.." end in a
// dot component (mkdir "x/." is ENOENT or EEXIST, rmdir "x/." EINVAL). What
// gnulib's configure tests probe, and so every autotools build.
enum class PathTail : uint8_t { kNone = 0, kSlash = 1, kDot = 2, kDotDot = 3 };
PathTail path_tail(std::string_view raw);
// The text a tail adds back to a path: "", "/", "/." (also for kDotDot: the
// stored path is the directory "x/.." names, and "/." names it too).
std::string_view tail_text(PathTail t);

}  // namespace fsr
