// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/ns_order.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <cerrno>

#include "traces/syscalls.h"

namespace fsr {
namespace {

uint32_t open_flags_of(const Event& e) { return open_flags(e.nr, e.args[1], e.args[2]); }

bool is_open(const Event& e) {
  return e.nr == SYS_open || e.nr == SYS_openat || e.nr == SYS_creat || e.nr == SYS_openat2;
}

// Calls that create path[k] and fail with EEXIST if it is there.
bool creates_exclusively(const Event& e, int k) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_mkdir: case SYS_mkdirat: case SYS_mknod: case SYS_mknodat: return k == 0;
    case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat: return k == 1;
    default:
      return k == 0 && is_open(e) && (open_flags_of(e) & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
  }
  // clang-format on
}

bool removes(const Event& e, int k) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_unlink: case SYS_unlinkat: case SYS_rmdir: return k == 0;
    case SYS_rename: case SYS_renameat: case SYS_renameat2: return k == 0;
    default: return false;
  }
  // clang-format on
}

bool creates(const Event& e, int k) {
  if (creates_exclusively(e, k)) return true;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_rename: case SYS_renameat: case SYS_renameat2: return k == 1;
    default: return k == 0 && is_open(e) && (open_flags_of(e) & O_CREAT);
  }
  // clang-format on
}

}  // namespace

NsEffect ns_effect(const Event& e, int k, bool direct) {
  if (!direct || e.ret < 0) return NsEffect::kNone;
  if (creates(e, k)) return NsEffect::kCreate;
  if (removes(e, k)) return NsEffect::kRemove;
  return NsEffect::kNone;
}

NsSeen ns_seen(const Event& e, int k, bool direct) {
  if (e.ret >= 0) {
    // Any success walked the directory holding its path.
    if (!direct || removes(e, k)) return NsSeen::kPresent;
    if (creates_exclusively(e, k)) return NsSeen::kAbsent;
    if (creates(e, k)) return NsSeen::kUnknown;  // O_CREAT alone, a rename's target
    return NsSeen::kPresent;
  }
  // ENOENT of a two-path call may be about either path; of a one-path call
  // it says that the name, or a directory above it, was missing: either way,
  // before a call that created the name or its parent.
  if (e.ret == -ENOENT) return k == 0 ? NsSeen::kAbsent : NsSeen::kUnknown;
  if (e.ret == -EEXIST && direct && creates(e, k)) return NsSeen::kPresent;
  return NsSeen::kUnknown;
}

int ns_first(NsEffect a_effect, NsSeen a_seen, NsEffect b_effect, NsSeen b_seen) {
  // b saw the state a leaves: a went first; the state a found gone: b did.
  auto after = [](NsEffect effect, NsSeen seen) -> int {
    if (effect == NsEffect::kNone || seen == NsSeen::kUnknown) return 0;
    const bool leaves_present = effect == NsEffect::kCreate;
    return (seen == NsSeen::kPresent) == leaves_present ? 1 : -1;
  };
  const int by_b = after(a_effect, b_seen);              // +1: a first
  const int by_a = -after(b_effect, a_seen);             // +1: a first
  if (by_b != 0 && by_a != 0 && by_b != by_a) return 0;  // contradictory results
  return by_b != 0 ? by_b : by_a;
}

}  // namespace fsr
