// SPDX-License-Identifier: Apache-2.0
// StopSignals: the SIGINT, SIGTERM and SIGHUP the recorder gets while it
// drains, passed on to the workload it started. Its handler is installed for
// the object's lifetime, the earlier handlers restored after; the handler's
// state is the process's, so only one exists at a time.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace fsr {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Signals caught so far.
  int count() const;

  // The first signal is forwarded to `workload`'s processes (unless it was a
  // Ctrl-C from the terminal, which reached them already) and put in
  // `stop_signal`; a second one kills them. Signals already passed on are
  // not passed again.
  void forward_to(pid_t workload, int& stop_signal);

 private:
  struct sigaction old_int_ {
  }, old_term_{}, old_hup_{};
  int forwarded_ = 0;
};

}  // namespace fsr
