// SPDX-License-Identifier: Apache-2.0
#include "base/wait_status.h"

#include <string.h>
#include <sys/wait.h>

#include <fmt/format.h>

namespace fsr {

std::string signal_name(int sig) {
  const char* abbrev = sig > 0 ? sigabbrev_np(sig) : nullptr;
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

WaitOutcome decode_wait_status(int st) {
  WaitOutcome o;
  if (WIFEXITED(st))
    o.exit_code = WEXITSTATUS(st);
  else if (WIFSIGNALED(st))
    o.signal = WTERMSIG(st);
  return o;
}

std::string describe_wait_status(int st) {
  const WaitOutcome o = decode_wait_status(st);
  if (o.exit_code) return fmt::format("exit {}", *o.exit_code);
  if (o.signal) return fmt::format("killed by {}{}", signal_name(*o.signal), WCOREDUMP(st) ? " (core dumped)" : "");
  return fmt::format("wait status {}", st);
}

}  // namespace fsr
