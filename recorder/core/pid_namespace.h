// SPDX-License-Identifier: Apache-2.0
// The PID namespace a process sees pids in, by its nsfs inode number (what
// /proc/PID/ns/pid links to). The recorder numbers every pid of a trace in
// its own namespace (docs/design.md "Recording"); this says which one that is.
// How deep it lies cannot be read from inside it (NS_GET_PARENT stops at the
// caller's own namespace, /proc's NSpid starts at it): the BPF side finds
// the level by the inode number.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace fsr {

// The initial PID namespace's inode number (the kernel's PROC_PID_INIT_INO).
inline constexpr uint64_t kInitPidNsInum = 0xEFFFFFFCu;

struct PidNamespace {
  uint64_t inum = kInitPidNsInum;
  bool initial() const { return inum == kInitPidNsInum; }
};

// The namespace of the calling process. Fails when /proc is not this
// namespace's /proc (an `unshare --pid --fork` without --mount-proc): the
// pids in it would be another namespace's.
Result<PidNamespace> read_pid_namespace(const std::string& proc = "/proc");

}  // namespace fsr
