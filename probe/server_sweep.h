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

struct SweepOptions {
  int dir_fd = -1;        // an empty directory of the mount, the sweep's own
  std::string where;      // its path, for messages
  double point_s = 0.25;  // each point's window
  const std::atomic<bool>* stop = nullptr;
};

// Points in `out.sweep`; a case the mount refuses (O_DIRECT's EINVAL, ...)
// is left out with one line in `notes`. Fails only on setup errors and stop.
Status run_sweep(const SweepOptions& o, ServerModel& out, std::vector<std::string>& notes);

// How many sweep cases (kinds) a sweep runs: for the time budget.
size_t sweep_case_count();

}  // namespace fsr
