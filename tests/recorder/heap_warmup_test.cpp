// SPDX-License-Identifier: Apache-2.0
// warm_up (recorder/core/heap_warmup.h): after it, the heap it warmed is served
// to later allocations without a page fault, also for blocks above glibc's
// default mmap threshold, and freed memory stays warm.
#include "recorder/core/heap_warmup.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fsr {
namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

// Allocates `total` bytes in blocks of `block`, writes every byte, frees
// them; returns the minor faults that took.
long faults_to_touch(size_t total, size_t block) {
  std::vector<void*> blocks;
  blocks.reserve(total / block + 1);
  const long before = minor_faults();
  for (size_t done = 0; done < total; done += block) {
    void* p = malloc(block);
    if (!p) break;
    std::memset(p, 1, block);
    blocks.push_back(p);
  }
  const long after = minor_faults();
  for (void* p : blocks) free(p);
  return after - before;
}

TEST(HeapWarmup, WarmedHeapServesLaterAllocationsWithoutFaults) {
  const size_t warmed = warm_up(24u << 20);
  ASSERT_EQ(warmed, 24u << 20);
  // Small blocks, then blocks over the default 128 KiB mmap threshold (which
  // would otherwise be fresh mappings, faulted page by page and unmapped on
  // free), then the same again: what was freed stays warm. 8 MiB each time
  // is 2,048 pages; a handful of faults is the bookkeeping's own.
  EXPECT_LT(faults_to_touch(8u << 20, 4096), 64);
  EXPECT_LT(faults_to_touch(8u << 20, 512u << 10), 64);
  EXPECT_LT(faults_to_touch(8u << 20, 512u << 10), 64);
}

}  // namespace
}  // namespace fsr
