// A verb whose library has not landed yet: it says so plainly and exits non-zero.
#pragma once
#include "tools/cli_util.h"
#include "tools/verbs.h"

namespace fsr::cli {
inline Action pending_verb(CLI::App& app, const char* name, const char* what) {
  auto* sub = app.add_subcommand(name, what);
  sub->allow_extras();
  return [name] { return fail(name, "not available in this build yet"); };
}
}  // namespace fsr::cli
