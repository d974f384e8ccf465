// SPDX-License-Identifier: Apache-2.0
// Installs the WSL1 gap table (wsl1_gaps.h) as a seccomp filter on the
// calling thread's process; it is inherited across fork and exec. Everything
// not in the table is allowed. Must be called before any other thread starts
// (the filter is not synchronised to existing threads), ideally in a forked
// child. Once installed, seccomp itself is refused as on WSL1 (prctl
// PR_SET_SECCOMP: EINVAL, seccomp(2): ENOSYS), so a second install fails.
// Only the native architecture is filtered; other ABIs (x32, i386) pass.
#pragma once

#include <string>

#include "base/status.h"

namespace fsr {

Status install_wsl1_filter();

// The table as text, one call per line: "syscall  condition  errno  source".
std::string wsl1_gaps_table();

}  // namespace fsr
