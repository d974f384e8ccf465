// SPDX-License-Identifier: Apache-2.0
// Recorder: `fsreplay record` as a library. Loads the BPF side, starts (or
// attaches to) the workload, captures the initial state, drains the lanes
// into a TraceWriter in timestamp order and writes the footer. Flushes the
// writer at least once a second, so a killed recorder leaves a readable
// trace. Never allocates per event in the drain loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "recorder/bpf/bpf_session.h"
#include "recorder/bpf/drain_pace.h"
#include "base/status.h"

namespace fsr {

struct RecordOptions {
  std::string output = "fsreplay.trace";
  std::string root;                  // default: current directory
  std::vector<std::string> command;  // workload (or use attach_pid)
  uint32_t attach_pid = 0;           // --pid: follow a running tree
  BpfOptions bpf;                    // lane size, page faults, forced fallbacks (bpf_options.h)
  bool progress = false;             // progress line on stderr
  // Called about once a second while the workload runs: events written, events lost so far.
  std::function<void(uint64_t events, uint64_t drops)> on_progress;
  bool run_as_invoker = true;  // under sudo, run the workload as $SUDO_USER
};

struct RecordSummary {
  uint64_t events = 0;
  uint64_t drops = 0;  // kernel-side drops, all classes
  uint64_t bytes = 0;  // trace file size
  uint64_t duration_ns = 0;
  uint64_t drain_cpu_ns = 0;  // the recorder's CPU time while the workload ran (drain, decode, write)
  uint64_t drain_boosts = 0;  // times the idle-priority drain had to be raised (DrainGovernor)
  int wait_status = 0;        // workload wait status (0 with --pid)
  int exit_code = 0;          // the workload's status as a shell gives it: its code, or 128 + signal
  // The first SIGINT, SIGTERM or SIGHUP the recorder got while it ran the
  // workload (0: none). It was forwarded to the workload's processes (unless
  // it was a Ctrl-C from the terminal, which reached them itself), a second
  // one killed them, and the trace was finalised once the workload exited.
  int stop_signal = 0;
  uint64_t io_uring = 0;
  uint64_t unresolved_paths = 0;
  KernelCounters kernel;
  std::vector<std::string> warnings;  // one line each
  std::vector<std::string> choices;   // the program variants chosen (ProgramPlan::describe)
};

Result<RecordSummary> record(const RecordOptions& options);

}  // namespace fsr
