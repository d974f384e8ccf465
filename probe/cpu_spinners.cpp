// SPDX-License-Identifier: Apache-2.0
#include "probe/cpu_spinners.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace fsr {

CpuSpinners::CpuSpinners() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  for (int i = 1; i < cpus; ++i)
    threads_.emplace_back([this] {
      if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19) == 0)  // Linux: a thread's own nice value
        niced_.fetch_add(1);
      started_.fetch_add(1);
      while (!stop_.load(std::memory_order_relaxed)) {
        for (int k = 0; k < 64; ++k) __builtin_ia32_pause();
      }
    });
  while (started_.load() < threads_.size()) std::this_thread::yield();
}

CpuSpinners::~CpuSpinners() {
  stop_.store(true);
  for (std::thread& t : threads_) t.join();
}

}  // namespace fsr
