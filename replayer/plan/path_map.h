// SPDX-License-Identifier: Apache-2.0
// Path mapping for replay: a recorded absolute path becomes a path beneath
// one of two replay roots. The recorded root goes to the target (the mount
// under test); every other path goes to the scratch directory, so that
// /usr/lib/x replays as SCRATCH/usr/lib/x. Mapping is purely lexical: `.`,
// `..` and repeated slashes are folded and `..` is clamped at `/`, so no
// recorded path, however hostile, maps outside its root. Symlink targets are
// rewritten so that they stay beneath the root they are created in. This
// component never touches the file system.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/paths.h"  // normalize_abs, join_abs, parent_of

namespace fsr {

enum class Root : uint8_t { kTarget = 0, kScratch = 1 };

struct MappedPath {
  Root root = Root::kScratch;
  std::string rel;  // beneath the root: no leading '/', no '.' or '..'; "" = the root itself
  bool operator==(const MappedPath&) const = default;
};

class PathMap {
 public:
  explicit PathMap(std::string recorded_root);
  const std::string& recorded_root() const { return root_; }

  MappedPath map(std::string_view abs) const;

  // What to store as the target of a symlink created at recorded path `link_abs`
  // whose recorded target is `target`. Relative targets that stay beneath the
  // link's own root are kept; others (absolute, or climbing out) are mapped and
  // expressed relative to the link when both lie in the same root, and as an
  // absolute path into the other root (`other_root_dir`) otherwise.
  std::string symlink_target(std::string_view link_abs, std::string_view target, const std::string& target_dir,
                             const std::string& scratch_dir) const;

 private:
  std::string root_;  // normalised
};

// Relative path from directory `from_rel` to `to_rel`, both beneath the same root.
std::string relative_path(std::string_view from_rel, std::string_view to_rel);

// True when a relative symlink target, followed from directory `dir_rel`,
// lexically stays beneath the root (never climbs above it).
bool stays_beneath(std::string_view dir_rel, std::string_view target);

}  // namespace fsr
