// Small helpers every verb shares: exit codes, one-line errors, formatting.
// Progress lines: tools/progress/progress.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/status.h"

namespace fsr::cli {

// Exit codes (documented in README "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;      // bad input, I/O error, damaged file
inline constexpr int kExitUsage = 2;      // bad command line
inline constexpr int kExitDrops = 3;      // record: events were lost (without --allow-drops)
inline constexpr int kExitIncomplete = 4; // inspect/report: file damaged or truncated, partial output given
inline constexpr int kExitNoPrivilege = 5;// record: not root / no CAP_BPF, no BTF

// Prints "fsreplay <verb>: <message>" on stderr and returns kExitError.
int fail(std::string_view verb, std::string_view message, int code = kExitError);

// The exit code for a failed status, by its code: no privilege or no kernel
// support -> kExitNoPrivilege, invalid input -> kExitUsage, else kExitError.
int exit_code_for(const Status& s);
// fail() with the status's message and exit_code_for(s).
int fail(std::string_view verb, const Status& s);

// Writes `text` to `path`, or to stdout when `path` is empty. Returns
// kExitOk, or says why on stderr and returns kExitError.
int write_output(std::string_view verb, const std::string& path, std::string_view text);

// True when stderr is a terminal (progress is shown only then).
bool stderr_is_tty();

std::string human_ns(uint64_t ns);      // "1.23 ms"
std::string human_bytes(uint64_t bytes); // "12.3 MiB"

// "300us", "1.5ms", "2s", "750ns" or a plain number of ns; false on anything else.
bool parse_duration_ns(std::string_view text, uint64_t& ns);

}  // namespace fsr::cli
