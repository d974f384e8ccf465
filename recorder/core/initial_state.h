// SPDX-License-Identifier: Apache-2.0
// What the recorder captures before the workload starts: the prestate tree
// walk of --root, the mount table, a process's cwd and open fds, and the
// processes below a running one. Reads only; never follows symlinks; never
// records file contents.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

// Walks `root` (absolute) depth-first, calling `fn` for root itself and every
// entry below it. Stops at the first error `fn` returns. Unreadable
// directories are reported through `fn` as entries but not descended into.
Status walk_prestate(const std::string& root, const std::function<Status(const PrestateEntry&)>& fn,
                     uint64_t* unreadable_dirs = nullptr);

// Parses a mountinfo file (the workload's: /proc/PID/mountinfo lists the
// mounts as PID's mount namespace and root see them). Octal escapes
// (\040, \134) are decoded.
Result<std::vector<MountEntry>> read_mountinfo(const std::string& path = "/proc/self/mountinfo");

// cwd and open fds (targets, flags, positions) of a running process, as the
// process sees them: from its own root (process_root), not the recorder's.
Result<ProcessState> read_process_state(uint32_t pid);

// The root directory of `pid` as the recorder sees it ("/" unless it is
// chrooted or pivoted elsewhere, or cannot be read).
std::string process_root(uint32_t pid);
// `path` (as the recorder sees it) as a process whose root is `root` sees it.
std::string path_in_root(std::string_view path, std::string_view root);

// Descendants of `pid` (by PPid in /proc), for --pid: pids as the recorder's
// PID namespace (its /proc) numbers them.
std::vector<uint32_t> descendants(uint32_t pid);

}  // namespace fsr
