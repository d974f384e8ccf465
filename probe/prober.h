// SPDX-License-Identifier: Apache-2.0
// `fsreplay probe DIR` as a library: measures the mount holding DIR with the
// replayer's own plan and executor (probe_cases.h says what), inside a
// private directory DIR/.fsreplay-probe-PID-XXXXXX that it removes at the
// end, on errors and when stopped. One left by a probe that was killed
// (SIGKILL, a crash: its PID no longer runs) is removed when the next probe
// starts there, and said. Rounds repeat until the time budget is spent; the
// first rounds after a cache drop (root only) measure cold first touches.
// Returns the profile; writing it is the caller's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "traces/profile.h"
#include "base/status.h"

namespace fsr {

// The shortest budget that measures every case: the stale-entry cases stat
// files 0.25 to 4 s after they were last touched (probe_cases.h
// kStaleDelaysMs), so a probe takes that long whatever its budget.
inline constexpr double kProbeMinDurationS = 5;

struct ProbeOptions {
  std::string dir;
  std::string name;         // profile name; "" = the mount kind
  double duration_s = 60;   // time budget (the probe may end sooner; below kProbeMinDurationS, later)
  bool drop_caches = true;  // cold rounds when root
  uint32_t max_rounds = 200;
  uint32_t cold_rounds = 6;
  uint32_t samples = 8;  // per case and round
  // The mount as a server (server_probe.h): the concurrency sweep and the
  // bandwidths, in their share of the budget, before the rounds. Off
  // (probe --quick): the profile's server model reads as not measured.
  bool measure_server = true;
  // Keep every other CPU busy with a spinner at nice 19 while measuring,
  // as some replays' own threads keep them: a file system served by another
  // process (FUSE, sshfs) answers faster when its server wakes on a busy CPU
  // than on a halted vCPU (bindfs on this project's VM: 4-6x; see
  // dev/bench/idle-cpu.sh). The profile records how many.
  bool busy_cpus = false;
  const std::atomic<bool>* stop = nullptr;  // set (Ctrl-C): stop, clean up, fail
  std::function<void(double elapsed_s, double budget_s, uint32_t rounds)> progress;
  // One line about the probed directory said before measuring (a stale
  // private directory removed, another probe's found running).
  std::function<void(const std::string& line)> on_notice;
};

Result<Profile> run_probe(const ProbeOptions& opt);

}  // namespace fsr
