// SPDX-License-Identifier: Apache-2.0
// fsreplay inspect FILE [--json]: header, span, processes, events by class,
// drops, bytes/event, and any damage found.
#include <fmt/core.h>

#include "cli/cli_util.h"
#include "cli/verbs.h"
#include "traces/profile.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"

namespace fsr::cli {

Action add_inspect_verb(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "inspect", "Summarise a trace or result file (header, span, events by class, drops, size), or show a profile");
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub->add_option("FILE", *file, "Trace, result or profile file")->required();
  sub->add_flag("--json", *json, "Print JSON (keys: events, by_class, drops, bytes_per_event, ...)");
  sub->footer("Exit codes: 0 ok, 1 unreadable file, 4 damaged or truncated (summary of what was readable).");
  return [=] {
    {  // A profile (fsreplay probe): its cases, not a summary of events.
      auto r = TraceReader::open(*file);
      if (r && r.value()->kind() == PayloadKind::kProfile) {
        auto p = read_profile(*file);
        if (!p) return fail("inspect", p.message(), kExitIncomplete);
        fmt::print("{}", *json ? profile_to_json(*p) : profile_to_text(*p));
        return kExitOk;
      }
    }
    auto s = summarise(*file);
    if (!s) return fail("inspect", s.message());
    fmt::print("{}", *json ? summary_to_json(*s) + "\n" : summary_to_text(*s));
    if (!*json) {
      if (s->footer && s->drops)
        fmt::print(stderr, "fsreplay inspect: warning: {} events were lost while recording\n", s->drops);
      if (s->footer && s->footer->io_uring_submissions)
        fmt::print(stderr, "fsreplay inspect: warning: {} io_uring submissions; their I/O is not in the trace\n",
                   s->footer->io_uring_submissions);
    }
    if (!s->problems.complete() || !s->footer) {
      fmt::print(stderr,
                 "fsreplay inspect: {}: damaged or incomplete ({} problem(s)); the summary covers what was readable\n",
                 *file, s->problems.messages.size());
      return kExitIncomplete;
    }
    return kExitOk;
  };
}

}  // namespace fsr::cli
