// SPDX-License-Identifier: Apache-2.0
// Launcher: starts the workload held before exec, so that the recorder can put
// its pid into the kernel filter first; then releases it. Under sudo the
// workload runs as $SUDO_USER (uid, gid, groups, HOME/USER/LOGNAME). It never
// runs the workload as root when sudo told us who the user is.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "base/status.h"

namespace fsr {

struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;  // empty: stay who we are
  std::string home;
};

// $SUDO_USER when we are root through sudo, else ourselves.
RunAs invoking_user();

class HeldChild {
 public:
  HeldChild() = default;
  HeldChild(HeldChild&& o) noexcept { *this = std::move(o); }
  HeldChild& operator=(HeldChild&& o) noexcept {
    std::swap(pid_, o.pid_);
    std::swap(released_, o.released_);
    std::swap(go_, o.go_);
    std::swap(err_, o.err_);
    return *this;
  }
  ~HeldChild();  // a never-released child is killed and reaped

  pid_t pid() const { return pid_; }
  // Lets the child exec. Fails with "command not found" style errors when the
  // exec itself failed (the child has then exited with 127, reaped here).
  Status release();

 private:
  friend Result<HeldChild> spawn_held(const std::vector<std::string>& argv, const RunAs& as);
  pid_t pid_ = -1;
  bool released_ = false;
  UniqueFd go_;   // write end: one byte releases the child
  UniqueFd err_;  // read end: errno of a failed exec, EOF on success
};

// Resolves argv[0] through PATH first, so that "not found" is reported before
// anything is recorded.
Result<HeldChild> spawn_held(const std::vector<std::string>& argv, const RunAs& as);

}  // namespace fsr
