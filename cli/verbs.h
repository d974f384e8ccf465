// SPDX-License-Identifier: Apache-2.0
// Registration of the fsreplay verbs. Each verb lives in its own verb_*.cpp:
// it declares its options on a CLI11 subcommand and, when chosen, calls the
// libraries and prints. No logic a test would want lives only here.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace fsr::cli {

// A verb's action: returns the process exit code.
using Action = std::function<int()>;

// Each add_* adds one subcommand to `app` and returns the action to run when
// that subcommand was chosen.
Action add_record_verb(CLI::App& app);
Action add_inspect_verb(CLI::App& app);
Action add_dump_verb(CLI::App& app);
Action add_prepare_verb(CLI::App& app);
Action add_replay_verb(CLI::App& app);
Action add_report_verb(CLI::App& app);
Action add_compare_verb(CLI::App& app);
Action add_detect_verb(CLI::App& app);
Action add_probe_verb(CLI::App& app);
Action add_predict_verb(CLI::App& app);
Action add_advise_verb(CLI::App& app);

}  // namespace fsr::cli
