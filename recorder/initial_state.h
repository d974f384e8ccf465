// What the recorder captures before the workload starts: the prestate tree
// walk of --root, the mount table, a process's cwd and open fds, and the
// processes below a running one. Reads only; never follows symlinks; never
// records file contents.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "traces/status.h"
#include "traces/trace_model.h"

namespace fsr {

// Walks `root` (absolute) depth-first, calling `fn` for root itself and every
// entry below it. Stops at the first error `fn` returns. Unreadable
// directories are reported through `fn` as entries but not descended into.
Status walk_prestate(const std::string& root, const std::function<Status(const PrestateEntry&)>& fn,
                     uint64_t* unreadable_dirs = nullptr);

// Parses a mountinfo file (default: our own). Octal escapes (\040, \134) are decoded.
Result<std::vector<MountEntry>> read_mountinfo(const std::string& path = "/proc/self/mountinfo");


// cwd and open fds (targets, flags, positions) of a running process.
Result<ProcessState> read_process_state(uint32_t pid);

// Descendants of `pid` (by PPid in /proc), for --pid: pids as the recorder's
// PID namespace (its /proc) numbers them.
std::vector<uint32_t> descendants(uint32_t pid);

}  // namespace fsr
