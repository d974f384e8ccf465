// SPDX-License-Identifier: Apache-2.0
// Threads that keep the machine's other CPUs busy at nice 19 (a share of
// 15/1039 of a CPU against any normal task beside them), for as long as the
// object lives. Not SCHED_IDLE: the scheduler counts a CPU running only
// SCHED_IDLE tasks as idle, and on the project's VM a bindfs probe beside
// such spinners measured the idle state's latencies in one run of two.
// On a VM a halted vCPU takes an IPI and a VM entry to wake: a file system
// whose server is another process (FUSE, sshfs) pays that on every round trip
// when the other CPUs are idle, and not when something runs there, as some
// replays' own threads do (dev/bench/idle-cpu.sh).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace fsr {

class CpuSpinners {
 public:
  // One spinner per CPU this process may run on, less one (the caller's).
  CpuSpinners();
  ~CpuSpinners();
  CpuSpinners(const CpuSpinners&) = delete;
  CpuSpinners& operator=(const CpuSpinners&) = delete;

  uint32_t count() const { return static_cast<uint32_t>(threads_.size()); }
  // Spinners the kernel let lower themselves to nice 19 (it always should).
  uint32_t niced() const { return niced_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint32_t> niced_{0}, started_{0};
  std::vector<std::thread> threads_;
};

}  // namespace fsr
