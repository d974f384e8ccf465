// SPDX-License-Identifier: Apache-2.0
// fsreplay report RESULT [--baseline RESULT]: per-class attribution of one
// replay, optionally against a baseline replay of the same trace.
#include <fstream>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/progress/progress.h"
#include "report/render.h"
#include "report/result_set.h"
#include "report/result_summary.h"
#include "report/same_trace.h"
#include "cli/verbs.h"

namespace fsr::cli {

Action add_report_verb(CLI::App& app) {
  struct Opts {
    std::string result, baseline, format = "text", output;
    size_t top = 10;
    int depth = 2;
    bool quiet = false;
    bool allow_different_traces = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("report", "Attribute a replay's time per syscall class, process and directory");
  sub->add_option("result", o->result, "Result file written by `fsreplay replay`")->required();
  sub->add_option("--baseline,-b", o->baseline, "Result of the same trace on a reference mount");
  sub->add_option("--format,-f", o->format, "text, json, html, perfetto, markdown or csv")
      ->check(CLI::IsMember({"text", "json", "html", "perfetto", "markdown", "csv"}));
  sub->add_option("--output,-o", o->output, "Write here instead of stdout");
  sub->add_option("--top", o->top, "Rows in the process and directory tables")->check(CLI::Range(1, 1000));
  sub->add_option("--depth", o->depth, "Directory depth below the recorded root")->check(CLI::Range(1, 64));
  sub->add_flag("--quiet,-q", o->quiet, "No progress line (shown only on a terminal anyway)");
  sub->add_flag("--allow-different-traces", o->allow_different_traces,
                "With --baseline: allow a baseline of another trace (refused by default: the ratios would compare "
                "two workloads); the report labels it a different trace");
  return [o]() -> int {
    const OutputFormat format = *parse_output_format(o->format);
    const ReportOptions ropt{.top = o->top, .dir_depth = o->depth};
    std::string text;
    bool complete = true;
    std::vector<std::string> problems;
    if (format == OutputFormat::kPerfetto) {  // a timeline of every op: the whole result in memory
      auto target = load_result(o->result);
      if (!target) return fail("report", target.message());
      text = render_report(*target, nullptr, format, ropt);
      complete = target->complete;
      problems = target->problems;
    } else {
      // Read chunk by chunk: memory bounded whatever the result's length.
      auto read = [&](const std::string& f) {
        ProgressLine line("report " + f, "ops", o->quiet);
        return summarize_result(f, {.dir_depth = o->depth}, [&](uint64_t d, uint64_t t) { line.update(d, t); });
      };
      // A baseline of another trace is refused before the long reads (same_trace.h).
      bool different_trace = false;
      if (!o->baseline.empty()) {
        auto bm = read_result_meta(o->baseline);
        if (!bm) return fail("report", bm.message());
        auto tm = read_result_meta(o->result);
        if (!tm) return fail("report", tm.message());
        std::vector<std::string> warnings;
        if (Status st = check_same_trace({&*bm, &*tm}, o->allow_different_traces, warnings); !st)
          return fail("report", st.message());
        for (const std::string& w : warnings) std::cerr << "fsreplay report: warning: " << w << "\n";
        different_trace = tm->different_trace;
      }
      auto target = read(o->result);
      if (!target) return fail("report", target.message());
      target->different_trace = different_trace;
      std::optional<ResultSummary> baseline;
      if (!o->baseline.empty()) {
        auto b = read(o->baseline);
        if (!b) return fail("report", b.message());
        baseline = std::move(b).value();
      }
      text = render_report(*target, baseline ? &*baseline : nullptr, format, ropt);
      complete = target->complete && (!baseline || baseline->complete);
      problems = target->problems;
      if (baseline) problems.insert(problems.end(), baseline->problems.begin(), baseline->problems.end());
    }
    if (int rc = write_output("report", o->output, text); rc != kExitOk) return rc;
    if (!complete) {
      for (const std::string& p : problems) std::cerr << "fsreplay report: warning: " << p << "\n";
      return kExitIncomplete;
    }
    return kExitOk;
  };
}

}  // namespace fsr::cli
