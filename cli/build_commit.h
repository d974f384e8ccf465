// SPDX-License-Identifier: Apache-2.0
// The commit fsreplay was built from, for --version: defined in a .cpp that
// cli/build_commit.cmake generates at build time (so that a new commit
// recompiles that one file and relinks, nothing more).
#pragma once

namespace fsr::cli {

// git's short hash of the source tree, with "-dirty" when a tracked file
// differed from it at build time; "unknown" when the tree is not a git checkout.
const char* build_commit();

}  // namespace fsr::cli
