// SPDX-License-Identifier: Apache-2.0
// Warms the recorder's memory before the workload starts. On a VM a page
// fault costs microseconds, and a drain that starts cold pays one for every
// page of code it runs and of heap it touches first, mostly code: its first
// round over a trace is then much slower than the later ones
// (dev/bench/drain_bench.cpp --rounds 1 shows it). So, at setup, where the workload
// does not wait for it: the heap keeps what it is given (no trimming, no mmap
// for large blocks) and `heap_bytes` of it are touched, and every page mapped
// then (the code of the binary and its libraries) is faulted in.
#pragma once

#include <cstddef>

namespace fsr {

// Sets malloc to keep freed memory and to serve blocks of up to 32 MiB from
// the heap, allocates, touches and frees `heap_bytes` in the calling
// thread's arena, then maps every page the process maps (mlockall, then
// munlockall: the pages stay mapped). Returns the heap bytes touched.
size_t warm_up(size_t heap_bytes);

}  // namespace fsr
