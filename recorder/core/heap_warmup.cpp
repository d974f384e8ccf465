// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/heap_warmup.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace fsr {

size_t warm_up(size_t bytes) {
  // Large blocks from the heap, not from fresh mmaps that fault again and
  // are unmapped on free (32 MiB is glibc's largest threshold).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Never give the top of the heap back to the kernel: what is warmed stays.
  mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  constexpr size_t kBlock = 1 << 20;
  std::vector<void*> blocks;
  blocks.reserve(bytes / kBlock + 1);
  size_t done = 0;
  while (done < bytes) {
    void* p = malloc(kBlock);
    if (!p) break;
    // Not 0: malloc + memset 0 may become calloc, which leaves fresh heap
    // pages untouched (known zero), and then nothing is warmed without the
    // mlockall below.
    std::memset(p, 1, kBlock);
    blocks.push_back(p);
    done += kBlock;
  }
  // Freed in reverse: each block joins the top chunk as it goes.
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) free(*it);
  // Every page mapped now (the code of the binary and its libraries, the
  // heap just warmed): locking faults them all in, unlocking leaves them
  // mapped. Without CAP_IPC_LOCK or room under RLIMIT_MEMLOCK this fails and
  // the pages fault in as they are first used, as before.
  if (mlockall(MCL_CURRENT) == 0) munlockall();
  return done;
}

}  // namespace fsr
