// SPDX-License-Identifier: Apache-2.0
#include "cli/progress/progress.h"

#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include "base/clock.h"

namespace fsr {
namespace {

std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string seconds(double s) {
  if (s < 100) return fmt::format("{:.1f} s", s);
  if (s < 6000) return fmt::format("{}:{:02} min", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}:{:02} h", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
}

size_t terminal_width(int fd) {
  winsize ws{};
  return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

}  // namespace

bool is_terminal(int fd) { return isatty(fd) == 1; }

std::string format_progress(const ProgressView& v, size_t width) {
  const double secs = static_cast<double>(v.elapsed_ns) / 1e9;
  std::string s = fmt::format("{}  {}", v.label, grouped(v.done));
  if (v.total) s += "/" + grouped(v.total);
  s += fmt::format(" {}", v.unit);
  if (v.total) s += fmt::format("  {}%", v.done >= v.total ? 100 : v.done * 100 / v.total);
  if (!v.extra.empty()) s += fmt::format("  {}", v.extra);
  s += "  " + seconds(secs);
  // The rate so far gives the time left, once a little work is done.
  if (v.total && v.done < v.total && v.done > 0 && secs >= 0.5)
    s += "  ETA " + seconds(secs * static_cast<double>(v.total - v.done) / static_cast<double>(v.done));
  if (!v.current.empty()) s += fmt::format("  {}", v.current);
  if (width && s.size() > width - 1) s.resize(width - 1);  // never wrap: \r must return to this line
  return s;
}

ProgressLine::ProgressLine(std::string label, std::string unit, bool quiet, int fd, uint64_t show_after_ns)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      fd_(fd),
      enabled_(!quiet && is_terminal(fd)),
      start_ns_(now_ns()),
      show_after_ns_(show_after_ns) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(uint64_t done, uint64_t total, std::string_view current, std::string_view extra) {
  if (!enabled_) return;
  const uint64_t t = now_ns();
  if (t - start_ns_ < show_after_ns_) return;
  if (t - last_draw_ns_ < 100'000'000ull && !(total && done >= total)) return;
  last_draw_ns_ = t;
  ProgressView v{label_, unit_, done, total, t - start_ns_, current, extra};
  const std::string line = "\r" + format_progress(v, terminal_width(fd_)) + "\033[K";
  if (write(fd_, line.data(), line.size()) < 0) enabled_ = false;
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!enabled_ || !drawn_) return;
  static constexpr char kClear[] = "\r\033[K";
  if (write(fd_, kClear, sizeof kClear - 1) < 0) enabled_ = false;
  drawn_ = false;
}

}  // namespace fsr
