// SPDX-License-Identifier: Apache-2.0
// The replay's options and its summary, apart from the session that runs it
// (replay.h), so code that writes or reads results includes the types only.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "replayer/engine/engine.h"
#include "replayer/session/prepare.h"
#include "traces/syscalls.h"

namespace fsr {

// replay/prepare --place SUBDIR=OTHER (placed_dirs.h): the ops under the
// recorded root's SUBDIR go to directory OTHER, bind-mounted there.
struct PlacedDir {
  std::string subdir;       // beneath the recorded root, normalised (placement.h)
  std::string other;        // its real path
  std::string fs_type;      // OTHER's file-system type (the caller detects it; "" unknown)
  bool same_mount = false;  // OTHER is on the target's file system: the placement changes nothing
};

struct ReplayOptions {
  std::string target;
  std::string scratch;  // empty = fresh dir under $TMPDIR (removed afterwards)
  TimingMode timing = TimingMode::kThink;
  bool prepare = true;  // false: verify the tree is prepared, change nothing before the clock
  // Take a target (or a given scratch) that holds files fsreplay did not
  // make: the trace's paths there are overwritten or removed, listed through
  // on_warning first (target_guard.h). Without it such a directory is refused.
  bool force = false;
  bool verify = true;  // with prepare = false: check the tree first (benches that remount
                       // the target between prepare and replay skip it: it warms the mount's caches)
  bool mmap_touch = true;
  std::string output;    // result file path; empty = TRACE with .result instead of .trace
  bool progress = true;  // report progress through on_progress
  // Beyond the shared API:
  bool reset_after = true;                    // after the clock stops, reset the tree to the prestate
  std::vector<std::string> disable_features;  // force fallbacks (tests, WSL1 rehearsal)
  // `current`: what runs now (replay: the program started last among the ops done), may be empty.
  std::function<void(const char* phase, uint64_t done, uint64_t total, std::string_view current)> on_progress;
  std::function<void(const std::string& warning)> on_warning;  // said at once (before the clock, if known then)
  // A stall (no op finished for this long past the oldest unfinished one's
  // recorded time) is said through on_warning, naming that op; 0: never.
  double stall_warn_s = 30;
  // Test hook: ns slept inside every issued op of a class (attribution checks
  // against a known truth). Recorded in the result's options.
  std::array<uint64_t, kClassCount> inject_ns{};
  // Think mode: ns paid back from the gaps per issued call (the syscall entry
  // and exit the recorded gaps already hold); kMeasureOverhead = calibrate.
  uint64_t syscall_overhead_ns = kMeasureOverhead;
  // Think mode: take the trace's recorder cost (RecordCost) out of its gaps,
  // and calibrate and pay back the executor's own work per syscall on the
  // target (replay_cost.h). Off: as before these existed (A/B benches).
  bool correct_recorder = true;
  bool spin_gaps = false;  // think mode: the gaps burn a CPU (ThinkClock::spin_gaps)
  bool calibrate_issue = true;
  bool serial_dirs = false;  // PlanInputs::serial_dirs
  // PlanInputs::walks_as_passed, when the trace marks relative paths (false:
  // every walk from the root, with the parent-directory cache, as before).
  bool walks_as_passed = true;
  // Ops in the streaming replay's window (plan_stream.h), rounded up to a
  // power of two, at least 1,024; 0: the default, 131,072. A window that
  // holds the whole trace plans it as at once (memory then follows the trace).
  uint64_t window = 0;
  // A replay whose divergent ops exceed this share of its ops (%) measured
  // something else than the original: its result is marked diverged.
  double max_divergence_pct = 1.0;
  // The target's environment fingerprint (JSON text, stored in the result
  // header): the caller detects it (the verbs use detect); empty = unknown.
  std::string environment_json;
  // Directories of the recorded tree placed on other mounts (placed_dirs.h);
  // the caller has entered a private mount namespace (enter_private_mounts).
  std::vector<PlacedDir> place;
};

// Divergent ops of one kind: a syscall whose recorded and replayed results differ.
struct DivergenceRow {
  std::string call;      // syscall name
  std::string recorded;  // "ok" or the errno name ("ENOENT")
  std::string replayed;
  uint64_t count = 0;
};

struct ReplaySummary {
  uint64_t wall_ns = 0, ops = 0, divergences = 0, approx_deps = 0;
  uint64_t beyond_window = 0;        // ... of them because their waker lay beyond the streaming window's lookahead
  uint64_t moved_edges = 0;          // orders of overlapping calls taken from their results (deps.h)
  uint64_t moves_beyond_window = 0;  // ... that came beyond the lookahead: kept as they returned
  uint64_t lock_waits = 0;           // futex waits on a lock not held across a call: no edge (deps.h)
  uint64_t file_data_deps = 0;       // edges of a file's contents: a read after another thread's write (deps.h)
  uint64_t skipped = 0, escaped = 0, workers = 0;
  // Reads that returned fewer bytes than recorded, both without error (not
  // divergences): the file the replay read was smaller than the original's
  // (prepared from what the trace showed; /proc and /sys files are prepared
  // empty), so the replay read less than the workload did.
  uint64_t short_reads = 0, short_read_bytes = 0;
  uint64_t recorded_ns = 0;  // the original run's duration (first event to last exit)
  std::array<uint64_t, kClassCount> count{}, total_ns{};
  std::vector<std::string> fallbacks;
  std::vector<std::string> trace_problems;  // damage found in the trace (replayed what was readable)
  std::vector<std::string> warnings;        // about the replay itself (e.g. vm.max_map_count)
  // Kernel mappings the replayer held at most (its own and the replayed
  // processes', an upper bound), the most replayed address spaces holding
  // mappings at once, and the kernel's limit (address_space.h).
  uint64_t peak_mappings = 0, peak_spaces = 0, max_map_count = 0;
  std::string result_path;
  std::string scratch;
  bool diverged = false;  // divergences > max_divergence_pct of ops
  double max_divergence_pct = 0;
  std::vector<DivergenceRow> top_divergences;  // most frequent first (at most 8)
  std::string clock_json;                      // think mode: the corrections and their totals (result options "clock")
  std::vector<PlacedDir> place;                // --place: the directories placed on other mounts
};

// JSON text of a summary: wall_ns, ops, divergences, approx_deps, skipped,
// fallbacks, result, by_class {class: {count, total_ns, mean_ns}}.
std::string summary_to_json(const ReplaySummary& s);

std::string_view timing_name(TimingMode t);
Result<TimingMode> timing_from_name(std::string_view name);

}  // namespace fsr
