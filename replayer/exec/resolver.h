// SPDX-License-Identifier: Apache-2.0
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

#include "replayer/exec/features.h"

namespace fsr {

// The replay's roots (target and scratch: fd and absolute path each). A link
// in one root to a path in the other is written as that absolute path
// (path_map.h: a venv's bin/python3 -> the interpreter outside the recorded
// root, now in the scratch tree), which a walk beneath one root refuses: given
// the roots, a walk that meets an absolute link beneath one of them goes on
// from that root's fd. Any other absolute link is still refused.
struct LinkRoots {
  const int* fd = nullptr;
  const std::string* path = nullptr;
  int n = 0;
};

// `rel` is relative to `rootfd` ("" or "." = the root itself).
int open_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, const Features& f,
                 const LinkRoots* links = nullptr);

// The user-space resolver on its own (used when openat2 is missing, or refused
// a link between the roots; tested directly).
int open_beneath_user(int rootfd, std::string_view rel, int flags, mode_t mode, const LinkRoots* links = nullptr);

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
int open_parent_beneath(int rootfd, std::string_view rel, std::string& base, const Features& f,
                        const LinkRoots* links = nullptr);

}  // namespace fsr
