// SPDX-License-Identifier: Apache-2.0
// The clock every room reads: a POSIX clock in ns since its epoch, as one
// uint64_t. CLOCK_MONOTONIC is the trace's clock (bpf_ktime_get_ns reads the
// same one), so recorder, replayer and tools agree on what "now" is.
#pragma once

#include <time.h>

#include <cstdint>

namespace fsr {

inline uint64_t now_ns(clockid_t c = CLOCK_MONOTONIC) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace fsr
