// SPDX-License-Identifier: Apache-2.0
#include "cli/stop_signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "replayer/engine/interrupt.h"

namespace fsr::cli {
namespace {

const char* g_verb = "";

void say(const char* s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

// Async-signal-safe only: write(2), the atomic stop, _exit.
extern "C" void on_stop(int sig) {
  const char* name = sigabbrev_np(sig);  // (a table lookup: safe)
  if (stop_signal() == 0) {
    request_stop(sig);
    say("\nfsreplay ");
    say(g_verb);
    say(": SIG");
    say(name ? name : "?");
    say(": stopping and cleaning up (a second signal aborts at once)\n");
    return;
  }
  say("\nfsreplay ");
  say(g_verb);
  say(": SIG");
  say(name ? name : "?");
  say(" again: aborted at once");
  const char* note = debris_note();
  if (note[0]) {
    say("; left behind: ");
    say(note);
  }
  say("\n");
  _exit(128 + sig);
}

}  // namespace

void install_stop_handlers(const char* verb) {
  g_verb = verb;
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  // A write past the user's RLIMIT_FSIZE (ulimit -f) fails with EFBIG, a
  // divergence the result counts, instead of killing the verb before it
  // resets the target and removes its scratch.
  signal(SIGXFSZ, SIG_IGN);
}

int stop_exit_code() {
  const int sig = stop_signal();
  return sig ? 128 + sig : 0;
}

}  // namespace fsr::cli
