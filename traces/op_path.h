// SPDX-License-Identifier: Apache-2.0
// The path a replayed op is named by in results and reports: its first path,
// or its second when the first is absent or a symlink's literal target
// (kSfLiteralPath0: what the link points to, not a name it touches). One
// rule for replay's result file and predict's columns, so that their
// per-directory tables name the same ops the same way.
#pragma once

#include "traces/event.h"
#include "traces/syscalls.h"

namespace fsr {

inline StrId op_path(const Event& e) {
  StrId p = e.path[0] != kNoStr ? e.path[0] : e.path[1];
  const SyscallInfo* si = syscall_info(e.nr);
  if (si && (si->flags & kSfLiteralPath0) && e.path[1] != kNoStr) p = e.path[1];
  return p;
}

}  // namespace fsr
