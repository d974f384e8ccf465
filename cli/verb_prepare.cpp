// SPDX-License-Identifier: Apache-2.0
// fsreplay prepare: materialise a trace's initial tree under --target once,
// for repeated 'fsreplay replay --no-prepare'. Parsing and printing only.
#include <fmt/core.h>

#include <map>
#include <memory>

#include "replayer/session/replay.h"
#include "cli/cli_util.h"
#include "cli/place_option.h"
#include "cli/stop_signals.h"
#include "cli/verbs.h"

namespace fsr::cli {

void wire_progress(ReplayOptions& o, bool quiet);

namespace {
struct PrepareArgs {
  std::string trace;
  bool quiet = false;
  std::vector<std::string> place;
  ReplayOptions opt;
};
}  // namespace

Action add_prepare_verb(CLI::App& app) {
  auto a = std::make_shared<PrepareArgs>();
  auto* sub = app.add_subcommand("prepare", "Build a trace's initial tree under a target directory");
  sub->add_option("trace", a->trace, "Trace file recorded by 'fsreplay record'")->required();
  sub->add_option("--target", a->opt.target, "Directory the recorded root is replayed in")->required();
  sub->add_option("--scratch", a->opt.scratch,
                  "Directory for paths outside the recorded root (prepared too when given; "
                  "replay prepares a fresh scratch itself)");
  sub->add_flag("--quiet,-q", a->quiet, "No progress line (shown only on a terminal anyway)");
  sub->add_flag("--force", a->opt.force,
                "Take a --target (or --scratch) that holds files fsreplay did not make: the trace's paths there "
                "are listed, then overwritten with filler or removed (without it such a directory is refused)");
  add_place_option(sub, a->place);
  sub->footer(
      "The target must be an empty directory or one fsreplay prepared (marked by .fsreplay-target); "
      "anything else is refused unless --force. Exit status: 0 ok; 1 error; 2 usage; 4 the trace is damaged "
      "or truncated (what was readable is prepared, and said on stderr; none readable: nothing); 128+N stopped by "
      "signal N: a target that held only "
      "fsreplay's files is emptied again");
  return [a] {
    if (int rc = setup_placement("prepare", a->place, a->opt)) return rc;  // (first: while single-threaded)
    wire_progress(a->opt, a->quiet);
    a->opt.on_warning = [](const std::string& w) { fmt::print(stderr, "fsreplay prepare: warning: {}\n", w); };
    install_stop_handlers("prepare");
    auto r = run_prepare(a->trace, a->opt);
    if (!r && r.code() == StatusCode::kInterrupted) return fail("prepare", r.message(), stop_exit_code());
    if (!r) return fail_input("prepare", r.status());  // 4: a trace with no readable event
    const PrepareStats& s = r.value();
    fmt::print("prepared {}: {} dirs, {} files ({}), {} symlinks, {} hard links made; {} kept; {} removed\n",
               a->opt.target, s.dirs, s.files, human_bytes(s.bytes), s.symlinks, s.links, s.kept, s.removed);
    if (!a->opt.place.empty()) fmt::print("placement: {}\n", placement_text(a->opt.place));
    if (s.unmade)
      fmt::print(stderr,
                 "fsreplay prepare: {} path(s) not made: their parent is not a directory here (first: {}); "
                 "ops on them will diverge\n",
                 s.unmade, s.first_unmade);
    if (!s.trace_problems.empty()) {  // (a recorder killed, a chunk unreadable)
      fmt::print(stderr,
                 "fsreplay prepare: {}: damaged ({} problem(s), first: {}); prepared the tree of what was "
                 "readable\n",
                 a->trace, s.trace_problems.size(), s.trace_problems.front());
      return kExitIncomplete;
    }
    return kExitOk;
  };
}

}  // namespace fsr::cli
