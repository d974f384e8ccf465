// SPDX-License-Identifier: Apache-2.0
// What the replayer's executor spends on the target beyond the call the
// original made, measured before the clock starts (docs/design.md "The replay
// clock"). The executor reaches every path beneath its root: a namespace
// change opens the parent directory beneath the root first (and closes it
// after), an xattr or attribute call opens the path O_PATH and works on
// /proc/self/fd/N, an open goes through openat2(RESOLVE_BENEATH). On ext4
// here that is up to ~10 µs a call; on a FUSE mount each extra open is a
// round trip. Think mode pays it back from the gaps after the call.
//
// Per syscall the trace issues, the same call is timed through the executor
// (a synthetic plan on a calibration directory in the target) and as the
// plain call on the same path, alternately; the cost is the difference of
// the medians (never below 0). Nothing is created in the target but one
// empty directory (removed after): namespace calls are timed on names that
// fail (ENOENT/EEXIST), whose executor overhead is the same parent open, so
// that the target's allocator history is left as prepared.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "replayer/exec/features.h"
#include "replayer/plan/plan.h"
#include "base/status.h"
#include "traces/syscalls.h"

namespace fsr {

struct IssueCost {
  std::array<uint32_t, kMaxSyscallNr> ns{};  // per syscall: executor beyond the plain call
  std::vector<uint16_t> measured;            // the syscalls calibrated
  uint64_t took_ns = 0;                      // how long the calibration took
};

// Syscalls whose executor path does more than the plain call (the ones
// calibrate_issue_cost measures).
bool issue_cost_applies(uint16_t nr);

// Calibrates the syscalls of `nrs` that issue_cost_applies to, on the target
// directory open as `target_fd` (its path `target_path`). `budget_ns` bounds
// the time per syscall (fewer repetitions on a slow mount).
Result<IssueCost> calibrate_issue_cost(int target_fd, const std::string& target_path, const Features& f,
                                       const std::vector<uint16_t>& nrs, uint64_t budget_ns = 20'000'000);

// The distinct syscalls the plan issues.
std::vector<uint16_t> issued_syscalls(const Plan& plan);

}  // namespace fsr
