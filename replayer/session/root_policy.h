// SPDX-License-Identifier: Apache-2.0
// Where a replay may write: the target and scratch directories resolved,
// checked (never '/', a home directory, /tmp or /var/tmp themselves, the
// system's own directories (/etc, /usr, /bin, /sbin, /lib*, /boot, /var but
// /var/tmp, /proc, /sys, /dev, /run), overlapping each other, or holding the
// trace or the result file) and opened; a scratch directory made here is
// removed again on every path, errors and stops included. Whose the
// directories are is target_guard.h's.
#pragma once

#include <string>

#include "replayer/session/replay.h"
#include "base/status.h"

namespace fsr {

struct Roots {
  std::string target, scratch;
  bool scratch_is_ours = false;
  int fd[2] = {-1, -1};  // target, scratch
  Roots() = default;
  Roots(const Roots&) = delete;
  Roots& operator=(const Roots&) = delete;
  ~Roots();
};

// realpath(3) as a string; "" when it fails (errno set).
std::string real_path(const std::string& p);

// '/', /tmp itself, a system or a home directory: refused with one line
// naming `what` (target, scratch, a placed directory) and `dir`.
Status refuse_dangerous_root(const std::string& what, const std::string& dir);

Status open_roots(const std::string& trace, const ReplayOptions& o, Roots& r);

// The root directory of the mount `dir` (absolute, physical) lies on, opened
// O_PATH, and in `prefix` the path from it to `dir` ("" when `dir` is that
// root; then -1 is returned, nothing to walk). A workload run in `dir` walks
// an absolute path through those components on that mount: a replay walks
// absolute paths from there (exec_context.h). -1 when the mount is not found
// (no STATX_MNT_ID: kernels before 5.8).
int mount_anchor(const std::string& dir, std::string& prefix);
void remove_scratch(Roots& r);

}  // namespace fsr
