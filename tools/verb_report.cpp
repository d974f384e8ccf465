// fsreplay report RESULT [--baseline RESULT]: per-class attribution of one
// replay, optionally against a baseline replay of the same trace.
#include <fstream>
#include <iostream>

#include "tools/cli_util.h"
#include "tools/report/render.h"
#include "tools/report/result_set.h"
#include "tools/verbs.h"

namespace fsr::cli {

Action add_report_verb(CLI::App& app) {
  struct Opts {
    std::string result, baseline, format = "text", output;
    size_t top = 10;
    int depth = 2;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("report", "Attribute a replay's time per syscall class, process and directory");
  sub->add_option("result", o->result, "Result file written by `fsreplay replay`")->required();
  sub->add_option("--baseline,-b", o->baseline, "Result of the same trace on a reference mount");
  sub->add_option("--format,-f", o->format, "text, json, html or perfetto")
      ->check(CLI::IsMember({"text", "json", "html", "perfetto"}));
  sub->add_option("--output,-o", o->output, "Write here instead of stdout");
  sub->add_option("--top", o->top, "Rows in the process and directory tables")->check(CLI::Range(1, 1000));
  sub->add_option("--depth", o->depth, "Directory depth below the recorded root")->check(CLI::Range(1, 64));
  return [o]() -> int {
    auto target = load_result(o->result);
    if (!target) return fail("report", target.message());
    std::optional<ResultSet> baseline;
    if (!o->baseline.empty()) {
      auto b = load_result(o->baseline);
      if (!b) return fail("report", b.message());
      baseline = std::move(b).value();
    }
    const std::string text = render_report(*target, baseline ? &*baseline : nullptr,
                                           *parse_output_format(o->format), {.top = o->top, .dir_depth = o->depth});
    if (o->output.empty()) {
      std::cout << text;
    } else {
      std::ofstream out(o->output, std::ios::binary);
      out << text;
      if (!out) return fail("report", o->output + ": cannot write; check the directory exists and is writable");
    }
    const bool complete = target->complete && (!baseline || baseline->complete);
    if (!complete) {
      for (const std::string& p : target->problems) std::cerr << "fsreplay report: warning: " << p << "\n";
      if (baseline)
        for (const std::string& p : baseline->problems) std::cerr << "fsreplay report: warning: " << p << "\n";
      return kExitIncomplete;
    }
    return kExitOk;
  };
}

}  // namespace fsr::cli
