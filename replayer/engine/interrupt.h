// SPDX-License-Identifier: Apache-2.0
// A stop asked for by a signal (SIGINT, SIGTERM, SIGHUP). The verbs'
// handlers set it (cli/stop_signals.h); the replay's phases and its
// workers read it and wind down: no further call is issued and no sleep
// finishes, then the target is reset, the scratch removed and the partial
// result deleted before the verb exits 128+signal. Process-wide, as signals
// are; reading it is one relaxed atomic load, cheap enough for the issue loop.
#pragma once

#include <string_view>

namespace fsr {

// The signal that asked for the stop; 0 when none did.
int stop_signal();
// Async-signal-safe: the first signal asked for wins.
void request_stop(int sig);
// Forgets a stop (tests that replay again in one process).
void clear_stop();

// What a second signal, which aborts at once, would leave behind (a scratch
// directory, a target not reset, a partial result): kept up to date by the
// replay as it makes and removes them, printed by the handler. Reading it is
// async-signal-safe; the text is cut at 1,023 bytes.
void set_debris_note(std::string_view note);
const char* debris_note();

}  // namespace fsr
