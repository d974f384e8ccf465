// SPDX-License-Identifier: Apache-2.0
// fsreplay advise TRACE --profile FAST --profile SLOW [--profile ...]: which
// directories of the recorded tree to move to the fast mount, ranked by
// predicted wall time, with how to move them and how to verify it.
// Argument parsing only; advise/ does the work.
#include <iostream>

#include <fmt/format.h>

#include "advise/advise.h"
#include "cli/cli_util.h"
#include "cli/verbs.h"

namespace fsr::cli {

Action add_advise_verb(CLI::App& app) {
  struct Opts {
    std::string trace, format = "text", output;
    std::vector<std::string> profiles, keep;
    unsigned max_moves = 3;
    double min_share = 1.0;
    uint64_t seed = 0x5eed, window = kDefaultWindow;
    bool cold_start = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "advise", "Advise where a trace's directories should live: placements across mounts ranked by predicted time");
  sub->add_option("TRACE", o->trace, "Recorded trace")->required();
  sub->add_option("--profile,-p", o->profiles,
                  "Profiles (fsreplay probe): the first is the fast mount directories can move to (the Linux disk); "
                  "each other is a configuration of the mount the tree lives on (9p, virtiofs, ...)")
      ->required();
  sub->add_option("--keep", o->keep,
                  "DIR=PROFILE: DIR (beneath the recorded root) stays put: on the fast profile, it is on it in "
                  "every placement; on another, it and what nests with it never move. Repeatable");
  sub->add_option("--max-moves,-n", o->max_moves,
                  "Directories moved at once (default 3): every combination when few, a beam search beyond")
      ->check(CLI::Range(1, 16));
  sub->add_option("--min-share", o->min_share,
                  "A candidate carries at least this % of the predicted slowdown (default 1)")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--format,-f", o->format, "text, json, markdown or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  sub->add_option("--output,-o", o->output, "Write here instead of stdout");
  sub->add_flag("--cold-start", o->cold_start, "Caches cold at the start, as predict --cold-start");
  sub->add_option("--seed", o->seed, "Seed of the latency draws (same seed, same advice)");
  sub->add_option("--window", o->window, "Ops in the planner's window, as replay --window");
  sub->footer(
      "Candidates are the directories at depth 1-3 under the recorded root carrying at least --min-share of the "
      "slowdown (each profile after the first against the first). Each placement is predicted as predict --place "
      "prices it. Exit codes: 0 ok, 1 nothing could be advised, 2 usage, 4 some input was left out (one line "
      "each on stderr) or the trace is damaged.");
  return [o]() -> int {
    AdviseOptions ao;
    ao.profiles = o->profiles;
    ao.max_moves = o->max_moves;
    ao.min_share = o->min_share / 100.0;
    ao.stream.seed = o->seed;
    ao.stream.window = o->window;
    ao.stream.cold_start = o->cold_start;
    for (const std::string& k : o->keep) {
      auto r = parse_place(k);
      if (!r) return fail("advise", "--keep" + r.message().substr(r.message().find(' ')), kExitUsage);
      ao.keep.push_back(*r);
    }
    if (stderr_is_tty()) ao.progress = [](const std::string& line) { std::cerr << line << "\n"; };
    auto adv = run_advise(o->trace, ao);
    if (!adv) return fail_input("advise", adv.status());
    for (const std::string& p : adv->problems) std::cerr << "fsreplay advise: " << p << "\n";
    auto text = render_advice(*adv, *parse_output_format(o->format));
    if (!text) return fail("advise", text.message());
    if (int rc = write_output("advise", o->output, *text); rc != kExitOk) return rc;
    return adv->problems.empty() ? kExitOk : kExitIncomplete;
  };
}

}  // namespace fsr::cli
