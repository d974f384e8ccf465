// Opening paths beneath a replay root without ever leaving it: openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where the kernel has it, a
// user-space resolver (component by component, O_NOFOLLOW, symlinks read and
// followed by hand, absolute targets and `..` above the root refused with
// EXDEV) where it does not. Returns an fd or a negative errno; never throws.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "replayer/features.h"

namespace fsr {

// `rel` is relative to `rootfd` ("" or "." = the root itself).
int open_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, const Features& f);

// The user-space resolver on its own (used when openat2 is missing; tested directly).
int open_beneath_user(int rootfd, std::string_view rel, int flags, mode_t mode);

// Opens the directory holding the last component of `rel` (O_PATH) beneath the
// root and sets `base` to that last component; for ops that must not follow a
// symlink out of the tree on the way to their target.
int open_parent_beneath(int rootfd, std::string_view rel, std::string& base, const Features& f);

}  // namespace fsr
