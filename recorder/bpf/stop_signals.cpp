// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/stop_signals.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include "recorder/core/initial_state.h"

namespace fsr {
namespace {

// SIGINT, SIGTERM and SIGHUP: how many came, the first one, and whether it
// came from the terminal (a Ctrl-C the workload, in the same foreground
// process group, got as well) rather than from kill(2) or timeout(1).
std::atomic<int> g_signals{0};
std::atomic<int> g_first_signal{0};
std::atomic<bool> g_first_from_tty{false};
void on_signal(int sig, siginfo_t* info, void*) {
  if (g_signals.fetch_add(1) == 0) {
    g_first_from_tty.store(info && info->si_code == SI_KERNEL);
    g_first_signal.store(sig);
  }
}

// Sends `sig` to `pid` and every process below it (listed first: once `pid`
// is gone, its children are re-parented and no longer found below it).
void signal_tree(pid_t pid, int sig) {
  const std::vector<uint32_t> below = descendants(static_cast<uint32_t>(pid));
  kill(pid, sig);
  for (uint32_t p : below) kill(static_cast<pid_t>(p), sig);
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  g_signals = 0;
  g_first_signal = 0;
  g_first_from_tty = false;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGHUP, &sa, &old_hup_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

int StopSignals::count() const { return g_signals.load(); }

void StopSignals::forward_to(pid_t workload, int& stop_signal) {
  const int sigs = g_signals.load();
  if (sigs <= forwarded_) return;
  if (forwarded_ == 0) {
    stop_signal = g_first_signal.load();
    if (!g_first_from_tty.load()) signal_tree(workload, stop_signal);
  }
  if (sigs > 1) signal_tree(workload, SIGKILL);
  forwarded_ = sigs;
}

}  // namespace fsr
