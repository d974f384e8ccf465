// SPDX-License-Identifier: Apache-2.0
// replay's and prepare's --place SUBDIR=OTHER: the option, its checks, the
// private mount namespace entered before any thread starts, and the line
// the summary prints (replayer/session/placed_dirs.h does the mounting).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "replayer/session/replay_types.h"

namespace fsr::cli {

void add_place_option(CLI::App* sub, std::vector<std::string>& place);

// Checks the --place arguments into o.place (with each OTHER's file-system
// type), says the warnings, and enters a private mount namespace. Call it
// first in the verb, while the process has one thread. 0, or the exit code
// after one line on stderr.
int setup_placement(const char* verb, const std::vector<std::string>& place, ReplayOptions& o);

// "clone/.git -> /mnt/fast/git (ext4)", ", " between; "" without placement.
std::string placement_text(const std::vector<PlacedDir>& place);

}  // namespace fsr::cli
