// SPDX-License-Identifier: Apache-2.0
// What the per-syscall planner (syscall_actions.cpp) and its families
// (syscall_actions_fds.cpp, syscall_actions_procs.cpp) share about the op
// being planned. Internal to the planner (plan_stream.h is the interface).
#pragma once

#include <cstdint>
#include <vector>

#include "replayer/plan/plan_stream.h"
#include "traces/syscalls.h"

namespace fsr {

struct PlanStream::SyscallCtx {
  uint64_t i;
  const Event& e;
  PlanOp& op;
  OpFacts& f;
  TidState& st;
  const SyscallInfo& si;
  std::vector<uint32_t>& closed;  // OFDs the op closes for good (set_closes)
  uint16_t exec_done;             // TidState::exec_done before this op
  bool has_path = false;          // op.path[0] resolved, once the fd forms are settled
  bool link_fd = false;           // linkat(fd, "", dir, name, AT_EMPTY_PATH)

  int fdarg(int k) const { return static_cast<int>(static_cast<int64_t>(e.args[k])); }
};

}  // namespace fsr
