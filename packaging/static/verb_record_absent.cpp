// SPDX-License-Identifier: Apache-2.0
// fsreplay-static's `record`: recording needs eBPF, which this build leaves
// out (it must run on WSL1 and any x86-64 distro), so the verb is a stub that
// says so and where to get one that records. It replaces cli/verb_record.cpp
// in packaging/CMakeLists.txt's static target only.
#include "cli/cli_util.h"
#include "cli/verbs.h"

namespace fsr::cli {

Action add_record_verb(CLI::App& app) {
  auto* sub = app.add_subcommand("record",
                                 "NOT IN THIS STATIC BUILD: recording needs eBPF; record with the fsreplay of the "
                                 ".deb or a source build, then replay here");
  sub->allow_extras();
  sub->prefix_command();
  return []() -> int {
    return fail("record",
                "not in this static build (fsreplay-static carries replay and the reports, not the "
                "eBPF recorder): record with the fsreplay from the .deb or a source build on a Linux "
                "kernel with BPF, copy the trace here and run 'fsreplay replay TRACE --target DIR'",
                kExitNoPrivilege);
  };
}

}  // namespace fsr::cli
