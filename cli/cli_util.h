// SPDX-License-Identifier: Apache-2.0
// Small helpers every verb shares: exit codes, one-line errors, formatting.
// Progress lines: cli/progress/progress.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace fsr::cli {

// Exit codes, one meaning each whatever the verb (documented in the top-level
// help, cli/fsreplay.cpp, the man page and README "Exit codes"). 6 is
// replay's kExitDiverged (replayer/session/replay.h). Where two apply: record's 3
// before 128+N before 7; replay's 6 before 4 (the damage is said on stderr).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;        // bad input, I/O error
inline constexpr int kExitUsage = 2;        // bad command line
inline constexpr int kExitDrops = 3;        // record: events were lost (without --allow-drops)
inline constexpr int kExitIncomplete = 4;   // any verb: input damaged or truncated (partial output, or none readable)
inline constexpr int kExitNoPrivilege = 5;  // record: not root / no CAP_BPF, no BTF
inline constexpr int kExitWorkloadFailed =
    7;  // record: the trace is complete, the workload exited non-zero or by a signal
// 128 + N: stopped by signal N (SIGINT, SIGTERM, SIGHUP) after cleaning up.
inline constexpr int kExitSignalBase = 128;

// The top-level help's list of exit codes.
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 ok; 1 error; 2 usage; 3 record lost events (without --allow-drops); 4 damaged or truncated "
    "input (partial output given, or nothing readable); 5 missing privilege or kernel feature; 6 replay diverged "
    "(result written, marked diverged); 7 record: the workload exited non-zero or was killed (the trace is "
    "complete; the workload's status is printed and stored in the trace: fsreplay inspect); 128+N stopped by "
    "signal N after cleaning up. Where two apply: 3 before 128+N before 7; 6 before 4.";

// Prints "fsreplay <verb>: <message>" on stderr and returns kExitError.
int fail(std::string_view verb, std::string_view message, int code = kExitError);

// The exit code for a failed status, by its code: no privilege or no kernel
// support -> kExitNoPrivilege, invalid input -> kExitUsage, a damaged input
// -> kExitIncomplete, else kExitError.
int exit_code_for(const Status& s);
// fail() with the status's message and exit_code_for(s).
int fail(std::string_view verb, const Status& s);
// fail() with the status's message, and kExitIncomplete when the input was
// damaged past use (StatusCode::kDamaged), else kExitError: for the verbs
// whose library errors are never about usage or privilege (replay, prepare,
// predict: a target a user cannot write is an error, 1, not 5).
int fail_input(std::string_view verb, const Status& s);

// Writes `text` to `path`, or to stdout when `path` is empty. Returns
// kExitOk, or says why on stderr and returns kExitError.
int write_output(std::string_view verb, const std::string& path, std::string_view text);

// True when stderr is a terminal (progress is shown only then).
bool stderr_is_tty();

std::string human_ns(uint64_t ns);        // "1.23 ms"
std::string human_bytes(uint64_t bytes);  // "12.3 MiB"

// "300us", "1.5ms", "2s", "750ns" or a plain number of ns; false on anything else.
bool parse_duration_ns(std::string_view text, uint64_t& ns);

}  // namespace fsr::cli
