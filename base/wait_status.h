// SPDX-License-Identifier: Apache-2.0
// What a workload's wait status (TraceFooter::exit_status, as waitpid(2)
// returned it) means to a person: its exit code, or the signal that ended it.
// `inspect` shows it; `record` says it. Never shows the raw status: `exit 3`
// is a status of 768.
#pragma once

#include <optional>
#include <string>

namespace fsr {

// "SIGTERM", or "signal 77" for a number with no name.
std::string signal_name(int sig);

struct WaitOutcome {
  std::optional<int> exit_code;  // exited normally: its code
  std::optional<int> signal;     // killed by this signal
};
WaitOutcome decode_wait_status(int wait_status);

// "exit 3", "killed by SIGINT", or "wait status N" for anything else.
std::string describe_wait_status(int wait_status);

}  // namespace fsr
