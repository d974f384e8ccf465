// SPDX-License-Identifier: Apache-2.0
// Plain C++ views of everything a trace or result file holds besides events:
// the header, the prestate and the footer. Writers take these, readers return
// them; Cap'n Proto stays inside traces/ (see schema.capnp for the wire form).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "traces/syscalls.h"

namespace fsr {

// Version 2: front-coded string blocks and quantised timing columns
// (schema.capnp). A version-1 reader would find no strings in a version-2
// file and read its timings as zeros (it skips unknown columns), so the
// version says it cannot read it. Version 3: thread-major columns, inode
// facts coded against the thread's previous ones (schema.capnp "Chunk") and
// sorted string blocks ("StringBlock"); a version-2 reader would ignore the
// fields that say so and decode garbage. This reader reads all three.
inline constexpr uint16_t kFormatVersion = 3;
inline constexpr uint16_t kOldestReadableVersion = 1;

// kProfile: a mount's measured latencies (traces/profile.h), written by `probe`.
enum class PayloadKind : uint16_t { kTrace = 1, kResult = 2, kProfile = 3 };

struct MountEntry {  // one line of /proc/self/mountinfo, parsed
  uint32_t mount_id = 0;
  uint32_t parent_id = 0;
  uint64_t dev = 0;  // makedev(major, minor)
  std::string root;  // root of the mount within its file system
  std::string mount_point;
  std::string mount_options;
  std::string fs_type;
  std::string source;  // unescaped (\134 -> '\')
  std::string super_options;
};

struct FdEntry {
  int32_t fd = -1;
  std::string path;    // /proc/PID/fd target (may be "pipe:[N]", "socket:[N]")
  uint32_t flags = 0;  // O_* flags from /proc/PID/fdinfo
  uint64_t pos = 0;
};

struct ProcessState {
  uint32_t pid = 0;
  std::string cwd;
  std::vector<FdEntry> fds;
  uint32_t umask = 022;
};

enum class PrestateKind : uint8_t { kDir = 1, kFile = 2, kSymlink = 3, kOther = 4 };

struct PrestateEntry {
  std::string path;  // absolute
  PrestateKind kind = PrestateKind::kFile;
  uint32_t mode = 0;  // st_mode
  uint64_t size = 0;
  std::string target;  // symlink target
  uint64_t ino = 0;    // to recognise hard links (same dev/ino)
  uint64_t dev = 0;
  uint32_t nlink = 1;
};

// What recording added to the recorded timings (schema.capnp RecordCost,
// measured by recorder/bpf/record_cost.h). `present` is false for traces
// recorded before it existed: they replay as they always did.
struct RecordCost {
  bool present = false;
  std::array<uint32_t, kClassCount> gap_ns{};  // added to the gap before a call of the class
  std::array<uint32_t, kClassCount> dur_ns{};  // added inside a call's recorded duration
  uint32_t unrecorded_ns = 0;                  // per unrecorded syscall of a traced task
  // What a tracked task's user page fault costs more under the recorder, by
  // kind (RecordCost::kFault*); 0: not measured.
  static constexpr int kFaultAnon = 0, kFaultRecorded = 1, kFaultSkipped = 2, kFaultKinds = 3;
  std::array<uint32_t, kFaultKinds> fault_ns{};
  uint32_t samples = 0;
  std::string method;
};

struct TraceHeader {
  uint16_t format_version = kFormatVersion;
  PayloadKind kind = PayloadKind::kTrace;
  std::string recorder_version;
  std::string kernel_release;
  std::string hostname;
  uint32_t cpu_count = 0;
  std::string clock_source = "CLOCK_MONOTONIC";
  uint64_t wall_start_ns = 0;  // CLOCK_REALTIME at trace start
  uint64_t mono_start_ns = 0;  // CLOCK_MONOTONIC at trace start (event ts are relative to it)
  std::vector<std::string> command;
  std::string root;  // recorded root (absolute)
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<MountEntry> mounts;
  ProcessState initial;  // first process
  // Result payloads only: what was replayed, where, how.
  std::string source_trace;            // path of the replayed trace
  uint64_t source_trace_id = 0;        // its content id (trace_id.h); 0: unknown (older results)
  std::string target;                  // --target
  std::string scratch;                 // --scratch
  std::string environment_json;        // environment fingerprint (detect), JSON text
  std::string options_json;            // replay options, JSON text
  std::vector<std::string> fallbacks;  // feature fallbacks used
  // Traces: what the recorder chose for this kernel ("name=value": task
  // state store, page-fault source, PID namespace, features forced off).
  std::vector<std::string> recorder_choices;
  RecordCost record_cost;  // traces (and results, copied): what recording added

  bool has_choice(const std::string& choice) const {
    for (const std::string& c : recorder_choices)
      if (c == choice) return true;
    return false;
  }
};

// Written once at the end; absent when the writer died (the reader says so).
struct TraceFooter {
  uint64_t end_ns = 0;                        // ns since start
  int32_t exit_status = 0;                    // workload wait status (trace) / replay status
  std::array<uint64_t, kClassCount> seen{};   // events seen in kernel, per class
  std::array<uint64_t, kClassCount> drops{};  // events lost, per class
  uint64_t io_uring_submissions = 0;
  uint64_t string_drops = 0;  // paths that could not be read
  std::string notes;          // free text (warnings worth keeping)
  // Result payloads: wall time of the replay and counters.
  uint64_t wall_ns = 0;
  uint64_t divergences = 0;
  uint64_t approx_deps = 0;
  // Traces: CPU time the recorder's threads ran in place of a runnable
  // tracked task (when stolen_measured), and every thread's recorded gaps
  // summed, which that time lies in (the replay clock takes the share out).
  uint64_t recorder_stolen_ns = 0;
  bool stolen_measured = false;
  uint64_t gaps_ns = 0;
  // Traces: the tracked tasks' user page faults (of tasks that exited), the
  // fault records among them, the file faults left unrecorded (fault_skip),
  // and what the fault programs added to the gaps they lie in, estimated
  // from those counts and the header's RecordCost fault_ns (0: not known).
  uint64_t user_faults = 0;
  uint64_t fault_records = 0;
  uint64_t fault_skips = 0;
  uint64_t fault_cost_ns = 0;
  // Traces: calls whose file's last release ran after their exit (task
  // work) and blocked there, with that time added to their durations
  // (recorder/core/release_folder.h); release records lost (those calls keep
  // the release in the gap after them).
  uint64_t deferred_releases = 0;
  uint64_t deferred_release_ns = 0;
  uint64_t release_drops = 0;
};

}  // namespace fsr
