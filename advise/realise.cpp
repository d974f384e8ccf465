// SPDX-License-Identifier: Apache-2.0
// How to make a placement real: per moved directory, the ways its kind is
// usually moved (a .git directory by git itself, a Cargo target directory by
// CARGO_TARGET_DIR, a build directory by configuring outside the tree,
// node_modules by a link or mount on the Linux disk), then the two general
// ones: a bind mount (what the prediction prices) and a symlink (one more
// lookup of the link on the slow mount per walk through it).
#include <fmt/format.h>

#include "advise/advise.h"

namespace fsr {
namespace {

std::string base_name(const std::string& dir) {
  const size_t s = dir.rfind('/');
  return s == std::string::npos ? dir : dir.substr(s + 1);
}

std::string parent_in(const std::string& root, const std::string& dir) {
  const size_t s = dir.rfind('/');
  return s == std::string::npos ? root : root + "/" + dir.substr(0, s);
}

}  // namespace

std::vector<Realisation> realisations(const std::string& dir, const std::string& root) {
  std::vector<Realisation> out;
  const std::string name = base_name(dir);
  const std::string in_tree = (root == "/" ? "" : root) + "/" + dir;
  const std::string there = "$FAST/" + dir;
  if (name == ".git")
    out.push_back(
        {"git --separate-git-dir", fmt::format("git clone --separate-git-dir={} URL {}  (an existing clone: git init "
                                               "--separate-git-dir={} in {})",
                                               there, parent_in(root, dir), there, parent_in(root, dir))});
  if (name == "target") out.push_back({"CARGO_TARGET_DIR", fmt::format("export CARGO_TARGET_DIR={}", there)});
  if (name == "node_modules")
    out.push_back(
        {"node_modules on the Linux disk",
         fmt::format("mkdir -p {0} && ln -s {0} {1}  (or Yarn Plug'n'Play: no node_modules at all)", there, in_tree)});
  if (name == "build" || name == "_build" || name == "out" || name == "obj" || name == "dist" ||
      name.rfind("cmake-build", 0) == 0)
    out.push_back(
        {"build directory outside the tree", fmt::format("cmake -S {} -B {}  (make: O={}; meson: meson setup {})",
                                                         parent_in(root, dir), there, there, there)});
  out.push_back({"bind mount", fmt::format("mkdir -p {0} && mount --bind {0} {1}  (/etc/fstab: {0} {1} none bind 0 0)",
                                           there, in_tree)});
  out.push_back({"symlink", fmt::format("mv {1} {0} && ln -s {0} {1}  (one more lookup on the slow mount per walk)",
                                        there, in_tree)});
  return out;
}

}  // namespace fsr
