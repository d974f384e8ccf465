// SPDX-License-Identifier: Apache-2.0
// The calls WSL1 lacks and the errors it answers them with
// (Microsoft's WSL1 issue threads: what WSL1 lacks): one table, used by the
// seccomp filter, `wsl1-harness --list` and the tests. Data only.
#pragma once

#include <errno.h>
#include <sys/mman.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace fsr {

// Request numbers spelled out so that this header mixes with either
// <sys/ptrace.h> or <linux/ptrace.h> (they clash); wsl1_probes.cpp checks them.
inline constexpr uint64_t kPtraceSeize = 0x4206;  // PTRACE_SEIZE
inline constexpr uint64_t kPrSetSeccomp = 22;     // PR_SET_SECCOMP

// Which calls of a syscall the rule answers.
enum class GapArg : uint8_t {
  kAlways,     // every call
  kNonZero,    // arg[arg] != 0
  kEquals,     // arg[arg] == value
  kMaskedAny,  // (arg[arg] & value) != 0
};

struct Wsl1Gap {
  std::string_view syscall;  // name as libseccomp resolves it
  GapArg cond;
  unsigned arg;                // argument index for cond != kAlways
  uint64_t value;              // for kEquals / kMaskedAny
  int err;                     // errno WSL1 answers with
  std::string_view condition;  // cond in words, for --list
  std::string_view source;     // where the behaviour is documented
};

inline constexpr std::array kWsl1Gaps = {
    Wsl1Gap{"statx", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#6994"},
    Wsl1Gap{"io_setup", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#5321 (kernel 4.4)"},
    Wsl1Gap{"io_uring_setup", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#5321 (kernel 4.4)"},
    Wsl1Gap{"io_uring_enter", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#5321 (kernel 4.4)"},
    Wsl1Gap{"io_uring_register", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#5321 (kernel 4.4)"},
    Wsl1Gap{"copy_file_range", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#645 and others"},
    Wsl1Gap{"sync_file_range", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#645 and others"},
    Wsl1Gap{"memfd_create", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#645 and others"},
    Wsl1Gap{"mincore", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#645 and others"},
    Wsl1Gap{"renameat2", GapArg::kNonZero, 4, 0, EINVAL, "flags != 0 (RENAME_NOREPLACE, ...)",
            "microsoft/WSL: renameat2 flags"},
    Wsl1Gap{"bpf", GapArg::kAlways, 0, 0, ENOSYS, "always", "WSL1 has no eBPF"},
    Wsl1Gap{"perf_event_open", GapArg::kAlways, 0, 0, EINVAL, "always", "microsoft/WSL#4595"},
    Wsl1Gap{"ptrace", GapArg::kEquals, 0, kPtraceSeize, EINVAL, "request == PTRACE_SEIZE", "microsoft/WSL#3031"},
    Wsl1Gap{"prctl", GapArg::kEquals, 0, kPrSetSeccomp, EINVAL, "option == PR_SET_SECCOMP", "microsoft/WSL#4035"},
    // WSL1 does not implement seccomp(2); unimplemented calls answer ENOSYS there.
    Wsl1Gap{"seccomp", GapArg::kAlways, 0, 0, ENOSYS, "always", "microsoft/WSL#4035 (unimplemented)"},
    Wsl1Gap{"mmap", GapArg::kMaskedAny, 3, MAP_LOCKED, EOPNOTSUPP, "flags & MAP_LOCKED", "microsoft/WSL#4857"},
    Wsl1Gap{"openat2", GapArg::kAlways, 0, 0, ENOSYS, "always", "kernel 4.4 predates openat2 (5.6)"},
};

}  // namespace fsr
