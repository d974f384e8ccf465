// SPDX-License-Identifier: Apache-2.0
// Number of arguments each recorded syscall takes, by name, and from it the
// arguments a kernel record carries. The kernel side saves all six argument
// registers; the ones past a call's arity hold stale values that would cost
// bytes in the ring and the trace and mean nothing, so they are not sent (and
// the decoder zeroes them). Keyed by name so that syscall numbers stay in
// traces/syscalls.
#pragma once

#include <cstdint>
#include <string_view>

#include "traces/syscalls.h"

namespace fsr {

// 6 for names it does not know (keeps everything).
uint8_t syscall_arity(std::string_view name);

// The argument slot that carries the two new fds of a kSfFdPairOut call
// (fd0 | fd1 << 32): pipe/pipe2 write the pair at arg0, socketpair at arg3.
int fd_pair_arg(const SyscallInfo& s);

// Bit i set: a record of `s` carries argument i (fsr_rec.arg_mask). Every
// argument within the arity that is not a user pointer, plus the fd-pair slot.
uint8_t recorded_arg_mask(const SyscallInfo& s);

// True for execve/execveat: a successful call has replaced the address space
// by sys_exit, so its record carries no path (FSR_SF_EXEC); the exec record
// (FSR_REC_EXEC) has it instead.
bool path_only_on_failure(const SyscallInfo& s);

}  // namespace fsr
