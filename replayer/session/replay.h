// SPDX-License-Identifier: Apache-2.0
// fsreplay prepare / replay as a library: loads a trace, builds the plan,
// materialises or verifies the initial tree, runs the engine, writes the result
// file (the foundation's container, PayloadKind::kResult) and returns a summary.
// The `compare` verb calls run_replay once per target.
//
// Result semantics per op (OpRecord): start = issue time (ns since replay
// start); latency = syscall duration; gap = think time slept before issue
// (after the previous op of the same replay thread completed; for a thread's
// first op, after its creator); dep_wait = ns blocked on cross-thread
// dependencies; waited_on = event index + 1 of the dependency that completed
// last when the op actually waited (0 otherwise); lateness = issue time minus
// intended issue time (think/afap: the later of gap end and last dependency
// completion; exact: the recorded start offset). Ops that were not issued
// (emulated synchronisation points, unsupported calls) carry kOfSkipped and
// latency 0, except kEvProcExec records, which name processes for reports.
#pragma once

#include <string>

#include "base/status.h"
#include "replayer/session/prepare.h"
#include "replayer/session/replay_types.h"

namespace fsr {

// Exit status of `fsreplay replay` when the replay diverged (README "Exit codes").
inline constexpr int kExitDiverged = 6;

Result<ReplaySummary> run_replay(const std::string& trace_path, const ReplayOptions& options);

// `fsreplay prepare`: materialise the initial tree only.
Result<PrepareStats> run_prepare(const std::string& trace_path, const ReplayOptions& options);

// Where run_replay writes the result: o.output, else the trace's path with
// .result for .trace.
std::string result_path_for(const std::string& trace_path, const ReplayOptions& o);

}  // namespace fsr
