// SPDX-License-Identifier: Apache-2.0
// probe's concurrency sweep: the mount as a server (server_fit.h fits it,
// server_bandwidth.h measures its bandwidth).
//
// The sweep runs each case (stat, open+close, a 4 KiB file read whole, create,
// unlink, 4 KiB random pread, 1 MiB sequential pread and pwrite, the data
// ones with and without O_DIRECT) from 1, 2, 4 and 8 threads at once for a
// fixed window each, every thread on its own files in its own directory (so
// that they do not serialize on one inode), and keeps one ConcurrencyPoint
// per case and concurrency. Raw syscalls, not the replayer's executor:
// threads of their own, and the executor's cost is the same at every
// concurrency.
// Never removes anything outside the directory it is given.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "traces/profile.h"
#include "base/status.h"

namespace fsr {

inline constexpr uint32_t kSweepStreams[] = {1, 2, 4, 8};
inline constexpr double kMinPointS = 0.05;  // a point's shortest window

struct SweepOptions {
  int dir_fd = -1;        // an empty directory of the mount, the sweep's own
  std::string where;      // its path, for messages
  double point_s = 0.25;  // each point's window
  // CLOCK_MONOTONIC ns (base/clock.h now_ns) the sweep should end by, 0 =
  // none: then each point's window is the time left over the points left,
  // within [kMinPointS, 1 s], so the setup (the streams' files) and points
  // that overrun their window (slow calls) come out of the sweep's share
  // instead of adding to the probe's time.
  uint64_t deadline_ns = 0;
  const std::atomic<bool>* stop = nullptr;
};

// Points in `out.sweep`; a case the mount refuses (O_DIRECT's EINVAL, ...)
// is left out with one line in `notes`. Fails only on setup errors and stop.
Status run_sweep(const SweepOptions& o, ServerModel& out, std::vector<std::string>& notes);

// How many sweep cases (kinds) a sweep runs: for the time budget.
size_t sweep_case_count();

// A point's window under a deadline: the time left over the points left,
// clamped to [kMinPointS, 1 s].
double sweep_point_window_s(uint64_t now_ns, uint64_t deadline_ns, size_t points_left);

}  // namespace fsr
