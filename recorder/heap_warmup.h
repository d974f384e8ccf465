// Warms the recorder's memory before the workload starts. On a VM a page
// fault costs microseconds, and a drain that starts cold pays one for every
// page of code it runs and of heap it touches first: the offline drain of a
// `git status` ×10 trace ran its first round at 690-730 ns/event with 1,312
// faults (~1,150 of them code), its later ones at ~240. Warmed, the first
// round took 507-522 ns/event with no fault. So, at setup, where the workload
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
