// SPDX-License-Identifier: Apache-2.0
// fsreplay predict TRACE --profile P [--profile Q ...]: the trace's replay
// simulated on each profiled mount, as the tables `report`/`compare` print,
// labelled predicted. Argument parsing only; predict does the work.
#include <iostream>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "predict/predict.h"
#include "cli/verbs.h"

namespace fsr::cli {

Action add_predict_verb(CLI::App& app) {
  struct Opts {
    std::string trace, format = "text", output;
    std::vector<std::string> profiles, places;
    bool no_recorded = false, cold_start = false, timing = false;
    size_t top = 10;
    int depth = 2;
    uint64_t seed = 0x5eed, window = kDefaultWindow;
    unsigned draws = 3;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("predict", "Predict a trace's replay on profiled mounts (fsreplay probe), in seconds");
  sub->add_option("TRACE", o->trace, "Recorded trace")->required();
  sub->add_option("--profile,-p", o->profiles, "Profile of a mount (fsreplay probe); repeat for a column per mount")
      ->required();
  sub->add_option("--format,-f", o->format, "text, json, html, markdown or csv")
      ->check(CLI::IsMember({"text", "json", "html", "markdown", "csv"}));
  sub->add_option("--output,-o", o->output, "Write here instead of stdout");
  sub->add_option("--place", o->places,
                  "SUBDIR=PROFILE: one more column, the tree split across mounts: ops under the recorded root's "
                  "SUBDIR priced by PROFILE (a --profile's file or name), the rest by the profile of --place "
                  ".=PROFILE, else by the last --profile no --place names; repeat for more directories");
  sub->add_flag("--no-recorded", o->no_recorded,
                "No column for the trace's own durations: the first profile is the baseline");
  sub->add_flag("--cold-start", o->cold_start,
                "Caches cold at the start (default: warm, as a replay right after prepare finds them)");
  sub->add_option("--top", o->top, "Rows in the process and directory tables")->check(CLI::Range(1, 1000));
  sub->add_option("--depth", o->depth, "Directory depth below the recorded root")->check(CLI::Range(1, 64));
  sub->add_option("--seed", o->seed, "Seed of the latency draws (same seed, same prediction)");
  sub->add_option("--draws", o->draws,
                  "Simulations of each profile, each drawing its latencies with another seed (default 3; one plan "
                  "serves them all): their range is the profile's sampling noise, shown beside each column")
      ->check(CLI::Range(1, 100));
  sub->add_option("--window", o->window,
                  "Ops in the planner's window, as replay --window (memory follows it, not the trace)");
  sub->add_flag("--timing", o->timing, "Print how long each phase took (and events/s) on stderr");
  sub->footer(
      "Where a profile has a server model (probe's slots and bandwidths), ops queue for the mount's slots and "
      "large transfers share its bandwidth; each column says what the queue cost and when it, not latency, "
      "dominates. A profile without one is assumed to serve every request at once, and predict says so.\n"
      "Exit codes: 0 ok, 1 nothing could be predicted, 2 usage, 4 a profile was left out or the trace is "
      "damaged (prediction of what was readable, or none when no event was readable).");
  return [o]() -> int {
    PredictOptions po;
    po.profiles = o->profiles;
    po.recorded_column = !o->no_recorded;
    po.stream.cold_start = o->cold_start;
    po.stream.seed = o->seed;
    po.draws = o->draws;
    po.stream.window = o->window;
    po.report = {.top = o->top, .dir_depth = o->depth};
    if (!o->places.empty()) {
      PlacementRequest& req = po.placements.emplace_back();
      for (const std::string& a : o->places) {
        auto r = parse_place(a);
        if (!r) return fail("predict", r.message(), kExitUsage);
        req.rules.push_back(*r);
      }
    }
    auto pr = run_predict(o->trace, po);
    if (!pr) return fail_input("predict", pr.status());
    for (const std::string& w : pr->warnings) std::cerr << "fsreplay predict: warning: " << w << "\n";
    for (const std::string& p : pr->problems) std::cerr << "fsreplay predict: " << p << "\n";
    for (const PredictColumn& c : pr->columns)
      for (const std::string& a : c.assumptions) std::cerr << "fsreplay predict: assumed: " << a << "\n";
    if (o->timing || stderr_is_tty()) {
      const double sim_s = double(pr->simulate_ns) / 1e9;
      const double runs = double(pr->columns.size());
      const double all_s = double(pr->load_ns + pr->plan_ns + pr->simulate_ns + pr->summary_ns + pr->report_ns) / 1e9;
      fmt::print(
          stderr,
          "fsreplay predict: {} events, CPU: survey {:.2f} s, plan {:.2f} s, simulate {:.2f} s ({:.1f} M events/s "
          "over {} runs), summaries {:.2f} s, report {:.2f} s; {:.1f} M events/s in all\n",
          pr->events, double(pr->load_ns) / 1e9, double(pr->plan_ns) / 1e9, sim_s,
          sim_s > 0 ? double(pr->events) * runs / sim_s / 1e6 : 0.0, pr->columns.size(), double(pr->summary_ns) / 1e9,
          double(pr->report_ns) / 1e9, all_s > 0 ? double(pr->events) / all_s / 1e6 : 0.0);
    }
    auto text = render_prediction(*pr, *parse_output_format(o->format), po.report);
    if (!text) return fail("predict", text.message());
    if (int rc = write_output("predict", o->output, *text); rc != kExitOk) return rc;
    return pr->problems.empty() ? kExitOk : kExitIncomplete;
  };
}

}  // namespace fsr::cli
