// SPDX-License-Identifier: Apache-2.0
// fsreplay compare RESULT... | TRACE --target A --target B ...: one table, a
// column per mount, ratios against the first. The shortcut replays TRACE on
// each target in turn (through the replayer library) and compares the results.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/progress/progress.h"
#include "report/render.h"
#include "report/result_summary.h"
#include "report/same_trace.h"
#include "cli/stop_signals.h"
#include "cli/verbs.h"

#include "replayer/session/replay.h"
#include "detect/detect.h"

namespace fsr::cli {

void wire_progress(ReplayOptions& o, bool quiet);

namespace {

struct CompareOpts {
  std::vector<std::string> inputs, targets;
  std::string scratch, results_dir = ".", format = "text", output;
  size_t top = 10, runs = 1;
  int depth = 2;
  bool quiet = false, force = false;
  bool allow_different_traces = false;
};

void add_compare_options(CLI::App* sub, CompareOpts* o) {
  sub->add_option("inputs", o->inputs, "Result files (first = reference), or one trace with --target")->required();
  sub->add_option("--target,-t", o->targets, "Replay the trace on this directory (repeat; first = reference)");
  sub->add_option("--scratch", o->scratch, "Scratch directory for the replays (--target only)");
  sub->add_option("--results-dir", o->results_dir, "Where --target replays write their results");
  sub->add_option("--format,-f", o->format, "text, json, html, markdown or csv")
      ->check(CLI::IsMember({"text", "json", "html", "markdown", "csv"}));
  sub->add_option("--output,-o", o->output, "Write here instead of stdout");
  sub->add_option("--top", o->top, "Rows in the HTML process and directory tables")->check(CLI::Range(1, 1000));
  sub->add_option("--depth", o->depth, "Directory depth below the recorded root")->check(CLI::Range(1, 64));
  sub->add_option("--runs", o->runs,
                  "Runs per mount: with --target, each target replayed N times, the targets interleaved run by run "
                  "(drift hits all alike); with result files, every N consecutive files are one mount's runs "
                  "(replay --runs N writes them so). Shows medians with 95% intervals, and marks ratios whose "
                  "interval excludes 1")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--quiet,-q", o->quiet, "No progress line (shown only on a terminal anyway)");
  sub->add_flag("--force", o->force,
                "--target only: take targets holding files fsreplay did not make (replay --force)");
  sub->add_flag("--allow-different-traces", o->allow_different_traces,
                "Compare results of different traces (refused by default: their ratios compare two workloads); "
                "their columns are labelled as a different trace");
}

// The options of target i's run n. A warning about the trace (its racy git
// reads, its xattr probes) is the same for every replay of it: said once.
ReplayOptions target_replay_options(const CompareOpts& o, size_t i, size_t n, const std::string& stem,
                                    const std::shared_ptr<std::set<std::string>>& said) {
  ReplayOptions ro;
  ro.target = o.targets[i];
  ro.scratch = o.scratch;
  ro.force = o.force;
  ro.on_warning = [said](const std::string& w) {
    if (said->insert(w).second) std::cerr << "fsreplay compare: warning: " << w << "\n";
  };
  ro.output =
      (std::filesystem::path(o.results_dir) /
       (o.runs == 1 ? fmt::format("{}.{}.result", stem, i + 1) : fmt::format("{}.{}.run{}.result", stem, i + 1, n + 1)))
          .string();
  ro.environment_json = detect_environment_json(ro.target);
  wire_progress(ro, o.quiet);
  return ro;
}

// --target: the trace replayed on every target in turn, run by run; `files`
// gets the results in mount order, runs within. kExitOk, or the exit code.
int replay_on_targets(const CompareOpts& o, std::vector<std::string>& files, bool& damaged) {
  if (o.inputs.size() != 1)
    return fail("compare", "--target replays exactly one trace; give one TRACE, or result files without --target",
                kExitUsage);
  install_stop_handlers("compare");
  const std::string stem = std::filesystem::path(o.inputs[0]).stem().string();
  files.assign(o.targets.size() * o.runs, "");
  auto said = std::make_shared<std::set<std::string>>();
  for (size_t n = 0; n < o.runs; ++n) {
    for (size_t i = 0; i < o.targets.size(); ++i) {
      const ReplayOptions ro = target_replay_options(o, i, n, stem, said);
      std::cerr << "fsreplay compare: replaying " << o.inputs[0] << " on " << ro.target;
      if (o.runs > 1) std::cerr << " (run " << n + 1 << " of " << o.runs << ")";
      std::cerr << "\n";
      auto summary = run_replay(o.inputs[0], ro);
      if (!summary && summary.code() == StatusCode::kInterrupted)
        return fail("compare", summary.message() + " (the results of the targets before it are kept)",
                    stop_exit_code());
      if (!summary) return fail_input("compare", summary.status());  // 4: no readable event
      if (!summary->trace_problems.empty()) {                        // replayed what was readable: the table is of that
        damaged = true;
        if (i == 0 && n == 0)
          std::cerr << "fsreplay compare: " << o.inputs[0] << ": damaged (" << summary->trace_problems.size()
                    << " problem(s), first: " << summary->trace_problems.front()
                    << "); each target replays what was readable\n";
      }
      files[i * o.runs + n] = summary->result_path;
    }
  }
  return kExitOk;
}

// The results' traces, from their headers, before any long read: one trace,
// or different ones allowed. kExitOk, or the exit code.
int check_results_trace(const CompareOpts& o, const std::vector<std::string>& files, std::vector<ResultMeta>& metas) {
  for (const std::string& f : files) {
    auto m = read_result_meta(f);
    if (!m) return fail("compare", m.message());
    metas.push_back(std::move(m).value());
  }
  std::vector<ResultMeta*> ptrs;
  for (ResultMeta& m : metas) ptrs.push_back(&m);
  std::vector<std::string> warnings;
  if (Status st = check_same_trace(ptrs, o.allow_different_traces, warnings); !st) return fail("compare", st.message());
  for (const std::string& w : warnings) std::cerr << "fsreplay compare: warning: " << w << "\n";
  return kExitOk;
}

// The table of the result files, a column per mount (every o.runs files).
int compare_results(const CompareOpts& o, const std::vector<std::string>& files, bool damaged) {
  std::vector<ResultMeta> metas;
  if (int rc = check_results_trace(o, files, metas); rc != kExitOk) return rc;
  // Each result read chunk by chunk: memory bounded whatever their length.
  std::vector<ResultSummary> results;
  bool complete = true;
  for (const std::string& f : files) {
    ProgressLine line("compare " + f, "ops", o.quiet);
    auto r = summarize_result(f, {.dir_depth = o.depth}, [&](uint64_t d, uint64_t t) { line.update(d, t); });
    line.finish();
    if (!r) return fail("compare", r.message());
    complete = complete && r->complete;
    for (const std::string& p : r->problems) std::cerr << "fsreplay compare: warning: " << p << "\n";
    results.push_back(std::move(r).value());
    results.back().different_trace = metas[results.size() - 1].different_trace;
  }
  std::vector<std::vector<const ResultSummary*>> mounts(results.size() / o.runs);
  for (size_t k = 0; k < results.size(); ++k) mounts[k / o.runs].push_back(&results[k]);
  auto text = render_compare(mounts, *parse_output_format(o.format), {.top = o.top, .dir_depth = o.depth});
  if (!text) return fail("compare", text.message());
  if (int rc = write_output("compare", o.output, *text); rc != kExitOk) return rc;
  return complete && !damaged ? kExitOk : kExitIncomplete;
}

}  // namespace

Action add_compare_verb(CLI::App& app) {
  auto o = std::make_shared<CompareOpts>();
  auto* sub = app.add_subcommand("compare", "Compare replays of one trace across mounts");
  add_compare_options(sub, o.get());
  return [o]() -> int {
    std::vector<std::string> files = o->inputs;
    bool damaged = false;  // (--target: the trace)
    if (!o->targets.empty()) {
      if (int rc = replay_on_targets(*o, files, damaged); rc != kExitOk) return rc;
    } else if (files.size() % o->runs != 0) {
      return fail("compare",
                  fmt::format("--runs {}: {} result files are not {} runs of each mount; give every mount's runs, "
                              "one mount after another",
                              o->runs, files.size(), o->runs),
                  kExitUsage);
    }
    return compare_results(*o, files, damaged);
  };
}

}  // namespace fsr::cli
