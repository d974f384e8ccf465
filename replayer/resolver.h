// Opening paths beneath a replay root without ever leaving it: openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where the kernel has it, a
// user-space resolver (component by component, O_NOFOLLOW, symlinks read and
// followed by hand, absolute targets and `..` above the root refused with
// EXDEV) where it does not. Returns an fd or a negative errno; never throws.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "replayer/features.h"

namespace fsr {

// `rel` is relative to `rootfd` ("" or "." = the root itself).
int open_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, const Features& f);

// The user-space resolver on its own (used when openat2 is missing; tested directly).
int open_beneath_user(int rootfd, std::string_view rel, int flags, mode_t mode);

// openat2 beneath `rootfd` with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS and
// `extra_resolve`; an fd or a negative errno (the kernel must have openat2).
int openat2_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, uint64_t extra_resolve = 0);

// `rel` split at its last '/': the parent ("" for the root itself) and where
// the last component starts in `rel`; false when that component is empty,
// "." or "..". (The component runs to the end of `rel`: from a std::string,
// c_str() + base_at names it.)
bool split_parent(std::string_view rel, std::string_view& parent, size_t& base_at);

// Opens the directory holding the last component of `rel` (O_PATH) beneath the
// root and sets `base` to that last component; for ops that must not follow a
// symlink out of the tree on the way to their target.
int open_parent_beneath(int rootfd, std::string_view rel, std::string& base, const Features& f);

}  // namespace fsr
