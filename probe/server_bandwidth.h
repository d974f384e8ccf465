// SPDX-License-Identifier: Apache-2.0
// probe's bandwidth run: one large file written and read back with 1 MiB
// calls, O_DIRECT (as `dd bs=1M oflag=direct` and fio's direct jobs) and
// buffered (the write's time includes its fdatasync; its pages are dropped
// with fadvise(DONTNEED) before the read, which needs no root). Each run
// lasts its quarter of the budget (at least min_bytes, at most max_bytes):
// the write stops there or at max_bytes, the read goes over the file again
// (pages dropped again when buffered) until its time is up. Only the calls
// are timed, not the open or the close; a buffered write's fdatasync is.
// Removes its files.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "traces/profile.h"
#include "base/status.h"

namespace fsr {

struct BandwidthOptions {
  int dir_fd = -1;
  std::string where;
  double budget_s = 8;                // for the four runs together
  uint64_t max_bytes = 128ull << 20;  // the file's size at most
  uint64_t min_bytes = 8ull << 20;    // written even if that takes longer than the budget
  const std::atomic<bool>* stop = nullptr;
};

// Fills out's four bandwidths (0 where the mount refused, with a note).
Status run_bandwidth(const BandwidthOptions& o, ServerModel& out, std::vector<std::string>& notes);

}  // namespace fsr
