// SPDX-License-Identifier: Apache-2.0
// fsreplay detect PATH [--json]: where does PATH live, and on what?
#include <fmt/core.h>

#include <string>

#include "cli/cli_util.h"
#include "detect/detect.h"
#include "cli/verbs.h"

namespace fsr::cli {

Action add_detect_verb(CLI::App& app) {
  struct Opts {
    std::string path;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("detect", "Classify the platform (WSL1/WSL2/Linux) and the mount that holds PATH");
  sub->add_option("PATH", opts->path, "File or directory to classify")->required();
  sub->add_flag("--json", opts->json, "Print JSON (stable keys) instead of text");
  return [opts] {
    Result<Environment> env = detect_environment(opts->path);
    if (!env) return fail("detect", env.message());
    if (opts->json)
      fmt::print("{}\n", environment_to_json(env.value()));
    else
      fmt::print("{}", environment_to_text(env.value()));
    return kExitOk;
  };
}

}  // namespace fsr::cli
