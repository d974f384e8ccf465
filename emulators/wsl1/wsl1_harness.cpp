// SPDX-License-Identifier: Apache-2.0
// wsl1-harness [--list] -- CMD ARGS...: run CMD with the calls WSL1 lacks
// answered with WSL1's errors (wsl1_gaps.h). Thin main over fsreplay_wsl1.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/core.h>
#include <string_view>

#include "emulators/wsl1/wsl1_filter.h"

namespace {
constexpr const char* kUsage =
    "usage: wsl1-harness [--list] [--] CMD [ARGS...]\n"
    "Runs CMD under a seccomp filter answering the syscalls WSL1 lacks with WSL1's errors.\n"
    "  --list   print the table of calls, conditions and errors, then exit\n";
}

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--list") {
      fmt::print("{}", fsr::wsl1_gaps_table());
      return 0;
    }
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (a == "--") {
      ++i;
      break;
    }
    if (a.starts_with("-")) {
      fmt::print(stderr, "wsl1-harness: unknown option {}\n{}", a, kUsage);
      return 2;
    }
    break;
  }
  if (i >= argc) {
    fmt::print(stderr, "wsl1-harness: no command given\n{}", kUsage);
    return 2;
  }
  fsr::Status st = fsr::install_wsl1_filter();
  if (!st) {
    fmt::print(stderr, "wsl1-harness: {}\n", st.message());
    return 1;
  }
  execvp(argv[i], argv + i);
  int e = errno;
  fmt::print(stderr, "wsl1-harness: cannot run {}: {}; check the command and PATH\n", argv[i], std::strerror(e));
  return e == ENOENT ? 127 : 126;
}
