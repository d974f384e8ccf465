// SPDX-License-Identifier: Apache-2.0
// The drain's pace: how often the recorder drains the lanes, how far behind
// "now" it leaves records that may still be committing, and how often it
// flushes the trace; shared by the recorder (recorder.cpp) and the offline
// drain bench (dev/bench/drain_bench.cpp), which models it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/clock.h"

namespace fsr {

inline constexpr uint64_t kDrainHorizonMarginNs = 2'000'000;  // records still being committed
inline constexpr uint64_t kDrainFlushEveryNs = 1'000'000'000;
inline constexpr uint64_t kDrainIdleNs = 10'000'000;      // drain period while the lanes fill slowly
inline constexpr uint64_t kDrainMinNs = 1'000'000;        // ... and while they fill fast
inline constexpr size_t kDrainWarmHeapBytes = 16u << 20;  // heap touched before the workload starts (heap_warmup.h)

}  // namespace fsr
