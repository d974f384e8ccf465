// SPDX-License-Identifier: Apache-2.0
// The engine's clock, a worker thread's setup, and which emulated calls
// sleep their recorded work (engine.h). The workers' issue loop is in
// engine_worker.cpp, the drivers that start them in engine_run.cpp.
#include "replayer/engine/engine.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <vector>

#include "base/clock.h"

namespace fsr {

uint64_t mono_ns() { return now_ns(); }

uint64_t measure_syscall_overhead_ns() {
  constexpr int kRuns = 2001;
  std::vector<uint64_t> d(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    uint64_t t0 = mono_ns();
    syscall(SYS_getppid);
    d[i] = mono_ns() - t0;
  }
  std::nth_element(d.begin(), d.begin() + kRuns / 2, d.end());
  return d[kRuns / 2];
}

void prepare_worker_thread() {
  // The default 50 us timer slack lets the kernel fire a sleeper's timer that
  // much late (to batch wake-ups): every think-time sleep would overshoot by
  // it (measured here: 100 us sleeps woke 93 us late at the median with the
  // default, 52 us with 1 ns), beyond what the spin tail absorbs.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

bool sleeps_recorded_work(uint16_t nr) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_dup: case SYS_dup2: case SYS_dup3: case SYS_fcntl: case SYS_close: case SYS_close_range:
    case SYS_pipe: case SYS_pipe2: case SYS_socketpair: case SYS_eventfd: case SYS_eventfd2:
    case SYS_epoll_create1: case SYS_epoll_ctl: case SYS_getcwd: case SYS_umask: case SYS_fchdir:
    case SYS_lseek:
      return true;
    default:
      return false;
  }
  // clang-format on
}

}  // namespace fsr
