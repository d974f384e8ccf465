// SPDX-License-Identifier: Apache-2.0
#include "replayer/engine/interrupt.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace fsr {
namespace {
std::atomic<int> g_signal{0};
// Two buffers: the handler reads the one published last while the other is
// written (a note changes only between phases, never twice during one read).
char g_note[2][1024];
std::atomic<int> g_note_at{0};
}  // namespace

int stop_signal() { return g_signal.load(std::memory_order_relaxed); }

void request_stop(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
}

void clear_stop() { g_signal.store(0, std::memory_order_relaxed); }

void set_debris_note(std::string_view note) {
  const int next = 1 - g_note_at.load(std::memory_order_relaxed);
  const size_t n = std::min(note.size(), sizeof g_note[0] - 1);
  std::memcpy(g_note[next], note.data(), n);
  g_note[next][n] = '\0';
  g_note_at.store(next, std::memory_order_release);
}

const char* debris_note() { return g_note[g_note_at.load(std::memory_order_acquire)]; }

}  // namespace fsr
