// SPDX-License-Identifier: Apache-2.0
// fsreplay dump FILE: every event (or replayed op), one line each, for
// debugging and for diffing two traces. --json prints JSON lines.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "cli/verbs.h"
#include "traces/event_format.h"
#include "traces/trace_reader.h"

namespace fsr::cli {

Action add_dump_verb(CLI::App& app) {
  auto* sub = app.add_subcommand("dump", "Print every event (or replayed op) of a file, one per line");
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto limit = std::make_shared<uint64_t>(0);
  auto prestate = std::make_shared<bool>(false);
  sub->add_option("FILE", *file, "Trace or result file (a profile: fsreplay inspect)")->required();
  sub->add_flag("--json", *json, "One JSON object per line");
  sub->add_option("-n,--limit", *limit, "Stop after N records (0 = all)");
  sub->add_flag("--prestate", *prestate, "Print the prestate (initial tree) instead of events");
  return [=] {
    auto rr = TraceReader::open(*file);
    if (!rr) return fail("dump", rr.message());
    TraceReader& r = **rr;
    if (r.kind() == PayloadKind::kProfile)  // one frame of cases: inspect shows it
      return fail("dump", *file +
                              ": is a profile, not a trace or a replay result: it has no events or prestate; "
                              "show it with 'fsreplay inspect " +
                              *file + "'");
    if (*prestate) {
      auto pre = r.prestate();
      if (!pre) return fail("dump", pre.message());
      for (const auto& e : *pre) fmt::print("{}\n", format_prestate(e, *json));
      return kExitOk;
    }
    uint64_t n = 0;
    auto done = [&] { return *limit && n >= *limit; };
    if (r.kind() == PayloadKind::kTrace) {
      std::vector<Event> ev;
      while (!done()) {
        auto got = r.next(ev);
        if (!got) return fail("dump", got.message());
        if (!got.value()) break;
        for (const Event& e : ev) {
          if (done()) break;
          fmt::print("{}\n", format_event(e, r, *json));
          ++n;
        }
      }
    } else {
      std::vector<OpRecord> ops;
      while (!done()) {
        auto got = r.next(ops);
        if (!got) return fail("dump", got.message());
        if (!got.value()) break;
        for (const OpRecord& o : ops) {
          if (done()) break;
          fmt::print("{}\n", format_op(o, r, *json));
          ++n;
        }
      }
    }
    for (const auto& m : r.problems().messages) fmt::print(stderr, "fsreplay dump: {}\n", m);
    return r.problems().complete() || done() ? kExitOk : kExitIncomplete;
  };
}

}  // namespace fsr::cli
