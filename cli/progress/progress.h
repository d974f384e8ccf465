// SPDX-License-Identifier: Apache-2.0
// A progress line for long work (prepare, replay, report, compare, record):
// on a terminal only, redrawn in place at most ten times a second, e.g.
//
//   replay  1,234,567/3,000,000 ops  41%  12.3 s  ETA 17 s  cc1
//   record  2,478,677 events  0 drops  61.0 s
//
// Nothing at all when its file descriptor is not a terminal (a pipe, a file,
// CI logs) or when asked to be quiet. One component for every verb; the
// verbs only say what is done, of what total, and what runs now.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fsr {

struct ProgressView {
  std::string_view label;  // "replay"
  std::string_view unit;   // "ops", "events", "entries"
  uint64_t done = 0;
  uint64_t total = 0;  // 0: unknown (no share, no ETA)
  uint64_t elapsed_ns = 0;
  std::string_view current;  // what runs now ("cc1"), may be empty
  std::string_view extra;    // more figures ("0 drops"), may be empty
};

// The line itself, cut to `width` columns (0: no limit). No escape codes.
std::string format_progress(const ProgressView& v, size_t width = 0);

class ProgressLine {
 public:
  // Shown only when `fd` is a terminal and `quiet` is false, and only once
  // the work has taken `show_after_ns` (short work leaves no trace).
  ProgressLine(std::string label, std::string unit, bool quiet = false, int fd = 2,
               uint64_t show_after_ns = 1'000'000'000);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Redraws (at most every 100 ms, and always when done reaches total).
  void update(uint64_t done, uint64_t total = 0, std::string_view current = {}, std::string_view extra = {});
  // Clears the line (also done by the destructor), so what follows starts clean.
  void finish();

 private:
  std::string label_, unit_;
  int fd_;
  bool enabled_;
  bool drawn_ = false;
  uint64_t start_ns_;
  uint64_t show_after_ns_;
  uint64_t last_draw_ns_ = 0;
};

// True when `fd` is a terminal.
bool is_terminal(int fd);

}  // namespace fsr
