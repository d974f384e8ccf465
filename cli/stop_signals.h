// SPDX-License-Identifier: Apache-2.0
// SIGINT, SIGTERM and SIGHUP for the verbs that write into a target
// (prepare, replay, compare): the first asks the replay to stop and clean
// up (replayer/engine/interrupt.h) and says so in one line; a second aborts at
// once, saying what it leaves behind. The verb then exits 128+signal.
// SIGXFSZ is ignored: a write past `ulimit -f` is an EFBIG divergence.
#pragma once

namespace fsr::cli {

// Installs the handlers for `verb` (a string literal: kept, not copied).
void install_stop_handlers(const char* verb);

// 128 + the signal that stopped the verb; 0 when none did.
int stop_exit_code();

}  // namespace fsr::cli
