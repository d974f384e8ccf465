// SPDX-License-Identifier: Apache-2.0
// fsreplay record: argument parsing and the summary line; the work is in
// recorder/ (fsr::record).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/progress/progress.h"
#include "cli/verbs.h"
#include "traces/syscalls.h"
#include "base/wait_status.h"

#ifdef FSREPLAY_HAVE_RECORDER
#include "recorder/bpf/recorder.h"
#endif

namespace fsr::cli {

namespace {

struct RecordOpts {
  std::string output = "fsreplay.trace";
  std::string root;
  uint32_t buffer_mib = 8;
  bool allow_drops = false;
  bool no_faults = false;
  bool all_faults = false;
  bool verbose = false;
  bool quiet = false;
  uint32_t pid = 0;
  std::vector<std::string> command;
};

// The recording, once the command line is read: its summary, warnings and exit code.
int run_record([[maybe_unused]] const RecordOpts& o) {
#ifndef FSREPLAY_HAVE_RECORDER
  return fail("record", "recorder not built: needs clang, bpftool, libbpf, kernel BTF", kExitNoPrivilege);
#else
  if (o.command.empty() && o.pid == 0)
    return fail("record", "give a command (fsreplay record -- CMD ARGS...) or --pid PID", kExitUsage);
  if (!o.command.empty() && o.pid != 0) return fail("record", "give either a command or --pid, not both", kExitUsage);
  RecordOptions ro;
  ro.output = o.output;
  ro.root = o.root;
  ro.command = o.command;
  ro.attach_pid = o.pid;
  auto bpf = bpf_options_from_env();
  if (!bpf) return fail("record", bpf.message(), kExitUsage);  // a bad FSREPLAY_* setting
  ro.bpf = bpf.value();
  ro.bpf.buffer_mib = o.buffer_mib;
  ro.bpf.page_faults = !o.no_faults;
  ro.bpf.all_page_faults = o.all_faults;
  ro.progress = !o.quiet && stderr_is_tty();
  ProgressLine line("record", "events", o.quiet);
  ro.on_progress = [&line](uint64_t events, uint64_t drops) {
    line.update(events, 0, {}, fmt::format("{} drops", drops));
  };
  auto r = record(ro);
  line.finish();
  if (!r) return fail("record", r.status());
  const RecordSummary& s = r.value();
  for (const std::string& w : s.warnings) fmt::print(stderr, "fsreplay record: warning: {}\n", w);
  fmt::print(stderr,
             "fsreplay record: {} events, {} drops, {} ({:.2f} B/event), {} -> {}; recorder CPU {} while it ran\n",
             s.events, s.drops, human_bytes(s.bytes), s.events ? double(s.bytes) / double(s.events) : 0.0,
             human_ns(s.duration_ns), o.output, human_ns(s.drain_cpu_ns));
  if (o.verbose) {
    for (const std::string& c : s.choices) fmt::print(stderr, "fsreplay record: chose {}\n", c);
    fmt::print(stderr, "fsreplay record: lanes rewound early {} times; drain raised {} times\n", s.kernel.early_rewinds,
               s.drain_boosts);
  }
  if (s.drops) {
    std::string by;
    for (int c = 0; c < kClassCount; ++c)
      if (s.kernel.drops[c]) by += fmt::format(" {}={}", class_name(static_cast<SyscallClass>(c)), s.kernel.drops[c]);
    fmt::print(stderr, "fsreplay record: dropped by class:{} (try a larger --buffer-mib)\n", by);
    if (!o.allow_drops) return kExitDrops;
  }
  if (s.stop_signal) {
    fmt::print(stderr, "fsreplay record: stopped by {}: the workload ended ({}); {} is complete up to then\n",
               signal_name(s.stop_signal), describe_wait_status(s.wait_status), o.output);
    return kExitSignalBase + s.stop_signal;
  }
  if (o.pid == 0 && s.wait_status != 0) {
    fmt::print(stderr,
               "fsreplay record: the workload failed ({}); {} is complete and keeps its status "
               "(exit code {}: the workload failed)\n",
               describe_wait_status(s.wait_status), o.output, kExitWorkloadFailed);
    return kExitWorkloadFailed;
  }
  return kExitOk;
#endif
}

}  // namespace

Action add_record_verb(CLI::App& app) {
  auto o = std::make_shared<RecordOpts>();

  auto* sub =
      app.add_subcommand("record", "Record a workload's file-system syscalls (eBPF: root, or CAP_BPF and CAP_PERFMON)");
  sub->add_option("-o,--output", o->output, "Trace file to write")->capture_default_str();
  sub->add_option("--root", o->root, "Directory whose initial state is captured (default: current directory)");
  sub->add_option("--buffer-mib", o->buffer_mib,
                  "Record buffer (lane) size per CPU, MiB (power of two). Larger survives longer bursts without drops; "
                  "an emptied lane rewinds to its start, so the size barely changes the cost")
      ->capture_default_str();
  sub->add_flag("--allow-drops", o->allow_drops, "Exit 0 even if events were lost");
  sub->add_flag("--no-page-faults", o->no_faults, "Do not record page faults on file mappings");
  sub->add_flag(
      "--all-page-faults", o->all_faults,
      "Record page faults on files outside --root too (by default a file outside it stops being recorded once "
      "its path is known: replays put such files on the local disk)");
  sub->add_option(
      "--pid", o->pid,
      "Follow an already running process tree (its pid as this PID namespace numbers it) until it exits or Ctrl-C");
  sub->add_flag(
      "-v,--verbose", o->verbose,
      "Print what the recorder chose for this kernel (program variants, fallbacks, PID namespace) and lane statistics");
  sub->add_flag("--quiet,-q", o->quiet, "No progress line (events and drops so far; shown only on a terminal)");
  sub->add_option("command", o->command, "-- CMD ARGS...");
  sub->footer(
      "Stopping: SIGINT, SIGTERM or SIGHUP is forwarded to the workload's processes (a Ctrl-C from the terminal "
      "reaches them itself) and the trace is finalised once they have exited; a second signal kills them "
      "(SIGKILL). With --pid a signal ends the recording and the processes run on.\n"
      "Exit codes: 0 the trace is complete and the workload exited 0; 1 error; 2 usage; 3 events were lost "
      "(without --allow-drops); 5 not root (or no CAP_BPF and CAP_PERFMON), or the kernel lacks BTF; 7 the "
      "workload exited non-zero or was killed: the trace is complete, the workload's code or signal is printed "
      "and stored in the trace (fsreplay inspect); 128+N the recorder was stopped by signal N (the trace is "
      "complete up to then; 0 with --pid). Where two apply: 3, then 128+N, then 7.");
  return [o]() -> int { return run_record(*o); };
}

}  // namespace fsr::cli
